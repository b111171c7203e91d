"""The per-request strategy against an in-memory OpenAI-shaped transport (httpx.MockTransport).

The transport answers from the request body and logs every HTTP try, so what the store holds is
checked against what was sent: re-asks, a crash after N requests and its resume, retries,
timeouts numbered across runs, the circuit breaker and a refusal.
"""
import asyncio
import dataclasses
import json

import httpx
import pytest

from lib.llm import perrequest
from lib.llm.client import Endpoint, FatalAPIError, Request
from lib.llm.kernel import (CollectOptions, DuplicateRequestError, EndpointDown, IncompleteCollectionError,
                            any_answer)
from lib.llm.store import RawStore


class Crash(Exception):
    """The process dies here (not an HTTP failure: nothing in the client catches it)."""


class Canned:
    """Answers 'answer to <prompt> a<attempt>'; ``script`` gives the first tries' responses (or exceptions)."""

    def __init__(self, script=(), crash_after=None, delay_s=0.0):
        self.script, self.crash_after, self.delay_s = list(script), crash_after, delay_s
        self.tries: list[tuple[str, str, str]] = []          # (prompt, X-Attempt, X-Try) of every HTTP try

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        prompt = body["messages"][-1]["content"]
        if self.crash_after is not None and len(self.tries) == self.crash_after:
            raise Crash(f"killed after {self.crash_after} requests")
        self.tries.append((prompt, request.headers["X-Attempt"], request.headers["X-Try"]))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, Exception):
                raise step
            return step
        return httpx.Response(200, json={
            "model": body["model"], "usage": {"prompt_tokens": 3, "completion_tokens": 4},
            "choices": [{"message": {"content": f"answer to {prompt} a{request.headers['X-Attempt']}"},
                         "finish_reason": "stop"}]})

    def endpoint(self, **kw) -> Endpoint:
        return Endpoint(**{"base_url": "http://api.example.org/v1", "transport": httpx.MockTransport(self),
                           "max_tries": 3, "backoff_base_s": 0.001, "backoff_max_s": 0.002, "retry_after_cap_s": 0.01,
                           **kw})


def reqs(n=6) -> list[Request]:
    return [Request(experiment="pr", model=f"m-{i % 2}", api_model=f"m-{i % 2}", task="free", param=f"q{i}",
                    temperature=0.0, replicate=0, messages=({"role": "user", "content": f"q{i}"},)) for i in range(n)]


def second_attempt_valid(text, task):
    return {"is_valid": text.endswith("a2"), "message": "", "extracted_data": None}


def opts(root, **kw) -> CollectOptions:
    return CollectOptions(store_root=root, progress=False, write_index=False, **kw)


def stored(root) -> dict[tuple, str]:
    """(param, attempt) -> content of every stored attempt; the shards' line count must match (no duplicate)."""
    recs = list(RawStore(root).iter_records())
    lines = sum(1 for p in RawStore(root).shards() for _ in open(p))
    assert lines == len(recs)
    return {(r["param"], r["attempt"]): r["content"] for r in recs}


def test_an_invalid_answer_is_re_asked_and_every_attempt_is_stored(tmp_path):
    t = Canned()
    s = perrequest.collect(reqs(4), t.endpoint(), opts(tmp_path, validate=second_attempt_valid))
    assert (s.requests, s.attempts_written, s.valid_requests, s.answered) == (4, 8, 4, 4)
    assert stored(tmp_path) == {(f"q{i}", a): f"answer to q{i} a{a}" for i in range(4) for a in (1, 2)}
    # one attempt allowed: each request ends without a valid answer after one try, and a re-run sends nothing
    t2 = Canned()
    s = perrequest.collect(reqs(4), t2.endpoint(), opts(tmp_path / "one", validate=second_attempt_valid,
                                                       max_attempts=1))
    assert (s.attempts_written, s.ended_invalid, len(t2.tries)) == (4, 4, 4)
    s = perrequest.collect(reqs(4), t2.endpoint(), opts(tmp_path / "one", validate=second_attempt_valid,
                                                       max_attempts=1))
    assert s.already_complete == 4 and len(t2.tries) == 4


@pytest.mark.parametrize("n", [0, 3, 7])
def test_a_crash_after_n_requests_resumes_with_nothing_lost_or_duplicated(tmp_path, n):
    whole = Canned()
    perrequest.collect(reqs(), whole.endpoint(), opts(tmp_path / "whole", validate=second_attempt_valid))
    crashing = Canned(crash_after=n)
    with pytest.raises(Crash):
        perrequest.collect(reqs(), crashing.endpoint(max_concurrency=1),
                           opts(tmp_path / "x", validate=second_attempt_valid))
    assert len(stored(tmp_path / "x")) == n                          # every answered try is stored
    again = Canned()
    s = perrequest.collect(reqs(), again.endpoint(), opts(tmp_path / "x", validate=second_attempt_valid))
    assert s.attempts_written == 12 - n and len(again.tries) == 12 - n   # only what was not stored is sent
    assert stored(tmp_path / "x") == stored(tmp_path / "whole")
    assert set(crashing.tries).isdisjoint(again.tries)                # no attempt asked twice


def test_server_errors_and_rate_limits_are_retried_within_one_attempt(tmp_path):
    t = Canned(script=[httpx.Response(500, json={"error": "busy"}),
                       httpx.Response(429, headers={"Retry-After": "0"}, json={"error": "slow down"})])
    s = perrequest.collect(reqs(1), t.endpoint(), opts(tmp_path))
    (r,) = RawStore(tmp_path).iter_records()
    assert (r["status"], r["attempt"], r["tries"]) == ("ok", 1, 3)
    assert [x["kind"] for x in r["try_log"]] == ["server", "rate_limit"] and [x[2] for x in t.tries] == ["1", "2", "3"]
    assert s.tries == {"server": 1, "rate_limit": 1, "ok": 1}


def test_a_timeout_is_a_failed_try_and_the_next_run_numbers_its_tries_after_it(tmp_path):
    slow = Canned(delay_s=0.5)
    ep = slow.endpoint(timeout_s=0.02, max_tries=2)
    with pytest.raises(IncompleteCollectionError, match=r"1 of 1 requests \(100\.0%\) failed") as e:
        perrequest.collect(reqs(1), ep, opts(tmp_path))
    assert e.value.summary.failed_tries == 1 and e.value.summary.attempts_written == 0
    assert list(RawStore(tmp_path).iter_records()) == []                     # a failed try is not an attempt
    (failed,) = RawStore(tmp_path).iter_records(failed_tries=True)
    assert failed["status"] == "infra_error" and failed["error"]["kind"] == "timeout"
    fast = Canned()
    s = perrequest.collect(reqs(1), fast.endpoint(), opts(tmp_path))
    assert s.answered == 1 and fast.tries == [("q0", "1", "3")]                # tries 1-2 were spent before


def test_the_breaker_stops_a_collection_from_a_down_endpoint_and_stores_no_attempt(tmp_path):
    t = Canned(script=[httpx.ConnectError("refused")] * 10)
    with pytest.raises(EndpointDown, match=r"looks down: 2 consecutive.*run again to resume") as e:
        perrequest.collect(reqs(3), t.endpoint(max_concurrency=1, breaker_after=2), opts(tmp_path))
    # the streak of 2 trips it while the other requests' first tries are out: at most one try each, not 3 x 3
    assert e.value.summary.attempts_written == 0 and 2 <= len(t.tries) <= 3
    assert list(RawStore(tmp_path).iter_records()) == []


def test_a_refused_key_stops_before_anything_is_stored(tmp_path):
    t = Canned(script=[httpx.Response(401, json={"error": {"message": "bad key"}})])
    with pytest.raises(FatalAPIError, match=r"HTTP 401"):
        perrequest.collect(reqs(2), t.endpoint(max_concurrency=1), opts(tmp_path))
    assert list(RawStore(tmp_path).iter_records(failed_tries=True)) == []


def test_a_request_planned_twice_is_refused_before_it_is_paid_twice(tmp_path):
    """Before the fix both copies were sent at once and the second answer crashed the append-only store."""
    t = Canned(delay_s=0.01)
    r = reqs(1)[0]
    with pytest.raises(DuplicateRequestError, match=r"\('pr', 'm-0', 'free', 'q0', 0\.0, 0\) x2"):
        perrequest.collect([r, dataclasses.replace(r)], t.endpoint(), opts(tmp_path, validate=any_answer))
    assert t.tries == []
