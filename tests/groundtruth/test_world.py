"""lib.groundtruth.world: bibliometrics by hand on three papers, coauthor edges, the global-output
rule, and the parquet cache (keyed, round-tripped, rebuilt on request)."""
import numpy as np
import pandas as pd
import pytest

from lib.groundtruth import synthetic
from lib.groundtruth.world import (add_global_output, author_indicators, cache_key, coauthorship_edges, ensure_world,
                                   load_world, read_world, save_world, world_entry)

PUBS = pd.DataFrame({"publication_id": [1, 2, 3, 4], "year": [2001, 2005, 2010, 1999],
                     "cited_by_count": [12, 3, 0, 40]})
# author 7 wrote 1, 2, 3; author 8 wrote 1 and 3; author 9 wrote only 4
AUTH = pd.DataFrame({"publication_id": [1, 2, 3, 1, 3, 4], "author_id": [7, 7, 7, 8, 8, 9]})


def test_author_indicators_by_hand():
    ind = author_indicators(PUBS, AUTH)
    assert list(ind.index) == [7, 8, 9]
    # author 7: citations 12, 3, 0 -> sorted 12 >= 1, 3 >= 2, 0 < 3: h = 2; one paper with >= 10
    assert ind.loc[7].to_dict() == {"aps_works_count": 3, "aps_cited_by_count": 15, "h_index": 2, "i10_index": 1,
                                    "career_start": 2001, "career_end": 2010, "career_age": 10}
    assert ind.loc[8, ["aps_works_count", "h_index", "career_age"]].tolist() == [2, 1, 10]
    assert ind.loc[9, ["aps_works_count", "aps_cited_by_count", "h_index", "i10_index", "career_age"]].tolist() == [
        1, 40, 1, 1, 1]


def test_h_index_sorts_the_counts_first():
    """The reference's aps_h_index reads unsorted counts; here [0, 5, 5] gives h = 2 whatever the row order."""
    pubs = pd.DataFrame({"publication_id": [1, 2, 3], "year": [2000] * 3, "cited_by_count": [0, 5, 5]})
    auth = pd.DataFrame({"publication_id": [1, 2, 3], "author_id": [1, 1, 1]})
    assert author_indicators(pubs, auth).loc[1, "h_index"] == 2
    assert author_indicators(pubs, auth.iloc[::-1]).loc[1, "h_index"] == 2


def test_coauthorship_edges_count_shared_papers_once_per_pair():
    dup = pd.concat([AUTH, AUTH.iloc[[0]]])                     # a repeated authorship row counts once
    e = coauthorship_edges(dup)
    assert e.to_dict("records") == [{"src": 7, "dst": 8, "n_papers": 2}]


def test_global_output_adds_to_the_aps_counts_and_guards_zero_works():
    authors = pd.DataFrame({"aps_works_count": [3, 0, 10], "aps_cited_by_count": [15, 0, 100], "career_age": [10, 5, 2]})
    out = add_global_output(authors, seed=4)
    assert (out["works_count"] >= authors["aps_works_count"]).all()
    assert (out["cited_by_count"] >= authors["aps_cited_by_count"]).all()
    assert out.loc[1, ["works_count", "cited_by_count", "citations_per_paper_age"]].tolist() == [0, 0, 0.0]
    expect = out["cited_by_count"] / out["works_count"] / out["career_age"]
    assert out.loc[[0, 2], "citations_per_paper_age"].tolist() == pytest.approx(expect[[0, 2]].tolist())
    pd.testing.assert_frame_equal(out, add_global_output(authors, seed=4))     # seeded
    assert "works_count" not in authors                                       # the input is left alone


def test_cache_key_names_seed_size_and_generator_version(tmp_path):
    assert cache_key(3, 50) == f"world_v{synthetic.GENERATOR_VERSION}_seed3_n50"
    assert world_entry(3, 50, cache_dir=tmp_path) == tmp_path / cache_key(3, 50)


def test_load_world_builds_once_then_reads_the_cache(tmp_path, monkeypatch):
    w = load_world(5, 60, cache_dir=tmp_path)
    entry = world_entry(5, 60, cache_dir=tmp_path)
    assert w.source == entry and w.synthetic and w.meta["n_authors"] == 60
    assert sorted(p.name for p in entry.iterdir()) == ["authors.parquet", "authorships.parquet",
                                                       "coauthorships.parquet", "meta.json", "publications.parquet"]
    from lib.groundtruth import world as world_mod

    def no_build(*a):
        raise AssertionError("rebuilt a cached world")
    monkeypatch.setattr(world_mod, "build_world", no_build)
    again = load_world(5, 60, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(again.authors, w.authors)
    assert isinstance(again.authors["alt_names"].iloc[0], list)               # parquet arrays come back as lists
    assert ensure_world(5, 60, cache_dir=tmp_path) == entry
    with pytest.raises(AssertionError, match="rebuilt"):
        load_world(5, 60, cache_dir=tmp_path, rebuild=True)


def test_world_indicators_agree_with_its_own_tables(tmp_path):
    w = load_world(2, 80, cache_dir=tmp_path)
    ind = author_indicators(w.publications, w.authorships)
    a = w.authors.set_index("author_id").loc[ind.index]
    assert (a["h_index"] == ind["h_index"]).all() and (a["career_age"] == ind["career_age"]).all()
    assert set(w.authors["perceived_gender"]) <= {"Female", "Male", "Unisex", "Unknown"}
    assert np.all(w.coauthorships["src"] < w.coauthorships["dst"])


def test_save_and_read_round_trip_leaves_no_temporary_files(tmp_path, tiny_world):
    from lib.groundtruth.world import World

    hand = World(tiny_world.authors.assign(alt_names=[["A"], ["B", "b"], [], ["D"]]), tiny_world.publications,
                 tiny_world.authorships, tiny_world.coauthorships, {"synthetic": False, "note": "hand-made"})
    save_world(hand, tmp_path / "w")
    assert not list((tmp_path / "w").glob(".*tmp")) and hand.source == tmp_path / "w"
    back = read_world(tmp_path / "w")
    pd.testing.assert_frame_equal(back.publications, hand.publications)
    assert back.authors["alt_names"].tolist() == [["A"], ["B", "b"], [], ["D"]]
    assert back.meta == {"synthetic": False, "note": "hand-made"} and not back.synthetic
