"""lib.published: the comparison of regenerated and published values (issue 8, item 4)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib import paths
from lib import published as P
from lib.attribution import published as at_pub
from lib.authority import published as ab_pub
from lib.scholar import published as lsb_pub

PAPERS_DIR = paths.ROOT.parent / "shared" / "papers"


def _pub(rows):
    return pd.DataFrame(rows, columns=["artifact", "row", "column", "published"])


def _reg(rows):
    return pd.DataFrame(rows, columns=["artifact", "row", "column", "regenerated"])


# ---- compare -----------------------------------------------------------------------------------

def test_compare_tolerance_boundary_is_inclusive():
    pub = _pub([("lsb-fig2", "a", "m", 0.83), ("lsb-fig2", "b", "m", 0.83), ("lsb-fig2", "c", "m", 0.83),
                ("lsb-fig2", "d", "m", 0.83)])
    # 0.835 − 0.83 is 0.0050000000000000044 in float64: still on the boundary, so within
    reg = _reg([("lsb-fig2", "a", "m", 0.835), ("lsb-fig2", "b", "m", 0.825), ("lsb-fig2", "c", "m", 0.8351),
                ("lsb-fig2", "d", "m", 0.8249)])
    out = P.compare(reg, pub).set_index("row")
    assert out.loc["a", "within_tolerance"] and out.loc["b", "within_tolerance"]
    assert not out.loc["c", "within_tolerance"] and not out.loc["d", "within_tolerance"]
    assert out.loc["c", "difference"] == pytest.approx(0.0051)
    assert out.loc["d", "difference"] == pytest.approx(-0.0051)
    assert list(P.compare(reg, pub).columns) == P.COLUMNS


def test_compare_missing_regenerated_is_na_and_order_follows_published():
    pub = _pub([("ab-tab5", "flipped", "rate", 0.392), ("ab-tab5", "boosted", "rate", 0.217)])
    reg = _reg([("ab-tab5", "boosted", "rate", 0.3), ("ab-tab5", "other", "rate", 0.1)])
    out = P.compare(reg, pub)
    assert out["row"].tolist() == ["flipped", "boosted"]          # published order, extra regenerated row dropped
    assert pd.isna(out.loc[0, "regenerated"]) and pd.isna(out.loc[0, "difference"])
    assert out["within_tolerance"].isna().tolist() == [True, False]
    assert out.loc[1, "difference"] == pytest.approx(0.3 - 0.217)
    assert out["paper"].tolist() == ["authority_bias", "authority_bias"]   # from the artifact registry
    assert str(out["within_tolerance"].dtype) == "boolean"


def test_compare_custom_keys_tolerance_and_carried_columns():
    pub = pd.DataFrame({"model": ["x", "y"], "published": [1.0, 2.0], "note": ["n1", "n2"], "paper": "p"})
    reg = pd.DataFrame({"model": ["x", "y"], "regenerated": [1.04, 2.2]})
    out = P.compare(reg, pub, keys=["model"], tolerance=0.05)
    assert out["within_tolerance"].tolist() == [True, False]
    assert out["paper"].tolist() == ["p", "p"] and out["note"].tolist() == ["n1", "n2"]
    assert out["artifact"].isna().all()


def test_compare_errors_name_the_problem():
    pub = _pub([("ab-tab5", "flipped", "rate", 0.392)])
    with pytest.raises(ValueError, match=r"regenerated table lacks column\(s\) \['regenerated'\]"):
        P.compare(pub.rename(columns={"published": "value"}), pub)
    dup = _reg([("ab-tab5", "flipped", "rate", 0.1), ("ab-tab5", "flipped", "rate", 0.2)])
    with pytest.raises(ValueError, match="regenerated table repeats the key"):
        P.compare(dup, pub)
    with pytest.raises(ValueError, match="published value missing"):
        P.compare(_reg([]), _pub([("ab-tab5", "flipped", "rate", np.nan)]))


def test_summary_and_summary_line():
    pub = _pub([("ab-tab5", "flipped", "rate", 0.392), ("ab-tab5", "boosted", "rate", 0.217),
                ("ab-tab1", "venue", "weight", 0.353)])
    reg = _reg([("ab-tab5", "flipped", "rate", 0.394), ("ab-tab5", "boosted", "rate", 0.3)])
    out = P.compare(reg, pub)
    s = P.summary(out).iloc[0]
    assert (s["published"], s["compared"], s["within"], s["outside"], s["missing"]) == (3, 2, 1, 1, 1)
    assert P.summary_line(out, "authority_bias") == \
        "authority_bias: 2 compared of 3 published values, 1 within ±0.005, 0 of 0 with an interval consistent, 1 missing"


def test_write_comparison(tmp_path):
    out = P.compare(_reg([("ab-tab5", "flipped", "rate", 0.5)]), _pub([("ab-tab5", "flipped", "rate", 0.392)]))
    csv, md = P.write_comparison(out, "authority_bias", out_dir=tmp_path / "cmp", synthetic=True)
    back = pd.read_csv(csv)
    assert back.columns.tolist() == P.COLUMNS and back.loc[0, "regenerated"] == 0.5
    text = md.read_text()
    assert "Synthetic data" in text and "| authority_bias | ab-tab5 | 1 | 1 | 0 | 1 | 0 |" in text
    assert not list((tmp_path / "cmp").glob(".*.tmp"))
    with pytest.raises(ValueError, match="lacks column"):
        P.write_comparison(out.drop(columns="published"), "x", out_dir=tmp_path)
    # a declared mixed set-up (issue 16) says so, not "synthetic"
    _, md = P.write_comparison(out, "authority_bias", out_dir=tmp_path / "cmp", synthetic="mixed")
    assert "Mixed data (declared synthetic: mixed)" in md.read_text() and "Synthetic data" not in md.read_text()


def test_the_comparison_label_follows_the_saved_records(tmp_path):
    recs = tmp_path / "records"
    recs.mkdir()
    assert P._synthetic(tmp_path, ["ab-tab5"]) is None
    (recs / "ab-tab5.json").write_text('{"synthetic": false, "label": "real"}')
    assert P._synthetic(tmp_path, ["ab-tab5"]) is False
    (recs / "ab-tab6.json").write_text('{"synthetic": true}')                   # a record from before labels
    assert P._synthetic(tmp_path, ["ab-tab5", "ab-tab6"]) is True
    (recs / "ab-tab7.json").write_text('{"synthetic": true, "label": "mixed"}')
    assert P._synthetic(tmp_path, ["ab-tab5", "ab-tab6", "ab-tab7"]) == "mixed"


# ---- the transcribed resources --------------------------------------------------------------------

@pytest.mark.parametrize("printed,value", [("39.2%", 39.2), ("−2.3pp", -2.3), (".02", 0.02), ("15,000", 15000),
                                           ("+0.099", 0.099), ("10 percentage points", 10), (".000 (→ score 3.8e99)", 0)])
def test_printed_number(printed, value):
    assert P.printed_number(printed) == pytest.approx(value)


@pytest.fixture(scope="module")
def ab():
    return ab_pub.published_values()


@pytest.fixture(scope="module")
def at():
    return at_pub.published_values()


def test_resources_parse_with_expected_shape(ab, at):
    for df, paper, prefix in ((ab, "authority_bias", "ab-"), (at, "attribution_bias", "at-")):
        assert df.columns.tolist() == ["paper", "artifact", "row", "column", "published", "unit", "note"]
        assert (df["paper"] == paper).all() and df["artifact"].str.startswith(prefix).all()
        assert not df.duplicated(["artifact", "row", "column"]).any()
    assert len(ab) == 131 and len(at) == 36
    assert {"ab-tab1", "ab-tab5", "ab-tab6", "ab-tab7", "ab-tab11", "ab-tab12", "ab-tab13", "ab-tab17"} <= set(ab["artifact"])
    assert {"at-tab2", "at-tab5", "at-fig4", "at-fig6", "at-fig7"} <= set(at["artifact"])


def _value(df, artifact, row, column):
    hit = df[(df["artifact"] == artifact) & (df["row"] == row) & (df["column"] == column)]
    assert len(hit) == 1, (artifact, row, column)
    return hit["published"].iloc[0]


def test_resource_spot_values(ab, at):
    # authority_bias.txt line 130: "39.2% of recommendations change ... 21.7% change under the boosted condition"
    assert _value(ab, "ab-tab5", "flipped", "rate") == pytest.approx(0.392)
    assert _value(ab, "ab-tab5", "boosted", "rate") == pytest.approx(0.217)
    # line 173: "venue prestige (weight = 0.353) ... median h-index (0.292) and max h-index (0.187) ... (0.031)"
    assert _value(ab, "ab-tab1", "venue", "weight") == pytest.approx(0.353)
    assert _value(ab, "ab-tab1", "affiliation", "weight") == pytest.approx(0.031)
    # the derived citation weight closes the sum to 1 (line 94: "normalized to sum to 1")
    assert ab[ab["artifact"] == "ab-tab1"]["published"].sum() == pytest.approx(1.0)
    # line 159: "The mild anti-authority aggregate effect is much smaller (−2.3pp; McNemar p=0.059)"
    assert _value(ab, "ab-tab11", "anti_authority", "flip_change_pp") == pytest.approx(-0.023)
    assert _value(ab, "ab-tab11", "anti_authority", "p_mcnemar") == pytest.approx(0.059)
    # line 138: "from 17.4% (gpt-5.4) to 49.2% (Llama 3.1)"; chi-squared 479.4 kept on its own scale
    assert _value(ab, "ab-tab7", "gpt-5.4", "susceptibility") == pytest.approx(0.174)
    assert _value(ab, "ab-tab7", "all", "chi2_homogeneity") == pytest.approx(479.4)
    # attribution_bias.txt line 81: "GPT-5.1 outperforms Kimi-K2.5 under direct prompting (26.7% vs. 22.5% intersectional"
    assert _value(at, "at-fig4", "intersectional/GPT-5.1", "direct") == pytest.approx(0.267)
    assert _value(at, "at-fig4", "intersectional/Kimi-K2.5", "direct") == pytest.approx(0.225)
    # line 169: "average subgroup fame was 5.03 ... ranges ... of 0.0017 and 0.0006"
    assert _value(at, "at-tab2", "intersectional", "avg_fame") == pytest.approx(5.03)
    assert _value(at, "at-tab2", "multirace", "fame_range") == pytest.approx(0.0006)
    # line 43: 7,964 quotes by 2,968 authors, equal across four subgroups → 1991 / 742 per group (derived)
    assert _value(at, "at-tab2", "intersectional", "quotes_per_group") == 1991
    assert _value(at, "at-tab2", "intersectional", "authors_per_group") == 742


@pytest.mark.skipif(not PAPERS_DIR.is_dir(), reason="the paper texts (shared/papers) are not beside the repository")
@pytest.mark.parametrize("resource,text", [("ab_published.csv", "authority_bias.txt"),
                                           ("at_published.csv", "attribution_bias.txt")])
def test_every_printed_value_is_on_its_cited_line(resource, text):
    def norm(s):
        return s.replace("\\", "").replace("−", "-").replace("$", "")
    lines = (PAPERS_DIR / text).read_text().splitlines()
    raw = pd.read_csv(paths.RESOURCES / resource, dtype=str, keep_default_na=False)
    for r in raw.itertuples(index=False):
        if r.printed:
            assert norm(r.printed) in norm(lines[int(r.line) - 1]), (r.artifact, r.row, r.column, r.line)


def test_resource_validation_errors(tmp_path):
    src = paths.RESOURCES / "ab_published.csv"
    raw = pd.read_csv(src, dtype=str, keep_default_na=False)
    bad = raw.copy()
    bad.loc[5, "value"] = "39.3"                       # ab-tab5 flipped, printed 39.2%
    bad.to_csv(tmp_path / "ab_published.csv", index=False)
    with pytest.raises(ValueError, match=r"row 7 \(ab-tab5 / flipped / rate\): value 39.3 differs from the printed '39.2%'"):
        ab_pub.published_values(resources=tmp_path)
    bad = raw.copy()
    bad.loc[0, "artifact"] = "at-tab2"
    bad.to_csv(tmp_path / "ab_published.csv", index=False)
    with pytest.raises(ValueError, match="not a registered authority_bias artifact"):
        ab_pub.published_values(resources=tmp_path)
    bad = raw.copy()
    bad.loc[0, "printed"] = ""
    bad.to_csv(tmp_path / "ab_published.csv", index=False)
    with pytest.raises(ValueError, match="note must start with 'derived'"):
        ab_pub.published_values(resources=tmp_path)


# ---- LLMScholarBench ------------------------------------------------------------------------------

def _agg(rows):
    return pd.DataFrame(rows, columns=["group_kind", "group", "metric_name", "mean"])


def test_lsb_means_wraps_published_means():
    agg = _agg([("access", "open", "refusal_pct", 0.553),           # published .55 → within
                ("access", "proprietary", "refusal_pct", 0.41),     # published .40 → outside
                ("model", "gemma-3-12b", "validity_pct", 0.87),     # C.7
                ("model", "gemma-3-12b", "factuality_field", 0.43),  # C.8
                ("model", "gemma-3-12b", "parity_ethnicity", 0.70),  # C.9, published .66
                ("param", "top_5", "duplicates", 0.0)])             # C.11
    out = lsb_pub.lsb_means([agg.iloc[:2], agg.iloc[2:]])
    idx = out.set_index(["row", "column"])
    assert idx.loc[("access=open", "refusal_pct"), "within_tolerance"]
    assert not idx.loc[("access=proprietary", "refusal_pct"), "within_tolerance"]
    assert idx.loc[("access=proprietary", "refusal_pct"), "difference"] == pytest.approx(0.01)
    assert idx.loc[("model=gemma-3-12b", "validity_pct"), "artifact"] == "lsb-figC7"
    assert idx.loc[("model=gemma-3-12b", "factuality_field"), "artifact"] == "lsb-figC8"
    assert idx.loc[("model=gemma-3-12b", "parity_ethnicity"), "artifact"] == "lsb-figC9"
    assert idx.loc[("model=gemma-3-12b", "parity_ethnicity"), "difference"] == pytest.approx(0.04)
    assert idx.loc[("param=top_5", "duplicates"), "artifact"] == "lsb-figC11"
    assert (out["paper"] == "llmscholarbench").all()
    # every published label is a row; the ones not regenerated are missing
    assert len(out) == 72 + 22 * 18 + 18 * 9 and out["regenerated"].notna().sum() == 6
    with pytest.raises(ValueError, match="repeat"):
        lsb_pub.lsb_means([agg, agg])


def test_lsb_temperatures_at_published_temperature():
    pub = lsb_pub.lsb_published_temperatures()
    assert len(pub) == 24
    grounded = pub.set_index("model").loc["gemini-2.5-flash-grounded"]
    assert grounded["fact_std"] == 0.0 and grounded["temperature"] == 0.5     # ".000 (→ score 3.8e99)"
    selected = pd.DataFrame({"model": ["deepseek-chat-v3.1", "deepseek-r1-0528"], "temperature": [0.25, 0.25],
                             "fact_mean": [0.5, 0.5], "fact_std": [0.1, 0.1], "f_valid": [0.5, 0.5]})
    scores = pd.DataFrame({"model": ["deepseek-chat-v3.1", "deepseek-chat-v3.1", "deepseek-r1-0528"],
                           "temperature": [0.0, 0.25, 0.25], "fact_mean": [0.936, 0.5, 0.93],
                           "fact_std": [0.056, 0.1, 0.07], "f_valid": [0.685, 0.5, 0.778]})
    out = lsb_pub.lsb_temperatures(selected, scores).set_index(["artifact", "row", "column"])
    # published t*: deepseek-chat-v3.1 0.00, deepseek-r1-0528 0.25
    assert out.loc[("lsb-tabA1", "deepseek-chat-v3.1", "temperature"), "difference"] == pytest.approx(0.25)
    assert out.loc[("lsb-tabA1", "deepseek-r1-0528", "temperature"), "within_tolerance"]
    # values read at the published t* = 0.00, not at the selected 0.25
    assert out.loc[("lsb-figA2", "deepseek-chat-v3.1", "fact_mean"), "within_tolerance"]
    assert out.loc[("lsb-figA2", "deepseek-r1-0528", "fact_std"), "difference"] == pytest.approx(0.01)
    assert pd.isna(out.loc[("lsb-tabA1", "qwen3-8b", "temperature"), "within_tolerance"])
    # without scores: the selected temperature's own values
    alt = lsb_pub.lsb_temperatures(selected).set_index(["artifact", "row", "column"])
    assert alt.loc[("lsb-figA2", "deepseek-chat-v3.1", "fact_mean"), "regenerated"] == 0.5


# ---- authority bias mapping ------------------------------------------------------------------------

def _long(table_id, df):
    return ab_pub.authority_table_long(table_id, df).set_index(["row", "column"])["regenerated"]


def test_authority_rates_percent_and_table_wide_rows():
    tab5 = pd.DataFrame({"manipulation": ["flipped", "boosted"], "changed": [392, 217], "pairs": [1000, 1000],
                         "rate": [0.392, 0.217], "ci_low": [0.36, 0.19], "ci_high": [0.42, 0.24]})
    assert _long("ab-tab5", tab5)[("flipped", "rate")] == 0.392
    tab6 = pd.DataFrame({"manipulation": ["boosted", "boosted"], "model": ["all", "gemma2:9b"],
                         "toward_higher_pct": [68.2, 74.3], "decisive_higher_pct": [70.0, 75.0], "p_binomial": [0.001, 0.01]})
    assert _long("ab-tab6", tab6)[("boosted/gemma2:9b", "toward_higher_pct")] == pytest.approx(0.743)
    tab7 = pd.DataFrame({"model": ["gpt-5.4", "llama3.1:8b"], "flip_rate": [0.224, 0.632], "boost_rate": [0.124, 0.352],
                         "susceptibility": [0.174, 0.492], "parse_rate": [1.0, 0.99], "boosted_pick_rate": [0.236, 0.283],
                         "boosted_pick_lift": [0.92, 1.10], "chi2_homogeneity": [479.4, 479.4],
                         "boosted_pick_rate_all": [0.271, 0.271], "boosted_pick_expected": [0.256, 0.256]})
    s = _long("ab-tab7", tab7)
    assert s[("all", "chi2_homogeneity")] == 479.4
    assert s[("gpt-5.4", "boosted_pick_rate")] == 0.236 and s[("llama3.1:8b", "boosted_pick_lift")] == 1.10
    assert s[("all", "boosted_pick_rate_all")] == 0.271 and s[("all", "boosted_pick_expected")] == 0.256
    assert s[("all", "susceptibility_max_over_min")] == pytest.approx(0.492 / 0.174)
    tab10 = pd.DataFrame({"topic": ["A", "B"], "flip_rate": [0.578, 0.157], "boost_rate": [0.2, 0.3], "spread_pp": [42.1, 42.1]})
    assert _long("ab-tab10", tab10)[("all", "spread_pp")] == pytest.approx(0.421)
    # one topic only: it is both the most and the least susceptible, and is compared once
    one = pd.DataFrame({"topic": ["A", "A"], "flip_rate": [0.6, 0.6], "boost_rate": [0.8, 0.8],
                        "group": ["most susceptible", "least susceptible"], "spread_pp": [0.0, 0.0]})
    assert _long("ab-tab10", one)[("A", "flip_rate")] == 0.6


def test_authority_signed_changes_follow_the_printed_sign():
    tab11 = pd.DataFrame({"instruction": ["baseline", "anti_authority", "content_first"], "flip_rate": [0.443, 0.466, 0.314],
                          "boost_rate": [0.218, 0.22, 0.21], "flip_reduction_pp": [0.0, -2.3, 12.9],
                          "p_mcnemar": [np.nan, 0.059, 0.0001]})
    s = _long("ab-tab11", tab11)
    assert s[("anti_authority", "flip_change_pp")] == pytest.approx(0.023)       # the flip rate rose 2.3pp
    assert s[("content_first", "flip_reduction_pp")] == pytest.approx(0.129)
    tab13 = pd.DataFrame({"instruction": ["content_first"], "mention_rate": [0.1], "flip_rate": [0.3],
                          "mention_drop_pp": [24.0], "flip_drop_pp": [12.9], "gap_pp": [11.1]})
    s = _long("ab-tab13", tab13)
    assert s[("content_first", "mention_change_pp")] == pytest.approx(-0.24)
    assert s[("content_first", "flip_change_pp")] == pytest.approx(-0.129)
    assert s[("content_first", "gap_pp")] == pytest.approx(0.111)
    tab12 = pd.DataFrame({"level": ["model", "model", "group"], "name": ["gpt-5.4", "gpt-5.4", "frontier"],
                          "pairs": [50, 50, 150], "baseline_flip_rate": [0.2, 0.2, 0.2], "variant_flip_rate": [0.248, 0.1, 0.239],
                          "delta_pp": [4.8, -10.0, 3.9], "b": [1, 1, 1], "c": [2, 2, 2], "p_mcnemar": [0.4, 0.1, 0.02],
                          "variant": ["anti_authority", "content_first", "anti_authority"]})
    s = _long("ab-tab12", tab12)
    assert s[("model/gpt-5.4", "delta_pp")] == pytest.approx(0.048)          # the content_first row is left out
    assert s[("group/frontier", "p_mcnemar")] == 0.02


def test_authority_per_row_scaling_of_mixed_tables():
    tab21 = pd.DataFrame({"quantity": ["gpt-4o-mini flip rate", "gpt-4o-mini mild-instruction change (pp)"],
                          "value": [0.376, -3.6]})
    s = _long("ab-tab21", tab21)
    assert s[("gpt-4o-mini flip rate", "value")] == 0.376
    assert s[("gpt-4o-mini mild-instruction change (pp)", "value")] == pytest.approx(-0.036)
    tab22 = pd.DataFrame({"test": ["flip rate vs boost rate", "direction under boosted", "anti_authority instruction effect on flips"],
                          "family": ["chi-squared", "binomial", "McNemar"], "statistic": [427.5, 68.2, -2.3], "p": [0.0, 0.0, 0.059]})
    s = _long("ab-tab22", tab22)
    assert s[("flip rate vs boost rate", "statistic")] == 427.5
    assert s[("direction under boosted", "statistic")] == pytest.approx(0.682)
    assert s[("anti_authority instruction effect on flips", "statistic")] == pytest.approx(-0.023)


def test_authority_mapping_errors():
    with pytest.raises(ValueError, match="no mapping for 'ab-tab3'"):
        ab_pub.authority_table_long("ab-tab3", pd.DataFrame())
    with pytest.raises(ValueError, match=r"ab-tab5: the regenerated table lacks column\(s\) \['rate'"):
        ab_pub.authority_table_long("ab-tab5", pd.DataFrame({"manipulation": ["flipped"], "changed": [1], "pairs": [2]}))


def test_authority_comparison_lines_up_with_the_resource():
    tab5 = pd.DataFrame({"manipulation": ["flipped", "boosted"], "changed": [1, 1], "pairs": [2, 2],
                         "rate": [0.3941, 0.25], "ci_low": [0.3, 0.2], "ci_high": [0.5, 0.3]})
    out = ab_pub.authority_comparison({"ab-tab5": tab5, "ab-tab3": pd.DataFrame({"x": [1]})})
    s = out.set_index(["artifact", "row", "column"])
    assert s.loc[("ab-tab5", "flipped", "rate"), "within_tolerance"]           # 0.3941 vs 0.392
    assert not s.loc[("ab-tab5", "boosted", "rate"), "within_tolerance"]       # 0.25 vs 0.217
    assert len(out) == 131 and out["regenerated"].notna().sum() == 2


# ---- AttriBench mapping ----------------------------------------------------------------------------

def test_attribution_tables_long():
    tab2 = pd.DataFrame({"dataset": ["intersectional", "intersectional"], "mode": ["faithful", "corrected"],
                         "authors_per_group": [742, 700], "quotes_per_group": [1991, 1900], "avg_fame": [5.03, 4.9],
                         "fame_range": [0.0017, 0.01], "rms_error": [0.3, 0.2]})
    s = at_pub.attribution_tab2_long(tab2).set_index(["row", "column"])["regenerated"]
    assert s[("intersectional", "avg_fame")] == 5.03 and len(s) == 5
    s = at_pub.attribution_tab2_long(tab2, mode="corrected").set_index(["row", "column"])["regenerated"]
    assert s[("intersectional", "authors_per_group")] == 700
    tab5 = pd.DataFrame({"subgroup": ["M/White", "F/Black"], "n_quotes": [797, 797], "mean": [1.67, 1.569],
                         "median": [1.568, 1.491]})
    s = at_pub.attribution_tab5_long(tab5).set_index("column")["regenerated"]
    assert (s["n_quotes"], s["n_quotes_total"], s["mean_min"], s["median_max"]) == (797, 1594, 1.569, 1.568)


def test_attribution_accuracy_uses_display_names_and_no_evidence_rows():
    acc = pd.DataFrame({"dataset": ["intersectional"] * 3, "model": ["gpt-5.1", "gpt-5.1", "moonshotai/Kimi-K2.5"],
                        "prompt_type": ["direct", "direct", "indirect"], "evidence": [False, True, False],
                        "metric": "accuracy", "mean": [0.267, 0.99, 0.164]})
    s = at_pub.attribution_accuracy_long(acc).set_index(["row", "column"])["regenerated"]
    assert s.to_dict() == {("intersectional/GPT-5.1", "direct"): 0.267, ("intersectional/Kimi-K2.5", "indirect"): 0.164}


def _subgroups():
    rows = []
    # S_omit (indirect, no evidence): model a gaps 0.10 / 0.14 (mean 0.12), model b 0.06 / 0.10 (mean 0.08)
    for model, vals in (("a", {"M/White": 0.30, "M/Black": 0.40, "F/White": 0.44, "F/Black": 0.50}),
                        ("b", {"M/White": 0.20, "M/Black": 0.26, "F/White": 0.30, "F/Black": 0.33})):
        rows += [("intersectional", model, "indirect", False, g, "omission", v) for g, v in vals.items()]
    rows += [("intersectional", "a", "indirect", True, "M/White", "miss", 0.1),
             ("intersectional", "a", "indirect", True, "F/Black", "miss", 0.14)]
    return pd.DataFrame(rows, columns=["dataset", "model", "prompt_type", "evidence", "subgroup", "metric", "mean"])


def test_suppression_gap_hand_computed():
    sg = _subgroups()
    assert at_pub.suppression_gap(sg, "at-fig6", "intersectional: M/Black, F/White vs M/White") == pytest.approx(0.10)
    assert at_pub.suppression_gap(sg, "at-fig6", "intersectional: F/Black vs M/White") == pytest.approx((0.20 + 0.13) / 2)
    assert at_pub.suppression_gap(sg, "at-fig7", "intersectional: F/Black vs M/White") == pytest.approx(0.04)
    assert np.isnan(at_pub.suppression_gap(sg, "at-fig6", "multirace: Black vs White"))
    with pytest.raises(ValueError, match="cannot read the gap row"):
        at_pub.suppression_gap(sg, "at-fig6", "White minus Black")


def test_attribution_comparison():
    out = at_pub.attribution_comparison(subgroups=_subgroups()).set_index(["artifact", "row", "column"])
    assert out.loc[("at-fig6", "intersectional: M/Black, F/White vs M/White", "gap_mean_over_models"),
                   "within_tolerance"]                                         # 0.10 vs "10 percentage points"
    assert out.loc[("at-fig7", "intersectional: F/Black vs M/White", "gap_mean_over_models"), "within_tolerance"]
    assert out["regenerated"].notna().sum() == 3 and len(out) == 36


def test_attribution_fig5_leads_hand_computed():
    # GPT-5.1, direct, no evidence: M/White 0.36, F/White 0.25, M/Black 0.27, F/Black 0.18 → lead over the
    # highest other = 0.09; multirace White 0.33, Black 0.20 → 0.13. Indirect and evidence rows are ignored.
    rows = [("intersectional", s, "direct", False, v) for s, v in
            (("M/White", 0.36), ("F/White", 0.25), ("M/Black", 0.27), ("F/Black", 0.18))]
    rows += [("intersectional", "F/White", "indirect", False, 0.9), ("intersectional", "M/Black", "direct", True, 0.99)]
    rows += [("multirace", s, "direct", False, v) for s, v in (("White", 0.33), ("Black", 0.20), ("Asian", 0.1))]
    sub = pd.DataFrame(rows, columns=["dataset", "subgroup", "prompt_type", "evidence", "mean"]).assign(
        model="gpt-5.1", metric="accuracy")
    out = at_pub.attribution_comparison(subgroups=sub).set_index(["artifact", "row", "column"])
    assert out.loc[("at-fig5", "intersectional/GPT-5.1", "direct: M/White − highest other"), "regenerated"] == \
        pytest.approx(0.09)
    assert out.loc[("at-fig5", "multirace/GPT-5.1", "direct: White − Black"), "regenerated"] == pytest.approx(0.13)
    assert np.isnan(out.loc[("at-fig5", "multirace/Claude 4.6 Sonnet", "direct: White − Black"), "regenerated"])
    with pytest.raises(ValueError, match="at-fig5: cannot read row"):
        at_pub.subgroup_lead(sub, "GPT-5.1", "direct: White − Black")


# ---- CLI ---------------------------------------------------------------------------------------------

def test_cli_on_an_outputs_folder(tmp_path, capsys):
    tables = tmp_path / "tables"
    tables.mkdir()
    pd.DataFrame({"dimension": ["venue", "median_h", "max_h", "citations", "affiliation"],
                  "weight": [0.353, 0.292, 0.187, 0.137, 0.031], "rank": [1, 2, 3, 4, 5]}).to_csv(tables / "ab-tab1.csv", index=False)
    d3 = tmp_path / "data" / "03_infrastructure_benchmark"
    d3.mkdir(parents=True)
    _agg([("access", "open", "refusal_pct", 0.55)]).assign(n=1).to_parquet(d3 / "infrastructure.parquet")
    assert P.main(["--outputs", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "llmscholarbench: 1 compared of 630 published values, 1 within ±0.005, 0 of 0 with an interval consistent, 629 missing"
    assert lines[1] == "authority_bias: 5 compared of 131 published values, 5 within ±0.005, 0 of 0 with an interval consistent, 126 missing"
    assert lines[2] == "attribution_bias: 0 compared of 36 published values, 0 within ±0.005, 0 of 0 with an interval consistent, 36 missing"
    assert sorted(p.name for p in (tmp_path / "comparison").iterdir()) == [
        "attribution_bias.csv", "attribution_bias.md", "authority_bias.csv", "authority_bias.md",
        "lsb_means.csv", "lsb_means.md"]
    with pytest.raises(SystemExit):
        P.main(["--outputs", str(tmp_path / "nowhere")])


@pytest.mark.skipif(not (paths.OUTPUTS / "tables" / "ab-tab5.csv").is_file(), reason="no regenerated outputs")
def test_build_all_on_the_regenerated_outputs():
    # read-only use of the real outputs: every mapped table parses, nothing is written there
    res = P.build_all(paths.OUTPUTS)
    assert set(res) >= {"authority_bias", "attribution_bias"}
    ab = res["authority_bias"]
    assert ab[ab["artifact"] == "ab-tab5"]["regenerated"].notna().all()


# ---- intervals and the consistent column (issue 25) ------------------------------------------------

def test_consistent_is_published_inside_the_interval_widened_by_the_calibration_tolerance():
    pub = _pub([("ab-tab5", "a", "rate", 0.40), ("ab-tab5", "b", "rate", 0.40), ("ab-tab5", "c", "rate", 0.40),
                ("ab-tab5", "d", "rate", 0.40)])
    reg = _reg([("ab-tab5", "a", "rate", 0.35), ("ab-tab5", "b", "rate", 0.30), ("ab-tab5", "c", "rate", 0.30),
                ("ab-tab5", "d", "rate", 0.30)])
    reg["ci_low"], reg["ci_high"] = [0.30, 0.25, 0.25, np.nan], [0.40, 0.35, 0.31, np.nan]
    out = P.compare(reg, pub, calibration=0.05).set_index("row")
    assert out.loc["a", "consistent"]                 # inside the interval (upper bound, inclusive)
    assert out.loc["b", "consistent"]                 # 0.40 = 0.35 + 0.05: inside once widened
    assert not out.loc["c", "consistent"]             # 0.31 + 0.05 < 0.40
    assert pd.isna(out.loc["d", "consistent"])        # no interval: not judged
    assert not P.compare(reg, pub).set_index("row").loc["b", "consistent"]   # no tolerance: outside


def test_p_value_rows_are_judged_by_their_decision_not_as_rates():
    pub = _pub([("ab-tab6", "boosted/all", "p_binomial", 0.31), ("ab-tab6", "flipped/all", "p_binomial", 0.001),
                ("ab-tab11", "anti_authority", "p_mcnemar", 0.059)])
    reg = _reg([("ab-tab6", "boosted/all", "p_binomial", 1.0), ("ab-tab6", "flipped/all", "p_binomial", 0.2),
                ("ab-tab11", "anti_authority", "p_mcnemar", 0.5)])
    out = P.compare(reg, pub, calibration=0.08).set_index("row")
    # 1.000 against 0.31: both not significant, consistent although 0.69 apart
    assert out.loc["boosted/all", "consistent"] and not out.loc["boosted/all", "within_tolerance"]
    assert not out.loc["flipped/all", "consistent"] and out.loc["anti_authority", "consistent"]


def test_melted_tables_carry_their_own_interval_or_a_wilson_one_from_the_counts():
    tab5 = pd.DataFrame({"manipulation": ["flipped"], "changed": [392], "pairs": [1000], "rate": [0.392],
                         "ci_low": [0.36], "ci_high": [0.42]})
    r = ab_pub.authority_table_long("ab-tab5", tab5).set_index("column").loc["rate"]
    assert (r["ci_low"], r["ci_high"]) == (0.36, 0.42)
    from lib import stats
    tab19 = pd.DataFrame({"topic": ["A"], "flip_rate": [0.3], "boost_rate": [0.2], "n": [50]})
    long = ab_pub.authority_table_long("ab-tab19", tab19).set_index("column")
    assert tuple(long.loc["flip_rate", ["ci_low", "ci_high"]]) == pytest.approx(stats.wilson_ci(15, 50))
    tab9 = pd.DataFrame({"tier": ["top"], "share": [30.0], "original": [52.1], "flipped": [32.5], "boosted": [49.0]})
    assert ab_pub.authority_table_long("ab-tab9", tab9)["ci_low"].isna().all()   # no count: no interval
