"""Batch files: the input JSONL of a round (split by the provider's limits), its plan of
identities (``*.requests.jsonl``), and the result lines of output and error files stored as
attempts of the raw store, labelled by the plan's validator.
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from lib import jsonl
from lib.config import BatchSettings
from lib.llm.batch import journal as jn
from lib.llm.batch.journal import BatchError, Journal, now
from lib.llm.client import CLIENT_VERSION, RejectedError, Request, grounding_of, names_model, rejection_hint, scrub
from lib.llm.kernel import validator
from lib.llm.store import RawStore

log = logging.getLogger("lib.llm.batch")
CHAT_URL = "/v1/chat/completions"
INFRA_FAILURE = {"is_valid": False, "message": "Infrastructure failure - API call failed", "extracted_data": None}


def custom_id(req: Request, attempt: int, request_id: str | None = None) -> str:
    """``<request_id>-r<replicate>-a<attempt>``: unique per attempt, at most 64 characters."""
    return f"{request_id or req.request_id}-r{int(req.replicate)}-a{int(attempt)}"




@functools.lru_cache(maxsize=256)
def _iso(ts) -> str | None:
    return datetime.fromtimestamp(int(ts), timezone.utc).isoformat(timespec="milliseconds") if ts else None




def ident_key(ident: dict) -> tuple:
    """The store's request key of an identity (:func:`lib.llm.store.request_key`, without its generic getter)."""
    return (str(ident["experiment"]), str(ident["model"]), str(ident["task"]), str(ident["param"]),
            round(float(ident["temperature"]), 6), int(ident["replicate"]))




def identity(req: Request, attempt: int, validate: Callable, request_id: str | None = None) -> dict:
    return {"experiment": req.experiment, "model": req.model, "api_model": req.api_model, "task": req.task,
            "param": req.param, "temperature": float(req.temperature), "replicate": int(req.replicate),
            "attempt": int(attempt), "request_id": request_id or req.request_id, "prompt_sha256": req.prompt_sha256,
            "sub_provider": req.sub_provider, "validate": getattr(validate, "__name__", None)}




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
        jn.checkpoint("file_written")
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


def input_index(path: Path) -> dict[str, int]:
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
        "latency_s": None, "started_at": _iso(batch.get("created_at")) or now(),
        "finished_at": _iso(batch.get("completed_at") or batch.get("expired_at")) or now(),
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
            if store.has_attempt(ident_key(ident), ident["attempt"]):
                rep.already_stored += 1
                continue
            kind, status, payload, message = classify(line)
            rep.kinds[kind] += 1
            if kind == "fatal" or (kind == "client" and not rep.offline and (
                    not (rep.ok_before or rep.kinds["ok"]) or names_model(status, message, ident.get("api_model", "")))):
                body_text = scrub(message.partition(": ")[2] if message.startswith("HTTP ") else message, secret)
                hint = rejection_hint(status, body_text, ident.get("api_model", ""), None)
                raise RejectedError(f"{base_url}: batch {batch.get('id')} line {cid} refused model "
                                    f"{ident.get('api_model')}: HTTP {status}: {body_text[:500] or '(empty body)'}. "
                                    f"Hint: {hint}. Stopped the collection (the refused line was not stored)",
                                    status=status, body=body_text, hint=hint)
            resp = line.get("response") or {}
            if kind not in ("ok", "client"):
                journal.fail({"custom_id": cid, "batch_id": batch.get("id") or f"import:{path.name}", "kind": kind,
                              "http_status": status, "message": scrub(message, secret)[:500]})
                rep.failed_tries += 1
                continue
            tries = [_try_entry(t) for t in journal.fails.get(cid, [])]
            for i, t in enumerate(tries, 1):
                t["try"] = i
            check = validate or validator(ident.get("validate"))
            rec = _record(ident, bodies(cid), kind, status, payload, message, base_url=base_url, batch=batch, cid=cid,
                          line_id=line.get("id"), req_id=resp.get("request_id"), try_log=tries, validate=check,
                          endpoint=endpoint, endpoint_name=endpoint_name)
            if cost is not None:
                cost(rec)
            store.append(scrub(rec, secret) if secret else rec)
            rep.stored += 1
            jn.checkpoint("store_line")
    return rep
