"""The released AttriBench CSVs: schema, loader and validation (reference B.1).

Two kinds of file share one schema: the quote-level datasets (``intersectional_with_quotes.csv``,
``multirace_with_quotes.csv`` and their ``*_random_300matchings.csv`` subsets) and the author
universe (``universe_authors.csv``). Every loader validates on read and raises
:class:`AttriBenchSchemaError` naming the file, the column, the (1-based data) row and the
expected value when a column the analysis reads is broken, so a broken download or a
hand-edited copy stops early. Derived columns that disagree with their rule (the released
files have a few such rows) are reported as :class:`AttriBenchQuirkWarning` with every row,
never rejected: the paper used these files as they are.

Subgroup vocabulary (paper §4.1): intersectional = {Black, White} × {male, female}, reference
group Black female; multirace = {Asian, Black, Latino, White}, reference group Latino.
"""
from __future__ import annotations

import re
import warnings
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


class AttriBenchQuirkWarning(UserWarning):
    """A derived column of a released file disagrees with its rule in some rows (kept as released)."""


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


def _note_values(df: pd.DataFrame, name: str, column: str, ok: pd.Series, expected: str, quirks: list[str],
                 shown: pd.Series | None = None, limit: int = 20) -> None:
    """Record (not raise) the rows of a derived column that are not what the release's own rule
    gives: one message naming the file, the column, the rule and every row (1-based)."""
    bad = np.flatnonzero(~ok.fillna(False).to_numpy(dtype=bool))
    if not bad.size:
        return
    vals = df[column] if shown is None else shown
    listed = ", ".join(f"row {i + 1} ({vals.iloc[i]!r})" for i in bad[:limit])
    more = f", and {bad.size - limit} more" if bad.size > limit else ""
    quirks.append(f"{name}: column {column!r}: {bad.size} row(s) not {expected}, kept as released: {listed}{more}")


def _emit(df: pd.DataFrame, quirks: list[str]) -> pd.DataFrame:
    df.attrs["quirks"] = list(quirks)
    for q in quirks:
        warnings.warn(AttriBenchQuirkWarning(q), stacklevel=3)
    return df


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

    Rejected (:class:`AttriBenchSchemaError`, first failing column and 1-based row named): what
    the analysis reads: quote_id ``jstet_<n>`` and unique; author_clean and quote non-empty;
    race and gender in their vocabularies; log10_hits a number.
    Warned (:class:`AttriBenchQuirkWarning`, every row listed; the messages are also in
    ``df.attrs["quirks"]``): derived or bookkeeping columns that disagree with the rule that
    made them, as the released files do in a few rows (⚠ e.g. "Career is a marathon race, not a
    100-meter sprint" carries quote_words 12): quote_words = count of ``\\b\\w+\\b`` tokens, in
    [5, 30]; gender_source/race_source in {wikidata, llm}; google_hits ≥ 1 and log10_hits =
    log10(google_hits) (no +1, tolerance 1e-4); to_sample in [1, 10]. ``author_alt_name`` may be empty.
    """
    df = df.copy()
    if "" in df.columns or any(str(c).startswith("Unnamed: 0") for c in df.columns):
        df = df.rename(columns={c: "row_index" for c in df.columns if c == "" or str(c).startswith("Unnamed: 0")})
    for col in ("quote_id", "author_clean", "quote", "race", "gender"):
        _check_values(df, name, col, df[col].notna() & df[col].astype(str).str.strip().ne(""), "a non-empty value")
    _check_values(df, name, "quote_id", df["quote_id"].astype(str).str.match(QUOTE_ID), "an id like 'jstet_<n>'")
    _check_values(df, name, "quote_id", ~df["quote_id"].duplicated(), "a unique quote_id")
    _check_values(df, name, "race", df["race"].isin(RACES), f"one of {RACES}")
    _check_values(df, name, "gender", df["gender"].isin(GENDERS), f"one of {GENDERS}")
    fame = pd.to_numeric(df["log10_hits"], errors="coerce")
    _check_values(df, name, "log10_hits", fame.notna() & (fame < np.inf), "a log10 search-hit count")
    quirks: list[str] = []
    words = pd.to_numeric(df["quote_words"], errors="coerce")
    _note_values(df, name, "quote_words", words.between(5, 30), "an integer in [5, 30]", quirks)
    counted = df["quote"].astype(str).map(lambda q: len(WORD.findall(q)))
    _note_values(df, name, "quote_words", counted.eq(words) | words.isna(), "the number of \\b\\w+\\b tokens of the quote",
                 quirks, shown=df["quote_words"].astype(str) + " vs " + counted.astype(str) + " counted")
    for col in ("gender_source", "race_source"):
        _note_values(df, name, col, df[col].isin(SOURCES), f"one of {SOURCES}", quirks)
    hits = pd.to_numeric(df["google_hits"], errors="coerce")
    _note_values(df, name, "google_hits", hits.ge(1), "a search-hit count >= 1", quirks)
    _note_values(df, name, "log10_hits", (fame - np.log10(hits)).abs().lt(1e-4) | hits.isna() | hits.lt(1),
                 "log10(google_hits)", quirks)
    to_sample = pd.to_numeric(df["to_sample"], errors="coerce")
    _note_values(df, name, "to_sample", to_sample.between(1, 10), "an integer in [1, 10]", quirks)
    df["quote_words"] = words.astype(int) if words.notna().all() else words.astype("Int64")
    df["to_sample"] = to_sample.astype(int) if to_sample.notna().all() else to_sample.astype("Int64")
    df["google_hits"], df["log10_hits"] = hits.astype(float), fame.astype(float)
    df["author_alt_name"] = df["author_alt_name"].astype("string").fillna("")
    return _emit(df, quirks)


def validate_universe(df: pd.DataFrame, name: str = "<dataframe>") -> pd.DataFrame:
    """Check ``universe_authors.csv`` (reference B.1/B.2).

    Rejected: what fame balancing reads: unique non-empty author_clean, race/gender in their
    vocabularies, numeric log10_hits (−inf allowed: zero hits), count (quotes) an integer ≥ 1
    (its bin is ⌊log2 count⌋). Warned (as :func:`validate_quotes`): count above the corpus cap 10.
    """
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
    _check_values(df, name, "count", count.ge(1) & (count % 1 == 0), "a quote count >= 1")
    quirks: list[str] = []
    _note_values(df, name, "count", count.le(10), "a quote count in [1, 10] (the corpus caps at 10)", quirks)
    df["log10_hits"], df["count"] = fame.astype(float), count.astype(int)
    return _emit(df, quirks)


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
