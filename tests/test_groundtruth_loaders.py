"""lib.groundtruth.schema / loaders: validation errors name table, column and an example row."""
import io
import tarfile

import pandas as pd
import pytest

from lib.groundtruth.loaders import load_reference_export, load_tables
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


def _export(tmp_path, drop=None):
    files = {
        "authors.csv": "id_author,name,created_date,works_count,cited_by_count,h_index,i10_index\n"
                       "1,Ana Diaz,2020,3,10,2,0\n2,Bo Li,2020,1,0,0,0\n",
        "authors_demographics.csv": "id_author,display_name,alternative_names,longest_name,last_name,first_name,ethnicity,gender\n"
                                    "1,Ana Diaz,\"['Ana Diaz', 'Ana María Díaz']\",Ana María Díaz,Díaz,Ana,Hispanic or Latino,Female\n"
                                    "2,Bo Li,\"['Bo Li']\",Bo Li,Li,Bo,Asian,Unisex\n",
        "publications.csv": "id_publication,doi,title,publication_date,cited_by_count\n10,10.1103/X.1,t,1999-05-01,4\n11,10.1103/X.2,u,2003-01-01,0\n",
        "authorships.csv": "id_publication,id_author,id_institution\n10,1,5\n10,2,5\n11,1,6\n",
        "publications_topic.csv": "id_publication,id_topic\n10,100\n11,101\n",
        "topics.csv": "id_topic,domain_name,field_name,subfield_name\n100,Phys,Phys,Condensed Matter Physics\n101,Soc,Soc,Education\n",
        "coauthorships.csv": "src,dst\n2,1\n1,2\n1,1\n",
    }
    if drop:
        table, col = drop
        lines = files[table].splitlines()
        header = lines[0].split(",")
        i = header.index(col)
        files[table] = "\n".join([",".join(h for j, h in enumerate(header) if j != i)] + lines[1:]) + "\n"
    path = tmp_path / "final_dataset.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"final_dataset/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_reference_export_maps_onto_schema(tmp_path):
    w = load_reference_export(_export(tmp_path))
    a = w.authors.set_index("author_id")
    assert a.loc[1, "perceived_ethnicity"] == "Hispanic" and a.loc[2, "perceived_gender"] == "Unisex"
    assert a.loc[1, "alt_names"] == ["Ana Diaz", "Ana María Díaz"]
    assert (a.loc[1, "career_start"], a.loc[1, "career_end"]) == (1999, 2003)
    assert w.publications.set_index("publication_id").loc[11, "subfield"] == "Education"
    assert w.coauthorships[["src", "dst"]].values.tolist() == [[1, 2]]


def test_reference_export_missing_column(tmp_path):
    with pytest.raises(SchemaError, match=r"authors_demographics.csv.*longest_name"):
        load_reference_export(_export(tmp_path, drop=("authors_demographics.csv", "longest_name")))
