"""lib.scholar.perturb: names with known truth (real, perturbed, invented) on a 3-author table."""
import pandas as pd
import pytest

from lib.scholar import perturb
from lib.scholar.matching import normalize_name

AUTHORS = pd.DataFrame({
    "author_id": [1, 2, 3], "display_name": ["Maria García-López", "John Smith", "Wei Zhang"],
    "alt_names": [["Maria García-López", "M. García-López"], ["John Smith"], ["Wei Zhang", "W. Zhang"]],
    "initials_only": [False, False, False], "first_name": ["Maria", "John", "Wei"],
    "middle_name": ["Luisa", None, None], "last_name": ["García-López", "Smith", "Zhang"],
    "cited_by_count": [100, 0, 5]})


class Picks:
    """An rng stand-in whose integers() returns the given values in order (what perturb draws)."""

    def __init__(self, *values):
        self.values = list(values)

    def integers(self, low, high=None):
        return self.values.pop(0)


@pytest.mark.parametrize("picks, expected", [
    ((2,), ("M. L. García-López", "initial_given")),
    ((3,), ("Maria L. García-López", "middle_initial")),
    ((4,), ("Maria Garcia-Lopez", "drop_accents")),
    ((5,), ("Maria García", "surname_first_part")),
    ((6,), ("Maria García López", "surname_spaced")),
    ((7,), ("Dr. Maria García-López", "title")),
    ((8,), ("Maria García-López (University of Gville)", "affiliation")),
    ((0, 2, 0), ("Maria Gacría-López", "typo_surname")),     # swap the surname's letters 2 and 3 (0-based)
    ((1, 3, 1), ("Mara García-López", "typo_given")),        # drop the given name's letter 3 (0-based)
])
def test_each_perturbation_by_hand(picks, expected):
    assert perturb.perturb(Picks(*picks), "Maria", "Luisa", "García-López") == expected


def test_short_names_and_no_middle_name():
    assert perturb._typo(Picks(), "Li") == "Lii"
    assert perturb.perturb(Picks(3, 0), "John", None, "Smith") == ("John A. Smith", "middle_initial")


@pytest.fixture(scope="module")
def sample():
    return perturb.recommendation_sample(AUTHORS, 40, seed=3)


def test_sample_mixes_the_three_kinds_with_their_sources(sample):
    assert len(sample) == 40 and set(sample["kind"]) == set(perturb.KINDS)
    assert list(sample.columns) == ["name", "kind", "how", "source_author_id"]
    real = sample[sample["kind"] == "real"]
    known = {f: i for i, forms in zip(AUTHORS["author_id"], AUTHORS["alt_names"]) for f in forms}
    assert all(known[n] == s for n, s in zip(real["name"], real["source_author_id"]))   # a known form of its source
    assert sample.loc[sample["kind"] != "invented", "source_author_id"].notna().all()
    assert sample.loc[sample["kind"] == "invented", "source_author_id"].isna().all()
    # invented names are nobody's: no normalised form of a ground-truth author
    forms = {normalize_name(f) for fs in AUTHORS["alt_names"] for f in fs}
    assert not {normalize_name(n) for n in sample.loc[sample["kind"] == "invented", "name"]} & forms
    assert perturb.recommendation_sample(AUTHORS, 40, seed=3).equals(sample)             # seeded


def test_shares_set_the_mix():
    only_real = perturb.recommendation_sample(AUTHORS, 10, seed=1, shares=(1, 0, 0))
    assert set(only_real["kind"]) == {"real"}
    # with weight 0 every author is equally likely; with 2 the most cited dominates
    top = perturb.recommendation_sample(AUTHORS, 200, seed=1, shares=(1, 0, 0), prominence_weight=2.0)
    assert (top["source_author_id"] == 1).mean() > 0.9
