"""Client and collector against a canned OpenAI-shaped HTTP server on 127.0.0.1.

The server (stdlib http.server in a thread) answers deterministically from (model, prompt,
replicate, attempt) and can inject faults per HTTP try: 429 with Retry-After, 500, a stall past
the client timeout, HTTP 200 with an error body. It logs every try, so the tests can check what
the client stored against what was sent.
"""
import asyncio
import hashlib
import io
import json
import logging
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from lib import paths
from lib.scholar import labels, prompts
from lib.llm.client import ChatClient, Endpoint, FatalAPIError, Request, parse_retry_after, attempt_seed
from lib.llm.collect import collect
from lib.llm.cost import dry_run
from lib.scholar.labels import llmcaller_validate
from lib.scholar.plan import build_requests
from lib.llm.store import RawStore
from lib.scholar.models import load_models

ANSWERS = [
    '[{"Name": "Albert Einstein"}, {"Name": "Lise Meitner"}]',
    'Here is the list:\n```json\n[{"Name": "Chien-Shiung Wu"}, {"Name": "Enrico Fermi"}]\n```',
    "I'm sorry, but I can't provide that list because the criteria are contradictory.",
    '[{"Name": "Paul Dirac"}, {"Name": "Richard Feyn',
    "lorem ipsum",
]


def _u(*parts) -> float:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big") / 2**64


class FakeOpenAI:
    """A tiny OpenAI-compatible server; ``faults`` maps kind -> probability per HTTP try."""

    def __init__(self, *, faults=None, retry_after="0.05", stall_s=0.6, latency_s=0.0, require_key=None,
                 echo_auth=False):
        self.faults = faults or {}
        self.retry_after, self.stall_s, self.latency_s = retry_after, stall_s, latency_s
        self.require_key, self.echo_auth = require_key, echo_auth
        self.log, self.lock, self.auth_seen = [], threading.Lock(), Counter()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"   # keep-alive, as real endpoints

            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.handle(self, body)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256        # the stdlib default (5) drops bursts of connects

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda *a: None
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def answer(self, body, replicate, attempt):
        prompt = body["messages"][-1]["content"]
        u = _u(body["model"], prompt, replicate, attempt)
        # first attempts fail more often, so re-asking is exercised
        idx = 0 if u < (0.45 if attempt == "1" else 0.7) else 1 + int(4 * (u - (0.45 if attempt == "1" else 0.7)) / (0.55 if attempt == "1" else 0.3))
        return ANSWERS[min(idx, 4)]

    def _reply(self, h, status, payload, headers=()):
        data = json.dumps(payload).encode()
        try:
            h.send_response(status)
            for k, v in headers:
                h.send_header(k, v)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def handle(self, h, body):
        rid, rep, att, tr = (h.headers.get(k) for k in ("X-Request-Id", "X-Replicate", "X-Attempt", "X-Try"))
        auth = h.headers.get("Authorization", "")
        with self.lock:
            self.auth_seen[auth] += 1
        if self.require_key is not None and auth != f"Bearer {self.require_key}":
            self._record(rid, att, tr, "401")
            return self._reply(h, 401, {"error": {"code": 401, "message": "No auth credentials found"}})
        u, kind, acc = _u("fault", rid, att, tr), "ok", 0.0
        for k, p in self.faults.items():
            acc += p
            if u < acc:
                kind = k
                break
        self._record(rid, att, tr, kind)
        if self.latency_s:
            time.sleep(self.latency_s)
        if kind == "429":
            return self._reply(h, 429, {"error": {"code": 429, "message": "Rate limit exceeded: rate_limit_exceeded"}},
                               [("Retry-After", self.retry_after)])
        if kind == "500":
            return self._reply(h, 500, {"error": {"code": 500, "message": "Internal Server Error"}})
        if kind == "timeout":
            time.sleep(self.stall_s)
            return self._reply(h, 200, {"choices": [{"message": {"content": "[]"}}]})
        if kind == "body_error":
            msg = "Upstream error from provider" + (f" (request carried {auth})" if self.echo_auth else "")
            return self._reply(h, 200, {"error": {"code": 502, "message": msg, "metadata": {"provider_name": "Fake"}}})
        content = self.answer(body, rep, att)
        self._reply(h, 200, {
            "id": f"gen-{rid}-{att}", "object": "chat.completion", "created": 1700000000,
            "model": body["model"] + "-served", "provider": "FakeProvider", "system_fingerprint": "fp_test",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 700, "completion_tokens": len(content) // 4, "total_tokens": 700 + len(content) // 4},
        })

    def _record(self, rid, att, tr, kind):
        with self.lock:
            self.log.append((rid, int(att), int(tr), kind, time.monotonic()))


def _requests(models=("m-a", "m-b"), families=("top_k", "epoch", "twins"), replicates=2, experiment="t"):
    out = []
    for m in models:
        for tp in prompts.task_params(list(families)):
            for r in range(replicates):
                out.append(Request(experiment=experiment, model=m, api_model=m, task=tp.family, param=tp.param,
                                   temperature=0.5, replicate=r, messages=tuple(prompts.messages(tp.family, tp.param)),
                                   seed=7))
    return out


def _fast(url, **kw):
    base = dict(base_url=url, timeout_s=2.0, max_concurrency=8, max_tries=4, backoff_base_s=0.005, backoff_max_s=0.02)
    return Endpoint(**{**base, **kw})


@pytest.fixture
def server():
    s = FakeOpenAI()
    yield s
    s.close()


def test_collects_every_request_keeps_first_valid_and_records_provenance(server, tmp_path):
    reqs = _requests()
    summary = collect(reqs, _fast(server.url), store_root=tmp_path, validate=llmcaller_validate)
    recs = RawStore(tmp_path).records()
    assert summary.requests == len(reqs) and summary.attempts_written == len(recs)
    by_req = recs.groupby(["model", "task", "param", "replicate"])
    for _, g in by_req:
        g = g.sort_values("attempt")
        valid = g["validation"].map(lambda v: v["is_valid"]).tolist()
        assert g["attempt"].tolist() == list(range(1, len(g) + 1)) and len(g) <= 3
        assert not any(valid[:-1]), "collection must stop at the first valid attempt"
        assert valid[-1] or len(g) == 3
    assert set(recs["served_model"]) == {"m-a-served", "m-b-served"}
    assert set(recs["provider"]) == {"FakeProvider"} and set(recs["system_fingerprint"]) == {"fp_test"}
    assert recs["usage"].map(lambda u: u["prompt_tokens"]).eq(700).all()
    assert recs["latency_s"].gt(0).all() and recs["started_at"].le(recs["finished_at"]).all()
    assert (recs["attempt"] > 1).any(), "the canned answers should force some re-asks"
    # re-running is a no-op: everything is complete
    again = collect(reqs, _fast(server.url), store_root=tmp_path, validate=llmcaller_validate)
    assert again.already_complete == len(reqs) and again.attempts_written == 0


def test_replicates_and_attempts_get_distinct_seeds_and_headers(server, tmp_path):
    reqs = _requests(models=("m-a",), families=("top_k",), replicates=3)
    collect(reqs, _fast(server.url), store_root=tmp_path, validate=llmcaller_validate)
    recs = RawStore(tmp_path).records()
    seeds = recs.assign(seed=recs["request"].map(lambda b: b["seed"])).groupby("param")["seed"]
    assert (seeds.nunique() == seeds.size()).all(), "each (replicate, attempt) must send its own seed"
    assert attempt_seed(7, 0, 1) != attempt_seed(7, 1, 1) != attempt_seed(7, 1, 2)
    assert len({r.request_id for r in reqs}) == len(reqs)
    logged = {(rid, a) for rid, a, *_ in server.log}
    assert logged == set(zip(recs["request_id"], recs["attempt"]))


def test_fault_storm_completes_with_correct_api_error_labels(tmp_path):
    """Provider-returned errors (HTTP 200 error bodies) that outlast the retries are attempts
    (api_error); 429/500/timeouts that do are failed tries, and re-runs resume them until done."""
    from lib.llm.kernel import IncompleteCollectionError
    from lib.llm.store import INFRA_KINDS

    srv = FakeOpenAI(faults={"429": 0.20, "500": 0.05, "timeout": 0.02, "body_error": 0.04},
                     retry_after="0.05", stall_s=1.5)
    runs, incomplete = 0, 0
    try:
        reqs = _requests(families=prompts.FAMILY_ORDER, replicates=2)
        while runs < 6:
            runs += 1
            try:
                summary = collect(reqs, _fast(srv.url, timeout_s=1.0, max_tries=3, max_failed_fraction=0.0),
                                  store_root=tmp_path, validate=llmcaller_validate)
                break
            except IncompleteCollectionError as e:
                incomplete += 1
                assert e.summary.failed > 0 and "run again to resume" in str(e)
    finally:
        srv.close()
    assert runs < 6, "re-runs must finish the failed requests (tries continue, not repeat)"
    recs = RawStore(tmp_path).records()
    failed_tries = list(RawStore(tmp_path).iter_records(failed_tries=True))
    lab = labels.label_attempts(recs, mode="paper")
    kinds = Counter(k for *_, k, _ in srv.log)
    assert kinds["429"] > 30 and kinds["500"] > 3 and kinds["timeout"] > 0 and kinds["body_error"] > 3
    last = {}
    for rid, att, tr, kind, _ in srv.log:
        if tr >= last.get((rid, att), (0, None))[0]:
            last[(rid, att)] = (tr, kind)
    for rec, lp, lr in zip(recs.to_dict("records"), lab["label_paper"], lab["label_reference"]):
        tries, kind = last[(rec["request_id"], rec["attempt"])]
        assert kind in ("ok", "body_error"), "an attempt's last try is an answer or a provider-returned error"
        failed = kind != "ok"
        assert (rec["status"] == "api_error") == failed
        assert (lp == "API error") == failed and (lr in ("provider_error", "rate_limit")) == failed
        if failed:
            assert rec["tries"] == 3 and len(rec["try_log"]) == 3
        else:
            assert rec["content"] is not None and rec["tries"] == len(rec["try_log"]) + 1
            assert (rec["try_log"][0]["try"] if rec["try_log"] else tries) + rec["tries"] - 1 == tries
    for ft in failed_tries:       # infrastructure failures after all retries: stored, but not attempts
        assert ft["status"] == "infra_error" and ft["error"]["kind"] in INFRA_KINDS and ft["tries"] == 3
    assert (incomplete > 0) == bool(failed_tries)
    # every request ended: a valid attempt or three attempts
    done = recs.groupby(["model", "task", "param", "replicate"]).apply(
        lambda g: g["validation"].map(lambda v: v["is_valid"]).any() or len(g) == 3, include_groups=False)
    assert done.all() and len(done) == len(reqs)
    # Retry-After was honoured: the next try of the same attempt came >= 0.05 s after a 429
    times = {}
    for rid, att, tr, kind, t in srv.log:
        times[(rid, att, tr)] = (kind, t)
    gaps = [times[(r, a, t + 1)][1] - ts for (r, a, t), (k, ts) in times.items()
            if k == "429" and (r, a, t + 1) in times and t % 3]
    assert gaps and min(gaps) >= 0.045
    assert int((recs["status"] == "api_error").sum()) > 0
    print(f"\nfault storm: {sum(kinds.values())} tries {dict(kinds)}; {len(recs)} attempts, {len(failed_tries)} "
          f"failed tries over {runs} runs; labels {dict(Counter(lab['label_paper']))}; {summary.seconds:.2f} s")


def test_canary_key_is_sent_but_never_stored_or_logged(tmp_path, monkeypatch, caplog):
    canary = "sk-canary-" + hashlib.sha256(b"canary").hexdigest()[:24]
    monkeypatch.setenv("LLM_TEST_CANARY_KEY", canary)
    srv = FakeOpenAI(faults={"body_error": 0.3, "500": 0.1}, require_key=canary, echo_auth=True)
    logfile = tmp_path / "collect.log"
    handler = logging.FileHandler(logfile)
    logging.getLogger("lib.llm").addHandler(handler)
    caplog.set_level(logging.DEBUG, logger="lib.llm")
    try:
        reqs = _requests(families=("top_k", "twins"), replicates=2)
        collect(reqs, _fast(srv.url, api_key_env="LLM_TEST_CANARY_KEY", max_tries=2,
                                   max_failed_fraction=1.0), store_root=tmp_path / "raw", validate=llmcaller_validate)
    finally:
        logging.getLogger("lib.llm").removeHandler(handler)
        handler.close()
        srv.close()
    assert srv.auth_seen[f"Bearer {canary}"] > 0 and set(srv.auth_seen) == {f"Bearer {canary}"}
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files) and any(p.name == "index.parquet" for p in files)
    for p in files:
        assert canary.encode() not in p.read_bytes(), f"canary key leaked into {p}"
    assert canary not in caplog.text
    recs = RawStore(tmp_path / "raw").records()
    assert recs["error"].dropna().map(lambda e: "[REDACTED]" in e["message"]).any(), "echoed key should be scrubbed"


def test_missing_or_rejected_key_stops_without_storing(tmp_path, monkeypatch):
    srv = FakeOpenAI(require_key="right")
    try:
        monkeypatch.delenv("LLM_TEST_NO_KEY", raising=False)
        with pytest.raises(FatalAPIError, match="LLM_TEST_NO_KEY"):
            collect(_requests()[:2], _fast(srv.url, api_key_env="LLM_TEST_NO_KEY"), store_root=tmp_path, validate=llmcaller_validate)
        monkeypatch.setenv("LLM_TEST_NO_KEY", "wrong")
        with pytest.raises(FatalAPIError, match="HTTP 401"):
            collect(_requests()[:2], _fast(srv.url, api_key_env="LLM_TEST_NO_KEY"), store_root=tmp_path, validate=llmcaller_validate)
    finally:
        srv.close()
    assert RawStore(tmp_path).records().empty


def _mock(handler):
    return httpx.MockTransport(handler)


def _one(transport, **kw):
    req = _requests(models=("m",), families=("top_k",), replicates=1)[0]

    async def go():
        async with ChatClient(_fast("http://mock/v1", **kw), transport=transport) as c:
            return await c.attempt(req, 1)
    return asyncio.run(go())


def _after_ok(transport_fn, **kw):
    """The second attempt's record on a client whose first request was answered (2xx)."""
    req = _requests(models=("m",), families=("top_k",), replicates=1)[0]
    seq = iter([httpx.Response(200, json={"model": "m", "choices": [{"message": {"content": "[]"}}]})])

    def handler(request):
        return next(seq, None) or transport_fn(request)

    async def go():
        async with ChatClient(_fast("http://mock/v1", **kw), transport=_mock(handler)) as c:
            await c.attempt(req, 1)
            return await c.attempt(req, 2)
    return asyncio.run(go())


def test_no_retry_for_400_and_quota_is_fatal():
    calls = Counter()

    def bad_request(request):
        calls["400"] += 1
        return httpx.Response(400, json={"error": {"code": 400, "message": "bad temperature"}})
    rec = _after_ok(bad_request)
    assert calls["400"] == 1 and rec["status"] == "client_error" and rec["stop"] and rec["tries"] == 1

    def quota(request):
        calls["quota"] += 1
        return httpx.Response(429, json={"error": {"code": "insufficient_quota", "message": "You exceeded your quota"}})
    with pytest.raises(FatalAPIError, match="insufficient_quota"):
        _one(_mock(quota))
    assert calls["quota"] == 1


@pytest.mark.parametrize("status,body,hint", [
    (401, {"error": {"message": "Authentication Error, No connected db."}}, "key rejected"),
    (403, {"error": {"message": "forbidden for sk-canary-123"}}, "key rejected"),
    (404, {"error": {"code": "model_not_found", "message": "The model m does not exist"}}, "model not served"),
    (400, {"error": {"message": "Invalid model name passed in model=m. Call /v1/models"}}, "model not served"),
    (400, None, "request shape refused"),            # llama-cpp-python's server: 400, empty body
    (422, {"detail": [{"loc": ["body", "stream"], "msg": "bad"}]}, "request shape refused"),
])
def test_a_refused_first_request_stops_with_status_body_and_hint(status, body, hint, monkeypatch):
    from lib.llm.client import RejectedError

    monkeypatch.setenv("LLM_TEST_CANARY", "sk-canary-123")
    calls = Counter()

    def refuse(request):
        calls["n"] += 1
        return httpx.Response(status, json=body) if body is not None else httpx.Response(status)
    with pytest.raises(RejectedError) as e:
        _one(_mock(refuse), api_key_env="LLM_TEST_CANARY", name="gw")
    msg = str(e.value)
    assert calls["n"] == 1 and e.value.status == status and f"HTTP {status}" in msg and hint in msg
    assert "provider 'gw'" in msg and "sk-canary-123" not in msg
    said = "(empty body)" if body is None else body["error"]["message"][:12] if "error" in body else "stream"
    assert said in msg or "[REDACTED]" in msg


def test_a_model_not_served_stops_even_after_answers():
    from lib.llm.client import RejectedError

    with pytest.raises(RejectedError, match="model not served"):
        _after_ok(lambda r: httpx.Response(404, json={"error": {"message": "no such model m"}}))


def test_refused_collection_fails_without_storing(tmp_path):
    """Every request refused (a gateway that does not map the model): the run fails, 0 attempts stored."""
    from lib.llm.client import RejectedError

    ep = _fast("http://mock/v1")
    with pytest.raises(RejectedError, match="HTTP 400"):
        collect(_requests()[:6], ep, store_root=tmp_path, progress=False,
                transport=_mock(lambda r: httpx.Response(400)), validate=llmcaller_validate)
    assert RawStore(tmp_path).records().empty


def test_request_id_is_a_uuid():
    import uuid

    r = _requests()[0]
    assert str(uuid.UUID(r.request_id)) == r.request_id and r.request_id == _requests()[0].request_id
    assert len({x.request_id for x in _requests()}) == len(_requests())


def test_retries_exhaust_into_a_failed_try_or_an_api_error_and_recover_when_possible():
    seq = iter([httpx.Response(503, json={"error": {"message": "down"}}),
                httpx.Response(200, json={"error": {"code": 502, "message": "provider died"}}),
                httpx.Response(200, text="not json"),
                httpx.Response(200, json={"model": "x", "choices": [{"message": {"content": "[]"}}]})])
    rec = _one(_mock(lambda r: next(seq)), max_tries=4)
    assert rec["status"] == "ok" and rec["tries"] == 4
    assert [t["kind"] for t in rec["try_log"]] == ["server", "body_error", "bad_json"]
    # 5xx outlasting the retries: infrastructure, a failed try (not an attempt)
    rec = _one(_mock(lambda r: httpx.Response(500, json={})), max_tries=3)
    assert rec["status"] == "infra_error" and rec["tries"] == 3 and rec["response"] == {}
    # an error body the provider returned every time: an attempt (LLMScholarBench counts it)
    rec = _one(_mock(lambda r: httpx.Response(200, json={"error": {"code": 502, "message": "provider died"}})),
               max_tries=2)
    assert rec["status"] == "api_error" and rec["error"]["kind"] == "body_error" and rec["tries"] == 2


def test_refused_reset_and_timeouts_are_failed_tries_numbered_after_earlier_ones():
    def refused(request):
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    def reset(request):
        raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)

    def slow(request):
        raise httpx.ReadTimeout("timed out", request=request)
    for handler, kind in ((refused, "connection"), (reset, "connection"), (slow, "timeout")):
        rec = _one(_mock(handler), max_tries=2)
        assert rec["status"] == "infra_error" and rec["error"]["kind"] == kind and rec["tries"] == 2
    seen = []

    def count(request):
        seen.append(request.headers["X-Try"])
        return httpx.Response(200, json={"choices": [{"message": {"content": "[]"}}]})
    req = _requests(models=("m",), families=("top_k",), replicates=1)[0]

    async def go():
        async with ChatClient(_fast("http://mock/v1"), transport=_mock(count)) as c:
            return await c.attempt(req, 1, first_try=4)
    assert asyncio.run(go())["status"] == "ok" and seen == ["4"]


def test_request_body_passthrough_and_provider_pinning():
    seen = {}

    def capture(request):
        seen.update(json.loads(request.content))
        return httpx.Response(200, json={"choices": [{"message": {"content": "[]"}}]})
    req = Request(experiment="e", model="llama-3.1-8b", api_model="meta-llama/llama-3.1-8b-instruct", task="top_k",
                  param="top_5", temperature=0.25, replicate=4, messages=tuple(prompts.messages("top_k", "top_5")),
                  seed=11, max_tokens=512, sub_provider="deepinfra/bf16")

    async def go():
        async with ChatClient(_fast("http://mock/v1", pin_provider=True), transport=_mock(capture)) as c:
            return await c.attempt(req, 2)
    asyncio.run(go())
    assert seen["model"] == "meta-llama/llama-3.1-8b-instruct" and seen["temperature"] == 0.25
    assert seen["max_tokens"] == 512 and seen["seed"] == attempt_seed(11, 4, 2) and seen["stream"] is False
    assert seen["provider"] == {"order": ["deepinfra/bf16"], "allow_fallbacks": False}


@pytest.mark.parametrize("base_url,field,value", [
    ("https://openrouter.ai/api/v1", "plugins", [{"id": "web"}]),
    ("https://generativelanguage.googleapis.com/v1beta/openai", "tools", [{"google_search": {}}]),
])
def test_grounded_models_ask_for_the_providers_web_search_and_store_what_it_found(base_url, field, value):
    """issue 16 item 4: the RAG configurations (table column grounded) send the provider's web-search
    option, the others do not; the response's grounding metadata is kept on the record."""
    models = load_models()
    rows = models[models["key"].isin(["gemini-2.5-pro", "gemini-2.5-pro-grounded", "llama-3.1-8b"])]
    reqs = {r.model: r for r in build_requests(rows, experiment="rag", families=("top_k",), params=["top_5"])}
    assert {m: r.grounded for m, r in reqs.items()} == {"llama-3.1-8b": False, "gemini-2.5-pro": False,
                                                       "gemini-2.5-pro-grounded": True}
    bodies = {m: ChatClient(Endpoint(base_url=base_url)).body(r, 1) for m, r in reqs.items()}
    assert bodies["gemini-2.5-pro-grounded"][field] == value
    assert bodies["gemini-2.5-pro-grounded"]["model"] == bodies["gemini-2.5-pro"]["model"] == "gemini-2.5-pro"
    for m in ("gemini-2.5-pro", "llama-3.1-8b"):
        assert not {"plugins", "tools"} & set(bodies[m]), m
    citations = [{"type": "url_citation", "url_citation": {"url": "https://aps.org/x", "title": "APS"}}]

    def answer(request):
        sent = json.loads(request.content)
        message = {"content": "[]", **({"annotations": citations} if field in sent else {})}
        return httpx.Response(200, json={"choices": [{"message": message, "finish_reason": "stop"}]})

    async def go(req):
        async with ChatClient(_fast(base_url), transport=_mock(answer)) as c:
            return await c.attempt(req, 1)
    assert asyncio.run(go(reqs["gemini-2.5-pro-grounded"]))["grounding"] == {"annotations": citations}
    assert asyncio.run(go(reqs["gemini-2.5-pro"]))["grounding"] is None


def test_the_embedded_panel_reads_the_grounding_tool_as_before():
    """The panel is addressed by model key (grounded keys already select the grounded profile): the
    google_search tool leaves its choice unchanged, and by API id it selects the grounded profile."""
    from lib.panel.profiles import resolve

    models = load_models()
    rows = models[models["key"].isin(["gemini-2.5-flash", "gemini-2.5-flash-grounded"])]
    panel = ChatClient(Endpoint(base_url="http://127.0.0.1:1/v1", model_id="key"))
    for by in ("key", "api_model"):
        for r in build_requests(rows, experiment="rag", families=("top_k",), params=["top_5"], model_id=by):
            body = panel.body(r, 1)
            assert ("tools" in body) == r.grounded
            assert resolve(body["model"], body).id == r.model
            if by == "key":
                assert resolve(body["model"], {k: v for k, v in body.items() if k != "tools"}).id == r.model


def test_grounding_metadata_is_found_where_each_provider_puts_it():
    from lib.llm.client import grounding_of

    meta = {"webSearchQueries": ["physicists"], "groundingChunks": [{"web": {"uri": "https://x"}}]}
    assert grounding_of({"choices": [{"message": {"content": "[]"}, "grounding_metadata": meta}]}) == {"grounding_metadata": meta}
    assert grounding_of({"citations": ["https://a"], "choices": [{"message": {"content": "x"}}]}) == {"citations": ["https://a"]}
    assert grounding_of({"choices": [{"message": {"content": "x", "annotations": []}}]}) is None
    assert grounding_of(None) is None and grounding_of({"choices": []}) is None


def test_retry_after_parsing():
    assert parse_retry_after("3") == 3.0 and parse_retry_after("0.5") == 0.5 and parse_retry_after(None) is None
    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 < parse_retry_after(future) <= 31
    assert parse_retry_after("soon") is None


def test_endpoint_validation_names_the_key():
    with pytest.raises(ValueError, match="unknown endpoint key 'api_key'.*NAME of an environment variable"):
        Endpoint.from_dict({"base_url": "https://openrouter.ai/api/v1", "api_key": "sk-x"}, where="params/real.yaml")
    with pytest.raises(ValueError, match="params/real.yaml: endpoint.api_key_env must be an environment variable NAME"):
        Endpoint.from_dict({"base_url": "https://x/v1", "api_key_env": "sk-abc"}, where="params/real.yaml")
    with pytest.raises(ValueError, match="endpoint.headers must be a mapping without credentials"):
        Endpoint.from_dict({"base_url": "https://x/v1", "headers": {"Authorization": "Bearer k"}})
    with pytest.raises(ValueError, match="endpoint.max_tries must be an integer >= 1"):
        Endpoint.from_dict({"base_url": "https://x/v1", "max_tries": 0})
    ep = Endpoint.from_dict({"base_url": "http://127.0.0.1:1/v1", "model_id": "key"})
    assert ep.api_key() is None and ep.model_id == "key"
    for bad in ("not a url", "http://127.0.0.1:99999/v1", "http:///v1", "ftp://x/v1"):
        with pytest.raises(ValueError, match="endpoint.base_url must be an http"):
            Endpoint.from_dict({"base_url": bad})


def test_build_requests_and_dry_run(capsys):
    models = load_models()
    sub = models[models["key"].isin(["llama-3.1-8b", "gemini-2.5-pro", "mistral-medium-3"])]
    reqs = build_requests(sub, experiment="interventions", families=["biased_top_k"], replicates=62, seed=1)
    assert len(reqs) == 3 * 12 * 62
    gem = [r for r in reqs if r.model == "gemini-2.5-pro"]
    assert all(len(r.messages) == 1 for r in gem) and all(len(r.messages) == 2 for r in reqs if r not in gem)
    assert {r.temperature for r in reqs if r.model == "mistral-medium-3"} == {1.5}
    grid = build_requests(sub.iloc[:1], experiment="temperature", families=["top_k"], temperatures=[0.0, 2.0])
    assert sorted({r.temperature for r in grid}) == [0.0, 2.0] and len(grid) == 4
    from lib.scholar.models import prices

    table = dry_run(reqs, prices(models), output_tokens=1000)      # the table of ./run_all.sh --dry-run
    out = capsys.readouterr().out
    row = table.set_index("model").loc["mistral-medium-3"]
    # hand check: 12 prompts x 62 replicates; each message ceil(chars / 4) + 4 tokens; 1000 output tokens
    # each at $0.40 / $2 per Mtok; max_attempts 3 re-asks every request
    prompt = sum(math.ceil(len(m["content"]) / 4) + 4 for tp in prompts.task_params(["biased_top_k"])
                 for m in prompts.messages(tp.family, tp.param, system_message=True))
    assert (row["requests"], row["prompt_tokens"], row["completion_tokens"]) == (744, 62 * prompt, 744_000)
    assert row["cost_usd"] == pytest.approx(62 * prompt * 0.4 / 1e6 + 1.488)
    assert row["cost_usd_max"] == pytest.approx(3 * row["cost_usd"]) and row["provider"] == "openrouter"
    assert math.isnan(table.set_index("model").loc["gemini-2.5-pro", "cost_usd"])    # unknown, never 0
    assert "command line | provider openrouter" in out and "command line | provider gemini" in out
    assert "no known price" in out and "gemini-2.5-pro" in out
    host = dry_run(reqs, prices(models), base_url="https://openrouter.ai/api/v1", file=io.StringIO())
    assert set(host["provider"]) == {"openrouter.ai"}                # one endpoint takes every request


# ---- crash safety: SIGKILL the collector at 20 random points and resume -----------------------
WRITER = """
import sys
from lib.scholar import prompts
from lib.llm.client import Endpoint, Request
from lib.llm.collect import collect
from lib.scholar.labels import llmcaller_validate
url, root = sys.argv[1], sys.argv[2]
reqs = [Request(experiment="kill", model=m, api_model=m, task=tp.family, param=tp.param, temperature=0.5,
                replicate=r, messages=tuple(prompts.messages(tp.family, tp.param)), seed=3)
        for m in ("m-a", "m-b") for tp in prompts.task_params(["top_k", "epoch", "field", "seniority"]) for r in range(3)]
collect(reqs, Endpoint(base_url=url, max_concurrency=3, backoff_base_s=0.005), store_root=root, write_index=False,
        validate=llmcaller_validate)
"""


def _lines(root: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in root.glob("*/*.jsonl"))


def _content(root: Path) -> dict:
    return {(r["model"], r["task"], r["param"], r["replicate"], r["attempt"]):
            (r["content"], r["validation"]["is_valid"], r["request"]["seed"]) for r in RawStore(root).iter_records()}


def test_sigkill_at_20_random_points_then_resume_equals_an_uninterrupted_run(tmp_path):
    srv = FakeOpenAI(latency_s=0.004)
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    killed_root, clean_root = tmp_path / "killed", tmp_path / "clean"
    rng = random.Random(20261130)
    kills, torn = 0, 0
    try:
        while kills < 20:
            target = _lines(killed_root) + rng.randint(1, 2) if killed_root.exists() else rng.randint(0, 2)
            p = subprocess.Popen([sys.executable, str(script), srv.url, str(killed_root)], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            while p.poll() is None and (not killed_root.exists() or _lines(killed_root) < target):
                time.sleep(0.001)
            time.sleep(rng.uniform(0, 0.006))
            if p.poll() is not None:
                break                     # finished before the kill point: the workload is done
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills += 1
            if kills % 5 == 0:            # a torn write: half of a record left at a shard's end
                shard = sorted(killed_root.glob("*/*.jsonl"))[kills % 2 - 1]
                last = shard.read_bytes().splitlines(True)[-1]
                with open(shard, "ab") as f:
                    f.write(last[: len(last) // 2])
                torn += 1
        assert kills == 20, f"the workload finished after {kills} kills; it must absorb 20"
        done = subprocess.run([sys.executable, str(script), srv.url, str(killed_root)], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        subprocess.run([sys.executable, str(script), srv.url, str(clean_root)], env=env, check=True, timeout=60)
    finally:
        srv.close()
    killed, clean = _content(killed_root), _content(clean_root)
    assert killed == clean, "resumed store differs from the uninterrupted run"
    raw_lines = [ln for p in killed_root.glob("*/*.jsonl") for ln in p.read_bytes().splitlines(True)]
    assert len(raw_lines) == len(clean), "a record was duplicated or lost"
    assert all(ln.endswith(b"\n") and json.loads(ln) for ln in raw_lines)
    assert torn == 4


def test_endpoint_from_a_profile(tmp_path):
    from lib import config
    quick = config.load_profile("quick")
    ep = Endpoint.from_profile(quick.llm, base_url="http://127.0.0.1:9999/v1")
    assert ep.model_id == "key" and ep.api_key_env is None and ep.max_concurrency == quick.llm.max_concurrency
    assert ep.timeout_s == quick.llm.request_timeout_s and not ep.pin_provider
    with pytest.raises(ValueError, match="llm.base_url is null"):
        Endpoint.from_profile(quick.llm)
    # the template as shipped stops until its real inputs are given; declared mixed it loads
    mixed = tmp_path / "real.yaml"
    mixed.write_text((paths.PARAMS / "real.example.yaml").read_text().replace("synthetic: false", "synthetic: mixed"))
    real = config.load_profile(mixed)
    from lib.llm.providers import RoutedEndpoint

    routed = RoutedEndpoint.from_profile(real.llm)       # the template routes each paper to its providers
    ep = routed.providers["openrouter"]
    assert ep.pin_provider and ep.model_id == "api_model" and ep.api_key_env == "OPENROUTER_API_KEY"
    assert ep.requests_per_minute == 600 and ep.name == "openrouter" and ep.mode == "requests"
    assert not routed.providers["together"].pin_provider and routed.providers["openai"].mode == "batch"
    # the single-endpoint form still gives one endpoint for every model
    single = tmp_path / "single.yaml"
    single.write_text("name: s\nsynthetic: mixed\nseed: 1\nworld: {n_authors: 10}\n"
                      "llm: {base_url: 'https://openrouter.ai/api/v1', api_key_env: OPENROUTER_API_KEY}\n")
    one = config.load_profile(single)
    ep = Endpoint.from_profile(one.llm)
    assert ep.pin_provider and ep.model_id == "api_model" and ep.api_key_env == "OPENROUTER_API_KEY"


def test_collect_works_inside_a_running_event_loop(server, tmp_path):
    """Jupyter kernels run an event loop; collect() must still work there (helper thread)."""
    reqs = _requests(models=("m-a",), families=("top_k",), replicates=1)

    async def notebook_cell():
        return collect(reqs, _fast(server.url), store_root=tmp_path, validate=llmcaller_validate)
    summary = asyncio.run(notebook_cell())
    assert summary.requests == 2 and len(RawStore(tmp_path).records()) == summary.attempts_written > 0


def test_free_text_tasks_end_at_the_first_non_empty_answer(server, tmp_path):
    from lib.llm.kernel import any_answer

    reqs = [Request(experiment="free", model="m-a", api_model="m-a", task="authority", param=f"q{i}",
                    temperature=0.5, replicate=0, messages=({"role": "user", "content": f"Pick a paper {i}"},))
            for i in range(6)]
    collect(reqs, _fast(server.url), store_root=tmp_path, validate=any_answer)
    recs = RawStore(tmp_path).records()
    answered = recs[recs["content"].fillna("").str.strip().ne("")]
    assert set(answered["attempt"]) == {1}, "a non-empty free-text answer must not be re-asked"
    assert any_answer("  ", "authority")["is_valid"] is False


# ---- the endpoint dies mid-collection: the circuit breaker, then a resume -----------------------------

def _panel(authors_path: Path, port: int = 0) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "lib.panel", "serve", "--port", str(port), "--seed", "5",
                             "--authors", str(authors_path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, cwd=paths.ROOT, env={**os.environ, "PYTHONPATH": str(paths.ROOT)})
    return proc, proc.stdout.readline().strip()


def _collector(url: str, store: Path, **kw) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "lib.scholar.cli", "collect", "--experiment", "down", "--models", "llama-3.1-8b,gpt-oss-20b",
           "--families", "top_k,epoch", "--replicates", "6", "--seed", "3", "--base-url", url, "--model-id", "key",
           "--max-concurrency", "4", "--store", str(store)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=paths.ROOT,
                            env={**os.environ, "PYTHONPATH": str(paths.ROOT)}, **kw)


def test_panel_killed_mid_collection_stops_non_zero_then_resumes_with_nothing_lost_or_duplicated(tmp_path):
    from tests.panel.test_panel import make_authors

    apath = tmp_path / "authors.parquet"
    make_authors(300).to_parquet(apath)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    panel, url = _panel(apath)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    try:
        first = _collector(url, killed)
        while first.poll() is None and (not killed.exists() or _lines(killed) < 12):
            time.sleep(0.005)
        assert first.poll() is None, "the collection ended before the panel could be killed"
        panel.send_signal(signal.SIGKILL)
        panel.wait()
        t0 = time.monotonic()
        err = first.communicate(timeout=60)[1]
        assert first.returncode != 0, "a collection whose endpoint died must not exit 0"
        assert time.monotonic() - t0 < 20, "the circuit breaker must stop the run, not the retries running out"
        assert f"endpoint {url} looks down" in err and "requests done" in err and "run again to resume" in err, err
        stored_before = _lines(killed)
        panel, url2 = _panel(apath, port)
        assert url2 == url
        second = _collector(url, killed)
        assert second.wait(timeout=120) == 0, second.stderr.read()
        third = _collector(url, clean)
        assert third.wait(timeout=120) == 0, third.stderr.read()
    finally:
        if panel.poll() is None:
            panel.terminate()
            panel.wait(timeout=20)
    resumed, reference = _content(killed), _content(clean)
    assert resumed == reference, "the resumed store differs from an uninterrupted run (lost or extra attempts)"
    attempt_lines = [json.loads(ln) for p in killed.glob("*/*.jsonl") for ln in p.read_bytes().splitlines()]
    keys = [(r["model"], r["param"], r["replicate"], r["attempt"]) for r in attempt_lines if r["status"] != "infra_error"]
    assert len(keys) == len(set(keys)) == len(reference), "an attempt was duplicated or lost"
    assert stored_before < len(attempt_lines)
    print(f"\npanel killed after {stored_before} stored lines; resumed to {len(reference)} attempts, "
          f"{len(attempt_lines) - len(keys)} failed tries kept aside")


def test_tiny_timeout_trips_the_breaker_fast_and_stores_no_attempt(server, tmp_path):
    from lib.llm.kernel import EndpointDown

    reqs = _requests(families=("top_k", "epoch"), replicates=3)
    t0 = time.monotonic()
    with pytest.raises(EndpointDown, match=r"looks down: \d+ consecutive infrastructure failures \(last: timeout") as e:
        collect(reqs, _fast(server.url, timeout_s=0.0001, backoff_base_s=0.01, max_tries=5), store_root=tmp_path, validate=llmcaller_validate)
    assert time.monotonic() - t0 < 5
    assert f"0 of {len(reqs)} requests done" in str(e.value) and e.value.summary.failed == len(reqs)
    assert RawStore(tmp_path).records().empty, "a timeout is not a model's answer"
    # with the endpoint healthy again the same store resumes from scratch
    assert collect(reqs, _fast(server.url), store_root=tmp_path, validate=llmcaller_validate).failed == 0


def test_a_malformed_store_line_is_quarantined_and_collection_goes_on(server, tmp_path):
    reqs = _requests(models=("m-a",), families=("top_k",), replicates=1)
    shard = tmp_path / "t" / "m-a.jsonl"
    shard.parent.mkdir(parents=True)
    shard.write_text('["a", "list"]\n')
    summary = collect(reqs, _fast(server.url), store_root=tmp_path, validate=llmcaller_validate)
    assert summary.quarantined == 1 and "1 malformed store lines quarantined" in summary.line()
    assert summary.answered + summary.ended_invalid == len(reqs) and summary.failed == 0
    assert "expected a JSON object, got a JSON list" in (tmp_path / "quarantine.jsonl").read_text()


def test_every_attempt_records_its_endpoint_and_another_endpoint_never_resumes_it(tmp_path):
    """Issue 26: answers crossed endpoints. Each attempt stores provider, host, served model,
    fingerprint and HTTP status; a run against another endpoint refuses the stored attempts."""
    from lib.llm.kernel import EndpointMismatchError

    a, b = FakeOpenAI(), FakeOpenAI()
    try:
        reqs = _requests()[:4]
        collect(reqs, _fast(a.url), store_root=tmp_path, progress=False, validate=llmcaller_validate)
        recs = RawStore(tmp_path).records()
        assert (recs["endpoint_host"] == f"127.0.0.1:{a.port}").all() and (recs["http_status"] == 200).all()
        assert (recs["provider"] == "FakeProvider").all() and (recs["system_fingerprint"] == "fp_test").all()
        assert recs["served_model"].str.endswith("-served").all()
        idx = RawStore(tmp_path).index()
        assert (idx["endpoint_host"] == f"127.0.0.1:{a.port}").all()
        n_b = len(b.log)
        with pytest.raises(EndpointMismatchError, match=rf"127.0.0.1:{a.port}.*127.0.0.1:{b.port}"):
            collect(reqs, _fast(b.url), store_root=tmp_path, progress=False, validate=llmcaller_validate)
        assert len(b.log) == n_b            # nothing sent to the other endpoint
        collect(reqs, _fast(b.url), store_root=tmp_path / "b", progress=False, validate=llmcaller_validate)       # a store of its own
        assert (RawStore(tmp_path / "b").records()["endpoint_host"] == f"127.0.0.1:{b.port}").all()
    finally:
        a.close()
        b.close()


CORRUPTIONS = {"attempt_zero": lambda rec: json.dumps({**rec, "attempt": "zero"}).encode(),
               "json_list": lambda rec: json.dumps([rec]).encode(),
               "not_json": lambda rec: b"this is not JSON at all",
               "not_utf8": lambda rec: b'{"model": "\xff\xfe broken"}'}


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_a_corrupted_first_attempt_is_re_asked_of_the_panel_and_refused_for_a_real_endpoint(kind, server, tmp_path):
    """Issue 26: a corrupted line that was attempt 1 of a request whose attempt 2 is valid was
    quarantined, and the run went on with one attempt fewer (label counts changed). Now the embedded
    panel is asked again (its answers are a function of the request: the same attempt comes back),
    and a real endpoint's lost attempt stops the collection, naming it, before anything is sent."""
    from lib.llm.kernel import LostAttemptsError

    reqs = _requests(replicates=3)
    panel = _fast(server.url, model_id="key")            # addressed by model key: the embedded panel
    collect(reqs, panel, store_root=tmp_path / "p", progress=False, validate=llmcaller_validate)
    collect(reqs, _fast(server.url), store_root=tmp_path / "r", progress=False, validate=llmcaller_validate)       # a real endpoint's store
    before = RawStore(tmp_path / "p").records()
    two = before[before["attempt"] == 2].iloc[0]
    for root in ("p", "r"):
        shard = next((tmp_path / root).glob(f"*/{two['model']}.jsonl"))
        lines = shard.read_bytes().splitlines(keepends=True)
        i = next(i for i, ln in enumerate(lines) if (r := json.loads(ln))["attempt"] == 1 and all(
            r[k] == two[k] for k in ("task", "param", "replicate")))
        shard.write_bytes(b"".join(lines[:i] + [CORRUPTIONS[kind](json.loads(lines[i])) + b"\n"] + lines[i + 1:]))
    sent = len(server.log)
    summary = collect(reqs, panel, store_root=tmp_path / "p", progress=False, validate=llmcaller_validate)
    assert summary.reasked_lost == 1 and summary.attempts_written == 1 and summary.quarantined == 1
    after = RawStore(tmp_path / "p").records()
    assert len(after) == len(before)
    key = ["model", "task", "param", "replicate", "attempt"]
    merged = before.merge(after, on=key, suffixes=("", "_now"))
    assert len(merged) == len(before) and (merged["content"] == merged["content_now"]).all()
    assert len(server.log) == sent + 1
    with pytest.raises(LostAttemptsError, match=r"1 stored attempts of 1 requests are lost.*quarantine.jsonl"):
        collect(reqs, _fast(server.url), store_root=tmp_path / "r", progress=False, validate=llmcaller_validate)
    assert len(server.log) == sent + 1                     # nothing sent
    with pytest.raises(LostAttemptsError):                  # and it stays refused: the shard no longer has the line
        collect(reqs, _fast(server.url), store_root=tmp_path / "r", progress=False, validate=llmcaller_validate)
