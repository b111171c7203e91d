"""Metrics and tests of the main experiment: every table from ab-tab5 to ab-tab23 except the pilot's.

Paper §4.7 (Table 4), §5 and Appendices A.4, A.8, C, E, F, G; reference ``analyse_results.py``,
``analyse_cross_model_agreement.py`` and ``weight_sensitivity.py`` (spec A.8–A.9). Each function
takes the labelled responses table (:mod:`lib.authority.responses`) and returns a table.

Central definitions:

* a *pair* is an ``original`` cell and the cell with the same model, instruction and query in a
  manipulated condition (``flipped`` or ``boosted``), both parsed;
* a pair *flips* when the chosen paper differs (paper Eq. 2); positions are fixed across
  conditions, so this equals comparing the numbers (spec A.8);
* the *flip rate* is flips / pairs under ``flipped``, the *boost rate* the same under ``boosted``.

Rates carry 95 % Wilson intervals (:func:`lib.stats.wilson_ci`; unlike the reference, which
rounds to 4 dp and reports (0, 0) for an empty group, intervals are unrounded and an empty group
gives NaN); differences of rates are reported in percentage points (pp).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as st

from lib import stats as cstats
from lib.authority.responses import check_responses
from lib.authority.scoring import DIMENSIONS

MANIPULATIONS = ("flipped", "boosted")
_KEY = ["model", "instruction", "query_id"]


def _wilson(k: int, n: int) -> tuple[float, float]:
    return cstats.wilson_ci(k, n) if n > 0 else (float("nan"), float("nan"))


def pairs(responses: pd.DataFrame, manipulation: str = "flipped") -> pd.DataFrame:
    """Original/manipulated pairs with their flip indicator (paper Eq. 2; spec A.8).

    One row per (model, instruction, query) where both cells are parsed: ``topic``,
    ``orig_paper_id``, ``manip_paper_id``, ``flipped`` (the chosen paper differs), the composite of
    each pick in its own condition (``orig_composite``, ``manip_composite``) and their normalised
    components (``orig_x_<dim>``, ``manip_x_<dim>``) for the weight-sensitivity re-analysis.
    """
    if manipulation not in MANIPULATIONS:
        raise ValueError(f"manipulation must be one of {MANIPULATIONS}, got {manipulation!r}")
    check_responses(responses, needed=[*_KEY, "topic", "condition", "parsed", "chosen_paper_id", "chosen_composite"])
    keep = ["chosen_paper_id", "chosen_composite", *[f"chosen_x_{d}" for d in DIMENSIONS if f"chosen_x_{d}" in responses]]
    r = responses[responses["parsed"].astype(bool)]
    o = r[r["condition"] == "original"][[*_KEY, "topic", *keep]]
    m = r[r["condition"] == manipulation][[*_KEY, *keep]]
    ren = lambda pre: {c: c.replace("chosen_", pre) for c in keep}  # noqa: E731
    p = o.rename(columns=ren("orig_")).merge(m.rename(columns=ren("manip_")), on=_KEY, how="inner")
    p["flipped"] = p["orig_paper_id"] != p["manip_paper_id"]
    return p.reset_index(drop=True)


def flip_rates(responses: pd.DataFrame, *, p0: float = 1e-4) -> pd.DataFrame:
    """ab-tab5: aggregate flip and boost rates with Wilson CIs and a binomial test (paper §5.1 Table 5).

    Per manipulation: changed, pairs, rate = changed/pairs, consistency = 1 − rate, 95 % Wilson
    interval, and a one-sided binomial test of changed ~ Bin(pairs, p0) against "greater".
    Faithful: the reference tests against p0 = 0.0001 (spec A.8 M6), i.e. "is the rate above
    zero", not against a re-run's stochastic change rate.
    """
    rows = []
    for man in MANIPULATIONS:
        p = pairs(responses, man)
        k, n = int(p["flipped"].sum()), len(p)
        lo, hi = _wilson(k, n)
        rows.append(dict(manipulation=man, changed=k, pairs=n, rate=k / n if n else np.nan,
                         consistency=1 - k / n if n else np.nan, ci_low=lo, ci_high=hi,
                         p_binomial=st.binomtest(k, n, p0, alternative="greater").pvalue if n else np.nan))
    return pd.DataFrame(rows)


def parser_sensitivity(responses: pd.DataFrame, responses_corrected: pd.DataFrame, *,
                       parser: str = "faithful") -> pd.DataFrame:
    """Table 5's flip and boost rates (:func:`flip_rates`) of the same answers read by the run's ``parser``
    (``responses``) and by the corrected one (``responses_corrected``; paper A.5), one block of rows each."""
    cols = ["parser", "manipulation", "rate", "ci_low", "ci_high", "pairs"]
    return pd.concat([flip_rates(responses).assign(parser=parser)[cols],
                      flip_rates(responses_corrected).assign(parser="corrected")[cols]], ignore_index=True)


def flip_boost_gap(responses: pd.DataFrame, *, yates: bool = True) -> dict[str, float]:
    """χ² test that the flip rate differs from the boost rate (paper §5.1: "the 17.5pp gap ... χ² = 427.5").

    2×2 table [[flip changed, flip unchanged], [boost changed, boost unchanged]] with
    ``scipy.stats.chi2_contingency``; faithfully with Yates' continuity correction, which SciPy
    applies to 2×2 tables by default (spec A.8 ⚠); ``yates=False`` switches it off.
    """
    f, b = pairs(responses, "flipped"), pairs(responses, "boosted")
    table = np.array([[f["flipped"].sum(), (~f["flipped"]).sum()], [b["flipped"].sum(), (~b["flipped"]).sum()]])
    chi2, p, dof, _ = st.chi2_contingency(table, correction=yates)
    return dict(gap_pp=100 * (f["flipped"].mean() - b["flipped"].mean()), chi2=float(chi2), p=float(p), dof=int(dof))


def _direction(p: pd.DataFrame, orig: str = "orig_composite", manip: str = "manip_composite") -> dict[str, float]:
    fl = p[p["flipped"]]
    higher = int((fl[manip] > fl[orig]).sum())
    lower = int((fl[manip] < fl[orig]).sum())
    same = len(fl) - higher - lower
    dec = higher + lower
    return dict(flips=len(fl), higher=higher, lower=lower, same=same,
                toward_higher_pct=100 * higher / len(fl) if len(fl) else np.nan,
                decisive_higher_pct=100 * higher / dec if dec else np.nan,
                p_binomial=st.binomtest(higher, dec, 0.5).pvalue if dec else np.nan)


def flip_direction(responses: pd.DataFrame, *, by: str | None = None) -> pd.DataFrame:
    """ab-tab6: do flips move toward higher composite authority? (paper §5.2 Table 6; spec A.8 M1a).

    For each flipped pair, compare the composite of the manipulated-condition pick (in that
    condition) with the composite of the original pick (in the original condition): higher /
    lower / same. ``toward_higher_pct`` = higher / flips, ties kept in the denominator as the
    reference does; ``decisive_higher_pct`` = higher / (higher + lower) (paper A.8). Two-sided
    binomial test of higher vs lower against ½. ``by`` (e.g. ``"model"``) adds a breakdown.
    """
    rows = []
    for man in MANIPULATIONS:
        p = pairs(responses, man)
        groups = [(None, p)] if by is None else list(p.groupby(by))
        for g, d in groups:
            rows.append({"manipulation": man, **({by: g} if by else {}), **_direction(d)})
    return pd.DataFrame(rows)


def flip_direction_table(responses: pd.DataFrame) -> pd.DataFrame:
    """Table 6: :func:`flip_direction` over all models (``model = "all"``), then per model."""
    return pd.concat([flip_direction(responses).assign(model="all"), flip_direction(responses, by="model")],
                     ignore_index=True)


def model_susceptibility(responses: pd.DataFrame) -> pd.DataFrame:
    """ab-tab7: per-model flip rate, boost rate and susceptibility = (flip + boost)/2 (paper §5.3 Table 7; spec A.8 M3).

    Each rate with its 95 % Wilson interval and pair count; ``parse_rate`` = parsed cells / all
    cells of the model; ``boosted_pick_rate`` and ``boosted_pick_lift``, the model's boosted-paper
    pick rate (:func:`boosted_pick_rate`) and its lift over the chance rate pooled over all models'
    parsed boosted cells, as the reference and Appendix G compute it (Qwen 2.5's 36.5 % / 25.6 % =
    1.43×); sorted by flip rate, ascending (most resistant first).
    """
    f, b = pairs(responses, "flipped"), pairs(responses, "boosted")
    rows = []
    for model, cells in responses.groupby("model"):
        fm, bm = f[f["model"] == model], b[b["model"] == model]
        kf, nf, kb, nb = int(fm["flipped"].sum()), len(fm), int(bm["flipped"].sum()), len(bm)
        (fl, fh), (bl, bh) = _wilson(kf, nf), _wilson(kb, nb)
        fr, br = (kf / nf if nf else np.nan), (kb / nb if nb else np.nan)
        rows.append(dict(model=model, flip_rate=fr, flip_ci_low=fl, flip_ci_high=fh, flip_pairs=nf,
                         boost_rate=br, boost_ci_low=bl, boost_ci_high=bh, boost_pairs=nb,
                         susceptibility=(fr + br) / 2, parse_rate=float(cells["parsed"].mean())))
    picks = boosted_pick_rate(responses, by="model").set_index("model")
    out = pd.DataFrame(rows)
    out["boosted_pick_rate"] = out["model"].map(picks["rate"]) if len(picks) else np.nan
    out["boosted_pick_lift"] = out["model"].map(picks["lift"]) if len(picks) else np.nan
    return out.sort_values("flip_rate", kind="stable").reset_index(drop=True)


def model_homogeneity(responses: pd.DataFrame, manipulation: str = "flipped") -> dict[str, float]:
    """χ² test of homogeneity of the flip rate across models (paper §5.3: χ² = 479.4; spec A.8 M3).

    ``chi2_contingency`` on the models × [flipped, not flipped] table of the manipulation's pairs.
    """
    p = pairs(responses, manipulation)
    t = p.groupby("model")["flipped"].agg(["sum", "count"])
    table = np.column_stack([t["sum"], t["count"] - t["sum"]])
    chi2, pv, dof, _ = st.chi2_contingency(table)
    return dict(chi2=float(chi2), p=float(pv), dof=int(dof), models=len(t))


def susceptibility_table(responses: pd.DataFrame) -> pd.DataFrame:
    """ab-tab7 as saved: :func:`model_susceptibility` with, on every row, the χ² homogeneity test of
    the flip rate (:func:`model_homogeneity`) and the pooled boosted-pick rate with its chance rate
    (:func:`boosted_pick_rate`; §5.5: 27.1 % vs 25.6 %)."""
    hom, pooled = model_homogeneity(responses), boosted_pick_rate(responses).iloc[0]
    return model_susceptibility(responses).assign(chi2_homogeneity=hom["chi2"], p_homogeneity=hom["p"],
                                                  boosted_pick_rate_all=pooled["rate"],
                                                  boosted_pick_expected=pooled["expected"])


def selection_agreement(responses: pd.DataFrame) -> pd.DataFrame:
    """Pairwise selection agreement (paper §5.4 Table 8; spec A.9): the share of shared (query, instruction,
    condition) cells where two models chose the same paper. Returns a models × models matrix (diagonal 1)."""
    r = responses[responses["parsed"].astype(bool)]
    wide = r.pivot_table(index=["query_id", "instruction", "condition"], columns="model", values="chosen_paper_id",
                         aggfunc="first")
    models = list(wide.columns)
    m = pd.DataFrame(np.eye(len(models)), index=models, columns=models)
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            both = wide[[a, b]].dropna()
            m.loc[a, b] = m.loc[b, a] = float((both[a] == both[b]).mean()) if len(both) else np.nan
    return m


def _kappa(x: Sequence[bool], y: Sequence[bool], *, corrected: bool) -> float:
    """Cohen's κ of two binary flip indicators (spec A.9); corrected: :func:`lib.stats.cohens_kappa`.

    Faithful: analyse_cross_model_agreement.py's arithmetic, step for step (p_o = mean(x == y),
    p_e = p_a·p_b + (1 − p_a)(1 − p_b), κ = (p_o − p_e)/(1 − p_e), 0 when 1 − p_e ≤ 1e-9), so that
    exact ties at the 3rd decimal round as the reference's do (κ = 7/16 gives 0.4375000000000001 →
    0.438 here and there, 0.43749999999999994 → 0.437 through the confusion matrix)."""
    x, y = np.asarray(x, bool), np.asarray(y, bool)
    if corrected:
        return float(cstats.cohens_kappa(list(x), list(y)))
    po, pa, pb = float(np.mean(x == y)), x.mean(), y.mean()
    pe = pa * pb + (1 - pa) * (1 - pb)
    return float((po - pe) / (1 - pe)) if 1 - pe > 1e-9 else 0.0


def flip_agreement(responses: pd.DataFrame, manipulation: str = "flipped", *, corrected: bool = False) -> pd.DataFrame:
    """Pairwise Cohen's κ of the per-(query, instruction) flip indicator between models (paper §5.4; spec A.9).

    One row per unordered model pair: shared cells, raw agreement, κ. Faithful: a pair in which
    both models never (or always) flip gets κ = 0 as in the reference; ``corrected=True`` uses
    :func:`lib.stats.cohens_kappa` throughout (κ = 1 for perfect agreement).
    """
    p = pairs(responses, manipulation)
    wide = p.pivot_table(index=["query_id", "instruction"], columns="model", values="flipped", aggfunc="first")
    models = list(wide.columns)
    rows = []
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            both = wide[[a, b]].dropna()
            if both.empty:
                continue
            x, y = both[a].astype(bool), both[b].astype(bool)
            rows.append(dict(model_a=a, model_b=b, cells=len(both), agreement=float((x == y).mean()),
                             kappa=_kappa(x, y, corrected=corrected)))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "cells", "agreement", "kappa"])


def agreement_summary(responses: pd.DataFrame, *, corrected: bool = False) -> pd.DataFrame:
    """ab-tab8: mean and range of selection agreement and of flip κ under flipped and boosted (paper Table 8),
    then one row per model pair, ``measure="selection agreement/<a> vs <b>"`` with its agreement in ``pair``
    (:func:`selection_agreement`; Appendix G: gpt-5.4 ↔ claude-sonnet-4-6 63.0 %, the highest).

    Faithful (``analyse_cross_model_agreement.py``): κ = 0 for a pair without variation, and each
    pair's κ is rounded to 3 dp before the mean and range are taken; ``corrected=True`` uses
    :func:`lib.stats.cohens_kappa` throughout and averages the unrounded κ."""
    sel = selection_agreement(responses)
    off = sel.where(~np.eye(len(sel), dtype=bool)).stack()
    rows = [dict(measure="selection agreement", mean=off.mean(), min=off.min(), max=off.max(), pairs=len(off) // 2)]
    for man in MANIPULATIONS:
        k = flip_agreement(responses, man, corrected=corrected)["kappa"].astype(float)   # one model: no pairs
        k = k if corrected else k.round(3)
        rows.append(dict(measure=f"flip kappa ({man})", mean=k.mean(), min=k.min(), max=k.max(), pairs=len(k)))
    models = list(sel.index)
    rows += [dict(measure=f"selection agreement/{a} vs {b}", pair=sel.loc[a, b])
             for i, a in enumerate(models) for b in models[i + 1:]]
    out = pd.DataFrame(rows, columns=["measure", "mean", "min", "max", "pairs", "pair"])
    return out.astype({"pairs": "Int64"})                       # empty on the per-pair rows


CANDIDATE_SHARE = {"top": 0.3, "mid": 0.3, "low": 0.2, "emerging": 0.2}


def dose_response(responses: pd.DataFrame) -> pd.DataFrame:
    """ab-tab9: share of picks by citation stratum of the chosen paper, per condition (paper §5.5 Table 9; spec A.8 M2).

    Rows: strata top/mid/low/emerging (and fill if present); columns: ``share`` (the stratum's
    fixed share of each candidate set: 30/30/20/20 %) and the percentage of parsed picks per
    condition. A flat profile means picks ignore the strata; "top" above 30 % under original is
    the baseline preference for high-authority work.
    """
    r = responses[responses["parsed"].astype(bool)]
    t = pd.crosstab(r["chosen_tier"], r["condition"], normalize="columns") * 100
    t = t.reindex(columns=[c for c in ("original", "flipped", "boosted") if c in t.columns])
    order = [x for x in ("top", "mid", "low", "emerging", "fill") if x in t.index]
    t = t.reindex(order)
    t.insert(0, "share", [100 * CANDIDATE_SHARE.get(x, np.nan) for x in order])
    return t.rename_axis("tier").reset_index()


def boosted_pick_rate(responses: pd.DataFrame, *, by: str | None = None) -> pd.DataFrame:
    """How often the boosted paper is picked, against chance (paper §5.5: 27.1 % vs 25.6 %, lift 1.06×; spec A.8 M2).

    Observed = picks of a boosted paper / boosted cells with at least one boosted candidate;
    expected = Σ boosted candidates / Σ candidates over all parsed boosted cells (faithfully, the
    cells without a boosted candidate stay in the expected rate's denominator); lift =
    observed / expected; one-sided binomial test (greater) of picks against the expected rate.
    With ``by`` (e.g. per model, Table 7), every group is measured against the chance rate pooled
    over all groups' cells, as the reference's metric 2 does (Appendix G: rate / 25.6 %).
    """
    r = responses[responses["parsed"].astype(bool) & (responses["condition"] == "boosted")]
    groups = [(None, r)] if by is None else list(r.groupby(by))
    pooled = r["n_boosted_candidates"].sum() / (10 * len(r)) if len(r) else np.nan
    rows = []
    for g, d in groups:
        avail = d[d["n_boosted_candidates"] > 0]
        k, n = int(avail["chosen_boosted"].astype(bool).sum()), len(avail)
        expected = pooled
        obs = k / n if n else np.nan
        rows.append({**({by: g} if by else {}), "picked_boosted": k, "cells": n, "rate": obs, "expected": expected,
                     "lift": obs / expected if expected else np.nan,
                     "p_binomial": st.binomtest(k, n, expected, alternative="greater").pvalue if n and expected else np.nan})
    return pd.DataFrame(rows)


def picked_authority(responses: pd.DataFrame, *, by: Sequence[str] = ("condition",)) -> pd.DataFrame:
    """Mean and median max h-index and citations of the chosen paper, by condition (paper A.G; spec A.8 M2).

    Faithful median: ``sorted(values)[len // 2]`` (the upper median for even counts), as the reference computes it.
    """
    r = responses[responses["parsed"].astype(bool)]
    upper_median = lambda s: sorted(s)[len(s) // 2] if len(s) else np.nan  # noqa: E731
    return r.groupby(list(by)).agg(picks=("chosen_max_h", "size"), mean_max_h=("chosen_max_h", "mean"),
                                   median_max_h=("chosen_max_h", upper_median),
                                   mean_citations=("chosen_citations", "mean"),
                                   median_citations=("chosen_citations", upper_median)).reset_index()


def boosted_max_h_test(responses: pd.DataFrame) -> dict[str, float]:
    """Mann–Whitney U (greater): is the max h-index of picks under boosted larger than under original? (spec A.8 M2)"""
    r = responses[responses["parsed"].astype(bool)]
    a = r.loc[r["condition"] == "boosted", "chosen_max_h"].dropna()
    b = r.loc[r["condition"] == "original", "chosen_max_h"].dropna()
    res = st.mannwhitneyu(a, b, alternative="greater")
    return dict(u=float(res.statistic), p=float(res.pvalue), n_boosted=len(a), n_original=len(b))


def topic_rates(responses: pd.DataFrame) -> pd.DataFrame:
    """ab-tab19: flip and boost rate per topic, sorted by flip rate, descending (paper Appendix C Table 19).

    ``n`` counts the (model × instruction × query) flip pairs of the topic.
    """
    f, b = pairs(responses, "flipped"), pairs(responses, "boosted")
    t = f.groupby("topic")["flipped"].agg(flip_rate="mean", n="size").join(
        b.groupby("topic")["flipped"].agg(boost_rate="mean"), how="outer")
    return t.sort_values("flip_rate", ascending=False).rename_axis("topic").reset_index()


def topic_extremes(responses: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """ab-tab10: the k most and k least susceptible topics by flip rate, and the spread (paper §5.6 Table 10).

    ``spread_pp`` (same on every row) = max − min topic flip rate in pp over all topics.
    """
    t = topic_rates(responses)
    top, bottom = t.head(k).assign(group="most susceptible"), t.tail(k).assign(group="least susceptible")
    spread = 100 * (t["flip_rate"].max() - t["flip_rate"].min())
    return pd.concat([top, bottom], ignore_index=True).assign(spread_pp=spread)


def _paired_flips(responses: pd.DataFrame, variant: str, manipulation: str = "flipped") -> pd.DataFrame:
    """Per (model, query): baseline flip indicator and variant flip indicator, all four cells parsed (spec A.8 M4)."""
    p = pairs(responses, manipulation)
    base = p[p["instruction"] == "baseline"][["model", "query_id", "flipped"]]
    var = p[p["instruction"] == variant][["model", "query_id", "flipped"]]
    return base.merge(var, on=["model", "query_id"], suffixes=("_base", "_var"))


def _mcnemar_row(pf: pd.DataFrame) -> dict[str, float]:
    b = int((pf["flipped_base"] & ~pf["flipped_var"]).sum())
    c = int((~pf["flipped_base"] & pf["flipped_var"]).sum())
    return dict(b=b, c=c, p_mcnemar=cstats.mcnemar(b, c, exact=True))


def instruction_effect(responses: pd.DataFrame) -> pd.DataFrame:
    """ab-tab11: flip and boost rate per instruction variant and the McNemar test against baseline (paper §5.7 Table 11).

    Reductions are baseline − variant in pp. McNemar, as in the reference, is the exact
    two-sided binomial test on the discordant (model, query) pairs of the flip indicator:
    b = flipped under baseline but not under the variant, c = the reverse (spec A.8 M4), via
    :func:`lib.stats.mcnemar`.
    """
    f, b = pairs(responses, "flipped"), pairs(responses, "boosted")
    base_f = f.loc[f["instruction"] == "baseline", "flipped"].mean()
    base_b = b.loc[b["instruction"] == "baseline", "flipped"].mean()
    rows = []
    for ins in ("baseline", "anti_authority", "content_first"):
        fi, bi = f[f["instruction"] == ins], b[b["instruction"] == ins]
        if fi.empty:
            continue
        lo, hi = _wilson(int(fi["flipped"].sum()), len(fi))
        row = dict(instruction=ins, flip_rate=fi["flipped"].mean(), flip_ci_low=lo, flip_ci_high=hi, flip_pairs=len(fi),
                   boost_rate=bi["flipped"].mean() if len(bi) else np.nan, boost_pairs=len(bi),
                   flip_reduction_pp=100 * (base_f - fi["flipped"].mean()),
                   boost_reduction_pp=100 * (base_b - bi["flipped"].mean()) if len(bi) else np.nan)
        if ins != "baseline":
            row.update(_mcnemar_row(_paired_flips(responses, ins)))
        rows.append(row)
    return pd.DataFrame(rows)


TABLE12_MODES = ("faithful", "corrected")


def instruction_effect_by_model(responses: pd.DataFrame, variant: str = "anti_authority", *,
                                groups: Mapping[str, str] | None = None, mode: str = "faithful") -> pd.DataFrame:
    """ab-tab12: per-model flip rate under baseline and under ``variant``, the change in pp and McNemar (paper Table 12).

    A positive ``delta_pp`` is a backfire (the flip rate rises under the debiasing instruction).
    ``groups`` maps models to cohorts (e.g. frontier / open-weight); each cohort then gets a
    pooled row (``level="group"``), as the paper's "frontier +3.9pp, McNemar p = .02".

    Faithful vs corrected (the rates, not the test):

    * ``mode="faithful"``: each rate is the reference's ``fr = fc / ft`` over *every* parsed
      original/flipped pair of that model and instruction (``analyse_results.py``,
      ``metric_4_instruction_effect``, ``by_model_variant``), so the baseline and the variant rate
      can rest on different queries when a cell failed to parse (``baseline_pairs`` and
      ``variant_pairs`` count them); a cohort row pools every pair of its models the same way;
    * ``mode="corrected"``: both rates over the *paired* subset, the queries whose four cells
      (baseline and variant, original and flipped) all parsed, which is what the change and the
      McNemar test compare; a query that parsed under one instruction only no longer moves the
      difference.

    In both modes ``pairs``, ``b``, ``c`` and ``p_mcnemar`` are the exact McNemar test on the
    paired subset (the reference computes McNemar only pooled over models, on the same paired
    cells, :func:`instruction_effect`).
    """
    if mode not in TABLE12_MODES:
        raise ValueError(f"instruction_effect_by_model: mode must be one of {TABLE12_MODES}, got {mode!r}")
    pf = _paired_flips(responses, variant)
    allp = pairs(responses, "flipped")
    allp = allp[allp["instruction"].isin(["baseline", variant])]
    if groups:
        pf = pf.assign(group=pf["model"].map(groups))
        allp = allp.assign(group=allp["model"].map(groups))
    units = [("model", m) for m in sorted(set(allp["model"]) | set(pf["model"]))]
    if groups:
        units += [("group", g) for g in sorted(set(pf["group"].dropna()) | set(allp["group"].dropna()))]
    rows = []
    for level, name in units:
        d = pf[pf[level] == name]
        if mode == "faithful":
            a = allp[allp[level] == name]
            fb, fv = a.loc[a["instruction"] == "baseline", "flipped"], a.loc[a["instruction"] == variant, "flipped"]
        else:
            fb, fv = d["flipped_base"], d["flipped_var"]
        base = fb.mean() if len(fb) else np.nan
        var = fv.mean() if len(fv) else np.nan
        rows.append(dict(level=level, name=name, pairs=len(d), baseline_pairs=len(fb), variant_pairs=len(fv),
                         baseline_flip_rate=base, variant_flip_rate=var, delta_pp=100 * (var - base), **_mcnemar_row(d)))
    return pd.DataFrame(rows).assign(variant=variant, mode=mode)


#: Authority-marker patterns of the justification analysis, verbatim (spec A.8 M5).
MARKER_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"\bh[- ]?index\b", "h-index"),
    (r"\bcitation(?:s| count)\b", "citations"),
    (r"\bhighly cited\b", "citations"),
    (r"\b(?:top|prestigious|leading|premier|renowned|elite)\s+(?:venue|conference|journal|institution|university|lab)\b",
     "venue_prestige"),
    (r"\b(?:NeurIPS|ICML|ICLR|ACL|EMNLP|CVPR|AAAI|ECCV|KDD)\b", "venue_name"),
    (r"\b(?:Stanford|MIT|Carnegie Mellon|Berkeley|Oxford|Harvard|Princeton|Google|DeepMind|OpenAI|Microsoft Research"
     r"|Tsinghua|Peking)\b", "institution_name"),
    (r"\b(?:famous|well[- ]known|prominent|established|senior|leading|expert|authority|influential)\b", "author_prestige"),
    (r"\b(?:impact|impactful|significant impact|high impact)\b", "impact"),
    (r"\b(?:credib(?:le|ility)|reputation|prestige)\b", "credibility"),
    (r"\b(?:recent|latest|newest|up[- ]to[- ]date|cutting[- ]edge|state[- ]of[- ]the[- ]art|most\s+recent"
     r"|recently\s+published|more\s+recent|newer)\b", "recency"),
)
_MARKERS = [(re.compile(p, re.IGNORECASE), label) for p, label in MARKER_PATTERNS]


def authority_markers(text: str | None) -> list[str]:
    """Labels of the authority-marker patterns found in one justification, once per matching *pattern*
    (so "citations" can appear twice, spec A.8 M5 ⚠). Empty or missing text gives []."""
    if not text:
        return []
    return [label for rx, label in _MARKERS if rx.search(text)]


def mentions_authority(text: str | None) -> bool:
    """A justification "mentions authority" when any of the ten marker patterns matches (paper §5.8)."""
    return bool(authority_markers(text))


def mention_rates(responses: pd.DataFrame, *, by: Sequence[str] = ("condition",)) -> pd.DataFrame:
    """Authority-mention rate with a 95 % Wilson interval over non-empty justifications, per group (spec A.8 M5)."""
    r = responses[responses["justification"].fillna("").str.len() > 0]
    r = r.assign(mention=r["justification"].map(mentions_authority))
    rows = []
    for g, d in r.groupby(list(by)):
        k, n = int(d["mention"].sum()), len(d)
        lo, hi = _wilson(k, n)
        key = dict(zip(by, g if isinstance(g, tuple) else (g,)))
        rows.append({**key, "mentions": k, "responses": n, "rate": k / n, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def marker_categories(responses: pd.DataFrame, *, corrected: bool = False) -> pd.DataFrame:
    """ab-tab23: distribution of authority-marker categories in justifications (paper Appendix G Table 23).

    Faithful: a response adds one count per matching pattern, so the two citation patterns can
    count it twice (spec A.8 ⚠); ``corrected=True`` counts each label once per response.
    ``share_pct`` is the label's share of all counted mentions.
    """
    counts: dict[str, int] = {}
    for text in responses["justification"].fillna(""):
        labels = authority_markers(text)
        for label in (set(labels) if corrected else labels):
            counts[label] = counts.get(label, 0) + 1
    t = pd.DataFrame({"category": list(counts), "count": list(counts.values())})
    if t.empty:
        return t.assign(share_pct=[])
    t["share_pct"] = 100 * t["count"] / t["count"].sum()
    return t.sort_values("count", ascending=False, kind="stable").reset_index(drop=True)


def say_do_gap(responses: pd.DataFrame) -> pd.DataFrame:
    """ab-tab13: the say-do gap (paper §5.8 Table 13; spec A.8 "Say-do gap").

    Per instruction: the authority-mention rate pooled over the three conditions (what the model
    *says*) and the flip rate (what it *does*), and their drops from baseline in pp. The gap is
    ``mention_drop_pp − flip_drop_pp``: positive when debiasing suppresses authority talk faster
    than authority-driven flips (paper: 24.0 − 12.9 = 11.1 pp for content-first). These rows have
    ``model="all"``; then one row per model (``instruction="all"``) with its mention rate over every
    instruction and condition (Appendix G "Per-model authority mention rates": gpt-5.4 8.3 % …
    Llama 3.1 34.6 %), the flip columns empty. ``mentions`` / ``responses`` count the justifications.
    """
    mi = mention_rates(responses, by=["instruction"])
    m = mi.set_index("instruction")["rate"] if len(mi) else pd.Series(dtype=float)
    f = pairs(responses, "flipped").groupby("instruction")["flipped"].mean()
    rows = []
    for ins in [i for i in ("baseline", "anti_authority", "content_first") if i in m.index]:
        md, fd = 100 * (m["baseline"] - m[ins]), 100 * (f["baseline"] - f[ins])
        n = mi[mi["instruction"] == ins].iloc[0]
        rows.append(dict(instruction=ins, model="all", mention_rate=m[ins], flip_rate=f[ins], mention_drop_pp=md,
                         flip_drop_pp=fd, gap_pp=md - fd, mentions=n["mentions"], responses=n["responses"]))
    rows += [dict(instruction="all", model=r.model, mention_rate=r.rate, mentions=r.mentions, responses=r.responses)
             for r in mention_rates(responses, by=["model"]).itertuples()]
    return pd.DataFrame(rows, columns=["instruction", "model", "mention_rate", "flip_rate", "mention_drop_pp",
                                       "flip_drop_pp", "gap_pp", "mentions", "responses"])


def inference_time(responses: pd.DataFrame, *, mode: str = "faithful") -> pd.DataFrame:
    """ab-tab15: per-model mean, median and 95th-percentile wall-clock seconds per cell (paper A.4 Table 15).

    Over every cell of the model, parsed or not. Faithful (``analyse_results.py``, metric 3): cells
    whose latency is 0 or missing are skipped (``if r.get("elapsed_seconds")``) and the median is
    the upper median ``sorted(s)[len // 2]``; ``mode="corrected"`` keeps zero latencies and takes
    the usual median (the mean of the two middle values for an even count). The reference has no
    95th percentile; ``p95_s`` is numpy's linear-interpolation percentile in both modes.
    """
    if mode not in ("faithful", "corrected"):
        raise ValueError(f"inference_time: mode must be 'faithful' or 'corrected', got {mode!r}")
    r = responses.dropna(subset=["latency_s"])
    if mode == "faithful":
        r = r[r["latency_s"] != 0]
    median = (lambda s: sorted(s)[len(s) // 2]) if mode == "faithful" else "median"
    return (r.groupby("model")["latency_s"].agg(cells="size", mean_s="mean", median_s=median,
                                                p95_s=lambda s: float(np.percentile(s, 95)))
            .sort_values("mean_s").reset_index())


def weight_schemes(derived: Mapping[str, float] | None = None) -> dict[str, dict[str, float]]:
    """Weighting schemes of the sensitivity check (paper A.8): derived (if given), uniform 0.2, each dimension alone."""
    schemes = {"derived": dict(derived)} if derived else {}
    schemes["uniform"] = {d: 0.2 for d in DIMENSIONS}
    for d in DIMENSIONS:
        schemes[f"{d} only"] = {k: float(k == d) for k in DIMENSIONS}
    return schemes


def weight_sensitivity(responses: pd.DataFrame, *, derived: Mapping[str, float] | None = None) -> pd.DataFrame:
    """ab-tab17: the direction result under other authority weights (paper A.8 Table 17; spec A.9 ``weight_sensitivity.py``).

    Each pick's score is recomputed as Σ_d w_d · (its stored normalised component d in its own
    condition), then the direction analysis is repeated: ``pct_total`` = higher / all flips,
    ``pct_decisive`` = higher / (higher + lower) (single dimensions tie often), two-sided
    binomial p against ½. ``derived`` adds the pilot-derived weights as a scheme.
    """
    rows = []
    for man in MANIPULATIONS:
        p = pairs(responses, man)
        for name, w in weight_schemes(derived).items():
            q = p.assign(o=sum(w[d] * p[f"orig_x_{d}"] for d in DIMENSIONS),
                         m=sum(w[d] * p[f"manip_x_{d}"] for d in DIMENSIONS))
            r = _direction(q, "o", "m")
            rows.append(dict(manipulation=man, scheme=name, flips=r["flips"], higher=r["higher"], lower=r["lower"],
                             ties=r["same"], pct_total=r["toward_higher_pct"], pct_decisive=r["decisive_higher_pct"],
                             p_binomial=r["p_binomial"]))
    return pd.DataFrame(rows)


def tier_ablation(responses: pd.DataFrame, *, headline_models: Sequence[str], ablation_model: str,
                  mode: str = "faithful") -> pd.DataFrame:
    """ab-tab21: the tier ablation (paper Appendix E Table 21).

    Rows: the ablation model's flip rate, boost rate and mild-instruction change; and the
    aggregate flip rate over the headline models with and without the ablation model added.
    """
    head = responses[responses["model"].isin(headline_models)]
    both = responses[responses["model"].isin([*headline_models, ablation_model])]
    solo = responses[responses["model"] == ablation_model]
    if solo.empty:
        raise ValueError(f"tier_ablation: no responses for ablation model {ablation_model!r}")
    sus = model_susceptibility(solo).iloc[0]
    mild = instruction_effect_by_model(solo, "anti_authority", mode=mode)   # Table 12's rates (faithful: all pairs)
    agg = lambda d: pairs(d, "flipped")["flipped"].mean()  # noqa: E731
    return pd.DataFrame([
        dict(quantity=f"{ablation_model} flip rate", value=sus["flip_rate"]),
        dict(quantity=f"{ablation_model} boost rate", value=sus["boost_rate"]),
        dict(quantity=f"{ablation_model} mild-instruction change (pp)",
             value=mild["delta_pp"].iloc[0] if len(mild) else np.nan),
        dict(quantity=f"{ablation_model} parse rate", value=sus["parse_rate"]),
        dict(quantity="aggregate flip rate, headline models", value=agg(head)),
        dict(quantity="aggregate flip rate, headline + ablation", value=agg(both)),
    ])


def significance_summary(responses: pd.DataFrame, *, yates: bool = True) -> pd.DataFrame:
    """ab-tab22: the ten primary tests (paper Appendix F Table 22), recomputed on the responses.

    Flip and boost rate > 0 (binomial), flip vs boost (χ²), direction under flipped and boosted
    (binomial), model homogeneity (χ²), boosted pick rate vs chance (binomial), max h-index of
    boosted vs original picks (Mann–Whitney U), content-first and anti-authority instruction
    effects (McNemar). ``yates`` is passed to :func:`flip_boost_gap` (faithful: SciPy's continuity correction).
    """
    fr = flip_rates(responses).set_index("manipulation")
    gap = flip_boost_gap(responses, yates=yates)
    d = flip_direction(responses).set_index("manipulation")
    hom = model_homogeneity(responses)
    bp = boosted_pick_rate(responses).iloc[0]
    mw = boosted_max_h_test(responses)
    ie = instruction_effect(responses).set_index("instruction")
    rows = [
        ("flip rate > 0", "binomial", fr.loc["flipped", "rate"], fr.loc["flipped", "p_binomial"]),
        ("boost rate > 0", "binomial", fr.loc["boosted", "rate"], fr.loc["boosted", "p_binomial"]),
        ("flip rate vs boost rate", "chi-squared", gap["chi2"], gap["p"]),
        ("direction under flipped", "binomial", d.loc["flipped", "toward_higher_pct"], d.loc["flipped", "p_binomial"]),
        ("direction under boosted", "binomial", d.loc["boosted", "toward_higher_pct"], d.loc["boosted", "p_binomial"]),
        ("model homogeneity of flip rate", "chi-squared", hom["chi2"], hom["p"]),
        ("boosted pick rate vs chance", "binomial", bp["lift"], bp["p_binomial"]),
        ("max h-index of boosted vs original picks", "Mann-Whitney U", mw["u"], mw["p"]),
    ]
    for ins in ("content_first", "anti_authority"):
        if ins in ie.index:
            rows.append((f"{ins} instruction effect on flips", "McNemar", ie.loc[ins, "flip_reduction_pp"],
                         ie.loc[ins, "p_mcnemar"]))
    t = pd.DataFrame(rows, columns=["test", "family", "statistic", "p"])
    return t.assign(significant_001=t["p"] < 0.001, significant_05=t["p"] < 0.05)


def metrics_and_tests() -> pd.DataFrame:
    """ab-tab4: the evaluation metrics, their research question and statistical test (paper §4.7 Table 4).

    A description of the design (no data): one row per metric with the function computing it.
    """
    return pd.DataFrame([
        ("flip rate and boost rate", "RQ1", "share of (model, instruction, query) pairs whose pick changes from "
         "original to flipped (flip rate) or to boosted (boost rate)", "Wilson 95% CI; binomial test; chi-squared "
         "flip vs boost", "flip_rates, flip_boost_gap"),
        ("directional pull", "RQ2", "share of changed picks landing on a higher-composite paper",
         "two-sided binomial vs 50%", "flip_direction"),
        ("dose-response", "RQ1.1", "picks by citation stratum per condition; boosted-pick lift over chance",
         "one-sided binomial; Mann-Whitney U", "dose_response, boosted_pick_rate"),
        ("model susceptibility", "RQ1.2", "mean of flip and boost rate per model", "chi-squared homogeneity",
         "model_susceptibility, model_homogeneity"),
        ("instruction effect", "RQ3", "flip-rate change from baseline per instruction variant",
         "McNemar (exact, paired flips)", "instruction_effect"),
        ("say-do gap", "RQ3", "drop in authority mentions minus drop in flip rate", "Wilson 95% CI on mention rates",
         "say_do_gap"),
    ], columns=["metric", "research_question", "definition", "test", "function"])
