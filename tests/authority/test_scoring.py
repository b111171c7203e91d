"""Authority scoring (spec A.2–A.3): venue and affiliation tiers with their quirks, normalisation, composite, buckets."""
import numpy as np
import pandas as pd
import pytest

from lib.authority import scoring


@pytest.mark.parametrize("venue, faithful, corrected", [
    ("Neural Information Processing Systems", 1.0, 1.0),
    ("  Neural Information Processing Systems  ", 1.0, 1.0),          # stripped first
    ("North American Chapter of the Association for Computational Linguistics", 0.75, 0.75),
    ("Pattern Recognition", 0.75, 0.75),                                # top journal
    ("Neurocomputing", 0.5, 0.5),                                       # mid journal
    ("NeurIPS 2023 Workshop on Efficient ML", 0.5, 0.5),                # workshop with a top parent
    ("Some Workshop on Things", 0.375, 0.375),
    ("IEEE Access", 0.25, 0.25),
    ("arXiv.org", 0.125, 0.125),
    ("bioRxiv", 0.25, 0.125),                                           # ⚠ C list wins over the preprint rule
    ("Machine Intelligence Research", 0.75, 0.75),                      # ⚠ in both top-journal and C lists
    ("MICCAI Workshop on Imaging", 0.5, 0.5),                           # ⚠ any MICCAI string hits the parent regex
    ("2021 IEEE Conference on Something", 0.25, 0.25),
    ("Proceedings of the ACM on Something", 0.375, 0.375),
    ("International Journal of Stuff", 0.25, 0.25),
    ("Findings", 0.625, 0.625),
    ("2019 Regional Meeting", 0.125, 0.125),
    ("", 0.0, 0.0),
    (None, 0.0, 0.0),
    (float("nan"), 0.0, 0.0),
])
def test_venue_score_rules_and_order(venue, faithful, corrected):
    assert scoring.venue_score(venue) == faithful
    assert scoring.venue_score(venue, corrected=True) == corrected


@pytest.mark.parametrize("aff, faithful, corrected", [
    ("Stanford University", 1.0, 1.0),
    ("Google DeepMind, London", 1.0, 1.0),
    ("Smith College", 1.0, 0.33),                        # ⚠ "mit" inside "Smith"
    ("Institute of Artificial Intelligence, Lagos", 0.66, 0.33),  # ⚠ "intel" inside "Intelligence"
    ("University of Chinese Academy of Sciences", 1.0, 1.0),      # ⚠ elite check runs first
    ("Fudan University", 0.66, 0.66),
    ("University of Leeds", 0.33, 0.33),
    ("", 0.0, 0.0),
])
def test_affiliation_score_substring_quirk(aff, faithful, corrected):
    assert scoring.affiliation_score(aff) == faithful
    assert scoring.affiliation_score(aff, corrected=True) == corrected


def test_paper_affiliation_score_is_max_over_authors():
    assert scoring.paper_affiliation_score(["University of Leeds", "Fudan University"]) == 0.66
    assert scoring.paper_affiliation_score([]) == 0.0


@pytest.mark.parametrize("h, s", [(70, 1.0), (69, 0.85), (40, 0.85), (39, 0.65), (20, 0.65), (19, 0.45), (5, 0.45),
                                  (4, 0.15), (0, 0.15), (None, 0.15), (float("nan"), 0.15)])
def test_author_score_steps(h, s):
    assert scoring.author_score(h) == s


def _toy():
    meta = pd.DataFrame({"paper_id": ["a", "b", "c"], "topic": ["T"] * 3,
                         "venue": ["Neural Information Processing Systems", "arXiv.org", "Neurocomputing"],
                         "citation_count": [100, 0, 50]})
    authors = pd.DataFrame({"paper_id": ["a", "a", "b", "c"], "position": [1, 2, 1, 1], "name": list("wxyz"),
                            "h_index": [10.0, 30.0, np.nan, 4.0],
                            "affiliations": [("Stanford University",), (), ("University of Leeds",), ()]})
    return meta, authors


def test_raw_components_by_hand():
    meta, authors = _toy()
    raw = scoring.raw_components(meta, authors).set_index("paper_id")
    assert raw.loc["a"].to_dict() == {"max_h": 30.0, "median_h": 20.0, "citations": 100.0, "venue": 1.0, "affiliation": 1.0}
    assert raw.loc["b", "max_h"] == 0.0 and raw.loc["b", "affiliation"] == 0.33   # unknown h counts as 0
    assert raw.loc["c", "venue"] == 0.5


def test_normalisation_faithful_leaves_venue_and_affiliation_raw():
    meta, authors = _toy()
    raw = scoring.raw_components(meta, authors).assign(topic="T")
    norm = scoring.normalize_within_topic(raw).set_index("paper_id")
    assert norm.loc["a", "citations"] == 1.0 and norm.loc["b", "citations"] == 0.0 and norm.loc["c", "citations"] == 0.5
    assert norm.loc["c", "venue"] == 0.5                      # raw, not min-max (0.5 -> (0.5-0.125)/0.875 = 0.4286)
    corr = scoring.normalize_within_topic(raw, corrected=True).set_index("paper_id")
    assert corr.loc["c", "venue"] == pytest.approx(0.4286, abs=1e-4)
    const = raw.assign(max_h=7.0)
    assert set(scoring.normalize_within_topic(const)["max_h"]) == {0.5}   # max == min -> 0.5


def test_composite_by_hand_and_weight_validation():
    row = pd.DataFrame({"venue": [1.0], "median_h": [0.5], "max_h": [0.25], "citations": [0.0], "affiliation": [1.0]})
    w = {"venue": 0.4, "median_h": 0.2, "max_h": 0.2, "citations": 0.1, "affiliation": 0.1}
    assert scoring.composite(row, w).iloc[0] == pytest.approx(0.4 + 0.1 + 0.05 + 0 + 0.1)
    with pytest.raises(ValueError, match="missing \\['affiliation'\\]"):
        scoring.composite(row, {k: v for k, v in w.items() if k != "affiliation"})


def test_buckets_quarters_and_stable_ties():
    comp = pd.Series(np.linspace(1, 0, 50), index=[f"p{i}" for i in range(50)])
    b = scoring.authority_buckets(comp)
    assert (b == "high").sum() == 12 and (b == "low").sum() == 12 and (b == "mid").sum() == 26
    assert b["p0"] == "high" and b["p11"] == "high" and b["p12"] == "mid" and b["p38"] == "low"
    ties = scoring.authority_buckets(pd.Series([0.5] * 8, index=list("abcdefgh")))
    assert list(ties) == ["high", "high", "mid", "mid", "mid", "mid", "low", "low"]   # input order kept
