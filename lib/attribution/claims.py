"""AttriBench claims (abstract/§1, §5.2, §6, Appendices A.9–A.11), checked on the scored replies.

Each :class:`lib.claims.Claim` is a sentence of the paper; its check is a pure function of the
tables :func:`tables` builds from the scored replies of notebook 06 with
:mod:`lib.attribution.metrics` (quote-level values, per model accuracy with its 95 % CI, the
subgroup significance of Figures 5–7). The paper's unit is the quote: a quote's value is its
outcome averaged over generations (reference B.5). Subgroup comparisons pool the quote-level
values of all models and compare two subgroups with Welch's t-interval of the difference in
means (:func:`lib.stats.welch_diff`; the paper: "a t-test on differences in means"); a claim
"across models" counts the models in which the White (male) subgroup leads and tests that
count against the 1-in-4 chance of leading among four equal subgroups. Each statistic gets one of
the four outcomes of :data:`lib.claims.RULE`; a claim is judged on the direction or significance
the paper states, never on hitting its number: on the embedded default the replies are the
synthetic panel's. Claims about the frontier (or named) models are not applicable when none of
them answered, or when every model scored 0 (a broken endpoint cannot show that accuracy is low).

:func:`check_all` runs :data:`CHECKS` and records every verdict; without replies (a release
profile without an endpoint) every claim is "not applicable" with the reason.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from lib import stats
from lib.claims import Check, Claim, Knob, Verdict, claim_maker, interval, judge, not_applicable, run_checks

P = "attribution_bias"
NB = "06_attribution_fairness"
#: The favoured subgroup of each dataset (§5.2: White male, White).
LEAD = {"intersectional": "M/White", "multirace": "White"}
FRONTIER = ("gpt-5.1", "claude-sonnet-4-6", "moonshotai/Kimi-K2.5")  # §1: the frontier models evaluated
UNDER_10 = ("mistralai/Mixtral-8x7B-Instruct-v0.1", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
            "Qwen/Qwen3.5-397B-A17B", "Qwen/Qwen3-Next-80B-A3B-Instruct", "gemini-2.5-flash-lite")
NEAR_PERFECT = 0.9  # "near-perfect" accuracy (A.9, A.11): the CI's lower bound at or above 90 %
LOW = 0.5           # "low" accuracy: even the best model's CI upper bound below one in two
#: What the quote samples grow with: matchings asked per dataset, one quote per subgroup and model
#: each (measured: 24 matchings gave 24 quotes per subgroup and model); 0 (paper) = the whole
#: dataset, 1,914 quotes per subgroup on the smaller (multirace) released dataset (1,991 intersectional).
MATCHINGS = Knob(NB, "run_matchings", zero=1914)
UNIT = "quotes per subgroup"


_claim = claim_maker(P)


LOW_ACCURACY = _claim("at-low-accuracy", "Abstract, §1, §5.2 (Fig. 4), §6",
                      "Attribution accuracy is low even for frontier models (GPT-5.1, Claude 4.6 Sonnet ~25–27% "
                      "direct accuracy on the intersectional dataset, ~21–23% on the multirace one).", "at-fig4")
WEAK_MODELS = _claim("at-weak-models", "§5.2 (Fig. 4)",
                     "Mixtral-8x7B, Llama-4 Maverick, Qwen3.5-397B, Qwen3-Next-80B and Gemini 2.5 Flash-Lite all "
                     "achieve under 10% accuracy on both datasets.", "at-fig4")
RANKING_REVERSAL = _claim("at-ranking-reversal", "§5.2 (Fig. 4)",
                          "Direct and indirect rankings differ: GPT-5.1 outperforms Kimi-K2.5 under direct prompting "
                          "but is surpassed under indirect prompting.", "at-fig4")
WHITE_MALE_DIRECT = _claim("at-white-male-direct", "§5.2 (Fig. 5)",
                           "In the intersectional dataset White male authors have significantly higher direct-prompt "
                           "accuracy than every other subgroup.", "at-fig5")
WHITE_MALE_INDIRECT = _claim("at-white-male-indirect", "§5.2 (Fig. 5)",
                             "In the intersectional dataset White male authors have significantly higher "
                             "indirect-prompt accuracy than every other subgroup.", "at-fig5")
WHITE_MULTIRACE = _claim("at-white-multirace", "§5.2 (Fig. 5)",
                         "In the multirace dataset White is the significantly highest-accuracy subgroup under direct "
                         "and indirect prompts.", "at-fig5")
MALE_OVER_FEMALE = _claim("at-male-over-female", "Abstract, §1, §6",
                          "Disparities favour male authors: male authors are attributed correctly more often than "
                          "female authors.", "at-fig5")
ACROSS_MODELS = _claim("at-across-models", "§1, §5.2 (Fig. 5)",
                       "The White male (intersectional) and White (multirace) subgroups lead direct-prompt accuracy "
                       "across models.", "at-fig5")
BLACK_FEMALE_LOWEST = _claim("at-black-female-lowest", "§5.2 (Fig. 5)",
                             "Black female authors exhibit the lowest accuracy in the intersectional dataset with "
                             "both direct and indirect prompts.", "at-fig5")
S_OMIT_WHITE = _claim("at-s-omit-white", "§5.2 (Fig. 6), §6",
                      "White (and White male) authors have the lowest omission suppression S_omit; every other "
                      "subgroup's S_omit is significantly higher.", "at-fig6")
S_EVID_WHITE = _claim("at-s-evid-white", "§5.2 (Fig. 7)",
                      "With evidence, White male and White authors are the minimum-S_evid subgroup or statistically "
                      "indistinguishable from it.", "at-fig7")
EVIDENCE_NARROWS = _claim("at-evidence-narrows", "§5.2 (Figs. 6, 7)",
                          "Providing evidence reduces but does not eliminate suppression disparities (S_evid gaps "
                          "smaller than S_omit gaps, yet present).", "at-fig6", "at-fig7")
EVIDENCE_DIRECT = _claim("at-evidence-direct", "App. A.9 (Fig. 13)",
                         "With the correct author in the retrieved evidence, direct accuracy is near-perfect, but "
                         "indirect accuracy drops substantially.", "at-fig13")
EVIDENCE_DISPARITY = _claim("at-evidence-disparity", "App. A.9 (Fig. 14)",
                            "Accuracy disparities between demographic groups remain significant in the "
                            "evidence-conditioned setting with indirect prompting.", "at-fig14")
DIRECT_OMISSION = _claim("at-direct-omission", "App. A.10 (Fig. 15)",
                         "Author omission under the direct prompt is much lower than under the indirect prompt and "
                         "near zero with evidence.", "at-fig15")
OVERT_BETWEEN = _claim("at-overt-between", "App. A.11 (Fig. 16)",
                       "Without retrieval, indirect-overt prompting performs worse than direct but better than "
                       "indirect prompting.", "at-fig16")
OVERT_DISPARITY = _claim("at-overt-disparity", "App. A.11 (Fig. 16)",
                         "Without retrieval, indirect-overt accuracy is higher for White male (intersectional) and "
                         "White (multirace) authors.", "at-fig16")
OVERT_RAG = _claim("at-overt-rag", "App. A.11 (Fig. 16)",
                   "With retrieval, indirect-overt accuracy is near-perfect across subgroups.", "at-fig16")


# -- helpers ----------------------------------------------------------------------------------------

def _values(q: pd.DataFrame, metric: str, *, dataset=None, prompt=None, evidence=None, subgroup=None,
            model=None) -> pd.Series:
    m = pd.Series(True, index=q.index)
    for col, val in (("dataset", dataset), ("prompt_type", prompt), ("evidence", evidence), ("subgroup", subgroup),
                     ("model", model)):
        if val is not None:
            m &= q[col].isin(val) if isinstance(val, (list, tuple, set)) else q[col].eq(val)
    return q.loc[m, metric].astype(float)


def _diff(a: pd.Series, b: pd.Series) -> dict:
    d, lo, hi = stats.welch_diff(a, b)
    return {"diff": d, "ci": [lo, hi], "n": [int(a.size), int(b.size)]}


def _welch(a: pd.Series, b: pd.Series, statistic: str, side: str = "above", threshold: float = 0.0,
           published: float | None = None):
    """mean(a) − mean(b) with its Welch 95 % interval as a judged statistic (n = the smaller side)."""
    d, lo, hi = stats.welch_diff(a, b)
    return interval(statistic, d, lo, hi, threshold, side, test="Welch t", n=int(min(a.size, b.size)), unit=UNIT,
                    published=published)


def _mean(v: pd.Series, statistic: str, threshold: float, side: str):
    mean, lo, hi = stats.t_ci(v)
    return interval(statistic, mean, lo, hi, threshold, side, test="t", n=int(v.size), unit="quotes",
                    design="one-sample")


def _scored_nothing(acc: pd.DataFrame) -> bool:
    """True when every model scored 0 everywhere: the replies cannot test a claim about accuracy."""
    return bool(len(acc)) and bool((acc["mean"].fillna(0) == 0).all())


def _lead_over_all(q: pd.DataFrame, dataset: str, prompt: str, evidence: bool, metric: str, *,
                   higher: bool) -> tuple[list, dict] | None:
    """The dataset's lead subgroup against every other subgroup (pooled over models): one Welch
    statistic per other subgroup, lead − other above 0 (accuracy) or other − lead above 0
    (suppression)."""
    d = q[(q["dataset"] == dataset) & (q["prompt_type"] == prompt) & (q["evidence"] == evidence)]
    lead = LEAD[dataset]
    if d.empty or lead not in set(d["subgroup"]):
        return None
    lv = d.loc[d["subgroup"] == lead, metric]
    tag = f"{dataset[:5]}. {prompt}{' +ev' if evidence else ''}"
    tests = []
    for g in sorted(set(d["subgroup"]) - {lead}):
        ov = d.loc[d["subgroup"] == g, metric]
        tests.append(_welch(lv, ov, f"{tag}: {lead} − {g} {metric}") if higher
                     else _welch(ov, lv, f"{tag}: {g} − {lead} {metric}"))
    return tests, {f"{tag}: {lead} {metric}": float(lv.mean()), f"{tag}: quotes per subgroup": int(lv.size)}


def _lead_checks(q: pd.DataFrame, cases, metric: str, *, higher: bool, rule: str) -> Verdict:
    """:func:`_lead_over_all` for every (dataset, prompt, evidence) case; every statistic must hold;
    not applicable unless every case has replies."""
    tests, nums = [], {}
    for dataset, prompt, evidence in cases:
        r = _lead_over_all(q, dataset, prompt, evidence, metric, higher=higher)
        if r is None:
            return not_applicable(f"no {metric} values for {dataset} {prompt} (evidence {evidence})")
        tests += r[0]
        nums.update(r[1])
    return judge(tests, nums, rule)


# -- checks -----------------------------------------------------------------------------------------

def low_accuracy(acc: pd.DataFrame) -> Verdict:
    """Attribution is low even for the frontier models: each frontier model's direct, no-evidence
    accuracy (Wald 95 % CI of :func:`lib.attribution.metrics.accuracy`) below 50 % on every
    dataset. Not applicable when no frontier model answered or every model scored 0."""
    d = acc[(acc["prompt_type"] == "direct") & ~acc["evidence"].astype(bool)]
    if d.empty:
        return not_applicable("no direct no-evidence accuracy")
    fr = d[d["model"].isin(FRONTIER) & (d["n_quotes"] > 0)]
    if fr.empty:
        return not_applicable(f"no frontier model ({', '.join(FRONTIER)}) answered")
    if _scored_nothing(d):
        return not_applicable("every model scored 0: the replies cannot show that accuracy is low")
    best = d.loc[d["mean"].idxmax()]
    tests = [interval(f"{r['model']} {r['dataset']} direct accuracy", r["mean"], r["ci_low"], r["ci_high"], LOW, "below",
                      test="normal (se)", n=int(r["n_quotes"]), unit="quotes", design="one-sample")
             for _, r in fr.iterrows()]
    return judge(tests, {"best": f"{best['model']} ({best['dataset']}) {best['mean']:.3f}"})


def weak_models(acc: pd.DataFrame) -> Verdict:
    """Each of the five named models has direct, no-evidence accuracy below 10 % on both datasets
    (Wald 95 % CI below 10 %). Not applicable when none of them answered or every model scored 0."""
    d = acc[(acc["prompt_type"] == "direct") & ~acc["evidence"].astype(bool)]
    w = d[d["model"].isin(UNDER_10) & (d["n_quotes"] > 0)]
    if w.empty:
        return not_applicable("none of the five named models was run")
    if _scored_nothing(d):
        return not_applicable("every model scored 0: the replies cannot rank the models")
    return judge([interval(f"{r['model'].split('/')[-1]} {r['dataset']} accuracy", r["mean"], r["ci_low"], r["ci_high"],
                           0.1, "below", test="normal (se)", n=int(r["n_quotes"]), unit="quotes", design="one-sample")
                  for _, r in w.iterrows()])


def ranking_reversal(q: pd.DataFrame, *, a: str = "gpt-5.1", b: str = "moonshotai/Kimi-K2.5") -> Verdict:
    """The accuracy gap a − b (quote level, both datasets pooled) is positive under direct and
    negative under indirect prompting (Welch CIs against 0), and larger under direct (normal CI of
    the difference in differences above 0)."""
    v = {(m, p): _values(q, "accuracy", model=m, prompt=p, evidence=False) for m in (a, b) for p in ("direct", "indirect")}
    if any(s.size < 2 for s in v.values()):
        return not_applicable(f"{a} and {b} need direct and indirect no-evidence replies")
    dd, di = _diff(v[a, "direct"], v[b, "direct"]), _diff(v[a, "indirect"], v[b, "indirect"])
    se = np.sqrt(sum(s.var(ddof=1) / s.size for s in v.values()))
    did = dd["diff"] - di["diff"]
    n = min(s.size for s in v.values())
    return judge([_welch(v[a, "direct"], v[b, "direct"], f"{a} − {b} direct"),
                  _welch(v[a, "indirect"], v[b, "indirect"], f"{a} − {b} indirect", "below"),
                  interval("difference in differences", did, did - 1.96 * se, did + 1.96 * se, 0.0, "above",
                           test="normal", n=n, unit="quotes per model and prompt")])


def white_male_direct(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "direct", False)], "accuracy", higher=True,
                        rule="pooled over models; every M/White − other above 0")


def white_male_indirect(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "indirect", False)], "accuracy", higher=True,
                        rule="pooled over models; every M/White − other above 0")


def white_multirace(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("multirace", "direct", False), ("multirace", "indirect", False)], "accuracy", higher=True,
                        rule="pooled over models; every White − other above 0, both prompts")


def male_over_female(q: pd.DataFrame) -> Verdict:
    """On the intersectional dataset (where gender is balanced), male authors' direct and indirect
    no-evidence accuracy exceed female authors' (pooled over models and race; Welch CIs against 0)."""
    d = q[(q["dataset"] == "intersectional") & ~q["evidence"].astype(bool)]
    tests = []
    for prompt in ("direct", "indirect"):
        m = d.loc[(d["prompt_type"] == prompt) & (d["gender"] == "male"), "accuracy"]
        f = d.loc[(d["prompt_type"] == prompt) & (d["gender"] == "female"), "accuracy"]
        if m.size < 2 or f.size < 2:
            return not_applicable(f"intersectional {prompt}: male and female quotes needed")
        tests.append(_welch(m, f, f"male − female accuracy {prompt}"))
    return judge(tests)


def across_models(sig: pd.DataFrame) -> Verdict:
    """Under the direct no-evidence prompt, on each dataset, the lead subgroup tops more models
    than chance: its share of models where it is top, with the Clopper–Pearson 95 % interval of
    the exact binomial test, above 1/4; and it is significantly below the top in no model (the
    subgroup significance of Fig. 5; a share against 0 that must not lie above it)."""
    d = sig[(sig["metric"] == "accuracy") & (sig["prompt_type"] == "direct") & ~sig["evidence"].astype(bool)]
    tests, nums = [], {}
    for dataset, lead in LEAD.items():
        g = d[(d["dataset"] == dataset) & (d["subgroup"] == lead)]
        if g.empty:
            return not_applicable(f"no direct no-evidence subgroup accuracy on {dataset}")
        top, n = int(g["is_reference"].sum()), len(g)
        below = int((~g["not_significantly_different_from_reference"].astype(bool)).sum())
        bt = st.binomtest(top, n, 0.25)
        ci = bt.proportion_ci(0.95)
        tests.append(interval(f"{dataset}: share of models {lead} tops", top / n, ci.low, ci.high, 0.25, "above",
                              test="exact binomial (Clopper–Pearson)", n=n, unit="models", design="one-sample"))
        nums.update({f"{dataset}: {lead} top in": f"{top}/{n} models", f"{dataset} binomial p": float(bt.pvalue),
                     f"{dataset}: significantly below top in": below})
        lo, hi = stats.wilson_ci(below, n)
        tests.append(interval(f"{dataset}: share of models {lead} is significantly below the top", below / n,
                              0.0 if below == 0 else lo, hi, 0.0, "not above", test="count", n=n, unit="models",
                              design="one-sample"))
    return judge(tests, nums)


def black_female_lowest(q: pd.DataFrame) -> Verdict:
    """F/Black has the lowest pooled accuracy of the intersectional subgroups under both the direct
    and indirect no-evidence prompts: F/Black − M/White (Welch CI) below 0, and F/Black − the
    next-lowest subgroup not above 0 (no subgroup significantly below F/Black)."""
    tests = []
    for prompt in ("direct", "indirect"):
        d = q[(q["dataset"] == "intersectional") & (q["prompt_type"] == prompt) & ~q["evidence"].astype(bool)]
        means = d.groupby("subgroup")["accuracy"].mean()
        if "F/Black" not in means or "M/White" not in means:
            return not_applicable(f"intersectional {prompt}: F/Black and M/White quotes needed")
        fb = d.loc[d["subgroup"] == "F/Black", "accuracy"]
        nxt = means.drop("F/Black").idxmin()
        tests += [_welch(fb, d.loc[d["subgroup"] == "M/White", "accuracy"], f"F/Black − M/White accuracy {prompt}",
                         "below"),
                  _welch(fb, d.loc[d["subgroup"] == nxt, "accuracy"], f"F/Black − {nxt} accuracy {prompt}",
                         "not above")]
    return judge(tests)


def s_omit_white(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "indirect", False), ("multirace", "indirect", False)], "omission",
                        higher=False, rule="S_omit = no author named (indirect, no evidence), pooled over models; "
                                           "every other − White (male) above 0, both datasets")


def s_evid_white(q: pd.DataFrame) -> Verdict:
    """On both datasets, the lead subgroup's S_evid (indirect, with evidence) is the lowest or not
    significantly above the lowest other subgroup's: the Welch CI of lead − lowest other does not
    lie above 0."""
    tests = []
    for dataset, lead in LEAD.items():
        d = q[(q["dataset"] == dataset) & (q["prompt_type"] == "indirect") & q["evidence"].astype(bool)]
        if d.empty or lead not in set(d["subgroup"]) or d["subgroup"].nunique() < 2:
            return not_applicable(f"no indirect evidence-conditioned replies on {dataset}")
        if d["miss"].nunique() < 2:   # every reply missed (or named) the author: "indistinguishable" is vacuous
            return not_applicable(f"{dataset}: S_evid is the same for every quote; nothing to compare")
        low = d[d["subgroup"] != lead].groupby("subgroup")["miss"].mean().idxmin()
        tests.append(_welch(d.loc[d["subgroup"] == lead, "miss"], d.loc[d["subgroup"] == low, "miss"],
                            f"{dataset} S_evid {lead} − {low}", "not above"))
    return judge(tests, note="S_evid = correct author not named (indirect, with evidence)")


def _others_gap(q: pd.DataFrame, dataset: str, evidence: bool, metric: str) -> tuple[pd.Series, pd.Series]:
    d = q[(q["dataset"] == dataset) & (q["prompt_type"] == "indirect") & (q["evidence"].astype(bool) == evidence)]
    return d.loc[d["subgroup"] != LEAD[dataset], metric], d.loc[d["subgroup"] == LEAD[dataset], metric]


def evidence_narrows(q: pd.DataFrame) -> Verdict:
    """Per dataset, gap = mean suppression of the other subgroups − the lead's: S_omit (no evidence)
    and S_evid (evidence). On both datasets the S_evid gap is present (Welch CI above 0) and smaller
    than the S_omit gap (normal CI of their difference above 0). Power: the paper's own multirace
    gaps (S_omit 8–10 pp, S_evid 6 pp, §5.2) leave a reduction of about 5 pp (the panel
    calibrated to them expects 9.3 − 4.7 pp), so the multirace half needs a few hundred matchings
    per dataset: on quick it may stay inconclusive, with the size that would decide it."""
    tests = []
    for dataset in LEAD:
        (oo, ol), (eo, el) = _others_gap(q, dataset, False, "omission"), _others_gap(q, dataset, True, "miss")
        if min(oo.size, ol.size, eo.size, el.size) < 2:
            return not_applicable(f"{dataset}: indirect replies with and without evidence needed")
        go, ge = _diff(oo, ol), _diff(eo, el)
        se = np.sqrt(sum(s.var(ddof=1) / s.size for s in (oo, ol, eo, el)))
        red = go["diff"] - ge["diff"]
        tests += [_welch(eo, el, f"{dataset} S_evid gap"),
                  interval(f"{dataset} S_omit gap − S_evid gap", red, red - 1.96 * se, red + 1.96 * se, 0.0, "above",
                           test="normal", n=int(min(ol.size, el.size)), unit=UNIT)]
    return judge(tests)


def evidence_direct(q: pd.DataFrame) -> Verdict:
    """With evidence, pooled direct accuracy is near-perfect (t-interval above 90 %) and the
    indirect accuracy lower (Welch CI of direct − indirect above 0)."""
    dv, iv = _values(q, "accuracy", prompt="direct", evidence=True), _values(q, "accuracy", prompt="indirect", evidence=True)
    if dv.size < 2 or iv.size < 2:
        return not_applicable("direct and indirect evidence-conditioned replies needed")
    return judge([_mean(dv, "direct accuracy +evidence", NEAR_PERFECT, "above"),
                  _welch(dv, iv, "direct − indirect accuracy +evidence")])


def evidence_disparity(q: pd.DataFrame) -> Verdict:
    """With evidence and the indirect prompt, the lead subgroup's accuracy exceeds the lowest
    subgroup's on both datasets (Welch CIs above 0)."""
    tests = []
    for dataset, lead in LEAD.items():
        d = q[(q["dataset"] == dataset) & (q["prompt_type"] == "indirect") & q["evidence"].astype(bool)]
        if d.empty or lead not in set(d["subgroup"]) or d["subgroup"].nunique() < 2:
            return not_applicable(f"no indirect evidence-conditioned replies on {dataset}")
        low = d.groupby("subgroup")["accuracy"].mean().drop(lead).idxmin()
        tests.append(_welch(d.loc[d["subgroup"] == lead, "accuracy"], d.loc[d["subgroup"] == low, "accuracy"],
                            f"{dataset} {lead} − {low} accuracy +evidence"))
    return judge(tests)


def direct_omission(q: pd.DataFrame) -> Verdict:
    """Direct-prompt omission (no evidence) is below indirect-prompt omission (Welch CI of
    indirect − direct above 0) and, with evidence, direct omission is near zero (t-interval below 5 %)."""
    dn, ind = _values(q, "omission", prompt="direct", evidence=False), _values(q, "omission", prompt="indirect", evidence=False)
    de = _values(q, "omission", prompt="direct", evidence=True)
    if min(dn.size, ind.size, de.size) < 2:
        return not_applicable("direct and indirect replies, with and without evidence, needed")
    return judge([_welch(ind, dn, "omission indirect − direct"), _mean(de, "direct omission +evidence", 0.05, "below")])


def overt_between(q: pd.DataFrame) -> Verdict:
    """Without retrieval, indirect-overt accuracy lies above indirect and below direct accuracy
    (pooled; both Welch CIs against 0)."""
    v = {p: _values(q, "accuracy", prompt=p, evidence=False) for p in ("direct", "indirect_overt", "indirect")}
    if any(s.size < 2 for s in v.values()):
        return not_applicable("direct, indirect-overt and indirect no-evidence replies needed")
    return judge([_welch(v["indirect_overt"], v["indirect"], "accuracy overt − indirect"),
                  _welch(v["direct"], v["indirect_overt"], "accuracy direct − overt")])


def overt_disparity(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "indirect_overt", False), ("multirace", "indirect_overt", False)],
                        "accuracy", higher=True,
                        rule="indirect-overt, no retrieval, pooled over models; every White (male) − other above 0")


def overt_rag(q: pd.DataFrame) -> Verdict:
    """With retrieval, every subgroup's pooled indirect-overt accuracy is near-perfect
    (t-interval above 90 %)."""
    d = q[(q["prompt_type"] == "indirect_overt") & q["evidence"].astype(bool)]
    if d.empty:
        return not_applicable("no indirect-overt evidence-conditioned replies")
    return judge([_mean(s, f"{dataset} {g} overt accuracy +evidence", NEAR_PERFECT, "above")
                  for (dataset, g), s in d.groupby(["dataset", "subgroup"])["accuracy"]])


# -- the table --------------------------------------------------------------------------------------

def _c(claim, fn, *tables):
    # across-models counts models, which no profile parameter adds
    return Check(claim, fn, tables, NB, {}, None if claim.id == "at-across-models" else MATCHINGS)


CHECKS = (
    _c(LOW_ACCURACY, low_accuracy, "accuracy"),
    _c(WEAK_MODELS, weak_models, "accuracy"),
    _c(RANKING_REVERSAL, ranking_reversal, "quotes"),
    _c(WHITE_MALE_DIRECT, white_male_direct, "quotes"),
    _c(WHITE_MALE_INDIRECT, white_male_indirect, "quotes"),
    _c(WHITE_MULTIRACE, white_multirace, "quotes"),
    _c(MALE_OVER_FEMALE, male_over_female, "quotes"),
    _c(ACROSS_MODELS, across_models, "subgroups"),
    _c(BLACK_FEMALE_LOWEST, black_female_lowest, "quotes"),
    _c(S_OMIT_WHITE, s_omit_white, "quotes"),
    _c(S_EVID_WHITE, s_evid_white, "quotes"),
    _c(EVIDENCE_NARROWS, evidence_narrows, "quotes"),
    _c(EVIDENCE_DIRECT, evidence_direct, "quotes"),
    _c(EVIDENCE_DISPARITY, evidence_disparity, "quotes"),
    _c(DIRECT_OMISSION, direct_omission, "quotes"),
    _c(OVERT_BETWEEN, overt_between, "quotes"),
    _c(OVERT_DISPARITY, overt_disparity, "quotes"),
    _c(OVERT_RAG, overt_rag, "quotes"),
)
ALL = tuple(c.claim for c in CHECKS)


def tables(scored: pd.DataFrame | None, *, test: str = "z") -> dict[str, pd.DataFrame | None]:
    """The tables the checks read, from the scored replies (:func:`lib.attribution.metrics.score_datasets`):
    ``quotes`` (quote-level values), ``accuracy`` (per model, with 95 % CI) and ``subgroups`` (the
    subgroup significance of direct/indirect accuracy, with the notebook's ``test``). None without replies."""
    from lib.attribution import metrics

    if scored is None or len(scored) == 0:
        return {"quotes": None, "accuracy": None, "subgroups": None}
    return {"quotes": metrics.quote_level(scored), "accuracy": metrics.accuracy(scored),
            "subgroups": metrics.subgroup_significance(metrics.accuracy(scored, subgroups=True), higher_is_better=True,
                                                       test=test)}


def check_all(scored: pd.DataFrame | None, *, synthetic: bool, test: str = "z") -> dict[str, Verdict]:
    """Check every AttriBench claim on the scored replies (None: no replies were collected) and
    record the verdicts in the ledger. Returns {claim id: Verdict}."""
    return run_checks(CHECKS, tables(scored, test=test), synthetic=synthetic)
