"""lib.stats: hand-computed intervals and tests, agreement with statsmodels/sklearn, aggregation."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from lib import stats


def test_wilson_matches_statsmodels_and_hand_value():
    from statsmodels.stats.proportion import proportion_confint

    for s, n in [(7, 20), (0, 10), (10, 10), (1, 3), (55, 62)]:
        lo, hi = stats.wilson_ci(s, n)
        ref = proportion_confint(s, n, method="wilson")
        assert lo == pytest.approx(ref[0], abs=1e-12) and hi == pytest.approx(ref[1], abs=1e-12)
    # by hand: p = .5, n = 4, z = 1.959964: centre .5, half = z*sqrt(.0625 + z²/64)/(1 + z²/4)
    z = st.norm.ppf(0.975)
    half = z * math.sqrt(0.25 / 4 + z * z / 64) / (1 + z * z / 4)
    assert stats.wilson_ci(2, 4) == pytest.approx((0.5 - half, 0.5 + half))


def test_wilson_edges():
    assert all(math.isnan(v) for v in stats.wilson_ci(0, 0))
    assert stats.wilson_ci(0, 10)[0] == 0.0
    with pytest.raises(ValueError, match="successes"):
        stats.wilson_ci(11, 10)


def test_t_ci_hand_computed():
    mean, lo, hi = stats.t_ci([1, 2, 3, 4])
    half = st.t.ppf(0.975, 3) * np.std([1, 2, 3, 4], ddof=1) / 2
    assert mean == 2.5 and lo == pytest.approx(2.5 - half) and hi == pytest.approx(2.5 + half)
    assert lo == pytest.approx(0.44574, abs=1e-4)
    m, lo, hi = stats.t_ci([0.3])
    assert m == 0.3 and math.isnan(lo) and math.isnan(hi)
    assert all(math.isnan(v) for v in stats.t_ci([]))
    assert stats.t_ci([1, np.nan, 1]) == (1.0, 1.0, 1.0)


def test_mcnemar_exact_and_asymptotic():
    # exact: 2 * P[Binom(13, .5) <= 3] = 2 * (1 + 13 + 78 + 286) / 2^13
    assert stats.mcnemar(3, 10) == pytest.approx(2 * 378 / 8192)
    assert stats.mcnemar(10, 3) == stats.mcnemar(3, 10)
    assert stats.mcnemar(0, 0) == 1.0
    assert stats.mcnemar(5, 5) == 1.0
    assert stats.mcnemar(3, 10, exact=False) == pytest.approx(st.chi2.sf(36 / 13, 1))
    with pytest.raises(ValueError):
        stats.mcnemar(-1, 2)


def test_cohens_kappa_hand_and_sklearn():
    assert stats.cohens_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)
    assert stats.cohens_kappa(["a", "b"], ["a", "b"]) == 1.0
    assert stats.cohens_kappa(["a", "a"], ["a", "a"]) == 1.0
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 3, 200), rng.integers(0, 3, 200)
    assert stats.cohens_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    with pytest.raises(ValueError, match="labels_b has 1"):
        stats.cohens_kappa([1, 2], [1])
    assert math.isnan(stats.cohens_kappa([], []))


def test_aggregate_per_group_wilson_for_binary_t_otherwise():
    df = pd.DataFrame({
        "model_size": ["S"] * 4 + ["M"] * 3 + ["L"],
        "metric_name": ["validity_pct"] * 4 + ["factuality_author"] * 3 + ["factuality_author"],
        "metric_value": [1, 1, 0, 1, 0.2, 0.4, np.nan, 0.9],
    })
    out = stats.aggregate_per_group(df, ["model_size", "metric_name"], binary={"validity_pct"}).set_index("model_size")
    assert (out.loc["S", "ci_low"], out.loc["S", "ci_high"]) == pytest.approx(stats.wilson_ci(3, 4))
    assert out.loc["S", "n"] == 4 and out.loc["S", "sum"] == 3
    m, lo, hi = stats.t_ci([0.2, 0.4])
    assert out.loc["M", "n"] == 2 and out.loc["M", "mean"] == pytest.approx(0.3)
    assert (out.loc["M", "ci_low"], out.loc["M", "ci_high"]) == pytest.approx((lo, hi))
    assert math.isnan(out.loc["L", "ci_low"])  # one value: no t interval
    with pytest.raises(KeyError, match="model_class"):
        stats.aggregate_per_group(df, ["model_class"], binary=())


def test_aggregate_by_groups_stacks_group_kinds():
    df = pd.DataFrame({"model_access": ["open", "open", "proprietary"], "model_size": ["S", "M", "S"],
                       "metric_name": ["refusal_pct"] * 3, "metric_value": [1, 0, 1]})
    out = stats.aggregate_by_groups(df, ["model_access", "model_size"], binary={"refusal_pct"})
    assert out[["group_kind", "group"]].values.tolist() == [["model_access", "open"], ["model_access", "proprietary"],
                                                           ["model_size", "M"], ["model_size", "S"]]
    s = out.set_index(["group_kind", "group"]).loc[("model_size", "S")]
    assert s["n"] == 2 and s["mean"] == 1.0 and (s["ci_low"], s["ci_high"]) == pytest.approx(stats.wilson_ci(2, 2))


def test_bootstrap_over_prompts_clusters_and_is_seeded():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"prompt": np.repeat(np.arange(30), 5), "y": rng.normal(np.repeat(rng.normal(0, 1, 30), 5), 0.1)})
    est, lo, hi = stats.bootstrap_over_prompts(df, lambda d: d["y"].mean(), prompt_col="prompt", n_boot=150)
    assert lo < est < hi
    assert stats.bootstrap_over_prompts(df, lambda d: d["y"].mean(), prompt_col="prompt", n_boot=150) == (est, lo, hi)
    # resampling rows would understate the spread: the prompt-level interval is wider
    per_row = df.assign(prompt=np.arange(len(df)))
    _, lo2, hi2 = stats.bootstrap_over_prompts(per_row, lambda d: d["y"].mean(), prompt_col="prompt", n_boot=150)
    assert hi - lo > 1.5 * (hi2 - lo2)
    one = df[df["prompt"] == 0]
    e, l1, h1 = stats.bootstrap_over_prompts(one, lambda d: d["y"].mean(), prompt_col="prompt", n_boot=20)
    assert l1 == pytest.approx(e) and h1 == pytest.approx(e)


def test_newcombe_diff_matches_newcombe_1998_example():
    # Newcombe (1998), Table II, 56/70 vs 48/80, method 10: 0.0524 to 0.3339
    d, lo, hi = stats.newcombe_diff(56, 70, 48, 80)
    assert d == pytest.approx(0.2) and lo == pytest.approx(0.0524, abs=1e-4) and hi == pytest.approx(0.3339, abs=1e-4)
    assert all(np.isnan(stats.newcombe_diff(1, 0, 1, 2)))


def test_welch_diff_agrees_with_scipy_welch_test():
    from scipy import stats as st

    a, b = [1.0, 2.0, 4.0, 7.0, 3.0], [0.5, 0.7, 1.1, 0.2]
    d, lo, hi = stats.welch_diff(a, b)
    res = st.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(0.95)
    assert d == pytest.approx(np.mean(a) - np.mean(b)) and (lo, hi) == pytest.approx((ci.low, ci.high))
    assert stats.welch_diff([1.0, 1.0], [0.0, 0.0]) == (1.0, 1.0, 1.0)
    assert np.isnan(stats.welch_diff([1.0], [0.0, 1.0])[1]) and all(np.isnan(stats.welch_diff([], [1.0])))


# ---- trend and power helpers (issue 25) ----------------------------------------------------------

def test_trend_slope_matches_least_squares_by_hand():
    x = np.repeat([0, 1, 2, 3], 50).astype(float)
    rng = np.random.default_rng(3)
    y = 0.1 + 0.05 * x + rng.normal(0, 0.02, x.size)
    slope, lo, hi = stats.trend_slope(x, y)
    # slope = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)²
    assert slope == pytest.approx(((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum())
    assert lo < 0.05 < hi and hi - lo < 0.01
    assert stats.trend_slope([0, 1, 2], [0.5, 0.5, 0.5]) == (0.0, 0.0, 0.0)
    assert all(np.isnan(stats.trend_slope([1, 1, 1], [0, 1, 0])))
    with pytest.raises(ValueError, match="rank has 2 values"):
        stats.trend_slope([0, 1], [1, 2, 3])


def test_trend_slope_with_clusters_is_the_cr1_interval_by_hand():
    """Cluster-robust (CR1) by hand: V = c·(X'X)⁻¹ Σ_g (X_g'u_g)(X_g'u_g)' (X'X)⁻¹ with
    c = G/(G−1)·(n−1)/(n−k), and t with G−1 degrees of freedom."""
    from scipy import stats as st

    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(8), 25)
    x = (g // 2).astype(float)                                   # two clusters per rank
    y = 0.3 - 0.02 * x + rng.normal(0, 0.1, 8)[g] + rng.normal(0, 0.01, g.size)
    slope, lo, hi = stats.trend_slope(x, y, clusters=[f"m{i}" for i in g])
    X = np.column_stack([np.ones_like(x), x])
    bread = np.linalg.inv(X.T @ X)
    beta = bread @ X.T @ y
    u = y - X @ beta
    meat = sum(np.outer(X[g == c].T @ u[g == c], X[g == c].T @ u[g == c]) for c in range(8))
    n, k, G = x.size, 2, 8
    se = np.sqrt((G / (G - 1) * (n - 1) / (n - k) * bread @ meat @ bread)[1, 1])
    t = st.t.ppf(0.975, G - 1)
    assert slope == pytest.approx(beta[1]) and (lo, hi) == pytest.approx((beta[1] - t * se, beta[1] + t * se))
    assert hi - lo > 5 * (stats.trend_slope(x, y)[2] - stats.trend_slope(x, y)[1])   # far wider than HC1
    assert all(np.isnan(stats.trend_slope(x, y, clusters=g % 2)))                      # fewer than 3 clusters
    with pytest.raises(ValueError, match="clusters 3"):
        stats.trend_slope([0, 1, 2, 3], [1, 2, 3, 4], clusters=[1, 2, 3])


def test_unit_means_slope_is_a_contrast_of_unit_means_with_their_runs_error():
    """Unequal attempts per unit: the pooled difference weights the big unit, the unit-means one
    does not. By hand: μ̂_u the unit means, Var(μ̂_u) = n/(n−C)·Σ_{i in u} (y_i − ȳ_cell(i))² / n_u²
    (HC1 over C cells), the contrast's variance Σ c_u² Var(μ̂_u), t with n − C df. A prompt effect
    shared by all runs of a cell is the design, not error: it adds nothing to the interval."""
    from scipy import stats as st

    rng = np.random.default_rng(8)
    sizes = {"a0": 200, "a1": 20, "b0": 60, "b1": 60, "b2": 30}
    level = {"a0": 0.9, "a1": 0.5, "b0": 0.4, "b1": 0.5, "b2": 0.3}
    units = np.concatenate([[u] * n for u, n in sizes.items()])
    prompt = np.concatenate([np.arange(n) % 4 for n in sizes.values()])
    y = np.array([level[u] for u in units]) + rng.normal(0, 0.1, units.size) + 0.3 * (prompt == 0)
    x = np.array([u.startswith("a") for u in units], dtype=float)
    cells = [f"{u}|{p}" for u, p in zip(units, prompt)]
    d, lo, hi = stats.unit_means_slope(x, y, units, cells)
    frame = pd.DataFrame({"u": units, "g": cells, "y": y})
    mu = frame.groupby("u")["y"].mean()
    c = pd.Series({"a0": 1 / 2, "a1": 1 / 2, "b0": -1 / 3, "b1": -1 / 3, "b2": -1 / 3})
    assert d == pytest.approx((c * mu).sum())
    assert d != pytest.approx(y[x == 1].mean() - y[x == 0].mean(), abs=0.02)     # not the pooled difference
    frame["e"] = frame["y"] - frame.groupby("g")["y"].transform("mean")
    n, C = len(frame), frame["g"].nunique()
    var_mu = n / (n - C) * frame.groupby("u")["e"].apply(lambda e: (e ** 2).sum()) / frame.groupby("u").size() ** 2
    se = np.sqrt((c ** 2 * var_mu).sum())
    t = st.t.ppf(0.975, n - C)
    assert (lo, hi) == pytest.approx((d - t * se, d + t * se))
    assert hi - lo < 0.1                                         # the 0.3 prompt effect is not in it
    # the audited units differ by far more than the runs' error: decided, though the spread
    # among five units (Student t on their means) is not
    assert lo > 0 and stats.student_diff(mu[["a0", "a1"]], mu[["b0", "b1", "b2"]])[1] < 0
    # a slope on an ordinal x: the least-squares slope of the unit means
    rank = pd.Series(units).map({"a0": 3, "a1": 2, "b0": 1, "b1": 0, "b2": 0}).to_numpy()
    s, _, _ = stats.unit_means_slope(rank, y, units, cells)
    assert s == pytest.approx(np.polyfit([3, 2, 1, 0, 0], mu[["a0", "a1", "b0", "b1", "b2"]], 1)[0])
    with pytest.raises(ValueError, match="within one unit"):
        stats.unit_means_slope(x, y, units, np.where(units == "a0", "g0", "g1"))
    with pytest.raises(ValueError, match="property of the unit"):
        stats.unit_means_slope(np.arange(units.size), y, units, cells)
    assert all(np.isnan(stats.unit_means_slope([1, 0], [1, 2], ["a", "b"], ["a", "b"])))       # no cell of two
    assert stats.unit_means_slope([1, 1, 0, 0], [1, 1, 1, 1], list("aabb"), list("aabb")) == (0.0, 0.0, 0.0)


def test_n_to_decide_is_the_textbook_sample_size():
    from scipy import stats as st

    z, zb = st.norm.ppf(0.975), st.norm.ppf(0.8)
    # one sample: estimate 0.55 vs 0.5 with half-width 0.098 on n = 100 → σ = 0.098·10/1.96 = 0.5
    n1 = stats.n_to_decide(0.55, 0.452, 0.648, 0.5, 100, design="one-sample")
    assert n1 == pytest.approx(((z + zb) / (0.05 / 0.5)) ** 2, rel=0.005)          # ≈ 785
    # two samples: difference 0.1, half-width 0.2 on 50 per group → σ = 0.2·5/1.96
    sigma = 0.2 * 5 / z
    n2 = stats.n_to_decide(0.1, -0.1, 0.3, 0.0, 50, design="two-sample")
    assert n2 == pytest.approx(2 * ((z + zb) / (0.1 / sigma)) ** 2, rel=0.005)
    assert stats.n_to_decide(0.0, -0.1, 0.1, 0.0, 50) == float("inf")
    assert np.isnan(stats.n_to_decide(np.nan, -0.1, 0.1, 0.0, 50))
    with pytest.raises(ValueError, match="design"):
        stats.n_to_decide(0.1, 0, 0.2, 0, 10, design="paired")


def test_chi2_n_to_decide_uses_cohens_w():
    from scipy import stats as st

    # w = √(χ²/n) = √(4/400) = 0.1 over 4 groups (df 3): the n with 80 % power at α = 0.05
    n = stats.chi2_n_to_decide(4.0, 400, 4)
    crit = st.chi2.ppf(0.95, 3)
    assert st.ncx2.sf(crit, 3, n * 0.01) == pytest.approx(0.8, abs=1e-3)
    assert stats.chi2_n_to_decide(0.0, 400, 4) == float("inf")


def test_stats_names_no_paper_metric():
    """The binary metrics are the caller's (``binary``): stats.py's code holds no LLMScholarBench metric name."""
    import ast
    from pathlib import Path

    from lib.scholar import aggregate, metrics

    names = {*metrics.BINARY_METRICS, *aggregate.HEADLINE_METRICS, *aggregate.FACTUALITY_METRICS,
             *aggregate.DIVERSITY_METRICS, *aggregate.PARITY_METRICS}
    tree = ast.parse(Path(stats.__file__).read_text())
    found = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in names}
    assert found == set()
    df = pd.DataFrame({"g": ["a", "a"], "metric_name": ["validity_pct"] * 2, "metric_value": [1, 0]})
    t = stats.aggregate_per_group(df, ["g", "metric_name"], binary=())     # not named binary: a t interval
    assert (t["ci_low"].iloc[0], t["ci_high"].iloc[0]) == pytest.approx(stats.t_ci([1, 0])[1:])


def test_small_effect_is_a_fifth_of_the_pooled_sd():
    # a = 1, 2, 3 (s² = 1), b = 2, 4, 6, 8 (s² = 20/3): pooled s² = (2·1 + 3·20/3)/5 = 22/5
    assert stats.small_effect([1, 2, 3], [2, 4, 6, 8]) == pytest.approx(0.2 * np.sqrt(22 / 5))
    assert stats.small_effect([1, 2, 3, np.nan], [2, 4, 6, 8], d=0.5) == pytest.approx(0.5 * np.sqrt(22 / 5))
    # 0/1 values: the pooled Bernoulli spread (ddof 1): 3 of 6 and 3 of 6, s² = 0.3 each
    assert stats.small_effect([1, 1, 1, 0, 0, 0], [1, 0, 1, 0, 1, 0]) == pytest.approx(0.2 * np.sqrt(0.3))
    assert np.isnan(stats.small_effect([1], [1, 2])) and stats.small_effect([2, 2], [5, 5]) == 0


def test_student_diff_pools_the_two_groups_spread():
    # a = 1, 3 (s² = 2), b = 2, 4, 6 (s² = 4): s_p² = (2 + 2·4)/3 = 10/3, se = √(10/3 · (1/2 + 1/3))
    d, lo, hi = stats.student_diff([1, 3], [2, 4, 6])
    half = st.t.ppf(0.975, 3) * math.sqrt(10 / 3 * (1 / 2 + 1 / 3))
    assert d == pytest.approx(-2.0) and (lo, hi) == pytest.approx((-2 - half, -2 + half))
    # two units in a group that happen to agree: Welch leans on their own tiny spread and is
    # narrower than the spread among all the units allows
    _, wlo, whi = stats.welch_diff([1, 1.1], [0, 2, 4, 6])
    _, slo, shi = stats.student_diff([1, 1.1], [0, 2, 4, 6])
    assert shi - slo > 1.2 * (whi - wlo)
    assert stats.student_diff([1, 1], [2, 2]) == (-1.0, -1.0, -1.0)
    assert all(np.isnan(stats.student_diff([1], [2])))
