"""Faithful mode against the reference's own code: golden files in tests/data/golden/authority/.

The reference scripts (run_experiment.py ``format_paper``, run_1n_experiment.py, analyse_results.py,
analyse_1n_results.py) were run on the small release in ``release/``; ``reference/`` holds what they
produced (README.md there says how). These tests build the same prompts and tables with the
companion's faithful mode from the same files and require the reference's bytes and rounding.
"""
import hashlib
import json

import pytest

from lib import paths
from lib.authority import conditions, corpus, prompts

GOLDEN = paths.ROOT / "tests" / "data" / "golden" / "authority"
RELEASE, REF = GOLDEN / "release", GOLDEN / "reference"


@pytest.fixture(scope="module")
def release():
    return corpus.load_released(RELEASE), conditions.conditions_from_release(RELEASE)


@pytest.fixture(scope="module")
def golden_prompts():
    return json.loads((REF / "prompts.json").read_text())


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_main_prompts_are_the_references_bytes(release, golden_prompts):
    c, cs = release
    req = prompts.build_main_requests(c, n_queries=None, condition_set=cs)
    ours = {f"{r.query_id}|{r.instruction}|{r.condition}": r.messages[0]["content"] for r in req.itertuples()}
    assert set(ours) == set(golden_prompts["main"])
    differ = [k for k, text in ours.items() if _sha(text) != golden_prompts["main"][k]]
    assert not differ, f"{len(differ)} of {len(ours)} main prompts differ from format_paper's, e.g. {differ[:3]}"
    first = next(iter(golden_prompts["main"])).split("|")[0]   # the reference's first query
    for ins in prompts.INSTRUCTIONS:   # the full text of its original-condition prompt per variant
        text = ours[f"{first}|{ins}|original"]
        assert text == (REF / f"prompt_main_{ins}.txt").read_text()
    assert "\n\n\nWhich paper" in text and "\n  - " in text and "\n    - " not in text


def test_pilot_prompts_are_the_references_bytes(release, golden_prompts):
    c, _ = release
    req = prompts.build_pilot_requests(c, topics=["Sentiment Analysis"], n_queries=1)
    assert set(req["query_id"]) == {golden_prompts["pilot_query_id"]}
    ours = {f"{r.fixed_pos}|{r.source_pos}": r.messages[0]["content"] for r in req.itertuples()}
    assert set(ours) == set(golden_prompts["pilot"])
    differ = [k for k, text in ours.items() if _sha(text) != golden_prompts["pilot"][k]]
    assert not differ, f"{len(differ)} of 100 pilot prompts differ from run_1n_experiment.py's, e.g. {differ[:3]}"
    assert ours["1|4"] == (REF / "prompt_pilot_fixed1_source4.txt").read_text()


def test_corrected_prompts_differ_only_in_missing_values(release):
    c, cs = release
    f = prompts.build_main_requests(c, n_queries=1, condition_set=cs).set_index(["query_id", "condition", "instruction"])
    k = prompts.build_main_requests(c, n_queries=1, condition_set=cs, prompt_mode="corrected").set_index(
        ["query_id", "condition", "instruction"])
    key = ("sentiment_analysis_q1", "original", "baseline")
    a, b = f.loc[key, "messages"][0]["content"], k.loc[key, "messages"][0]["content"]
    assert "  Venue: \n" in a and "  Venue: Unknown\n" in b        # the fixture's first candidate has an empty venue
    assert a.replace("  Venue: \n", "  Venue: Unknown\n") == b


_REF_NAME = {"max_h": "max_h", "median_h": "median_h", "citations": "citations", "venue": "venue_score",
             "affiliation": "affiliation_score"}


def test_pilot_fit_table1_table16_equal_the_reference(tmp_path):
    """Tables 1 and 16: the faithful fit (gradient descent, subset-mean dominance) gives analyse_1n_results.py's
    coefficients, R², VIF, dominance and weights at the reference's rounding."""
    from lib.authority import pilot

    ref = json.loads((REF / "1n_analysis_report.json").read_text())
    rows = corpus.load_released_pilot(RELEASE)
    res = pilot.analyse_pilot(rows, method="gd", averaging="subsets")
    lr = ref["logistic_regression"]
    assert {k: res.fit.coef[k] for k in _REF_NAME} == {k: lr["standardized_coefficients"][v] for k, v in _REF_NAME.items()}
    assert res.fit.intercept == lr["intercept"]
    assert round(res.fit.mcfadden_r2, 6) == lr["mcfadden_r2"]
    assert {k: round(res.vif[k], 3) for k in _REF_NAME} == {k: ref["vif"][v] for k, v in _REF_NAME.items()}
    assert res.dominance.dominance == {k: ref["dominance_analysis"][v] for k, v in _REF_NAME.items()}
    assert res.weights == {k: ref["derived_weights"]["recommended"][v] for k, v in _REF_NAME.items()}
    t16 = res.table16().set_index("predictor")
    dw = ref["derived_weights"]
    for k, v in _REF_NAME.items():
        assert round(t16.loc[k, "coef_share"], 4) == dw["from_standardized_coefficients"][v]
        assert round(t16.loc[k, "dominance_share"], 4) == dw["from_dominance_analysis"][v]
    t1 = res.table1().set_index("dimension")["weight"]
    assert t1.to_dict() == res.weights and list(t1) == sorted(t1, reverse=True)
    d = ref["descriptive_stats"]
    assert res.descriptives["runs"] == d["parse_success"]
    assert round(res.descriptives["baseline_rec_rate"], 4) == d["baseline_rec_rate"]
    assert round(res.descriptives["swap_rec_rate"], 4) == d["swap_rec_rate"]
    # the exact fit is a different decision: it moves the weights (measured in lib.authority.quirks)
    mle = pilot.analyse_pilot(rows, method="mle", averaging="subsets")
    assert mle.weights != res.weights


# ---- the main-experiment tables against analyse_results.py ------------------------------------------
from lib.authority import analysis as an, responses as rs   # noqa: E402

_MAN = {"flipped": "Original → Flipped", "boosted": "Original → Boosted"}
r4 = lambda v: round(float(v), 4)  # noqa: E731


@pytest.fixture(scope="module")
def labelled(release):
    c, cs = release
    req = prompts.build_main_requests(c, n_queries=None, condition_set=cs)
    raw = rs.attach_request_ids(corpus.load_released_responses(RELEASE), req)
    return rs.label_responses(raw, req, c, cs, parse_mode="faithful")


@pytest.fixture(scope="module")
def report():
    return json.loads((REF / "analysis_report.json").read_text())


def test_parsed_choices_equal_the_references(labelled):
    rows = json.loads((RELEASE / "results" / "results_golden.json").read_text())
    ref = {(r["model"], r["variant"], r["query_id"], r["condition"]): r["recommended_paper_id"] for r in rows}
    ours = {(r.model, r.instruction, r.query_id, r.condition): r.chosen_paper_id for r in labelled.itertuples()}
    assert ours == ref


def test_table5_flip_rates_and_table22_tests(labelled, report):
    t = an.flip_rates(labelled).set_index("manipulation")
    m6 = {x["test"]: x for x in report["metric_6_statistical_tests"]}
    for man, label in _MAN.items():
        ref = report["metric_1_flip_rate"][label]
        assert (t.loc[man, "changed"], t.loc[man, "pairs"]) == (ref["flipped"], ref["total_pairs"])
        assert (r4(t.loc[man, "rate"]), r4(t.loc[man, "consistency"])) == (ref["flip_rate"], ref["consistency_rate"])
        assert [r4(t.loc[man, "ci_low"]), r4(t.loc[man, "ci_high"])] == ref["flip_rate_95ci"]
    assert round(t.loc["flipped", "p_binomial"], 10) == m6["Flip rate > 0 (original→flipped)"]["p_value"]
    assert round(t.loc["boosted", "p_binomial"], 10) == m6["Boost rate > 0 (original→boosted)"]["p_value"]
    gap = an.flip_boost_gap(labelled)
    assert (round(gap["chi2"], 4), round(gap["p"], 6)) == (m6["Flip rate ≠ Boost rate"]["chi2"],
                                                         m6["Flip rate ≠ Boost rate"]["p_value"])


def test_table6_flip_direction(labelled, report):
    t = an.flip_direction(labelled).set_index("manipulation")
    per = an.flip_direction(labelled, by="model").set_index(["manipulation", "model"])
    for man, label in _MAN.items():
        ref = report["metric_1a_flip_direction"][label]
        assert (t.loc[man, "flips"], t.loc[man, "higher"], t.loc[man, "lower"], t.loc[man, "same"]) == (
            ref["total_flips"], ref["toward_higher_authority"], ref["toward_lower_authority"], ref["same_authority"])
        assert r4(t.loc[man, "toward_higher_pct"] / 100) == ref["toward_higher_pct"]
        assert round(t.loc[man, "p_binomial"], 6) == ref["direction_binomial_p"]
        for model, pm in ref["per_model"].items():
            assert (per.loc[(man, model), "flips"], per.loc[(man, model), "higher"]) == (pm["total_flips"], pm["toward_higher"])


def test_table7_model_susceptibility_and_homogeneity(labelled, report):
    t = an.model_susceptibility(labelled).set_index("model")
    ref = report["metric_3_model_differences"]
    for model in t.index:
        m = ref[model]
        assert [r4(t.loc[model, k]) for k in ("flip_rate", "boost_rate", "susceptibility", "parse_rate")] == [
            m["flip_rate"], m["boost_rate"], m["susceptibility"], m["parse_rate"]]
        assert [r4(t.loc[model, "flip_ci_low"]), r4(t.loc[model, "flip_ci_high"])] == m["flip_rate_95ci"]
        assert [r4(t.loc[model, "boost_ci_low"]), r4(t.loc[model, "boost_ci_high"])] == m["boost_rate_95ci"]
    h = an.model_homogeneity(labelled)
    assert (round(h["chi2"], 4), round(h["p"], 6)) == (ref["chi2_homogeneity_flip"]["chi2"], ref["chi2_homogeneity_flip"]["p_value"])
    # boosted-pick rate and lift: each model's rate over the chance rate pooled over all models (metric 2)
    picks = report["metric_2_dose_response"]["boosted_pick_rate"]["per_model"]
    for model in t.index:
        assert (r4(t.loc[model, "boosted_pick_rate"]), r4(t.loc[model, "boosted_pick_lift"])) == (
            picks[model]["rate"], picks[model]["lift"]), model


def test_table9_dose_response_and_boosted_picks(labelled, report):
    ref = report["metric_2_dose_response"]
    t = an.dose_response(labelled).set_index("tier")
    for cond, counts in ref["tier_distribution"].items():
        n = sum(counts.values())
        for tier, k in counts.items():
            assert t.loc[tier, cond] == pytest.approx(100 * k / n, abs=1e-12)
    b = an.boosted_pick_rate(labelled).iloc[0]
    rb = ref["boosted_pick_rate"]
    assert (b["picked_boosted"], b["cells"]) == (rb["picked"], rb["available"])
    assert (r4(b["rate"]), r4(b["expected"]), r4(b["lift"])) == (rb["observed_rate"], rb["expected_random_rate"],
                                                                 rb["lift_over_random"])
    assert b["p_binomial"] == pytest.approx(rb["_printed_binomial_p"], rel=1e-12)
    pa = an.picked_authority(labelled).set_index("condition")
    for cond in ("original", "flipped", "boosted"):
        ra = ref["authority_of_picked"][cond]
        assert (pa.loc[cond, "picks"], round(pa.loc[cond, "mean_max_h"], 2), pa.loc[cond, "median_max_h"]) == (
            ra["n"], ra["avg_max_h_index"], ra["median_max_h_index"])
        assert (round(pa.loc[cond, "mean_citations"], 1), pa.loc[cond, "median_citations"]) == (
            ra["avg_citation_count"], ra["median_citation_count"])
    assert round(an.boosted_max_h_test(labelled)["p"], 6) == ref["authority_of_picked"]["mann_whitney_h_index_p"]


def test_tables10_19_topic_rates(labelled, report):
    ref = report["metric_1b_topic_breakdown"]
    t = an.topic_rates(labelled).set_index("topic")
    for topic, r in ref.items():
        assert (r4(t.loc[topic, "flip_rate"]), r4(t.loc[topic, "boost_rate"]), t.loc[topic, "n"]) == (
            r["flip_rate"], r["boost_rate"], r["flip_pairs"])
    assert list(t.index) == report["_printed_1b"]["_printed_sorted_topics"]
    e = an.topic_extremes(labelled)
    assert round(e["spread_pp"].iloc[0] / 100, 4) == round(report["_printed_1b"]["_printed_spread"], 4)


def test_table11_instruction_effect(labelled, report):
    ref = report["metric_4_instruction_effect"]["by_variant"]
    t = an.instruction_effect(labelled).set_index("instruction")
    for ins, r in ref.items():
        assert (r4(t.loc[ins, "flip_rate"]), t.loc[ins, "flip_pairs"]) == (r["flip_rate"], r["flip_pairs"])
        assert (r4(t.loc[ins, "boost_rate"]), t.loc[ins, "boost_pairs"]) == (r["boost_rate"], r["boost_pairs"])
        assert [r4(t.loc[ins, "flip_ci_low"]), r4(t.loc[ins, "flip_ci_high"])] == r["flip_rate_95ci"]
        assert t.loc[ins, "flip_reduction_pp"] / 100 == pytest.approx(r["flip_reduction_from_baseline"], abs=1.01e-4)
        if ins != "baseline":
            assert (t.loc[ins, "b"], t.loc[ins, "c"]) == (r["_printed_b"], r["_printed_c"])
            if "mcnemar_vs_baseline_p" in r:
                assert round(t.loc[ins, "p_mcnemar"], 6) == r["mcnemar_vs_baseline_p"]


@pytest.mark.parametrize("variant", ["anti_authority", "content_first"])
def test_table12_per_model_rates_are_the_references_all_pairs(labelled, report, variant):
    ref = report["metric_4_instruction_effect"]["by_model_variant"]
    t = an.instruction_effect_by_model(labelled, variant).set_index("name")
    for model in t.index:
        base, var = ref[f"{model}|baseline"], ref[f"{model}|{variant}"]
        assert (t.loc[model, "baseline_pairs"], t.loc[model, "variant_pairs"]) == (base["_printed_ft"], var["_printed_ft"])
        assert (r4(t.loc[model, "baseline_flip_rate"]), r4(t.loc[model, "variant_flip_rate"])) == (
            base["flip_rate"], var["flip_rate"])
        assert -t.loc[model, "delta_pp"] / 100 == pytest.approx(var["flip_reduction"], abs=1.01e-4)
    # the paired subset (corrected) is a different number on this release: some cells parsed under one variant only
    c = an.instruction_effect_by_model(labelled, variant, mode="corrected").set_index("name")
    assert (c["delta_pp"] - t["delta_pp"]).abs().max() > 1
    assert (c["pairs"] < t["baseline_pairs"]).any()


def test_table13_say_do_gap_and_table23_markers(labelled, report):
    printed = report["_printed_5"]
    t13 = an.say_do_gap(labelled)
    g = t13[t13["model"] == "all"].set_index("instruction")
    flips = report["metric_4_instruction_effect"]["by_variant"]
    assert len(g) == 3
    for ins in g.index:
        tot = sum(v["total"] for k, v in printed["_printed_cond_variant"].items() if k.endswith("|" + ins))
        hit = sum(v["with_authority_mention"] for k, v in printed["_printed_cond_variant"].items() if k.endswith("|" + ins))
        assert g.loc[ins, "mention_rate"] == pytest.approx(hit / tot, abs=1e-12)
        assert r4(g.loc[ins, "flip_rate"]) == flips[ins]["flip_rate"]
    per_model = t13[t13["instruction"] == "all"].set_index("model")      # Appendix G: per model, all conditions
    assert set(per_model.index) == set(printed["_printed_by_model"])
    for model, ref in printed["_printed_by_model"].items():
        assert (per_model.loc[model, "mentions"], per_model.loc[model, "responses"]) == (
            ref["with_authority_mention"], ref["total"])
        assert per_model.loc[model, "mention_rate"] == pytest.approx(ref["with_authority_mention"] / ref["total"], abs=1e-12)
    m = an.mention_rates(labelled).set_index("condition")
    for cond in ("original", "flipped", "boosted"):
        r = report["metric_5_justification"][cond]
        assert (m.loc[cond, "mentions"], m.loc[cond, "responses"], r4(m.loc[cond, "rate"])) == (
            r["with_authority_mention"], r["total"], r["mention_rate"])
    t = an.marker_categories(labelled).set_index("category")["count"].to_dict()
    assert t == printed["_printed_all_patterns"]


def test_table15_latency_mean_and_median(labelled, report):
    t = an.inference_time(labelled).set_index("model")
    for model in t.index:
        ref = report["metric_3_model_differences"][model]
        assert (round(t.loc[model, "mean_s"], 2), round(t.loc[model, "median_s"], 2)) == (
            ref["avg_latency_s"], ref["median_latency_s"])


def test_table8_agreement_equals_the_references(labelled):
    """Table 8 against analyse_cross_model_agreement.py: the selection matrix, per-pair κ (3 dp) and the aggregates."""
    ref = json.loads((REF / "cross_model_agreement.json").read_text())
    sel = an.selection_agreement(labelled)
    for a, row in ref["selection"]["matrix"].items():
        for b, (match, total) in row.items():
            assert sel.loc[a, b] == pytest.approx(match / total, abs=1e-12)
    t = an.agreement_summary(labelled).set_index("measure")
    for a, row in ref["selection"]["matrix"].items():          # one row per unordered pair (Appendix G)
        for b, (match, total) in row.items():
            label = f"selection agreement/{a} vs {b}" if a < b else f"selection agreement/{b} vs {a}"
            if a != b:
                assert t.loc[label, "pair"] == pytest.approx(match / total, abs=1e-12)
    assert t["pair"].notna().sum() == 6                        # 4 models
    s = ref["selection"]
    assert t.loc["selection agreement", ["mean", "min", "max"]].tolist() == pytest.approx(
        [s["_printed_mean"], s["_printed_min"], s["_printed_max"]], abs=1e-12)
    for man in ("flipped", "boosted"):
        k = an.flip_agreement(labelled, man)
        for r in k.itertuples():
            assert round(r.kappa, 3) == ref[man]["kappa"][r.model_a][r.model_b]
            assert round(r.agreement, 3) == ref[man]["rate"][r.model_a][r.model_b]
        row = t.loc[f"flip kappa ({man})"]
        assert (row["mean"], row["min"], row["max"]) == pytest.approx(
            (ref[man]["_printed_mean_kappa"], ref[man]["_printed_min_kappa"], ref[man]["_printed_max_kappa"]), abs=1e-12)


# ---- Tables 7 and 8 where the reference's denominator and float order decide (release_kappa/) ---------
@pytest.fixture(scope="module")
def kappa_case(release):
    """108 rows on the release's candidate sets: gemini vs qwen flip with exact κ = 7/16 (boosted) and
    −5/16 (flipped), ties at the 3rd decimal; claude has 3 boosted answers without a pick, so its own
    chance rate differs from the pooled one."""
    c, cs = release
    req = prompts.build_main_requests(c, n_queries=None, condition_set=cs)
    raw = rs.attach_request_ids(corpus.load_released_responses(GOLDEN / "release_kappa"), req)
    return (rs.label_responses(raw, req, c, cs, parse_mode="faithful"),
            json.loads((REF / "kappa_report.json").read_text()))


def test_table7_boosted_pick_lift_uses_the_pooled_chance_rate(kappa_case):
    labelled, ref = kappa_case
    rb = ref["boosted_pick_rate"]
    t = an.model_susceptibility(labelled).set_index("model")
    assert set(t.index) == set(rb["per_model"])
    for model, pm in rb["per_model"].items():
        assert (r4(t.loc[model, "boosted_pick_rate"]), r4(t.loc[model, "boosted_pick_lift"])) == (pm["rate"], pm["lift"])
    # claude's own chance rate (9 parsed boosted cells) is not the pooled one: its per-model lift would differ
    own = an.boosted_pick_rate(labelled[labelled["model"] == "claude-sonnet-4-6"]).iloc[0]
    assert r4(own["lift"]) != rb["per_model"]["claude-sonnet-4-6"]["lift"]
    s = an.susceptibility_table(labelled)
    assert set(s["boosted_pick_expected"].round(4)) == {rb["expected_random_rate"]}


def test_table8_kappa_rounds_as_the_references_float_arithmetic(kappa_case):
    labelled, ref = kappa_case
    cm = ref["cross_model_agreement"]
    t = an.agreement_summary(labelled).set_index("measure")
    for man in ("flipped", "boosted"):
        k = an.flip_agreement(labelled, man)
        assert len(k) == 3
        for r in k.itertuples():
            assert round(r.kappa, 3) == cm[man]["kappa"][r.model_a][r.model_b], (man, r.model_a, r.model_b)
        row = t.loc[f"flip kappa ({man})"]
        assert (row["mean"], row["min"], row["max"]) == pytest.approx(
            (cm[man]["_printed_mean_kappa"], cm[man]["_printed_min_kappa"], cm[man]["_printed_max_kappa"]), abs=1e-12)
    pair = lambda man: an.flip_agreement(labelled, man).set_index(["model_a", "model_b"]).loc[  # noqa: E731
        ("gemini-3-flash-preview", "qwen2.5:7b"), "kappa"]
    assert (pair("boosted"), pair("flipped")) == (0.4375000000000001, -0.3124999999999997)   # 7/16, −5/16 as the reference
    assert (cm["boosted"]["kappa"]["gemini-3-flash-preview"]["qwen2.5:7b"],
            cm["flipped"]["kappa"]["gemini-3-flash-preview"]["qwen2.5:7b"]) == (0.438, -0.312)
    # the corrected κ (confusion matrix) lands on the other side of the tie
    corr = an.flip_agreement(labelled, "boosted", corrected=True).set_index(["model_a", "model_b"])
    assert round(corr.loc[("gemini-3-flash-preview", "qwen2.5:7b"), "kappa"], 3) == 0.437
