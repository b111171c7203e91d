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
