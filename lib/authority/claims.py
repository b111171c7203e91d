"""Authority-bias claims (§5.1–§5.8, §6, §7 of the paper), checked on the regenerated tables.

Each :class:`lib.claims.Claim` is a sentence of the paper; its check is a pure function of the
tables notebook 05 saves (``ab-tab1`` … ``ab-tab19``, from :mod:`lib.authority.analysis` and
:mod:`lib.authority.pilot`) and of a few finer tables :func:`derived_tables` computes from the
labelled responses with the same analysis functions (per model pair agreement and κ, pick
counts, mention counts, a bootstrap of the pilot coefficients). A claim is judged on the
direction or significance the paper states, with 95 % intervals: Wilson for a rate, Newcombe's
hybrid score interval (:func:`lib.stats.newcombe_diff`) for a difference of rates, a paired Wald
interval (consistent with McNemar's test) where the paper pairs flips, a t-interval over model
pairs for agreement, a χ² test where the paper tests homogeneity; each statistic gets one of the
four outcomes of :data:`lib.claims.RULE`, with the paper's printed value beside it where it
prints one. It is never judged on hitting the published number: on the embedded default the
answers are synthetic.

:func:`check_all` runs the table :data:`CHECKS` and records every verdict in the ledger; a
table this run did not produce (the pilot on a release without pilot files, the tier ablation
without gpt-4o-mini) makes its claims "not applicable" with the table named.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats as st

from lib import stats
from lib.claims import Check, Claim, Knob, Verdict, claim_maker, interval, judge, not_applicable, run_checks, significance

P = "authority_bias"
NB = "05_authority_pilot_regression"
ALPHA = 0.05
CHANCE_SELECTION = 0.1  # two models picking uniformly among the 10 candidates agree 1 time in 10 (§5.4)
#: What the samples grow with: main-experiment queries (pairs, picks, cells) and pilot queries.
QUERIES, PILOT = Knob(NB, "queries_per_topic"), Knob(NB, "pilot_queries_per_topic")


_claim = claim_maker(P)


FLIP_VS_BOOST = _claim("ab-flip-vs-boost", "§5.1 (Table 5)",
                       "39.2% of recommendations change under flipped and 21.7% under boosted; the 17.5 pp gap is "
                       "significant (χ² = 427.5, p < 0.001).", "ab-tab5")
BOOSTED_DIRECTIONAL = _claim("ab-boosted-directional", "§5.2 (Table 6), §6",
                             "Under boosted, 68.2% of flips favour the higher-authority side (p < 0.001).", "ab-tab6")
FLIPPED_NONDIRECTIONAL = _claim("ab-flipped-nondirectional", "§5.2 (Table 6)",
                                "Under flipped only 40.9% of flips move toward higher authority: the swap disperses "
                                "flips, while boosted flips are pulled toward authority.", "ab-tab6")
SUSCEPTIBILITY_RANGE = _claim("ab-susceptibility-range", "§5.3 (Table 7), §7",
                              "Susceptibility varies 2.83× across models (17.4% to 49.2%); non-overlapping confidence "
                              "intervals confirm the gap.", "ab-tab7")
MODEL_HOMOGENEITY = _claim("ab-model-homogeneity", "§5.3 (Table 7), App. F",
                           "Models differ significantly in flip rate (χ² test of homogeneity, χ² = 479.4, p < 0.001).",
                           "ab-tab7", "ab-tab22")
FRONTIER_BELOW_OPEN = _claim("ab-frontier-below-open", "§5.3 (Table 7), §6",
                             "All three frontier closed-weight models sit at or below the open-weight band of "
                             "susceptibility.", "ab-tab7")
SELECTION_AGREEMENT = _claim("ab-selection-agreement", "§5.4 (Table 8)",
                             "Selection agreement between models (43.9%) sits far above the ~10% chance baseline.",
                             "ab-tab8")
FLIP_KAPPA = _claim("ab-flip-kappa", "§5.4 (Table 8), App. G",
                    "Authority bias is partially shared under flipped (flip κ = 0.143) but essentially uncorrelated "
                    "under boosted (κ = 0.062).", "ab-tab8")
TOP_TIER_ORIGINAL = _claim("ab-top-tier-original", "§5.5 (Table 9)",
                           "Top-tier papers receive 52.1% of original recommendations despite being 30% of candidates.",
                           "ab-tab9")
FLIPPED_FLATTENS = _claim("ab-flipped-flattens", "§5.5 (Table 9)",
                          "Under flipped the top-tier share drops (52.1% → 32.5%) while low-tier picks nearly double "
                          "(11.8% → 20.2%), flattening the authority gradient.", "ab-tab9")
BOOSTED_LIFT = _claim("ab-boosted-lift", "§5.5, App. F",
                      "Boosted papers are selected at 27.1% versus 25.6% expected by chance (1.06× lift, p < 0.001).",
                      "ab-tab9", "ab-tab22")
TOPIC_SPREAD = _claim("ab-topic-spread", "§5.6 (Table 10), App. C (Table 19), §6",
                      "Flip rates vary across topics from 15.7% to 57.8%, a 42.1 pp spread.", "ab-tab10", "ab-tab19")
STRONG_INSTRUCTION = _claim("ab-strong-instruction", "§5.7 (Table 11), §6",
                            "The strong content-first instruction reduces flip rate by 12.9 pp, but a 31.4% residual "
                            "persists: debiasing only partially reduces the bias.", "ab-tab11")
MILD_INSTRUCTION = _claim("ab-mild-instruction", "§5.7 (Table 11), App. F",
                          "The mild anti-authority instruction's aggregate effect is much smaller (−2.3 pp) and not "
                          "significant (McNemar p = 0.059).", "ab-tab11", "ab-tab22")
FRONTIER_BACKFIRE = _claim("ab-frontier-backfire", "§5.7 (Table 12), §7",
                           "Under the mild instruction the frontier models' pooled flip rate rises (+3.9 pp, McNemar "
                           "p = .02) while the open-weight cohort's falls (−5.7 pp, p < .001).", "ab-tab12")
BOOST_UNMOVED = _claim("ab-boost-unmoved", "§5.7, App. G",
                       "Instructions barely move boost rate (21.8% → 21.0%) even when they cut flip rate by 12.9 pp.",
                       "ab-tab11")
SAY_DO_GAP = _claim("ab-say-do-gap", "§5.8 (Table 13), §6",
                    "Debiasing suppresses authority mentions faster than authority-driven flips: an 11.1 pp gap "
                    "between the −24.0 pp drop in mentions and the −12.9 pp drop in flip rate.", "ab-tab13")
VENUE_DOMINANT = _claim("ab-venue-dominant", "§4.3 (Table 1), §6, §7",
                        "Venue prestige is the dominant authority signal (fused weight 0.353), not institutional "
                        "affiliation (0.031).", "ab-tab1", "ab-tab16")


# -- interval helpers -------------------------------------------------------------------------------

def _rate(k: float, n: int) -> dict:
    lo, hi = stats.wilson_ci(k, n) if n else (np.nan, np.nan)
    return {"rate": k / n if n else np.nan, "ci": [lo, hi], "n": int(n)}


def _sum_ci(parts: list[tuple[float, float, float]], weights: list[float]) -> tuple[float, float, float]:
    """Σ w_i·x_i with the MOVER interval (Zou & Donner 2008) from each part's (estimate, low, high)."""
    est = sum(w * x for w, (x, _, _) in zip(weights, parts))
    lo = est - np.sqrt(sum((w * (x - (l if w > 0 else h))) ** 2 for w, (x, l, h) in zip(weights, parts)))
    hi = est + np.sqrt(sum((w * ((h if w > 0 else l) - x)) ** 2 for w, (x, l, h) in zip(weights, parts)))
    return float(est), float(lo), float(hi)


def _counts(row: pd.Series, rate: str, n: str) -> tuple[int, int]:
    n_ = int(row[n])
    return int(round(float(row[rate]) * n_)), n_


# -- checks -----------------------------------------------------------------------------------------

def _paired(row: pd.Series, n_col: str = "pairs") -> tuple[float, float]:
    """Standard error of a paired change in a rate from its discordant counts (b, c) over n pairs
    (the Wald interval McNemar's test goes with)."""
    n, b, c = int(row[n_col]), int(row["b"]), int(row["c"])
    return (float(np.sqrt(max(b + c - (c - b) ** 2 / n, 0)) / n) if n else np.nan), n


def flip_vs_boost(tab5: pd.DataFrame) -> Verdict:
    """Flip rate − boost rate with its Newcombe 95 % CI against 0 (the χ² test, Yates as the
    paper, is reported beside it)."""
    t = tab5.set_index("manipulation")
    if not {"flipped", "boosted"} <= set(t.index) or (t["pairs"] == 0).any():
        return not_applicable("Table 5 needs flipped and boosted rows with pairs")
    kf, nf, kb, nb = (int(t.at[m, c]) for m in ("flipped", "boosted") for c in ("changed", "pairs"))
    d, lo, hi = stats.newcombe_diff(kf, nf, kb, nb)
    chi2, p, _, _ = st.chi2_contingency(np.array([[kf, nf - kf], [kb, nb - kb]]), correction=True)
    f, b = _rate(kf, nf), _rate(kb, nb)
    return judge([interval("flip − boost rate", d, lo, hi, 0.0, "above", test="Newcombe", n=min(nf, nb),
                           unit="pairs per manipulation", published=0.175)],
                 {"flip rate": f["rate"], "CI flip": f["ci"], "boost rate": b["rate"], "CI boost": b["ci"],
                  "chi2": float(chi2), "p": float(p), "pairs (flip, boost)": [nf, nb]})


def _direction_row(tab6: pd.DataFrame, man: str) -> pd.Series | None:
    t = tab6[(tab6["manipulation"] == man) & (tab6["model"] == "all")] if "model" in tab6 else tab6[tab6["manipulation"] == man]
    return t.iloc[0] if len(t) and int(t.iloc[0]["flips"]) > 0 else None


def _share(r: pd.Series, label: str, side: str, published: float | None) -> "Interval":
    s = _rate(int(r["higher"]), int(r["flips"]))
    return interval(label, s["rate"], *s["ci"], 0.5, side, test="Wilson", n=s["n"], unit="flips", design="one-sample",
                    published=published)


def boosted_directional(tab6: pd.DataFrame) -> Verdict:
    """The share of boosted flips landing on a higher-authority paper (ties in the denominator,
    as Table 6), Wilson 95 % CI against 50 %."""
    r = _direction_row(tab6, "boosted")
    if r is None:
        return not_applicable("no flip under boosted")
    return judge([_share(r, "boosted flips toward higher", "above", 0.682)],
                 {"p binomial vs 1/2": float(r["p_binomial"]), "flips": int(r["flips"])})


def flipped_nondirectional(tab6: pd.DataFrame) -> Verdict:
    """Flipped flips are not pulled toward higher authority (the Wilson CI of their share toward
    higher does not lie above 50 %) and boosted flips are more directional than flipped ones
    (Newcombe CI of boosted − flipped share above 0)."""
    f, b = _direction_row(tab6, "flipped"), _direction_row(tab6, "boosted")
    if f is None or b is None:
        return not_applicable("flips under both flipped and boosted needed")
    d, lo, hi = stats.newcombe_diff(int(b["higher"]), int(b["flips"]), int(f["higher"]), int(f["flips"]))
    return judge([_share(f, "flipped flips toward higher", "not above", 0.409),
                  interval("boosted − flipped share toward higher", d, lo, hi, 0.0, "above", test="Newcombe",
                           n=min(int(f["flips"]), int(b["flips"])), unit="flips per manipulation",
                           published=0.682 - 0.409)],
                 {"flips (flipped, boosted)": [int(f["flips"]), int(b["flips"])]})


def _susceptibility(tab7: pd.DataFrame) -> pd.DataFrame:
    """Per model susceptibility = (flip + boost)/2 with the MOVER interval from the two Wilson intervals."""
    rows = []
    for _, r in tab7.iterrows():
        est, lo, hi = _sum_ci([(r["flip_rate"], r["flip_ci_low"], r["flip_ci_high"]),
                               (r["boost_rate"], r["boost_ci_low"], r["boost_ci_high"])], [0.5, 0.5])
        rows.append({"model": r["model"], "susceptibility": est, "low": lo, "high": hi,
                     "pairs": int(r.get("flip_pairs", 0) or 0)})
    return pd.DataFrame(rows).dropna().sort_values("susceptibility").reset_index(drop=True)


def susceptibility_range(tab7: pd.DataFrame) -> Verdict:
    """Most − least susceptible model's susceptibility, MOVER interval from their two intervals,
    against 0 (the paper's "non-overlapping confidence intervals"); the max/min ratio is reported."""
    s = _susceptibility(tab7)
    if len(s) < 2:
        return not_applicable("fewer than two models with flip and boost rates")
    lo_m, hi_m = s.iloc[0], s.iloc[-1]
    d, lo, hi = _sum_ci([(hi_m["susceptibility"], hi_m["low"], hi_m["high"]),
                         (lo_m["susceptibility"], lo_m["low"], lo_m["high"])], [1.0, -1.0])
    return judge([interval(f"susceptibility {hi_m['model']} − {lo_m['model']}", d, lo, hi, 0.0, "above",
                           test="MOVER from Wilson", n=int(min(lo_m["pairs"], hi_m["pairs"])) or None,
                           unit="pairs per model", published=0.492 - 0.174)],
                 {"ratio max/min": hi_m["susceptibility"] / lo_m["susceptibility"] if lo_m["susceptibility"] else np.inf,
                  f"least ({lo_m['model']})": lo_m["susceptibility"], f"most ({hi_m['model']})": hi_m["susceptibility"],
                  "models": len(s)}, "susceptibility = (flip + boost)/2")


def model_homogeneity(tab7: pd.DataFrame) -> Verdict:
    """The χ² test of homogeneity of the flip rate across models (Table 7) at α = 0.05; the size
    that would decide it from Cohen's w of the observed χ² (:func:`lib.stats.chi2_n_to_decide`)."""
    if "p_homogeneity" not in tab7 or tab7["model"].nunique() < 2:
        return not_applicable("Table 7 needs at least two models and the homogeneity test")
    p, chi2 = float(tab7["p_homogeneity"].iloc[0]), float(tab7["chi2_homogeneity"].iloc[0])
    n = int(tab7["flip_pairs"].sum()) if "flip_pairs" in tab7 else 0
    k = int(tab7["model"].nunique())
    return judge([significance("flip rate homogeneity across models", p, test="χ² homogeneity", n=n or None,
                               unit="pairs", n_needed=stats.chi2_n_to_decide(chi2, n, k) if n else None)],
                 {"chi2": chi2, "p": p, "models": k,
                  "flip rate range": [float(tab7["flip_rate"].min()), float(tab7["flip_rate"].max())]})


def frontier_below_open(tab7: pd.DataFrame, cohorts: pd.DataFrame) -> Verdict:
    """No frontier model is significantly above the bottom of the open-weight band: each frontier
    model's susceptibility interval does not lie above the lowest open-weight susceptibility.
    Not applicable without an answering frontier and open model, or when no model changed any
    recommendation (every susceptibility 0: nothing to rank)."""
    s = _susceptibility(tab7).merge(cohorts, on="model", how="left")
    fr, op = s[(s["cohort"] == "frontier") & (s["pairs"] > 0)], s[(s["cohort"] == "open") & (s["pairs"] > 0)]
    if fr.empty or op.empty:
        return not_applicable("frontier and open-weight models with answers both needed",
                              {"cohorts": sorted(s["cohort"].dropna().unique())})
    if (s["susceptibility"] == 0).all():
        return not_applicable("no model changed a recommendation (every susceptibility is 0)")
    floor = float(op["susceptibility"].min())
    tests = [interval(f"susceptibility {r['model']}", r["susceptibility"], r["low"], r["high"], floor, "not above",
                      test="MOVER from Wilson", n=int(r["pairs"]), unit="pairs per model", design="one-sample")
             for _, r in fr.iterrows()]
    return judge(tests, {"open-weight band": [floor, float(op["susceptibility"].max())]},
                 "threshold = the lowest open-weight susceptibility")


def selection_agreement(pairs: pd.DataFrame, *, chance: float = CHANCE_SELECTION) -> Verdict:
    """The t-interval of the pairwise selection agreement over model pairs against chance."""
    a = pairs["agreement"].dropna()
    if len(a) < 2:
        return not_applicable("fewer than two model pairs with shared cells")
    mean, lo, hi = stats.t_ci(a)
    return judge([interval("selection agreement", mean, lo, hi, chance, "above", test="t over model pairs", n=len(a),
                           unit="model pairs", design="one-sample", published=0.439)],
                 {"range": [float(a.min()), float(a.max())]})


def flip_kappa(pairs: pd.DataFrame) -> Verdict:
    """κ of the flip indicator is larger under flipped than under boosted: paired t-interval over
    model pairs of κ_flipped − κ_boosted against 0."""
    d = (pairs["kappa_flipped"] - pairs["kappa_boosted"]).dropna()
    if len(d) < 2:
        return not_applicable("fewer than two model pairs with κ under both manipulations")
    mean, lo, hi = stats.t_ci(d)
    return judge([interval("κ flipped − κ boosted", mean, lo, hi, 0.0, "above", test="paired t over model pairs",
                           n=len(d), unit="model pairs", design="one-sample", published=0.143 - 0.062)],
                 {"kappa flipped": float(pairs["kappa_flipped"].mean()),
                  "kappa boosted": float(pairs["kappa_boosted"].mean())})


def _tier_counts(tab9: pd.DataFrame, picks: pd.DataFrame, tier: str, cond: str) -> tuple[int, int]:
    n = int(picks.set_index("condition").at[cond, "picks"])
    share = float(tab9.set_index("tier").at[tier, cond]) / 100
    return int(round(share * n)), n


def top_tier_original(tab9: pd.DataFrame, picks: pd.DataFrame) -> Verdict:
    """The Wilson CI of the top-tier share of original picks against the tier's share of the
    candidates (30 %)."""
    if "top" not in set(tab9["tier"]) or "original" not in tab9:
        return not_applicable("Table 9 needs the top tier under original")
    k, n = _tier_counts(tab9, picks, "top", "original")
    share = float(tab9.set_index("tier").at["top", "share"]) / 100
    r = _rate(k, n)
    return judge([interval("top-tier share of original picks", r["rate"], *r["ci"], share, "above", test="Wilson",
                           n=n, unit="picks", design="one-sample", published=0.521)], {"picks": n},
                 "threshold = the top tier's share of the candidates")


def flipped_flattens(tab9: pd.DataFrame, picks: pd.DataFrame) -> Verdict:
    """From original to flipped, the top-tier share falls and the low-tier share rises: both
    Newcombe 95 % CIs against 0."""
    if not {"top", "low"} <= set(tab9["tier"]) or not {"original", "flipped"} <= set(tab9.columns):
        return not_applicable("Table 9 needs the top and low tiers under original and flipped")
    (kto, no), (ktf, nf) = _tier_counts(tab9, picks, "top", "original"), _tier_counts(tab9, picks, "top", "flipped")
    klo, klf = _tier_counts(tab9, picks, "low", "original")[0], _tier_counts(tab9, picks, "low", "flipped")[0]
    top = stats.newcombe_diff(kto, no, ktf, nf)
    low = stats.newcombe_diff(klf, nf, klo, no)
    n = min(no, nf)
    return judge([interval("top-tier share drop", *top, 0.0, "above", test="Newcombe", n=n, unit="picks per condition",
                           published=0.521 - 0.325),
                  interval("low-tier share rise", *low, 0.0, "above", test="Newcombe", n=n, unit="picks per condition",
                           published=0.202 - 0.118)],
                 {"top original → flipped": [kto / no, ktf / nf], "low original → flipped": [klo / no, klf / nf]})


def boosted_lift(picks: pd.DataFrame) -> Verdict:
    """The lift, the boosted paper's pick rate over the rate expected by chance (boosted
    candidates / candidates, :func:`lib.authority.analysis.boosted_pick_rate`), with the pick
    rate's Wilson CI over the same chance rate, against 1. Judged as a lift, not a rate, so the
    paper's printed 1.06× sits where it belongs when a run's chance rate is not the paper's 25.6 %."""
    r = picks.iloc[0]
    if int(r["cells"]) == 0 or not float(r["expected"]) > 0:
        return not_applicable("no boosted cell with a boosted candidate")
    s, chance = _rate(int(r["picked_boosted"]), int(r["cells"])), float(r["expected"])
    return judge([interval("boosted pick lift (rate / chance)", s["rate"] / chance, *(c / chance for c in s["ci"]), 1.0,
                           "above", test="Wilson", n=s["n"], unit="boosted cells", design="one-sample", published=1.06)],
                 {"boosted pick rate": s["rate"], "chance rate": chance}, "threshold = 1, the chance rate")


def topic_spread(tab19: pd.DataFrame) -> Verdict:
    """Flip rates differ across topics beyond sampling noise: the χ² homogeneity test over the
    topics' flip counts at α = 0.05, and the extreme topics' difference (Newcombe CI) above 0."""
    t = tab19.dropna(subset=["flip_rate"])
    t = t[t["n"] > 0]
    if len(t) < 2:
        return not_applicable("fewer than two topics with flip pairs", {"topics": len(t)})
    k = (t["flip_rate"] * t["n"]).round().astype(int)
    table = np.column_stack([k, t["n"].astype(int) - k])
    chi2, p, _, _ = st.chi2_contingency(table) if (table.sum(axis=0) > 0).all() else (0.0, 1.0, 0, None)
    hi, lo = t.loc[t["flip_rate"].idxmax()], t.loc[t["flip_rate"].idxmin()]
    d = stats.newcombe_diff(round(hi["flip_rate"] * hi["n"]), int(hi["n"]), round(lo["flip_rate"] * lo["n"]), int(lo["n"]))
    n = int(t["n"].sum())
    return judge([significance("flip rate homogeneity across topics", p, test="χ² homogeneity", n=n, unit="pairs",
                               n_needed=stats.chi2_n_to_decide(float(chi2), n, len(t))),
                  interval(f"flip rate {hi['topic']} − {lo['topic']}", *d, 0.0, "above", test="Newcombe",
                           n=int(min(hi["n"], lo["n"])), unit="pairs per topic", published=0.421)],
                 {"chi2": float(chi2), "p": float(p), "topics": len(t)})


def _instruction(tab11: pd.DataFrame, ins: str) -> pd.Series | None:
    t = tab11.set_index("instruction")
    return t.loc[ins] if ins in t.index else None


def _reduction(row: pd.Series) -> tuple[float, float, float, int]:
    """An instruction's flip-rate reduction (fraction) with its paired Wald 95 % interval."""
    se, n = _paired(row, "flip_pairs")
    red = float(row["flip_reduction_pp"]) / 100
    return red, red - 1.96 * se, red + 1.96 * se, n


def strong_instruction(tab11: pd.DataFrame) -> Verdict:
    """Content-first lowers the flip rate (paired reduction's 95 % interval above 0; exact
    McNemar p reported) and the reduction is partial: the residual's Wilson CI lies above half
    the baseline rate."""
    b, s = _instruction(tab11, "baseline"), _instruction(tab11, "content_first")
    if b is None or s is None or not int(s["flip_pairs"]):
        return not_applicable("baseline and content_first rows needed")
    res = _rate(*_counts(s, "flip_rate", "flip_pairs"))
    red, lo, hi, n = _reduction(s)
    return judge([interval("flip-rate reduction (content-first)", red, lo, hi, 0.0, "above", test="paired Wald (McNemar)",
                           n=n, unit="pairs", design="one-sample", published=0.129),
                  interval("residual flip rate", res["rate"], *res["ci"], float(b["flip_rate"]) / 2, "above",
                           test="Wilson", n=res["n"], unit="pairs", design="one-sample", published=0.314)],
                 {"McNemar p": float(s["p_mcnemar"]), "baseline flip rate": float(b["flip_rate"])},
                 "residual threshold = half the baseline rate (less than half of the flips removed)")


def mild_instruction(tab11: pd.DataFrame) -> Verdict:
    """The mild instruction's aggregate effect is much smaller than the strong one's: strong − mild
    flip-rate reduction (the two paired Wald intervals combined as independent) against 0. The
    paper's "not significant" (McNemar p = 0.059) is a property of its sample size, not of the
    effect: the exact McNemar p and the mild reduction's interval are reported, not judged (judged,
    a 3.5 pp mild effect on 1,000 pairs contradicted the claim at one quick seed while a paper-sized
    sample makes the paper's own 2.3 pp significant)."""
    m, s = _instruction(tab11, "anti_authority"), _instruction(tab11, "content_first")
    if m is None or s is None or not int(m["flip_pairs"]) or not int(s["flip_pairs"]):
        return not_applicable("anti_authority and content_first rows needed")
    rm, rs = _reduction(m), _reduction(s)
    d, lo, hi = _sum_ci([rs[:3], rm[:3]], [1.0, -1.0])
    return judge([interval("strong − mild reduction", d, lo, hi, 0.0, "above", test="paired Wald, combined",
                           n=min(rm[3], rs[3]), unit="pairs", design="one-sample", published=0.129 - 0.023)],
                 {"mild reduction": rm[0], "CI mild reduction": [rm[1], rm[2]], "McNemar p": float(m["p_mcnemar"]),
                  "discordant (b, c)": [int(m["b"]), int(m["c"])]})


def frontier_backfire(tab12: pd.DataFrame) -> Verdict:
    """Pooled by cohort, under the mild instruction the frontier flip rate rises and the
    open-weight one falls: each change's paired Wald 95 % interval (the one McNemar's test goes
    with) against 0. Not applicable without answering frontier and open cohorts."""
    g = tab12[tab12["level"] == "group"].set_index("name")
    if not {"frontier", "open"} <= set(g.index) or not int(g.loc["frontier", "pairs"]) or not int(g.loc["open", "pairs"]):
        return not_applicable("Table 12 needs the frontier and open cohort rows with pairs", {"cohorts": sorted(g.index)})
    tests, nums = [], {}
    for name, side, pub in (("frontier", "above", 0.039), ("open", "below", -0.057)):
        r = g.loc[name]
        se, n = _paired(r)
        dlt = float(r["delta_pp"]) / 100
        tests.append(interval(f"{name} flip-rate change (mild)", dlt, dlt - 1.96 * se, dlt + 1.96 * se, 0.0, side,
                              test="paired Wald (McNemar)", n=n, unit="pairs per cohort", design="one-sample",
                              published=pub))
        nums[f"{name} McNemar p"] = float(r["p_mcnemar"])
    return judge(tests, nums)


def boost_unmoved(tab11: pd.DataFrame) -> Verdict:
    """Content-first lowers flips (paired reduction above 0) while the boost rate barely moves:
    the Newcombe CI of the boost-rate change lies inside ± the smallest change that counts,
    Cohen's small effect (0.2 pooled SD of the two rates' pairs, :func:`lib.stats.small_effect`).
    Judged against 0 instead ("not significant"), any small true change would contradict the
    claim once the sample is large, and a small sample would hold it."""
    b, s = _instruction(tab11, "baseline"), _instruction(tab11, "content_first")
    if b is None or s is None or not int(b["boost_pairs"]) or not int(s["boost_pairs"]) or not int(s["flip_pairs"]):
        return not_applicable("baseline and content_first boost rates needed")
    d, lo, hi = stats.newcombe_diff(*_counts(s, "boost_rate", "boost_pairs"), *_counts(b, "boost_rate", "boost_pairs"))
    red, rlo, rhi, n = _reduction(s)
    nb = min(int(b["boost_pairs"]), int(s["boost_pairs"]))
    # the margin from the pairs as 0/1 values: their pooled Bernoulli spread
    m = stats.small_effect(*(np.repeat([1.0, 0.0], [hits, pairs - hits]) for hits, pairs in
                             (_counts(s, "boost_rate", "boost_pairs"), _counts(b, "boost_rate", "boost_pairs"))))
    return judge([interval("flip-rate reduction (content-first)", red, rlo, rhi, 0.0, "above",
                           test="paired Wald (McNemar)", n=n, unit="pairs", design="one-sample", published=0.129),
                  interval("boost-rate change (0.2 SD margin)", d, lo, hi, m, "below", test="Newcombe",
                           n=nb, unit="pairs", published=-0.008),
                  interval("boost-rate change (0.2 SD margin)", d, lo, hi, -m, "above", test="Newcombe",
                           n=nb, unit="pairs", published=-0.008)],
                 {"boost baseline → content_first": [float(b["boost_rate"]), float(s["boost_rate"])]})


def say_do_gap(tab13: pd.DataFrame, tab11: pd.DataFrame, mentions: pd.DataFrame) -> Verdict:
    """Under content-first, the drop in authority mentions exceeds the drop in flip rate: the
    gap's interval (MOVER from the two Newcombe intervals, treated as independent) against 0."""
    t, m = tab13.set_index("instruction"), mentions.set_index("instruction")
    if not {"baseline", "content_first"} <= set(t.index) or not {"baseline", "content_first"} <= set(m.index):
        return not_applicable("baseline and content_first mention and flip rates needed")
    md = stats.newcombe_diff(int(m.at["baseline", "mentions"]), int(m.at["baseline", "responses"]),
                             int(m.at["content_first", "mentions"]), int(m.at["content_first", "responses"]))
    fb, fs = _instruction(tab11, "baseline"), _instruction(tab11, "content_first")
    fd = stats.newcombe_diff(*_counts(fb, "flip_rate", "flip_pairs"), *_counts(fs, "flip_rate", "flip_pairs"))
    gap, lo, hi = _sum_ci([md, fd], [1.0, -1.0])
    n = min(int(fs["flip_pairs"]), int(m.at["content_first", "responses"]))
    return judge([interval("mention drop − flip drop", gap, lo, hi, 0.0, "above", test="MOVER from Newcombe", n=n,
                           unit="pairs per instruction", published=0.111)],
                 {"mention drop pp": 100 * md[0], "flip drop pp": 100 * fd[0],
                  "table gap pp": float(t.at["content_first", "gap_pp"])})


def venue_dominant(tab1: pd.DataFrame, boot: pd.DataFrame) -> Verdict:
    """Venue's coefficient share minus the largest other dimension's, over bootstrap resamples of
    the pilot rows: its 95 % percentile interval against 0 (Table 1's fused weights reported)."""
    w = tab1.set_index("dimension")["weight"]
    if "venue" not in w.index or boot.empty:
        return not_applicable("Table 1 with venue and a pilot bootstrap needed")
    others = [c for c in boot.columns if c not in ("venue", "replicate")]
    margin = boot["venue"] - boot[others].max(axis=1)
    lo, hi = np.percentile(margin, [2.5, 97.5])
    return judge([interval("venue coef-share margin over the next dimension", float(margin.mean()), lo, hi, 0.0,
                           "above", test="bootstrap percentile", n=int(boot.attrs.get("rows", 0)) or None,
                           unit="pilot rows", design="one-sample")],
                 {"venue weight": float(w["venue"]), "largest other": f"{w.drop('venue').idxmax()} "
                                                                      f"{float(w.drop('venue').max()):.3g}",
                  "affiliation weight": float(w.get("affiliation", np.nan)), "bootstrap replicates": len(boot)})


# -- the table --------------------------------------------------------------------------------------

#: Checks whose sample is the models themselves (pairs of models): a profile's queries do not add any.
_PER_MODEL_PAIR = {"ab-selection-agreement", "ab-flip-kappa"}


def _c(claim, fn, *tables, **kw):
    knob = PILOT if claim.id == "ab-venue-dominant" else None if claim.id in _PER_MODEL_PAIR else QUERIES
    return Check(claim, fn, tables, NB, kw, knob)


CHECKS = (
    _c(FLIP_VS_BOOST, flip_vs_boost, "ab-tab5"),
    _c(BOOSTED_DIRECTIONAL, boosted_directional, "ab-tab6"),
    _c(FLIPPED_NONDIRECTIONAL, flipped_nondirectional, "ab-tab6"),
    _c(SUSCEPTIBILITY_RANGE, susceptibility_range, "ab-tab7"),
    _c(MODEL_HOMOGENEITY, model_homogeneity, "ab-tab7"),
    _c(FRONTIER_BELOW_OPEN, frontier_below_open, "ab-tab7", "cohorts"),
    _c(SELECTION_AGREEMENT, selection_agreement, "selection_pairs"),
    _c(FLIP_KAPPA, flip_kappa, "kappa_pairs"),
    _c(TOP_TIER_ORIGINAL, top_tier_original, "ab-tab9", "picks"),
    _c(FLIPPED_FLATTENS, flipped_flattens, "ab-tab9", "picks"),
    _c(BOOSTED_LIFT, boosted_lift, "boosted_picks"),
    _c(TOPIC_SPREAD, topic_spread, "ab-tab19"),
    _c(STRONG_INSTRUCTION, strong_instruction, "ab-tab11"),
    _c(MILD_INSTRUCTION, mild_instruction, "ab-tab11"),
    _c(FRONTIER_BACKFIRE, frontier_backfire, "ab-tab12"),
    _c(BOOST_UNMOVED, boost_unmoved, "ab-tab11"),
    _c(SAY_DO_GAP, say_do_gap, "ab-tab13", "ab-tab11", "mentions"),
    _c(VENUE_DOMINANT, venue_dominant, "ab-tab1", "pilot_bootstrap"),
)
ALL = tuple(c.claim for c in CHECKS)


def pilot_bootstrap(pilot_rows: pd.DataFrame, *, replicates: int = 200, seed: int = 0) -> pd.DataFrame:
    """Coefficient shares |β_d| / Σ|β| of the pilot regression (:func:`lib.authority.pilot.fit_logit`,
    exact MLE) on ``replicates`` resamples of the pilot rows; one row per replicate."""
    from tqdm.auto import tqdm

    from lib.authority import pilot

    names = list(pilot.PILOT_PREDICTORS)
    d = pilot_rows.dropna(subset=names)
    X, y = d[names].to_numpy(float), d["y"].to_numpy(float)
    rng = np.random.default_rng(seed)
    rows = []
    for i in tqdm(range(replicates), desc="pilot bootstrap", leave=False):
        idx = rng.integers(0, len(y), len(y))
        if y[idx].min() == y[idx].max():
            continue
        coef = pilot.fit_logit(X[idx], y[idx], names, method="mle").coef
        total = sum(abs(v) for v in coef.values())
        rows.append({"replicate": i, **{k: abs(v) / total if total else np.nan for k, v in coef.items()}})
    out = pd.DataFrame(rows)
    out.attrs["rows"] = len(y)   # the pilot rows each replicate resamples (the power calculation's n)
    return out


def derived_tables(responses: pd.DataFrame | None, pilot_rows: pd.DataFrame | None = None, *,
                   cohorts: Mapping[str, str] | None = None, seed: int = 0) -> dict[str, pd.DataFrame | None]:
    """The finer tables some checks read, from the labelled responses (headline models) and the
    pilot rows with the analysis functions; a table that cannot be built is None (its claims are
    then not applicable)."""
    from lib.authority import analysis
    from lib.authority import models as ab_models

    def attempt(fn):
        try:
            return fn()
        except (ValueError, KeyError, IndexError, ZeroDivisionError):
            return None

    def sel():
        m = analysis.selection_agreement(responses)
        iu = np.triu_indices(len(m), 1)
        return pd.DataFrame({"model_a": m.index[iu[0]], "model_b": m.columns[iu[1]], "agreement": m.to_numpy()[iu]})

    def kappas():
        f, b = (analysis.flip_agreement(responses, man) for man in ("flipped", "boosted"))
        return f.merge(b, on=["model_a", "model_b"], suffixes=("_flipped", "_boosted"))

    out: dict[str, pd.DataFrame | None] = {
        "cohorts": pd.DataFrame(sorted((cohorts or ab_models.cohorts()).items()), columns=["model", "cohort"])}
    have = responses is not None and len(responses) > 0
    out["selection_pairs"] = attempt(sel) if have else None
    out["kappa_pairs"] = attempt(kappas) if have else None
    out["picks"] = attempt(lambda: analysis.picked_authority(responses)) if have else None
    out["boosted_picks"] = attempt(lambda: analysis.boosted_pick_rate(responses)) if have else None
    out["mentions"] = attempt(lambda: analysis.mention_rates(responses, by=["instruction"])) if have else None
    out["pilot_bootstrap"] = (attempt(lambda: pilot_bootstrap(pilot_rows, seed=seed))
                              if pilot_rows is not None and len(pilot_rows) else None)
    return out


def check_all(tables: Mapping[str, pd.DataFrame], responses: pd.DataFrame | None = None,
              pilot_rows: pd.DataFrame | None = None, *, synthetic: bool, seed: int = 0,
              cohorts: Mapping[str, str] | None = None) -> dict[str, Verdict]:
    """Check every authority-bias claim and record the verdicts in the ledger.

    ``tables``: the saved tables by artifact id (``lib.artifacts.saved_tables("ab-")``);
    ``responses``: the labelled responses of the headline models; ``pilot_rows``: the pilot's
    regression rows (None when the pilot was not run); ``cohorts``: model id -> cohort of the
    audited models (default the paper's; :attr:`lib.authority.inputs.Inputs.cohorts` adds the
    profile's own). Returns {claim id: Verdict}.
    """
    derived = derived_tables(responses, pilot_rows, cohorts=cohorts, seed=seed)
    return run_checks(CHECKS, {**tables, **derived}, synthetic=synthetic)
