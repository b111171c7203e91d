"""The dataset tables of the AttriBench paper: Tables 2, 3, 4 and 5 (A.2, A.4.3, A.6, A.7.2).

Each function takes the relevant data (universe, balancing result, quote-level datasets) and
returns the table as a DataFrame ready for :func:`lib.artifacts.save_table`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.attribution import dataset as ds
from lib.attribution import published as at_published
from lib.attribution.balance import LOWER_FAME_BOUND, Balanced

#: The criteria of Table 2 (§4.1, A.6; reference B.0), in column order.
TABLE2_CRITERIA = ("authors_per_group", "quotes_per_group", "avg_fame", "fame_range", "rms_error")


def table2(results: dict, *, with_paper: bool = False) -> pd.DataFrame:
    """Table 2: criteria of the selected run per dataset (and search mode), plus the run averages.

    ``results``: {dataset name or (dataset, mode): Balanced}. Columns: ``dataset[, mode], runs,
    selected_run, authors_per_group, quotes_per_group, avg_fame, fame_range, rms_error`` and
    ``*_runs_mean`` for the five criteria over all runs. ``with_paper`` adds ``paper_*`` columns
    with the published values the paper quotes in its text (rows at-tab2 of
    ``lib/resources/at_published.csv``, read by :func:`lib.attribution.published.published_rows`; the RMS error
    of the selected runs is not given, so no ``paper_rms_error``). Meaningful next to the released
    universe only.
    """
    paper = at_published.published_rows("at-tab2") if with_paper else {}
    rows = []
    for key, res in results.items():
        best = res.best_stats
        name, mode = key if isinstance(key, tuple) else (key, None)
        row = {"dataset": name, **({"mode": mode} if mode else {}), "runs": len(res.run_stats), "selected_run": res.best_run}
        for c in TABLE2_CRITERIA:
            row[c] = best[c]
        for c in TABLE2_CRITERIA:
            row[f"{c}_runs_mean"] = float(res.run_stats[c].mean())
        for c in TABLE2_CRITERIA:
            if c in paper.get(res.kind, {}):
                row[f"paper_{c}"] = paper[res.kind][c]
        rows.append(row)
    out = pd.DataFrame(rows)
    for c in ("authors_per_group", "quotes_per_group"):
        out[c] = out[c].astype(int)
        if f"paper_{c}" in out and out[f"paper_{c}"].notna().all():
            out[f"paper_{c}"] = out[f"paper_{c}"].astype(int)
    return out


def table3(universe: pd.DataFrame, *, lower_fame: float = LOWER_FAME_BOUND) -> pd.DataFrame:
    """Table 3: mean fame (log10_hits) by race and by intersectional subgroup before balancing.

    Over universe authors with log10_hits ≥ ``lower_fame`` (the pool the balancing draws from).
    Rows: the multirace partition (Asian, Black, Latino, White) then the intersectional one
    (Black/White × F/M); columns ``partition, subgroup, n_authors, mean_log10_hits, sd_log10_hits``,
    and ``gap_to_top`` = the partition's highest mean minus this subgroup's mean.
    """
    u = universe[universe["log10_hits"] >= lower_fame]
    parts = []
    for kind in ("multirace", "intersectional"):
        sub = u if kind == "multirace" else u[u["race"].isin(["black", "white"])]
        g = sub.assign(subgroup=ds.subgroup_labels(sub, kind)).groupby("subgroup")["log10_hits"]
        t = g.agg(n_authors="size", mean_log10_hits="mean", sd_log10_hits="std").reset_index()
        t["gap_to_top"] = t["mean_log10_hits"].max() - t["mean_log10_hits"]
        t.insert(0, "partition", kind)
        order = {s: i for i, s in enumerate(ds.group_order(kind))}
        parts.append(t.sort_values("subgroup", key=lambda s: s.map(order)))
    return pd.concat(parts, ignore_index=True)


def table4(datasets: dict[str, tuple[pd.DataFrame, ds.DatasetKind]]) -> pd.DataFrame:
    """Table 4: unique authors per subgroup whose gender / race label came from Wikidata (A.4.3).

    ``datasets``: name → (quote-level table with ``gender_source``/``race_source``, kind).
    Columns ``dataset, subgroup, n_authors, gender_wikidata, gender_wikidata_pct, race_wikidata,
    race_wikidata_pct``; the remaining labels came from LLM consensus.
    """
    parts = []
    for name, (df, kind) in datasets.items():
        a = df.drop_duplicates("author_clean")
        a = a.assign(subgroup=ds.subgroup_labels(a, kind))
        t = a.groupby("subgroup").agg(n_authors=("author_clean", "size"),
                                      gender_wikidata=("gender_source", lambda s: int((s == "wikidata").sum())),
                                      race_wikidata=("race_source", lambda s: int((s == "wikidata").sum()))).reset_index()
        t["gender_wikidata_pct"] = 100.0 * t["gender_wikidata"] / t["n_authors"]
        t["race_wikidata_pct"] = 100.0 * t["race_wikidata"] / t["n_authors"]
        order = {s: i for i, s in enumerate(ds.group_order(kind))}
        t = t.sort_values("subgroup", key=lambda s: s.map(order))
        t.insert(0, "dataset", name)
        parts.append(t[["dataset", "subgroup", "n_authors", "gender_wikidata", "gender_wikidata_pct",
                        "race_wikidata", "race_wikidata_pct"]])
    return pd.concat(parts, ignore_index=True)


def balanced_quote_subset(df: pd.DataFrame, kind: ds.DatasetKind, *, per_group: int | None, seed: int) -> pd.DataFrame:
    """An equal number of quotes per subgroup, drawn at random (A.7.2 used 797 per subgroup).
    ``per_group=None`` takes the size of the smallest subgroup."""
    g = df.assign(subgroup=ds.subgroup_labels(df, kind))
    n = int(g.groupby("subgroup").size().min()) if per_group is None else per_group
    rng = np.random.default_rng([seed, 7305])
    parts = []
    for _, part in g.groupby("subgroup", sort=True):
        if len(part) < n:
            raise ValueError(f"balanced_quote_subset: subgroup {part['subgroup'].iat[0]} has {len(part)} quotes < {n}")
        parts.append(part.iloc[np.sort(rng.choice(len(part), size=n, replace=False))])
    return pd.concat(parts, ignore_index=True)


def table5(df: pd.DataFrame, kind: ds.DatasetKind = "intersectional", *, per_group: int | None = None,
           seed: int = 0) -> pd.DataFrame:
    """Table 5: quote–author co-occurrence by subgroup, log10(co-occurrence count + 1) (A.7.2).

    On a subgroup-balanced subset of the quotes (see :func:`balanced_quote_subset`); needs a
    ``cooccurrence_hits`` column (the release does not distribute it; the twin derives it from
    its corpus-count proxy). Columns ``subgroup, n_quotes, mean, median, sd, q25, q75``.
    """
    if "cooccurrence_hits" not in df:
        raise ValueError("table5: the dataset has no 'cooccurrence_hits' column (quote–author co-occurrence counts)")
    sub = balanced_quote_subset(df, kind, per_group=per_group, seed=seed)
    sub = sub.assign(log_cooc=np.log10(sub["cooccurrence_hits"].astype(float) + 1.0))
    g = sub.groupby("subgroup")["log_cooc"]
    t = g.agg(n_quotes="size", mean="mean", median="median", sd="std",
              q25=lambda s: s.quantile(0.25), q75=lambda s: s.quantile(0.75)).reset_index()
    order = {s: i for i, s in enumerate(ds.group_order(kind))}
    return t.sort_values("subgroup", key=lambda s: s.map(order)).reset_index(drop=True)
