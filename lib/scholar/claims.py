"""LLMScholarBench claims: the table of every check and one :func:`check_all`, and the checks on
temperature and refusals (§4.2, §5, App. A.4).

Each :class:`lib.claims.Claim` is a sentence of the paper; its check is a pure function of the
regenerated tables returning a :class:`lib.claims.Verdict` with the numbers (means and 95 % CIs)
behind it, under the decision rule of :mod:`lib.scholar.claims_rules`. The checks of §4.1 and
App. C.1 live in :mod:`lib.scholar.claims_benchmark` (notebook 03), those of constrained
prompting and RAG in :mod:`lib.scholar.claims_interventions` (notebook 04); :data:`CHECKS` tables
all 26 with the notebook that regenerates their inputs, and a notebook calls
``check_all(tables, notebook=..., synthetic=...)`` once. Where the data cannot answer (a group or
configuration missing, e.g. on the tiny profile), a check returns ``not applicable`` with the
reason.
"""
from __future__ import annotations

import pandas as pd

from lib import stats
from lib.claims import Check, Claim, Verdict, not_applicable, run_checks, verdict
from lib.scholar import claims_benchmark as cb
from lib.scholar import claims_interventions as cpc
from lib.scholar.claims_rules import P, above_zero, difference, summary
TEMP_VALIDITY = Claim("lsb-temp-validity", P, "§4.2, §5 (Fig. 3)",
                      "Higher temperature lowers validity.", ("lsb-fig3",))
TEMP_CONSISTENCY = Claim("lsb-temp-consistency", P, "§4.2 (Fig. 3)",
                         "Higher temperature lowers consistency (factuality when consistency is unavailable).",
                         ("lsb-fig3",))
TEMP_FACTUALITY = Claim("lsb-temp-factuality", P, "Abstract, App. C.2 (Fig. C.12)",
                        "Higher temperature lowers author factuality.", ("lsb-figC12",))
TEMP_ACCESS = Claim("lsb-temp-access", P, "§4.2 (Fig. 3 caption)",
                    "Proprietary models are less sensitive to temperature than open models.", ("lsb-fig3",))
TEMP_OPEN_REFUSE = Claim("lsb-temp-open-refusals", P, "§4.2 (Fig. 3)",
                         "Open models refuse more than proprietary models, at every temperature.", ("lsb-fig3",))
CP_REFUSALS = Claim("lsb-cp-refusals", P, "§4.2, §5 (Fig. 4, A.3)",
                    "Representation-constrained prompting increases refusals.", ("lsb-figA3", "lsb-figA4"))
CP_UNETHICAL = Claim("lsb-cp-unethical", P, "App. A.4 (Fig. A.3)",
                     "Constrained prompting raises the share of refusals attributed to unethical requests.",
                     ("lsb-figA3",))

ALL = (TEMP_VALIDITY, TEMP_CONSISTENCY, TEMP_FACTUALITY, TEMP_ACCESS, TEMP_OPEN_REFUSE, CP_REFUSALS, CP_UNETHICAL)


def temperature_effect(per_attempt: pd.DataFrame, metric: str, *, direction: str = "lower") -> Verdict:
    """Compare a metric at the lowest and the highest temperature of the sweep, pooled over models.

    ``per_attempt``: :func:`lib.scholar.interventions.technical_per_attempt` (temperature filter
    applied). Held when the value at the highest temperature is ``direction`` ('lower' or
    'higher') than at the lowest: the 95 % CI of the change excludes 0 on that side.
    """
    d = per_attempt[(per_attempt["metric_name"] == metric) & per_attempt["metric_value"].notna()]
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


# -- the table of all 26 LLMScholarBench checks -----------------------------------------------------

NB03, NB04 = "03_infrastructure_benchmark", "04_interventions"


def checks(*, refusal_col: str = "is_refusal") -> tuple[Check, ...]:
    """Every LLMScholarBench check with the table it reads: ``baseline`` (notebook 03's per-attempt
    table), ``sweep`` (notebook 04's temperature per-attempt table), ``curves``
    (:func:`lib.scholar.interventions.temperature_curves`), ``collection`` (notebook 02's attempts),
    ``reason_shares`` (:func:`lib.scholar.interventions.reason_shares`) and ``all_metrics``
    (:func:`lib.scholar.constrained.metric_table`). ``refusal_col`` picks the refusal label of the
    constrained-refusal claim (faithful ``is_refusal`` or ``is_refusal_corrected``)."""
    def b(claim, fn, *args):
        return Check(claim, fn, ("baseline",), NB03, {} if not args else dict(zip(("group", "higher", "lower", "metric"), args)))

    def size(claim, metric, direction):
        return Check(claim, cb.size_trend, ("baseline",), NB03, {"metric": metric, "direction": direction})

    return (
        b(cb.ACCESS_REFUSALS, cb.group_difference, "access", "open", "proprietary", "refusal_pct"),
        b(cb.ACCESS_VALIDITY, cb.group_difference, "access", "open", "proprietary", "validity_pct"),
        b(cb.ACCESS_FACTUALITY, cb.group_difference, "access", "proprietary", "open", "factuality_author"),
        b(cb.ACCESS_PARITY, cb.group_difference, "access", "proprietary", "open", "parity_gender"),
        b(cb.ACCESS_CONSISTENCY, cb.group_difference, "access", "proprietary", "open", "consistency"),
        size(cb.SIZE_VALIDITY, "validity_pct", "increase"),
        size(cb.SIZE_REFUSALS, "refusal_pct", "increase"),
        size(cb.SIZE_DUPLICATES, "duplicates", "decrease"),
        size(cb.SIZE_CONSISTENCY, "consistency", "decrease"),
        b(cb.REASONING_VALIDITY, cb.group_difference, "model_class", "non-reasoning", "reasoning", "validity_pct"),
        b(cb.REASONING_FACTUALITY, cb.group_difference, "model_class", "reasoning", "non-reasoning", "factuality_author"),
        b(cb.TASK_FACTUALITY, cb.task_factuality_gap),
        b(cb.SENIORITY_SENIOR, cb.group_difference, "param", "senior", "early_career", "factuality_seniority"),
        Check(TEMP_VALIDITY, temperature_effect, ("sweep",), NB04, {"metric": "validity_pct"}),
        Check(TEMP_CONSISTENCY, temperature_effect_consistency, ("sweep",), NB04),
        Check(TEMP_FACTUALITY, temperature_effect, ("sweep",), NB04, {"metric": "factuality_author"}),
        Check(TEMP_ACCESS, access_sensitivity, ("curves",), NB04),
        Check(TEMP_OPEN_REFUSE, open_refuse_more, ("sweep",), NB04),
        Check(CP_REFUSALS, constrained_refusals, ("collection",), NB04, {"refusal_col": refusal_col}),
        Check(CP_UNETHICAL, constrained_unethical_share, ("reason_shares",), NB04),
        *(Check(c, fn, ("all_metrics",), NB04) for c, fn in (
            (cpc.CP_FEMALE_FACTUALITY, cpc.female_lowest_factuality),
            (cpc.CP_EQUAL_GENDER_DIVERSITY, cpc.equal_gender_raises_diversity),
            (cpc.CP_FACTUALITY_COST, cpc.constrained_lowers_factuality),
            (cpc.CP_GENERAL_GENDER_ONLY, cpc.general_gender_only),
            (cpc.RAG_GENDER_DIVERSITY, cpc.rag_lowers_gender_diversity),
            (cpc.RAG_FLASH_VALIDITY, cpc.flash_loses_more_validity))),
    )


CHECKS = checks()


def check_all(tables, *, notebook: str, synthetic: bool, refusal_col: str = "is_refusal") -> dict[str, Verdict]:
    """Check the LLMScholarBench claims whose inputs ``notebook`` regenerates (03: §4.1 and App. C.1;
    04: temperature, refusals, constrained prompting and RAG) on ``tables`` (names as in
    :func:`checks`) and record the verdicts. Returns {claim id: Verdict}."""
    if notebook not in (NB03, NB04):
        raise ValueError(f"LLMScholarBench claims are checked by {NB03} or {NB04}, not {notebook!r}")
    return run_checks(checks(refusal_col=refusal_col), tables, synthetic=synthetic, notebook=notebook)
