"""LLMScholarBench claims on temperature and refusals, as checks for the claims ledger.

Each :class:`lib.claims.Claim` below is a sentence of the paper; its check is a pure function of
the aggregates of :mod:`lib.scholar.interventions` that returns a :class:`lib.claims.Verdict`
with the numbers (means and 95 % CIs) behind it. A notebook runs them with
``lib.claims.check(CLAIM, fn, table, synthetic=...)``.

Decision rule shared by the comparisons ("A is lower than B"): the claim holds when the 95 %
interval of the difference B − A lies entirely above 0. For proportions (refusal, validity,
reason shares) the difference interval is Newcombe's hybrid score interval built from the two
Wilson intervals (Newcombe 1998, method 10), for other metrics Welch's t-interval; each group's
own mean and interval (reference §2.10: Wilson for refusal/validity, t otherwise) are reported
too. Where the data cannot answer (a group or configuration missing, e.g. on the tiny profile),
the check returns ``not applicable`` with the reason.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from lib import stats
from lib.claims import Claim, Verdict, verdict

P = "llmscholarbench"
TEMP_VALIDITY = Claim("lsb-temp-validity", P, "§4.2, §5 (Fig. 3)",
                      "Higher temperature lowers validity.")
TEMP_CONSISTENCY = Claim("lsb-temp-consistency", P, "§4.2 (Fig. 3)",
                         "Higher temperature lowers consistency (factuality when consistency is unavailable).")
TEMP_FACTUALITY = Claim("lsb-temp-factuality", P, "Abstract, App. C.2 (Fig. C.12)",
                        "Higher temperature lowers author factuality.")
TEMP_ACCESS = Claim("lsb-temp-access", P, "§4.2 (Fig. 3 caption)",
                    "Proprietary models are less sensitive to temperature than open models.")
TEMP_OPEN_REFUSE = Claim("lsb-temp-open-refusals", P, "§4.2 (Fig. 3)",
                         "Open models refuse more than proprietary models, at every temperature.")
CP_REFUSALS = Claim("lsb-cp-refusals", P, "§4.2, §5 (Fig. 4, A.3)",
                    "Representation-constrained prompting increases refusals.")
CP_UNETHICAL = Claim("lsb-cp-unethical", P, "App. A.4 (Fig. A.3)",
                     "Constrained prompting raises the share of refusals attributed to unethical requests.")

ALL = (TEMP_VALIDITY, TEMP_CONSISTENCY, TEMP_FACTUALITY, TEMP_ACCESS, TEMP_OPEN_REFUSE, CP_REFUSALS, CP_UNETHICAL)


def not_applicable(detail: str, numbers: dict | None = None) -> Verdict:
    """The verdict for a claim the data at hand cannot test (e.g. a task that was not collected)."""
    return Verdict("not applicable", numbers or {}, detail)


def summary(values: pd.Series, metric: str) -> dict:
    """mean, n and 95 % CI of per-attempt values (Wilson for binary metrics, t otherwise)."""
    v = values.astype(float).dropna().to_numpy()
    if metric in stats.BINARY_METRICS:
        lo, hi = stats.wilson_ci(float(v.sum()), v.size) if v.size else (np.nan, np.nan)
        mean = float(v.mean()) if v.size else np.nan
    else:
        mean, lo, hi = stats.t_ci(v)
    return {"mean": mean, "ci": [lo, hi], "n": int(v.size)}


def difference(a: pd.Series, b: pd.Series, metric: str, alpha: float = 0.05) -> dict:
    """b − a with its (1 − α) interval: Newcombe's hybrid score interval from the two Wilson
    intervals for binary metrics, Welch's t-interval otherwise (NaN when a side has < 2 values)."""
    x = a.astype(float).dropna().to_numpy()
    y = b.astype(float).dropna().to_numpy()
    if x.size == 0 or y.size == 0:
        return {"diff": np.nan, "ci": [np.nan, np.nan]}
    d = float(y.mean() - x.mean())
    if metric in stats.BINARY_METRICS:
        l1, u1 = stats.wilson_ci(float(x.sum()), x.size, alpha)
        l2, u2 = stats.wilson_ci(float(y.sum()), y.size, alpha)
        p1, p2 = x.mean(), y.mean()
        lo = d - np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
        hi = d + np.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    else:
        if x.size < 2 or y.size < 2:
            return {"diff": d, "ci": [np.nan, np.nan]}
        va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
        se = np.sqrt(va + vb)
        if se == 0:
            lo = hi = d
        else:
            df = (va + vb) ** 2 / (va ** 2 / (x.size - 1) + vb ** 2 / (y.size - 1))
            half = st.t.ppf(1 - alpha / 2, df) * se
            lo, hi = d - half, d + half
    return {"diff": d, "ci": [float(lo), float(hi)]}


def above_zero(diff: dict) -> bool:
    """True when the whole interval of a :func:`difference` lies above 0 (NaN bounds: False)."""
    return bool(diff["ci"][0] > 0)


def temperature_effect(per_attempt: pd.DataFrame, metric: str, *, direction: str = "lower") -> Verdict:
    """Compare a metric at the lowest and the highest temperature of the sweep, pooled over models.

    ``per_attempt``: :func:`lib.scholar.interventions.technical_per_attempt` (temperature filter
    applied). Held when the value at the highest temperature is ``direction`` ('lower' or
    'higher') than at the lowest: the 95 % CI of the change excludes 0 on that side.
    """
    d = per_attempt[per_attempt["metric_name"] == metric]
    temps = sorted(d["temperature"].dropna().unique())
    if len(temps) < 2:
        return not_applicable(f"{metric}: fewer than two temperatures with values")
    lo_t, hi_t = temps[0], temps[-1]
    a = summary(d.loc[d["temperature"] == lo_t, "metric_value"], metric)
    b = summary(d.loc[d["temperature"] == hi_t, "metric_value"], metric)
    if a["n"] < 2 or b["n"] < 2:
        return not_applicable(f"{metric}: fewer than two values at T={lo_t} or T={hi_t}", {"n": [a["n"], b["n"]]})
    at_lo, at_hi = d.loc[d["temperature"] == lo_t, "metric_value"], d.loc[d["temperature"] == hi_t, "metric_value"]
    diff = difference(at_hi, at_lo, metric) if direction == "lower" else difference(at_lo, at_hi, metric)
    sign = 1 if direction == "lower" else -1
    return verdict(above_zero(diff),
                   {f"{metric} at T={lo_t:g}": a["mean"], "CI low T": a["ci"], "n low T": a["n"],
                    f"{metric} at T={hi_t:g}": b["mean"], "CI high T": b["ci"], "n high T": b["n"],
                    f"change T={lo_t:g}->{hi_t:g}": -sign * diff["diff"],
                    "CI change": sorted(-sign * c for c in diff["ci"])},
                   f"held if the 95% CI of the change from T={lo_t:g} to T={hi_t:g} lies "
                   f"{'below' if direction == 'lower' else 'above'} 0")


def temperature_effect_consistency(per_attempt: pd.DataFrame) -> Verdict:
    """:func:`temperature_effect` on consistency, or on factuality_author when consistency has
    fewer than two values at either end of the sweep (one replicate per configuration)."""
    v = temperature_effect(per_attempt, "consistency")
    if v.status != "not applicable":
        return v
    f = temperature_effect(per_attempt, "factuality_author")
    f.detail = "consistency unavailable (fewer than two replicates); checked on factuality_author. " + f.detail
    return f


def access_sensitivity(curves: pd.DataFrame, metrics=("validity_pct", "factuality_author")) -> Verdict:
    """Proprietary models are less sensitive to temperature: their curves move less.

    ``curves``: :func:`lib.scholar.interventions.temperature_curves` (group_kind 'access').
    Sensitivity of a group = mean over ``metrics`` of the range (max − min) of its group-mean
    curve across temperatures. Held when proprietary's sensitivity is below open's.
    """
    c = curves[(curves["group_kind"] == "access") & curves["metric_name"].isin(metrics)]
    rng = c.groupby(["group", "metric_name"])["mean"].agg(lambda s: s.max() - s.min()).unstack()
    if not {"open", "proprietary"} <= set(rng.index) or rng.shape[1] == 0:
        return not_applicable("access groups open and proprietary both needed", {"groups": sorted(rng.index)})
    sens = rng.mean(axis=1)
    nums = {f"range {g} {k}": float(rng.at[g, k]) for g in ("open", "proprietary") for k in rng.columns}
    nums.update({"sensitivity open": float(sens["open"]), "sensitivity proprietary": float(sens["proprietary"])})
    return verdict(bool(sens["proprietary"] < sens["open"]), nums,
                   "sensitivity = mean over metrics of the range of the group-mean curve across temperatures")


def open_refuse_more(per_attempt: pd.DataFrame) -> Verdict:
    """Open models refuse more than proprietary ones at every temperature (pooled CIs reported).

    Held when the open refusal rate exceeds the proprietary one at each temperature of the
    sweep and the 95 % interval of the pooled (all temperatures) difference is above 0.
    """
    d = per_attempt[per_attempt["metric_name"] == "refusal_pct"]
    if not {"open", "proprietary"} <= set(d["access"]):
        return not_applicable("both access groups needed", {"groups": sorted(d["access"].unique())})
    by_t = d.groupby(["temperature", "access"])["metric_value"].mean().unstack()
    by_t = by_t.dropna()
    if by_t.empty:
        return not_applicable("no temperature with both access groups")
    every = bool((by_t["open"] > by_t["proprietary"]).all())
    o = summary(d.loc[d["access"] == "open", "metric_value"], "refusal_pct")
    p = summary(d.loc[d["access"] == "proprietary", "metric_value"], "refusal_pct")
    diff = difference(d.loc[d["access"] == "proprietary", "metric_value"], d.loc[d["access"] == "open", "metric_value"],
                       "refusal_pct")
    return verdict(every and above_zero(diff),
                   {"refusal open": o["mean"], "CI open": o["ci"], "n open": o["n"],
                    "refusal proprietary": p["mean"], "CI proprietary": p["ci"], "n proprietary": p["n"],
                    "open - proprietary": diff["diff"], "CI difference": diff["ci"],
                    "temperatures open > proprietary": f"{int((by_t['open'] > by_t['proprietary']).sum())}/{len(by_t)}"},
                   "held if open > proprietary at every temperature and the pooled difference's 95% CI is above 0")


def constrained_refusals(attempts: pd.DataFrame, *, refusal_col: str = "is_refusal",
                         baseline_tasks=("top_k",)) -> Verdict:
    """Constrained prompting increases refusals: refusal rate of the constrained prompts
    (biased_top_k, not grounded) above that of the baseline top-k prompts (not grounded), over
    all attempts of notebook 02; the difference's 95 % interval above 0 (reference §2.9:
    constrained vs ``baseline_top_100``)."""
    g = ~attempts["grounded"].astype(bool)
    cp = attempts.loc[g & (attempts["task"] == "biased_top_k"), refusal_col]
    base = attempts.loc[g & attempts["task"].isin(baseline_tasks), refusal_col]
    if cp.empty or base.empty:
        return not_applicable("constrained (biased_top_k) and baseline top_k attempts both needed",
                   {"n constrained": int(cp.size), "n baseline": int(base.size)})
    a = summary((cp == 1).astype(float), "refusal_pct")
    b = summary((base == 1).astype(float), "refusal_pct")
    diff = difference((base == 1).astype(float), (cp == 1).astype(float), "refusal_pct")
    return verdict(above_zero(diff), {"refusal constrained": a["mean"], "CI constrained": a["ci"],
                                       "n constrained": a["n"], "refusal baseline top_k": b["mean"], "CI baseline": b["ci"],
                                       "n baseline": b["n"], "constrained - baseline": diff["diff"],
                                       "CI difference": diff["ci"]},
                   "held if the 95% CI of constrained - baseline is above 0")


def constrained_unethical_share(shares: pd.DataFrame) -> Verdict:
    """Among refusals, the unethical-request share is higher under constrained prompting than at
    baseline. ``shares``: :func:`lib.scholar.interventions.reason_shares` by configuration (counts);
    the shares within refusals get Wilson CIs, their difference Newcombe's; held if that is above 0."""
    out = {}
    for conf in ("Baseline", "Constrained prompting"):
        s = shares[shares["configuration"] == conf]
        n = int(s["count"].sum())
        k = int(s.loc[s["reason"] == "Unethical request", "count"].sum())
        if n == 0:
            return not_applicable(f"no refusal in configuration {conf!r}")
        lo, hi = stats.wilson_ci(k, n)
        out[conf] = {"mean": k / n, "ci": [lo, hi], "n": n, "values": pd.Series([1.0] * k + [0.0] * (n - k))}
    b, c = out["Baseline"], out["Constrained prompting"]
    diff = difference(b["values"], c["values"], "refusal_pct")
    return verdict(above_zero(diff), {"unethical share constrained": c["mean"], "CI constrained": c["ci"],
                                       "refusals constrained": c["n"], "unethical share baseline": b["mean"],
                                       "CI baseline": b["ci"], "refusals baseline": b["n"],
                                       "constrained - baseline": diff["diff"], "CI difference": diff["ci"]},
                   "shares within refusals; held if the 95% CI of constrained - baseline is above 0")
