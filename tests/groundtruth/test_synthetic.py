"""lib.groundtruth: the synthetic world (schema, realism, determinism, cache), demographics, names."""
import numpy as np
import pandas as pd
import pytest

from lib.groundtruth import demographics as demo
from lib.groundtruth import names, synthetic
from lib.groundtruth.schema import validate
from lib.groundtruth.world import World, author_indicators, coauthorship_edges, load_world

N = 3000


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return load_world(7, N, cache_dir=tmp_path_factory.mktemp("world"))


def test_world_tables_follow_the_schema(world):
    validate({"authors": world.authors, "publications": world.publications,
              "authorships": world.authorships, "coauthorships": world.coauthorships})
    a = world.authors
    for c in ["author_id", "display_name", "first_name", "middle_name", "last_name", "alt_names", "field",
              "career_start", "career_end", "works_count", "cited_by_count", "h_index",
              "true_gender", "true_ethnicity", "perceived_gender", "perceived_ethnicity"]:
        assert c in a.columns, c
    assert len(a) == N and a["author_id"].is_unique
    assert a["alt_names"].map(lambda x: isinstance(x, list) and len(x) >= 1).all()
    assert (a.apply(lambda r: r["display_name"] in r["alt_names"], axis=1)).all()
    assert a["perceived_gender"].isin(demo.GENDERS).all() and a["perceived_ethnicity"].isin(demo.ETHNICITIES).all()
    assert set(a["true_gender"]) <= {"Female", "Male"} and set(a["true_ethnicity"]) <= {"Asian", "Black", "Hispanic", "White"}


def test_world_is_realistic(world):
    a, p = world.authors, world.publications
    assert a["career_start"].min() >= synthetic.YEAR_MIN and a["career_end"].max() <= synthetic.YEAR_MAX
    assert (a["career_end"] >= a["career_start"]).all()
    assert (a["h_index"] <= a["aps_works_count"]).all() and (a["works_count"] >= a["aps_works_count"]).all()
    assert {"CM&MP", "PER"} <= set(a["field"]) and a["field"].value_counts().idxmax() == "CM&MP"
    assert (a["field"] == "PER").mean() < 0.02
    # Lotka: about half the authors have one APS paper; heavy tails
    assert 0.4 < (a["aps_works_count"] == 1).mean() < 0.7
    assert a["cited_by_count"].max() > 20 * a["cited_by_count"].median()
    assert p["subfield"].str.contains("Condensed Matter Physics").any() and p["subfield"].str.contains("Education").any()
    # name variants: initials-only authors, accents, hyphenated or spaced double surnames
    assert a["initials_only"].mean() > 0.01
    assert a["display_name"].str.contains(r"[áéíóú]").any()
    assert a["last_name"].str.contains("-").any() and a["last_name"].str.contains(" ").any()
    # prominence strata about 50/30/15/5 %
    share = a["prominence_pub"].value_counts(normalize=True)
    assert share["low"] == pytest.approx(0.5, abs=0.1) and share["elite"] == pytest.approx(0.05, abs=0.03)


def test_perceived_labels_are_inferred_not_copied(world):
    a = world.authors
    known = a["perceived_gender"].isin(["Female", "Male"])
    agree = (a.loc[known, "perceived_gender"] == a.loc[known, "true_gender"]).mean()
    assert 0.8 < agree < 1.0  # mostly right, sometimes wrong: an inference, not a copy
    assert (a["perceived_gender"] == "Unknown").mean() > 0.03
    assert (a.loc[a["initials_only"], "perceived_gender"] == "Unknown").all()
    eth_known = a["perceived_ethnicity"] != "Unknown"
    assert (a.loc[eth_known, "perceived_ethnicity"] == a.loc[eth_known, "true_ethnicity"]).mean() < 1.0


def test_coauthorship_network_has_field_structure(world):
    e, a = world.coauthorships, world.authors.set_index("author_id")
    assert (e["src"] < e["dst"]).all() and not e.duplicated(["src", "dst"]).any()
    same_field = (a.loc[e["src"], "field"].to_numpy() == a.loc[e["dst"], "field"].to_numpy()).mean()
    share = a["field"].value_counts(normalize=True)
    assert same_field > 2 * (share ** 2).sum()  # far above random mixing


def test_world_is_deterministic_and_cached(world, tmp_path):
    again = load_world(7, N, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(again.authors.drop(columns="alt_names"), world.authors.drop(columns="alt_names"))
    assert again.authors["alt_names"].tolist() == world.authors["alt_names"].tolist()
    entry = next(tmp_path.iterdir())
    assert entry.name == f"world_v{synthetic.GENERATOR_VERSION}_seed7_n{N}"
    cached = load_world(7, N, cache_dir=tmp_path)
    assert cached.meta == again.meta and cached.authors["alt_names"].iloc[0] == again.authors["alt_names"].iloc[0]


def test_indicators_hand_computed():
    pubs = pd.DataFrame({"publication_id": [1, 2, 3, 4], "year": [1990, 1995, 2000, 2001], "cited_by_count": [3, 10, 1, 12]})
    auth = pd.DataFrame({"publication_id": [1, 2, 3, 4, 4], "author_id": [9, 9, 9, 9, 8]})
    ind = author_indicators(pubs, auth)
    # author 9: counts 12, 10, 3, 1 → h = 3; i10 = 2; career 1990–2001
    assert ind.loc[9].to_dict() == {"aps_works_count": 4, "aps_cited_by_count": 26, "h_index": 3, "i10_index": 2,
                                    "career_start": 1990, "career_end": 2001, "career_age": 12}
    assert ind.loc[8, "h_index"] == 1
    e = coauthorship_edges(auth)
    assert e.to_dict("list") == {"src": [8], "dst": [9], "n_papers": [1]}


def test_perceived_gender_and_ethnicity_lookups():
    g = demo.perceived_gender(pd.Series(["John", "Mary", "J.", "Xyzzy", None, "Robin"]))
    assert g.tolist()[:5] == ["Male", "Female", "Unknown", "Unknown", "Unknown"]
    assert g.iloc[5] in {"Unisex", "Male", "Female"}
    e = demo.perceived_ethnicity(pd.Series(["Nguyen", "Garcia", "Smith", "Xyzzyq", "Williams", None]))
    assert e.tolist() == ["Asian", "Hispanic", "White", "Unknown", "Unknown", "Unknown"]
    # the plain census argmax labels Williams (47.7 % Black, 45.8 % White) Black
    assert demo.perceived_ethnicity(pd.Series(["Williams"]), min_share=0).iloc[0] == "Black"


def test_prominence_quantiles():
    s = demo.prominence(pd.Series(np.arange(1, 101)))
    assert s.value_counts().to_dict() == {"low": 50, "mid": 30, "high": 15, "elite": 5}
    tied = demo.prominence(pd.Series([1] * 90 + list(range(2, 12))))
    assert tied.notna().all() and tied.iloc[0] == "low"
    assert demo.prominence(pd.Series([1.0, np.nan, 3.0, 4.0])).isna().sum() == 1


def test_name_tables_and_accents():
    assert names.spanish_accent("Rodriguez") == "Rodríguez" and names.spanish_accent("Martinez") == "Martínez"
    assert names.spanish_accent("Smith") == "Smith" and names.strip_accents("José Núñez") == "Jose Nunez"
    s = names.NameSampler(np.random.default_rng(0))
    eth = np.array(["Asian"] * 200 + ["Hispanic"] * 200)
    sur = s.surnames(eth)
    per = demo.perceived_ethnicity(pd.Series(sur))
    assert (per[:200] == "Asian").mean() > 0.6 and (per[200:] == "Hispanic").mean() > 0.6
