"""Fetch the five released AttriBench files at the pinned commit and verify them.

``python -m lib.attribution.download [--force] [--dest DIR]``

Verification, in order (reference B.1; shared/data/README.md): the size in characters, the
header row, the recorded sha256, the number of data rows (7,964 / 7,656 / 1,200 / 1,200 for the
quote files; the universe has no published row count), then the columns the analysis reads
(:mod:`lib.attribution.dataset`). Derived columns that disagree with their rule in some rows
(the released 300-matching files have such quote_words) are reported as warnings with their
rows, never rejected. On
the first successful download the sha256 of each file is recorded in ``SHA256SUMS.json`` beside
the files; later verifications compare against it, so a silently changed copy is caught.
Without network access the command stops with a message saying what to do instead; the
notebooks then run on the synthetic twin (:mod:`lib.attribution.twin`).
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

    @property
    def name(self) -> str:
        return Path(self.path).name


FILES = (
    ReleasedFile("datasets/intersectional_with_quotes.csv", 1_602_578, 7_964, "quotes"),
    ReleasedFile("datasets/multirace_with_quotes.csv", 1_523_454, 7_656, "quotes"),
    ReleasedFile("datasets/intersectional_with_quotes_random_300matchings.csv", 240_914, 1_200, "quotes"),
    ReleasedFile("datasets/multirace_with_quotes_random_300matchings.csv", 236_117, 1_200, "quotes"),
    ReleasedFile("universe_authors.csv", 739_693, None, "universe"),
)
BY_NAME = {f.name: f for f in FILES}


class DownloadError(RuntimeError):
    """A released file could not be fetched or failed verification."""


def local_path(name: str, dest: Path | None = None) -> Path:
    """Where the released file ``name`` (e.g. ``universe_authors.csv``) lives once downloaded."""
    return (dest or DEST) / name


def available(dest: Path | None = None) -> dict[str, Path]:
    """The released files present in ``dest`` (not verified; :func:`verify` does that)."""
    return {f.name: local_path(f.name, dest) for f in FILES if local_path(f.name, dest).is_file()}


def check_release(dest: Path | str | None = None) -> list[str]:
    """Messages naming each released file missing from ``dest`` and where to get it ([]: all five there).

    Fast (no download, reads only each file's header row): a file that is absent, or whose header is
    not the release's (:data:`lib.attribution.dataset.QUOTE_COLUMNS` / ``UNIVERSE_COLUMNS``), gets one
    message with the repository, the pinned commit and the command that fetches it. Sizes, row
    counts and sha256 are :func:`verify`'s job.
    """
    dest = Path(dest) if dest is not None else DEST
    fetch = (f"get it with: python -m lib.attribution.download --dest {dest} (github.com/{REPOSITORY} "
             f"at commit {COMMIT[:8]}, folder 1_dataset_construction/")
    absent = "" if dest.is_dir() else f" (folder {dest} does not exist)"
    out = []
    for spec in FILES:
        p = local_path(spec.name, dest)
        if not p.is_file():
            out.append(f"AttriBench: {p} is missing{absent}; {fetch}{spec.path})")
            continue
        with open(p, encoding="utf-8", errors="replace", newline="") as f:
            header = f.readline().rstrip("\r\n").lstrip("\ufeff")
        expected = ",".join(ds.QUOTE_COLUMNS if spec.kind == "quotes" else ds.UNIVERSE_COLUMNS)
        if header != expected:
            out.append(f"AttriBench: {p}: header {header[:120]!r} is not the release's {expected!r}; "
                       f"replace the file: {fetch}{spec.path})")
    return out


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Verified:
    """One file that passed verification: its sha256 and the quirks found (warnings, not errors)."""

    sha256: str
    warnings: tuple[str, ...] = ()


def check_bytes(data: bytes, spec: ReleasedFile, recorded_sha: str | None = None) -> Verified:
    """Verify one file's content against ``spec``; raises DownloadError if it is not the release's.

    What identifies the release is checked and rejects: UTF-8 text, the size in characters (a
    copy whose line ends were converted, CRLF ↔ LF, is accepted with a warning when the size
    matches with the release's line ends), the header, the number of data rows, the sha256
    recorded at first download, and the columns the analysis reads
    (:func:`lib.attribution.dataset.validate_quotes` / ``validate_universe``). Derived columns that
    disagree with their rule in some rows are returned as warnings naming the rows (the paper's
    own files have such rows: ⚠ quote_words of a few quotes is not their token count).
    """
    name = spec.name
    notes: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DownloadError(f"{name}: not UTF-8 text ({e})") from None
    if len(text) != spec.chars:
        lf = text.replace("\r\n", "\n")
        if spec.chars in (len(lf), len(lf.replace("\n", "\r\n"))):
            notes.append(f"{name}: line ends differ from the release's (size {len(text):,} characters, "
                         f"{spec.chars:,} with the release's line ends); content otherwise the same size")
        else:
            raise DownloadError(f"{name}: size {len(text):,} characters, expected {spec.chars:,} (commit {COMMIT[:8]})")
    header = text.split("\n", 1)[0].rstrip("\r").lstrip("\ufeff")
    expected = ",".join(ds.QUOTE_COLUMNS if spec.kind == "quotes" else ds.UNIVERSE_COLUMNS)
    if header != expected:
        raise DownloadError(f"{name}: header {header!r}, expected {expected!r}")
    sha = _sha256(data)
    if recorded_sha is not None and sha != recorded_sha:
        raise DownloadError(f"{name}: sha256 {sha} differs from the one recorded at first download ({recorded_sha})")
    frame = pd.read_csv(io.StringIO(text), keep_default_na=False,
                        na_values={"google_hits": [""], "log10_hits": [""], "count": [""]})
    if spec.rows is not None and len(frame) != spec.rows:
        raise DownloadError(f"{name}: {len(frame):,} data rows, expected {spec.rows:,}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ds.AttriBenchQuirkWarning)
            frame = (ds.validate_quotes if spec.kind == "quotes" else ds.validate_universe)(frame, name)
    except ds.AttriBenchSchemaError as e:
        raise DownloadError(str(e)) from None
    return Verified(sha, tuple(notes + frame.attrs.get("quirks", [])))


def verify_bytes(data: bytes, spec: ReleasedFile, recorded_sha: str | None = None) -> str:
    """:func:`check_bytes`, returning only the sha256 (the quirks are issued as warnings)."""
    v = check_bytes(data, spec, recorded_sha)
    for w in v.warnings:
        warnings.warn(ds.AttriBenchQuirkWarning(w), stacklevel=2)
    return v.sha256


def _read_sums(dest: Path) -> dict[str, str]:
    f = dest / SUMS
    return json.loads(f.read_text()) if f.is_file() else {}


def verify_report(dest: Path | None = None) -> dict[str, Verified]:
    """Verify every downloaded file in ``dest``: {name: Verified (sha256, warnings)}. Missing files raise."""
    dest = dest or DEST
    sums = _read_sums(dest)
    out = {}
    for spec in FILES:
        p = local_path(spec.name, dest)
        if not p.is_file():
            raise DownloadError(f"{p}: missing; run `python -m lib.attribution.download`")
        out[spec.name] = check_bytes(p.read_bytes(), spec, sums.get(spec.name))
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
    args = ap.parse_args(argv)
    try:
        if not args.verify_only:
            download(args.dest, force=args.force)
        report = verify_report(args.dest)
    except DownloadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for name, v in report.items():
        print(f"{name}: ok sha256={v.sha256}" + (f" ({len(v.warnings)} warning(s))" if v.warnings else ""))
        for w in v.warnings:
            print(f"  warning: {w}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
