"""The attribution runner against the panel over HTTP: requests, resume, re-asks, and recovery of
the panel's per-group truth by the scoring (issue 7 items 4–5)."""
from __future__ import annotations

import dataclasses
import json

import httpx
import numpy as np
import pandas as pd
import pytest

from lib.attribution import metrics, runs, twin
from lib.llm.client import Endpoint, Request
from lib.llm.collect import collect
from lib.llm.store import RawStore
from lib.panel import FaultConfig, Panel, serve_in_thread, truth

SEED = 4242
PER_GROUP = 40
GENERATIONS = 3
MODELS = ("gpt-5.1", "mistralai/Mixtral-8x7B-Instruct-v0.1")   # a strong and a weak model (paper §5.2)
CONDITIONS = (("direct", False), ("indirect", False))
GROUPS = {"M/White": "white_male", "F/White": "white_female", "M/Black": "black_male", "F/Black": "black_female"}


class Recorder(httpx.AsyncBaseTransport):
    """Counts the chat-completions bodies that reach the wire, then sends them on."""

    def __init__(self, bodies: list):
        self.bodies = bodies
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request):
        self.bodies.append(json.loads(await request.aread()))
        return await self.inner.handle_async_request(request)

    async def aclose(self):
        await self.inner.aclose()


def _quotes(per_group: int, seed: int) -> pd.DataFrame:
    """One twin quote from each of ``per_group`` authors per intersectional group."""
    u = twin.make_universe(2500, seed)
    q = twin.make_quotes(u, seed).drop_duplicates("author_clean")
    q = q.merge(u[["author_clean", "race", "gender", "log10_hits"]], on="author_clean")
    q = q[q["race"].isin(["black", "white"])]
    return q.groupby(["race", "gender"]).sample(per_group, random_state=seed).reset_index(drop=True)


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    root = tmp_path_factory.mktemp("raw")
    quotes = _quotes(PER_GROUP, SEED)
    panel = Panel(SEED, quotes=quotes)
    url, stop = serve_in_thread(panel)
    reqs = runs.plan([runs.RunSpec("intersectional", quotes)], MODELS, conditions=CONDITIONS, generations=GENERATIONS)
    bodies: list = []
    endpoint = Endpoint(base_url=url, max_concurrency=8)
    try:
        first = runs.run(reqs, endpoint, store_root=root, transport=Recorder(bodies))
        n_first = len(bodies)
        second = runs.run(reqs, endpoint, store_root=root, transport=Recorder(bodies))
    finally:
        stop()
    resp = runs.responses(reqs, store_root=root)
    scored = metrics.score_responses(resp, quotes, kind="intersectional")
    return {"quotes": quotes, "reqs": reqs, "bodies": bodies, "n_first": n_first, "first": first, "second": second,
            "resp": resp, "scored": scored, "truth": truth(SEED, panel=panel)}


def test_plan_identity_and_decoding():
    q = _quotes(2, 1)
    reqs = runs.plan([runs.RunSpec("intersectional", q)], ["gpt-5.1"], conditions=(("indirect_overt", False),),
                     generations=3)
    assert len(reqs) == len(q) * 3
    r = reqs[0]
    assert r.experiment == "attribench_indirect_overt" and r.model == r.api_model == "gpt-5.1"
    assert r.task.startswith("intersectional@") and r.param == q["quote_id"].iat[0]
    assert sorted({x.replicate for x in reqs}) == [0, 1, 2] and r.temperature == 0.7 and r.max_tokens == 500
    assert runs.parse_experiment("attribench_indirect_overt_evidence") == ("indirect_overt", True)
    with pytest.raises(ValueError, match="retrieval"):
        runs.plan([runs.RunSpec("intersectional", q)], ["gpt-5.1"], conditions=(("direct", True),))
    assert runs.runner_family("moonshotai/Kimi-K2.5") == "together" and runs.runner_family("gpt-5.1") == "providers"
    with pytest.raises(ValueError, match="family"):
        runs.plan([runs.RunSpec("intersectional", q)], ["gpt-5.1"], family="openai")
    # a different quote table is a different task: stored prompts never clash
    other = runs.plan([runs.RunSpec("intersectional", q.iloc[:4])], ["gpt-5.1"], conditions=(("direct", False),))
    assert other[0].task != r.task
    nb = pd.DataFrame({"quote_id": q["quote_id"], "rank": 1, "neighbour_quote_id": q["quote_id"],
                       "author": q["author_clean"], "quote": q["quote"], "similarity": 1.0, "is_self": True})
    with_ev = runs.RunSpec("intersectional", q, nb)
    assert with_ev.task != runs.RunSpec("intersectional", q).task
    assert with_ev.task != runs.RunSpec("intersectional", q, nb.assign(similarity=0.9)).task
    ev = runs.plan([with_ev], ["gpt-5.1"], conditions=(("direct", True),), generations=1)
    assert ev[0].experiment == "attribench_direct_evidence" and "Retrieved examples:" in ev[0].messages[1]["content"]


def test_wire_carries_sampling_settings(collected):
    bodies = collected["bodies"]
    assert collected["n_first"] == len(collected["reqs"]) == 2 * 4 * PER_GROUP * 2 * GENERATIONS
    assert all(b["temperature"] == 0.7 and b["top_p"] == 0.95 for b in bodies)
    assert {b["model"] for b in bodies} == set(MODELS)
    # each model gets its release runner's prompts and output cap (reference B.3)
    cap = {b["model"]: b["max_tokens"] for b in bodies}
    assert cap == {"gpt-5.1": 500, "mistralai/Mixtral-8x7B-Instruct-v0.1": 128}
    system = {b["model"]: b["messages"][0]["content"] for b in bodies}
    assert system["mistralai/Mixtral-8x7B-Instruct-v0.1"] == "You are a helpful assistant. Respond with at most one sentence."
    assert system["gpt-5.1"].startswith("You are a helpful assistant that provides concise, factual responses.")


def test_resume_sends_nothing(collected):
    assert collected["first"].attempts_written == len(collected["reqs"])
    assert collected["second"].attempts_written == 0
    assert collected["second"].already_complete == len(collected["reqs"])
    assert len(collected["bodies"]) == collected["n_first"]          # nothing reached the panel


def test_responses_table(collected):
    resp = collected["resp"]
    assert len(resp) == len(collected["reqs"]) and resp["status"].eq("ok").all()
    assert set(resp["generation"]) == set(range(1, GENERATIONS + 1))
    assert set(resp["prompt_type"]) == {"direct", "indirect"} and not resp["evidence"].any()
    assert resp["text"].str.len().gt(0).all() and resp["top_p"].eq(0.95).all()
    # generations are distinct samples: some quote gets different answers across them
    per_quote = resp.groupby(["model", "prompt_type", "quote_id"])["text"].nunique()
    assert per_quote.max() > 1


def _recovery(collected, metric: str, prompt_type: str, outcome: str) -> pd.DataFrame:
    t = metrics.rate_table(collected["scored"], metric, subgroups=True, prompt_type=prompt_type, evidence=False)
    rows = []
    for r in t.itertuples(index=False):
        exp = collected["truth"]["models"][r.model]["attribution"]["expected"][prompt_type]["no_evidence"][GROUPS[r.subgroup]]
        assert exp["n_quotes"] == PER_GROUP
        rows.append({"model": r.model, "subgroup": r.subgroup, "estimate": r.mean, "expected": exp[outcome],
                     "se": r.se, "inside95": r.ci_low <= exp[outcome] <= r.ci_high})
    return pd.DataFrame(rows)


def test_recovery_of_panel_truth(collected):
    """Per-group direct accuracy and indirect omission (S_omit) lie within the 95 % CIs of the
    panel's expected values: 16 checks, so at most 2 may miss by chance (P ≈ 0.04 under a
    correct pipeline) and none may be off by more than 3.3 se (99.9 %)."""
    acc = _recovery(collected, "accuracy", "direct", "correct")
    omit = _recovery(collected, "omission", "indirect", "none")
    both = pd.concat([acc.assign(metric="accuracy"), omit.assign(metric="omission")], ignore_index=True)
    assert len(both) == 2 * 2 * 4
    z = (both["estimate"] - both["expected"]).abs() / both["se"]
    assert (~both["inside95"]).sum() <= 2, both
    assert (z < 3.29).all(), both
    # the panel's disparity shows: White men are attributed more often than Black women (gpt-5.1)
    a = acc.set_index(["model", "subgroup"])["estimate"]
    assert a[("gpt-5.1", "M/White")] > a[("gpt-5.1", "F/Black")]


def test_failed_attempts_are_reasked(tmp_path):
    quotes = _quotes(3, 2)
    panel = Panel(SEED, quotes=quotes, faults=FaultConfig(rate_error_body=0.5))
    # an error body the provider returned is an attempt (a 5xx would be a failed try: docs/failures.md)
    url, stop = serve_in_thread(panel)
    reqs = runs.plan([runs.RunSpec("intersectional", quotes)], ["gpt-5.1"], conditions=(("direct", False),), generations=2)
    endpoint = Endpoint(base_url=url, max_tries=1, backoff_base_s=0.0)
    try:
        s = runs.run(reqs, endpoint, store_root=tmp_path, max_attempts=3)
    finally:
        stop()
    assert s.api_error_attempts > 0
    r = runs.responses(reqs, store_root=tmp_path, include_failures=True)
    assert len(r) == len(reqs)
    # a request was asked again only after an API error, and never more than 3 times
    assert r["attempts"].between(1, 3).all() and r["attempts"].gt(1).any()
    answered = r[r["status"] == "ok"]
    assert len(answered) > len(reqs) * 0.75
    # the summary's completeness covers every pass: answered, ended without an answer, still failed
    assert s.answered == int(r["status"].eq("ok").sum()) and s.failed == 0
    assert s.answered + s.ended_invalid + s.failed == len(reqs)
    assert np.array_equal(runs.responses(reqs, store_root=tmp_path)["request_id"], answered["request_id"])
    counts = runs.status_counts(reqs, store_root=tmp_path)
    assert counts["planned"].sum() == len(reqs) and counts["answered"].sum() == len(answered)


def test_select_targets_and_score_datasets():
    q = _quotes(5, 3).assign(google_hits=1000.0)
    assert len(runs.select_targets(q, "intersectional", 0, 1)) == len(q)
    # no match_idx (the released files): n random quotes per subgroup
    t = runs.select_targets(q, "intersectional", 2, 1)
    assert len(t) == 8 and t.groupby(["race", "gender"]).size().eq(2).all() and "subgroup" not in t
    with pytest.raises(ValueError, match="n_matchings"):
        runs.select_targets(q, "intersectional", -1, 1)
    resp = pd.DataFrame({"dataset": "intersectional", "quote_id": t["quote_id"], "model": "m", "prompt_type": "direct",
                         "evidence": False, "generation": 1, "text": t["author_clean"] + " wrote this."})
    scored = metrics.score_datasets(resp, {"intersectional": q})
    assert scored["accuracy"].eq(1.0).all() and scored["dataset"].eq("intersectional").all()
    with pytest.raises(ValueError, match="multirace"):
        metrics.score_datasets(resp.assign(dataset="multirace"), {"intersectional": q})


def test_top_p_is_sent_and_stored_as_the_request_carries_it(tmp_path):
    """The client sends ``top_p`` only when a request has one; run() fills in the paper's 0.95 for
    requests without it, and the stored request body is the body that went on the wire."""
    seen = []

    def handler(request):
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"id": "x", "model": "m", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Maya Angelou"}, "finish_reason": "stop"}]})

    base = Request(experiment="attribench_direct", model="m", api_model="m", task="intersectional@t", param="q1",
                   temperature=0.7, replicate=0, messages=({"role": "user", "content": "Who said this?"},))
    plain = dataclasses.replace(base, param="q2")
    set_half = dataclasses.replace(base, param="q3", top_p=0.5)
    endpoint = Endpoint(base_url="http://panel.invalid/v1", max_concurrency=2)
    collect([plain], endpoint, store_root=tmp_path / "plain", transport=httpx.MockTransport(handler))
    n_plain = len(seen)
    assert n_plain >= 1 and all("top_p" not in b for b in seen)
    runs.run([base, set_half], endpoint, store_root=tmp_path / "run", transport=httpx.MockTransport(handler))
    assert sorted(b["top_p"] for b in seen[n_plain:]) == [0.5, 0.95]
    stored = {rec["param"]: rec["request"] for rec in RawStore(tmp_path / "run").iter_records("attribench_direct")}
    assert stored["q1"]["top_p"] == 0.95 and stored["q3"]["top_p"] == 0.5
    resp = runs.responses([base, set_half], store_root=tmp_path / "run")
    assert dict(zip(resp["quote_id"], resp["top_p"])) == {"q1": 0.95, "q3": 0.5}


def test_paper_plan_gives_the_dagger_models_rag_on_the_subsets_only(monkeypatch):
    """The † models run the evidence conditions on the 300-matching subsets, the others on the full
    datasets; with a sample of matchings (n_matchings > 0) nobody is a † model (Table 6)."""
    def self_retrieval(q):
        return pd.DataFrame({"quote_id": q["quote_id"], "rank": 1, "neighbour_quote_id": q["quote_id"],
                             "author": q["author_clean"], "quote": q["quote"], "similarity": 1.0, "is_self": True})

    monkeypatch.setattr(runs, "build_specs", lambda datasets, n_matchings, seed: [
        runs.RunSpec(name, df, self_retrieval(df)) for name, df in datasets.items()])
    full, sub = _quotes(2, 1), _quotes(1, 2)
    source = type("Source", (), {"datasets": {"intersectional": full}, "subsets": {"a": sub, "b": sub}})()
    models = runs.paper_models()
    dag = models[0]
    p = runs.paper_plan(source, seed=1, n_matchings=0, generations=1, rag_subset_models=[dag])
    assert p.dagger == [dag] and p.models == models and len(p.quotes) == len(full)
    rag = {(r.model, r.param) for r in p.requests if r.experiment.endswith("_evidence")}
    assert {q for m, q in rag if m == dag} == set(sub["quote_id"])              # † model: subsets only
    assert {q for m, q in rag if m != dag} == set(full["quote_id"])             # the others: the full dataset
    n_cond = len(runs.CONDITIONS)
    assert sum(r.model == dag for r in p.requests) == len(full) * n_cond // 2 + len(sub) * n_cond // 2 * 2
    sampled = runs.paper_plan(source, seed=1, n_matchings=5, generations=1, rag_subset_models=[dag])
    assert sampled.dagger == [] and len(sampled.requests) == len(models) * len(full) * n_cond
    assert sampled.line().startswith(f"{len(sampled.requests):,} requests: {{'intersectional': {len(full)}}} quotes")


def test_score_store_streamed_equals_whole_table_scoring(tmp_path):
    """Scoring the store run file by run file (lib.attribution.runs.score_store: two datasets, every
    condition, a † part on a subset) gives the table whole-table scoring gives, row for row, under
    every quirk mode, and writes it to parquet without the answer texts."""
    from lib.attribution import quirks

    def self_retrieval(q):
        return pd.DataFrame({"quote_id": q["quote_id"], "rank": 1, "neighbour_quote_id": q["quote_id"],
                             "author": q["author_clean"], "quote": q["quote"], "similarity": 1.0, "is_self": True})

    quotes = _quotes(6, SEED)
    datasets = {"intersectional": quotes, "multirace": quotes}
    sub = quotes.groupby(["race", "gender"]).head(2)
    specs = [runs.RunSpec(k, df, self_retrieval(df)) for k, df in datasets.items()]
    rag = [c for c in runs.CONDITIONS if c[1]]
    main = runs.PlanRequests(specs, MODELS, generations=2, models_by_condition={c: MODELS[1:] for c in rag})
    dagger = runs.PlanRequests([runs.RunSpec(k, sub, self_retrieval(sub)) for k in datasets], MODELS[:1],
                               conditions=rag, generations=2)
    reqs = runs.PaperRequests([main, dagger])
    assert len(reqs) == len(list(reqs)) == len({r.key for r in reqs})
    assert sorted(r.key for _, c in reqs.chunks() for r in c) == sorted(r.key for r in reqs)
    url, stop = serve_in_thread(Panel(SEED, quotes=quotes))
    try:
        runs.run(reqs, Endpoint(base_url=url, max_concurrency=8), store_root=tmp_path)
    finally:
        stop()
    whole = runs.responses(list(reqs), store_root=tmp_path)
    expected = quirks.score_modes(whole, datasets).drop(columns="text")
    streamed = runs.score_store(reqs, datasets, tmp_path / "scored.parquet", store_root=tmp_path)
    assert len(streamed) == len(list(reqs)) and "text" not in streamed
    pd.testing.assert_frame_equal(streamed, expected)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "scored.parquet"), expected)
    faithful = metrics.score_datasets(whole, datasets).drop(columns="text")
    pd.testing.assert_frame_equal(streamed[faithful.columns], faithful)
    # each mode's table rebuilt from the outcome columns equals scoring the whole table in that mode
    for mode, kw in quirks.SCORING_MODES.items():
        alt = metrics.score_datasets(whole, datasets, **kw)
        got = quirks.with_mode(streamed, mode)
        for c in ("correct", "mentioned_any", "outcome", "accuracy", "omission", "miss", "wrong", "none"):
            assert (got[c].to_numpy() == alt[c].to_numpy()).all(), (mode, c)
