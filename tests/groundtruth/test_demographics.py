"""lib.groundtruth.demographics: the gender-guesser and Census label rules by hand (stub tables; the
real lookups are in test_synthetic.py), prominence strata, and the attribute distribution of Figure B.6."""
import numpy as np
import pandas as pd
import pytest

from lib.groundtruth import demographics as demo


class StubDetector:
    """gender-guesser's answers for hand-picked names (its six codes plus an odd one)."""
    answers = {"Al": "male", "Bea": "female", "Cy": "mostly_male", "Di": "mostly_female", "Ed": "andy",
               "Fy": "unknown"}

    def get_gender(self, name):
        return self.answers.get(name, "something-else")


def test_perceived_gender_maps_every_gender_guesser_code(monkeypatch):
    monkeypatch.setattr(demo, "_detector", lambda: StubDetector())
    names = pd.Series(["Al", "Bea", "Cy", "Di", "Ed", "Fy", "Zed", None, "Al"], index=list("abcdefghi"))
    got = demo.perceived_gender(names)
    assert got.tolist() == ["Male", "Female", "Male", "Female", "Unisex", "Unknown", "Unknown", "Unknown", "Male"]
    assert list(got.index) == list("abcdefghi")          # aligned with the input
    assert set(got) <= set(demo.GENDERS)


STUB_CENSUS = pd.DataFrame({"pctwhite": [70.0, 45.0, 50.0, np.nan], "pctblack": [20.0, 48.0, 10.0, np.nan],
                            "pctapi": [5.0, 1.0, 10.0, np.nan], "pcthispanic": [5.0, 2.0, 0.0, np.nan],
                            "pctaian": [0.0, 2.0, 0.0, np.nan], "pct2prace": [0.0, 2.0, 30.0, np.nan]},
                           index=pd.Index(["ALPHA", "BETA", "GAMMA", "EMPTY"], name="name"))


def test_perceived_ethnicity_takes_the_argmax_only_above_the_share(monkeypatch):
    monkeypatch.setattr(demo, "_census_table", lambda year: STUB_CENSUS)
    s = pd.Series([" alpha ", "Beta", "Gamma", "Empty", "Absent", None])
    # ALPHA: 70 % White > 50 %; BETA: argmax Black at 48 % ≤ 50 %; GAMMA: White at exactly 50 % is not > 0.5;
    # EMPTY: no shares; Absent: not in the table
    assert demo.perceived_ethnicity(s).tolist() == ["White", "Unknown", "Unknown", "Unknown", "Unknown", "Unknown"]
    assert demo.perceived_ethnicity(s, min_share=0).tolist() == ["White", "Black", "White", "Unknown", "Unknown",
                                                                  "Unknown"]
    assert demo.perceived_ethnicity(pd.Series([], dtype=object)).tolist() == []


def test_perceived_ethnicity_checks_the_census_year_before_reading():
    with pytest.raises(ValueError, match="census year must be 2000, 2010 or 2020, got 1990"):
        demo.perceived_ethnicity(pd.Series(["Lee"]), year=1990)


def test_prominence_cuts_at_the_50_80_95_percentiles():
    v = pd.Series(np.arange(1, 21, dtype=float))         # 20 values: cuts at 10.5, 16.2, 19.05
    got = demo.prominence(v)
    assert got.tolist() == ["low"] * 10 + ["mid"] * 6 + ["high"] * 3 + ["elite"]
    # ties collapse two edges: qcut's error becomes a cut with the collapsed stratum's label unused
    tied = demo.prominence(pd.Series([1.0] * 9 + [5.0]))
    assert tied.notna().all() and set(tied) <= set(demo.PROMINENCE) and tied.iloc[0] == "low"


def test_tied_cut_points_keep_the_upper_strata_labels():
    """Over half the authors with one paper (as in an APS release): the 0 and 50 % cuts coincide.
    The strata whose cuts stay distinct keep their labels (the top 5 % stay elite); before the fix
    the labels were handed out from the bottom, so the most prolific authors came out 'high'."""
    v = pd.Series([1.0] * 60 + list(np.arange(2.0, 42.0)))    # cuts 1, 1, 21.2, 36.05, 41
    got = demo.prominence(v)
    assert got[v == 1].eq("low").all()
    assert got[(v > 1) & (v <= 21.2)].eq("mid").all() and got[(v > 21.2) & (v <= 36.05)].eq("high").all()
    assert got[v > 36.05].eq("elite").all() and got.value_counts().to_dict() == {"low": 60, "mid": 20, "high": 15,
                                                                                   "elite": 5}
    # the same rule as qcut where the cuts are distinct, missing values kept missing
    w = pd.Series([1.0, 1.0, 1.0, np.nan, 2.0, 3.0])          # cuts 1, 1, 2.2, 2.8, 3
    assert demo.prominence(w).tolist()[:3] == ["low"] * 3 and pd.isna(demo.prominence(w).iloc[3])
    assert demo.prominence(w).tolist()[4:] == ["mid", "elite"]


def test_reference_distribution_and_attribute_distribution_by_hand(tiny_world):
    ref = demo.reference_distribution(pd.Series(["Male", "Male", "Female", None, "Unknown"]),
                                      categories=demo.GENDERS)
    assert ref.to_dict() == {"Female": 0.25, "Male": 0.5, "Unisex": 0.0, "Unknown": 0.25}
    dist = demo.attribute_distribution(tiny_world.authors)
    assert len(dist) == 4 + 5 + 4 + 4 and list(dist.columns) == ["attribute", "category", "label", "n", "share"]
    gender = dist[dist["attribute"] == "gender"].set_index("category")
    # perceived gender Female, Male, Unknown, Male
    assert gender["n"].to_dict() == {"Female": 1, "Male": 2, "Unisex": 0, "Unknown": 1}
    assert gender["share"].to_dict() == {"Female": 0.25, "Male": 0.5, "Unisex": 0.0, "Unknown": 0.25}
    assert gender.loc["Unisex", "label"] == "Neutral"
    eth = dist[dist["attribute"] == "ethnicity"].set_index("category")["share"]
    assert eth.to_dict() == {"Asian": 0.25, "Black": 0.0, "Hispanic": 0.0, "White": 0.5, "Unknown": 0.25}
    for attr, sub in dist.groupby("attribute"):
        assert sub["share"].sum() == pytest.approx(1.0), attr
    with pytest.raises(KeyError, match="authors table lacks column 'prominence_cit'"):
        demo.attribute_distribution(tiny_world.authors.drop(columns="prominence_cit"))
