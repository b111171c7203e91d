"""The panel's OpenAI Batch API: ``/v1/files`` and ``/v1/batches``, processed in the server process.

Files are kept on disk (a folder of the server), batches run one after another on a worker
thread, and each input line is answered by :meth:`lib.panel.core.Panel.complete` directly (no
HTTP per line), so a line gets the answer the chat endpoint gives the same request. A batch line
carries no headers: the replicate and attempt the per-request client sends as ``X-Replicate`` /
``X-Attempt`` are read from a ``custom_id`` ending in ``-r<replicate>-a<attempt>`` (the form
:mod:`lib.llm.batch` writes); other custom ids are answered from the body alone, as the chat
endpoint answers a request without those headers. The infrastructure try (``X-Try``) is the
number of times this server has processed that custom id, so a resubmitted line draws new faults.

Line outcomes follow the OpenAI format (``{id, custom_id, response: {status_code, request_id,
body}, error}``): HTTP 200 answers go to the output file; other statuses, and lines that did not
run (``request_timeout``, ``batch_expired``, ``batch_cancelled``), to the error file. Batch-level
faults come from :class:`lib.panel.faults.FaultConfig` (``batch_line``, ``batch_expired``,
``batch_429``). An input that is not valid batch JSONL fails the batch (status ``failed``, errors
naming the line), as OpenAI's validation does.
"""
from __future__ import annotations

import json
import mmap
import os
import queue
import re
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

from lib import jsonl
from lib.panel.latent import seed_int

CUSTOM_ID = re.compile(r"-r(\d+)-a(\d+)$")
ENDPOINTS = ("/v1/chat/completions",)
TERMINAL = ("completed", "failed", "expired", "cancelled")


def _err(status: int, message: str, code: str, etype: str = "invalid_request_error") -> tuple[int, dict, dict]:
    return status, {}, {"error": {"message": message, "type": etype, "code": code, "param": None}}


def parse_multipart(path: Path, content_type: str) -> tuple[dict[str, str], tuple[str, int, int] | None]:
    """Form fields and the file part (filename, start, end offsets) of a multipart body saved at ``path``."""
    m = re.search(r'boundary="?([^";]+)"?', content_type or "")
    if not m:
        raise ValueError("multipart/form-data body without a boundary")
    boundary = b"--" + m.group(1).encode()
    fields: dict[str, str] = {}
    file_part = None
    if path.stat().st_size == 0:
        return fields, None
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        pos = mm.find(boundary)
        while pos != -1:
            head_start = pos + len(boundary)
            if mm[head_start:head_start + 2] == b"--":
                break
            head_end = mm.find(b"\r\n\r\n", head_start)
            if head_end == -1:
                break
            head = mm[head_start:head_end].decode("utf-8", "replace")
            data_start = head_end + 4
            nxt = mm.find(b"\r\n" + boundary, data_start)
            if nxt == -1:
                raise ValueError("multipart/form-data body is truncated (no closing boundary)")
            name = re.search(r'name="([^"]*)"', head)
            filename = re.search(r'filename="([^"]*)"', head)
            if filename:
                file_part = (filename.group(1), data_start, nxt)
            elif name:
                fields[name.group(1)] = mm[data_start:nxt].decode("utf-8")
            pos = nxt + 2
    return fields, file_part


class BatchService:
    """Files and batches of one panel. ``handle(method, path, query, headers, body)`` is the router."""

    def __init__(self, panel, root: Path | str | None = None):
        self.panel = panel
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="panel_batch_"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.files: dict[str, dict] = {}
        self.batches: dict[str, dict] = {}
        self._cancel: set[str] = set()
        self._seen: Counter = Counter()          # custom id -> times processed (the line's try)
        self._lock = threading.Lock()
        self._queue: queue.Queue = queue.Queue()
        self._worker: threading.Thread | None = None
        self.create_calls = 0                    # POST /v1/batches calls (429s included)
        self.created = 0                         # batches created (tests count resubmissions)

    # ---- files ---------------------------------------------------------------------------------
    def _new_file(self, filename: str, purpose: str, path: Path) -> dict:
        with self._lock:
            fid = f"file-{len(self.files) + 1:06d}{os.urandom(4).hex()}"
            meta = {"id": fid, "object": "file", "bytes": path.stat().st_size, "created_at": int(time.time()),
                    "filename": filename, "purpose": purpose, "status": "processed", "expires_at": None,
                    "status_details": None}
            final = self.root / f"{fid}.jsonl"
            os.replace(path, final)
            self.files[fid] = {**meta, "_path": str(final)}
        return meta

    def upload(self, body_path: Path, content_type: str):
        try:
            fields, part = parse_multipart(body_path, content_type)
        except ValueError as exc:
            return _err(400, str(exc), "invalid_multipart")
        if part is None:
            return _err(400, "missing the 'file' part of the multipart form", "missing_file")
        purpose = fields.get("purpose")
        if purpose != "batch":
            return _err(400, f"purpose must be 'batch' (the only purpose this panel serves), got {purpose!r}",
                        "invalid_purpose")
        filename, start, end = part
        tmp = self.root / f".upload.{threading.get_ident()}.{os.urandom(4).hex()}"
        with open(body_path, "rb") as src, open(tmp, "wb") as dst:
            src.seek(start)
            left = end - start
            while left:
                chunk = src.read(min(left, 1 << 20))
                if not chunk:
                    break
                dst.write(chunk)
                left -= len(chunk)
        return 200, {}, self._new_file(filename, purpose, tmp)

    def _public(self, d: dict) -> dict:
        return {k: v for k, v in d.items() if not k.startswith("_")}

    # ---- batches -------------------------------------------------------------------------------
    def create(self, body: dict):
        faults = self.panel.faults
        with self._lock:
            self.create_calls += 1
            n_call = self.create_calls
        if not isinstance(body, dict):
            return _err(400, "request body must be a JSON object", "invalid_body")
        if faults.rate_batch_429 and np.random.default_rng(
                seed_int(self.panel.seed, "batch_429", n_call)).random() < faults.rate_batch_429:
            status, hdrs, payload = _err(429, "Rate limit reached for batches: too many batches enqueued, retry later",
                                         "rate_limit_exceeded", "rate_limit_exceeded")
            return status, {"Retry-After": f"{faults.retry_after_s:g}"}, payload
        fid = body.get("input_file_id")
        if fid not in self.files:
            return _err(404, f"no file {fid!r} (upload it with POST /v1/files, purpose batch)", "file_not_found")
        if body.get("endpoint") not in ENDPOINTS:
            return _err(400, f"endpoint must be one of {list(ENDPOINTS)}, got {body.get('endpoint')!r}",
                        "invalid_endpoint")
        if body.get("completion_window") != "24h":
            return _err(400, f"completion_window must be '24h', got {body.get('completion_window')!r}",
                        "invalid_completion_window")
        now = int(time.time())
        with self._lock:
            self.created += 1
            bid = f"batch_{self.created:06d}{os.urandom(4).hex()}"
            batch = {"id": bid, "object": "batch", "endpoint": body["endpoint"], "errors": None,
                     "input_file_id": fid, "completion_window": "24h", "status": "validating",
                     "output_file_id": None, "error_file_id": None, "created_at": now, "in_progress_at": None,
                     "expires_at": now + 86400, "finalizing_at": None, "completed_at": None, "failed_at": None,
                     "expired_at": None, "cancelling_at": None, "cancelled_at": None,
                     "request_counts": {"total": 0, "completed": 0, "failed": 0},
                     "metadata": body.get("metadata") or None, "_n": self.created}
            self.batches[bid] = batch
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._work, daemon=True, name="panel-batch")
                self._worker.start()
        self._queue.put(bid)
        return 200, {}, self._public(batch)

    def cancel(self, bid: str):
        b = self.batches.get(bid)
        if b is None:
            return _err(404, f"no batch {bid!r}", "batch_not_found")
        if b["status"] not in TERMINAL:
            self._cancel.add(bid)
            b["status"], b["cancelling_at"] = "cancelling", int(time.time())
        return 200, {}, self._public(b)

    def _work(self) -> None:
        while True:
            bid = self._queue.get()
            try:
                self._process(self.batches[bid])
            except Exception as exc:   # a panel bug must not hang the client: fail the batch visibly
                b = self.batches[bid]
                b["errors"] = {"object": "list", "data": [{"code": "panel_error", "message": repr(exc),
                                                           "line": None, "param": None}]}
                b["status"], b["failed_at"] = "failed", int(time.time())

    def _line_headers(self, custom_id: str) -> dict:
        with self._lock:
            self._seen[custom_id] += 1
            tries = self._seen[custom_id]
        h = {"x-try": str(tries)}
        m = CUSTOM_ID.search(custom_id)
        if m:
            h["x-replicate"], h["x-attempt"] = m.group(1), m.group(2)
        return h

    def _process(self, b: dict) -> None:
        panel, faults = self.panel, self.panel.faults
        src = Path(self.files[b["input_file_id"]]["_path"])
        with open(src, "rb") as f:
            total = sum(1 for line in f if line.strip())
        b["request_counts"]["total"] = total
        b["status"], b["in_progress_at"] = "in_progress", int(time.time())
        # an expiring batch answers a random share of its lines, then stops
        stop_after = None
        if faults.rate_batch_expired:
            rng = np.random.default_rng(seed_int(panel.seed, "batch_expired", b["_n"]))
            if rng.random() < faults.rate_batch_expired:
                stop_after = int(rng.integers(0, max(1, total)))
        out_tmp, err_tmp = self.root / f".{b['id']}.out", self.root / f".{b['id']}.err"
        counts = b["request_counts"]
        n_out = n_err = 0
        seen_ids: set[str] = set()
        with open(src, "rb") as f, open(out_tmp, "wb") as out, open(err_tmp, "wb") as err:
            k = 0
            for lineno, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                problem, line = self._validate(raw, lineno, b["endpoint"], seen_ids)
                if problem:
                    b["errors"] = {"object": "list", "data": [problem]}
                    b["status"], b["failed_at"] = "failed", int(time.time())
                    counts["completed"] = counts["failed"] = 0
                    out.close(), err.close()
                    out_tmp.unlink(), err_tmp.unlink()
                    return
                cid = line["custom_id"]
                k += 1
                req_id = f"req_{seed_int(b['id'], cid) & 0xFFFFFFFFFFFF:012x}"
                entry = {"id": f"batch_req_{seed_int(b['id'], 'line', cid) & 0xFFFFFFFFFFFF:012x}", "custom_id": cid}
                if b["id"] in self._cancel or (stop_after is not None and k > stop_after):
                    code, msg = (("batch_cancelled", "The batch was cancelled before this request executed.")
                                 if b["id"] in self._cancel else
                                 ("batch_expired", "This request could not be executed before the completion "
                                                   "window expired."))
                    err.write(jsonl.dumps({**entry, "response": None, "error": {"code": code, "message": msg}}))
                    n_err += 1
                    counts["failed"] += 1
                    continue
                headers = self._line_headers(cid)
                if faults.rate_batch_line and np.random.default_rng(
                        seed_int(panel.seed, "batch_line", cid, headers["x-try"])).random() < faults.rate_batch_line:
                    err.write(jsonl.dumps({**entry, "response": None, "error": {
                        "code": "request_timeout", "message": "The underlying call to the model timed out."}}))
                    n_err += 1
                    counts["failed"] += 1
                    continue
                status, _, payload = panel.complete(line["body"], headers)
                rec = {**entry, "response": {"status_code": status, "request_id": req_id, "body": payload},
                       "error": None}
                text = jsonl.dumps(rec)
                if status == 200:
                    out.write(text)
                    n_out += 1
                    counts["completed"] += 1
                else:
                    err.write(text)
                    n_err += 1
                    counts["failed"] += 1
        b["status"], b["finalizing_at"] = "finalizing", int(time.time())
        for tmp, n, key, purpose in ((out_tmp, n_out, "output_file_id", "batch_output"),
                                     (err_tmp, n_err, "error_file_id", "batch_output")):
            if n:
                b[key] = self._new_file(f"{b['id']}_{key.split('_')[0]}.jsonl", purpose, tmp)["id"]
            else:
                tmp.unlink()
        now = int(time.time())
        if b["id"] in self._cancel:
            b["status"], b["cancelled_at"] = "cancelled", now
        elif stop_after is not None:
            b["status"], b["expired_at"] = "expired", now
        else:
            b["status"], b["completed_at"] = "completed", now

    @staticmethod
    def _validate(raw: bytes, lineno: int, endpoint: str, seen: set) -> tuple[dict | None, dict | None]:
        def problem(code, message, param=None):
            return {"code": code, "message": f"line {lineno}: {message}", "line": lineno, "param": param}, None
        try:
            line = jsonl.loads(raw)
        except ValueError:
            return problem("invalid_json_line", "not a JSON object")
        if not isinstance(line, dict):
            return problem("invalid_json_line", "not a JSON object")
        cid = line.get("custom_id")
        if not isinstance(cid, str) or not cid:
            return problem("missing_required_parameter", "custom_id must be a non-empty string", "custom_id")
        if cid in seen:
            return problem("duplicate_custom_id", f"custom_id {cid!r} appears more than once", "custom_id")
        seen.add(cid)
        if line.get("method") != "POST":
            return problem("invalid_value", f"method must be 'POST', got {line.get('method')!r}", "method")
        if line.get("url") != endpoint:
            return problem("mismatched_endpoint", f"url {line.get('url')!r} differs from the batch's endpoint "
                                                  f"{endpoint!r}", "url")
        if not isinstance(line.get("body"), dict):
            return problem("invalid_value", "body must be a JSON object", "body")
        return None, line

    # ---- router --------------------------------------------------------------------------------
    def handle(self, method: str, path: str, query: dict, headers: dict, body_path: Path | None):
        """(status, headers, payload): payload is a dict, or a :class:`Path` whose bytes are the answer."""
        parts = [p for p in path.split("/") if p]
        if parts and parts[0] == "v1":
            parts = parts[1:]
        if not parts or parts[0] not in ("files", "batches"):
            return _err(404, f"no route {path}", "not_found")
        if parts[0] == "files":
            if method == "POST" and len(parts) == 1:
                return self.upload(body_path, headers.get("content-type", ""))
            if method == "GET" and len(parts) == 1:
                purpose = query.get("purpose")
                data = [self._public(f) for f in self.files.values() if purpose in (None, f["purpose"])]
                return 200, {}, {"object": "list", "data": data, "has_more": False}
            meta = self.files.get(parts[1]) if len(parts) > 1 else None
            if meta is None:
                return _err(404, f"no file {parts[1] if len(parts) > 1 else ''!r}", "file_not_found")
            if method == "GET" and len(parts) == 3 and parts[2] == "content":
                return 200, {"Content-Type": "application/octet-stream"}, Path(meta["_path"])
            if method == "GET" and len(parts) == 2:
                return 200, {}, self._public(meta)
            if method == "DELETE" and len(parts) == 2:
                self.files.pop(parts[1])
                Path(meta["_path"]).unlink(missing_ok=True)
                return 200, {}, {"id": parts[1], "object": "file", "deleted": True}
            return _err(405, f"{method} {path} is not served", "method_not_allowed")
        if method == "POST" and len(parts) == 1:
            try:
                body = json.loads(body_path.read_bytes() or b"null") if body_path else None
            except ValueError as exc:
                return _err(400, f"invalid JSON body: {exc}", "invalid_json")
            return self.create(body)
        if method == "GET" and len(parts) == 1:
            items = sorted(self.batches.values(), key=lambda b: b["_n"], reverse=True)
            if query.get("after") in self.batches:
                items = [b for b in items if b["_n"] < self.batches[query["after"]]["_n"]]
            limit = int(query.get("limit") or 20)
            return 200, {}, {"object": "list", "data": [self._public(b) for b in items[:limit]],
                             "first_id": items[0]["id"] if items else None,
                             "last_id": items[:limit][-1]["id"] if items else None, "has_more": len(items) > limit}
        b = self.batches.get(parts[1]) if len(parts) > 1 else None
        if b is None:
            return _err(404, f"no batch {parts[1] if len(parts) > 1 else ''!r}", "batch_not_found")
        if method == "GET" and len(parts) == 2:
            return 200, {}, self._public(b)
        if method == "POST" and len(parts) == 3 and parts[2] == "cancel":
            return self.cancel(parts[1])
        return _err(405, f"{method} {path} is not served", "method_not_allowed")
