"""Where the answers in the raw store came from, so a run never resumes answers of another source.

The raw store (``outputs/raw``) resumes every stored attempt. That is right while the answers'
source stays the same, and wrong when it changed:

- the embedded panel's code, resources, world or seed changed: the stored answers are what an
  earlier panel said, and resuming them would hand old behaviour to the new analysis. Panel answers
  cost nothing, so the old store is moved aside (``outputs/raw.superseded-<time>/``, never deleted)
  and the run collects anew;
- the kind of source changed (the embedded panel, a real endpoint, a release import): resuming
  would let synthetic answers stand behind a real label or the reverse, so the run stops and says
  what to do. Real answers are paid for and are never moved by the companion.

A store without the record (made before it existed) is taken as an earlier panel's.
``outputs/raw/SOURCE.json`` records the kind and, for the panel, a fingerprint of everything its
answers depend on (``lib/panel``, ``lib/resources``, ``lib/groundtruth``, the seed, the world size
and the profile's own models); for a real endpoint, each provider's host and path. A profile whose
endpoint changed (``llm.base_url`` edited on an existing outputs folder) is refused with both
named; every attempt also records its ``endpoint_host``, and the collector refuses to resume
another endpoint's attempts (:func:`lib.llm.kernel.check_endpoint`).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

from lib import paths

FILE = "SOURCE.json"


class RawSourceError(RuntimeError):
    """The raw store holds answers of another kind of source than the profile's."""


def _tree(h, root: Path) -> None:
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(paths.ROOT)).encode() + b"\0" + p.read_bytes() + b"\0")


def endpoints_of(llm) -> dict[str, str]:
    """The profile's real endpoints: provider name ('default' for a single ``llm.base_url``) -> the
    base URL's host[:port] and path (what ``endpoint_host`` records per attempt, plus the path)."""
    from urllib.parse import urlsplit

    def ident(url: str) -> str:
        u = urlsplit(url)
        return (u.netloc + u.path.rstrip("/")) or url

    if getattr(llm, "providers", None):
        return {name: ident(p.base_url) for name, p in sorted(llm.providers.items())}
    return {"default": ident(llm.base_url)}


def source_of(prof) -> dict:
    """The kind of source the profile's answers come from, and the panel's fingerprint or the endpoints."""
    if prof.llm.real_endpoint:
        return {"kind": "endpoint", "endpoints": endpoints_of(prof.llm)}
    if prof.synthetic is not True:
        return {"kind": "release"}
    h = hashlib.sha256(f"seed={prof.seed};n_authors={prof.world.n_authors}".encode())
    for sub in ("panel", "resources", "groundtruth"):
        _tree(h, paths.LIB / sub)
    for paper in sorted(getattr(prof, "models", {}) or {}):
        f = prof.models_path(paper)
        h.update(paper.encode() + (f.read_bytes() if f is not None and f.is_file() else b"") + str(
            prof.models[paper].mode).encode())
    return {"kind": "panel", "fingerprint": h.hexdigest()}


KIND_NAMES = {"panel": "the embedded synthetic panel", "endpoint": "a real endpoint",
              "release": "the papers' released data (imported)"}


def check(prof, raw: Path | None = None, out=None) -> str | None:
    """Make the raw store ``raw`` (default ``outputs/raw``) fit for ``prof``; returns what was done
    (None: nothing). Raises :class:`RawSourceError` when the kinds differ."""
    raw = Path(raw or paths.RAW)
    want = source_of(prof)
    f = raw / FILE
    has_answers = raw.is_dir() and any(p.name != FILE for p in raw.iterdir())
    if not f.is_file() and not (has_answers and want["kind"] == "panel"):
        raw.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(want, indent=1))
        return None
    # a store from before SOURCE.json: its source is unknown, so a panel run does not resume it
    have = json.loads(f.read_text()) if f.is_file() else {"kind": "panel", "fingerprint": "unknown"}
    if have == want:
        return None
    if have.get("kind") != want["kind"] and has_answers:
        raise RawSourceError(
            f"{raw} holds answers from {KIND_NAMES.get(have.get('kind'), have.get('kind'))} ({f}), and profile "
            f"{prof.name!r} collects from {KIND_NAMES[want['kind']]}: resuming them would put one source's answers "
            f"behind the other's label. Move {raw} away, or give this profile outputs of its own "
            f"(COMPANION_OUTPUTS=outputs-{prof.name} ./run_all.sh --profile {prof.name})")
    if want["kind"] == "endpoint" and have.get("kind") == "endpoint" and has_answers:
        old = have.get("endpoints") or {}
        changed = {n: (old[n], h) for n, h in want["endpoints"].items() if n in old and old[n] != h}
        if changed:
            what = "; ".join(f"{'llm.base_url' if n == 'default' else f'provider {n!r}'}: stored answers from "
                             f"{a}, this profile sends to {b}" for n, (a, b) in changed.items())
            raise RawSourceError(
                f"{raw} holds answers of another endpoint ({what}; {f}). One endpoint's answers never count as "
                f"another's: give this endpoint outputs of its own (COMPANION_OUTPUTS=outputs-<name> ./run_all.sh "
                f"--profile {prof.name}), or move {raw} away to collect anew")
        want = {**want, "endpoints": {**old, **want["endpoints"]}}    # a provider added: both are recorded
    if want["kind"] == "panel" and has_answers:
        dest = raw.with_name(f"raw.superseded-{time.strftime('%Y%m%d-%H%M%S')}")
        shutil.move(str(raw), dest)
        raw.mkdir(parents=True)
        (raw / FILE).write_text(json.dumps(want, indent=1))
        why = ("holds answers of unrecorded origin" if have.get("fingerprint") == "unknown" else
               "was collected from another embedded panel (its code, resources, world or seed changed)")
        return f"{raw} {why}: they were moved to {dest} and are collected anew"
    f.write_text(json.dumps(want, indent=1))
    return None
