"""The documented ground-truth tables and their validation.

Four tables (one row per entity; ids are integers, OpenAlex-style numeric ids without prefix):

| table | key | columns (type; * = may be missing) |
|---|---|---|
| authors | author_id | display_name, longest_name (str); first_name*, middle_name*, last_name (str); alt_names (list of str); field*, subfield* (str); career_start*, career_end* (int); works_count, cited_by_count, h_index*, i10_index* (int); perceived_gender ∈ {Female, Male, Unisex, Unknown}; perceived_ethnicity ∈ {Asian, Black, Hispanic, White, Unknown}; prominence_pub*, prominence_cit* ∈ {low, mid, high, elite} |
| publications | publication_id | doi (str); year (int); journal*, field*, subfield* (str); cited_by_count* (int) |
| authorships | (publication_id, author_id) | publication_id → publications, author_id → authors |
| coauthorships | (src, dst) | src, dst → authors; n_papers* (int) |

``validate(tables)`` checks every table on load and raises :class:`SchemaError` naming the
table, the column and an example row for: a missing table or column, a wrong type, a missing
value in a required column, a value outside a label set, a duplicated key and a dangling id.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.groundtruth.demographics import ETHNICITIES, GENDERS, PROMINENCE


class SchemaError(ValueError):
    """A ground-truth table does not match the documented schema."""


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # int, str, list, label
    required: bool = True
    labels: tuple | None = None
    references: tuple[str, str] | None = None  # (table, column)


SCHEMA: dict[str, dict] = {
    "authors": {"key": ("author_id",), "columns": [
        Column("author_id", "int"), Column("display_name", "str"), Column("longest_name", "str"),
        Column("first_name", "str", False), Column("middle_name", "str", False), Column("last_name", "str", False),
        Column("alt_names", "list"), Column("field", "str", False), Column("subfield", "str", False),
        Column("career_start", "int", False), Column("career_end", "int", False),
        Column("works_count", "int"), Column("cited_by_count", "int"),
        Column("h_index", "int", False), Column("i10_index", "int", False),
        Column("perceived_gender", "label", True, GENDERS), Column("perceived_ethnicity", "label", True, ETHNICITIES),
        Column("prominence_pub", "label", False, PROMINENCE), Column("prominence_cit", "label", False, PROMINENCE),
    ]},
    "publications": {"key": ("publication_id",), "columns": [
        Column("publication_id", "int"), Column("doi", "str"), Column("year", "int"),
        Column("journal", "str", False), Column("field", "str", False), Column("subfield", "str", False),
        Column("cited_by_count", "int", False),
    ]},
    "authorships": {"key": ("publication_id", "author_id"), "columns": [
        Column("publication_id", "int", references=("publications", "publication_id")),
        Column("author_id", "int", references=("authors", "author_id")),
    ]},
    "coauthorships": {"key": ("src", "dst"), "columns": [
        Column("src", "int", references=("authors", "author_id")),
        Column("dst", "int", references=("authors", "author_id")),
        Column("n_papers", "int", False),
    ]},
}


def _py(v):
    """A numpy scalar as its Python value, so messages read 7 rather than np.int64(7)."""
    return v.item() if isinstance(v, np.generic) else v


def _example(df: pd.DataFrame, mask) -> str:
    i = np.flatnonzero(np.asarray(mask))[0]
    return f"row {i}: { {k: _py(v) for k, v in df.iloc[i].to_dict().items()} }"


def _check_kind(table: str, df: pd.DataFrame, col: Column) -> None:
    s = df[col.name]
    present = s.notna() if col.kind != "list" else s.map(lambda v: v is not None)
    if col.required and not present.all():
        raise SchemaError(f"ground truth table {table!r}, column {col.name!r}: missing value "
                          f"(required) in {_example(df, ~present)}")
    v = s[present]
    if col.kind == "int":
        num = pd.to_numeric(v, errors="coerce")
        bad = num.isna() | (num != np.floor(num))
        if bad.any():
            raise SchemaError(f"ground truth table {table!r}, column {col.name!r}: expected an integer, "
                              f"got {_py(v[bad].iloc[0])!r} in {_example(df, present & bad.reindex(df.index, fill_value=False))}")
    elif col.kind in ("str", "label"):
        bad = ~v.map(lambda x: isinstance(x, str))
        if bad.any():
            raise SchemaError(f"ground truth table {table!r}, column {col.name!r}: expected a string, "
                              f"got {_py(v[bad].iloc[0])!r} in {_example(df, present & bad.reindex(df.index, fill_value=False))}")
        if col.labels is not None:
            bad = ~v.isin(col.labels)
            if bad.any():
                raise SchemaError(f"ground truth table {table!r}, column {col.name!r}: expected one of "
                                  f"{list(col.labels)}, got {_py(v[bad].iloc[0])!r} in "
                                  f"{_example(df, present & bad.reindex(df.index, fill_value=False))}")
    elif col.kind == "list":
        bad = ~v.map(lambda x: isinstance(x, (list, tuple, np.ndarray)) and all(isinstance(y, str) for y in x))
        if bad.any():
            raise SchemaError(f"ground truth table {table!r}, column {col.name!r}: expected a list of strings, "
                              f"got {_py(v[bad].iloc[0])!r} in {_example(df, present & bad.reindex(df.index, fill_value=False))}")


def validate(tables: dict[str, pd.DataFrame]) -> None:
    """Check the four tables against :data:`SCHEMA`; raise :class:`SchemaError` on the first problem."""
    for table, spec in SCHEMA.items():
        if table not in tables or tables[table] is None:
            raise SchemaError(f"ground truth: table {table!r} is missing (expected {list(SCHEMA)})")
        df = tables[table].reset_index(drop=True)
        for col in spec["columns"]:
            if col.name not in df.columns:
                if col.required:
                    raise SchemaError(f"ground truth table {table!r}: missing column {col.name!r} "
                                      f"(has {list(df.columns)})")
                continue
            _check_kind(table, df, col)
        key = list(spec["key"])
        dup = df.duplicated(key, keep="first")
        if dup.any():
            raise SchemaError(f"ground truth table {table!r}: duplicated key {key} in {_example(df, dup)}")
    for table, spec in SCHEMA.items():
        df = tables[table].reset_index(drop=True)
        for col in spec["columns"]:
            if col.references is None or col.name not in df.columns:
                continue
            ref_table, ref_col = col.references
            known = pd.Index(tables[ref_table][ref_col].to_numpy())
            dangling = ~df[col.name].isin(known)
            if dangling.any():
                raise SchemaError(f"ground truth table {table!r}, column {col.name!r}: dangling id "
                                  f"{_py(df[col.name][dangling].iloc[0])!r} not in {ref_table}.{ref_col}, "
                                  f"in {_example(df, dangling)}")
