"""Confidence intervals, paired tests, agreement and group aggregation used across the three papers.

A leaf module: it imports only numpy, scipy, statsmodels and pandas, so every analysis package
can use it without pulling anything else in.

LLMScholarBench reports every metric as mean ± 95 % CI (reference §2.10): a Wilson score
interval for the binary metrics (the caller names them: ``binary``; this module names no paper's
metric) and an unclipped Student-t interval for the others, pooled over all per-attempt values
of a group (no per-model averaging first).
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as _st

def wilson_ci(successes: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Definition: with p̂ = s/n and z = Φ⁻¹(1 − α/2),
    centre = (p̂ + z²/2n)/(1 + z²/n), half = z·sqrt(p̂(1−p̂)/n + z²/4n²)/(1 + z²/n),
    interval = centre ∓ half. Same numbers as statsmodels
    ``proportion_confint(method="wilson")``, which the LLMScholarBench reference uses for
    validity and refusal (reference §2.10).

    Interpretation: a (1 − α) interval for the success probability that stays inside [0, 1]
    and behaves well at p̂ = 0 or 1, unlike the Wald interval.

    Edge cases: n = 0 gives (nan, nan); successes outside [0, n] raise ValueError.
    """
    if n < 0:
        raise ValueError(f"wilson_ci: n must be >= 0, got {n}")
    if n == 0:
        return (float("nan"), float("nan"))
    if successes < 0 or successes > n:
        raise ValueError(f"wilson_ci: successes must lie in [0, n={n}], got {successes}")
    z = _st.norm.ppf(1 - alpha / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (float(max(0.0, centre - half)), float(min(1.0, centre + half)))


def newcombe_diff(k1: float, n1: int, k2: float, n2: int, alpha: float = 0.05) -> tuple[float, float, float]:
    """Difference of two independent proportions p1 − p2 with Newcombe's hybrid score interval.

    Definition (Newcombe 1998, method 10): with the Wilson intervals (l1, u1) of p1 = k1/n1 and
    (l2, u2) of p2 = k2/n2, d = p1 − p2 and interval
    (d − √((p1 − l1)² + (u2 − p2)²), d + √((u1 − p1)² + (p2 − l2)²)).

    Interpretation: a (1 − α) interval for the difference that, like Wilson's, behaves well near
    0 and 1 and for small n; the difference is significant at α when it excludes 0.

    Edge cases: an empty side (n = 0) gives (nan, nan, nan).
    """
    if n1 == 0 or n2 == 0:
        return (float("nan"), float("nan"), float("nan"))
    l1, u1 = wilson_ci(k1, n1, alpha)
    l2, u2 = wilson_ci(k2, n2, alpha)
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    return (float(d), float(d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)),
            float(d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)))


def welch_diff(a: Iterable[float], b: Iterable[float], alpha: float = 0.05) -> tuple[float, float, float]:
    """Difference of two means mean(a) − mean(b) with Welch's t-interval.

    Definition: se = √(s_a²/n_a + s_b²/n_b), Welch–Satterthwaite degrees of freedom
    df = se⁴ / ((s_a²/n_a)²/(n_a − 1) + (s_b²/n_b)²/(n_b − 1)), interval d ∓ t_{1−α/2, df}·se.

    Interpretation: a (1 − α) interval for the difference that does not assume equal variances.

    Edge cases: NaNs are dropped; a side with no value gives (nan, nan, nan), with one value
    (d, nan, nan); two constant sides give the zero-width interval (d, d, d).
    """
    x = np.asarray(list(a), dtype=float)
    y = np.asarray(list(b), dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if x.size == 0 or y.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    d = float(x.mean() - y.mean())
    if x.size < 2 or y.size < 2:
        return (d, float("nan"), float("nan"))
    va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    se = np.sqrt(va + vb)
    if se == 0:
        return (d, d, d)
    df = (va + vb) ** 2 / (va ** 2 / (x.size - 1) + vb ** 2 / (y.size - 1))
    half = float(_st.t.ppf(1 - alpha / 2, df) * se)
    return (d, d - half, d + half)


def student_diff(a: Iterable[float], b: Iterable[float], alpha: float = 0.05) -> tuple[float, float, float]:
    """Difference of two means mean(a) − mean(b) with Student's pooled-variance t-interval.

    Definition: se = s_p·√(1/n_a + 1/n_b), s_p² the pooled ddof-1 variance, interval
    d ∓ t_{1−α/2, n_a+n_b−2}·se (scipy's ``ttest_ind(equal_var=True)``).

    Interpretation: for few units per group, e.g. models as the unit with two in one group: the
    spread among units is estimated from both groups together, where Welch's interval (or a
    cluster-robust one) would lean on the small group's own spread, which two units barely show.

    Edge cases: NaNs are dropped; fewer than two values in all (or a side without one) give
    (nan, nan, nan); constant values give the zero-width interval (d, d, d).
    """
    x = np.asarray(list(a), dtype=float)
    y = np.asarray(list(b), dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if x.size == 0 or y.size == 0 or x.size + y.size < 3:
        return (float("nan"), float("nan"), float("nan"))
    d = float(x.mean() - y.mean())
    if np.ptp(np.r_[x - x.mean(), y - y.mean()]) == 0:
        return (d, d, d)
    ci = _st.ttest_ind(x, y, equal_var=True).confidence_interval(1 - alpha)
    return (d, float(ci.low), float(ci.high))


def small_effect(a: Iterable[float], b: Iterable[float], d: float = 0.2) -> float:
    """The smallest difference of means that counts as a change: ``d`` pooled standard deviations.

    Definition: d · s_p, s_p = √(((n_a − 1)s_a² + (n_b − 1)s_b²)/(n_a + n_b − 2)) over the
    non-missing values (ddof = 1 each); for 0/1 values s_p is the pooled Bernoulli spread.

    Interpretation: the equivalence margin of a "no change" claim. d = 0.2 is Cohen's (1988)
    "small" standardised effect: a change under it is too small to count as one, so a claim that
    something does not move is held when the interval of the change lies inside the margin and
    contradicted when it lies beyond it, instead of being contradicted by any significant change
    once the sample is large.

    Edge cases: fewer than two values on a side give nan; constant sides give 0.
    """
    x = np.asarray(list(a), dtype=float)
    y = np.asarray(list(b), dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if x.size < 2 or y.size < 2:
        return float("nan")
    pooled = ((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1)) / (x.size + y.size - 2)
    return float(d * np.sqrt(pooled))


def t_ci(values: Iterable[float], alpha: float = 0.05) -> tuple[float, float, float]:
    """Student-t interval for a mean: (mean, low, high).

    Definition: mean ∓ t_{1−α/2, n−1} · s/√n, with s the ddof=1 standard deviation over the
    non-missing values (reference §2.10, ``aggregate_per_group``).

    Interpretation: a (1 − α) interval for the mean of the per-attempt metric values. As in the
    reference it is not clipped to [0, 1], so bounded metrics can show bounds past 0 or 1.

    Edge cases: NaNs are dropped; no value gives (nan, nan, nan); one value gives
    (value, nan, nan) because the spread is undefined; constant values give a zero-width interval.
    """
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    x = x[~np.isnan(x)]
    n = x.size
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    mean = float(x.mean())
    if n == 1:
        return (mean, float("nan"), float("nan"))
    half = float(_st.t.ppf(1 - alpha / 2, n - 1) * x.std(ddof=1) / np.sqrt(n))
    return (mean, mean - half, mean + half)


def mcnemar(b: int, c: int, exact: bool = True) -> float:
    """McNemar's test p-value for paired binary outcomes from the two discordant counts.

    Definition: b = pairs that are 1 under A and 0 under B, c = the reverse. Exact: two-sided
    binomial test of b ~ Binomial(b + c, ½), p = min(1, 2·P[X ≤ min(b, c)]). Asymptotic
    (``exact=False``): χ² = (|b − c| − 1)² / (b + c) with continuity correction, 1 df.

    Interpretation: small p means the two conditions change outcomes in one direction more
    than the other (used by the authority-bias paper for the instruction effect).

    Edge cases: b + c = 0 (no discordant pair) gives p = 1.0; negative counts raise ValueError.
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar: discordant counts must be >= 0, got b={b}, c={c}")
    n = int(b) + int(c)
    if n == 0:
        return 1.0
    if exact:
        return float(min(1.0, 2.0 * _st.binom.cdf(min(b, c), n, 0.5)))
    stat = (abs(b - c) - 1.0) ** 2 / n
    return float(_st.chi2.sf(stat, 1))


def cohens_kappa(labels_a: Sequence, labels_b: Sequence) -> float:
    """Cohen's kappa between two raters' labels of the same items.

    Definition: κ = (p_o − p_e)/(1 − p_e), p_o the observed agreement, p_e = Σ_k p_a(k)·p_b(k)
    the agreement expected from the two marginal label distributions.

    Interpretation: 1 = perfect agreement, 0 = chance level, < 0 = worse than chance.

    Edge cases: lengths must match (ValueError naming both lengths); an empty input gives nan;
    when both raters use one and the same label throughout (p_e = 1) kappa is 1.0 if they agree
    everywhere (they then do), matching the convention that perfect agreement scores 1.
    """
    a = list(labels_a)
    b = list(labels_b)
    if len(a) != len(b):
        raise ValueError(f"cohens_kappa: labels_a has {len(a)} items but labels_b has {len(b)}")
    n = len(a)
    if n == 0:
        return float("nan")
    cats = sorted(set(a) | set(b), key=repr)
    idx = {k: i for i, k in enumerate(cats)}
    m = np.zeros((len(cats), len(cats)))
    for x, y in zip(a, b):
        m[idx[x], idx[y]] += 1
    m /= n
    po = float(np.trace(m))
    pe = float(m.sum(axis=1) @ m.sum(axis=0))
    if np.isclose(pe, 1.0):
        return 1.0 if np.isclose(po, 1.0) else 0.0
    return (po - pe) / (1 - pe)


def aggregate_per_group(
    per_attempt: pd.DataFrame,
    by: Sequence[str],
    *,
    value: str = "metric_value",
    metric_col: str = "metric_name",
    binary: Collection[str],
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Aggregate per-attempt metric values by group with 95 % CIs (LLMScholarBench reference §2.10).

    For each group of ``by`` (include ``metric_col`` in ``by`` when the table holds several
    metrics), over the non-missing values: n, mean, std (ddof=1), median, sum; then
    ci_low/ci_high from a Wilson interval (count = sum, nobs = n) when the metric is in ``binary``
    (the paper's proportions of 0/1 outcomes, named by its package), else from an unclipped
    t-interval; ``ci`` = half the width.

    Faithful to the reference: every attempt of the group is pooled (a model with more valid
    attempts weighs more); groups whose key has a NaN are dropped like pandas' default
    ``dropna=True``. Groups of one value get NaN t-bounds.

    Returns one row per group with columns by + [n, mean, std, median, sum, ci_low, ci_high, ci].
    """
    missing = [c for c in [*by, value] if c not in per_attempt.columns]
    if missing:
        raise KeyError(f"aggregate_per_group: per-attempt table lacks column(s) {missing}; "
                       f"has {list(per_attempt.columns)}")
    rows = []
    for key, g in per_attempt.groupby(list(by), dropna=True, observed=True, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        v = g[value].astype(float).dropna().to_numpy()
        rec = dict(zip(by, key))
        n = v.size
        rec.update(n=n, mean=v.mean() if n else np.nan, std=v.std(ddof=1) if n > 1 else np.nan,
                   median=np.median(v) if n else np.nan, sum=v.sum())
        metric = rec.get(metric_col, g[metric_col].iloc[0] if metric_col in g.columns else None)
        if metric in binary:
            lo, hi = wilson_ci(float(v.sum()), n, alpha) if n else (np.nan, np.nan)
        else:
            _, lo, hi = t_ci(v, alpha)
        rec.update(ci_low=lo, ci_high=hi, ci=(hi - lo) / 2)
        rows.append(rec)
    cols = [*by, "n", "mean", "std", "median", "sum", "ci_low", "ci_high", "ci"]
    return pd.DataFrame(rows, columns=cols)


def aggregate_by_groups(
    per_attempt: pd.DataFrame,
    groups: Sequence[str] = ("model_access", "model_size", "model_class"),
    *,
    value: str = "metric_value",
    metric_col: str = "metric_name",
    binary: Collection[str],
    alpha: float = 0.05,
) -> pd.DataFrame:
    """:func:`aggregate_per_group` for several grouping columns at once, stacked (Figure 2 layout).

    For each column g of ``groups`` (e.g. access, size, reasoning, model, task_name), aggregates
    by [g, metric] and labels the rows with group_kind = g and group = the value. Returns columns
    group_kind, group, metric, n, mean, std, median, sum, ci_low, ci_high, ci.
    """
    out = []
    for g in groups:
        a = aggregate_per_group(per_attempt, [g, metric_col], value=value, metric_col=metric_col, binary=binary,
                                alpha=alpha)
        out.append(a.rename(columns={g: "group"}).assign(group_kind=g))
    cols = ["group_kind", "group", metric_col, "n", "mean", "std", "median", "sum", "ci_low", "ci_high", "ci"]
    return pd.concat(out, ignore_index=True)[cols] if out else pd.DataFrame(columns=cols)


def bootstrap_over_prompts(
    df: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], float],
    *,
    prompt_col: str,
    n_boot: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Cluster bootstrap over prompts: (estimate, low, high).

    Definition: resample the distinct values of ``prompt_col`` with replacement ``n_boot``
    times, rebuild the table from all rows of the drawn prompts (a prompt drawn twice enters
    twice), recompute ``statistic`` and take the α/2 and 1 − α/2 percentiles.

    Interpretation: rows that share a prompt (replicates, attempts, recommended names) are not
    independent; resampling whole prompts keeps that dependence, so the interval is honest
    about the number of prompts rather than the number of rows.

    Edge cases: an empty table gives (nan, nan, nan); replicates where the statistic is NaN are
    ignored in the percentiles; one prompt gives a degenerate interval at the estimate.
    """
    if prompt_col not in df.columns:
        raise KeyError(f"bootstrap_over_prompts: column {prompt_col!r} not in table {list(df.columns)}")
    if df.empty:
        return (float("nan"), float("nan"), float("nan"))
    est = float(statistic(df))
    groups = {k: g for k, g in df.groupby(prompt_col, sort=True, dropna=False)}
    keys = list(groups)
    rng = np.random.default_rng(seed)
    reps = np.empty(n_boot)
    for i in range(n_boot):
        draw = rng.integers(0, len(keys), len(keys))
        reps[i] = statistic(pd.concat([groups[keys[j]] for j in draw], ignore_index=True))
    reps = reps[~np.isnan(reps)]
    if reps.size == 0:
        return (est, float("nan"), float("nan"))
    lo, hi = np.percentile(reps, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return (est, float(lo), float(hi))


def trend_slope(rank: Iterable[float], values: Iterable[float], alpha: float = 0.05,
                clusters: Iterable | None = None) -> tuple[float, float, float]:
    """Least-squares slope of ``values`` on an ordinal ``rank`` with a robust (1 − α) interval:
    (slope, low, high); heteroskedasticity-robust (HC1), or cluster-robust when ``clusters`` labels
    each value's group.

    Definition: OLS of y on (1, x) (statsmodels), slope β̂ ∓ t·se(β̂): se_HC1 with t_{1−α/2, n−2},
    or, with clusters, the cluster-robust (CR1) se with t_{1−α/2, G−1} for G clusters.

    Interpretation: a trend test for "y increases with x" over ordered classes that uses every
    value at once, instead of pairwise comparisons of class means; HC1 because binary or bounded
    values have a variance that changes with their mean. Clusters when the values come in groups
    that share a level (the attempts of one model): the x of a group is fixed, so its values are
    not independent evidence about the trend, and HC1's interval would be as narrow as if they were.

    Edge cases: NaNs are dropped pairwise; fewer than three values or a single rank value give
    (nan, nan, nan), and so do fewer than three clusters; constant y gives the zero-width interval
    (0, 0, 0).
    """
    import statsmodels.api as sm

    x = np.asarray(list(rank), dtype=float)
    y = np.asarray(list(values), dtype=float)
    g = None if clusters is None else pd.factorize(pd.Series(list(clusters)))[0]
    if x.shape != y.shape or (g is not None and g.shape != x.shape):
        raise ValueError(f"trend_slope: rank has {x.size} values but values has {y.size}"
                         + ("" if g is None else f" and clusters {g.size}"))
    ok = ~(np.isnan(x) | np.isnan(y)) & (True if g is None else g >= 0)
    x, y = x[ok], y[ok]
    if x.size < 3 or np.unique(x).size < 2 or (g is not None and np.unique(g[ok]).size < 3):
        return (float("nan"), float("nan"), float("nan"))
    if np.ptp(y) == 0:
        return (0.0, 0.0, 0.0)
    model = sm.OLS(y, sm.add_constant(x))
    fit = (model.fit(cov_type="HC1", use_t=True) if g is None
           else model.fit(cov_type="cluster", cov_kwds={"groups": g[ok]}, use_t=True))
    lo, hi = fit.conf_int(alpha)[1]
    return (float(fit.params[1]), float(lo), float(hi))


def unit_means_slope(x: Iterable[float], values: Iterable[float], units: Iterable, cells: Iterable,
                     alpha: float = 0.05) -> tuple[float, float, float]:
    """Slope of the units' means on ``x`` (a property of the unit), each unit weighing the same,
    with a (1 − α) interval for the sampling error of the values given the units and their cells:
    (slope, low, high).

    Definition: the cell means are the coefficients of an OLS of y on one indicator per cell
    (``cells`` nest in the units, e.g. model × prompt), with HC1 covariance (statsmodels); a unit's
    mean μ̂_u is its attempts' mean, Σ_cells (n_cell/n_u)·ȳ_cell; the statistic is the contrast
    Σ_u c_u μ̂_u with c_u = (x_u − x̄)/Σ(x_u − x̄)², the least-squares slope of the unit means on x
    (for a 0/1 ``x``: the mean of the x = 1 units' means minus that of the x = 0 units'), its
    interval ``t_test`` with t_{1−α/2, n−cells}.

    Interpretation: inference about these units on these prompts (fixed effects): how sure the
    repeated runs make the audited models' own difference or trend. It narrows with runs; it says
    nothing of models of the kind at large, which the spread among the units decides
    (:func:`student_diff` on the unit means, :func:`trend_slope` clustered by unit).

    Edge cases: NaNs are dropped; fewer than two distinct unit x values, or no cell with two
    values, give (nan, nan, nan); constant values give (0, 0, 0); a one-value cell adds no
    variance (HC1); an x that varies within a unit or a cell spanning two units raises ValueError.
    """
    import statsmodels.api as sm

    d = pd.DataFrame({"x": list(x), "y": list(values), "u": list(units), "g": list(cells)})
    d["x"], d["y"] = d["x"].astype(float), d["y"].astype(float)
    d = d.dropna()
    if (d.groupby("u")["x"].nunique() > 1).any():
        raise ValueError("unit_means_slope: x must be a property of the unit (one value per unit)")
    if (d.groupby("g")["u"].nunique() > 1).any():
        raise ValueError("unit_means_slope: each cell must lie within one unit")
    xu = d.groupby("u", sort=True)["x"].first()
    size = d.groupby("g", sort=True)["y"].size()
    if xu.nunique() < 2 or (size < 2).all() or len(d) <= len(size):
        return (float("nan"), float("nan"), float("nan"))
    if np.ptp(d["y"]) == 0:
        return (0.0, 0.0, 0.0)
    X = pd.get_dummies(pd.Categorical(d["g"], categories=size.index), dtype=float).to_numpy()
    fit = sm.OLS(d["y"].to_numpy(), X).fit(cov_type="HC1", use_t=True)
    dev = xu - xu.mean()
    unit_of = d.groupby("g", sort=True)["u"].first()
    weight = (dev / (dev ** 2).sum()).reindex(unit_of).to_numpy() * (size / unit_of.map(size.groupby(unit_of).sum())).to_numpy()
    test = fit.t_test(weight)
    lo, hi = test.conf_int(alpha)[0]
    return (float(np.squeeze(test.effect)), float(lo), float(hi))


def n_to_decide(estimate: float, low: float, high: float, threshold: float, n: float, *,
                design: str = "two-sample", alpha: float = 0.05, power: float = 0.8) -> float:
    """The sample size at which an interval like (low, high), built on ``n`` units, would exclude
    ``threshold`` with probability ``power`` if the true effect were the observed one.

    Definition: the interval's half-width on the threshold's side, h, gives the per-unit spread
    σ = h·√(n/k)/z_{1−α/2} (k = 1 for one sample, 2 for two equal samples); the standardised
    effect is d = |estimate − threshold|/σ and the size is statsmodels' ``NormalIndPower``
    ``solve_power(d, alpha, power)`` with ratio 0 (one sample) or 1 (two samples, n per group).
    Textbook form: n = k·((z_{1−α/2} + z_{power})/d)² (to within the far tail's term).

    Interpretation: the n of the same unit as ``n`` (per group for two samples) a run needs to
    decide the claim one way or the other, under the observed effect and variance.

    Edge cases: an estimate at the threshold gives inf; an undefined interval or n ≤ 0 gives nan.
    """
    from statsmodels.stats.power import NormalIndPower

    if design not in ("one-sample", "two-sample"):
        raise ValueError(f"n_to_decide: design must be 'one-sample' or 'two-sample', got {design!r}")
    vals = np.array([estimate, low, high, threshold, n], dtype=float)
    if np.isnan(vals).any() or n <= 0:
        return float("nan")
    gap = abs(estimate - threshold)
    if gap == 0:
        return float("inf")
    h = (estimate - low) if threshold < estimate else (high - estimate)
    if h <= 0:
        return float("nan")
    k = 1 if design == "one-sample" else 2
    sigma = h * np.sqrt(n / k) / _st.norm.ppf(1 - alpha / 2)
    d = gap / sigma
    return float(NormalIndPower().solve_power(effect_size=d, alpha=alpha, power=power,
                                              ratio=0 if k == 1 else 1, alternative="two-sided"))


def chi2_n_to_decide(chi2: float, n: float, cells: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Total sample size at which a χ² homogeneity test over ``cells`` groups (df = cells − 1)
    rejects with probability ``power`` if the effect were the observed one.

    Definition: Cohen's w = √(χ²/n), size from statsmodels' ``GofChisquarePower`` with
    n_bins = cells (df = cells − 1). Edge cases: χ² = 0 gives inf; n ≤ 0 or cells < 2 gives nan.
    """
    from statsmodels.stats.power import GofChisquarePower

    if n <= 0 or cells < 2 or np.isnan(chi2):
        return float("nan")
    if chi2 <= 0:
        return float("inf")
    w = float(np.sqrt(chi2 / n))
    return float(GofChisquarePower().solve_power(effect_size=w, nobs=None, alpha=alpha, power=power, n_bins=cells))
