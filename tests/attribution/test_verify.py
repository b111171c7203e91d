"""Verification of the AttriBench release files (issue 28 item 2): every file that is there is
identified (size, line ends, rows, sha256), every problem is reported in one run with the file's
name and both values, and an explicit override accepts a modified copy. On the project's release
fixture (tests/release_fixture.py), whose own identities stand in for the release's."""
import shutil

import pytest

from lib.attribution import download as dl

import release_fixture as rf


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    root = tmp_path_factory.mktemp("attribench")
    written = rf.write_attribench_release(root)
    return root, rf.attribench_specs(written)


@pytest.fixture
def copy(release, tmp_path):
    """A fresh copy of the fixture release and its identities, with FILES pointed at them."""
    root, specs = release
    dest = tmp_path / "ab"
    shutil.copytree(root, dest)
    return dest, specs


FULL, SUBSET, UNIVERSE = ("intersectional_with_quotes.csv", "intersectional_with_quotes_random_300matchings.csv",
                          "universe_authors.csv")


def _by_name(specs):
    return {s.name: s for s in specs}


def _substitute_truncate_convert(dest):
    """The three modifications of the issue, on one copy."""
    shutil.copyfile(dest / SUBSET, dest / FULL)                               # a 300-matchings file over a full one
    lines = (dest / UNIVERSE).read_bytes().split(b"\n")
    (dest / UNIVERSE).write_bytes(b"\n".join(lines[: len(lines) * 3 // 5]) + b"\n")   # cut to 3/5 of its rows
    p = dest / "multirace_with_quotes.csv"
    p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))                     # LF -> CRLF


def test_the_fixture_passes_as_written(copy):
    dest, specs = copy
    assert dl.check_release(dest, files=specs) == []


def test_substituted_truncated_and_converted_files_are_all_reported_in_one_run(copy):
    dest, specs = copy
    spec = _by_name(specs)
    _substitute_truncate_convert(dest)
    msgs = dl.check_release(dest, files=specs)
    full = [m for m in msgs if f"{FULL}: " in m]
    # the substituted file: its size and rows, each with the release's value
    assert any(f"size {spec[SUBSET].chars:,} characters, expected the release's {spec[FULL].chars:,}" in m for m in full)
    assert any(f"{spec[SUBSET].rows:,} data rows, expected {spec[FULL].rows:,}" in m for m in full)
    assert any("sha256" in m and spec[FULL].sha256 in m for m in full)
    # the truncated universe (no published row count): its size and sha256
    uni = [m for m in msgs if f"{UNIVERSE}: " in m]
    assert any("size" in m and f"expected the release's {spec[UNIVERSE].chars:,}" in m for m in uni)
    assert any("sha256" in m and spec[UNIVERSE].sha256 in m for m in uni)
    # the converted file: named as a line-end conversion, not as some other size
    conv = [m for m in msgs if "multirace_with_quotes.csv: " in m]
    n_lines = (dest / "multirace_with_quotes.csv").read_bytes().count(b"\r\n")
    assert any(f"line ends converted: {n_lines:,} CRLF line ends where the release has LF" in m for m in conv)
    assert all("accept_modified_releases" in m for m in msgs)                 # the way out is named
    # and nothing else is reported about the two untouched files
    assert {m.split(": ")[1].rsplit("/", 1)[-1] for m in msgs} == {FULL, UNIVERSE, "multirace_with_quotes.csv"}


def test_an_accepted_modified_copy_passes_and_what_differs_is_listed(copy, monkeypatch):
    dest, specs = copy
    _substitute_truncate_convert(dest)
    assert dl.check_release(dest, files=specs, accept_modified=True) == []
    monkeypatch.setattr(dl, "FILES", specs)
    accepted = dl.accepted_modifications(dest)
    assert {a.split(":")[0] for a in accepted} == {FULL, UNIVERSE, "multirace_with_quotes.csv"}
    (dest / SUBSET).write_text("author,quote\nA,B\n")                        # a broken header is never accepted
    (msg,) = dl.check_release(dest, files=specs, accept_modified=True)
    assert f"{SUBSET}: header 'author,quote', expected the release's" in msg


def test_verify_only_checks_every_file_that_is_there_and_reports_all_problems(copy, monkeypatch, capsys):
    dest, specs = copy
    monkeypatch.setattr(dl, "FILES", specs)
    _substitute_truncate_convert(dest)
    (dest / SUBSET).unlink()
    assert dl.main(["--verify-only", "--dest", str(dest)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert any(f"{SUBSET}: missing" in line for line in err)
    for name in (FULL, UNIVERSE, "multirace_with_quotes.csv"):
        assert any(line.startswith(f"error: {name}: ") for line in err), name
    assert not any("multirace_with_quotes_random_300matchings.csv" in line for line in err)   # intact: no problem
    shutil.copyfile(dest / FULL, dest / SUBSET)        # back in place (FULL holds its content), then accept
    assert dl.main(["--verify-only", "--accept-modified", "--dest", str(dest)]) == 0
    out = capsys.readouterr().out
    assert "warning: intersectional_with_quotes.csv: size" in out and "warning: multirace_with_quotes.csv: line ends" in out


def test_missing_quote_files_are_notes_when_the_universe_is_there(copy, monkeypatch):
    dest, specs = copy
    for name in (FULL, "multirace_with_quotes.csv"):
        (dest / name).unlink()
    assert dl.check_release(dest, files=specs) == []                         # the run can go on
    notes = dl.release_notes(dest)
    assert len(notes) == 2 and all("would add Table 2's" in n and "at-tab4, at-fig10" in n for n in notes)
    assert all("python -m lib.attribution.download" in n and dl.COMMIT[:8] in n for n in notes)
    (dest / UNIVERSE).unlink()                                                # without it: every absent file is a problem
    assert dl.release_notes(dest) == []
    assert sorted(m.split(" is missing")[0].rsplit("/", 1)[-1] for m in dl.check_release(dest, files=specs)) == sorted(
        [FULL, "multirace_with_quotes.csv", UNIVERSE])


def test_the_project_pins_the_sha256_of_the_copy_it_checked():
    # tests/data/golden/attribution/release/README.md: the whole released file, read and hashed
    assert dl.BY_NAME[SUBSET].sha256 == "f5ff664c19d6d2c7c4522f9d1375dfe97990a9f720da0ade574945e7f0ff2056"
    assert all(f.adds for f in dl.FILES)
