"""The raw response store: append-only JSONL shards plus a derived parquet index.

On disk (``root`` defaults to ``lib.paths.RAW``)::

    <root>/<experiment>/<model>.jsonl   one attempt record per line, appended, never rewritten
    <root>/index.parquet                one row per attempt (keys, shard, line, outcome, usage),
                                        rebuilt from the shards whenever they changed
    <root>/.writer.lock                 flock held by the single live writer (its pid and notebook inside)
    <root>/quarantine.jsonl             malformed shard lines moved aside, each with its shard,
                                        line number and reason (never silently dropped)

Each attempt is identified by (experiment, model, task, param, temperature, replicate, attempt).
The replicate index is part of the identity, so repeated samples of the same prompt never
collapse into one cached answer (inspect_ai #2580); records never expire.

Failed tries (status ``infra_error``, :mod:`lib.llm.client`: the way to the model failed, not
the model) are stored in the shards too, but they are not attempts: resume does not count them,
and :meth:`RawStore.iter_records` and the index leave them out. Records written before this
distinction (status ``api_error`` with an infrastructure error kind) are read the same way.

A complete line that is not a valid record (not JSON, not an object, key fields of the wrong
type) is named with its shard and line number. A writer opening the store moves such lines to
``quarantine.jsonl`` with the reason and rewrites the shard without them (under the lock);
readers skip them with a warning.

One writer at a time: a second writer fails at once with :class:`StoreLockedError`, unless it is
told to wait (``wait_s``, default the environment's ``COMPANION_STORE_WAIT_S``): the runner sets
that for the notebooks it runs side by side (``./run_all.sh --jobs 2``), so their collections take
turns on the store while everything else runs in parallel.

Crash safety: a record is written with one ``write`` of a whole line to a file opened with
O_APPEND, so a killed writer leaves at most one partial last line per shard. Readers ignore a
line that does not parse; a writer opening the store cuts such a tail (counted in
``partial_lines_dropped``) before appending. Resume reads what the shards hold and continues
each request at its next attempt; a duplicate attempt key is refused on write and ignored on read
(first record wins).
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import re
from pathlib import Path
from typing import Iterator

from lib import jsonl, paths

log = logging.getLogger("lib.llm.store")
REQUEST_KEYS = ("experiment", "model", "task", "param", "temperature", "replicate")
ATTEMPT_KEYS = (*REQUEST_KEYS, "attempt")
INDEX_NAME = "index.parquet"
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+=-]")


#: error kinds of lib.llm.client.INFRA_KINDS (not imported: the store does not need the client)
INFRA_KINDS = ("connection", "timeout", "server", "rate_limit")
QUARANTINE_NAME = "quarantine.jsonl"


def is_failed_try(rec: dict) -> bool:
    """An infrastructure failure stored as a failed try, not an attempt (see module docstring).
    Records imported from a release (``release_path``) keep the release's attempt semantics."""
    status = rec.get("status")
    if rec.get("release_path"):
        return False
    return status == "infra_error" or (status == "api_error" and (rec.get("error") or {}).get("kind") in INFRA_KINDS)


def record_problem(rec) -> str | None:
    """Why ``rec`` (a parsed JSON line) is not a usable attempt record, or None."""
    if not isinstance(rec, dict):
        return f"expected a JSON object, got a JSON {type(rec).__name__}"
    for k in ("experiment", "model", "task", "param"):
        if not isinstance(rec.get(k), str):
            return f"field {k!r} must be a string, got {rec.get(k)!r}"
    t = rec.get("temperature")
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        return f"field 'temperature' must be a number, got {t!r}"
    for k, low in (("replicate", 0), ("attempt", 1)):
        v = rec.get(k)
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            return f"field {k!r} must be an integer >= {low}, got {v!r}"
    if rec.get("validation") is not None and not isinstance(rec["validation"], dict):
        return f"field 'validation' must be an object, got {rec['validation']!r}"
    return None


_LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "panel.invalid")


def record_endpoint(rec: dict) -> str | None:
    """The endpoint that answered a record (``endpoint_host``, :func:`lib.llm.client.endpoint_id`); for
    a record from before that field, its ``base_url``'s host[:port] unless a loopback address (the
    embedded panel's port changed every run, so such a record does not say); None for imports."""
    if rec.get("endpoint_host"):
        return str(rec["endpoint_host"])
    url = rec.get("base_url")
    if rec.get("release_path") or not isinstance(url, str):
        return None
    from urllib.parse import urlsplit

    netloc = urlsplit(url).netloc
    return None if not netloc or netloc.rsplit(":", 1)[0] in _LOOPBACK or netloc in _LOOPBACK else netloc


def request_key(rec) -> tuple:
    """(experiment, model, task, param, temperature, replicate) of a record or request."""
    get = rec.get if isinstance(rec, dict) else (lambda k: getattr(rec, k))
    return (str(get("experiment")), str(get("model")), str(get("task")), str(get("param")),
            round(float(get("temperature")), 6), int(get("replicate")))


def attempt_key(rec: dict) -> tuple:
    return (*request_key(rec), int(rec["attempt"]))


def shard_name(name: str) -> str:
    """A file-system-safe shard/folder name (model keys may hold '/', ':' ...)."""
    return _UNSAFE.sub("_", name) or "_"


#: the record fields :meth:`RawStore.columns` reads (nested: (name, subfields)); the others are skipped
FAST_FIELDS = (("experiment", "s"), ("model", "s"), ("task", "s"), ("param", "s"), ("temperature", "f"),
               ("replicate", "i"), ("attempt", "i"), ("request_id", "s"), ("status", "s"), ("http_status", "i"),
               ("error", (("kind", "s"),)), ("tries", "i"), ("validation", (("is_valid", "b"),)), ("stop", "b"),
               ("served_model", "s"), ("provider", "s"), ("system_fingerprint", "s"), ("endpoint_host", "s"),
               ("usage", (("prompt_tokens", "i"), ("completion_tokens", "i"), ("total_tokens", "i"))),
               ("latency_s", "f"), ("started_at", "s"), ("finished_at", "s"), ("prompt_sha256", "s"),
               ("batch_id", "s"), ("custom_id", "s"), ("release_path", "s"), ("content", "s"),
               ("request", (("top_p", "f"),)))


def _fast_schema():
    import pyarrow as pa
    t = {"s": pa.string(), "f": pa.float64(), "i": pa.int64(), "b": pa.bool_()}
    return pa.schema([(n, pa.struct([(k, t[v]) for k, v in sub]) if isinstance(sub, tuple) else t[sub])
                      for n, sub in FAST_FIELDS])


def _flat_names() -> list[str]:
    return [f"{n}.{k}" if isinstance(sub, tuple) else n for n, sub in FAST_FIELDS
            for k in ([k for k, _ in sub] if isinstance(sub, tuple) else [None])]


def _dig(rec: dict, name: str):
    """``rec["usage"]["total_tokens"]`` for "usage.total_tokens" (None when absent or not an object)."""
    head, _, sub = name.partition(".")
    v = rec.get(head)
    if not sub:
        return v
    return v.get(sub) if isinstance(v, dict) else None


def _truth(col) -> list[bool]:
    """``bool(v)`` per value, missing (None/NaN) as False (the line-by-line index's rule)."""
    return [bool(v) if v is not None and v == v else False for v in col]


def _lines_in(path: Path) -> int:
    n = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            n += chunk.count(b"\n")
    return n


class StoreLockedError(RuntimeError):
    pass


WAIT_ENV = "COMPANION_STORE_WAIT_S"


def _holder(lock: Path) -> str:
    """' (pid N notebook X)' from the lock file the live writer wrote, '' when unreadable."""
    try:
        text = lock.read_text().strip()
    except OSError:
        return ""
    return f" ({text})" if text else ""


def _take_lock(fd: int, lock: Path, wait_s: float) -> bool:
    """Take the writer flock on ``fd``; with ``wait_s`` > 0 keep trying that long (saying once who holds it)."""
    import time

    deadline, said = time.monotonic() + wait_s, False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            if not said:
                log.warning("raw store lock %s is held by another collector%s: waiting for it (up to %g s)",
                            lock, _holder(lock), wait_s)
                said = True
            time.sleep(0.2)


class StoreError(RuntimeError):
    """The store's folder or files cannot be used (a file where a folder belongs, read-only ...)."""


class RawStore:
    """Append-only attempt store. Read with :meth:`iter_records`/:meth:`records`/:meth:`index`
    at any time; write inside ``with RawStore(root) as store:`` (one writer per root, enforced by
    flock; opening takes the lock, cuts partial tails and loads what is already done)."""

    def __init__(self, root: Path | str | None = None, *, fsync: bool = False, wait_s: float | None = None):
        self.root = Path(root) if root is not None else paths.RAW
        self.fsync = fsync
        #: seconds a writer waits for another writer's lock before StoreLockedError (0: not at all)
        self.wait_s = float(os.environ.get(WAIT_ENV, 0) or 0) if wait_s is None else float(wait_s)
        self._fds: dict[Path, int] = {}
        self._lock_fd: int | None = None
        self._attempts: dict[tuple, dict[int, dict]] = {}
        self._spent: dict[tuple, int] = {}      # attempt key -> HTTP tries spent by its failed tries
        #: USD the stored records cost (their ``cost`` field, written from the response's usage by
        #: lib.llm.spend): the running total a budget counts, per provider; never a separate counter
        self.spent_usd = 0.0
        self.spent_by_provider: dict[str, float] = {}
        self.partial_lines_dropped = 0
        self.corrupt_lines = 0
        self.duplicates_ignored = 0
        self.failed_tries = 0
        self.quarantined: list[dict] = []     # {shard, line, reason} moved to quarantine.jsonl
        self._warned: set[tuple] = set()

    # ---- paths --------------------------------------------------------------------------------
    def shard_path(self, experiment: str, model: str) -> Path:
        return self.root / shard_name(experiment) / f"{shard_name(model)}.jsonl"

    def shards(self) -> list[Path]:
        return sorted(self.root.glob("*/*.jsonl")) if self.root.exists() else []

    # ---- reading ------------------------------------------------------------------------------
    @staticmethod
    def _parse_lines(path: Path) -> Iterator[tuple[int, bytes, dict | None, str | None]]:
        """(line index, raw line, record or None, why it is malformed or None) of a shard; a
        partial last line (no newline: a killed writer) is (i, raw, None, None)."""
        with open(path, "rb") as f:
            for i, line in enumerate(f):
                if not line.endswith(b"\n"):
                    yield i, line, None, None
                    continue
                try:
                    rec = jsonl.loads(line)
                except ValueError as e:
                    yield i, line, None, f"not valid JSON ({e})"
                    continue
                why = record_problem(rec)
                yield i, line, (None if why else rec), why

    def _read_lines(self, path: Path) -> Iterator[tuple[int, dict | None]]:
        """(line index, record or None) of a shard; a malformed line is warned about once, named by shard and line."""
        for i, _, rec, why in self._parse_lines(path):
            if why and (path, i) not in self._warned:
                self._warned.add((path, i))
                log.warning("raw store %s line %d: %s; skipped (a writer opening the store quarantines it)",
                            path, i + 1, why)
            yield i, rec

    def iter_records(self, experiment: str | None = None, *, failed_tries: bool = False,
                     model: str | None = None) -> Iterator[dict]:
        """Every complete attempt record (first of any duplicate key), shard by shard, in file order;
        ``failed_tries=True`` yields the failed tries (infrastructure failures) instead; ``model``
        reads only that model's shards."""
        seen: set[tuple] = set()
        for path in self.shards():
            if experiment is not None and path.parent.name != shard_name(experiment):
                continue
            if model is not None and path.name != f"{shard_name(model)}.jsonl":
                continue
            for _, rec in self._read_lines(path):
                if rec is None or is_failed_try(rec) != failed_tries:
                    continue
                if failed_tries:
                    yield rec
                    continue
                k = attempt_key(rec)
                if k not in seen:
                    seen.add(k)
                    yield rec

    def columns(self, path: Path):
        """The attempt records of one shard as a DataFrame of flat columns (:data:`FAST_FIELDS`;
        nested ones as ``usage.total_tokens`` ...) with ``line`` (index in the shard): what
        :meth:`iter_records` yields from it (first of any duplicate key, no failed tries), read by
        pyarrow's JSON reader, several times faster than one ``json.loads`` per line. A shard that
        reader cannot take as it is (a partial or malformed line, a field of another type) is read
        line by line instead, with the same result."""
        import numpy as np
        import pandas as pd
        import pyarrow.json as pj

        table = None
        if path.stat().st_size == 0:
            return pd.DataFrame(columns=[*_flat_names(), "line"])
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            complete = f.read(1) == b"\n"
        if complete:
            try:
                table = pj.read_json(path, read_options=pj.ReadOptions(block_size=1 << 24),
                                     parse_options=pj.ParseOptions(explicit_schema=_fast_schema(),
                                                                   unexpected_field_behavior="ignore"))
            except Exception:          # pyarrow.lib.ArrowInvalid and kin: the line-by-line reader decides
                table = None
        if table is not None:
            df = table.flatten().flatten().to_pandas()
            df["line"] = np.arange(len(df), dtype="int64")
            ok = (df[["experiment", "model", "task", "param", "temperature", "replicate", "attempt"]].notna().all(axis=1)
                  & (df["replicate"] >= 0) & (df["attempt"] >= 1))
            if len(df) == table.num_rows and ok.all() and _lines_in(path) == len(df):
                failed = (df["release_path"].isna() | (df["release_path"] == "")) & (
                    df["status"].eq("infra_error") | (df["status"].eq("api_error") & df["error.kind"].isin(INFRA_KINDS)))
                df = df[~failed.to_numpy()]
                key = df[["experiment", "model", "task", "param", "replicate", "attempt"]].assign(
                    temperature=df["temperature"].round(6))
                df = df[~key.duplicated().to_numpy()]
                for c in ("replicate", "attempt"):
                    df[c] = df[c].astype("int64")
                return df.reset_index(drop=True)
        rows = []
        seen: set[tuple] = set()
        for line, rec in self._read_lines(path):
            if rec is None or is_failed_try(rec) or attempt_key(rec) in seen:
                continue
            seen.add(attempt_key(rec))
            rows.append({**{n: _dig(rec, n) for n in _flat_names()}, "line": line})
        return pd.DataFrame(rows, columns=[*_flat_names(), "line"])

    def records(self, experiment: str | None = None):
        """All records as a DataFrame (nested fields such as ``response`` stay dicts)."""
        import pandas as pd
        return pd.DataFrame(list(self.iter_records(experiment)))

    # ---- writing ------------------------------------------------------------------------------
    def __enter__(self) -> "RawStore":
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> None:
        lock = self.root / ".writer.lock"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except (FileExistsError, NotADirectoryError):
            raise StoreError(f"raw store {self.root}: a file is in the way (the store must be a folder)") from None
        except OSError as e:        # permission denied, a read-only file system, a full disk ...
            raise StoreError(f"raw store {self.root}: not writable ({e.strerror or e} on {e.filename or lock}); "
                             "point --store or COMPANION_OUTPUTS at a writable folder") from None
        if not _take_lock(fd, lock, self.wait_s):
            holder = _holder(lock)
            os.close(fd)
            waited = f", still after waiting {self.wait_s:g} s" if self.wait_s else ""
            raise StoreLockedError(f"another collector is writing to {self.root}{holder} (lock {lock}){waited}: "
                                   "wait for it or point this run at another store") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} notebook {os.environ.get('COMPANION_NOTEBOOK', '-')}\n".encode(), 0)
        self._lock_fd = fd
        self._attempts.clear()
        self._spent.clear()
        self.spent_usd, self.spent_by_provider = 0.0, {}
        for path in self.shards():
            self._cut_partial_tail(path)
            bad = []
            for i, line, rec, why in self._parse_lines(path):
                if why:
                    bad.append((i, line, why))
                elif rec is not None:
                    self._remember(rec, on_duplicate="ignore")
            if bad:
                self._quarantine(path, bad)

    def _quarantine(self, path: Path, bad: list[tuple[int, bytes, str]]) -> None:
        """Move malformed lines of ``path`` to quarantine.jsonl (with shard, line, reason); rewrite the shard."""
        rel = str(path.relative_to(self.root))
        with open(self.root / QUARANTINE_NAME, "ab") as q:
            for i, line, why in bad:
                q.write((json.dumps({"shard": rel, "line": i + 1, "reason": why,
                                     "text": line.decode("utf-8", "replace").rstrip("\n")}, ensure_ascii=False)
                         + "\n").encode("utf-8"))
                self.quarantined.append({"shard": rel, "line": i + 1, "reason": why})
                log.warning("raw store %s line %d: %s; moved to %s", path, i + 1, why, self.root / QUARANTINE_NAME)
        drop = {i for i, _, _ in bad}
        tmp = path.with_name(f".{path.name}.tmp")
        with open(path, "rb") as src, open(tmp, "wb") as out:
            for i, line in enumerate(src):
                if i not in drop:
                    out.write(line)
        os.replace(tmp, path)
        self.corrupt_lines += len(bad)

    def close(self) -> None:
        for fd in self._fds.values():
            if self.fsync:
                os.fsync(fd)
            os.close(fd)
        self._fds.clear()
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def _cut_partial_tail(self, path: Path) -> None:
        size = path.stat().st_size
        if size == 0:
            return
        with open(path, "rb+") as f:
            f.seek(max(0, size - 1))
            if f.read(1) == b"\n":
                return
            # walk back to the last newline; everything after it is one torn record
            pos, block = size, 1 << 16
            while pos > 0:
                start = max(0, pos - block)
                f.seek(start)
                chunk = f.read(pos - start)
                nl = chunk.rfind(b"\n")
                if nl != -1:
                    keep = start + nl + 1
                    break
                pos = start
            else:
                keep = 0
            f.truncate(keep)
        self.partial_lines_dropped += 1
        log.warning("dropped a partial last line of %s (%d bytes) left by an interrupted writer", path, size - keep)

    def _count_cost(self, rec: dict) -> None:
        cost = rec.get("cost")
        if isinstance(cost, dict) and isinstance(cost.get("usd"), (int, float)) and cost["usd"] == cost["usd"]:
            prov = str(cost.get("provider") or "")
            self.spent_usd += float(cost["usd"])
            self.spent_by_provider[prov] = self.spent_by_provider.get(prov, 0.0) + float(cost["usd"])

    def _remember(self, rec: dict, *, on_duplicate: str) -> None:
        if is_failed_try(rec):
            self._count_cost(rec)
            self.failed_tries += 1
            k = attempt_key(rec)
            self._spent[k] = self._spent.get(k, 0) + int(rec.get("tries") or 0)
            return
        rk, a = request_key(rec), int(rec["attempt"])
        slot = self._attempts.setdefault(rk, {})
        if a in slot:
            if on_duplicate == "raise":
                raise ValueError(f"raw store {self.root}: attempt {rk + (a,)} is already stored (append-only)")
            self.duplicates_ignored += 1
            return
        self._count_cost(rec)
        slot[a] = {"valid": bool((rec.get("validation") or {}).get("is_valid")), "stop": bool(rec.get("stop")),
                   "status": rec.get("status"), "prompt_sha256": rec.get("prompt_sha256"),
                   "endpoint": record_endpoint(rec)}

    def append(self, rec: dict) -> None:
        """Append one attempt record as one line; refuses a key that is already stored."""
        if self._lock_fd is None:
            raise RuntimeError(f"raw store {self.root}: open it for writing first (with store: ...)")
        missing = [k for k in ATTEMPT_KEYS if rec.get(k) is None]
        if missing:
            raise ValueError(f"raw store {self.root}: record lacks key fields {missing}; expected {list(ATTEMPT_KEYS)}")
        why = record_problem(rec)
        if why:
            raise ValueError(f"raw store {self.root}: refusing a malformed record: {why}")
        self._remember(rec, on_duplicate="raise")
        path = self.shard_path(rec["experiment"], rec["model"])
        fd = self._fds.get(path)
        if fd is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = self._fds[path] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        data = jsonl.dumps(rec, sort_keys=True, default=str)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        if self.fsync:
            os.fsync(fd)

    # ---- resume -------------------------------------------------------------------------------
    def attempts(self, request) -> dict[int, dict]:
        """Stored attempts of a request: {attempt: {valid, stop, status, prompt_sha256, endpoint}}."""
        return dict(self._attempts.get(request_key(request), {}))

    def tries_spent(self, request, attempt: int) -> int:
        """HTTP tries that stored failed tries of (request, attempt) already used (0 if none)."""
        return self._spent.get((*request_key(request), int(attempt)), 0)

    def has_attempt(self, key: tuple, attempt: int) -> bool:
        """Whether attempt ``attempt`` of the request with :func:`request_key` ``key`` is stored (a cheap check)."""
        return attempt in self._attempts.get(key, ())

    def holes(self, request) -> list[int]:
        """Attempts missing below the request's last stored one (a quarantined line was attempt 1 of a
        request whose attempt 2 is stored): lost answers, which :meth:`next_attempt` asks first."""
        done = self._attempts.get(request_key(request), {})
        return [a for a in range(1, max(done, default=0)) if a not in done]

    def next_attempt(self, request, max_attempts: int) -> int | None:
        """The attempt to run next, or None when the request is complete (a valid attempt, a
        non-retryable stop, or ``max_attempts`` attempts stored). A lost attempt (:meth:`holes`)
        comes first, whatever the later ones hold: the attempts analysed are those asked."""
        done = self._attempts.get(request_key(request), {})
        lost = self.holes(request)
        if lost:
            return lost[0]
        if any(a["valid"] or a["stop"] for a in done.values()) or len(done) >= max_attempts:
            return None
        return max(done, default=0) + 1

    # ---- index --------------------------------------------------------------------------------
    INDEX_COLUMNS = (*ATTEMPT_KEYS, "request_id", "shard", "line", "status", "http_status", "error_kind", "tries",
                     "valid", "stop", "served_model", "provider", "system_fingerprint", "endpoint_host", "prompt_tokens",
                     "completion_tokens", "total_tokens", "latency_s", "started_at", "finished_at", "prompt_sha256",
                     "batch_id", "custom_id")   # the batch path's (lib.llm.batch); None per request

    def _sizes(self) -> dict[str, int]:
        return {str(p.relative_to(self.root)): p.stat().st_size for p in self.shards()}

    def _index_frame(self, path: Path):
        """The index rows of one shard (:meth:`columns`; a key has one shard)."""
        c = self.columns(path)
        df = c.reindex(columns=[k for k in ATTEMPT_KEYS]).assign(
            request_id=c["request_id"], shard=str(path.relative_to(self.root)), line=c["line"], status=c["status"],
            http_status=c["http_status"], error_kind=c["error.kind"], tries=c["tries"],
            valid=_truth(c["validation.is_valid"]), stop=_truth(c["stop"]),
            served_model=c["served_model"], provider=c["provider"], system_fingerprint=c["system_fingerprint"],
            endpoint_host=c["endpoint_host"],
            prompt_tokens=c["usage.prompt_tokens"], completion_tokens=c["usage.completion_tokens"],
            total_tokens=c["usage.total_tokens"], latency_s=c["latency_s"], started_at=c["started_at"],
            finished_at=c["finished_at"], prompt_sha256=c["prompt_sha256"], batch_id=c["batch_id"],
            custom_id=c["custom_id"])[list(self.INDEX_COLUMNS)]
        for col in ("http_status", "tries", "prompt_tokens", "completion_tokens", "total_tokens"):
            df[col] = df[col].astype("Float64").astype("Int64")
        for col in ("temperature", "latency_s"):
            df[col] = df[col].astype("float64")
        for col in ("replicate", "attempt", "line"):
            df[col] = df[col].astype("int64")
        return df

    def _index_schema(self):
        import pyarrow as pa

        ints = {"replicate", "attempt", "line", "http_status", "tries", "prompt_tokens", "completion_tokens",
                "total_tokens"}
        return pa.schema([(c, pa.int64() if c in ints else pa.float64() if c in ("temperature", "latency_s")
                           else pa.bool_() if c in ("valid", "stop") else pa.string()) for c in self.INDEX_COLUMNS])

    def write_index(self, *, read: bool = True):
        """Rebuild ``index.parquet`` from the shards (atomically, shard by shard: a store of
        millions of records is never in memory) and return it as a DataFrame (``read=False``: None)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.root.mkdir(parents=True, exist_ok=True)
        out = self.root / INDEX_NAME
        tmp = out.with_name(f".{INDEX_NAME}.{os.getpid()}.tmp")
        sizes = self._sizes()
        schema, writer = self._index_schema(), None
        try:
            for path in self.shards() or [None]:
                df = self._index_frame(path) if path is not None else self._index_frame_empty()
                table = pa.Table.from_pandas(df, schema=schema, preserve_index=False)
                if writer is None:      # the first shard's pandas metadata (Int64 columns) and the sizes
                    schema = table.schema.with_metadata({**(table.schema.metadata or {}),
                                                         b"shard_bytes": json.dumps(sizes).encode()})
                    writer = pq.ParquetWriter(tmp, schema)
                writer.write_table(table.replace_schema_metadata(schema.metadata))
        finally:
            if writer is not None:
                writer.close()
        os.replace(tmp, out)
        return pq.read_table(out).to_pandas() if read else None

    def _index_frame_empty(self):
        import pandas as pd
        df = pd.DataFrame(columns=list(self.INDEX_COLUMNS))
        return df.astype({**{c: "Int64" for c in ("http_status", "tries", "prompt_tokens", "completion_tokens",
                                                  "total_tokens")},
                          "temperature": "float64", "latency_s": "float64", "replicate": "int64", "attempt": "int64",
                          "line": "int64", "valid": bool, "stop": bool})

    def index(self):
        """The parquet index, rebuilt first if any shard changed since it was written."""
        import pyarrow.parquet as pq

        out = self.root / INDEX_NAME
        if out.exists():
            table = pq.read_table(out)
            meta = (table.schema.metadata or {}).get(b"shard_bytes")
            if meta is not None and json.loads(meta) == self._sizes():
                return table.to_pandas()
        return self.write_index()
