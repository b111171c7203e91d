"""Fetch the five released AttriBench files at the pinned commit and verify them.

``python -m lib.attribution.download [--force] [--dest DIR] [--verify-only] [--accept-modified]``

Verification (reference B.1; shared/data/README.md) identifies each file: its size in
characters (a copy with converted line ends, CRLF ↔ LF, is named as such), the header row, the
number of data rows (7,964 / 7,656 / 1,200 / 1,200 for the quote files; the universe has no
published row count), the sha256 where the project pins one (:data:`FILES`) or recorded it at
first download (``SHA256SUMS.json`` beside the files, so a silently changed copy is caught),
then the columns the analysis reads (:mod:`lib.attribution.dataset`). Every file that is there
is checked and every problem reported in one go, naming the file and both values. An explicit
override (``--accept-modified``; a profile's ``accept_modified_releases: [attribench_dir]``)
accepts a modified copy whose identity differs, and the run's manifest records what differed.
Derived columns that disagree with their rule in some rows (the released 300-matching files have
such quote_words) are reported as warnings with their rows, never rejected. Without network
access the command stops with a message saying what to do instead; the notebooks then run on
the synthetic twin (:mod:`lib.attribution.twin`).
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import httpx
import pandas as pd

from lib import paths
from lib.attribution import dataset as ds

REPOSITORY = "elizaberman/attribution-bias-in-llms"
COMMIT = "58aca334ff096ae4cc7d7d3e9d56177e88e7c867"
RAW_BASE = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/1_dataset_construction/"
DEST = paths.DOWNLOADS / "attribench"
SUMS = "SHA256SUMS.json"


@dataclass(frozen=True)
class ReleasedFile:
    path: str            # under 1_dataset_construction/
    chars: int           # total characters (reference B.1)
    rows: int | None     # data rows; None where the release does not state it
    kind: str            # "quotes" or "universe"
    sha256: str | None = None    # pinned by the project where a verified copy was hashed
    adds: str = ""       # what the file adds to a release-only run (named when it is missing)

    @property
    def name(self) -> str:
        return Path(self.path).name


_FULL = ("Table 2's {kind} row (at-tab2, the paper's selected run) and, with the other full dataset, "
         "Table 4 and Figure 10 (at-tab4, at-fig10)")
_SUBSET = "the evidence-conditioned runs of the † models (§5, with an endpoint); no artifact of a release-only run"
FILES = (
    ReleasedFile("datasets/intersectional_with_quotes.csv", 1_602_578, 7_964, "quotes",
                 adds=_FULL.format(kind="intersectional")),
    ReleasedFile("datasets/multirace_with_quotes.csv", 1_523_454, 7_656, "quotes", adds=_FULL.format(kind="multirace")),
    # sha256 of the copy checked in tests/data/golden/attribution/release/README.md
    ReleasedFile("datasets/intersectional_with_quotes_random_300matchings.csv", 240_914, 1_200, "quotes",
                 sha256="f5ff664c19d6d2c7c4522f9d1375dfe97990a9f720da0ade574945e7f0ff2056", adds=_SUBSET),
    ReleasedFile("datasets/multirace_with_quotes_random_300matchings.csv", 236_117, 1_200, "quotes", adds=_SUBSET),
    ReleasedFile("universe_authors.csv", 739_693, None, "universe",
                 adds="Table 3, Figure 9 and the balancing re-run (at-tab3, at-fig9, at-tab2-rebalance)"),
)
#: the file without which a release-only run has nothing of AttriBench's own to rebuild
REQUIRED = "universe_authors.csv"
BY_NAME = {f.name: f for f in FILES}


class DownloadError(RuntimeError):
    """A released file could not be fetched or failed verification."""


def local_path(name: str, dest: Path | None = None) -> Path:
    """Where the released file ``name`` (e.g. ``universe_authors.csv``) lives once downloaded."""
    return (dest or DEST) / name


def available(dest: Path | None = None) -> dict[str, Path]:
    """The released files present in ``dest`` (not verified; :func:`verify` does that)."""
    return {f.name: local_path(f.name, dest) for f in FILES if local_path(f.name, dest).is_file()}


def _fetch_hint(dest: Path, spec: ReleasedFile) -> str:
    return (f"get it with: python -m lib.attribution.download --dest {dest} (github.com/{REPOSITORY} "
            f"at commit {COMMIT[:8]}, {RAW_BASE.split(COMMIT + '/')[1]}{spec.path})")


def check_release(dest: Path | str | None = None, *, accept_modified: bool = False,
                  files: tuple[ReleasedFile, ...] | None = None) -> list[str]:
    """Every problem of the released files in ``dest``, all at once ([]: the run can use them).

    Without ``universe_authors.csv`` each absent file is named with where to get it; with it, the
    absent quote files are not problems (:func:`release_notes` names them and what they would
    add). Each file that is there is identified (:func:`identity_problems`: size, line ends,
    header, rows, sha256 pinned or recorded at download); ``accept_modified`` (the profile's
    ``accept_modified_releases``) lets a modified copy through when only its identity differs.
    """
    dest = Path(dest) if dest is not None else DEST
    files = FILES if files is None else files
    sums = _read_sums(dest)
    absent = "" if dest.is_dir() else f" (folder {dest} does not exist)"
    have_universe = local_path(REQUIRED, dest).is_file() or REQUIRED not in {f.name for f in files}
    out = []
    for spec in files:
        p = local_path(spec.name, dest)
        if not p.is_file():
            if not have_universe:
                out.append(f"AttriBench: {p} is missing{absent}; {_fetch_hint(dest, spec)}")
            continue
        found = identity_problems(p.read_bytes(), spec, sums.get(spec.name))
        identity, content = ([m.removeprefix(f"{spec.name}: ") for m in ms] for ms in found)
        out += [f"AttriBench: {p}: {m}; replace the file ({_fetch_hint(dest, spec)}) or accept the modified copy "
                "with accept_modified_releases: [attribench_dir]" for m in identity if not accept_modified]
        out += [f"AttriBench: {p}: {m}; replace the file: {_fetch_hint(dest, spec)}" for m in content]
    return out


def release_notes(dest: Path | str | None = None) -> list[str]:
    """The released files absent from ``dest`` that a run can do without: each with what it would add
    and where to get it ([] when all five are there, or when the universe is missing too:
    :func:`check_release` then names every file as a problem)."""
    dest = Path(dest) if dest is not None else DEST
    if not local_path(REQUIRED, dest).is_file():
        return []
    return [f"AttriBench: {local_path(f.name, dest)} is missing: it would add {f.adds}; {_fetch_hint(dest, f)}"
            for f in FILES if not local_path(f.name, dest).is_file()]


def accepted_modifications(dest: Path | str | None = None) -> list[str]:
    """What differs in the files of ``dest`` from the release (the identity problems a profile's
    ``accept_modified_releases`` let through; the manifest records them)."""
    dest = Path(dest) if dest is not None else DEST
    sums = _read_sums(dest)
    return [f"{spec.name}: {m}" for spec in FILES if local_path(spec.name, dest).is_file()
            for m in identity_problems(local_path(spec.name, dest).read_bytes(), spec, sums.get(spec.name))[0]]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Verified:
    """One file that passed verification: its sha256 and the quirks found (warnings, not errors)."""

    sha256: str
    warnings: tuple[str, ...] = ()


def identity_problems(data: bytes, spec: ReleasedFile, recorded_sha: str | None = None) -> tuple[list[str], list[str]]:
    """(identity, content) problems of one file's bytes against ``spec``, every one found.

    Identity (what a modified copy differs in; an override may accept these): the size in
    characters, line ends converted (CRLF ↔ LF), the number of data rows, the sha256 pinned in
    :data:`FILES` or recorded at first download. Content (the file cannot be read as the
    release): not UTF-8 text, a header that is not the release's. Each message names both values.
    """
    name = spec.name
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return [], [f"{name}: not UTF-8 text ({e})"]
    header = text.split("\n", 1)[0].rstrip("\r").lstrip("\ufeff")
    expected = ",".join(ds.QUOTE_COLUMNS if spec.kind == "quotes" else ds.UNIVERSE_COLUMNS)
    if header != expected:      # another file altogether: its size and rows say nothing more
        return [], [f"{name}: header {header[:120]!r}, expected the release's {expected!r}"]
    identity, content = [], []
    if len(text) != spec.chars:
        crlf = text.count("\r\n")
        lf_text = text.replace("\r\n", "\n")
        if spec.chars == len(lf_text) and crlf:
            identity.append(f"{name}: line ends converted: {crlf:,} CRLF line ends where the release has LF "
                            f"(size {len(text):,} characters, the release's {spec.chars:,})")
        elif spec.chars == len(lf_text.replace("\n", "\r\n")) and not crlf:
            identity.append(f"{name}: line ends converted: LF line ends where the release has CRLF "
                            f"(size {len(text):,} characters, the release's {spec.chars:,})")
        else:
            identity.append(f"{name}: size {len(text):,} characters, expected the release's {spec.chars:,} "
                            f"(commit {COMMIT[:8]})")
    if spec.rows is not None:
        try:
            n = len(pd.read_csv(io.StringIO(text), usecols=[1], dtype=str, keep_default_na=False))
        except (pd.errors.ParserError, ValueError) as e:
            content.append(f"{name}: not a readable CSV ({e})")
        else:
            if n != spec.rows:
                identity.append(f"{name}: {n:,} data rows, expected {spec.rows:,}")
    sha = _sha256(data)
    for want, whose in ((spec.sha256, "pinned by the project (lib.attribution.download.FILES)"),
                        (recorded_sha, "recorded at first download")):
        if want is not None and sha != want:
            identity.append(f"{name}: sha256 {sha} differs from the one {whose} ({want})")
            break
    return identity, content


def check_bytes(data: bytes, spec: ReleasedFile, recorded_sha: str | None = None, *,
                accept_modified: bool = False) -> Verified:
    """Verify one file's content against ``spec``; raises DownloadError listing every problem.

    Identity and content (:func:`identity_problems`), then the columns the analysis reads
    (:func:`lib.attribution.dataset.validate_quotes` / ``validate_universe``). ``accept_modified``
    turns the identity problems into warnings (an explicitly accepted modified copy). Derived
    columns that disagree with their rule in some rows are returned as warnings naming the rows
    (the paper's own files have such rows: ⚠ quote_words of a few quotes is not their token count).
    """
    identity, content = identity_problems(data, spec, recorded_sha)
    problems = content + ([] if accept_modified else identity)
    if problems:
        raise DownloadError("; ".join(problems))
    frame = pd.read_csv(io.StringIO(data.decode("utf-8")), keep_default_na=False,
                        na_values={"google_hits": [""], "log10_hits": [""], "count": [""]})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ds.AttriBenchQuirkWarning)
            frame = (ds.validate_quotes if spec.kind == "quotes" else ds.validate_universe)(frame, spec.name)
    except ds.AttriBenchSchemaError as e:
        raise DownloadError(str(e)) from None
    return Verified(_sha256(data), tuple(identity + frame.attrs.get("quirks", [])))


def verify_bytes(data: bytes, spec: ReleasedFile, recorded_sha: str | None = None) -> str:
    """:func:`check_bytes`, returning only the sha256 (the quirks are issued as warnings)."""
    v = check_bytes(data, spec, recorded_sha)
    for w in v.warnings:
        warnings.warn(ds.AttriBenchQuirkWarning(w), stacklevel=2)
    return v.sha256


def _read_sums(dest: Path) -> dict[str, str]:
    f = dest / SUMS
    return json.loads(f.read_text()) if f.is_file() else {}


def verify_report(dest: Path | None = None, *, accept_modified: bool = False) -> dict[str, Verified]:
    """Verify every downloaded file in ``dest``: {name: Verified (sha256, warnings)}. Every file that is
    there is checked; DownloadError lists all problems at once (each missing file among them)."""
    dest = dest or DEST
    sums = _read_sums(dest)
    out, problems = {}, []
    for spec in FILES:
        p = local_path(spec.name, dest)
        if not p.is_file():
            problems.append(f"{p}: missing; run `python -m lib.attribution.download`")
            continue
        try:
            out[spec.name] = check_bytes(p.read_bytes(), spec, sums.get(spec.name), accept_modified=accept_modified)
        except DownloadError as e:
            problems.append(str(e))
    if problems:
        raise DownloadError("\n".join(problems))
    return out


def verify(dest: Path | None = None) -> dict[str, str]:
    """Verify every downloaded file in ``dest``; returns {name: sha256} (quirks issued as warnings)."""
    out = {}
    for name, v in verify_report(dest).items():
        for w in v.warnings:
            warnings.warn(ds.AttriBenchQuirkWarning(w), stacklevel=2)
        out[name] = v.sha256
    return out


def download(dest: Path | None = None, *, force: bool = False, client: httpx.Client | None = None,
             timeout: float = 60.0) -> dict[str, str]:
    """Download the five files at :data:`COMMIT` into ``dest``, verify, record sha256 on first download.

    Already present files that verify are kept unless ``force``. Raises DownloadError with an
    offline hint when the host cannot be reached.
    """
    dest = dest or DEST
    dest.mkdir(parents=True, exist_ok=True)
    sums = _read_sums(dest)
    own = client is None
    client = client or httpx.Client(timeout=timeout, follow_redirects=True)
    try:
        for spec in FILES:
            target = local_path(spec.name, dest)
            if target.is_file() and not force:
                sums[spec.name] = verify_bytes(target.read_bytes(), spec, sums.get(spec.name))
                continue
            url = RAW_BASE + spec.path
            try:
                resp = client.get(url)
            except httpx.TransportError as e:
                raise DownloadError(
                    f"cannot reach {url} ({type(e).__name__}): no network? The companion runs offline on the "
                    f"synthetic AttriBench twin; to use the released data, run this command where "
                    f"raw.githubusercontent.com is reachable, or copy the five files of commit {COMMIT[:8]} "
                    f"into {dest}") from None
            if resp.status_code != 200:
                raise DownloadError(f"{url}: HTTP {resp.status_code}")
            # a changed upstream or a proxy page must not overwrite a verified copy
            sha = verify_bytes(resp.content, spec, None if force else sums.get(spec.name))
            tmp = target.with_suffix(".part")
            tmp.write_bytes(resp.content)
            tmp.replace(target)
            sums[spec.name] = sha
    finally:
        if own:
            client.close()
        if sums:
            (dest / SUMS).write_text(json.dumps(sums, indent=1, sort_keys=True))
    return sums


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.attribution.download", description=__doc__.split("\n")[0])
    ap.add_argument("--dest", type=Path, default=DEST, help=f"target folder (default {DEST})")
    ap.add_argument("--force", action="store_true", help="download again even if verified copies exist")
    ap.add_argument("--verify-only", action="store_true", help="only verify what is already there")
    ap.add_argument("--accept-modified", action="store_true",
                    help="accept files whose size, line ends, rows or sha256 differ from the release (warnings)")
    args = ap.parse_args(argv)
    try:
        if not args.verify_only:
            download(args.dest, force=args.force)
        report = verify_report(args.dest, accept_modified=args.accept_modified)
    except DownloadError as e:
        print("\n".join(f"error: {line}" for line in str(e).splitlines()), file=sys.stderr)
        return 1
    for name, v in report.items():
        print(f"{name}: ok sha256={v.sha256}" + (f" ({len(v.warnings)} warning(s))" if v.warnings else ""))
        for w in v.warnings:
            print(f"  warning: {w}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
