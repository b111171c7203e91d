"""LLMScholarBench claims: the table of every check and one :func:`check_all`, and the checks on
temperature and refusals (§4.2, §5, App. A.4).

Each :class:`lib.claims.Claim` is a sentence of the paper; its check is a pure function of the
regenerated tables returning a :class:`lib.claims.Verdict` (one of the four outcomes of
:data:`lib.claims.RULE`) with the numbers (means and 95 % CIs) behind it, under the decision rule
of :mod:`lib.scholar.claims_rules`. The checks of §4.1 and
App. C.1 live in :mod:`lib.scholar.claims_benchmark` (notebook 03), those of constrained
prompting and RAG in :mod:`lib.scholar.claims_interventions` (notebook 04); :data:`CHECKS` tables
all 26 with the notebook that regenerates their inputs, and a notebook calls
``check_all(tables, notebook=..., synthetic=...)`` once. Where the data cannot answer (a group or
configuration missing, e.g. on the tiny profile), a check returns ``not applicable`` with the
reason.
"""
from __future__ import annotations

import pandas as pd

import numpy as np

from lib import stats
from lib.claims import Check, Claim, Verdict, interval, judge, not_applicable, run_checks
from lib.scholar import claims_benchmark as cb
from lib.scholar import claims_interventions as cpc
from lib.scholar.claims_rules import COLLECTION, P, SWEEP, compared, knob_for, model_difference, summary
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
    applied). The statistic is the change (highest − lowest temperature) with its 95 % interval
    against 0, on the ``direction`` ('lower' or 'higher') side.
    """
    d = per_attempt[(per_attempt["metric_name"] == metric) & per_attempt["metric_value"].notna()]
    temps = sorted(d["temperature"].dropna().unique())
    if len(temps) < 2:
        return not_applicable(f"{metric}: fewer than two temperatures with values")
    lo_t, hi_t = temps[0], temps[-1]
    at_lo, at_hi = d.loc[d["temperature"] == lo_t, "metric_value"], d.loc[d["temperature"] == hi_t, "metric_value"]
    a, b = summary(at_lo, metric), summary(at_hi, metric)
    if a["n"] < 2 or b["n"] < 2:
        return not_applicable(f"{metric}: fewer than two values at T={lo_t} or T={hi_t}", {"n": [a["n"], b["n"]]})
    return judge([compared(at_lo, at_hi, metric, f"{metric} change T={lo_t:g}→{hi_t:g}",
                           "below" if direction == "lower" else "above")],
                 {f"{metric} at T={lo_t:g}": a["mean"], "CI low T": a["ci"], "n low T": a["n"],
                  f"{metric} at T={hi_t:g}": b["mean"], "CI high T": b["ci"], "n high T": b["n"]})


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
    curve across temperatures. The statistic is open − proprietary sensitivity with a normal
    (Wald) interval whose variance sums the variances of the two means behind each range
    (each from its 95 % CI half-width / 1.96), against 0.
    """
    c = curves[(curves["group_kind"] == "access") & curves["metric_name"].isin(metrics)]
    if not {"open", "proprietary"} <= set(c["group"]) or c.empty:
        return not_applicable("access groups open and proprietary both needed", {"groups": sorted(set(c["group"]))})
    sens, var, nums, n = {}, {}, {}, []
    for g in ("open", "proprietary"):
        rs, vs = [], []
        for m, cm in c[c["group"] == g].groupby("metric_name"):
            top, bot = cm.loc[cm["mean"].idxmax()], cm.loc[cm["mean"].idxmin()]
            rs.append(float(top["mean"] - bot["mean"]))
            vs.append(sum((float(r["ci"]) / 1.96) ** 2 for r in (top, bot)))
            nums[f"range {g} {m}"] = rs[-1]
            n.append(int(min(top["n"], bot["n"])))
        sens[g], var[g] = float(np.mean(rs)), float(np.sum(vs)) / len(rs) ** 2
    d, se = sens["open"] - sens["proprietary"], float(np.sqrt(var["open"] + var["proprietary"]))
    nums.update({"sensitivity open": sens["open"], "sensitivity proprietary": sens["proprietary"]})
    return judge([interval("sensitivity open − proprietary", d, d - 1.96 * se, d + 1.96 * se, 0.0, "above",
                           test="Wald, from the curves' CIs", n=min(n), unit="attempts per group and temperature")],
                 nums, "sensitivity = mean over metrics of the range of the group-mean curve across temperatures")


def open_refuse_more(per_attempt: pd.DataFrame) -> Verdict:
    """Open models refuse more than proprietary ones at every temperature: over the sweep, the
    difference of the model means open − proprietary (each model weighing the same, the runs'
    error given the models and prompts: :func:`lib.scholar.claims_rules.model_difference`) above
    0, and at no temperature significantly below 0."""
    d = per_attempt[(per_attempt["metric_name"] == "refusal_pct") & per_attempt["metric_value"].notna()]
    if not {"open", "proprietary"} <= set(d["access"]):
        return not_applicable("both access groups needed", {"groups": sorted(d["access"].unique())})
    tests = [model_difference(d, "access", "open", "proprietary", "refusal open − proprietary (model means)",
                              by=("param", "temperature"))]
    for t, dt in d.groupby("temperature"):
        if {"open", "proprietary"} <= set(dt["access"]):
            tests.append(model_difference(dt, "access", "open", "proprietary",
                                          f"refusal open − proprietary at T={t:g}", "not below"))
    if len(tests) == 1:
        return not_applicable("no temperature with both access groups")
    o, p = d.loc[d["access"] == "open", "metric_value"], d.loc[d["access"] == "proprietary", "metric_value"]
    so, sp = summary(o, "refusal_pct"), summary(p, "refusal_pct")
    return judge(tests, {"refusal open": so["mean"], "CI open": so["ci"], "n open": so["n"],
                         "refusal proprietary": sp["mean"], "CI proprietary": sp["ci"], "n proprietary": sp["n"],
                         "models open": int(d.loc[d["access"] == "open", "model"].nunique()),
                         "models proprietary": int(d.loc[d["access"] == "proprietary", "model"].nunique())},
                 "the audited models: each model weighs the same")


def constrained_refusals(attempts: pd.DataFrame, *, refusal_col: str = "is_refusal",
                         baseline_tasks=("top_k",)) -> Verdict:
    """Constrained prompting increases refusals: refusal rate of the constrained prompts
    (biased_top_k, not grounded) minus that of the baseline top-k prompts (not grounded), over
    all attempts of notebook 02; its Newcombe 95 % interval against 0 (reference §2.9:
    constrained vs ``baseline_top_100``)."""
    g = ~attempts["grounded"].astype(bool)
    cp = attempts.loc[g & (attempts["task"] == "biased_top_k"), refusal_col]
    base = attempts.loc[g & attempts["task"].isin(baseline_tasks), refusal_col]
    if cp.empty or base.empty:
        return not_applicable("constrained (biased_top_k) and baseline top_k attempts both needed",
                   {"n constrained": int(cp.size), "n baseline": int(base.size)})
    cpv, bv = (cp == 1).astype(float), (base == 1).astype(float)
    a, b = summary(cpv, "refusal_pct"), summary(bv, "refusal_pct")
    return judge([compared(bv, cpv, "refusal_pct", "refusal constrained − baseline")],
                 {"refusal constrained": a["mean"], "CI constrained": a["ci"], "n constrained": a["n"],
                  "refusal baseline top_k": b["mean"], "CI baseline": b["ci"], "n baseline": b["n"]})


def constrained_unethical_share(shares: pd.DataFrame) -> Verdict:
    """Among refusals, the unethical-request share is higher under constrained prompting than at
    baseline. ``shares``: :func:`lib.scholar.interventions.reason_shares` by configuration (counts);
    the shares within refusals get Wilson CIs, their difference Newcombe's, against 0."""
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
    t = compared(b["values"], c["values"], "refusal_pct", "unethical share constrained − baseline")
    return judge([t], {"unethical share constrained": c["mean"], "CI constrained": c["ci"],
                       "refusals constrained": c["n"], "unethical share baseline": b["mean"],
                       "CI baseline": b["ci"], "refusals baseline": b["n"]}, "shares within refusals")


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
        return Check(claim, fn, ("baseline",), NB03, {} if not args else dict(zip(("group", "higher", "lower", "metric"), args)),
                     COLLECTION)

    def kinds(claim, group, higher, lower, metric):
        # the audited models' difference: more runs per prompt narrow it (not consistency's configurations)
        return Check(claim, cb.group_difference, ("baseline",), NB03, {"group": group, "higher": higher, "lower": lower,
                                                                     "metric": metric, "by_model": True}, knob_for(metric))

    def size(claim, metric, direction):
        return Check(claim, cb.size_trend, ("baseline",), NB03, {"metric": metric, "direction": direction}, knob_for(metric))

    return (
        kinds(cb.ACCESS_REFUSALS, "access", "open", "proprietary", "refusal_pct"),
        kinds(cb.ACCESS_VALIDITY, "access", "open", "proprietary", "validity_pct"),
        kinds(cb.ACCESS_FACTUALITY, "access", "proprietary", "open", "factuality_author"),
        kinds(cb.ACCESS_PARITY, "access", "proprietary", "open", "parity_gender"),
        kinds(cb.ACCESS_CONSISTENCY, "access", "proprietary", "open", "consistency"),
        size(cb.SIZE_VALIDITY, "validity_pct", "increase"),
        size(cb.SIZE_REFUSALS, "refusal_pct", "increase"),
        size(cb.SIZE_DUPLICATES, "duplicates", "decrease"),
        size(cb.SIZE_CONSISTENCY, "consistency", "decrease"),
        kinds(cb.REASONING_VALIDITY, "model_class", "non-reasoning", "reasoning", "validity_pct"),
        kinds(cb.REASONING_FACTUALITY, "model_class", "reasoning", "non-reasoning", "factuality_author"),
        b(cb.TASK_FACTUALITY, cb.task_factuality_gap),
        b(cb.SENIORITY_SENIOR, cb.group_difference, "param", "senior", "early_career", "factuality_seniority"),
        Check(TEMP_VALIDITY, temperature_effect, ("sweep",), NB04, {"metric": "validity_pct"}, SWEEP),
        Check(TEMP_CONSISTENCY, temperature_effect_consistency, ("sweep",), NB04, {}, SWEEP),
        Check(TEMP_FACTUALITY, temperature_effect, ("sweep",), NB04, {"metric": "factuality_author"}, SWEEP),
        Check(TEMP_ACCESS, access_sensitivity, ("curves",), NB04, {}, SWEEP),
        Check(TEMP_OPEN_REFUSE, open_refuse_more, ("sweep",), NB04, {}, SWEEP),
        Check(CP_REFUSALS, constrained_refusals, ("collection",), NB04, {"refusal_col": refusal_col}, COLLECTION),
        Check(CP_UNETHICAL, constrained_unethical_share, ("reason_shares",), NB04, {}, COLLECTION),
        *(Check(c, fn, ("all_metrics",), NB04, {}, COLLECTION) for c, fn in (
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
