"""The main-experiment tables (ab-tab5 … ab-tab23) on a small constructed responses table with hand-computed values.

Two models (m1, m2), two instructions (baseline, content_first), four queries in two topics, three
conditions. Papers: A..H with a citation stratum, a composite per condition and a max h-index.
Picks (original / flipped / boosted):

    baseline       m1: q1 A/B/A  q2 C/C/D  q3 E/F/E  q4 G/G/H      m2: q1 A/A/A  q2 C/D/C  q3 E/E/E  q4 G/H/G
    content_first  m1: q1 A/A/A  q2 C/C/D  q3 E/E/E  q4 G/G/G      m2: q1 A/A/A  q2 C/C/C  q3 E/E/E  q4 G/H/G

so flips = 5/16 (baseline 4/8, content-first 1/8) and boosts = 3/16.
"""
import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from lib.authority import analysis as an
from lib.authority.conditions import build_candidate_sets, build_conditions
from lib.authority.corpus import synthetic_corpus
from lib.authority.prompts import build_main_requests
from lib.authority.responses import RESPONSE_COLUMNS, label_responses

TIER = dict(A="top", B="low", C="mid", D="mid", E="top", F="low", G="emerging", H="mid")
MAX_H = dict(A=40, B=5, C=12, D=60, E=35, F=3, G=8, H=55)
# composite of the chosen paper in its condition
COMP = {("A", "original"): .8, ("A", "flipped"): .8, ("A", "boosted"): .8, ("B", "flipped"): .9,
        ("C", "original"): .5, ("C", "flipped"): .5, ("C", "boosted"): .5, ("D", "flipped"): .2, ("D", "boosted"): .7,
        ("E", "original"): .6, ("E", "flipped"): .6, ("E", "boosted"): .6, ("F", "flipped"): .3,
        ("G", "original"): .4, ("G", "flipped"): .4, ("G", "boosted"): .4, ("H", "flipped"): .6, ("H", "boosted"): .4}
PICKS = {
    ("m1", "baseline"): ["ABA", "CCD", "EFE", "GGH"], ("m2", "baseline"): ["AAA", "CDC", "EEE", "GHG"],
    ("m1", "content_first"): ["AAA", "CCD", "EEE", "GGG"], ("m2", "content_first"): ["AAA", "CCC", "EEE", "GHG"],
}
CONDS = ("original", "flipped", "boosted")


def _text(model, ins, q, cond):
    if ins == "baseline":
        return "Highly cited and well-known authors." if model == "m1" else "Relevant method."
    return "Published at NeurIPS." if (model, cond, q) in {("m1", "original", 1), ("m1", "original", 2)} else "Good method."


@pytest.fixture(scope="module")
def responses():
    rows = []
    for (model, ins), picks in PICKS.items():
        for qi, triple in enumerate(picks, start=1):
            for cond, paper in zip(CONDS, triple):
                comp = COMP[(paper, cond)]
                rows.append(dict(
                    request_id=f"{ins}-{qi}-{cond}", query_id=f"q{qi}", topic="T1" if qi <= 2 else "T2", model=model,
                    instruction=ins, condition=cond, choice=1, parsed=True, chosen_paper_id=paper, chosen_tier=TIER[paper],
                    chosen_bucket="mid", chosen_boosted=cond == "boosted" and paper in "DH", chosen_composite=comp,
                    chosen_x_venue=comp, chosen_x_median_h=0.0, chosen_x_max_h=0.0, chosen_x_citations=0.0,
                    chosen_x_affiliation=0.0, chosen_max_h=float(MAX_H[paper]), chosen_citations=10.0,
                    n_boosted_candidates=2 if cond == "boosted" and qi in (2, 4) else 0,
                    justification=_text(model, ins, qi, cond), latency_s=1.0 if model == "m1" else float(qi)))
    df = pd.DataFrame(rows)
    assert list(df.columns) == list(RESPONSE_COLUMNS)
    return df


def test_pairs_and_flip_rates_with_wilson(responses):
    p = an.pairs(responses, "flipped")
    assert len(p) == 16 and p["flipped"].sum() == 5
    t = an.flip_rates(responses).set_index("manipulation")
    assert t.loc["flipped", ["changed", "pairs"]].tolist() == [5, 16] and t.loc["boosted", "changed"] == 3
    # Wilson 95 % for 5/16 by hand: centre 0.348805, half-width 0.207154
    assert t.loc["flipped", "ci_low"] == pytest.approx(0.141651, abs=1e-5)
    assert t.loc["flipped", "ci_high"] == pytest.approx(0.555959, abs=1e-5)
    assert t.loc["flipped", "p_binomial"] == pytest.approx(st.binomtest(5, 16, 1e-4, alternative="greater").pvalue)
    gap = an.flip_boost_gap(responses)
    assert gap["gap_pp"] == pytest.approx(12.5)
    assert gap["chi2"] == pytest.approx(st.chi2_contingency([[5, 11], [3, 13]], correction=True)[0])
    assert an.flip_boost_gap(responses, yates=False)["chi2"] > gap["chi2"]


def test_unparsed_cells_leave_the_pairs(responses):
    r = responses.copy()
    hit = (r["model"] == "m1") & (r["instruction"] == "baseline") & (r["query_id"] == "q1") & (r["condition"] == "flipped")
    r.loc[hit, "parsed"] = False
    assert len(an.pairs(r, "flipped")) == 15 and an.pairs(r, "flipped")["flipped"].sum() == 4


def test_flip_direction_by_hand(responses):
    d = an.flip_direction(responses).set_index("manipulation")
    assert d.loc["flipped", ["flips", "higher", "lower", "same"]].tolist() == [5, 3, 2, 0]
    assert d.loc["flipped", "toward_higher_pct"] == pytest.approx(60.0)
    assert d.loc["flipped", "p_binomial"] == pytest.approx(1.0)
    assert d.loc["boosted", ["flips", "higher", "lower", "same"]].tolist() == [3, 2, 0, 1]
    assert d.loc["boosted", "toward_higher_pct"] == pytest.approx(200 / 3)     # ties stay in the denominator
    assert d.loc["boosted", "decisive_higher_pct"] == pytest.approx(100.0)
    assert d.loc["boosted", "p_binomial"] == pytest.approx(0.5)
    by = an.flip_direction(responses, by="model")
    assert set(by["model"]) == {"m1", "m2"}


def test_table6_stacks_all_models_then_each_model(responses):
    t = an.flip_direction_table(responses)
    assert list(t["model"]) == ["all", "all", "m1", "m2", "m1", "m2"]      # manipulation within each block
    flipped = t[t["manipulation"] == "flipped"].set_index("model")
    # m1 flips q1 A->B (.8 -> .9) and q3 E->F (.6 -> .3); m2 q2 C->D (.5 -> .2), q4 G->H twice (.4 -> .6)
    assert flipped[["flips", "higher", "lower"]].to_dict("index") == {
        "all": dict(flips=5, higher=3, lower=2), "m1": dict(flips=2, higher=1, lower=1),
        "m2": dict(flips=3, higher=2, lower=1)}


def test_parser_sensitivity_puts_both_parsers_rates_side_by_side(responses):
    r = responses.copy()      # the corrected parser reads m1's baseline q1 flipped answer as no choice
    hit = (r["model"] == "m1") & (r["instruction"] == "baseline") & (r["query_id"] == "q1") & (r["condition"] == "flipped")
    r.loc[hit, "parsed"] = False
    t = an.parser_sensitivity(responses, r)
    assert list(t.columns) == ["parser", "manipulation", "rate", "ci_low", "ci_high", "pairs"]
    got = t.set_index(["parser", "manipulation"])
    assert got.loc[("faithful", "flipped"), ["rate", "pairs"]].tolist() == [5 / 16, 16]
    assert got.loc[("corrected", "flipped"), ["rate", "pairs"]].tolist() == [4 / 15, 15]
    assert got.loc[("corrected", "boosted"), ["rate", "pairs"]].tolist() == [3 / 16, 16]
    assert list(an.parser_sensitivity(r, r, parser="corrected")["parser"]) == ["corrected"] * 4   # the run's own


def test_model_susceptibility_and_homogeneity(responses):
    t = an.model_susceptibility(responses).set_index("model")
    assert t.loc["m1", "flip_rate"] == 0.25 and t.loc["m1", "boost_rate"] == 0.375
    assert t.loc["m1", "susceptibility"] == pytest.approx(0.3125) and t.loc["m2", "susceptibility"] == pytest.approx(0.1875)
    assert list(t.index) == ["m1", "m2"]                                        # sorted by flip rate
    h = an.model_homogeneity(responses)
    assert h["chi2"] == pytest.approx(st.chi2_contingency([[2, 6], [3, 5]])[0]) and h["dof"] == 1


def test_agreement_and_kappa_by_hand(responses):
    sel = an.selection_agreement(responses)
    assert sel.loc["m1", "m2"] == pytest.approx(16 / 24)
    k = an.flip_agreement(responses, "flipped")
    assert k.loc[0, "cells"] == 8 and k.loc[0, "agreement"] == pytest.approx(3 / 8)
    assert k.loc[0, "kappa"] == pytest.approx(-0.1875 / 0.4375)                # p_e = 0.5625 by hand
    kb = an.flip_agreement(responses, "boosted")
    assert kb.loc[0, "kappa"] == pytest.approx(0.0)
    s = an.agreement_summary(responses).set_index("measure")
    assert s.loc["selection agreement", "mean"] == pytest.approx(16 / 24)
    assert s.loc["selection agreement/m1 vs m2", "pair"] == pytest.approx(16 / 24)    # the one pair's row
    assert s["pair"].notna().sum() == 1 and np.isnan(s.loc["selection agreement/m1 vs m2", "mean"])


def test_kappa_faithful_zero_when_no_variation():
    assert an._kappa([False] * 4, [False] * 4, corrected=False) == 0.0
    assert an._kappa([False] * 4, [False] * 4, corrected=True) == 1.0


def test_dose_response_and_boosted_pick_rate(responses):
    d = an.dose_response(responses).set_index("tier")
    assert d.loc["top", "share"] == 30 and d.loc["top", "original"] == pytest.approx(50.0)
    assert d.loc["mid", "original"] == pytest.approx(25.0) and d.loc["emerging", "original"] == pytest.approx(25.0)
    assert d.loc["low", "flipped"] == pytest.approx(100 * 2 / 16)              # B and F
    b = an.boosted_pick_rate(responses).iloc[0]
    assert (b["picked_boosted"], b["cells"]) == (3, 8)
    assert b["expected"] == pytest.approx(16 / 160) and b["lift"] == pytest.approx(3.75)
    assert b["p_binomial"] == pytest.approx(st.binomtest(3, 8, 0.1, alternative="greater").pvalue)
    pa = an.picked_authority(responses).set_index("condition")
    assert pa.loc["original", "median_max_h"] == sorted([40, 12, 35, 8] * 4)[8]   # upper median, as the reference


def test_topic_rates_and_extremes(responses):
    t = an.topic_rates(responses).set_index("topic")
    assert t.loc["T1", "flip_rate"] == 0.25 and t.loc["T2", "flip_rate"] == 0.375 and t.loc["T1", "n"] == 8
    assert t.loc["T1", "boost_rate"] == 0.25 and t.loc["T2", "boost_rate"] == 0.125
    e = an.topic_extremes(responses, k=1)
    assert list(e["topic"]) == ["T2", "T1"] and e["spread_pp"].iloc[0] == pytest.approx(12.5)


def test_instruction_effect_mcnemar(responses):
    t = an.instruction_effect(responses).set_index("instruction")
    assert t.loc["baseline", "flip_rate"] == 0.5 and t.loc["content_first", "flip_rate"] == 0.125
    assert t.loc["content_first", "flip_reduction_pp"] == pytest.approx(37.5)
    assert (t.loc["content_first", "b"], t.loc["content_first", "c"]) == (3, 0)
    assert t.loc["content_first", "p_mcnemar"] == pytest.approx(0.25)           # 2 · 0.5³
    m = an.instruction_effect_by_model(responses, "content_first", groups={"m1": "all", "m2": "all"})
    m = m.set_index(["level", "name"])
    assert m.loc[("model", "m1"), "delta_pp"] == pytest.approx(-50.0) and m.loc[("model", "m1"), "p_mcnemar"] == 0.5
    assert m.loc[("model", "m2"), "delta_pp"] == pytest.approx(-25.0) and m.loc[("model", "m2"), "p_mcnemar"] == 1.0
    assert (m.loc[("group", "all"), "b"], m.loc[("group", "all"), "c"]) == (3, 0)


def test_say_do_gap_by_hand(responses):
    g = an.say_do_gap(responses).set_index("instruction")
    assert g.loc["baseline", "mention_rate"] == 0.5 and g.loc["content_first", "mention_rate"] == pytest.approx(2 / 24)
    assert g.loc["content_first", "mention_drop_pp"] == pytest.approx(100 * (0.5 - 2 / 24))
    assert g.loc["content_first", "flip_drop_pp"] == pytest.approx(37.5)
    assert g.loc["content_first", "gap_pp"] == pytest.approx(100 * (0.5 - 2 / 24) - 37.5)
    assert (g.loc["baseline", "mentions"], g.loc["baseline", "responses"]) == (12, 24)
    t = an.say_do_gap(responses)
    m = t[t["instruction"] == "all"].set_index("model")          # per model, every instruction and condition
    assert m.loc["m1", "mention_rate"] == pytest.approx(14 / 24)  # 12 baseline cells + 2 NeurIPS cells
    assert m.loc["m2", "mention_rate"] == 0.0 and m.loc["m2", "responses"] == 24
    assert m["flip_rate"].isna().all() and set(t.loc[t["instruction"] != "all", "model"]) == {"all"}


# -- the Appendix G rows of ab-tab8 and ab-tab13 in the comparison with the paper ---------------------

FRONTIER = ("gpt-5.4", "claude-sonnet-4-6", "gemini-3-flash-preview")
#: picks per model over (q1, q2) x (original, flipped, boosted); None = unparsed
APPG_PICKS = {"gpt-5.4": "AAACCC", "claude-sonnet-4-6": "ABACCD", "gemini-3-flash-preview": "ABBCD-"}
#: which of the six justifications mention authority ("" = empty justification, left out)
APPG_MENTIONS = {"gpt-5.4": "100000", "claude-sonnet-4-6": "110100", "gemini-3-flash-preview": "01100 "}


def _appendix_g_responses() -> pd.DataFrame:
    rows = []
    for model in FRONTIER:
        cells = [(q, c) for q in ("q1", "q2") for c in CONDS]
        for (q, cond), pick, said in zip(cells, APPG_PICKS[model], APPG_MENTIONS[model]):
            text = {"1": "It is highly cited.", "0": "The method fits the query.", " ": ""}[said]
            rows.append(dict(model=model, instruction="baseline", query_id=q, topic="T", condition=cond,
                             parsed=pick != "-", chosen_paper_id=None if pick == "-" else pick, chosen_composite=0.5,
                             justification=text))
    return pd.DataFrame(rows)


def test_appendix_g_pair_agreement_and_mention_rates_reach_the_comparison(tmp_path):
    """Hand-computed: gpt/claude agree on 4 of 6 cells; gemini's q2-boosted cell is unparsed, so gpt/gemini
    agree on 2 of 5 shared cells (q1-original, q2-original) and claude/gemini on 3 of 5. Mentions: gpt 1/6,
    claude 3/6, gemini 2/5 (its empty justification is left out)."""
    from lib.authority import published as ab_pub

    r = _appendix_g_responses()
    tables = {"ab-tab8": an.agreement_summary(r), "ab-tab13": an.say_do_gap(r)}
    folder = tmp_path / "tables"
    folder.mkdir()
    for k, t in tables.items():                                  # through the saved CSVs, as build() reads them
        t.to_csv(folder / f"{k}.csv", index=False)
    out = ab_pub.build(tmp_path)["authority_bias"].set_index(["artifact", "row", "column"])
    expected = {("ab-tab8", "selection agreement", "max"): 4 / 6,
                ("ab-tab8", "selection agreement/gpt-5.4 vs gemini-3-flash-preview", "pair"): 2 / 5,   # named b vs a
                ("ab-tab8", "selection agreement/claude-sonnet-4-6 vs gemini-3-flash-preview", "pair"): 3 / 5,
                ("ab-tab13", "model/gpt-5.4", "mention_rate"): 1 / 6,
                ("ab-tab13", "model/claude-sonnet-4-6", "mention_rate"): 3 / 6,
                ("ab-tab13", "model/gemini-3-flash-preview", "mention_rate"): 2 / 5}
    for key, value in expected.items():
        row = out.loc[key]
        assert row["regenerated"] == pytest.approx(value)
        assert row["difference"] == pytest.approx(value - row["published"])
    assert out.loc[("ab-tab8", "selection agreement/gpt-5.4 vs gemini-3-flash-preview", "pair"), "published"] == 0.624
    assert out.loc[("ab-tab13", "model/gpt-5.4", "mention_rate"), "published"] == pytest.approx(0.083)
    assert np.isnan(out.loc[("ab-tab13", "model/llama3.1:8b", "mention_rate"), "regenerated"])   # not in this run
    assert not out.loc[("ab-tab13", "model/claude-sonnet-4-6", "mention_rate"), "within_tolerance"]
    # the in-memory tables compare the same way as their CSVs
    direct = ab_pub.authority_comparison(tables).set_index(["artifact", "row", "column"])
    assert direct.loc[list(expected), "regenerated"].tolist() == pytest.approx(list(expected.values()))


def test_marker_categories_double_count_quirk():
    r = pd.DataFrame({"justification": ["Highly cited, with many citations.", "A recent, well-known study.", "", None]})
    faithful = an.marker_categories(r).set_index("category")["count"]
    corrected = an.marker_categories(r, corrected=True).set_index("category")["count"]
    assert faithful["citations"] == 2 and corrected["citations"] == 1          # two citation patterns, one label
    assert faithful["recency"] == 1 and faithful["author_prestige"] == 1
    assert an.marker_categories(r)["share_pct"].sum() == pytest.approx(100)
    assert an.authority_markers("Published at NeurIPS by a Stanford group") == ["venue_name", "institution_name"]
    assert not an.mentions_authority("The method is sound and relevant.")


def test_inference_time(responses):
    t = an.inference_time(responses).set_index("model")
    assert t.loc["m1", "mean_s"] == 1.0
    # 24 cells of 1, 2, 3, 4 s: the reference's upper median sorted(s)[12] is 3, the usual median 2.5
    assert t.loc["m2", "mean_s"] == pytest.approx(2.5) and t.loc["m2", "median_s"] == 3.0
    assert an.inference_time(responses, mode="corrected").set_index("model").loc["m2", "median_s"] == pytest.approx(2.5)
    assert t.loc["m2", "p95_s"] == pytest.approx(np.percentile([1, 2, 3, 4] * 6, 95))
    zero = responses.assign(latency_s=np.where(responses["model"] == "m1", 0.0, responses["latency_s"]))
    assert "m1" not in set(an.inference_time(zero)["model"])           # the reference skips 0-second cells
    assert an.inference_time(zero, mode="corrected").set_index("model").loc["m1", "mean_s"] == 0.0


def test_weight_sensitivity(responses):
    t = an.weight_sensitivity(responses, derived={"venue": .4, "median_h": .3, "max_h": .1, "citations": .1,
                                                   "affiliation": .1}).set_index(["manipulation", "scheme"])
    assert t.loc[("flipped", "venue only"), ["higher", "lower", "ties"]].tolist() == [3, 2, 0]
    assert t.loc[("flipped", "uniform"), "pct_total"] == pytest.approx(60.0)
    assert t.loc[("flipped", "citations only"), "ties"] == 5 and np.isnan(t.loc[("flipped", "citations only"), "pct_decisive"])
    assert ("flipped", "derived") in t.index and len(t) == 2 * 7


def test_significance_summary_and_static_tables(responses):
    s = an.significance_summary(responses)
    assert len(s) == 9 and s["p"].between(0, 1).all()     # ten with the anti_authority variant present
    assert s.set_index("test").loc["content_first instruction effect on flips", "p"] == pytest.approx(0.25)
    m = an.metrics_and_tests()
    assert {"metric", "research_question", "test"} <= set(m.columns) and len(m) == 6


def test_tier_ablation(responses):
    t = an.tier_ablation(responses, headline_models=["m1"], ablation_model="m2").set_index("quantity")
    assert t.loc["m2 flip rate", "value"] == 0.375
    assert t.loc["aggregate flip rate, headline models", "value"] == 0.25
    assert t.loc["aggregate flip rate, headline + ablation", "value"] == pytest.approx(5 / 16)
    with pytest.raises(ValueError, match="no responses"):
        an.tier_ablation(responses, headline_models=["m1"], ablation_model="m9")


def test_missing_columns_named(responses):
    with pytest.raises(ValueError, match=r"missing column\(s\) \['chosen_paper_id'\]"):
        an.pairs(responses.drop(columns="chosen_paper_id"))


def test_label_responses_end_to_end():
    corpus = synthetic_corpus(5, topics=["Question Answering"])
    req = build_main_requests(corpus, instructions=["baseline"], n_queries=1, seed=5)
    conds = build_conditions(corpus, seed=5)
    raw = pd.DataFrame({"request_id": req["request_id"], "model": "m",
                        "response": ["I recommend Paper 3.", "After 2-3 sentences: Paper 4", "No idea."],
                        "latency_s": [1.0, 2.0, 3.0]})
    lab = label_responses(raw, req, corpus, conds).set_index("condition")
    assert list(lab.columns) == [c for c in RESPONSE_COLUMNS if c != "condition"]
    ids = req.set_index("condition")["candidate_ids"]
    assert lab.loc["original", "chosen_paper_id"] == ids["original"][2]
    assert lab.loc["flipped", "choice"] == 2                                   # faithful parser takes the stray 2
    assert not lab.loc["boosted", "parsed"] and lab.loc["boosted", "chosen_paper_id"] is None
    comp = conds.papers.set_index(["condition", "paper_id"])["composite"]
    assert lab.loc["original", "chosen_composite"] == comp[("original", ids["original"][2])]
    corr = label_responses(raw, req, corpus, conds, parse_mode="corrected").set_index("condition")
    assert corr.loc["flipped", "choice"] == 4
    cand = build_candidate_sets(corpus, seed=5)
    assert tuple(cand[cand["query_id"] == lab["query_id"].iloc[0]]["paper_id"]) == ids["original"]
    assert lab.loc["original", "chosen_tier"] == corpus.papers.set_index("paper_id").loc[ids["original"][2], "tier"]
    with pytest.raises(ValueError, match="not in the requests table"):
        label_responses(raw.assign(request_id="zzz"), req, corpus, conds)


def test_table12_faithful_all_pairs_vs_corrected_paired_subset(responses):
    """One model, two queries: q1's variant cells fail to parse, so only q0 is paired (all four cells parsed)."""
    rows = []
    picks = {("baseline", 0): ("A", "B"), ("baseline", 1): ("A", "A"),          # baseline: q0 flips, q1 does not
             ("anti_authority", 0): ("A", "A"), ("anti_authority", 1): (None, None)}
    for (ins, q), (o, f) in picks.items():
        for cond, pid in (("original", o), ("flipped", f)):
            rows.append(dict(model="m", instruction=ins, query_id=f"q{q}", topic="T", condition=cond,
                             parsed=pid is not None, chosen_paper_id=pid, chosen_composite=0.5))
    r = pd.DataFrame(rows)
    f = an.instruction_effect_by_model(r, "anti_authority").iloc[0]
    assert (f["baseline_pairs"], f["variant_pairs"], f["pairs"]) == (2, 1, 1)
    assert f["baseline_flip_rate"] == 0.5 and f["variant_flip_rate"] == 0.0 and f["delta_pp"] == pytest.approx(-50)
    c = an.instruction_effect_by_model(r, "anti_authority", mode="corrected").iloc[0]
    assert c["baseline_flip_rate"] == 1.0 and c["delta_pp"] == pytest.approx(-100)
    assert (c["b"], c["c"]) == (f["b"], f["c"]) == (1, 0)              # McNemar on the paired subset in both modes
    with pytest.raises(ValueError, match="mode"):
        an.instruction_effect_by_model(r, "anti_authority", mode="x")
