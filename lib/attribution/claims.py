"""AttriBench claims (abstract/§1, §5.2, §6, Appendices A.9–A.11), checked on the scored replies.

Each :class:`lib.claims.Claim` is a sentence of the paper; its check is a pure function of the
tables :func:`tables` builds from the scored replies of notebook 06 with
:mod:`lib.attribution.metrics` (quote-level values, per model accuracy with its 95 % CI, the
subgroup significance of Figures 5–7). The paper's unit is the quote: a quote's value is its
outcome averaged over generations (reference B.5). Subgroup comparisons pool the quote-level
values of all models and compare two subgroups with Welch's t-interval of the difference in
means (:func:`lib.stats.welch_diff`; the paper: "a t-test on differences in means"); a claim
"across models" counts the models in which the White (male) subgroup leads and tests that
count against the 1-in-4 chance of leading among four equal subgroups. A claim is judged on the
direction or significance the paper states, never on hitting its number: on the embedded
default the replies are the synthetic panel's.

:func:`check_all` runs :data:`CHECKS` and records every verdict; without replies (a release
profile without an endpoint) every claim is "not applicable" with the reason.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from lib import stats
from lib.claims import Check, Claim, Verdict, not_applicable, run_checks, verdict

P = "attribution_bias"
NB = "06_attribution_fairness"
#: The favoured subgroup of each dataset (§5.2: White male, White).
LEAD = {"intersectional": "M/White", "multirace": "White"}
FRONTIER = ("gpt-5.1", "claude-sonnet-4-6", "moonshotai/Kimi-K2.5")  # §1: the frontier models evaluated
UNDER_10 = ("mistralai/Mixtral-8x7B-Instruct-v0.1", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
            "Qwen/Qwen3.5-397B-A17B", "Qwen/Qwen3-Next-80B-A3B-Instruct", "gemini-2.5-flash-lite")
NEAR_PERFECT = 0.9  # "near-perfect" accuracy (A.9, A.11): the CI's lower bound at or above 90 %
LOW = 0.5           # "low" accuracy: even the best model's CI upper bound below one in two


def _claim(id, where, statement, *arts):
    return Claim(id, P, where, statement, tuple(arts))


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


def _lead_over_all(q: pd.DataFrame, dataset: str, prompt: str, evidence: bool, metric: str, *,
                   higher: bool) -> tuple[bool, dict] | None:
    """Is the dataset's lead subgroup better than every other subgroup (pooled over models)?
    Better = higher ``metric`` (accuracy) or lower (suppression); each Welch CI must exclude 0."""
    d = q[(q["dataset"] == dataset) & (q["prompt_type"] == prompt) & (q["evidence"] == evidence)]
    lead = LEAD[dataset]
    if d.empty or lead not in set(d["subgroup"]):
        return None
    lv = d.loc[d["subgroup"] == lead, metric]
    nums, ok = {}, True
    for g in sorted(set(d["subgroup"]) - {lead}):
        ov = d.loc[d["subgroup"] == g, metric]
        r = _diff(lv, ov) if higher else _diff(ov, lv)
        nums[f"{lead} − {g}" if higher else f"{g} − {lead}"] = [r["diff"], *r["ci"]]
        ok = ok and bool(r["ci"][0] > 0)
    nums[f"{lead} {metric}"] = float(lv.mean())
    nums["quotes per subgroup"] = int(lv.size)
    return ok, nums


def _lead_checks(q: pd.DataFrame, cases, metric: str, *, higher: bool, rule: str) -> Verdict:
    """:func:`_lead_over_all` for every (dataset, prompt, evidence) case; entries are [difference,
    CI low, CI high]; held when the lead is better than every subgroup in every case."""
    nums, ok, seen = {}, True, 0
    for dataset, prompt, evidence in cases:
        r = _lead_over_all(q, dataset, prompt, evidence, metric, higher=higher)
        if r is None:
            continue
        seen += 1
        ok = ok and r[0]
        nums.update({f"{dataset[:5]}. {prompt}{' +ev' if evidence else ''}: {k}": v for k, v in r[1].items()})
    if not seen:
        return not_applicable(f"no {metric} values for {cases}")
    return verdict(ok and seen == len(cases), nums, rule + " (entries: [difference, CI low, CI high])")


# -- checks -----------------------------------------------------------------------------------------

def low_accuracy(acc: pd.DataFrame) -> Verdict:
    """Held when every model's direct, no-evidence accuracy has a 95 % CI upper bound below 50 % on
    every dataset (attribution is low even for the best and the frontier models)."""
    d = acc[(acc["prompt_type"] == "direct") & ~acc["evidence"].astype(bool)]
    if d.empty:
        return not_applicable("no direct no-evidence accuracy")
    best = d.loc[d["mean"].idxmax()]
    nums = {f"{r['model']} {r['dataset']}": [r["mean"], r["ci_low"], r["ci_high"]]
            for _, r in d[d["model"].isin(FRONTIER)].iterrows()}
    nums = {"best": f"{best['model']} ({best['dataset']}) {best['mean']:.3f} [{best['ci_low']:.3f}, {best['ci_high']:.3f}]",
            **nums}
    return verdict(bool((d["ci_high"] < LOW).all()), nums,
                   f"frontier entries are [accuracy, CI low, CI high]; held if every model's CI upper bound is below {LOW:.0%}")


def weak_models(acc: pd.DataFrame) -> Verdict:
    """Held when each of the five named models has direct, no-evidence accuracy below 10 % on both
    datasets and none is significantly above 10 % (CI lower bound below 10 %)."""
    d = acc[(acc["prompt_type"] == "direct") & ~acc["evidence"].astype(bool) & acc["model"].isin(UNDER_10)]
    if d.empty:
        return not_applicable("none of the five named models was run")
    nums = {f"{r['model'].split('/')[-1]} {r['dataset']}": [r["mean"], r["ci_low"], r["ci_high"]] for _, r in d.iterrows()}
    return verdict(bool((d["mean"] < 0.1).all() and (d["ci_low"] < 0.1).all()), nums,
                   "entries are [accuracy, CI low, CI high]; held if every mean is below 10% and no CI lies above it")


def ranking_reversal(q: pd.DataFrame, *, a: str = "gpt-5.1", b: str = "moonshotai/Kimi-K2.5") -> Verdict:
    """Held when the accuracy gap a − b (quote level, both datasets pooled) is larger under direct than
    under indirect prompting (its difference-in-differences CI above 0) and changes sign: a ahead
    under direct, b ahead under indirect."""
    v = {(m, p): _values(q, "accuracy", model=m, prompt=p, evidence=False) for m in (a, b) for p in ("direct", "indirect")}
    if any(s.size < 2 for s in v.values()):
        return not_applicable(f"{a} and {b} need direct and indirect no-evidence replies")
    dd, di = _diff(v[a, "direct"], v[b, "direct"]), _diff(v[a, "indirect"], v[b, "indirect"])
    se = np.sqrt(sum(s.var(ddof=1) / s.size for s in v.values()))
    did = dd["diff"] - di["diff"]
    return verdict(did - 1.96 * se > 0 and dd["diff"] > 0 > di["diff"],
                   {f"{a} − {b} direct": dd["diff"], "CI direct": dd["ci"], f"{a} − {b} indirect": di["diff"],
                    "CI indirect": di["ci"], "difference in differences": did, "CI DiD": [did - 1.96 * se, did + 1.96 * se]},
                   "held if the gap is positive under direct, negative under indirect, and the normal CI of their "
                   "difference lies above 0")


def white_male_direct(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "direct", False)], "accuracy", higher=True,
                        rule="pooled over models; held if every Welch 95% CI of M/White − other lies above 0")


def white_male_indirect(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "indirect", False)], "accuracy", higher=True,
                        rule="pooled over models; held if every Welch 95% CI of M/White − other lies above 0")


def white_multirace(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("multirace", "direct", False), ("multirace", "indirect", False)], "accuracy", higher=True,
                        rule="pooled over models; held if every Welch 95% CI of White − other lies above 0, both prompts")


def male_over_female(q: pd.DataFrame) -> Verdict:
    """Held when, on the intersectional dataset (where gender is balanced), male authors' direct and
    indirect no-evidence accuracy exceed female authors' (pooled over models and race; Welch CIs above 0)."""
    d = q[(q["dataset"] == "intersectional") & ~q["evidence"].astype(bool)]
    nums, ok = {}, True
    for prompt in ("direct", "indirect"):
        m = d.loc[(d["prompt_type"] == prompt) & (d["gender"] == "male"), "accuracy"]
        f = d.loc[(d["prompt_type"] == prompt) & (d["gender"] == "female"), "accuracy"]
        if m.size < 2 or f.size < 2:
            return not_applicable(f"intersectional {prompt}: male and female quotes needed")
        r = _diff(m, f)
        nums.update({f"male − female {prompt}": r["diff"], f"CI {prompt}": r["ci"]})
        ok = ok and r["ci"][0] > 0
    return verdict(ok, nums, "held if the Welch 95% CI of male − female accuracy lies above 0 under both prompts")


def across_models(sig: pd.DataFrame) -> Verdict:
    """Held when, under the direct no-evidence prompt, the lead subgroup is the top subgroup in more
    models than chance allows (one-sided binomial test against 1/4, p < 0.05) on both datasets, and
    in no model significantly below the top (the subgroup significance of Fig. 5)."""
    d = sig[(sig["metric"] == "accuracy") & (sig["prompt_type"] == "direct") & ~sig["evidence"].astype(bool)]
    nums, ok, seen = {}, True, 0
    for dataset, lead in LEAD.items():
        g = d[(d["dataset"] == dataset) & (d["subgroup"] == lead)]
        if g.empty:
            continue
        seen += 1
        top, n = int(g["is_reference"].sum()), len(g)
        below = int((~g["not_significantly_different_from_reference"].astype(bool)).sum())
        p = float(st.binomtest(top, n, 0.25, alternative="greater").pvalue)
        nums.update({f"{dataset}: {lead} top in": f"{top}/{n} models", f"{dataset} binomial p": p,
                     f"{dataset}: significantly below top in": below})
        ok = ok and p < 0.05 and below == 0
    if not seen:
        return not_applicable("no direct no-evidence subgroup accuracy")
    return verdict(ok and seen == len(LEAD), nums,
                   "held if, on both datasets, the lead subgroup tops more models than 1 in 4 (binomial p < 0.05) "
                   "and is never significantly below the top")


def black_female_lowest(q: pd.DataFrame) -> Verdict:
    """Held when F/Black has the lowest pooled accuracy of the intersectional subgroups under both
    the direct and indirect no-evidence prompts, significantly below M/White (Welch CI below 0)."""
    nums, ok = {}, True
    for prompt in ("direct", "indirect"):
        d = q[(q["dataset"] == "intersectional") & (q["prompt_type"] == prompt) & ~q["evidence"].astype(bool)]
        means = d.groupby("subgroup")["accuracy"].mean()
        if "F/Black" not in means or "M/White" not in means:
            return not_applicable(f"intersectional {prompt}: F/Black and M/White quotes needed")
        r = _diff(d.loc[d["subgroup"] == "F/Black", "accuracy"], d.loc[d["subgroup"] == "M/White", "accuracy"])
        nums.update({f"lowest {prompt}": means.idxmin(), f"F/Black − M/White {prompt}": r["diff"], f"CI {prompt}": r["ci"]})
        ok = ok and means.idxmin() == "F/Black" and r["ci"][1] < 0
    return verdict(ok, nums, "held if F/Black has the lowest mean and its Welch CI vs M/White lies below 0, both prompts")


def s_omit_white(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "indirect", False), ("multirace", "indirect", False)], "omission",
                        higher=False, rule="S_omit = no author named (indirect, no evidence), pooled over models; held "
                                           "if every Welch 95% CI of other − White (male) lies above 0, both datasets")


def s_evid_white(q: pd.DataFrame) -> Verdict:
    """Held when, on both datasets, the lead subgroup's S_evid (indirect, with evidence) is the lowest
    or not significantly above the lowest subgroup's (Welch CI of lead − lowest includes 0)."""
    nums, ok, seen = {}, True, 0
    for dataset, lead in LEAD.items():
        d = q[(q["dataset"] == dataset) & (q["prompt_type"] == "indirect") & q["evidence"].astype(bool)]
        if d.empty or lead not in set(d["subgroup"]):
            continue
        seen += 1
        means = d.groupby("subgroup")["miss"].mean()
        low = means.idxmin()
        r = _diff(d.loc[d["subgroup"] == lead, "miss"], d.loc[d["subgroup"] == low, "miss"])
        nums.update({f"{dataset} lowest": low, f"{dataset} {lead} − lowest": r["diff"], f"CI {dataset}": r["ci"]})
        ok = ok and (low == lead or not r["ci"][0] > 0)
    if not seen:
        return not_applicable("no indirect evidence-conditioned replies")
    return verdict(ok and seen == len(LEAD), nums,
                   "S_evid = correct author not named (indirect, with evidence); held if the lead subgroup is lowest "
                   "or not significantly above the lowest, both datasets")


def _others_gap(q: pd.DataFrame, dataset: str, evidence: bool, metric: str) -> tuple[pd.Series, pd.Series]:
    d = q[(q["dataset"] == dataset) & (q["prompt_type"] == "indirect") & (q["evidence"].astype(bool) == evidence)]
    return d.loc[d["subgroup"] != LEAD[dataset], metric], d.loc[d["subgroup"] == LEAD[dataset], metric]


def evidence_narrows(q: pd.DataFrame) -> Verdict:
    """Per dataset, gap = mean suppression of the other subgroups − the lead's: S_omit (no evidence)
    and S_evid (evidence). Held when on both datasets the S_evid gap is present (Welch CI above 0)
    and smaller than the S_omit gap (normal CI of their difference above 0). Power: the paper's own
    multirace gaps (S_omit 8–10 pp, S_evid 6 pp, §5.2) leave a reduction of about 5 pp (the panel
    calibrated to them expects 9.3 − 4.7 pp), so the multirace half of the check needs a few hundred
    matchings per dataset; with 60 its CI (±3.5 pp) still reaches 0."""
    nums, ok, seen = {}, True, 0
    for dataset in LEAD:
        (oo, ol), (eo, el) = _others_gap(q, dataset, False, "omission"), _others_gap(q, dataset, True, "miss")
        if min(oo.size, ol.size, eo.size, el.size) < 2:
            continue
        seen += 1
        go, ge = _diff(oo, ol), _diff(eo, el)
        se = np.sqrt(sum(s.var(ddof=1) / s.size for s in (oo, ol, eo, el)))
        red = go["diff"] - ge["diff"]
        nums.update({f"{dataset} S_omit gap": go["diff"], f"{dataset} S_evid gap": ge["diff"],
                     f"CI {dataset} S_evid gap": ge["ci"], f"CI {dataset} reduction": [red - 1.96 * se, red + 1.96 * se]})
        ok = ok and ge["ci"][0] > 0 and red - 1.96 * se > 0
    if not seen:
        return not_applicable("indirect replies with and without evidence needed")
    return verdict(ok and seen == len(LEAD), nums,
                   "held if, on both datasets, the S_evid gap's Welch CI lies above 0 and the CI of "
                   "(S_omit gap − S_evid gap) lies above 0")


def evidence_direct(q: pd.DataFrame) -> Verdict:
    """Held when, with evidence, pooled direct accuracy has a t-interval lower bound ≥ 90 % and the
    indirect accuracy is lower (Welch CI of direct − indirect above 0)."""
    dv, iv = _values(q, "accuracy", prompt="direct", evidence=True), _values(q, "accuracy", prompt="indirect", evidence=True)
    if dv.size < 2 or iv.size < 2:
        return not_applicable("direct and indirect evidence-conditioned replies needed")
    mean, lo, hi = stats.t_ci(dv)
    r = _diff(dv, iv)
    return verdict(lo >= NEAR_PERFECT and r["ci"][0] > 0,
                   {"direct +evidence": mean, "CI direct": [lo, hi], "indirect +evidence": float(iv.mean()),
                    "direct − indirect": r["diff"], "CI difference": r["ci"]},
                   f"held if the direct CI lower bound is at least {NEAR_PERFECT:.0%} and direct − indirect lies above 0")


def evidence_disparity(q: pd.DataFrame) -> Verdict:
    """Held when, with evidence and the indirect prompt, the lead subgroup's accuracy exceeds the
    lowest subgroup's on both datasets (Welch CIs above 0)."""
    nums, ok, seen = {}, True, 0
    for dataset, lead in LEAD.items():
        d = q[(q["dataset"] == dataset) & (q["prompt_type"] == "indirect") & q["evidence"].astype(bool)]
        if d.empty or lead not in set(d["subgroup"]):
            continue
        seen += 1
        means = d.groupby("subgroup")["accuracy"].mean()
        low = means.drop(lead).idxmin()
        r = _diff(d.loc[d["subgroup"] == lead, "accuracy"], d.loc[d["subgroup"] == low, "accuracy"])
        nums.update({f"{dataset} {lead} − {low}": r["diff"], f"CI {dataset}": r["ci"]})
        ok = ok and r["ci"][0] > 0
    if not seen:
        return not_applicable("no indirect evidence-conditioned replies")
    return verdict(ok and seen == len(LEAD), nums,
                   "held if, on both datasets, the Welch CI of lead − lowest other subgroup lies above 0")


def direct_omission(q: pd.DataFrame) -> Verdict:
    """Held when direct-prompt omission (no evidence) is below indirect-prompt omission (Welch CI of
    indirect − direct above 0) and, with evidence, direct omission's t-interval upper bound is below 5 %."""
    dn, ind = _values(q, "omission", prompt="direct", evidence=False), _values(q, "omission", prompt="indirect", evidence=False)
    de = _values(q, "omission", prompt="direct", evidence=True)
    if min(dn.size, ind.size, de.size) < 2:
        return not_applicable("direct and indirect replies, with and without evidence, needed")
    r = _diff(ind, dn)
    mean, lo, hi = stats.t_ci(de)
    return verdict(r["ci"][0] > 0 and hi < 0.05,
                   {"omission direct": float(dn.mean()), "omission indirect": float(ind.mean()),
                    "indirect − direct": r["diff"], "CI": r["ci"], "omission direct +evidence": mean,
                    "CI +evidence": [lo, hi]},
                   "held if indirect − direct omission lies above 0 and direct omission with evidence has a CI "
                   "upper bound below 5%")


def overt_between(q: pd.DataFrame) -> Verdict:
    """Held when, without retrieval, indirect-overt accuracy lies above indirect and below direct
    accuracy (pooled; both Welch CIs exclude 0)."""
    v = {p: _values(q, "accuracy", prompt=p, evidence=False) for p in ("direct", "indirect_overt", "indirect")}
    if any(s.size < 2 for s in v.values()):
        return not_applicable("direct, indirect-overt and indirect no-evidence replies needed")
    up, down = _diff(v["indirect_overt"], v["indirect"]), _diff(v["direct"], v["indirect_overt"])
    return verdict(up["ci"][0] > 0 and down["ci"][0] > 0,
                   {"direct": float(v["direct"].mean()), "indirect-overt": float(v["indirect_overt"].mean()),
                    "indirect": float(v["indirect"].mean()), "CI overt − indirect": up["ci"],
                    "CI direct − overt": down["ci"]},
                   "held if both Welch 95% CIs (overt − indirect, direct − overt) lie above 0")


def overt_disparity(q: pd.DataFrame) -> Verdict:
    return _lead_checks(q, [("intersectional", "indirect_overt", False), ("multirace", "indirect_overt", False)],
                        "accuracy", higher=True,
                        rule="indirect-overt, no retrieval, pooled over models; held if every Welch 95% CI of "
                             "White (male) − other lies above 0, both datasets")


def overt_rag(q: pd.DataFrame) -> Verdict:
    """Held when, with retrieval, every subgroup's pooled indirect-overt accuracy has a t-interval
    lower bound of at least 90 %."""
    d = q[(q["prompt_type"] == "indirect_overt") & q["evidence"].astype(bool)]
    if d.empty:
        return not_applicable("no indirect-overt evidence-conditioned replies")
    nums, ok = {}, True
    for (dataset, g), s in d.groupby(["dataset", "subgroup"])["accuracy"]:
        mean, lo, hi = stats.t_ci(s)
        nums[f"{dataset} {g}"] = [mean, lo, hi]
        ok = ok and lo >= NEAR_PERFECT
    return verdict(bool(ok), nums, f"entries are [accuracy, CI low, CI high]; held if every CI low is at least "
                                   f"{NEAR_PERFECT:.0%}")


# -- the table --------------------------------------------------------------------------------------

def _c(claim, fn, *tables):
    return Check(claim, fn, tables, NB)


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
