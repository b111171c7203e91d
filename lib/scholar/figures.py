"""LLMScholarBench's benchmark figures: Fig. 2 and Fig. C.7–C.11 (reference §3.1, ``3_infrastructure``).

Every figure is a grid of horizontal-bar panels drawn by :func:`metric_bars` from a table of
:func:`lib.scholar.aggregate.aggregate` (group_kind, group, metric_name, mean, ci_low, ci_high,
best): one bar per group (infrastructure group, model or task parameter) with its mean, a 95 %
CI error bar (Wilson or t, as aggregated), the value written to 2 d.p., in bold where ``best``
(the paper's best-in-group rule). It uses :func:`lib.plots.paper_style` and its palettes, never
saves, and draws exactly what its table holds, so tests can read bars, error bars and labels.

- :func:`infrastructure_figure` (Fig. 2): rows Access / Size / Reasoning × the nine metrics.
- :func:`by_model_figure` (Fig. C.7, C.8): one bar per model coloured by provider family;
  :func:`social_by_model_figure` (Fig. C.9): (a) diversity and (b) parity rows × 4 attributes.
- :func:`by_task_figure` (Fig. C.10, C.11): one bar per task parameter (tab20 colours).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lib import plots
from lib.scholar import models

#: Panel titles: arrows mark the direction of preference (paper §4).
METRIC_TITLES = {
    "refusal_pct": "Refusals", "validity_pct": "Validity ↑", "duplicates": "Duplicates ↓",
    "consistency": "Consistency", "factuality_author": "Factuality ↑", "connectedness": "Connectedness",
    "similarity_pca": "Similarity", "diversity_gender": "Diversity [gender]", "parity_gender": "Parity ↑ [gender]",
    "factuality_field": "Field ↑", "factuality_epoch": "Epoch ↑", "factuality_seniority": "Seniority ↑",
    "diversity_ethnicity": "Diversity [ethnicity]", "diversity_prominence_pub": "Diversity [publications]",
    "diversity_prominence_cit": "Diversity [citations]", "parity_ethnicity": "Parity ↑ [ethnicity]",
    "parity_prominence_pub": "Parity ↑ [publications]", "parity_prominence_cit": "Parity ↑ [citations]",
}
#: Why a panel can be empty: consistency needs two runs of a configuration (eq. 4).
MISSING_NOTES = {"consistency": "no data\n(needs ≥ 2 runs)"}
#: One colour per provider family (reference §2.11: tab10 in this order).
FAMILY_ORDER = ("deepseek", "gemma", "gemini", "grok", "gpt", "llama", "mistral", "qwen3")
FAMILY_PALETTE = {f: plt.get_cmap("tab10").colors[i] for i, f in enumerate(FAMILY_ORDER)}
#: Refusal reasons (lib.scholar.refusals.DISPLAY_ORDER) in a fixed palette.
REASON_COLORS: dict[str, str] = {
    "Contradictory request": "#4c72b0", "Lack of information": "#dd8452",
    "Unethical request": "#c44e52", "Other or no explanation": "#8c8c8c",
}
#: The default colours of LLMScholarBench figures: infrastructure groups and refusal reasons.
PALETTE = {**models.GROUP_PALETTE, **REASON_COLORS}


def metric_bars(agg: pd.DataFrame, *, category: str = "group", col: str = "metric_name", row: str | None = None,
                category_order: Sequence | None = None, col_order: Sequence | None = None,
                row_order: Sequence | None = None, colors: Mapping | None = None,
                labels: Mapping | None = None, col_titles: Mapping | None = None,
                row_titles: Mapping | None = None, missing_notes: Mapping | None = None,
                decimals: int = 2, panel_size: tuple[float, float] = (1.9, 0.28),
                suptitle: str | None = None):
    """A grid of horizontal mean ± CI bars: one panel per (row, col), one bar per category.

    Within a row the categories are those of ``category_order`` that have a row in the table (in
    that order; then any other), the first on top, so a panel's bars line up with its row's
    labels. Each bar's width is ``mean``; its error bar spans ``ci_low``..``ci_high`` (no bar
    where a bound is NaN); its value is written at the bar end to ``decimals`` places, bold
    where the table's ``best`` is true. Every value of ``col_order``/``row_order`` gets a panel and
    only those are drawn (the table may hold more metrics);
    a panel without values says "no data" (or ``missing_notes[col value]``). Each panel's x axis
    spans 0–1, widened to its data when a bound or a mean passes 1 or 0 (t-intervals are unclipped).

    Returns the figure; ``fig.axes`` is the grid in row-major order. In each panel,
    ``ax.containers[0]`` is the BarContainer (bar i = category i, labelled via the y tick
    labels), ``ax.containers[1]`` the ErrorbarContainer, and ``ax.texts`` the value labels.
    """
    need = [category, col, "mean", "ci_low", "ci_high"] + ([row] if row else [])
    missing = [c for c in need if c not in agg.columns]
    if missing:
        raise KeyError(f"metric_bars: aggregate table lacks column(s) {missing}; has {list(agg.columns)}")
    if col_order is not None:  # draw only the given panels
        agg = agg[agg[col].isin(list(col_order))]
    if row is not None and row_order is not None:
        agg = agg[agg[row].isin(list(row_order))]
    best = agg["best"].astype(bool) if "best" in agg.columns else pd.Series(False, index=agg.index)
    agg = agg.assign(_best=best)
    labels = {**models.GROUP_LABELS, **(labels or {})}
    notes = {**MISSING_NOTES, **(missing_notes or {})}
    cols = plots.ordered_values(agg, col, col_order, keep_all=True)
    rows = plots.ordered_values(agg, row, row_order, keep_all=True) if row else [None]
    row_cats = {r: plots.ordered_values(agg if r is None else agg[agg[row] == r], category, category_order) for r in rows}
    every = list(dict.fromkeys(c for r in rows for c in row_cats[r]))
    palette = plots.palette_for(every, {**PALETTE, **(colors or {})})
    heights = [max(len(row_cats[r]), 1) * panel_size[1] + 0.5 for r in rows]
    with plots.paper_style({"axes.grid": False}):
        fig, axes = plt.subplots(len(rows), len(cols), squeeze=False,
                                 figsize=(panel_size[0] * len(cols) + 1.2, sum(heights)),
                                 gridspec_kw={"height_ratios": heights})
        for i, r in enumerate(rows):
            sub_r = agg if r is None else agg[agg[row] == r]
            cats = row_cats[r]
            ypos = np.arange(len(cats), dtype=float)
            for j, c in enumerate(cols):
                ax = axes[i][j]
                d = sub_r[sub_r[col] == c].drop_duplicates(category).set_index(category).reindex(cats)
                mean = d["mean"].to_numpy(float)
                lo_b, hi_b = d["ci_low"].to_numpy(float), d["ci_high"].to_numpy(float)
                ax.barh(ypos, np.nan_to_num(mean), height=0.75, color=[palette[k] for k in cats])
                xlim = _xlim(mean, lo_b, hi_b)
                ok = np.isfinite(mean)
                err = np.vstack([mean - lo_b, hi_b - mean])[:, ok]
                ax.errorbar(mean[ok], ypos[ok], xerr=np.clip(np.where(np.isfinite(err), err, 0.0), 0.0, None),
                            fmt="none", ecolor="#333333", elinewidth=0.8, capsize=1.5)
                for y, v, top, b in zip(ypos, mean, np.fmax(hi_b, mean), d["_best"].eq(True).to_numpy(bool)):
                    if np.isfinite(v):
                        ax.text((top if np.isfinite(top) else v) + 0.02 * (xlim[1] - xlim[0]), y, f"{v:.{decimals}f}",
                                va="center", ha="left", fontsize=6.5,
                                fontweight="bold" if b else "normal", color="#222222")
                if not np.isfinite(mean).any():
                    ax.text(0.5, 0.5, notes.get(c, "no data"), ha="center", va="center", transform=ax.transAxes,
                            color="#828282", fontsize=7)
                ax.set_xlim(*xlim)
                ax.set_ylim(max(len(cats), 1) - 0.5, -0.5)  # first category on top
                ax.set_yticks(ypos, [labels.get(k, str(k)) for k in cats] if j == 0 else [""] * len(cats))
                ax.tick_params(axis="y", length=0)
                if i == 0:
                    ax.set_title((col_titles or METRIC_TITLES).get(c, str(c)), fontsize=8)
                if j == 0 and r is not None:
                    ax.set_ylabel((row_titles or {}).get(r, str(r)))
        if suptitle:
            fig.suptitle(suptitle)
        fig.tight_layout()
    return fig


def _xlim(*arrays) -> tuple[float, float]:
    """0–1, widened to the finite values (plus room for the value labels)."""
    v = np.concatenate([np.asarray(a, float) for a in arrays])
    v = v[np.isfinite(v)]
    lo = min(0.0, float(v.min())) if v.size else 0.0
    hi = max(1.0, float(v.max())) if v.size else 1.0
    return (lo - 0.05 * (hi - lo) * (lo < 0), hi + 0.22 * (hi - lo))


def infrastructure_figure(agg: pd.DataFrame, metrics: Sequence[str]):
    """Fig. 2: rows Access (Open, Proprietary), Size (S, M, L, XL), Reasoning (Disabled, Enabled)
    × ``metrics`` panels; bars coloured by :data:`lib.scholar.models.GROUP_PALETTE`. ``agg``:
    :func:`lib.scholar.aggregate.aggregate` over access, size_class, model_class."""
    kinds = tuple(models.GROUP_ORDER)
    order = [v for k in kinds for v in models.GROUP_ORDER[k]]
    return metric_bars(agg, row="group_kind", row_order=kinds, col_order=metrics, category_order=order,
                       row_titles=models.GROUP_TITLES)


def _family_colors(families: Mapping[str, str]) -> dict:
    return {m: FAMILY_PALETTE.get(f, "#7f7f7f") for m, f in families.items()}


def by_model_figure(agg: pd.DataFrame, metrics: Sequence[str], *, families: Mapping[str, str],
                    model_order: Sequence[str] | None = None):
    """Fig. C.7 / C.8: one bar per model (``agg`` grouped by model), coloured by provider family
    (``families``: model → family, colours :data:`FAMILY_PALETTE`), one panel per metric."""
    return metric_bars(agg, col_order=metrics, category_order=model_order, colors=_family_colors(families))


def social_by_model_figure(agg: pd.DataFrame, *, families: Mapping[str, str],
                           model_order: Sequence[str] | None = None,
                           attributes: Sequence[str] = ("gender", "ethnicity", "prominence_pub", "prominence_cit")):
    """Fig. C.9: row (a) diversity and row (b) parity × one panel per attribute (gender,
    ethnicity, publication and citation prominence), one bar per model coloured by family.
    ``agg``: :func:`lib.scholar.aggregate.aggregate` by model over diversity_* and parity_*."""
    d = agg[agg["metric_name"].str.match(r"^(diversity|parity)_")].copy()
    d["kind"] = d["metric_name"].str.split("_").str[0]
    d["attribute"] = d["metric_name"].str.split("_", n=1).str[1]
    titles = {"gender": "Gender", "ethnicity": "Ethnicity", "prominence_pub": "Publications",
              "prominence_cit": "Citations"}
    return metric_bars(d, col="attribute", row="kind", row_order=("diversity", "parity"), col_order=attributes,
                       category_order=model_order, colors=_family_colors(families), col_titles=titles,
                       row_titles={"diversity": "(a) Diversity", "parity": "(b) Parity ↑"})


def by_task_figure(agg: pd.DataFrame, metrics: Sequence[str], *, param_order: Sequence[str] | None = None,
                   col_titles: Mapping | None = None):
    """Fig. C.10 / C.11: one bar per task parameter (``agg`` grouped by param; tab20 colours in
    ``param_order``), one panel per metric."""
    params = list(param_order) if param_order is not None else list(dict.fromkeys(agg["group"]))
    cmap = plt.get_cmap("tab20").colors
    colors = {p: cmap[i % len(cmap)] for i, p in enumerate(params)}
    return metric_bars(agg, col_order=metrics, category_order=params, colors=colors,
                       col_titles={**METRIC_TITLES, **(col_titles or {})})
