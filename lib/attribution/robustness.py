"""Fame-proxy robustness: search hits vs a corpus name count (paper A.7.1, Figures 11–12).

The paper compares log10 Google hits (no +1) with log10(Dolma count + 1) per author: Pearson
and Spearman correlations overall and per subgroup, and how far authors move between fame
deciles (``pd.qcut`` into 10) when the proxy changes (reference B.2, ``analyze_dolma_vs_google``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from lib.attribution import dataset as ds


def authors_with_proxies(df: pd.DataFrame, kind: ds.DatasetKind) -> pd.DataFrame:
    """Author-level table ``author_clean, subgroup, log10_google, log10_corpus`` from a quote table
    carrying ``log10_hits`` and ``dolma_count``."""
    if "dolma_count" not in df:
        raise ValueError("authors_with_proxies: no 'dolma_count' column (corpus-count fame proxy)")
    a = df.drop_duplicates("author_clean")
    return pd.DataFrame({"author_clean": a["author_clean"].to_numpy(),
                         "subgroup": np.asarray(ds.subgroup_labels(a, kind)),
                         "log10_google": a["log10_hits"].to_numpy(float),
                         "log10_corpus": np.log10(a["dolma_count"].to_numpy(float) + 1.0)})


def proxy_correlations(authors: pd.DataFrame) -> pd.DataFrame:
    """Pearson r and Spearman ρ of the two proxies, overall (``subgroup = 'all'``) and per subgroup."""
    rows = []
    for name, g in [("all", authors), *authors.groupby("subgroup", sort=True)]:
        if len(g) < 3:
            continue
        rows.append({"subgroup": name, "n_authors": len(g),
                     "pearson_r": float(st.pearsonr(g["log10_google"], g["log10_corpus"])[0]),
                     "spearman_rho": float(st.spearmanr(g["log10_google"], g["log10_corpus"])[0])})
    return pd.DataFrame(rows)


def deciles(authors: pd.DataFrame) -> pd.DataFrame:
    """Each author's fame decile (1–10, ``pd.qcut`` of first-order ranks) under both proxies."""
    out = authors.copy()
    out["decile_google"] = pd.qcut(out["log10_google"].rank(method="first"), 10, labels=False) + 1
    out["decile_corpus"] = pd.qcut(out["log10_corpus"].rank(method="first"), 10, labels=False) + 1
    return out


def decile_agreement(authors: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Row-normalised crosstab (Google decile × corpus decile, shares per row) and shift summary:
    ``same_decile_pct``, ``within1_pct``, ``within2_pct``, ``mean_abs_shift``, ``max_abs_shift``.

    The corpus proxy has ties at 0 (names never seen); deciles are taken on first-order ranks so
    that all ten bins exist and have equal size (the reference applies ``qcut`` to the values).
    """
    d = deciles(authors)
    shift = (d["decile_corpus"] - d["decile_google"]).abs()
    summary = {"same_decile_pct": 100.0 * float((shift == 0).mean()), "within1_pct": 100.0 * float((shift <= 1).mean()),
               "within2_pct": 100.0 * float((shift <= 2).mean()), "mean_abs_shift": float(shift.mean()),
               "max_abs_shift": int(shift.max())}
    tab = pd.crosstab(d["decile_google"], d["decile_corpus"], normalize="index")
    return tab, summary


def proxies(datasets: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """{dataset: :func:`authors_with_proxies`} of each quote table (Figures 11 and 12)."""
    return {k: authors_with_proxies(v, k) for k, v in datasets.items()}


def correlation_lines(proxy_authors: dict[str, pd.DataFrame]) -> str:
    """One line per dataset: its name and :func:`proxy_correlations` as records, rounded to 3 decimals."""
    return "\n".join(f"{k} {proxy_correlations(a).round(3).to_dict('records')}" for k, a in proxy_authors.items())


def decile_agreements(proxy_authors: dict[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, dict]]:
    """{dataset: :func:`decile_agreement`} (Figure 12's heatmaps and their shift summaries)."""
    return {k: decile_agreement(a) for k, a in proxy_authors.items()}


def decile_summary(agreements: dict[str, tuple[pd.DataFrame, dict]]) -> dict[str, dict[str, float]]:
    """The shift summaries of :func:`decile_agreements`, rounded to 2 decimals, per dataset."""
    return {k: {m: round(v, 2) for m, v in s.items()} for k, (_, s) in agreements.items()}
