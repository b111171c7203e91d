"""The batch journal and errors: ``<store>/batches/[<provider>/]journal.ndjson`` (uploads, batch ids, stores,
deletions: each recorded before the step it guards) and ``tries.ndjson`` (failed line tries).

What makes a batch run never pay twice: a run started again resumes every journaled batch not yet
stored before it plans anything (:mod:`lib.llm.batch.run`).
"""
from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from lib import jsonl


class BatchError(RuntimeError):
    """A batch request the provider refused for good (bad input, wrong endpoint)."""


class BatchGone(BatchError):
    """The provider no longer has a batch or file (HTTP 404): it expired or was deleted there, or the
    provider restarted (the embedded panel keeps its batches per process). Its lines that were never
    stored are planned again; stored ones never are."""


def checkpoint(name: str) -> None:
    """A named point of a batch run (tests replace this to interrupt a run there)."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Journal:
    """Not ``*.jsonl``: the store reads every ``<root>/*/*.jsonl`` as a shard.

    ``<store>/batches/``: ``journal.ndjson`` (events) and ``tries.ndjson`` (failed line tries), append-only."""

    def __init__(self, store_root: Path, provider: str | None = None):
        # a routed collection keeps one journal per provider (batch ids are the provider's own)
        self.dir = Path(store_root) / "batches" / (provider or "")
        self.files_dir = self.dir / "files"
        self.files_dir.mkdir(parents=True, exist_ok=True)
        self.events = list(self._read(self.dir / "journal.ndjson"))
        self.fails: dict[str, list[dict]] = {}
        for t in self._read(self.dir / "tries.ndjson"):
            self._add_fail(t)
        self._fds: dict[str, int] = {}

    @staticmethod
    def _read(path: Path) -> Iterator[dict]:
        if not path.exists():
            return
        with open(path, "rb") as f:
            for line in f:
                if line.endswith(b"\n"):
                    try:
                        yield jsonl.loads(line)
                    except ValueError:
                        continue

    def _add_fail(self, t: dict) -> bool:
        lst = self.fails.setdefault(t["custom_id"], [])
        if any(x["batch_id"] == t["batch_id"] for x in lst):
            return False
        lst.append(t)
        return True

    def _append(self, name: str, rec: dict) -> None:
        fd = self._fds.get(name)
        if fd is None:
            path = self.dir / name
            # a killed writer may leave a torn last line: start ours on a fresh line
            if path.exists() and path.stat().st_size and not path.read_bytes()[-1:] == b"\n":
                with open(path, "ab") as f:
                    f.write(b"\n")
            fd = self._fds[name] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, jsonl.dumps(rec))

    def event(self, kind: str, **kw) -> dict:
        rec = {"event": kind, "at": now(), **kw}
        self._append("journal.ndjson", rec)
        self.events.append(rec)
        return rec

    def fail(self, t: dict) -> None:
        if self._add_fail(t):
            self._append("tries.ndjson", t)

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    # views
    def _by(self, kind: str, key: str) -> dict[str, dict]:
        return {e[key]: e for e in self.events if e["event"] == kind}

    def open_batches(self) -> list[dict]:
        """Created batches whose results are not stored yet (nor gone at the provider), in creation order."""
        done = self._by("stored", "batch_id").keys() | self._by("vanished", "batch_id").keys()
        return [e for e in self.events if e["event"] == "created" and e["batch_id"] not in done]

    def unconfirmed_creates(self) -> list[dict]:
        created = {e["file_id"] for e in self.events if e["event"] == "created"}
        return [e for e in self._by("creating", "file_id").values() if e["file_id"] not in created]

    def uploaded(self) -> dict[str, str]:
        """sha256 of an input file -> its file id (an identical file is never uploaded twice; a
        deleted one is uploaded again)."""
        deleted = self.deleted()
        return {e["sha256"]: e["file_id"] for e in self.events if e["event"] == "uploaded" and e["file_id"] not in deleted}

    def deleted(self) -> set[str]:
        return {e["file_id"] for e in self.events if e["event"] == "deleted"}

    def undeleted(self) -> list[str]:
        """Provider file ids of stored batches (input, output, error) not deleted yet, in journal order."""
        created = {e["batch_id"]: e["file_id"] for e in self.events if e["event"] == "created"}
        ids = [fid for e in self.events if e["event"] == "stored"
               for fid in (created.get(e["batch_id"]), e.get("output_file_id"), e.get("error_file_id")) if fid]
        deleted = self.deleted()
        return [f for f in dict.fromkeys(ids) if f not in deleted]
