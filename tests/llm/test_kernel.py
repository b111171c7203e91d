"""The collection kernel: options, the checks made before sending, the completeness check, spend, run_sync.

Stores are built by hand (a few records each) so every count below is checked against what the
records say; the spend test sends through an in-memory transport that counts what goes out.
"""
import asyncio
import dataclasses
import json
import re

import httpx
import pandas as pd
import pytest

from lib.config import BatchSettings
from lib.llm import kernel
from lib.llm.client import Endpoint, Request
from lib.llm.collect import collect
from lib.llm.kernel import (BudgetExceeded, CollectionSummary, CollectOptions, DuplicateRequestError,
                            EndpointMismatchError, IncompleteCollectionError, LostAttemptsError, any_answer)
from lib.llm.store import RawStore

REAL = Endpoint(base_url="http://api.example.org/v1")
PANEL = Endpoint(base_url="http://127.0.0.1:9/v1", model_id="key")


def req(model="m-a", param="p0", replicate=0, content="question", max_tokens=None) -> Request:
    return Request(experiment="k", model=model, api_model=model, task="free", param=param, temperature=0.0,
                   replicate=replicate, messages=({"role": "user", "content": content},), max_tokens=max_tokens)


def rec(r: Request, attempt: int, status="ok", valid=True, stop=False, endpoint_host="api.example.org", sha=None):
    return {"experiment": r.experiment, "model": r.model, "task": r.task, "param": r.param,
            "temperature": r.temperature, "replicate": r.replicate, "attempt": attempt, "status": status,
            "validation": {"is_valid": valid}, "stop": stop, "tries": 1, "endpoint_host": endpoint_host,
            "prompt_sha256": sha or r.prompt_sha256,
            "error": None if status == "ok" else {"kind": "timeout" if status == "infra_error" else "client"}}


def store_with(root, *records) -> RawStore:
    with RawStore(root) as s:
        for x in records:
            s.append(x)
    s = RawStore(root)
    s.open()
    return s


# ---- options ------------------------------------------------------------------------------------
def test_options_are_frozen_with_the_documented_defaults():
    o = CollectOptions()
    assert (o.store_root, o.max_attempts, o.validate, o.prices, o.completion_tokens, o.progress, o.write_index,
            o.batch, o.transport) == (None, 3, any_answer, None, 1000, True, True, None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.max_attempts = 5
    # the expected completion: the request's max_tokens cap, else the option; a function is used as given
    assert o.expected_completion()(req(max_tokens=64)) == 64 and o.expected_completion()(req()) == 1000
    assert CollectOptions(completion_tokens=lambda r: 7).expected_completion()(req(max_tokens=64)) == 7
    # the batch settings: the options' own, else the endpoint's mapping
    ep = dataclasses.replace(REAL, batch={"min_requests": 40})
    assert o.batch_settings(ep).min_requests == 40
    assert CollectOptions(batch=BatchSettings(min_requests=2)).batch_settings(ep).min_requests == 2


@pytest.mark.parametrize("field,value,expected", [
    ("max_attempts", 0, "an integer >= 1"), ("max_attempts", "3", "an integer >= 1"),
    ("max_attempts", True, "an integer >= 1"), ("completion_tokens", -1, "an integer >= 0"),
    ("completion_tokens", 2.5, "an integer >= 0"), ("validate", "any_answer", "a function")])
def test_a_bad_option_is_refused_naming_the_field(field, value, expected):
    """Before the fix max_attempts=0 'completed' a collection without sending anything."""
    got = re.escape(repr(value))
    with pytest.raises(ValueError, match=rf"CollectOptions\.{field}: expected {expected}.*, got {got}$"):
        CollectOptions(**{field: value})


def test_validators_by_name():
    assert kernel.validator("any_answer") is any_answer
    assert any_answer("  ", "t")["is_valid"] is False and any_answer("x", "t")["is_valid"] is True
    with pytest.raises(KeyError, match=r"validator 'nope' is not registered; expected one of \[.*'any_answer'"):
        kernel.validator("nope")

    def only_yes(text, task):
        return {"is_valid": text == "yes", "message": "", "extracted_data": None}
    try:
        assert kernel.register_validator(only_yes) is only_yes and kernel.validator("only_yes") is only_yes
    finally:
        kernel.VALIDATORS.pop("only_yes", None)


# ---- checks before anything is sent --------------------------------------------------------------
def test_a_request_planned_twice_is_refused_naming_it():
    a, b = req(param="p0"), req(param="p1")
    kernel.check_unique([a, b, req(param="p0", replicate=1)])          # another replicate is another request
    with pytest.raises(DuplicateRequestError, match=r"1 requests are planned more than once.*"
                                                    r"\('k', 'm-a', 'free', 'p1', 0\.0, 0\) x3.*nothing was sent"):
        kernel.check_unique([a, b, b, b])


def test_a_changed_prompt_or_another_endpoint_is_refused(tmp_path):
    r = req()
    s = store_with(tmp_path, rec(r, 1, valid=False, sha="0" * 64))
    with pytest.raises(ValueError, match=r"attempt 1 of \('k', 'm-a'.*different prompt.*new experiment name"):
        kernel.check_prompts([r], s)
    s = store_with(tmp_path / "b", rec(r, 1))
    kernel.check_prompts([r], s)
    kernel.check_endpoint([r], s, REAL)
    with pytest.raises(EndpointMismatchError, match=r"answered by endpoint 'api.example.org', and this run sends to "
                                                    r"'other.example.org'"):
        kernel.check_endpoint([r], s, Endpoint(base_url="https://other.example.org/v1"))


def test_lost_attempts_are_re_asked_of_the_panel_and_refused_for_a_real_endpoint(tmp_path):
    r, ok = req(), req(param="p1")
    s = store_with(tmp_path, rec(r, 2, valid=False), rec(r, 3, valid=False), rec(ok, 1))   # attempt 1 of r is lost
    assert s.holes(r) == [1] and kernel.check_lost([ok], s, REAL) == 0
    assert kernel.check_lost([r, ok], s, PANEL) == 1
    with pytest.raises(LostAttemptsError, match=r"1 stored attempts of 1 requests are lost \(e\.g\. attempt 1 of "
                                                r"\('k', 'm-a', 'free', 'p0'.*nothing was sent"):
        kernel.check_lost([r, ok], s, REAL)


# ---- the completeness check ----------------------------------------------------------------------
def test_completeness_counts_and_coverage_by_hand(tmp_path):
    answered, invalid, stopped, open_, never = (req(param=p) for p in ("a", "i", "s", "o", "n"))
    other = req(model="m-b")
    s = store_with(tmp_path,
                   rec(answered, 1, valid=False), rec(answered, 2),                  # valid at attempt 2
                   rec(invalid, 1, valid=False), rec(invalid, 2, valid=False),       # all 2 attempts used
                   rec(stopped, 1, status="client_error", valid=False, stop=True),   # a non-retryable stop
                   rec(open_, 1, status="infra_error", valid=False))                 # a failed try only
    summary = CollectionSummary(requests=6)
    kernel.count_completeness(summary, s, [answered, invalid, stopped, open_, never, other], max_attempts=2)
    assert (summary.answered, summary.ended_invalid, summary.failed) == (1, 2, 3)
    # answered = an HTTP answer with choices (status ok), valid or not: 'answered' and 'invalid' of 5 for m-a
    assert summary.coverage == {("k", "m-a"): [5, 2], ("k", "m-b"): [1, 0]}
    cov = json.loads((tmp_path / "coverage.json").read_text())["k"]
    assert cov["m-a"]["share"] == 0.4 and cov["m-a"]["partial"] and cov["m-b"]["share"] == 0.0
    assert summary.partial() == {("k", "m-a"): 0.4, ("k", "m-b"): 0.0}
    # the same store with 3 attempts allowed: 'invalid' may be asked again, so it is open
    kernel.count_completeness(summary, s, [invalid], max_attempts=3)
    assert (summary.answered, summary.ended_invalid, summary.failed) == (0, 0, 1)


def test_check_complete_raises_above_the_allowed_failed_fraction():
    s = CollectionSummary(requests=5, answered=3, failed=2)
    kernel.check_complete(s, dataclasses.replace(REAL, max_failed_fraction=0.4))       # 2 <= 0.4 x 5
    with pytest.raises(IncompleteCollectionError, match=r"2 of 5 requests \(40\.0%\) failed at the infrastructure, "
                                                        r"above the allowed 10\.0%.*run again to resume") as e:
        kernel.check_complete(s, dataclasses.replace(REAL, max_failed_fraction=0.1))
    assert e.value.summary is s
    kernel.check_complete(CollectionSummary(), REAL)                                    # nothing planned


def test_summary_line_says_what_was_done_and_which_models_are_partial():
    s = CollectionSummary(requests=20, already_complete=2, attempts_written=25, valid_requests=17, answered=18,
                          ended_invalid=1, failed=1, quarantined=2, coverage={("x", "m-a"): [10, 8],
                                                                              ("x", "m-b"): [10, 9]})
    assert s.partial() == {("x", "m-a"): 0.8}                       # 9/10 is exactly the threshold: not partial
    line = s.line()
    assert line.startswith("20 requests (2 already complete), 25 attempts written, 17 valid")
    assert ("completeness: 20 planned, 18 answered, 1 ended without a valid answer, 1 failed (retryable); "
            "2 malformed store lines quarantined; PARTIAL (answered under 90%): m-a 80%") in line


# ---- spend -----------------------------------------------------------------------------------------
def test_the_ledger_prices_by_hand_and_the_panel_is_free(tmp_path):
    prices = pd.DataFrame({"model": ["m-a"], "price_in": [2.0], "price_out": [8.0]})
    r = req(content="x" * 40)                                   # ceil(40 / 4) + 4 = 14 prompt tokens
    with RawStore(tmp_path) as s:
        real = kernel.make_ledger([r], s, REAL, CollectOptions(prices=prices, completion_tokens=100))
        assert real.expected(r) == pytest.approx((14 * 2.0 + 100 * 8.0) / 1e6)
        assert kernel.make_ledger([r], s, PANEL, CollectOptions(prices=prices)).expected(r) == 0.0
        over = dataclasses.replace(REAL, prices={"m-a": {"input": 1.0, "output": 1.0}})   # the profile's llm.prices
        assert kernel.make_ledger([r], s, over, CollectOptions(prices=prices, completion_tokens=100)).expected(r) == \
            pytest.approx(114 / 1e6)


def test_a_budget_stop_stores_what_was_sent_and_a_re_run_pays_nothing_twice(tmp_path):
    sent = []

    def handler(request):
        body = json.loads(request.content)
        sent.append(body["messages"][0]["content"])
        return httpx.Response(200, json={"model": body["model"], "choices": [{"message": {"content": "ok"}}],
                                         "usage": {"prompt_tokens": 10, "completion_tokens": 90}})
    reqs = [req(param=f"p{i}", content="x" * 24) for i in range(5)]   # 6 + 4 = 10 prompt tokens each
    # $1 per 1000 tokens: 100 tokens per attempt cost $0.10 expected and settled; $0.25 buys two
    ep = Endpoint(base_url="http://api.example.org/v1", max_concurrency=1, transport=httpx.MockTransport(handler),
                  prices={"m-a": {"input": 1000.0, "output": 1000.0}})
    opts = CollectOptions(store_root=tmp_path, completion_tokens=90, progress=False, max_attempts=1)
    with pytest.raises(BudgetExceeded, match=r"budget_usd = \$0\.2500.*about \$0\.1000.*2 of 5 requests done") as e:
        collect(reqs, dataclasses.replace(ep, budget_usd=0.25), opts)
    assert len(sent) == 2 and e.value.summary.cost_usd == pytest.approx(0.2)
    with RawStore(tmp_path) as s:
        assert s.spent_usd == pytest.approx(0.2) and sum(len(s.attempts(r)) for r in reqs) == 2
    summary = collect(reqs, dataclasses.replace(ep, budget_usd=0.55), opts)     # 0.2 spent + 3 x 0.1
    assert summary.already_complete == 2 and summary.attempts_written == 3 and summary.cost_usd == pytest.approx(0.3)
    assert sorted(sent) == sorted(r.messages[0]["content"] for r in reqs) and len(sent) == 5   # each sent once


# ---- run_sync ---------------------------------------------------------------------------------------
async def _value(x):
    await asyncio.sleep(0)
    return x


async def _fails():
    raise LookupError("inner")


def test_run_sync_runs_outside_and_inside_a_running_loop():
    assert kernel.run_sync(_value(3)) == 3

    async def notebook_cell():                  # a Jupyter kernel already runs a loop
        return kernel.run_sync(_value(4))
    assert asyncio.run(notebook_cell()) == 4

    async def failing_cell():
        return kernel.run_sync(_fails())
    with pytest.raises(LookupError, match="inner"):
        asyncio.run(failing_cell())
