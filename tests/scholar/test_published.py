"""lib.scholar.published: the published temperature calibration (Table A.1, Fig. A.2) and the build of
a hand-made outputs folder against it."""
import numpy as np
import pandas as pd
import pytest

from lib.scholar import published as lsb


def test_published_temperatures_are_numbers_for_every_model():
    pub = lsb.lsb_published_temperatures()
    assert len(pub) == 24 and pub["model"].is_unique
    assert pub[["temperature", "fact_mean", "fact_std", "f_valid"]].map(np.isfinite).all().all()
    # a cell with a note keeps its leading number: ".000 (→ score 3.8e99)"
    g = pub.set_index("model").loc["gemini-2.5-flash-grounded"]
    assert (g["temperature"], g["fact_mean"], g["fact_std"], g["f_valid"]) == (0.5, 0.975, 0.0, 0.389)


def test_build_compares_a_hand_made_outputs_folder_and_flags_the_off_value(tmp_path):
    d = tmp_path / "data" / "01_calibration"
    d.mkdir(parents=True)
    pd.DataFrame({"model": ["deepseek-chat-v3.1", "qwen3-8b"], "temperature": [0.0, 0.75],
                  "fact_mean": [0.936, 0.886], "fact_std": [0.056, 0.122], "f_valid": [0.685, 0.704]}
                 ).to_parquet(d / "selected_temperatures.parquet")
    res = lsb.build(tmp_path)
    assert list(res) == ["lsb_temperature_calibration"]                # no notebook-03 files: no means
    got = res["lsb_temperature_calibration"].set_index(["artifact", "row", "column"])
    assert got.loc[("lsb-tabA1", "deepseek-chat-v3.1", "temperature"), "within_tolerance"]
    off = got.loc[("lsb-tabA1", "qwen3-8b", "temperature")]            # published t* = 0.50
    assert not off["within_tolerance"] and off["difference"] == pytest.approx(0.25)
    assert got.loc[("lsb-figA2", "qwen3-8b", "fact_mean"), "within_tolerance"]
    assert pd.isna(got.loc[("lsb-tabA1", "gemma-3-12b", "temperature"), "regenerated"])   # not regenerated: missing


def test_scores_are_read_at_the_published_temperature():
    sel = pd.DataFrame({"model": ["qwen3-8b"], "temperature": [0.75]})
    scores = pd.DataFrame({"model": ["qwen3-8b"] * 2, "temperature": [0.5, 0.75], "fact_mean": [0.886, 0.5],
                           "fact_std": [0.122, 0.5], "f_valid": [0.704, 0.5]})
    got = lsb.lsb_temperatures(sel, scores).set_index(["artifact", "row", "column"])
    assert got.loc[("lsb-figA2", "qwen3-8b", "fact_mean"), "regenerated"] == 0.886
    with pytest.raises(ValueError, match=r"lacks \['temperature'\]"):
        lsb.lsb_temperatures(sel.drop(columns="temperature"), scores)


def test_figure_label_means_are_compared_and_an_off_value_is_flagged(tmp_path):
    """lsb_means: Fig. 2 (infrastructure groups) and C.7 (per model) labels, from notebook 03's files."""
    d = tmp_path / "data" / "03_infrastructure_benchmark"
    d.mkdir(parents=True)
    pd.DataFrame({"group_kind": ["access", "access"], "group": ["open", "proprietary"],
                  "metric_name": ["refusal_pct"] * 2, "mean": [0.55, 0.43], "ci_low": [0.5, 0.4], "ci_high": [0.6, 0.46]}
                 ).to_parquet(d / "infrastructure.parquet")
    pd.DataFrame({"group_kind": ["model"], "group": ["deepseek-r1-0528"], "metric_name": ["refusal_pct"],
                  "mean": [0.931], "ci_low": [0.9], "ci_high": [0.95]}).to_parquet(d / "by_model.parquet")
    got = lsb.build(tmp_path)["lsb_means"].set_index(["artifact", "row", "column"])
    assert got.loc[("lsb-fig2", "access=open", "refusal_pct"), "within_tolerance"]          # label .55
    off = got.loc[("lsb-fig2", "access=proprietary", "refusal_pct")]                       # label .40
    assert not off["within_tolerance"] and off["difference"] == pytest.approx(0.03)
    assert got.loc[("lsb-figC7", "model=deepseek-r1-0528", "refusal_pct"), "within_tolerance"]   # label .93
    assert got["published"].notna().all() and pd.api.types.is_float_dtype(got["published"])
    with pytest.raises(ValueError, match="lsb_means: the aggregates repeat"):
        lsb.lsb_means([pd.read_parquet(d / "by_model.parquet")] * 2)
