"""lib.attribution.published: the transcribed values (each with its paper line), the paper's
summaries of Tables 2 and 5 and the suppression gaps, and the build of a hand-made outputs folder."""
import numpy as np
import pandas as pd
import pytest

from lib.attribution import published as at


@pytest.fixture(scope="module")
def pub():
    return at.published_values()


def test_every_published_value_is_a_number_with_its_artifact_and_line(pub):
    raw = pd.read_csv(at.published.paths.RESOURCES / at.RESOURCE, dtype=str, keep_default_na=False)
    assert len(pub) == len(raw) and pub["published"].map(np.isfinite).all()
    assert pub["artifact"].str.fullmatch(r"at-(tab|fig)\d+").all() and raw["line"].str.fullmatch(r"\d+").all()
    assert at.published_rows("at-tab2")["intersectional"]["avg_fame"] == pytest.approx(5.03)


def _tab2(avg_fame_multirace: float) -> pd.DataFrame:
    return pd.DataFrame({"dataset": ["intersectional", "multirace"], "mode": "faithful",
                         "authors_per_group": [742, 831], "quotes_per_group": [1991, 1914],
                         "avg_fame": [5.03, avg_fame_multirace], "fame_range": [0.0017, 0.0006]})


def test_build_compares_a_hand_made_outputs_folder_and_flags_the_off_value(tmp_path):
    (tmp_path / "tables").mkdir()
    tab2 = pd.concat([_tab2(5.20), _tab2(0.0).assign(mode="corrected")])      # only the faithful rows count
    tab2.to_csv(tmp_path / "tables" / "at-tab2.csv", index=False)
    pd.DataFrame({"subgroup": ["a", "b", "c", "d"], "n_quotes": [797] * 4, "mean": [1.569, 1.6, 1.62, 1.670],
                  "median": [1.5, 1.6, 1.6, 1.7]}).to_csv(tmp_path / "tables" / "at-tab5.csv", index=False)
    got = at.build(tmp_path)[at.PAPER].set_index(["artifact", "row", "column"])
    assert got.loc[("at-tab2", "intersectional", "avg_fame"), "within_tolerance"]
    off = got.loc[("at-tab2", "multirace", "avg_fame")]
    assert not off["within_tolerance"] and off["difference"] == pytest.approx(0.10)
    assert got.loc[("at-tab5", "all subgroups", "n_quotes_total"), "regenerated"] == 3188
    assert got.loc[("at-tab5", "all subgroups", "mean_max"), "within_tolerance"]
    assert got.xs("at-fig4", level="artifact")["regenerated"].isna().all()     # no accuracy file: missing


def _subgroups(omit: dict[str, dict[str, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": "intersectional", "model": m, "prompt_type": "indirect", "evidence": False,
                          "subgroup": g, "metric": "omission", "mean": v}
                         for m, by in omit.items() for g, v in by.items()])


def test_suppression_gap_is_a_mean_over_models_of_the_listed_groups_minus_the_reference():
    sub = _subgroups({"m1": {"WM": 0.10, "BM": 0.30, "WF": 0.20}, "m2": {"WM": 0.20, "BM": 0.30, "WF": 0.30},
                      "m3": {"WM": 0.5, "BM": 0.9}})                        # m3 lacks WF: skipped
    # m1: (0.30 + 0.20)/2 - 0.10 = 0.15; m2: 0.30 - 0.20 = 0.10; mean 0.125
    assert at.suppression_gap(sub, "at-fig6", "intersectional: BM, WF vs WM") == pytest.approx(0.125)
    assert np.isnan(at.suppression_gap(sub, "at-fig6", "intersectional: BM, XX vs WM"))
    with pytest.raises(ValueError, match=r"at-fig6: cannot read the gap row 'BM minus WM'"):
        at.suppression_gap(sub, "at-fig6", "BM minus WM")
