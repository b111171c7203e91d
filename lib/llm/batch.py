"""The batch path: the same requests as OpenAI Batch API files, into the same raw store.

Beside the per-request path (:mod:`lib.llm.collect`), for collections too large to send one by
one. Each round writes every request that still lacks a valid attempt as batch input JSONL
(``{custom_id, method: POST, url: /v1/chat/completions, body}``, the body exactly what
:meth:`lib.llm.client.ChatClient.body` sends), split by the provider's limits (OpenAI: 50,000
requests and 200 MB per file), uploads each file (``POST /v1/files``, purpose ``batch``),
creates a batch (``POST /v1/batches``), polls ``GET /v1/batches/{id}`` with backoff and a
progress bar, downloads the output and error files and stores every answer as an attempt of the
raw store (:class:`lib.llm.store.RawStore`; request body, response body, usage, batch id and
custom id), labelled by the same ``validate`` as the per-request path. Validation re-asks
(LLMScholarBench: up to 3 attempts) are further rounds over the requests still without a valid
attempt.

Infrastructure failures are kept apart from model answers as the per-request client keeps them:
a line that did not produce an answer (HTTP 429/5xx in its response, ``request_timeout``, an
expired, cancelled or failed batch, a line missing from both files) is a failed *try* of its
attempt, journaled in ``tries.ndjson`` and resubmitted with the same body in the next round; after
``endpoint.max_tries`` tries in one run the request is left open (failed, retryable: never an
attempt, docs/failures.md), and the run ends with the same completeness check as the per-request
path (:func:`lib.llm.collect.check_complete`), so a re-run asks again. A 400-type answer is stored
with ``stop=True``. Custom ids are ``<request_id>-r<replicate>-a<attempt>``.

Once a batch is stored, its input, output and error files are deleted at the provider
(``DELETE /v1/files/{id}``, journaled as ``deleted``; unless ``llm.batch.keep_files``).

Never paying twice: ``<store>/batches/journal.ndjson`` records each upload and each batch id
*before* polling starts (and a ``creating`` intent before the create call, so a batch created by
a run killed before it journaled the id is found again by its input file id). A run started again
first resumes every journaled batch not yet stored, then plans; a re-run with everything stored
sends nothing.

Offline engines (``vllm run-batch`` takes the same files)::

    python -m lib.llm.batch export --experiment baseline --out batch_in/ [--models ...]
    python -m lib.llm.batch import batch_out/results.jsonl --plan batch_in/

See docs/batch.md. This module speaks HTTP and knows no simulator.
"""
from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import json
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import httpx
from tqdm.auto import tqdm

from lib import jsonl
from lib.config import BatchSettings
from lib.llm.client import (CLIENT_VERSION, ChatClient, Endpoint, FatalAPIError, RejectedError, Request,
                            _retry_after, _scrub, endpoint_id, grounding_of, names_model, rejection_hint, retry_wait)
from lib.llm.collect import (DEFAULT_COMPLETION_TOKENS, BudgetExceeded, CollectionSummary, _check, _run_sync, _spend,
                             any_answer, check_complete, check_endpoint, check_lost, check_prompts)
from lib.llm.labels import llmcaller_validate
from lib.llm.store import RawStore

log = logging.getLogger("lib.llm.batch")
CHAT_URL = "/v1/chat/completions"
TERMINAL = ("completed", "failed", "expired", "cancelled")
VALIDATORS: dict[str, Callable] = {"llmcaller_validate": llmcaller_validate, "any_answer": any_answer}
INFRA_FAILURE = {"is_valid": False, "message": "Infrastructure failure - API call failed", "extracted_data": None}


class BatchError(RuntimeError):
    """A batch request the provider refused for good (bad input, wrong endpoint)."""


class BatchGone(BatchError):
    """The provider no longer has a batch or file (HTTP 404): it expired or was deleted there, or the
    provider restarted (the embedded panel keeps its batches per process). Its lines that were never
    stored are planned again; stored ones never are."""


def _checkpoint(name: str) -> None:
    """A named point of a batch run (tests replace this to interrupt a run there)."""


def custom_id(req: Request, attempt: int, request_id: str | None = None) -> str:
    """``<request_id>-r<replicate>-a<attempt>``: unique per attempt, at most 64 characters."""
    return f"{request_id or req.request_id}-r{int(req.replicate)}-a{int(attempt)}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@functools.lru_cache(maxsize=256)
def _iso(ts) -> str | None:
    return datetime.fromtimestamp(int(ts), timezone.utc).isoformat(timespec="milliseconds") if ts else None


def _key(ident: dict) -> tuple:
    """The store's request key of an identity (:func:`lib.llm.store.request_key`, without its generic getter)."""
    return (str(ident["experiment"]), str(ident["model"]), str(ident["task"]), str(ident["param"]),
            round(float(ident["temperature"]), 6), int(ident["replicate"]))


def _identity(req: Request, attempt: int, validate: Callable, request_id: str | None = None) -> dict:
    return {"experiment": req.experiment, "model": req.model, "api_model": req.api_model, "task": req.task,
            "param": req.param, "temperature": float(req.temperature), "replicate": int(req.replicate),
            "attempt": int(attempt), "request_id": request_id or req.request_id, "prompt_sha256": req.prompt_sha256,
            "sub_provider": req.sub_provider, "validate": getattr(validate, "__name__", "llmcaller_validate")}


# ---- the journal: what was uploaded, created and stored, and every failed try --------------------------
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
        rec = {"event": kind, "at": _now(), **kw}
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


# ---- writing input files -----------------------------------------------------------------------------
def write_inputs(lines: Iterable[tuple[str, dict, dict]], out_dir: Path, opts: BatchSettings,
                 prefix: str = "input") -> list[dict]:
    """Write ``(custom_id, body, identity)`` triples as batch input JSONL files under ``out_dir``.

    Each file holds at most ``opts.max_requests_per_file`` lines and ``opts.max_bytes_per_file``
    bytes; beside it, ``<name>.requests.jsonl`` maps each custom id to its request identity (what
    :func:`store_results` needs to store an answer). Returns one dict per file: path, plan, n,
    bytes, sha256. Files are written under a temporary name and renamed when complete.
    """
    return list(iter_inputs(lines, out_dir, opts, prefix))


def iter_inputs(lines: Iterable[tuple[str, dict, dict]], out_dir: Path, opts: BatchSettings,
                prefix: str = "input") -> Iterator[dict]:
    """:func:`write_inputs`, yielding each file as soon as it is complete (the lines are streamed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files: list[dict] = []
    state: dict[str, Any] = {}

    def close() -> dict:
        state["fh"].close()
        state["ph"].close()
        sha = state["sha"].hexdigest()
        name = f"{prefix}-{len(files) + 1:05d}-{sha[:12]}"
        path, plan = out_dir / f"{name}.jsonl", out_dir / f"{name}.requests.jsonl"
        os.replace(state["tmp"], path)
        os.replace(state["ptmp"], plan)
        files.append({"path": str(path), "plan": str(plan), "n": state["n"], "bytes": state["bytes"], "sha256": sha})
        _checkpoint("file_written")
        state.clear()
        return files[-1]

    for cid, body, ident in lines:
        raw = jsonl.dumps({"custom_id": cid, "method": "POST", "url": CHAT_URL, "body": body})
        if len(raw) > opts.max_bytes_per_file:
            raise BatchError(f"batch line {cid} is {len(raw)} bytes, over max_bytes_per_file "
                             f"{opts.max_bytes_per_file}")
        if state and (state["n"] >= opts.max_requests_per_file or state["bytes"] + len(raw) > opts.max_bytes_per_file):
            yield close()
        if not state:
            tmp = out_dir / f".{prefix}.{os.getpid()}.part"
            state.update(tmp=tmp, ptmp=tmp.with_suffix(".plan"), fh=open(tmp, "wb"),
                         ph=open(tmp.with_suffix(".plan"), "wb"), sha=hashlib.sha256(), n=0, bytes=0)
        state["fh"].write(raw)
        state["sha"].update(raw)
        state["ph"].write(jsonl.dumps({"custom_id": cid, **ident}))
        state["n"] += 1
        state["bytes"] += len(raw)
    if state:
        yield close()


def read_plan(paths: Iterable[Path]) -> dict[str, dict]:
    """custom id -> identity from ``*.requests.jsonl`` files (or folders holding them)."""
    out: dict[str, dict] = {}
    for p in paths:
        p = Path(p)
        for f in sorted(p.glob("*.requests.jsonl")) if p.is_dir() else [p]:
            with open(f, "rb") as fh:
                for line in fh:
                    d = jsonl.loads(line)
                    out[d.pop("custom_id")] = d
    return out


def _input_index(path: Path) -> dict[str, int]:
    """custom id -> byte offset of its line in an input file (to read the body sent back)."""
    out, pos = {}, 0
    with open(path, "rb") as f:
        for raw in f:
            i = raw.find(b'"custom_id":"') + 13
            out[raw[i:raw.index(b'"', i)].decode()] = pos
            pos += len(raw)
    return out


# ---- classifying and storing result lines ----------------------------------------------------------------
def classify(line: dict) -> tuple[str, int | None, Any, str]:
    """(kind, http status, response body, message) of one output/error line (kinds as the client's)."""
    resp, err = line.get("response"), line.get("error")
    if resp is None:
        code = err.get("code") if isinstance(err, dict) else None
        msg = (err.get("message") if isinstance(err, dict) else str(err or "")) or "no response"
        kind = {"batch_expired": "batch_expired", "batch_cancelled": "batch_cancelled",
                "request_timeout": "timeout"}.get(code, "server")
        return kind, None, None, f"{code}: {msg}" if code else msg
    status, body = resp.get("status_code"), resp.get("body")
    body_err = body.get("error") if isinstance(body, dict) else None
    err_text = json.dumps(body_err or err, ensure_ascii=False) if (body_err or err) else ""
    if status == 200:
        if body_err:
            return "body_error", status, body, (body_err.get("message") if isinstance(body_err, dict) else err_text)
        if not isinstance(body, dict) or not body.get("choices"):
            return "bad_json", status, body, f"HTTP 200 without choices: {str(body)[:200]}"
        return "ok", status, body, ""
    if "insufficient_quota" in err_text or status in (401, 402, 403):
        return "fatal", status, body, f"HTTP {status}: {err_text[:300]}"
    if status == 429:
        return "rate_limit", status, body, f"HTTP 429: {err_text[:300]}"
    if status is None or status >= 500 or status == 408:
        return "server", status, body, f"HTTP {status}: {err_text[:300]}"
    return "client", status, body, f"HTTP {status}: {err_text[:300]}"


def _record(ident: dict, body: dict | None, kind: str, status: int | None, payload, message: str, *, base_url: str,
            batch: dict, cid: str, line_id: str | None, req_id: str | None, try_log: list[dict],
            validate: Callable, endpoint: str | None = None, endpoint_name: str | None = None) -> dict:
    """The raw-store record of one attempt, the same fields as :meth:`ChatClient.attempt` writes, plus batch ids."""
    ok = kind == "ok"
    payload = payload if isinstance(payload, dict) else None
    choice = ((payload or {}).get("choices") or [{}])[0] if ok else {}
    message_obj = choice.get("message") or {} if ok else {}
    rec = {k: ident[k] for k in ("experiment", "model", "task", "param", "temperature", "replicate", "attempt",
                                 "request_id", "prompt_sha256", "sub_provider")}
    rec.update({
        "base_url": base_url, "endpoint_host": endpoint, "endpoint_name": endpoint_name,
        "requested_model": ident["api_model"], "request": body,
        "status": {"ok": "ok", "client": "client_error"}.get(kind, "api_error"), "stop": kind == "client",
        "http_status": status,
        "error": None if ok else {"kind": kind, "code": status, "message": message},
        "tries": len(try_log) + (1 if kind in ("ok", "client") else 0), "try_log": try_log,
        "response": payload, "grounding": grounding_of(payload) if ok else None, "content": message_obj.get("content"),
        "reasoning": message_obj.get("reasoning") or message_obj.get("reasoning_content"),
        "finish_reason": choice.get("finish_reason") if ok else None,
        "served_model": (payload or {}).get("model"), "provider": (payload or {}).get("provider"),
        "system_fingerprint": (payload or {}).get("system_fingerprint"), "usage": (payload or {}).get("usage") or {},
        "latency_s": None, "started_at": _iso(batch.get("created_at")) or _now(),
        "finished_at": _iso(batch.get("completed_at") or batch.get("expired_at")) or _now(),
        "client": CLIENT_VERSION + "+batch", "batch_id": batch.get("id"), "custom_id": cid,
        "batch_line_id": line_id, "batch_request_id": req_id,
    })
    rec["validation"] = validate(rec["content"], ident["task"]) if ok else dict(INFRA_FAILURE)
    return rec


def _try_entry(t: dict) -> dict:
    return {"try": 0, "kind": t["kind"], "http_status": t.get("http_status"), "message": t["message"][:300],
            "wait_s": 0.0, "batch_id": t["batch_id"]}


@dataclass
class StoreReport:
    """What storing one output/error file did; ``malformed`` lists (line number, problem)."""

    lines: int = 0
    stored: int = 0
    already_stored: int = 0
    failed_tries: int = 0
    kinds: Counter = field(default_factory=Counter)
    malformed: list = field(default_factory=list)
    seen: set = field(default_factory=set)
    #: the provider answered a line (2xx) earlier in this run: a 4xx now is one line's fault, not a refusal
    ok_before: bool = False
    #: an offline engine's output file (``import``): its 4xx lines are results to store, nothing to stop
    offline: bool = False

    def line(self) -> str:
        return (f"{self.lines} lines: {self.stored} attempts stored, {self.already_stored} already stored, "
                f"{self.failed_tries} failed tries, {len(self.malformed)} malformed; kinds {dict(self.kinds)}")


def store_results(path: Path, plan: dict[str, dict], store: RawStore, journal: Journal, *, batch: dict,
                  base_url: str, bodies: Callable[[str], dict | None], validate: Callable | None = None,
                  report: StoreReport | None = None, secret: str | None = None,
                  cost: Callable[[dict], None] | None = None, endpoint: str | None = None,
                  endpoint_name: str | None = None) -> StoreReport:
    """Store every line of a batch output or error file (streamed) as attempts or failed tries.

    ``plan`` maps custom ids to identities (:func:`read_plan`); ``bodies(custom_id)`` returns the
    request body that was sent. A line already stored (a resumed run) is skipped; a malformed line
    or an unknown custom id is reported with its line number and skipped. ``cost(rec)`` writes the
    attempt's ``cost`` from its usage (:class:`lib.llm.spend.Ledger`) before it is stored.
    """
    rep = report or StoreReport()
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            rep.lines += 1
            try:
                line = jsonl.loads(raw)
                if not isinstance(line, dict):
                    raise ValueError("not a JSON object")
                cid = line["custom_id"]
                if not isinstance(cid, str):
                    raise ValueError("custom_id is not a string")
                if not (isinstance(line.get("response"), dict) or line.get("error") is not None):
                    raise ValueError("neither a response object nor an error")
            except (ValueError, KeyError) as exc:
                rep.malformed.append((lineno, f"{path}: line {lineno}: {exc if not isinstance(exc, KeyError) else 'no custom_id'}"))
                continue
            ident = plan.get(cid)
            if ident is None:
                rep.malformed.append((lineno, f"{path}: line {lineno}: custom_id {cid!r} is not in the batch plan"))
                continue
            rep.seen.add(cid)
            if store.has_attempt(_key(ident), ident["attempt"]):
                rep.already_stored += 1
                continue
            kind, status, payload, message = classify(line)
            rep.kinds[kind] += 1
            if kind == "fatal" or (kind == "client" and not rep.offline and (
                    not (rep.ok_before or rep.kinds["ok"]) or names_model(status, message, ident.get("api_model", "")))):
                body_text = _scrub(message.partition(": ")[2] if message.startswith("HTTP ") else message, secret)
                hint = rejection_hint(status, body_text, ident.get("api_model", ""), None)
                raise RejectedError(f"{base_url}: batch {batch.get('id')} line {cid} refused model "
                                    f"{ident.get('api_model')}: HTTP {status}: {body_text[:500] or '(empty body)'}. "
                                    f"Hint: {hint}. Stopped the collection (the refused line was not stored)",
                                    status=status, body=body_text, hint=hint)
            resp = line.get("response") or {}
            if kind not in ("ok", "client"):
                journal.fail({"custom_id": cid, "batch_id": batch.get("id") or f"import:{path.name}", "kind": kind,
                              "http_status": status, "message": _scrub(message, secret)[:500]})
                rep.failed_tries += 1
                continue
            tries = [_try_entry(t) for t in journal.fails.get(cid, [])]
            for i, t in enumerate(tries, 1):
                t["try"] = i
            check = validate or VALIDATORS.get(ident.get("validate"), llmcaller_validate)
            rec = _record(ident, bodies(cid), kind, status, payload, message, base_url=base_url, batch=batch, cid=cid,
                          line_id=line.get("id"), req_id=resp.get("request_id"), try_log=tries, validate=check,
                          endpoint=endpoint, endpoint_name=endpoint_name)
            if cost is not None:
                cost(rec)
            store.append(_scrub(rec, secret) if secret else rec)
            rep.stored += 1
            _checkpoint("store_line")
    return rep


# ---- the HTTP side -------------------------------------------------------------------------------------------
class BatchClient:
    """The provider's Files and Batches API (async httpx; the endpoint's transport and key)."""

    def __init__(self, endpoint: Endpoint, opts: BatchSettings, transport=None):
        self.endpoint, self.opts = endpoint, opts
        self._transport = transport if transport is not None else endpoint.transport
        self.http: httpx.AsyncClient | None = None

    async def __aenter__(self) -> "BatchClient":
        self.key = self.endpoint.api_key()
        headers = {**self.endpoint.headers, **({"Authorization": f"Bearer {self.key}"} if self.key else {})}
        self.http = httpx.AsyncClient(base_url=self.endpoint.base_url.rstrip("/") + "/", transport=self._transport,
                                      timeout=httpx.Timeout(max(self.endpoint.timeout_s, 300.0)), headers=headers)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.http.aclose()

    def _raise(self, r: httpx.Response, what: str) -> None:
        text = _scrub(r.text[:500], self.key)
        if r.status_code in (401, 402, 403) or "insufficient_quota" in text:
            raise FatalAPIError(f"{self.endpoint.base_url}: {what}: HTTP {r.status_code}: {text}")
        raise (BatchGone if r.status_code == 404 else BatchError)(
            f"{self.endpoint.base_url}: {what}: HTTP {r.status_code}: {text}")

    async def _call(self, what: str, method: str, url: str, **kw) -> httpx.Response:
        """One API call with retries of 429/5xx/transport errors (Retry-After honoured)."""
        tries = self.opts.create_tries if what.startswith("create") else self.endpoint.max_tries
        for k in range(1, tries + 1):
            try:
                r = await self.http.request(method, url, **kw)
            except httpx.TransportError as e:
                if k == tries:
                    raise BatchError(f"{self.endpoint.base_url}: {what}: {type(e).__name__}: {e}") from None
                await asyncio.sleep(retry_wait(self.endpoint, k))
                continue
            if r.status_code < 400:
                return r
            if (r.status_code == 429 or r.status_code >= 500) and k < tries:
                wait = retry_wait(self.endpoint, k, _retry_after(r.headers.get("retry-after")))
                log.info("%s: HTTP %d, retry %d/%d in %.2f s", what, r.status_code, k, tries, wait)
                await asyncio.sleep(wait)
                continue
            self._raise(r, what)
        raise AssertionError("unreachable")

    async def upload(self, path: Path) -> dict:
        with open(path, "rb") as fh:
            r = await self._call(f"upload {path.name}", "POST", "files", data={"purpose": "batch"},
                                 files={"file": (path.name, fh, "application/jsonl")})
        return r.json()

    async def create(self, file_id: str, name: str) -> dict:
        r = await self._call(f"create batch of {name}", "POST", "batches",
                             json={"input_file_id": file_id, "endpoint": CHAT_URL, "completion_window": "24h",
                                   "metadata": {"lib_llm_file": name[:500]}})
        return r.json()

    async def retrieve(self, batch_id: str) -> dict:
        return (await self._call(f"retrieve {batch_id}", "GET", f"batches/{batch_id}")).json()

    async def find_batch(self, file_id: str) -> dict | None:
        """The provider's batch over ``file_id`` (a create whose answer a killed run never journaled)."""
        after = None
        while True:
            params = {"limit": 100, **({"after": after} if after else {})}
            page = (await self._call("list batches", "GET", "batches", params=params)).json()
            for b in page.get("data", []):
                if b.get("input_file_id") == file_id:
                    return b
            if not page.get("has_more") or not page.get("data"):
                return None
            after = page["data"][-1]["id"]

    async def delete_file(self, file_id: str) -> None:
        """``DELETE /v1/files/{id}``; a file the provider no longer has counts as deleted."""
        try:
            await self._call(f"delete file {file_id}", "DELETE", f"files/{file_id}")
        except BatchError as e:
            if "HTTP 404" not in str(e):
                raise

    async def download(self, file_id: str, dest: Path) -> Path:
        tmp = dest.with_name(dest.name + ".part")
        for k in range(1, self.endpoint.max_tries + 1):
            try:
                async with self.http.stream("GET", f"files/{file_id}/content") as r:
                    if r.status_code >= 400:
                        await r.aread()
                        if r.status_code >= 500 and k < self.endpoint.max_tries:
                            continue
                        self._raise(r, f"download {file_id}")
                    with open(tmp, "wb") as out:
                        async for chunk in r.aiter_bytes(1 << 20):
                            out.write(chunk)
                os.replace(tmp, dest)
                return dest
            except httpx.TransportError:
                if k == self.endpoint.max_tries:
                    raise
        raise BatchError(f"download {file_id}: no success in {self.endpoint.max_tries} tries")


# ---- one collection ---------------------------------------------------------------------------------------
class _Run:
    def __init__(self, requests, store: RawStore, endpoint: Endpoint, opts: BatchSettings, max_attempts: int,
                 validate: Callable, transport, prices=None, completion_tokens=DEFAULT_COMPLETION_TOKENS,
                 provider: str | None = None, ledger=None):
        self.requests, self.store, self.endpoint, self.opts = requests, store, endpoint, opts
        # a routed collection (lib.llm.providers) shares one ledger across its providers: one budget
        self.ledger, self.provider_of = ((ledger, ledger.provider_of) if ledger is not None else
                                         _spend(requests, store, endpoint, prices, completion_tokens))
        self.max_attempts, self.validate, self.transport = max_attempts, validate, transport
        self.provider = provider
        self.journal = Journal(store.root, provider)
        self.bodies = ChatClient(endpoint)
        self.summary = CollectionSummary(requests=len(requests))
        #: failed tries journaled by earlier runs: a resumed run gets max_tries of its own (issue 18)
        self.fails_before = {cid: len(v) for cid, v in self.journal.fails.items()}
        #: a line was answered (2xx) in this run; before that, a 4xx line is a refusal (RejectedError)
        self.answered_any = False

    def plan(self) -> Iterator[tuple[str, dict, dict]]:
        """(custom_id, body, identity) of every request's next attempt, streamed. An attempt whose lines
        failed ``max_tries`` times in this run is left open: an infrastructure failure, not an answer."""
        for r in self.requests:
            a = self.store.next_attempt(r, self.max_attempts)
            if a is None:
                continue
            rid = r.request_id
            cid = custom_id(r, a, rid)
            if len(self.journal.fails.get(cid, [])) - self.fails_before.get(cid, 0) < self.endpoint.max_tries:
                yield cid, self.bodies.body(r, a), _identity(r, a, self.validate, rid)

    def settle(self, rec: dict) -> None:
        """Write the attempt's cost from its usage (one ledger for the whole collection)."""
        from types import SimpleNamespace

        # price by the record's model; a routed run's ledger labels it by this run's provider
        self.ledger.settle(SimpleNamespace(model=rec["model"], provider=self.provider), rec, 0.0)

    def check_budget(self) -> None:
        """Before a round is submitted: its whole estimate must fit in ``llm.budget_usd``
        (:class:`~lib.llm.collect.BudgetExceeded` otherwise; nothing of the round is sent)."""
        if self.ledger.budget_usd is None:
            return
        todo = [r for r in self.requests if self.store.next_attempt(r, self.max_attempts) is not None]
        unpriced = self.ledger.unpriced(todo)
        if unpriced:
            raise ValueError(f"llm.budget_usd is {self.ledger.budget_usd} but models {unpriced} have no known price; "
                             "give them one in the profile (llm.prices: {MODEL: {input: USD, output: USD}})")
        est = sum(self.ledger.expected(r) for r in todo)
        if todo and self.ledger.spent + est > self.ledger.budget_usd:
            _check(self.summary, self.store, self.requests, self.max_attempts)
            done = self.summary.answered + self.summary.ended_invalid
            raise BudgetExceeded(
                f"budget reached: llm.budget_usd = ${self.ledger.budget_usd:.4f}, and the next batch round of "
                f"{len(todo)} requests is estimated at ${est:.4f}, which would pass it; nothing of it was submitted, "
                f"{done} of {self.summary.requests} requests done; {self.ledger.account()}. To resume, raise "
                f"llm.budget_usd: stored attempts are never re-sent, so nothing is paid twice", self.summary)

    async def submit(self, client: BatchClient, f: dict) -> dict:
        path = Path(f["path"])
        fid = self.journal.uploaded().get(f["sha256"])
        if fid is None:
            _checkpoint("upload")
            self.journal.event("upload_start", file=path.name, sha256=f["sha256"], n=f["n"], bytes=f["bytes"])
            fid = (await client.upload(path))["id"]
            _checkpoint("uploaded")
            self.journal.event("uploaded", file=path.name, sha256=f["sha256"], file_id=fid)
        self.journal.event("creating", file_id=fid, file=path.name, n=f["n"])
        _checkpoint("create")
        try:
            b = await client.create(fid, path.name)
        except BatchGone:       # the uploaded file is gone (the provider deleted it or restarted): upload again
            log.warning("input file %s of %s is gone at the provider; uploading it again", fid, path.name)
            self.journal.event("deleted", file_id=fid, gone=True)
            fid = (await client.upload(path))["id"]
            self.journal.event("uploaded", file=path.name, sha256=f["sha256"], file_id=fid)
            self.journal.event("creating", file_id=fid, file=path.name, n=f["n"])
            b = await client.create(fid, path.name)
        _checkpoint("created")
        return self.journal.event("created", batch_id=b["id"], file_id=fid, file=path.name, n=f["n"],
                                  base_url=self.endpoint.base_url)

    async def recover(self, client: BatchClient) -> None:
        """Adopt batches created by a killed run that never journaled their id (found by input file id)."""
        for e in self.journal.unconfirmed_creates():
            b = await client.find_batch(e["file_id"])
            if b is not None:
                log.warning("adopting batch %s of %s (created by an interrupted run)", b["id"], e["file"])
                self.journal.event("created", batch_id=b["id"], file_id=e["file_id"], file=e["file"], n=e["n"],
                                   base_url=self.endpoint.base_url, adopted=True)

    async def finish(self, client: BatchClient, opened: list[dict], desc: str) -> None:
        """Poll the open batches in creation order to a terminal status (backoff, progress bar), storing
        each one's files as it ends; a sweep stops at the first batch still running, so many open
        batches do not multiply the polls."""
        pending = {e["batch_id"]: e for e in opened}
        wait = self.opts.poll_initial_s
        done_counts: dict[str, int] = {}
        with tqdm(total=sum(e["n"] for e in opened), desc=desc, unit="req", mininterval=0.5, leave=False) as bar:
            while pending:
                progressed = False
                for bid, e in list(pending.items()):
                    _checkpoint("poll")
                    try:
                        b = await client.retrieve(bid)
                    except BatchGone as exc:
                        self.vanished(e, exc)
                        pending.pop(bid)
                        progressed = True
                        continue
                    bar.set_postfix_str(f"${self.ledger.spent - self.ledger.spent_before:.4f}", refresh=False)
                    c = b.get("request_counts") or {}
                    n = int(c.get("completed") or 0) + int(c.get("failed") or 0)
                    if n != done_counts.get(bid, 0):
                        bar.update(n - done_counts.get(bid, 0))
                        done_counts[bid] = n
                        progressed = True
                    if b["status"] not in TERMINAL:
                        break       # the later batches are queued behind this one: one poll per sweep
                    try:
                        await self.store_batch(client, e, b)
                    except BatchGone as exc:        # its output file is gone: what was stored stays
                        self.vanished(e, exc)
                    pending.pop(bid)
                    progressed = True
                if pending:
                    wait = self.opts.poll_initial_s if progressed else min(wait * self.opts.poll_factor,
                                                                           self.opts.poll_max_s)
                    await asyncio.sleep(wait)

    def vanished(self, e: dict, exc: BatchGone) -> None:
        """A journaled batch the provider no longer has: journal it (and its input file) as gone, so
        the next round plans its lines that were never stored; the stored ones stay and are not sent."""
        left = sum(1 for r in self.requests if self.store.next_attempt(r, self.max_attempts) is not None)
        log.warning("batch %s of %s is gone at the provider (%s); its lines that were never stored are submitted "
                    "again (%d requests still open), stored lines are kept and not sent again",
                    e["batch_id"], e["file"], str(exc)[:200], left)
        self.journal.event("vanished", batch_id=e["batch_id"], file_id=e["file_id"], reason=str(exc)[:300])
        self.journal.event("deleted", file_id=e["file_id"], gone=True)
        self.summary.tries["batch_vanished"] += 1

    async def store_batch(self, client: BatchClient, e: dict, b: dict) -> None:
        src = self.journal.files_dir / e["file"]
        plan_path = src.with_name(src.name.replace(".jsonl", ".requests.jsonl"))
        plan = read_plan([plan_path])
        offsets = _input_index(src)
        with open(src, "rb") as fin:
            def body(cid: str) -> dict:
                fin.seek(offsets[cid])
                return jsonl.loads(fin.readline())["body"]

            rep = StoreReport(ok_before=self.answered_any)
            if b["status"] == "failed":
                errs = (b.get("errors") or {}).get("data") or []
                log.error("batch %s of %s failed: %s", b["id"], e["file"], "; ".join(x.get("message", "") for x in errs[:5]))
            for key in ("output_file_id", "error_file_id"):
                if b.get(key):
                    _checkpoint("download")
                    dest = self.journal.files_dir / f"{b['id']}.{key.split('_')[0]}.jsonl"
                    await client.download(b[key], dest)
                    store_results(dest, plan, self.store, self.journal, batch=b, base_url=self.endpoint.base_url,
                                  bodies=body, validate=self.validate, report=rep, secret=client.key,
                                  cost=self.settle, endpoint=endpoint_id(self.endpoint),
                                  endpoint_name=self.endpoint.name)
                    if not self.opts.keep_files:
                        dest.unlink(missing_ok=True)
        # lines in neither file did not run (failed or cancelled batch): a failed try each
        why = {"failed": "batch_failed", "cancelled": "batch_cancelled", "expired": "batch_expired"}.get(b["status"],
                                                                                                         "missing")
        detail = "; ".join(x.get("message", "") for x in ((b.get("errors") or {}).get("data") or [])[:3])
        for cid in plan.keys() - rep.seen:
            if not self.store.has_attempt(_key(plan[cid]), plan[cid]["attempt"]):
                self.journal.fail({"custom_id": cid, "batch_id": b["id"], "kind": why, "http_status": None,
                                   "message": f"batch {b['status']}: {detail or 'no result line'}"[:500]})
                rep.kinds[why] += 1
        self.summary.tries.update(rep.kinds)
        self.answered_any = self.answered_any or rep.kinds["ok"] > 0
        if rep.malformed:
            log.warning("batch %s: %d malformed result lines, first: %s", b["id"], len(rep.malformed), rep.malformed[0][1])
        _checkpoint("stored")
        self.journal.event("stored", batch_id=b["id"], status=b["status"], output_file_id=b.get("output_file_id"),
                           error_file_id=b.get("error_file_id"), stored=rep.stored, failed_tries=rep.failed_tries)
        if not self.opts.keep_files:
            src.unlink(missing_ok=True)
            plan_path.unlink(missing_ok=True)
            await self.delete_remote(client)

    async def delete_remote(self, client: BatchClient) -> None:
        """Delete the provider's copies (input, output, error files) of every stored batch, each
        journaled once deleted; a killed run's leftovers are deleted by the next run."""
        for fid in self.journal.undeleted():
            _checkpoint("delete")
            await client.delete_file(fid)
            self.journal.event("deleted", file_id=fid)

    def _ended(self) -> tuple[int, int]:
        valid = stopped = 0
        for r in self.requests:         # streamed: a plan of millions is made on demand
            x = self.store.attempts(r).values()
            valid += any(a["valid"] for a in x)
            stopped += any(a["stop"] for a in x)
        return valid, stopped

    async def run(self) -> CollectionSummary:
        t0 = time.perf_counter()
        check_prompts(self.requests, self.store)
        check_endpoint(self.requests, self.store, self.endpoint)
        self.summary.reasked_lost = check_lost(self.requests, self.store, self.endpoint)
        self._before = self._ended()
        self.summary.already_complete = sum(self.store.next_attempt(r, self.max_attempts) is None for r in self.requests)
        async with BatchClient(self.endpoint, self.opts, self.transport) as client:
            await self.recover(client)
            if self.journal.open_batches():
                await self.finish(client, self.journal.open_batches(), "batch (resumed)")
            rnd = 0
            while True:
                _checkpoint("round")
                if not self.opts.keep_files:     # every journaled batch is stored: what is left is orphaned
                    for p in self.journal.files_dir.iterdir():
                        p.unlink()
                    await self.delete_remote(client)
                self.check_budget()
                # each file is submitted as soon as it is written, so the provider starts on it meanwhile
                opened = [await self.submit(client, f) for f in
                          iter_inputs(self.plan(), self.journal.files_dir, self.opts,
                                      prefix=f"r{len(self.journal.events):06d}")]
                if not opened:
                    break
                rnd += 1
                await self.finish(client, opened, f"batch round {rnd}")
        valid, stopped = self._ended()
        self.summary.valid_requests = valid - self._before[0]
        self.summary.stopped_requests = stopped - self._before[1]
        self.summary.seconds = time.perf_counter() - t0
        return self.summary


def collect_batch(requests: Sequence[Request], endpoint: Endpoint, *, store_root: Path | str | None = None,
                  max_attempts: int = 3, transport=None, write_index: bool = True,
                  validate: Callable[[str | None, str], dict] = llmcaller_validate,
                  options: BatchSettings | None = None, prices=None,
                  completion_tokens=DEFAULT_COMPLETION_TOKENS) -> CollectionSummary:
    """Collect ``requests`` through the endpoint's Batch API into the raw store (see module docstring).

    Same contract as :func:`lib.llm.collect.collect` (its ``mode: batch`` branch calls this):
    the summary's ``attempts_written`` counts attempts stored by this call, ``tries`` the line
    outcomes by kind. ``options`` default to the endpoint's ``batch`` mapping. ``prices`` and
    ``completion_tokens`` as for :func:`~lib.llm.collect.collect_async`: each round's whole estimate
    is checked against ``llm.budget_usd`` before it is submitted (:class:`~lib.llm.collect.BudgetExceeded`).
    """
    if getattr(endpoint, "routed", False):      # llm.providers: each provider with batch: true batches
        from lib.llm.providers import collect_routed

        return collect_routed(requests, endpoint, store_root=store_root, max_attempts=max_attempts,
                              transport=transport, write_index=write_index, validate=validate, prices=prices,
                              completion_tokens=completion_tokens)
    opts = options or BatchSettings.from_dict(getattr(endpoint, "batch", None))
    if not hasattr(requests, "__len__"):
        requests = list(requests)        # a sized re-iterable (a lazy plan) is iterated once per pass instead
    with RawStore(store_root) as store:
        before = sum(len(store.attempts(r)) for r in requests)
        run = _Run(requests, store, endpoint, opts, max_attempts, validate, transport, prices, completion_tokens)
        try:
            summary = _run_sync(run.run())
        finally:
            run.journal.close()
        summary.attempts_written = sum(len(store.attempts(r)) for r in requests) - before
        summary.cost_usd = run.ledger.spent - run.ledger.spent_before
        _check(summary, store, requests, max_attempts)
    if write_index:
        RawStore(store_root).write_index(read=False)
    log.info("batch collection: %s", summary.line())
    check_complete(summary, endpoint)
    return summary


# ---- offline: export input files, import output files ------------------------------------------------------
def export(requests: Sequence[Request], out_dir: Path | str, *, store_root: Path | str | None = None,
           max_attempts: int = 3, pin_provider: bool = False, validate: Callable = llmcaller_validate,
           options: BatchSettings | None = None, max_tries: int = 5) -> list[dict]:
    """Write the batch input files of the next round of ``requests`` (what is not stored yet) to ``out_dir``.

    Run them anywhere (``vllm run-batch``, a provider's console), then :func:`import_output`
    each output file; exporting again writes the re-asks. Returns the files written.
    """
    endpoint = Endpoint(base_url="http://offline.invalid/v1", pin_provider=pin_provider, max_tries=max_tries)
    opts = options or BatchSettings()
    with RawStore(store_root) as store:
        run = _Run(list(requests), store, endpoint, opts, max_attempts, validate, None)
        try:
            check_prompts(run.requests, store)
            return write_inputs(run.plan(), Path(out_dir), opts, prefix="input")
        finally:
            run.journal.close()


def import_output(path: Path | str, plan: Sequence[Path | str] | None = None, *,
                  store_root: Path | str | None = None, base_url: str = "offline",
                  write_index: bool = True) -> StoreReport:
    """Store an output file produced elsewhere (e.g. by ``vllm run-batch``) as attempts.

    ``plan``: the ``*.requests.jsonl`` files of the export (default: those in the output file's
    folder). The request bodies come from the input files beside the plans. Malformed lines are
    reported by line number in the returned report (and skipped); failed lines become failed
    tries, re-exported by the next :func:`export`.
    """
    path = Path(path)
    plans = [Path(p) for p in (plan or [path.parent])]
    ident = read_plan(plans)
    if not ident:
        raise FileNotFoundError(f"import {path}: no *.requests.jsonl plan in {', '.join(map(str, plans))}; "
                                "pass --plan with the folder `export` wrote")
    inputs = {}
    for p in plans:
        for f in (sorted(p.glob("*.requests.jsonl")) if p.is_dir() else [p]):
            src = f.with_name(f.name.replace(".requests.jsonl", ".jsonl"))
            if src.exists():
                inputs[src] = _input_index(src)
    handles = {src: open(src, "rb") for src in inputs}

    def body(cid: str) -> dict | None:
        for src, offs in inputs.items():
            if cid in offs:
                fh = handles[src]
                fh.seek(offs[cid])
                return jsonl.loads(fh.readline())["body"]
        return None

    try:
        with RawStore(store_root) as store:
            journal = Journal(store.root)
            try:
                rep = store_results(path, ident, store, journal, batch={"id": f"import:{path.name}"},
                                    base_url=base_url, bodies=body, report=StoreReport(offline=True))
            finally:
                journal.close()
    finally:
        for fh in handles.values():
            fh.close()
    if write_index and rep.stored:
        RawStore(store_root).write_index(read=False)
    return rep


def main(argv: Sequence[str] | None = None) -> int:
    from lib.llm.collect import plan_arguments, plan_from_args

    ap = argparse.ArgumentParser(prog="python -m lib.llm.batch", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="write the batch input files of the next round")
    plan_arguments(ex)
    ex.add_argument("--out", required=True, help="folder for the input files and their *.requests.jsonl plans")
    ex.add_argument("--max-attempts", type=int, default=3)
    ex.add_argument("--max-requests-per-file", type=int, default=BatchSettings().max_requests_per_file)
    ex.add_argument("--max-bytes-per-file", type=int, default=BatchSettings().max_bytes_per_file)
    im = sub.add_parser("import", help="store an output file (OpenAI or vllm run-batch format)")
    im.add_argument("file")
    im.add_argument("--plan", action="append", default=None, help="export folder or *.requests.jsonl (default: FILE's folder)")
    im.add_argument("--store", default=None, help="raw store folder (default outputs/raw)")
    im.add_argument("--base-url", default="offline", help="recorded as the records' base_url (e.g. vllm:<model>)")
    a = ap.parse_args(argv)
    if a.command == "export":
        reqs = plan_from_args(ap, a)
        files = export(reqs, a.out, store_root=a.store, max_attempts=a.max_attempts, pin_provider=a.pin_provider,
                       options=BatchSettings(max_requests_per_file=a.max_requests_per_file,
                                             max_bytes_per_file=a.max_bytes_per_file))
        for f in files:
            print(f"{f['path']}: {f['n']} requests, {f['bytes']} bytes")
        print(f"{sum(f['n'] for f in files)} requests in {len(files)} files" if files else
              "nothing to export: every request has a valid attempt, a stop or all its attempts")
        return 0
    rep = import_output(a.file, a.plan, store_root=a.store, base_url=a.base_url)
    for _, msg in rep.malformed:
        print(msg)
    print(rep.line())
    return 1 if rep.malformed else 0


if __name__ == "__main__":
    raise SystemExit(main())
