"""Spend while sending: a profile's dry run by hand, the budget stop and its resume, profile prices, progress."""
import json
import math

import httpx
import pytest

from lib.endpoints import IN_PROCESS_URL, PanelTransport
from lib.llm.client import Endpoint
from lib.llm.collect import collect
from lib.llm.kernel import BudgetExceeded, any_answer
from lib.llm.store import RawStore
from tests.llm.test_cost import PRICES, _req


def test_profile_prices_and_budget_are_validated(load_profile_text):
    from lib import config

    prof = load_profile_text("llm: {budget_usd: 2.5, prices: {gpt-5.4: {input: 2.5, output: 15}}}\n")
    assert prof.llm.budget_usd == 2.5 and prof.llm.prices["gpt-5.4"].output == 15.0
    ep = Endpoint.from_profile(prof.llm, base_url="http://127.0.0.1:9/v1")
    assert ep.budget_usd == 2.5 and ep.prices == {"gpt-5.4": {"input": 2.5, "output": 15.0}}
    for bad, key in (("llm: {budget_usd: 0}", "llm.budget_usd"), ("llm: {prices: {m: {input: 1}}}", "llm.prices.m.output"),
                     ("llm: {prices: {m: {input: x, output: 1}}}", "llm.prices.m.input")):
        with pytest.raises(config.ProfileError, match="profile.yaml: key '" + key.replace(".", r"\.")):
            load_profile_text(bad + "\n")


def test_model_tables_give_prices_with_sources():
    from lib.attribution.models import prices as at_prices
    from lib.authority.models import prices as ab_prices
    from lib.scholar.models import prices as lsb_prices

    ab = ab_prices().set_index("model")
    assert ab.loc["llama3.1:8b", "price_in"] == 0.0 and ab.loc["gpt-4o-mini", "price_out"] == 0.60
    assert ab["price_source"].str.len().min() > 10
    at = at_prices().set_index("model")
    assert at.loc["gpt-5.1", "price_in"] == 1.25 and math.isnan(at.loc["zai-org/GLM-5", "price_in"])
    lsb = lsb_prices().set_index("model")
    assert lsb.loc["mistral-medium-3", "price_out"] == 2.0 and math.isnan(lsb.loc["gemini-2.5-pro", "price_in"])


def test_dry_run_of_a_tiny_profile_against_a_hand_count(isolated_outputs, tmp_path, capsys):
    from lib import dryrun, pipeline
    from lib.scholar import prompts
    from lib.scholar.models import load_models

    prof_path = tmp_path / "tiny.yaml"
    prof_path.write_text("name: tiny\nsynthetic: mixed\nseed: 1\nworld: {n_authors: 10}\n"
                         "llm: {base_url: 'https://openrouter.ai/api/v1', api_key_env: OPENROUTER_API_KEY, max_attempts: 2,"
                         " prices: {gemini-2.5-pro: {input: 1.25, output: 10}}}\n"
                         "notebooks:\n  01_calibration: {temperatures: [0.0], families: [top_k], params_per_family: 1,"
                         " replicates: 2, gemini_replicates: 1}\n")
    assert pipeline.main(["--profile", str(prof_path), "--only", "01", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "nothing is sent" in out and "01_calibration | provider openrouter.ai" in out
    rows = json.loads((isolated_outputs / "dry_run.json").read_text())
    by = {r["model"]: r for r in rows["rows"]}
    # hand count: top_k's first parameter (top_5), one temperature, 2 replicates (1 for Gemini)
    assert len(by) == 24 and rows["total"]["requests"] == 20 * 2 + 4 * 1
    msgs = prompts.messages("top_k", "top_5", system_message=True)
    prompt = sum(math.ceil(len(m["content"]) / 4) + 4 for m in msgs)
    completion = 8 * 5 + 20                                       # 5 names of ~8 tokens + 20 framing
    llama = by["llama-3.1-8b"]
    assert (llama["requests"], llama["prompt_tokens"], llama["completion_tokens"]) == (2, 2 * prompt, 2 * completion)
    assert llama["cost_usd"] == pytest.approx(2 * (prompt * 0.03 + completion * 0.05) / 1e6)
    assert llama["cost_usd_max"] == pytest.approx(2 * llama["cost_usd"])          # max_attempts: 2
    gem = by["gemini-2.5-pro"]                                    # no system message; priced by the profile
    user_only = math.ceil(len(prompts.messages("top_k", "top_5", system_message=False)[0]["content"]) / 4) + 4
    assert gem["prompt_tokens"] == user_only and gem["cost_usd"] == pytest.approx((user_only * 1.25 + 60 * 10) / 1e6)
    assert by["gemini-2.5-flash"]["cost_usd"] is None and rows["total"]["cost_usd"] is None     # unpriced
    assert (isolated_outputs / "dry_run.csv").is_file()
    assert not (isolated_outputs / "raw").exists()                # nothing was collected
    assert len(load_models()) == 24


class _Counting(httpx.AsyncBaseTransport):
    """The in-process panel, counting the chat completions that reach it."""

    def __init__(self, inner):
        self.inner, self.sent, self.paths = inner, [], []

    async def handle_async_request(self, request):
        self.paths.append(request.url.path)
        if request.url.path.endswith("chat/completions"):
            self.sent.append(json.loads(await request.aread())["messages"][-1]["content"])
        return await self.inner.handle_async_request(request)


def _panel_endpoint(transport, budget):
    return Endpoint(base_url=IN_PROCESS_URL, model_id="key", max_concurrency=2, transport=transport,
                    budget_usd=budget, prices={"gpt-4o-mini": {"input": 1000.0, "output": 1000.0}})


def test_budget_stops_cleanly_and_a_larger_budget_resumes_without_resending(tmp_path, capsys):
    from lib.panel import Panel

    reqs = [_req("gpt-4o-mini", i, content=f"question {i:02d} " + "x" * 30) for i in range(20)]
    per_attempt = (28 + 50) * 1000.0 / 1e6          # expected: 28 prompt tokens + 50 completion at $1000/Mtok
    transport = _Counting(PanelTransport(Panel(1)))
    with pytest.raises(BudgetExceeded) as err:
        collect(reqs, _panel_endpoint(transport, 6 * per_attempt), store_root=tmp_path, max_attempts=1,
                validate=any_answer, completion_tokens=50)
    msg = str(err.value)
    assert "of 20 requests done" in msg and "raise llm.budget_usd" in msg and "nothing is paid twice" in msg
    assert "panel $" in msg                                        # spent per provider
    first = len(transport.sent)
    assert 1 <= first < 20
    with RawStore(tmp_path) as store:                              # every sent attempt is stored, with its cost
        assert sum(len(store.attempts(r)) for r in reqs) == first
        assert store.spent_usd <= 6 * per_attempt and store.spent_usd > 0
        spent = store.spent_usd
    # the same budget again: the store's spend counts, so nothing more is sent
    with pytest.raises(BudgetExceeded):
        collect(reqs, _panel_endpoint(transport, 6 * per_attempt), store_root=tmp_path, max_attempts=1,
                validate=any_answer, completion_tokens=50)
    assert len(transport.sent) == first
    # a larger budget: the rest is sent, nothing twice, nothing lost
    summary = collect(reqs, _panel_endpoint(transport, 100.0), store_root=tmp_path, max_attempts=1,
                      validate=any_answer, completion_tokens=50)
    assert summary.answered == 20 and summary.already_complete == first
    assert len(transport.sent) == 20 and len(set(transport.sent)) == 20
    recs = list(RawStore(tmp_path).iter_records("spend"))
    assert len(recs) == 20 and all(r["cost"]["provider"] == "panel" and r["cost"]["usd"] > 0 for r in recs)
    # the cost is the response's usage at the price: e.g. the first record
    u = recs[0]["usage"]
    assert recs[0]["cost"]["usd"] == pytest.approx((u["prompt_tokens"] + u["completion_tokens"]) * 1000.0 / 1e6)
    with RawStore(tmp_path) as store:
        assert store.spent_usd == pytest.approx(sum(r["cost"]["usd"] for r in recs)) and store.spent_usd > spent
    err_text = capsys.readouterr().err
    assert "panel" in err_text and "/20" in err_text and "$" in err_text      # the progress bar


def test_budget_refuses_unpriced_models_before_sending(tmp_path):
    from lib.panel import Panel

    transport = _Counting(PanelTransport(Panel(1)))
    ep = Endpoint(base_url="http://api.example.org/v1", transport=transport, budget_usd=1.0)
    with pytest.raises(ValueError, match=r"models \['m2'\] have no known price.*llm\.prices"):
        collect([_req("m2", 0)], ep, store_root=tmp_path, validate=any_answer, prices=PRICES, progress=False)
    assert transport.sent == []


def test_batch_round_is_checked_whole_before_it_is_submitted(tmp_path):
    """Batch path: a round whose estimate would pass the budget is not submitted; a larger budget runs it,
    and its stored attempts carry their cost."""
    from lib.panel import Panel

    reqs = [_req("gpt-4o-mini", i) for i in range(6)]
    transport = _Counting(PanelTransport(Panel(1)))
    ep = Endpoint(base_url=IN_PROCESS_URL, model_id="key", mode="batch", transport=transport,
                  batch={"poll_initial_s": 0.005, "poll_max_s": 0.02},
                  prices={"gpt-4o-mini": {"input": 1000.0, "output": 1000.0}}, budget_usd=5 * (28 + 50) * 1e-3)
    with pytest.raises(BudgetExceeded, match=r"next batch round of 6 requests is estimated at \$0\.4680"):
        collect(reqs, ep, store_root=tmp_path, max_attempts=1, validate=any_answer, completion_tokens=50)
    assert transport.paths == [] and not list(RawStore(tmp_path).iter_records())    # nothing uploaded or sent
    from dataclasses import replace

    collect(reqs, replace(ep, budget_usd=10.0), store_root=tmp_path, max_attempts=1, validate=any_answer,
            completion_tokens=50)
    recs = list(RawStore(tmp_path).iter_records("spend"))
    assert len(recs) == 6 and all(r["cost"]["usd"] > 0 for r in recs)
    with RawStore(tmp_path) as store:
        assert store.spent_usd == pytest.approx(sum(r["cost"]["usd"] for r in recs))
