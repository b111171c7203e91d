"""lib.authority.published: the transcribed values (each with its paper line) and the build of a
hand-made outputs folder against them."""
import numpy as np
import pandas as pd
import pytest

from lib.authority import published as ab


@pytest.fixture(scope="module")
def pub():
    return ab.published_values()


def test_every_published_value_is_a_number_with_its_artifact_and_line(pub):
    raw = pd.read_csv(ab.published.paths.RESOURCES / ab.RESOURCE, dtype=str, keep_default_na=False)
    assert len(pub) == len(raw) and pub["published"].map(np.isfinite).all()
    assert pub["artifact"].str.fullmatch(r"ab-tab\d+").all() and (pub["paper"] == ab.PAPER).all()
    assert raw["line"].str.fullmatch(r"\d+").all()
    assert set(pub["artifact"]) <= set(ab.AB_TABLES)
    # percent values on the comparison scale: 39.2 % flipped (line 130) is 0.392
    row = pub[(pub["artifact"] == "ab-tab5") & (pub["row"] == "flipped") & (pub["column"] == "rate")]
    assert row["published"].item() == pytest.approx(0.392)


def test_build_compares_a_hand_made_outputs_folder_and_flags_the_off_value(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    # Table 1's fused weights as printed (§6), one of them off by 0.02
    pd.DataFrame({"dimension": ["venue", "median_h", "max_h", "affiliation", "citations"],
                  "weight": [0.353, 0.292, 0.207, 0.031, 0.137]}).to_csv(tables / "ab-tab1.csv", index=False)
    pd.DataFrame({"x": [1]}).to_csv(tables / "lsb-tab1.csv", index=False)   # another paper's table: ignored
    got = ab.build(tmp_path)[ab.PAPER]
    t1 = got[got["artifact"] == "ab-tab1"].set_index("row")
    assert t1["within_tolerance"].to_dict() == {"venue": True, "median_h": True, "max_h": False,
                                                 "affiliation": True, "citations": True}
    assert t1.loc["max_h", "difference"] == pytest.approx(0.02)
    # tables not in the folder leave their published values missing, not dropped
    assert len(got) == len(ab.published_values()) and got.loc[got["artifact"] != "ab-tab1", "regenerated"].isna().all()


def test_ab_tab11_change_is_the_negated_reduction_and_unknown_tables_are_an_error():
    t11 = pd.DataFrame({"instruction": ["anti_authority", "content_first"], "flip_rate": [0.46, 0.314],
                        "boost_rate": [0.2, 0.21], "flip_reduction_pp": [-2.3, 12.9], "p_mcnemar": [0.059, 0.001]})
    long = ab.authority_table_long("ab-tab11", t11).set_index(["row", "column"])["regenerated"]
    assert long[("anti_authority", "flip_change_pp")] == pytest.approx(0.023)
    assert long[("content_first", "flip_reduction_pp")] == pytest.approx(0.129)
    with pytest.raises(ValueError, match=r"no mapping for 'ab-tab99'"):
        ab.authority_table_long("ab-tab99", t11)
