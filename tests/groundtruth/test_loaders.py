"""lib.groundtruth.schema / loaders: validation errors name table, column and an example row.

The release's own tables (reference §4) are tested in tests/groundtruth/test_release.py."""
import pandas as pd
import pytest

from lib.groundtruth.loaders import load_tables
from lib.groundtruth.world import World, save_world
from lib.groundtruth.schema import SchemaError, validate


def _tables():
    authors = pd.DataFrame({
        "author_id": [1, 2, 3], "display_name": ["Ana Diaz", "Bo Li", "C. Ray"],
        "longest_name": ["Ana María Díaz", "Bo Li", "C. Ray"], "last_name": ["Díaz", "Li", "Ray"],
        "alt_names": [["Ana Diaz", "Ana María Díaz"], ["Bo Li"], ["C. Ray"]],
        "works_count": [3, 1, 2], "cited_by_count": [10, 0, 4],
        "perceived_gender": ["Female", "Unisex", "Unknown"], "perceived_ethnicity": ["Hispanic", "Asian", "White"],
    })
    pubs = pd.DataFrame({"publication_id": [10, 11], "doi": ["10.1103/a", "10.1103/b"], "year": [1999, 2005],
                         "subfield": ["Condensed Matter Physics", "Education"]})
    auth = pd.DataFrame({"publication_id": [10, 10, 11], "author_id": [1, 2, 3]})
    co = pd.DataFrame({"src": [1], "dst": [2]})
    return {"authors": authors, "publications": pubs, "authorships": auth, "coauthorships": co}


def test_valid_tables_pass():
    validate(_tables())


@pytest.mark.parametrize("table, change, words", [
    ("authors", lambda df: df.drop(columns="display_name"), ["'authors'", "missing column 'display_name'"]),
    ("authors", lambda df: df.assign(works_count=["3", "x", "2"]), ["'authors'", "'works_count'", "integer", "'x'", "row 1"]),
    ("authors", lambda df: df.assign(perceived_gender=["Female", "Woman", "Male"]), ["'perceived_gender'", "one of", "'Woman'", "row 1"]),
    ("authors", lambda df: df.assign(alt_names=[["a"], "Bo Li", ["c"]]), ["'alt_names'", "list of strings", "row 1"]),
    ("authors", lambda df: df.assign(author_id=[1, 1, 3]), ["'authors'", "duplicated key", "row 1"]),
    ("publications", lambda df: df.assign(year=[1999, None]), ["'publications'", "'year'", "missing value", "row 1"]),
    ("authorships", lambda df: df.assign(author_id=[1, 2, 99]), ["'authorships'", "'author_id'", "dangling id 99", "row 2"]),
    ("coauthorships", lambda df: df.assign(dst=[42]), ["'coauthorships'", "'dst'", "dangling id 42", "row 0"]),
])
def test_broken_tables_raise_with_table_column_and_row(table, change, words):
    t = _tables()
    t[table] = change(t[table])
    with pytest.raises(SchemaError) as err:
        validate(t)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_missing_table():
    t = _tables()
    del t["authorships"]
    with pytest.raises(SchemaError, match="'authorships' is missing"):
        validate(t)


def test_load_tables_from_csv(tmp_path):
    t = _tables()
    for name, df in t.items():
        if name != "coauthorships":
            df.to_csv(tmp_path / f"{name}.csv", index=False)
    w = load_tables(tmp_path)
    assert w.authors["alt_names"].iloc[0] == ["Ana Diaz", "Ana María Díaz"]
    assert w.coauthorships.to_dict("list") == {"src": [1], "dst": [2], "n_papers": [1]}  # derived
    t["authorships"].assign(author_id=[1, 2, 7]).to_csv(tmp_path / "authorships.csv", index=False)
    with pytest.raises(SchemaError, match="dangling id 7"):
        load_tables(tmp_path)


def test_load_tables_keeps_saved_meta(tmp_path):
    t = _tables()
    save_world(World(**t, meta={"synthetic": True, "seed": 3, "source": "generator"}), tmp_path)
    w = load_tables(tmp_path)
    assert w.synthetic and w.meta["seed"] == 3 and w.meta["imported_from"] == "generator"
    assert w.meta["source"] == str(tmp_path)
    (tmp_path / "meta.json").unlink()
    assert load_tables(tmp_path).meta == {"synthetic": False, "source": str(tmp_path)}
