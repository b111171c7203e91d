"""lib.groundtruth.schema: the four documented tables pass; each kind of problem raises a
SchemaError naming the table, the column, the expected value and an example row."""
import numpy as np
import pandas as pd
import pytest

from lib.groundtruth.schema import SCHEMA, SchemaError, validate


def tables() -> dict[str, pd.DataFrame]:
    """Two authors, two papers, three authorships, one coauthor pair: the smallest valid set."""
    authors = pd.DataFrame({
        "author_id": [1, 2], "display_name": ["Ann Lee", "Bo Kim"], "longest_name": ["Ann Lee", "Bo Kim"],
        "first_name": ["Ann", "Bo"], "middle_name": [None, None], "last_name": ["Lee", "Kim"],
        "alt_names": [["Ann Lee", "A. Lee"], ["Bo Kim"]], "works_count": [2, 1], "cited_by_count": [10, 0],
        "perceived_gender": ["Female", "Unknown"], "perceived_ethnicity": ["Asian", "Unknown"],
        "prominence_pub": ["elite", None]})
    pubs = pd.DataFrame({"publication_id": [10, 11], "doi": ["10.1/a", "10.1/b"], "year": [2001, 2003]})
    ships = pd.DataFrame({"publication_id": [10, 10, 11], "author_id": [1, 2, 1]})
    co = pd.DataFrame({"src": [1], "dst": [2], "n_papers": [1]})
    return {"authors": authors, "publications": pubs, "authorships": ships, "coauthorships": co}


def broken(table: str, **changes) -> dict[str, pd.DataFrame]:
    t = tables()
    t[table] = t[table].assign(**changes)
    return t


def test_valid_tables_pass_and_optional_columns_may_be_absent():
    validate(tables())
    t = tables()
    t["authors"] = t["authors"].drop(columns=["first_name", "middle_name", "prominence_pub"])
    validate(t)
    validate(broken("authors", works_count=[2.0, 1.0]))          # integral floats are integers
    validate(broken("authors", alt_names=[np.array(["Ann Lee"]), ("Bo Kim",)]))   # parquet arrays, tuples


@pytest.mark.parametrize("t,message", [
    (broken("authors", works_count=[2, 1.5]),
     "ground truth table 'authors', column 'works_count': expected an integer, got 1.5 in row 1:"),
    (broken("authors", display_name=["Ann Lee", 7]),
     "ground truth table 'authors', column 'display_name': expected a string, got 7 in row 1:"),
    (broken("authors", perceived_gender=["Female", "female"]),
     "column 'perceived_gender': expected one of ['Female', 'Male', 'Unisex', 'Unknown'], got 'female' in row 1:"),
    (broken("authors", prominence_pub=["top", None]),
     "column 'prominence_pub': expected one of ['low', 'mid', 'high', 'elite'], got 'top' in row 0:"),
    (broken("authors", cited_by_count=[10, None]),
     "ground truth table 'authors', column 'cited_by_count': missing value (required) in row 1:"),
    (broken("authors", alt_names=[["Ann Lee"], None]),
     "column 'alt_names': missing value (required) in row 1:"),
    (broken("authors", alt_names=[["Ann Lee"], "Bo Kim"]),
     "column 'alt_names': expected a list of strings, got 'Bo Kim' in row 1:"),
    (broken("authors", author_id=[1, 1]), "ground truth table 'authors': duplicated key ['author_id'] in row 1:"),
    (broken("authorships", author_id=[1, 2, 9]),
     "ground truth table 'authorships', column 'author_id': dangling id 9 not in authors.author_id, in row 2:"),
    (broken("coauthorships", dst=[3]),
     "ground truth table 'coauthorships', column 'dst': dangling id 3 not in authors.author_id"),
    (broken("authorships", publication_id=[10, 10, 10]),
     "ground truth table 'authorships': duplicated key ['publication_id', 'author_id'] in row 2:"),
])
def test_each_problem_names_table_column_and_expected_value(t, message):
    with pytest.raises(SchemaError) as exc:
        validate(t)
    assert message in str(exc.value)


def test_example_rows_show_python_values_and_missing_tables_and_columns_are_named():
    with pytest.raises(SchemaError) as exc:
        validate(broken("publications", year=[2001, "2003?"]))
    msg = str(exc.value)
    assert "'publications', column 'year': expected an integer, got '2003?'" in msg
    assert "'publication_id': 11" in msg and "np." not in msg           # 11, not np.int64(11)
    t = tables()
    del t["coauthorships"]
    with pytest.raises(SchemaError, match=r"table 'coauthorships' is missing \(expected \['authors', "):
        validate(t)
    with pytest.raises(SchemaError, match=r"table 'publications': missing column 'doi' \(has \['publication_id', 'year'\]\)"):
        validate({**tables(), "publications": tables()["publications"].drop(columns="doi")})
    assert list(SCHEMA) == ["authors", "publications", "authorships", "coauthorships"]
