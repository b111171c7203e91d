"""Pilot analysis: McFadden R², VIF, dominance analysis (hand-checked), weight fusion and recovery of known weights."""
import itertools

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from lib.authority import pilot, scoring
from lib.authority.corpus import synthetic_corpus
from lib.authority.prompts import PILOT_COMPONENTS, build_pilot_requests


def _data(n=3000, beta=(0.9, 0.5, 0.15), seed=0, corr=0.4):
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = corr * x1 + np.sqrt(1 - corr ** 2) * rng.normal(size=n)
    x3 = rng.normal(size=n) * 3 + 10                      # a different scale: z-scoring must not matter
    X = np.column_stack([x1, x2, x3])
    Z = (X - X.mean(0)) / X.std(0)
    y = (rng.random(n) < 1 / (1 + np.exp(-(Z @ np.array(beta) - 1.5)))).astype(float)
    return X, y


def _sm_r2(X, y, cols):
    """McFadden R² straight from statsmodels (an independent oracle)."""
    if not cols:
        return 0.0
    Z = (X[:, cols] - X[:, cols].mean(0)) / X[:, cols].std(0)
    return sm.Logit(y, sm.add_constant(Z)).fit(disp=0).prsquared


def test_mcfadden_matches_statsmodels_and_edge_cases():
    X, y = _data()
    fit = pilot.fit_logit(X, y, ["a", "b", "c"], method="mle")
    assert fit.mcfadden_r2 == pytest.approx(_sm_r2(X, y, [0, 1, 2]), rel=1e-6)
    assert pilot.mcfadden_r2(y, np.full_like(y, y.mean())) == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(pilot.mcfadden_r2(np.ones(5), np.full(5, 0.5)))
    with pytest.raises(ValueError, match="both 0 and 1"):
        pilot.fit_logit(X[:5], np.zeros(5), ["a", "b", "c"])
    flat = X.copy()
    flat[:, 1] = 1.0               # e.g. every candidate of a small pilot at an elite affiliation
    for method in ("mle", "gd"):   # no information: β = 0, the others as without it
        f = pilot.fit_logit(flat, y, ["a", "b", "c"], method=method)
        ref = pilot.fit_logit(X[:, [0, 2]], y, ["a", "c"], method=method)
        assert f.coef["b"] == 0 and f.coef["a"] == pytest.approx(ref.coef["a"], abs=1e-6)
        assert f.mcfadden_r2 == pytest.approx(ref.mcfadden_r2, abs=1e-6)


def test_gd_is_the_reference_optimiser_not_the_mle():
    X, y = _data(n=2000)
    gd = pilot.fit_logit(X, y, ["a", "b", "c"], method="gd")
    mle = pilot.fit_logit(X, y, ["a", "b", "c"], method="mle")
    assert not gd.converged and mle.converged                  # 5,000 steps of 0.01 do not converge here
    assert all(round(v, 6) == v for v in gd.coef.values())       # coefficients rounded to 6 dp
    assert gd.coef["a"] > gd.coef["b"] > gd.coef["c"]            # same order ...
    assert abs(gd.intercept) < abs(mle.intercept)                # ... but shrunk toward the zero start
    assert gd.mcfadden_r2 < mle.mcfadden_r2


def test_vif_by_hand():
    X, _ = _data(n=20000, corr=0.6)
    v = pilot.vif(X, ["a", "b", "c"])
    r = np.corrcoef(X[:, 0], X[:, 1])[0, 1]
    assert v["a"] == pytest.approx(1 / (1 - r ** 2), rel=0.01) and v["b"] == pytest.approx(1 / (1 - r ** 2), rel=0.01)
    assert v["c"] == pytest.approx(1.0, abs=0.01)


def test_dominance_two_predictors_by_hand():
    X, y = _data()
    X2 = X[:, :2]
    d = pilot.dominance_analysis(X2, y, ["a", "b"], method="mle", averaging="general")
    ra, rb, rab = _sm_r2(X2, y, [0]), _sm_r2(X2, y, [1]), _sm_r2(X2, y, [0, 1])
    assert d.dominance["a"] == pytest.approx((ra + (rab - rb)) / 2, rel=1e-6)
    assert d.dominance["b"] == pytest.approx((rb + (rab - ra)) / 2, rel=1e-6)
    faithful = pilot.dominance_analysis(X2, y, ["a", "b"], method="mle", averaging="subsets")
    # with 2 predictors both averagings agree; the reference reports D_j to 6 dp
    assert faithful.dominance == {k: round(v, 6) for k, v in d.dominance.items()}
    assert d.complete.loc["a", "b"] and not d.complete.loc["b", "a"]


def test_dominance_three_predictors_general_vs_faithful():
    X, y = _data(beta=(0.9, 0.6, 0.5), corr=0.8)   # overlapping predictors: contributions depend on the subset
    names = ["a", "b", "c"]
    r2 = {frozenset(names[i] for i in S): _sm_r2(X, y, list(S)) for k in range(4) for S in itertools.combinations(range(3), k)}
    gen = pilot.dominance_analysis(X, y, names, method="mle", averaging="general")
    faith = pilot.dominance_analysis(X, y, names, method="mle", averaging="subsets")
    # general dominance shares sum to the full model's McFadden R²
    assert sum(gen.dominance.values()) == pytest.approx(r2[frozenset(names)], rel=1e-6)
    for j in names:
        others = [n for n in names if n != j]
        c0 = r2[frozenset({j})]
        c1 = [r2[frozenset({o, j})] - r2[frozenset({o})] for o in others]
        c2 = r2[frozenset(names)] - r2[frozenset(others)]
        assert gen.dominance[j] == pytest.approx(np.mean([c0, np.mean(c1), c2]), rel=1e-6)
        assert faith.dominance[j] == round(float(np.mean([c0, *c1, c2])), 6)   # 4 subsets weighted equally, 6 dp
    assert max(abs(faith.dominance[j] - gen.dominance[j]) for j in names) > 1e-4
    assert len(gen.subset_r2) == 8 and gen.conditional.shape == (3, 3)


def test_fuse_weights_by_hand():
    w = pilot.fuse_weights({"a": 0.6, "b": -0.3, "c": 0.1}, {"a": 0.01, "b": 0.02, "c": 0.01})
    assert w == {"a": 0.425, "b": 0.4, "c": 0.175}
    assert pilot.fuse_weights({"a": 0, "b": 0}, {"a": 0, "b": 0}) == {"a": 0.5, "b": 0.5}
    with pytest.raises(ValueError, match="differ"):
        pilot.fuse_weights({"a": 1}, {"b": 1})


def test_fuse_weights_reproduces_published_weights_from_fixture():
    """Fixture, not the paper's Table 16: the text we have does not print the per-predictor β and dominance values.

    Coefficient shares and dominance shares are built to differ (±δ, Σδ = 0) but to average to the
    published fused weights (paper Table 1 / spec A.7); the fusion must return exactly those weights.
    """
    published = {"venue": 0.3531, "median_h": 0.2918, "max_h": 0.1868, "citations": 0.1372, "affiliation": 0.0311}
    delta = {"venue": 0.05, "median_h": -0.03, "max_h": 0.02, "citations": -0.03, "affiliation": -0.01}
    beta = {k: 0.8 * (published[k] + delta[k]) for k in published}        # any common scale
    dom = {k: 0.033 * (published[k] - delta[k]) for k in published}
    assert pilot.fuse_weights(beta, dom) == published


@pytest.fixture(scope="module")
def simulated_pilot():
    """Pilot choices simulated from a softmax choice model with known weights (test-only; no simulator in lib).

    The full pilot design (5 topics × 10 queries × 10 × 10 prompts) answered by three simulated
    models, as in the paper (15,000 runs). Each card's utility is its content relevance plus
    1.5 · Σ_d w_d z_d of the metadata it shows; the model picks by softmax (Gumbel argmax).
    Adjacent true weights differ by a factor of about two. With closer weights (0.40, 0.26,
    0.17, 0.11, 0.06) the full order was recovered for only about half of the simulation seeds
    we tried: in the reference design the source card keeps the worn metadata next to its own
    content (spec A.6 ⚠), so the chance of picking the fixed card is not logistic-linear in the
    worn metadata, and the fit is biased differently per dimension.
    """
    corpus = synthetic_corpus(7)
    req = build_pilot_requests(corpus, n_queries=10, seed=7)
    sub = corpus.subset(list(req["topic"].unique()))
    comps = scoring.raw_components(sub.papers, sub.authors).set_index("paper_id")[list(PILOT_COMPONENTS)]
    z = ((comps - comps.mean()) / comps.std(ddof=0)).to_numpy()
    index = {p: i for i, p in enumerate(comps.index)}
    true_w = {"venue": 0.48, "median_h": 0.26, "max_h": 0.14, "citations": 0.08, "affiliation": 0.04}
    w = np.array([true_w[k] for k in PILOT_COMPONENTS])
    rng = np.random.default_rng(3)
    relevance = 0.3 * rng.normal(size=len(index))
    cand = np.array([[index[p] for p in ids] for ids in req["candidate_ids"]])          # content of each card
    meta = cand.copy()
    rows = np.arange(len(req))
    meta[rows, req["fixed_pos"] - 1] = cand[rows, req["source_pos"] - 1]                 # the fixed card wears s
    utility = relevance[cand] + 1.5 * (z[meta] @ w)
    choices = []
    for rep in range(3):
        g = rng.gumbel(size=utility.shape)                                               # softmax choice = Gumbel argmax
        choices.append(pd.DataFrame({"request_id": req["request_id"], "model": f"sim{rep}",
                                     "choice": np.argmax(utility + g, axis=1) + 1}))
    return req, pd.concat(choices, ignore_index=True), true_w


@pytest.mark.slow
def test_pilot_recovers_true_weight_order(simulated_pilot):
    req, choices, true_w = simulated_pilot
    rows = pilot.pilot_rows(req, choices)
    assert len(rows) == len(choices) and rows["y"].mean() > 0.05
    truth = sorted(true_w, key=true_w.get, reverse=True)
    for averaging in ("general", "subsets"):
        res = pilot.analyse_pilot(rows, method="mle", averaging=averaging)
        fused = res.weights
        assert sorted(fused, key=fused.get, reverse=True) == truth
        assert sum(fused.values()) == pytest.approx(1.0, abs=1e-3)
        assert list(res.table1()["dimension"]) == truth
        t16 = res.table16()
        assert set(t16.columns) >= {"beta_std", "vif", "dominance_r2", "fused_weight", "mcfadden_r2"}
        assert (t16["vif"] < 5).all() and res.fit.mcfadden_r2 > 0
    assert res.descriptives["baseline_rec_rate"] > res.descriptives["swap_rec_rate"] * 0.5


@pytest.mark.slow
def test_author_score_ablation_and_stability(simulated_pilot):
    req, choices, _ = simulated_pilot
    rows = pilot.pilot_rows(req, choices)
    t = pilot.author_score_ablation(rows, method="mle", averaging="general").set_index("predictor")
    assert np.isnan(t.loc["author_score", "beta_5"]) and not np.isnan(t.loc["author_score", "beta_6"])
    assert t["mcfadden_r2_6"].iloc[0] >= t["mcfadden_r2_5"].iloc[0] - 1e-9
    assert t["verdict"].iloc[0] in {"KEEP_5_COMPONENT", "ADD_AS_ABLATION", "RERUN_REQUIRED"}
    assert t.loc["max_h", "vif_6"] > t.loc["max_h", "vif_5"]          # author_score is a step function of max_h
    st = pilot.weight_rank_stability(rows, by="model")
    assert len(st) == 3 and (st["rank_venue"] == 1).all()


def test_pilot_rows_validates_and_drops_unparsed(simulated_pilot):
    req, choices, _ = simulated_pilot
    ch = choices.head(10).copy()
    ch.loc[0, "choice"] = None
    assert len(pilot.pilot_rows(req, ch)) == 9
    with pytest.raises(ValueError, match="lacks column 'model'"):
        pilot.pilot_rows(req, ch.drop(columns="model"))

