"""Claims of LLMScholarBench about constrained prompting and RAG (§4.2, §5, App. C.3), checked on
the long per-attempt table of :func:`lib.scholar.constrained.metric_table`.

A comparison is judged on the 95 % CI of the difference against 0 in the claimed direction
(Welch's t-interval for continuous metrics, Newcombe's interval for validity/refusals; the
helpers of :mod:`lib.scholar.claims_rules`), with the four outcomes of :data:`lib.claims.RULE`.
Too little data on either side → "not applicable".
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from lib.claims import Claim, Verdict, interval, judge, not_applicable
from lib.scholar import constrained as cp
from lib.scholar.claims_rules import P, compared, no_rise, summary

CP_FEMALE_FACTUALITY = Claim("lsb-cp-female-factuality", P, "§4.2 (Fig. 4), App. C.3 (Fig. C.13, C.17a)",
                             "Female-only prompts produce the lowest author factuality among the "
                             "gender-constrained prompts.", ("lsb-fig4", "lsb-figC13", "lsb-figC17"))
CP_EQUAL_GENDER_DIVERSITY = Claim("lsb-cp-equal-gender-diversity", P, "§4.2 (Fig. 4), App. C.3 (Fig. C.17a)",
                                  "Enforcing balanced gender representation increases gender diversity.", ("lsb-fig4", "lsb-figC17"))
CP_FACTUALITY_COST = Claim("lsb-cp-factuality-cost", P, "Abstract, §5",
                           "Representation-constrained prompting lowers author factuality.", ("lsb-figC17",))
CP_GENERAL_GENDER_ONLY = Claim("lsb-cp-general-gender-only", P, "App. C.3 (Fig. C.17d)",
                               "A general-diversity prompt improves gender diversity only, not ethnicity, "
                               "publication or citation diversity.", ("lsb-figC17",))
RAG_GENDER_DIVERSITY = Claim("lsb-rag-gender-diversity", P, "Abstract, §4.2 (Fig. 5)",
                             "RAG with web search reduces gender diversity.", ("lsb-fig5",))
RAG_FLASH_VALIDITY = Claim("lsb-rag-flash-validity", P, "§4.2 (Fig. 5 caption)",
                           "Under RAG, gemini-2.5-flash loses more validity than gemini-2.5-pro.", ("lsb-fig5",))
ALL = (CP_FEMALE_FACTUALITY, CP_EQUAL_GENDER_DIVERSITY, CP_FACTUALITY_COST, CP_GENERAL_GENDER_ONLY,
       RAG_GENDER_DIVERSITY, RAG_FLASH_VALIDITY)

FEMALE = "top_100_bias_gender_female"
EQUAL_GENDER = "top_100_bias_gender_equal"
DIVERSE = "top_100_bias_diverse"


def _values(d: pd.DataFrame, metric: str) -> pd.Series:
    return d.loc[d["metric_name"] == metric, "metric_value"].astype(float).dropna()


def _change(before: pd.Series, after: pd.Series, metric: str, label: str) -> dict:
    """Means and n of an after − before comparison."""
    a, b = summary(before, metric), summary(after, metric)
    return {f"{label} before": a["mean"], f"{label} after": b["mean"], f"n {label}": [a["n"], b["n"]]}


def female_lowest_factuality(long: pd.DataFrame) -> Verdict:
    """Female-only has the lowest mean factuality_author of the gender variants: the Welch 95 %
    CI of female − the next-lowest other variant below 0 (which makes female-only the lowest)."""
    _, after, _ = cp.constrained_pairs(long, list(cp.VARIANTS["gender"]))
    vals = {p: _values(after[after["param"] == p], "factuality_author") for p in cp.VARIANTS["gender"]}
    vals = {p: v for p, v in vals.items() if len(v) >= 2}
    if FEMALE not in vals or len(vals) < 2:
        return not_applicable("fewer than two gender variants (incl. female-only) with ≥ 2 factuality values",
                   {"variants": sorted(cp.VARIANTS["gender"][p] for p in vals)})
    means = {p: float(v.mean()) for p, v in vals.items()}
    other = min((p for p in vals if p != FEMALE), key=means.get)
    nums = {f"factuality {cp.VARIANTS['gender'][p]}": m for p, m in means.items()}
    return judge([compared(vals[other], vals[FEMALE], "factuality_author",
                           f"factuality female − {cp.VARIANTS['gender'][other]}", "below")], nums)


def _directional(long: pd.DataFrame, params, metric: str, direction: str, label: str) -> Verdict:
    before, after, used = cp.constrained_pairs(long, list(params))
    b, a = _values(before, metric), _values(after, metric)
    if len(b) < 2 or len(a) < 2:
        return not_applicable(f"{metric}: fewer than two values before ({len(b)}) or after ({len(a)})")
    nums = _change(b, a, metric, label)
    nums["before prompt"] = used
    side = "above" if direction == "higher" else "below"
    return judge([compared(b, a, metric, f"{label} change", side)], nums)


def equal_gender_raises_diversity(long: pd.DataFrame) -> Verdict:
    """Gender-equal prompt vs the unconstrained top-100 prompt of the same models: diversity_gender higher."""
    return _directional(long, [EQUAL_GENDER], "diversity_gender", "higher", "gender diversity")


def constrained_lowers_factuality(long: pd.DataFrame) -> Verdict:
    """All constrained variants pooled vs the unconstrained top-100 prompt: factuality_author lower."""
    params = [p for v in cp.VARIANTS.values() for p in v]
    return _directional(long, params, "factuality_author", "lower", "factuality")


#: The three diversities the paper says the general prompt leaves unchanged.
UNCHANGED = ("diversity_ethnicity", "diversity_prominence_pub", "diversity_prominence_cit")


def general_gender_only(long: pd.DataFrame) -> Verdict:
    """The diverse prompt raises diversity_gender (95 % CI above 0) and none of the other three
    diversities (the paper's "only gender"): each one's change lies below the smallest rise that
    counts (:func:`lib.scholar.claims_rules.no_rise`, 0.2 pooled SD): "unchanged" is a statement
    of equivalence, and judged against 0 any small true rise contradicts it once the sample is
    large. The three "no rise" statistics are one family, each at 1 − 0.05/3 (Bonferroni), so
    that a rise in one of three by chance does not contradict it."""
    before, after, used = cp.constrained_pairs(long, [DIVERSE])
    tests = []
    for metric in ("diversity_gender", *UNCHANGED):
        b, a = _values(before, metric), _values(after, metric)
        if len(b) < 2 or len(a) < 2:
            return not_applicable(f"{metric}: fewer than two values before ({len(b)}) or after ({len(a)})")
        tests.append(no_rise(b, a, metric, f"{metric} change", alpha=0.05 / len(UNCHANGED)) if metric in UNCHANGED
                     else compared(b, a, metric, f"{metric} change", "above"))
    return judge(tests, {"before prompt": used})


def rag_lowers_gender_diversity(long: pd.DataFrame) -> Verdict:
    """Grounded vs non-grounded Gemini, baseline tasks pooled: diversity_gender lower."""
    before, after = cp.rag_pairs(long)
    b, a = _values(before, "diversity_gender"), _values(after, "diversity_gender")
    if len(b) < 2 or len(a) < 2:
        return not_applicable(f"diversity_gender: fewer than two values without ({len(b)}) or with RAG ({len(a)})")
    return judge([compared(b, a, "diversity_gender", "gender diversity change with RAG", "below")],
                 _change(b, a, "diversity_gender", "gender diversity"))


def flash_loses_more_validity(long: pd.DataFrame, *, flash: str = "gemini-2.5-flash",
                              pro: str = "gemini-2.5-pro", alpha: float = 0.05) -> Verdict:
    """Validity drop (before − after RAG) of Flash minus that of Pro, with a Wald interval
    (normal approximation, the four request-level proportions independent), against 0."""
    before, after = cp.rag_pairs(long)
    p, n, nums = {}, {}, {}
    for model in (flash, pro):
        for side, d in (("before", before), ("after", after)):
            v = _values(d[d["base_model"] == model], "validity_pct")
            if v.empty:
                return not_applicable(f"{model}: no validity values {side} RAG")
            p[model, side], n[model, side] = float(v.mean()), len(v)
        nums[f"{model} validity drop"] = p[model, "before"] - p[model, "after"]
    dd = nums[f"{flash} validity drop"] - nums[f"{pro} validity drop"]
    se = np.sqrt(sum(p[k] * (1 - p[k]) / n[k] for k in p))
    half = st.norm.ppf(1 - alpha / 2) * se
    nums["n requests (flash B, A, pro B, A)"] = [n[k] for k in n]
    return judge([interval("validity drop flash − pro", dd, dd - half, dd + half, 0.0, "above",
                           test="Wald, four proportions", n=min(n.values()), unit="requests per cell")], nums)
