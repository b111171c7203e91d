"""lib.authority.claims: every check holds on a hand-made table built to satisfy the paper's
sentence, is contradicted (or inconclusive) on one built against it, and is not applicable when
its table is missing."""
import numpy as np
import pandas as pd
import pytest

from lib import claims, stats
from lib.authority import claims as ac


def held(v):
    return v.status == "held"


def tab5(kf, kb, n=1000):
    return pd.DataFrame({"manipulation": ["flipped", "boosted"], "changed": [kf, kb], "pairs": [n, n]})


def tab6(hf, hb, n=100):
    return pd.DataFrame({"manipulation": ["flipped", "boosted"], "model": ["all", "all"], "flips": [n, n],
                         "higher": [hf, hb], "p_binomial": [0.01, 0.01]})


def tab7(models: dict, p=0.001):
    rows = []
    for m, (kf, kb, n) in models.items():
        (fl, fh), (bl, bh) = stats.wilson_ci(kf, n), stats.wilson_ci(kb, n)
        rows.append(dict(model=m, flip_rate=kf / n, flip_ci_low=fl, flip_ci_high=fh, flip_pairs=n, boost_rate=kb / n,
                         boost_ci_low=bl, boost_ci_high=bh, boost_pairs=n, chi2_homogeneity=30.0, p_homogeneity=p))
    return pd.DataFrame(rows)


def tab11(base=(0.44, 0.218), mild=(0.417, 0.215, 0.059), strong=(0.311, 0.21, 0.001), n=1000, discordant=(0, 148, 191)):
    # discordant pairs b + c per instruction; b − c = the reduction in pairs (148 makes the mild 23 pairs p ≈ 0.06)
    rows = []
    for (ins, (f, b, *p)), disc in zip((("baseline", base), ("anti_authority", mild), ("content_first", strong)), discordant):
        red = round(n * (base[0] - f))
        rows.append(dict(instruction=ins, flip_rate=f, flip_pairs=n, boost_rate=b, boost_pairs=n,
                         flip_reduction_pp=100 * (base[0] - f), b=(disc + red) // 2, c=(disc - red) // 2,
                         p_mcnemar=p[0] if p else np.nan))
    return pd.DataFrame(rows)


def test_flip_vs_boost():
    v = ac.flip_vs_boost(tab5(392, 217))
    assert held(v) and v.tests[0]["estimate"] == pytest.approx(0.175) and v.numbers["p"] < 1e-10
    assert v.tests[0]["published"] == pytest.approx(0.175) and v.tests[0]["test"] == "Newcombe"
    assert ac.flip_vs_boost(tab5(230, 217)).status == "inconclusive"
    assert ac.flip_vs_boost(tab5(150, 217)).status == "contradicted"


def test_direction_claims():
    assert held(ac.boosted_directional(tab6(41, 68)))
    assert ac.boosted_directional(tab6(41, 55)).status == "inconclusive"    # 55/100: CI reaches below 50 %
    assert ac.boosted_directional(tab6(41, 30)).status == "contradicted"
    assert held(ac.flipped_nondirectional(tab6(41, 68)))
    assert ac.flipped_nondirectional(tab6(70, 80)).status == "contradicted"  # flipped pulled toward higher too
    assert ac.boosted_directional(tab6(41, 0).assign(flips=[100, 0])).status == "not applicable"


def test_susceptibility_homogeneity_and_frontier():
    spread = tab7({"gpt-5.4": (20, 15, 150), "llama3.1:8b": (95, 52, 150), "gemma2:9b": (50, 21, 150)})
    v = ac.susceptibility_range(spread)
    assert held(v) and v.numbers["ratio max/min"] == pytest.approx((95 + 52) / (20 + 15))
    assert ac.susceptibility_range(tab7({"a": (40, 30, 150), "b": (45, 33, 150)})).status == "inconclusive"
    assert held(ac.model_homogeneity(spread))
    weak = ac.model_homogeneity(tab7({"a": (1, 1, 9), "b": (1, 1, 9)}, p=0.4))
    assert weak.status == "inconclusive" and weak.decide["n needed"] > 0  # a failed χ² never contradicts
    cohorts = pd.DataFrame({"model": ["gpt-5.4", "llama3.1:8b", "gemma2:9b"], "cohort": ["frontier", "open", "open"]})
    assert held(ac.frontier_below_open(spread, cohorts))
    backwards = cohorts.assign(cohort=["open", "frontier", "open"])  # the most susceptible model called frontier
    assert ac.frontier_below_open(spread, backwards).status == "contradicted"
    assert ac.frontier_below_open(spread, cohorts.assign(cohort="open")).status == "not applicable"
    # no model changed a recommendation: frontier "at or below" cannot be tested, never held
    still = tab7({"gpt-5.4": (0, 0, 150), "llama3.1:8b": (0, 0, 150)})
    assert ac.frontier_below_open(still, cohorts.head(2)).status == "not applicable"
    # the frontier model never answered (no pairs): not applicable
    silent = tab7({"gpt-5.4": (0, 0, 150), "llama3.1:8b": (95, 52, 150)}).assign(flip_pairs=[0, 150])
    assert ac.frontier_below_open(silent, cohorts.head(2)).status == "not applicable"


def test_agreement_claims():
    assert held(ac.selection_agreement(pd.DataFrame({"agreement": [0.40, 0.45, 0.50, 0.42]})))
    assert ac.selection_agreement(pd.DataFrame({"agreement": [0.09, 0.12, 0.10, 0.11]})).status == "inconclusive"
    assert ac.selection_agreement(pd.DataFrame({"agreement": [0.05, 0.06, 0.04, 0.05]})).status == "contradicted"
    k = pd.DataFrame({"kappa_flipped": [0.20, 0.25, 0.22, 0.18], "kappa_boosted": [0.05, 0.06, 0.04, 0.07]})
    assert held(ac.flip_kappa(k))
    assert not held(ac.flip_kappa(k.rename(columns={"kappa_flipped": "kappa_boosted", "kappa_boosted": "kappa_flipped"})))
    assert ac.flip_kappa(k.head(1)).status == "not applicable"


def tab9(top=(52.1, 32.5), low=(11.8, 20.2)):
    return pd.DataFrame({"tier": ["top", "mid", "low", "emerging"], "share": [30.0, 30.0, 20.0, 20.0],
                         "original": [top[0], 30.0, low[0], 100 - 30 - top[0] - low[0]],
                         "flipped": [top[1], 29.0, low[1], 100 - 29 - top[1] - low[1]], "boosted": [49, 30, 12, 9]})


PICKS = pd.DataFrame({"condition": ["boosted", "flipped", "original"], "picks": [1000, 1000, 1000]})


def test_dose_response_claims():
    v = ac.top_tier_original(tab9(), PICKS)
    assert held(v) and v.tests[0]["estimate"] == pytest.approx(0.521) and v.tests[0]["threshold"] == 0.3
    assert not held(ac.top_tier_original(tab9(top=(31.0, 30.0)), PICKS))
    assert held(ac.flipped_flattens(tab9(), PICKS))
    assert not held(ac.flipped_flattens(tab9(low=(11.8, 11.8)), PICKS))
    lift = pd.DataFrame({"picked_boosted": [271], "cells": [1000], "expected": [0.2], "lift": [1.355]})
    assert held(ac.boosted_lift(lift)) and not held(ac.boosted_lift(lift.assign(picked_boosted=210, expected=0.2)))
    # judged as a lift over the run's own chance rate: 0.271 / 0.2, its Wilson CI scaled alike, against 1
    t = ac.boosted_lift(lift).tests[0]
    lo, hi = stats.wilson_ci(271, 1000)
    assert t["estimate"] == pytest.approx(1.355) and (t["low"], t["high"]) == pytest.approx((lo / 0.2, hi / 0.2))
    assert t["threshold"] == 1.0 and t["published"] == 1.06
    under = ac.boosted_lift(lift.assign(picked_boosted=277, expected=0.283))
    assert under.status == "inconclusive" and under.decide["leaning"] == "contradicted"


def test_topic_spread():
    t = pd.DataFrame({"topic": ["a", "b", "c"], "flip_rate": [0.578, 0.157, 0.40], "n": [100, 100, 100]})
    v = ac.topic_spread(t)
    assert held(v) and v.tests[1]["estimate"] == pytest.approx(0.42)  # 58 − 16 of 100
    assert ac.topic_spread(t.assign(flip_rate=[0.40, 0.42, 0.41])).status == "inconclusive"
    assert ac.topic_spread(t.head(1)).status == "not applicable"


def test_instruction_claims():
    t = tab11()
    v = ac.strong_instruction(t)
    assert held(v) and v.tests[0]["estimate"] == pytest.approx(0.129)
    # 20 of 1,000 pairs fewer with 400 discordant pairs: the paired interval reaches 0
    assert ac.strong_instruction(tab11(strong=(0.42, 0.21, 0.3), discordant=(0, 148, 400))).status == "inconclusive"
    assert ac.strong_instruction(tab11(strong=(0.10, 0.21, 0.001), discordant=(0, 148, 400))).status == "contradicted"
    assert held(ac.mild_instruction(t))
    # judged on strong − mild, not on the mild effect's significance (a sample-size property)
    assert held(ac.mild_instruction(tab11(discordant=(0, 60, 191))))
    assert ac.mild_instruction(tab11(mild=(0.25, 0.215, 0.001), discordant=(0, 300, 191))).status == "contradicted"
    assert ac.mild_instruction(tab11(mild=(0.33, 0.215, 0.01), discordant=(0, 300, 191))).status == "inconclusive"
    assert held(ac.boost_unmoved(t))
    assert ac.boost_unmoved(tab11(base=(0.44, 0.30), strong=(0.311, 0.15, 0.001))).status == "contradicted"
    # "barely moves" is an equivalence margin, 0.2 pooled SD (≈ 0.083 at a boost rate near 0.22):
    # −3 pp on 20,000 pairs is significant against 0 yet under the margin, so held; on 300 pairs
    # the interval reaches past the margin, so inconclusive, not held by a small sample
    big = ac.boost_unmoved(tab11(base=(0.44, 0.24), strong=(0.311, 0.21, 0.001), n=20000))
    assert held(big) and big.tests[1]["high"] < 0 and big.tests[1]["threshold"] == pytest.approx(0.2 * np.sqrt(0.225 * 0.775), abs=1e-3)
    assert ac.boost_unmoved(tab11(base=(0.44, 0.27), strong=(0.311, 0.21, 0.001), n=300)).status == "inconclusive"
    assert ac.strong_instruction(t[t["instruction"] != "content_first"]).status == "not applicable"


def tab12(front=(3.9, 0.02), open_=(-5.7, 0.001)):
    return pd.DataFrame({"level": ["group", "group"], "name": ["frontier", "open"], "pairs": [750, 1250],
                         "delta_pp": [front[0], open_[0]], "b": [20, 100], "c": [49, 29],
                         "p_mcnemar": [front[1], open_[1]]})


def test_frontier_backfire():
    assert held(ac.frontier_backfire(tab12()))
    assert ac.frontier_backfire(tab12(front=(-3.3, 0.4))).status == "contradicted"
    assert ac.frontier_backfire(tab12().head(1)).status == "not applicable"
    # no frontier pair answered (a profile without frontier models): not applicable, never held
    assert ac.frontier_backfire(tab12().assign(pairs=[0, 1250])).status == "not applicable"


def test_say_do_gap():
    t13 = pd.DataFrame({"instruction": ["baseline", "content_first"], "gap_pp": [0.0, 11.1]})
    mentions = pd.DataFrame({"instruction": ["baseline", "content_first"], "mentions": [900, 180],
                             "responses": [3000, 3000]})
    v = ac.say_do_gap(t13, tab11(), mentions)
    assert held(v) and v.tests[0]["estimate"] == pytest.approx(0.240 - 0.129)
    assert ac.say_do_gap(t13, tab11(), mentions.assign(mentions=[900, 510])).status == "inconclusive"
    assert ac.say_do_gap(t13, tab11(), mentions.assign(mentions=[900, 800])).status == "contradicted"


def test_venue_dominant():
    rng = np.random.default_rng(0)
    boot = pd.DataFrame({"venue": rng.normal(0.45, 0.02, 200), "median_h": rng.normal(0.25, 0.02, 200),
                         "affiliation": rng.normal(0.05, 0.01, 200)})
    t1 = pd.DataFrame({"dimension": ["venue", "median_h", "affiliation"], "weight": [0.5, 0.4, 0.1]})
    assert held(ac.venue_dominant(t1, boot))
    assert ac.venue_dominant(t1, boot.assign(median_h=boot["venue"] + rng.normal(0, 0.05, 200))).status == "inconclusive"
    assert ac.venue_dominant(t1, boot.assign(median_h=boot["venue"] + 0.1)).status == "contradicted"


def test_check_all_without_tables_gives_every_claim_a_reason(isolated_outputs):
    v = ac.check_all({}, None, None, synthetic=True)
    assert set(v) == {c.id for c in ac.ALL} and len(v) >= 15
    assert all(x.status == "not applicable" and "did not produce" in x.detail for x in v.values())
    recs = claims.records()
    assert len(recs) == len(ac.ALL) and all(r["notebook"] == "05_authority_pilot_regression" for r in recs)


def test_check_all_runs_every_check_on_given_tables(isolated_outputs):
    t = {"ab-tab5": tab5(392, 217), "ab-tab6": tab6(41, 68), "ab-tab11": tab11(), "ab-tab12": tab12()}
    v = ac.check_all(t, None, None, synthetic=True)
    for cid in ("ab-flip-vs-boost", "ab-boosted-directional", "ab-strong-instruction", "ab-frontier-backfire"):
        assert v[cid].status == "held", cid
    assert v["ab-topic-spread"].status == "not applicable"


def test_claims_cite_registered_artifacts_of_notebook_05():
    from lib import artifacts

    for c in ac.ALL:
        assert c.artifacts and all(artifacts.REGISTRY[a].notebook == "05_authority_pilot_regression" for a in c.artifacts)
