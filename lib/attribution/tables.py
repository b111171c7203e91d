"""The dataset tables of the AttriBench paper: Tables 2, 3, 4 and 5 (A.2, A.4.3, A.6, A.7.2), and
Table 2 re-made by a fresh run of the balancing (Tier B).

Each function takes the relevant data (universe, balancing result, quote-level datasets) and
returns the table as a DataFrame ready for :func:`lib.artifacts.save_table`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.attribution import balance, dataset as ds
from lib.attribution import published as at_published
from lib.attribution.balance import LOWER_FAME_BOUND, Balanced, Mode

#: The criteria of Table 2 (§4.1, A.6; reference B.0), in column order.
TABLE2_CRITERIA = ("authors_per_group", "quotes_per_group", "avg_fame", "fame_range", "rms_error")


def table2(datasets: dict[str, pd.DataFrame], *, with_paper: bool = False) -> pd.DataFrame | None:
    """Table 2 (Tier A): the criteria of the paper's selected run, read from the quote-level datasets
    as released (the release's ``mk_new_datasets.py``: "the released AttriBench CSVs ... are the
    canonical benchmark"), by :func:`lib.attribution.balance.dataset_stats`.

    ``datasets``: {kind: quote-level table} (the released ``<kind>_with_quotes.csv``, or the twin's
    selected run). Columns ``dataset, authors_per_group, quotes_per_group, avg_fame, fame_range``;
    the RMS error needs the matching, which no released file holds. ``with_paper`` adds the
    ``paper_*`` values the paper prints (rows at-tab2 of ``lib/resources/at_published.csv``).
    None when no dataset is given (the release's full files are not downloaded).
    """
    paper = at_published.published_rows("at-tab2") if with_paper else {}
    rows = []
    for kind in ds.GROUPS:
        if kind in datasets:
            stats = balance.dataset_stats(datasets[kind], kind)
            rows.append({"dataset": kind, **stats,
                         **{f"paper_{c}": paper[kind][c] for c in stats if c in paper.get(kind, {})}})
    return _int_counts(pd.DataFrame(rows)) if rows else None


def table2_rebalance(results: dict, *, with_paper: bool = False) -> pd.DataFrame:
    """Table 2 re-made (Tier B): a fresh seeded re-run of Algorithm 1 on the universe, with its spread.

    ``results``: {dataset name or (dataset, mode): Balanced}. Columns: ``dataset[, mode], runs,
    selected_run``, the five criteria of the run this re-run selects, and ``*_runs_min``,
    ``*_runs_mean``, ``*_runs_max`` of each over all finished runs. ``with_paper`` adds the
    ``paper_*`` values (the paper's selected run, which a re-run need not draw again). Meaningful
    next to the released universe only.
    """
    paper = at_published.published_rows("at-tab2") if with_paper else {}
    rows = []
    for key, res in results.items():
        best = res.best_stats
        name, mode = key if isinstance(key, tuple) else (key, None)
        row = {"dataset": name, **({"mode": mode} if mode else {}), "runs": len(res.run_stats), "selected_run": res.best_run}
        row.update({c: best[c] for c in TABLE2_CRITERIA})
        for stat in ("min", "mean", "max"):
            row.update({f"{c}_runs_{stat}": float(res.run_stats[c].agg(stat)) for c in TABLE2_CRITERIA})
        row.update({f"paper_{c}": paper[res.kind][c] for c in TABLE2_CRITERIA if c in paper.get(res.kind, {})})
        rows.append(row)
    return _int_counts(pd.DataFrame(rows))


def _int_counts(out: pd.DataFrame) -> pd.DataFrame:
    """Authors and quotes per group (and the paper's) as integers."""
    for c in ("authors_per_group", "quotes_per_group"):
        out[c] = out[c].astype(int)
        if f"paper_{c}" in out and out[f"paper_{c}"].notna().all():
            out[f"paper_{c}"] = out[f"paper_{c}"].astype(int)
    return out


def table3(universe: pd.DataFrame, *, mode: Mode = "faithful", lower_fame: float = LOWER_FAME_BOUND) -> pd.DataFrame:
    """Table 3: mean fame (log10_hits) by race and by intersectional subgroup before balancing (A.2).

    Population (quirk ``table3_population``, :mod:`lib.attribution.quirks`): ``faithful`` takes
    every author of the universe, the "sampled JSTET data" of the paper's caption: the release
    has no Table 3 script, and it is the population whose gaps A.2's text gives (White male
    highest, about half a point above Black female; White about half a point above Asian);
    ``corrected`` keeps the authors with log10_hits ≥ ``lower_fame``, the pool Algorithm 1
    draws from (``mk_new_datasets.py`` filters before balancing), i.e. the gaps the balancing
    actually removes. Rows: the multirace partition (Asian, Black, Latino, White) then the
    intersectional one (Black/White × F/M); columns ``partition, subgroup, n_authors,
    mean_log10_hits, sd_log10_hits``, and ``gap_to_top`` = the partition's highest mean minus
    this subgroup's mean.
    """
    if mode not in ("faithful", "corrected"):
        raise ValueError(f"table3: mode must be 'faithful' or 'corrected', got {mode!r}")
    u = universe if mode == "faithful" else universe[universe["log10_hits"] >= lower_fame]
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


def table4(datasets: dict[str, pd.DataFrame] | None) -> pd.DataFrame | None:
    """Table 4: unique authors per subgroup whose gender / race label came from Wikidata (A.4.3).

    ``datasets``: kind → quote-level table with ``gender_source``/``race_source`` (None: the
    datasets are not there, and neither is the table).
    Columns ``dataset, subgroup, n_authors, gender_wikidata, gender_wikidata_pct, race_wikidata,
    race_wikidata_pct``; the remaining labels came from LLM consensus.
    """
    if datasets is None:
        return None
    parts = []
    for kind, df in datasets.items():
        name = kind
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
