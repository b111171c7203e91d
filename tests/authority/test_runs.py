"""Collection of the authority experiments through the shared client and raw store, against the synthetic panel.

Recovery on the panel (the panel's truth held side by side with the pipeline's estimates, which
only tests may do):

* main experiment: each model's flip and boost rate lies within the familywise 95 % interval
  (Bonferroni over 9 models × 2 manipulations) of the rate the panel's choice model implies
  for the same pairs (:func:`lib.panel.authority.flip_probability`);
* pilot: the pilot's largest fused weight is the panel's largest true weight (venue), and every
  standardised coefficient lies within its familywise 95 % interval of the population
  coefficient that the panel's exact choice probabilities imply for the same prompts;
* pilot weights: the fused weights (Table 1) fitted to the panel's exact choice probabilities
  come out in the panel's true order (venue > median h > max h > citations > affiliation) under
  the pilot design whose cards share one content; the panel perceives each shown dimension
  linearly in units of its spread over the pilot topics, the scale of the z-scored regression.

In the reference's pilot design the source paper's own card competes with the fixed card, so
its relevance (a fixed property of the paper that lends the metadata) is confounded with the
predictors; with the pilot's few hundred papers that confound reorders the close weights (max h
and median h) even in the population fit, so for that design only the top weight is asserted.
Sizes: 10 topics × 1 query in the main experiment (810 requests), 5 pilot topics × 1 query
(1,500 pilot requests; at this size the top weight is recovered in ~98 % of simulated seeds,
the top two in ~72 %, so only the top one is asserted on the sample). The parser is the
corrected one so that the panel's stray numbers do not blur the comparison (the faithful
parser is exercised by the notebook and the parsing tests).
"""
import hashlib

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.stats import norm

from lib.authority import models as ab_models
from lib.authority import pilot, runs
from lib.authority.conditions import build_candidate_sets, build_conditions
from lib.authority.corpus import synthetic_corpus
from lib.authority.prompts import build_main_requests, build_pilot_requests
from lib.authority.responses import label_responses
from lib.authority.scoring import raw_components
from lib.authority.topics import PILOT_TOPICS
from lib.llm.client import Endpoint, RejectedError
from lib.llm.store import RawStore
from lib.panel import FaultConfig, Panel, all_profiles, serve_in_thread
from lib.panel import authority as panel_authority
from lib.panel import prompts as panel_prompts

SEED = 20261130
MAIN_TOPICS = ["Knowledge Distillation", "Attention Mechanisms", "Federated Learning", "Image Generation",
               "Sentiment Analysis", "Prompt Engineering", "Machine Translation", "Object Detection",
               "Recommender Systems", "Explainable AI"]


@pytest.fixture(scope="module")
def endpoint():
    base_url, stop = serve_in_thread(Panel(SEED))
    yield Endpoint(base_url=base_url, max_concurrency=8, model_id="key", max_tries=2, backoff_base_s=0.0)
    stop()


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(SEED)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return tmp_path_factory.mktemp("raw")


@pytest.fixture(scope="module")
def main(corpus, endpoint, store):
    sub = corpus.subset(MAIN_TOPICS)
    conds = build_conditions(sub, seed=SEED)
    requests = build_main_requests(sub, n_queries=1, seed=SEED, condition_set=conds)
    raw, summary = runs.collect_table(requests, ab_models.MAIN_MODELS, endpoint, experiment=runs.EXPERIMENTS["main"],
                                      store_root=store)
    resp = label_responses(raw, requests, sub, conds, parse_mode="corrected")
    return dict(corpus=sub, conds=conds, requests=requests, raw=raw, summary=summary, resp=resp, store=store)


@pytest.fixture(scope="module")
def pilot_data(corpus, endpoint, store):
    requests = build_pilot_requests(corpus, n_queries=1, seed=SEED)
    raw, summary = runs.collect_table(requests, ab_models.PILOT_MODELS, endpoint, experiment=runs.EXPERIMENTS["pilot"],
                                      store_root=store)
    rows = pilot.pilot_rows(requests, runs.parse_answers(raw, parse_mode="corrected"))
    return dict(requests=requests, raw=raw, summary=summary, rows=rows)


def test_models_are_the_papers_and_the_panels():
    ids = [m.id for m in ab_models.MAIN_MODELS]
    assert len(ids) == 9 and ab_models.ABLATION_MODEL.id == "gpt-4o-mini" and ids[-1] == "gpt-4o-mini"
    assert [m.id for m in ab_models.PILOT_MODELS] == ["llama3.1:8b", "mistral:7b", "gemma2:9b"]
    params, profiles = panel_authority.model_params(SEED), all_profiles()   # what truth() exports
    for m in ab_models.MAIN_MODELS:
        assert params[m.id]["cohort"] == m.cohort and params[m.id]["in_paper"], m.id
        assert profiles[m.id].temperature == m.temperature, m.id


def test_to_requests_identity_and_errors(main):
    reqs = runs.to_requests(main["requests"].head(2), ["gpt-5.4"], experiment="authority_main", replicates=2)
    assert len(reqs) == 4 and {r.replicate for r in reqs} == {0, 1}
    r = reqs[0]
    assert (r.task, r.model, r.api_model, r.temperature) == ("authority", "gpt-5.4", "gpt-5.4", 1.0)
    assert r.param == f"{main['requests']['request_id'].iloc[0]}@{main['requests']['prompt_sha256'].iloc[0][:12]}"
    assert r.messages == tuple(main["requests"]["messages"].iloc[0]) and r.seed is None
    routed = runs.to_requests(main["requests"].head(1), ["gpt-5.4"], experiment="authority_main",
                              api_ids={"gpt-5.4": "openai/gpt-5.4"})
    assert (routed[0].model, routed[0].api_model) == ("gpt-5.4", "openai/gpt-5.4")
    with pytest.raises(ValueError, match="unknown authority model 'llama2'"):
        runs.to_requests(main["requests"].head(1), ["llama2"], experiment="authority_main")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['messages'\]"):
        runs.to_requests(main["requests"].drop(columns=["messages"]), ["gpt-5.4"], experiment="authority_main")


def test_main_collection_is_complete_and_labelled(main):
    raw, req = main["raw"], main["requests"]
    assert main["summary"].sent == len(req) * 9 and main["summary"].already_answered == 0
    assert len(raw) == len(req) * 9
    assert raw.groupby("model").size().to_dict() == {m.id: len(req) for m in ab_models.MAIN_MODELS}
    assert raw["response"].str.len().gt(0).all() and raw["latency_s"].gt(0).all()
    resp = main["resp"]
    assert resp["parsed"].mean() > 0.97          # the panel omits the number in ~1 % of open-model answers
    # the store holds exactly one answered attempt per request and model, under experiment authority_main
    recs = RawStore(main["store"]).records("authority_main")
    assert len(recs) == len(raw) and (recs["attempt"] == 1).all() and (recs["status"] == "ok").all()
    assert set(recs["task"]) == {"authority"} and recs.groupby(["model", "param"]).size().max() == 1


def _expected_rates(main) -> pd.DataFrame:
    """Per model and manipulation: the panel's expected change rate over the observed pairs and its SE."""
    texts = dict(zip(main["requests"]["request_id"], (m[0]["content"] for m in main["requests"]["messages"])))
    tasks = {rid: panel_prompts.parse(t) for rid, t in texts.items()}
    key = ["query_id", "instruction"]
    rows = []
    resp = main["resp"][main["resp"]["parsed"]]
    req = main["requests"].set_index(["query_id", "instruction", "condition"])["request_id"]
    for model, g in resp.groupby("model"):
        orig = g[g["condition"] == "original"].set_index(key)["chosen_paper_id"]
        for man in ("flipped", "boosted"):
            other = g[g["condition"] == man].set_index(key)["chosen_paper_id"]
            both = orig.index.intersection(other.index)
            p = np.array([panel_authority.flip_probability(SEED, model, tasks[req[(q, i, "original")]],
                                                           tasks[req[(q, i, man)]]) for q, i in both])
            observed = float((orig[both] != other[both]).mean())
            rows.append(dict(model=model, manipulation=man, n=len(both), observed=observed, expected=p.mean(),
                             se=float(np.sqrt((p * (1 - p)).sum()) / len(both))))
    return pd.DataFrame(rows)


def test_flip_and_boost_rates_recover_the_panel(main):
    t = _expected_rates(main)
    assert len(t) == 18 and (t["n"] >= 28).all()
    z = norm.ppf(1 - 0.05 / (2 * len(t)))          # familywise 95 % over the 18 comparisons
    t["z"] = (t["observed"] - t["expected"]) / t["se"]
    bad = t[t["z"].abs() > z]
    assert bad.empty, f"rates outside the familywise 95 % interval of the panel's expectation:\n{bad}"


def test_resume_sends_nothing(main, endpoint, store):
    before = {p: p.stat().st_size for p in RawStore(store).shards()}
    raw, summary = runs.collect_table(main["requests"], ab_models.MAIN_MODELS, endpoint,
                                      experiment=runs.EXPERIMENTS["main"], store_root=store)
    assert summary.sent == 0 and summary.already_answered == len(main["requests"]) * 9 and summary.passes == []
    assert {p: p.stat().st_size for p in RawStore(store).shards()} == before
    pd.testing.assert_frame_equal(raw, main["raw"])


def test_failed_attempts_are_retried_on_the_next_run(main, tmp_path):
    panel = Panel(SEED, faults=FaultConfig(rate_500=0.5))
    base_url, stop = serve_in_thread(panel)
    try:
        ep = Endpoint(base_url=base_url, max_concurrency=4, model_id="key", max_tries=1,
                      max_failed_fraction=1.0)   # partial on purpose: the second run finishes it
        table = main["requests"].head(20)
        raw1, s1 = runs.collect_table(table, ["gpt-5.4"], ep, experiment="authority_main", store_root=tmp_path,
                                      max_attempts=3)
        failed = 20 - len(raw1)
        assert s1.sent == 20 and 0 < failed < 20
        raw2, s2 = runs.collect_table(table, ["gpt-5.4"], ep, experiment="authority_main", store_root=tmp_path,
                                      max_attempts=3)
        assert s2.sent == failed and s2.already_answered == 20 - failed and len(raw2) > len(raw1)
        recs = RawStore(tmp_path).records("authority_main")
        assert recs.groupby("param").size().max() <= 3 and (recs["status"] == "ok").sum() == len(raw2)
    finally:
        stop()


def test_pilot_collection_and_weight_recovery(pilot_data):
    rows, req = pilot_data["rows"], pilot_data["requests"]
    assert len(req) == 5 * 1 * 100 and pilot_data["summary"].sent == 3 * len(req)
    assert len(rows) > 0.97 * 3 * len(req)
    result = pilot.analyse_pilot(rows, method="mle")
    true_w = panel_authority.model_params(SEED)["llama3.1:8b"]["weights"]   # truth()["models"][m]["authority"]
    assert max(true_w, key=true_w.get) == "venue"

    # population coefficients: the same z-scored logit fitted to the panel's exact choice probabilities
    probs = {}
    for r in req.itertuples():
        task = panel_prompts.parse(r.messages[0]["content"])
        for m in ab_models.PILOT_MODELS:
            probs[(m.id, r.request_id)] = panel_authority.choice_probabilities(SEED, m.id, task)[r.fixed_pos - 1]
    p = np.array([probs[(m, rid)] for m, rid in zip(rows["model"], rows["request_id"])])
    Z = sm.add_constant(pilot.zscore(rows[list(pilot.PILOT_PREDICTORS)].to_numpy(float))[0])
    pop = sm.GLM(np.r_[np.ones(len(p)), np.zeros(len(p))], np.vstack([Z, Z]), family=sm.families.Binomial(),
                 freq_weights=np.r_[p, 1 - p]).fit().params[1:]
    # the share of runs that keep the fixed paper matches the panel's mean choice probability
    assert abs(rows["y"].mean() - p.mean()) < 2.58 * np.sqrt((p * (1 - p)).sum()) / len(p)
    fit = sm.Logit(rows["y"].to_numpy(float), Z).fit(disp=0)
    z = norm.ppf(1 - 0.05 / (2 * len(pop)))
    dev = (fit.params[1:] - pop) / fit.bse[1:]
    assert np.all(np.abs(dev) < z), dict(zip(pilot.PILOT_PREDICTORS, np.round(dev, 2)))
    assert np.allclose(fit.params[1:], [result.fit.coef[k] for k in pilot.PILOT_PREDICTORS])
    # the estimator's population order on these five queries (reference design: each prompt is a
    # main-experiment prompt to the panel, so topic effects enter): venue among the top two; the
    # true order is recovered at the paper's pilot size (test_pilot_weights_recover_the_panels_true_order)
    order = [pilot.PILOT_PREDICTORS[i] for i in np.argsort(-np.abs(pop))]
    assert "venue" in order[:2], order


@pytest.mark.slow
def test_pilot_weights_recover_the_panels_true_order(corpus):
    """Fused weights of the exact choice probabilities (fractional y: the estimator's probability
    limit on these prompts) at the paper's pilot size (5 topics × 10 queries × 100 prompts × 3
    models) rank the five dimensions as the panel's true weights do, and lie within 0.055 of
    them (measured, subsets averaging: .365 / .344 / .149 / .122 / .021 against .353 / .292 /
    .187 / .137 / .031). The finite design's deviation moves with the corpus: dominance analysis
    splits the variance median_h and max_h share, and the 10 % of papers whose author lookup
    failed (both 0; Appendix D's tier D) raise their correlation (0.61 → 0.64), so median_h takes
    more of it (.351 / .270 / .215 / .123 / .042 before the corpus followed Appendix D)."""
    req = build_pilot_requests(corpus, n_queries=10, seed=SEED, shared_content=True)
    rows = []
    for r in req.itertuples():
        task = panel_prompts.parse(r.messages[0]["content"])
        assert len({c.title for c in task.detail["cards"]}) == 1      # one content, ten metadata sets
        base = {k: getattr(r, k) for k in pilot.PILOT_PREDICTORS}
        rows += [dict(base, y=panel_authority.choice_probabilities(SEED, m.id, task)[r.fixed_pos - 1])
                 for m in ab_models.PILOT_MODELS]
    rows = pd.DataFrame(rows)
    true_w = panel_authority.model_params(SEED)["llama3.1:8b"]["weights"]
    true_order = sorted(true_w, key=true_w.get, reverse=True)
    assert true_order == ["venue", "median_h", "max_h", "citations", "affiliation"]
    for averaging in ("subsets", "general"):
        t1 = pilot.analyse_pilot(rows, method="mle", averaging=averaging).table1()
        assert t1["dimension"].tolist() == true_order, (averaging, t1.to_dict("records"))
        got = t1.set_index("dimension")["weight"]
        assert all(abs(got[d] - true_w[d]) < 0.055 for d in true_w), (averaging, got.to_dict())


def test_panel_spreads_are_the_pilot_samples(corpus):
    """The panel's spread units are the standard deviations of the raw components over the
    pilot topics' candidates (what the pilot regression z-scores at the paper's size), within 2 %."""
    sub = corpus.subset(list(PILOT_TOPICS))
    comps = raw_components(sub.papers, sub.authors)
    cand = build_candidate_sets(sub, seed=SEED)
    sd = comps.set_index("paper_id").loc[cand["paper_id"]].std(ddof=0)
    for d, spread in panel_authority.SPREAD.items():
        assert abs(sd[d] / spread - 1) < 0.02, (d, sd[d], spread)


def test_pilot_resume_sends_nothing(pilot_data, endpoint, store):
    _, summary = runs.collect_table(pilot_data["requests"], ab_models.PILOT_MODELS, endpoint,
                                    experiment=runs.EXPERIMENTS["pilot"], store_root=store)
    assert summary.sent == 0 and summary.already_answered == 3 * len(pilot_data["requests"])


def test_a_changed_prompt_is_a_new_request(main, store):
    table = main["requests"].head(3).copy()
    table["messages"] = [[{"role": "user", "content": m[0]["content"] + "\n"}] for m in table["messages"]]
    table["prompt_sha256"] = [hashlib.sha256(m[0]["content"].encode()).hexdigest() for m in table["messages"]]
    # same request ids, other prompts: none of the stored answers belongs to them
    assert runs.read_answers(table, ab_models.MAIN_MODELS, experiment="authority_main", store_root=store).empty
    old = runs.read_answers(main["requests"].head(3), ab_models.MAIN_MODELS, experiment="authority_main", store_root=store)
    assert len(old) == 27 and set(old["request_id"]) == set(table["request_id"])


def test_a_model_the_endpoint_does_not_serve_stops_the_run_and_stores_nothing(main, endpoint, tmp_path):
    """Issue 26: an HTTP 404 for the model is no answer: the provider is stopped at once with the
    status and a hint, nothing is stored (never counted as the model's answers), and a re-run asks again."""
    unknown = ab_models.AuthorityModel("no-such-model:7b", "open", 0.8)        # the panel answers HTTP 404
    for _ in range(2):
        with pytest.raises(RejectedError, match=r"HTTP 404.*model not served"):
            runs.collect_table(main["requests"].head(2), [unknown], endpoint, experiment="authority_main",
                               store_root=tmp_path)
        assert RawStore(tmp_path).records("authority_main").empty
