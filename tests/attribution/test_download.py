"""lib.attribution.download on tiny in-code files: the release check names a missing file and a
checksum mismatch, identities by hand, and the download through a mock transport (no network)."""
import dataclasses
import hashlib
import json

import httpx
import pytest

from lib.attribution import download as dl

UNIVERSE = ("author_clean,race,gender,log10_hits,count\n"
            "ada lovelace,white,female,5.1,3\nbob marley,black,male,6.2,9\n").encode()
QUOTES_HEADER = ",".join(dl.ds.QUOTE_COLUMNS)


def _spec(name: str, data: bytes, *, kind: str, rows=None, sha=None) -> dl.ReleasedFile:
    return dl.ReleasedFile(f"datasets/{name}" if kind == "quotes" else name, len(data.decode()), rows, kind, sha)


def test_identity_problems_by_hand():
    spec = _spec("universe_authors.csv", UNIVERSE, kind="universe")
    assert dl.identity_problems(UNIVERSE, spec) == ([], [])
    crlf = UNIVERSE.replace(b"\n", b"\r\n")
    (msg,), _ = dl.identity_problems(crlf, spec)
    assert msg == ("universe_authors.csv: line ends converted: 3 CRLF line ends where the release has LF "
                   f"(size {len(crlf)} characters, the release's {len(UNIVERSE)})")
    _, (bad,) = dl.identity_problems(b"name,x\n1,2\n", spec)
    assert bad.startswith("universe_authors.csv: header 'name,x', expected the release's 'author_clean,race,")
    _, (bad,) = dl.identity_problems(b"\xff\xfe", spec)
    assert "not UTF-8 text" in bad
    q = (QUOTES_HEADER + "\n" + ",".join(["0"] * len(dl.ds.QUOTE_COLUMNS)) + "\n").encode()
    (rows,), _ = dl.identity_problems(q, _spec("x_with_quotes.csv", q, kind="quotes", rows=2))
    assert rows == "x_with_quotes.csv: 1 data rows, expected 2"


def test_check_release_names_the_missing_file_and_a_checksum_mismatch(tmp_path):
    good = _spec("universe_authors.csv", UNIVERSE, kind="universe", sha=hashlib.sha256(UNIVERSE).hexdigest())
    quotes = _spec("intersectional_with_quotes.csv", QUOTES_HEADER.encode() + b"\n", kind="quotes")
    (tmp_path / "intersectional_with_quotes.csv").write_text(QUOTES_HEADER + "\n")
    (missing,) = dl.check_release(tmp_path, files=(good, quotes))
    assert f"AttriBench: {tmp_path / 'universe_authors.csv'} is missing; get it with: python -m lib.attribution.download" in missing
    (tmp_path / "universe_authors.csv").write_bytes(UNIVERSE)
    assert dl.check_release(tmp_path, files=(good, quotes)) == []
    # the same size, one byte changed: only the pinned sha256 tells
    (tmp_path / "universe_authors.csv").write_bytes(UNIVERSE.replace(b"5.1", b"5.2"))
    (msg,) = dl.check_release(tmp_path, files=(good, quotes))
    assert "sha256" in msg and f"differs from the one pinned by the project (lib.attribution.download.FILES) ({good.sha256})" in msg
    assert dl.check_release(tmp_path, files=(good, quotes), accept_modified=True) == []
    # a sha256 recorded at first download (SHA256SUMS.json) is checked the same way
    plain = dataclasses.replace(good, sha256=None)
    (tmp_path / dl.SUMS).write_text(json.dumps({"universe_authors.csv": good.sha256}))
    (msg,) = dl.check_release(tmp_path, files=(plain,))
    assert "differs from the one recorded at first download" in msg


@pytest.fixture
def one_file(monkeypatch):
    spec = _spec("universe_authors.csv", UNIVERSE, kind="universe")
    monkeypatch.setattr(dl, "FILES", (spec,))
    return spec


def _client(handler) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))


def test_download_writes_verifies_and_records_the_sha256(tmp_path, one_file):
    asked = []

    def serve(request):
        asked.append(str(request.url))
        return httpx.Response(200, content=UNIVERSE)

    sums = dl.download(tmp_path, client=_client(serve))
    assert asked == [dl.RAW_BASE + "universe_authors.csv"]
    assert (tmp_path / "universe_authors.csv").read_bytes() == UNIVERSE
    assert sums == json.loads((tmp_path / dl.SUMS).read_text()) == {"universe_authors.csv": hashlib.sha256(UNIVERSE).hexdigest()}
    # a present, verified copy is kept: nothing is fetched again
    dl.download(tmp_path, client=_client(lambda r: pytest.fail("fetched a verified copy again")))


def test_a_bad_upstream_never_overwrites_and_offline_is_explained(tmp_path, one_file):
    (tmp_path / "universe_authors.csv").write_bytes(UNIVERSE)
    with pytest.raises(dl.DownloadError, match="header '<html>'"):
        dl.download(tmp_path, force=True, client=_client(lambda r: httpx.Response(200, content=b"<html>\n")))
    assert (tmp_path / "universe_authors.csv").read_bytes() == UNIVERSE
    with pytest.raises(dl.DownloadError, match=r"universe_authors.csv: HTTP 404"):
        dl.download(tmp_path, force=True, client=_client(lambda r: httpx.Response(404)))

    def offline(request):
        raise httpx.ConnectError("no route", request=request)
    with pytest.raises(dl.DownloadError, match=r"cannot reach .* \(ConnectError\): no network\? .*synthetic AttriBench twin"):
        dl.download(tmp_path / "new", client=_client(offline))
