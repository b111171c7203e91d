"""The released AttriBench CSVs: schema, loader and validation (reference B.1).

Two kinds of file share one schema: the quote-level datasets (``intersectional_with_quotes.csv``,
``multirace_with_quotes.csv`` and their ``*_random_300matchings.csv`` subsets) and the author
universe (``universe_authors.csv``). Every loader validates on read and raises
:class:`AttriBenchSchemaError` naming the file, the column, the (1-based data) row and the
expected value, so a broken download or a hand-edited copy stops early.

Subgroup vocabulary (paper §4.1): intersectional = {Black, White} × {male, female}, reference
group Black female; multirace = {Asian, Black, Latino, White}, reference group Latino.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from lib import paths

DatasetKind = Literal["intersectional", "multirace"]

#: Header of the quote-level files, as released (the first, unnamed column is a pandas index).
QUOTE_COLUMNS = (
    "", "quote_id", "author_clean", "author_alt_name", "author_raw", "quote", "quote_words", "race",
    "gender", "gender_source", "race_source", "google_hits", "log10_hits", "to_sample",
)
#: Header of ``universe_authors.csv``: one row per author of the pruned JSTET corpus.
UNIVERSE_COLUMNS = ("author_clean", "race", "gender", "log10_hits", "count")

RACES = ("white", "black", "asian", "latino")
GENDERS = ("male", "female")
SOURCES = ("wikidata", "llm")
#: Groups of each dataset, reference (smallest) group first (paper §4.2.2, reference B.2 step 2).
GROUPS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "intersectional": (("black", "female"), ("black", "male"), ("white", "male"), ("white", "female")),
    "multirace": (("latino", None), ("black", None), ("white", None), ("asian", None)),
}
#: The sample of 35 real rows shipped with the package (see lib/resources/SOURCES.md).
SAMPLE_CSV = paths.RESOURCES / "attribench_intersectional_sample.csv"
QUOTE_ID = re.compile(r"^jstet_\d+$")
WORD = re.compile(r"\b\w+\b")


class AttriBenchSchemaError(ValueError):
    """A released AttriBench file does not match the schema of reference B.1."""


def subgroup_label(race: str, gender: str | None, kind: DatasetKind) -> str:
    """Display label of a subgroup as in the reference tables: ``M/White`` or ``Latino``."""
    if kind == "intersectional":
        return f"{'M' if gender == 'male' else 'F'}/{race.capitalize()}"
    if kind == "multirace":
        return race.capitalize()
    raise ValueError(f"dataset kind must be 'intersectional' or 'multirace', got {kind!r}")


def subgroup_labels(df: pd.DataFrame, kind: DatasetKind) -> pd.Series:
    """Vectorised :func:`subgroup_label` over ``race``/``gender`` columns."""
    race = df["race"].str.capitalize()
    if kind == "intersectional":
        return np.where(df["gender"].eq("male"), "M/", "F/") + race
    if kind == "multirace":
        return race
    raise ValueError(f"dataset kind must be 'intersectional' or 'multirace', got {kind!r}")


def group_order(kind: DatasetKind) -> list[str]:
    """Subgroup labels of ``kind`` in display order (reference group last, White first)."""
    labels = [subgroup_label(r, g, kind) for r, g in GROUPS[kind]]
    white = [x for x in labels if "White" in x]
    return white + [x for x in labels[1:] if x not in white] + [labels[0]]


def _fail(name: str, column: str, row: int | None, expected: str, got) -> None:
    where = f", row {row}" if row is not None else ""
    raise AttriBenchSchemaError(f"{name}: column {column!r}{where}: expected {expected}, got {got!r}")


def _check_values(df: pd.DataFrame, name: str, column: str, ok: pd.Series, expected: str) -> None:
    bad = np.flatnonzero(~ok.to_numpy())
    if bad.size:
        i = int(bad[0])
        _fail(name, column, i + 1, expected, df[column].iloc[i])


def _check_header(found: list[str], expected: tuple[str, ...], name: str) -> None:
    found = ["" if c.startswith("Unnamed: 0") else c for c in found]
    if tuple(found) != expected:
        missing = [c for c in expected if c not in found]
        extra = [c for c in found if c not in expected]
        detail = f"missing {missing}, unexpected {extra}" if (missing or extra) else "columns in another order"
        raise AttriBenchSchemaError(f"{name}: header does not match reference B.1 ({detail}); "
                                    f"expected {','.join(expected)}")


def validate_quotes(df: pd.DataFrame, name: str = "<dataframe>") -> pd.DataFrame:
    """Check a quote-level AttriBench table (reference B.1) and return it with clean dtypes.

    Checks, in order, with the first failing (column, row) reported: quote_id ``jstet_<n>`` and
    unique; author_clean and quote non-empty; quote_words = count of ``\\b\\w+\\b`` tokens in the
    quote and within [5, 30]; race, gender and the two label sources in their vocabularies;
    google_hits ≥ 1 and log10_hits = log10(google_hits) (no +1, tolerance 1e-4); to_sample in
    [1, 10]. ``author_alt_name`` may be empty. Rows are numbered from 1 (the first data row).
    """
    df = df.copy()
    if "" in df.columns or any(str(c).startswith("Unnamed: 0") for c in df.columns):
        df = df.rename(columns={c: "row_index" for c in df.columns if c == "" or str(c).startswith("Unnamed: 0")})
    for col in ("quote_id", "author_clean", "quote", "race", "gender", "gender_source", "race_source"):
        _check_values(df, name, col, df[col].notna() & df[col].astype(str).str.strip().ne(""), "a non-empty value")
    _check_values(df, name, "quote_id", df["quote_id"].astype(str).str.match(QUOTE_ID), "an id like 'jstet_<n>'")
    _check_values(df, name, "quote_id", ~df["quote_id"].duplicated(), "a unique quote_id")
    words = pd.to_numeric(df["quote_words"], errors="coerce")
    _check_values(df, name, "quote_words", words.between(5, 30), "an integer in [5, 30]")
    counted = df["quote"].astype(str).map(lambda q: len(WORD.findall(q)))
    _check_values(df, name, "quote_words", counted.eq(words), "the number of \\b\\w+\\b tokens of the quote")
    _check_values(df, name, "race", df["race"].isin(RACES), f"one of {RACES}")
    _check_values(df, name, "gender", df["gender"].isin(GENDERS), f"one of {GENDERS}")
    for col in ("gender_source", "race_source"):
        _check_values(df, name, col, df[col].isin(SOURCES), f"one of {SOURCES}")
    hits = pd.to_numeric(df["google_hits"], errors="coerce")
    _check_values(df, name, "google_hits", hits.ge(1), "a search-hit count >= 1")
    fame = pd.to_numeric(df["log10_hits"], errors="coerce")
    _check_values(df, name, "log10_hits", (fame - np.log10(hits)).abs().lt(1e-4), "log10(google_hits)")
    to_sample = pd.to_numeric(df["to_sample"], errors="coerce")
    _check_values(df, name, "to_sample", to_sample.between(1, 10), "an integer in [1, 10]")
    df["quote_words"] = words.astype(int)
    df["to_sample"] = to_sample.astype(int)
    df["google_hits"], df["log10_hits"] = hits.astype(float), fame.astype(float)
    df["author_alt_name"] = df["author_alt_name"].astype("string").fillna("")
    return df


def validate_universe(df: pd.DataFrame, name: str = "<dataframe>") -> pd.DataFrame:
    """Check ``universe_authors.csv`` (reference B.1/B.2): unique non-empty author_clean,
    race/gender in their vocabularies, numeric log10_hits (−inf allowed: zero hits), count (quotes,
    capped at 10) in [1, 10]."""
    df = df.copy()
    _check_values(df, name, "author_clean", df["author_clean"].notna() & df["author_clean"].astype(str).str.strip().ne(""),
                  "a non-empty value")
    _check_values(df, name, "author_clean", ~df["author_clean"].duplicated(), "one row per author")
    _check_values(df, name, "race", df["race"].isin(RACES), f"one of {RACES}")
    _check_values(df, name, "gender", df["gender"].isin(GENDERS), f"one of {GENDERS}")
    fame = pd.to_numeric(df["log10_hits"], errors="coerce")
    # zero hits would give -inf (the release takes log10 without +1); such authors never pass the fame bound
    _check_values(df, name, "log10_hits", fame.notna() & (fame < np.inf), "a log10 search-hit count")
    count = pd.to_numeric(df["count"], errors="coerce")
    _check_values(df, name, "count", count.between(1, 10), "a quote count in [1, 10]")
    df["log10_hits"], df["count"] = fame.astype(float), count.astype(int)
    return df


def load_quotes(path: Path | str) -> pd.DataFrame:
    """Read and validate a released quote-level AttriBench CSV (header exactly as in B.1)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such AttriBench file (run `python -m lib.attribution.download`)")
    df = pd.read_csv(path, keep_default_na=False, na_values={"google_hits": [""], "log10_hits": [""]},
                     dtype={"author_alt_name": str})
    _check_header(list(df.columns), QUOTE_COLUMNS, path.name)
    return validate_quotes(df, path.name)


def load_universe(path: Path | str) -> pd.DataFrame:
    """Read and validate ``universe_authors.csv``."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such AttriBench file (run `python -m lib.attribution.download`)")
    df = pd.read_csv(path, keep_default_na=False, na_values={"log10_hits": [""], "count": [""]})
    _check_header(list(df.columns), UNIVERSE_COLUMNS, path.name)
    return validate_universe(df, path.name)


def load_sample() -> pd.DataFrame:
    """The 35 real rows shipped in ``lib/resources`` (intersectional, 300-matchings file)."""
    return load_quotes(SAMPLE_CSV)
