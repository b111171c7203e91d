"""The authority-bias paper's published values next to the regenerated tables (on the core
:mod:`lib.published`).

The published side is ``lib/resources/ab_published.csv``: the numbers the paper prints in its
table captions and prose, each with the line of ``shared/papers/authority_bias.txt`` it was read
from and the string as printed (SOURCES.md). The mapping below puts every regenerated table on
the comparison scale (rates as fractions, percent and percentage points divided by 100).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from lib import published
from lib.published import KEYS, TOLERANCE, compare, melt_table, read_tables, require_columns, single_row

PAPER = "authority_bias"
RESOURCE = "ab_published.csv"
#: The panel's stated calibration tolerance: no expected rate more than 0.08 from the published
#: one (issue 17's acceptance, tests/panel/test_calibration.py); it widens each regenerated
#: interval for the comparison's ``consistent`` column.
CALIBRATION = 0.08


def published_values(*, resources: Path | None = None) -> pd.DataFrame:
    """The transcribed values of ``ab_published.csv`` (:func:`lib.published.published_values`)."""
    return published.published_values(PAPER, RESOURCE, resources=resources)


#: Per table: the column(s) naming a row, and the value columns with the divisor that puts them
#: on the comparison scale (100 for columns in percent or percentage points).
AB_TABLES: dict[str, tuple[tuple[str, ...], dict[str, float]]] = {
    "ab-tab1": (("dimension",), {"weight": 1}),
    "ab-tab5": (("manipulation",), {"changed": 1, "pairs": 1, "rate": 1, "ci_low": 1, "ci_high": 1}),
    "ab-tab6": (("manipulation", "model"), {"toward_higher_pct": 100, "decisive_higher_pct": 100, "p_binomial": 1}),
    "ab-tab7": (("model",), {"flip_rate": 1, "boost_rate": 1, "susceptibility": 1, "parse_rate": 1,
                             "boosted_pick_rate": 1, "boosted_pick_lift": 1}),
    "ab-tab8": (("measure",), {"mean": 1, "min": 1, "max": 1}),
    "ab-tab9": (("tier",), {"share": 100, "original": 100, "flipped": 100, "boosted": 100}),
    "ab-tab10": (("topic",), {"flip_rate": 1, "boost_rate": 1}),
    "ab-tab11": (("instruction",), {"flip_rate": 1, "boost_rate": 1, "flip_reduction_pp": 100, "p_mcnemar": 1}),
    "ab-tab12": (("level", "name"), {"baseline_flip_rate": 1, "variant_flip_rate": 1, "delta_pp": 100, "p_mcnemar": 1}),
    "ab-tab13": (("instruction",), {"mention_rate": 1, "flip_rate": 1, "gap_pp": 100}),
    "ab-tab15": (("model",), {"mean_s": 1, "median_s": 1, "p95_s": 1}),
    "ab-tab16": (("predictor",), {"beta_std": 1, "vif": 1, "dominance_r2": 1, "fused_weight": 1}),
    "ab-tab17": (("manipulation", "scheme"), {"pct_total": 100, "pct_decisive": 100, "p_binomial": 1}),
    "ab-tab19": (("topic",), {"flip_rate": 1, "boost_rate": 1}),
    "ab-tab20": (("predictor",), {"beta_5": 1, "beta_6": 1, "vif_5": 1, "vif_6": 1, "dominance_5": 1, "dominance_6": 1}),
    "ab-tab21": (("quantity",), {"value": 1}),
    "ab-tab22": (("test",), {"statistic": 1, "p": 1}),
    "ab-tab23": (("category",), {"count": 1, "share_pct": 100}),
}
#: Table-wide values repeated on every row of a regenerated table, reported once as row "all".
_AB_TABLE_WIDE = {"ab-tab7": {"chi2_homogeneity": 1, "boosted_pick_rate_all": 1, "boosted_pick_expected": 1},
                  "ab-tab10": {"spread_pp": 100},
                  "ab-tab16": {"n": 1, "mcfadden_r2": 1},
                  "ab-tab20": {"mcfadden_r2_5": 1, "mcfadden_r2_6": 1, "delta_r2": 1}}


def authority_table_long(table_id: str, df: pd.DataFrame) -> pd.DataFrame:
    """One regenerated authority-bias table (as passed to save_table, or its CSV) in long format.

    Columns artifact, row, column, regenerated, on the comparison scale (rates as fractions;
    ``*_pct`` and ``*_pp`` columns divided by 100). Rows as in :data:`AB_TABLES`, plus:
    ab-tab7 'all' (χ² of homogeneity, the pooled boosted-pick rate and its chance rate;
    susceptibility_max_over_min = highest / lowest model susceptibility, the paper's "varies 2.83×");
    ab-tab10 'all' spread_pp; ab-tab11 flip_change_pp = −flip_reduction_pp (the paper prints the
    anti-authority effect as a change);
    ab-tab12 only the ``anti_authority`` rows when a ``variant`` column is present; ab-tab8 the
    per-pair rows ('selection agreement/<a> vs <b>') with their ``pair`` value only; ab-tab13
    mention_change_pp and flip_change_pp = −drop (as printed), and its per-model rows
    (``instruction == 'all'``) as 'model/<model>' with their mention_rate only; ab-tab16/20
    'all' with the fit-wide values; ab-tab21 the "(pp)" quantity divided by 100; ab-tab22 the
    direction statistics (percent) and the McNemar statistics (pp) divided by 100.
    """
    if table_id not in AB_TABLES:
        raise ValueError(f"authority_table_long: no mapping for {table_id!r}; mapped: {list(AB_TABLES)}")
    row_cols, values = AB_TABLES[table_id]
    d = df
    if table_id == "ab-tab10":     # with five topics or fewer a topic is both most and least susceptible
        d = d.drop_duplicates(subset=list(row_cols))
    if table_id == "ab-tab12" and "variant" in d.columns:
        d = d[d["variant"] == "anti_authority"]
    extra = []                                               # rows of their own kind, with one value each
    if table_id == "ab-tab8" and "pair" in d.columns:       # one row per model pair (Appendix G)
        pair = d["measure"].astype(str).str.contains(" vs ", regex=False)
        extra, d = [(d[pair], row_cols, {"pair": 1})], d[~pair]
    if table_id == "ab-tab13" and "model" in d.columns:     # per-model mention rates (Appendix G)
        per_model = d["instruction"].astype(str) == "all"
        m = d[per_model]
        extra, d = [(m.assign(_row="model/" + m["model"].astype(str)), ("_row",), {"mention_rate": 1})], d[~per_model]
    parts = [melt_table(d, table_id, row_cols, values)]
    parts += [melt_table(e, table_id, cols, v) for e, cols, v in extra if len(e)]
    if table_id in _AB_TABLE_WIDE and len(d):
        wide = _AB_TABLE_WIDE[table_id]
        require_columns(d, wide, table_id)
        parts.append(single_row(table_id, "all", {c: d[c].iloc[0] / k for c, k in wide.items()}))
    if table_id == "ab-tab7" and len(d):
        s = pd.to_numeric(d["susceptibility"], errors="coerce")
        parts.append(single_row(table_id, "all", {"susceptibility_max_over_min": s.max() / s.min() if s.min() > 0 else np.nan}))
    if table_id == "ab-tab11":
        parts.append(melt_table(d.assign(flip_change_pp=-d["flip_reduction_pp"]), table_id, row_cols, {"flip_change_pp": 100}))
    if table_id == "ab-tab13":
        require_columns(d, ["mention_drop_pp", "flip_drop_pp"], table_id)
        parts.append(melt_table(d.assign(mention_change_pp=-d["mention_drop_pp"], flip_change_pp=-d["flip_drop_pp"]),
                           table_id, row_cols, {"mention_change_pp": 100, "flip_change_pp": 100}))
    long = pd.concat(parts, ignore_index=True)
    if table_id == "ab-tab21":
        pp = long["row"].str.contains("(pp)", regex=False)
        long.loc[pp, "regenerated"] = long.loc[pp, "regenerated"] / 100
    if table_id == "ab-tab22":
        require_columns(d, ["family"], table_id)
        family = dict(zip(d["test"].astype(str), d["family"]))
        pct = long["row"].str.startswith("direction") | long["row"].map(family).eq("McNemar")
        stat = long["column"] == "statistic"
        long.loc[pct & stat, "regenerated"] = long.loc[pct & stat, "regenerated"] / 100
    return long


def authority_long(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every mapped table of ``tables`` ({artifact id: DataFrame}) in long format; unmapped ids are skipped."""
    parts = [authority_table_long(k, v) for k, v in tables.items() if k in AB_TABLES]
    cols = ["artifact", "row", "column", "regenerated", "ci_low", "ci_high"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)


def authority_comparison(tables: Mapping[str, pd.DataFrame], *, tolerance: float = TOLERANCE,
                         resources: Path | None = None) -> pd.DataFrame:
    """Authority-bias paper: the regenerated tables vs ``ab_published.csv``. Tables not given
    leave their published values missing."""
    pub = published_values(resources=resources)
    return compare(_pairs_as_published(authority_long(tables), pub), pub, keys=KEYS, tolerance=tolerance,
                   calibration=CALIBRATION)


def _pairs_as_published(long: pd.DataFrame, pub: pd.DataFrame) -> pd.DataFrame:
    """Selection agreement is symmetric: a regenerated ab-tab8 row '<measure>/<a> vs <b>' takes the
    published spelling '<measure>/<b> vs <a>' when the paper names the pair in that order."""
    known = set(pub.loc[pub["artifact"] == "ab-tab8", "row"])

    def spelled(row: str) -> str:
        head, _, pair = row.partition("/")
        a, vs, b = pair.partition(" vs ")
        swapped = f"{head}/{b} vs {a}"
        return swapped if vs and row not in known and swapped in known else row

    out = long.copy()
    tab8 = out["artifact"] == "ab-tab8"
    out.loc[tab8, "row"] = out.loc[tab8, "row"].astype(str).map(spelled)
    return out


def build(outputs: Path, *, tolerance: float = TOLERANCE) -> dict[str, pd.DataFrame]:
    """``authority_bias``: the saved tables/ab-tab*.csv of an outputs folder vs the published values."""
    return {PAPER: authority_comparison(read_tables("ab-", Path(outputs) / "tables"), tolerance=tolerance)}
