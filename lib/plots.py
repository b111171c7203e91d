"""Shared figure style and the recurring figure types of the three papers.

Every function takes a tidy (long) table and returns a :class:`matplotlib.figure.Figure`; it
never saves (the notebook calls :func:`lib.artifacts.save_figure`). Tests inspect the plotted
data (line x/y, band vertices, bar widths and labels), so each function draws exactly what its
table holds, in the given orders, and labels every artist with its hue value.

- :func:`paper_style`: a context manager with a paper-like rcParams set (the LLMScholarBench
  notebooks use seaborn's "paper" context at font scale 1.55, DejaVu Sans, grey 8-pt ticks,
  reference §3.1); figures built inside it keep the style when saved.
- colours, display labels and orders of a paper's group values are the paper package's
  (e.g. :data:`lib.scholar.models.GROUP_PALETTE`); the functions take them as arguments.
- :func:`line_grid`: a grid of line charts with shaded confidence bands (rows × metric panels,
  one line per hue; LLMScholarBench Fig. 3 and C.12).
- :func:`line_handles`: the first line per label over panels, for a shared legend;
  :func:`freeze_ticks`: fixes the ticks of many identical panels to the first one's (speed).
- :func:`share_bars`: horizontal bars of shares per category, faceted by column (and row), with
  bars per hue side by side or stacked, and an optional "N=" note per panel (Fig. A.3–A.5).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import contextmanager

import matplotlib

matplotlib.use("Agg")  # noqa: E402  (headless: papermill and the tests)
import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd

#: rcParams of the paper-like style (sizes follow seaborn's "paper" context × 1.55, reference §3.1).
PAPER_RC = {
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#828282",
    "axes.grid": True,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.6,
    "xtick.labelsize": 8.0,
    "ytick.labelsize": 8.0,
    "xtick.color": "#828282",
    "ytick.color": "#828282",
    "legend.fontsize": 8.0,
    "legend.frameon": False,
    "lines.linewidth": 1.4,
    "lines.markersize": 4.0,
    "figure.dpi": 100,
    "savefig.dpi": 300,
    "pdf.fonttype": 42,  # embed TrueType, editable text in the PDF
}

@contextmanager
def paper_style(rc: Mapping | None = None):
    """Apply :data:`PAPER_RC` (updated by ``rc``) for the duration of the ``with`` block."""
    with plt.rc_context({**PAPER_RC, **(rc or {})}):
        yield


def palette_for(values: Sequence, palette: Mapping[str, str] | None = None) -> dict:
    """A colour per value: ``palette``'s where it has one, else matplotlib's tab10/tab20 cycle in
    the order given."""
    base = dict(palette or {})
    cycle = plt.get_cmap("tab10" if len(values) <= 10 else "tab20").colors
    return {v: base.get(str(v), cycle[i % len(cycle)]) for i, v in enumerate(values)}


def ordered_values(df: pd.DataFrame, col: str, given: Sequence | None, *, keep_all: bool = False) -> list:
    """Values of ``col`` in the ``given`` order, then the others as they appear; ``keep_all``
    keeps given values that have no row (a panel slot that says "no data")."""
    present = list(dict.fromkeys(df[col].tolist()))
    if given is None:
        return present
    return [v for v in given if keep_all or v in set(present)] + [v for v in present if v not in set(given)]


def line_grid(df: pd.DataFrame, *, x: str, y: str = "mean", low: str = "ci_low", high: str = "ci_high",
              hue: str, col: str, row: str | None = None, hue_order: Sequence | None = None,
              col_order: Sequence | None = None, row_order: Sequence | None = None,
              palette: Mapping | None = None, labels: Mapping | None = None,
              col_titles: Mapping | None = None, row_titles: Mapping | None = None,
              ylim: tuple[float, float] | None = (0.0, 1.05), band_alpha: float = 0.18,
              panel_size: tuple[float, float] = (2.2, 1.9), legend: str = "row", xlabel: str | None = None,
              row_title_rotation: float = 90, suptitle: str | None = None):
    """A grid of line charts with confidence bands: one panel per (row, col), one line per hue.

    Each line joins ``y`` over ``x`` (sorted) with markers; the band fills ``low``..``high``
    (NaN bounds leave gaps, e.g. a single value's t-interval). ``legend='row'`` puts one legend
    per row right of its last panel, ``'figure'`` one legend of every hue above the grid (for many
    rows), ``'none'`` none. ``row_title_rotation=0`` writes long row titles (model names)
    horizontally. Every
    line is labelled with its hue's display label (``labels``; the value itself when absent).
    Every value of ``col_order``/``row_order`` gets a panel; panels without data say "no data". Returns the figure; the axes grid is
    ``fig.axes`` in row-major order.
    """
    if legend not in ("row", "figure", "none"):
        raise ValueError(f"line_grid: legend must be 'row', 'figure' or 'none', got {legend!r}")
    need = [x, y, low, high, hue, col] + ([row] if row else [])
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise KeyError(f"line_grid: table lacks column(s) {missing}; has {list(df.columns)}")
    labels = dict(labels or {})
    cols = ordered_values(df, col, col_order, keep_all=True)
    rows = ordered_values(df, row, row_order, keep_all=True) if row else [None]
    with paper_style():
        fig, axes = plt.subplots(len(rows), len(cols), squeeze=False, sharex=True,
                                 figsize=(panel_size[0] * len(cols), panel_size[1] * len(rows)))
        for i, r in enumerate(rows):
            sub_r = df if r is None else df[df[row] == r]
            hues = ordered_values(sub_r, hue, hue_order)
            colors = palette_for(hues, palette)
            for j, c in enumerate(cols):
                ax = axes[i][j]
                sub = sub_r[sub_r[col] == c]
                for h in hues:
                    d = sub[sub[hue] == h].sort_values(x)
                    if d.empty:
                        continue
                    xs = d[x].to_numpy(float)
                    ax.plot(xs, d[y].to_numpy(float), marker="o", color=colors[h], label=labels.get(h, str(h)))
                    ax.fill_between(xs, d[low].to_numpy(float), d[high].to_numpy(float), color=colors[h],
                                    alpha=band_alpha, linewidth=0, label="_band")
                if sub.empty:
                    ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="#828282")
                if i == 0:
                    ax.set_title((col_titles or {}).get(c, str(c)))
                if j == 0 and r is not None:
                    ax.set_ylabel((row_titles or {}).get(r, str(r)), rotation=row_title_rotation,
                                  ha="center" if row_title_rotation else "right",
                                  va="bottom" if row_title_rotation else "center")
                if i == len(rows) - 1:
                    ax.set_xlabel(xlabel if xlabel is not None else x)
                if ylim is not None:
                    ax.set_ylim(*ylim)
            if legend == "row":
                seen = line_handles(axes[i])
                if seen:
                    axes[i][-1].legend(list(seen.values()), list(seen), loc="center left", bbox_to_anchor=(1.02, 0.5))
        if suptitle:
            fig.suptitle(suptitle)
        fig.tight_layout()
        if legend == "figure":
            seen = line_handles(axes.ravel())
            if seen:
                fig.legend(list(seen.values()), list(seen), loc="lower center", bbox_to_anchor=(0.5, 1.0),
                           ncol=min(len(seen), 6))
    return fig


def line_handles(axes) -> dict:
    """The first line per label over ``axes``, in drawing order, for a legend shared by panels
    (``{label: Line2D}``); lines labelled "_..." (matplotlib's hidden labels) are skipped and
    bands are collections, so they never appear."""
    seen: dict[str, object] = {}
    for a in axes:
        for hd in a.get_lines():
            label = hd.get_label()
            if not label.startswith("_"):
                seen.setdefault(label, hd)
    return seen


def freeze_ticks(axes) -> None:
    """Fix the tick positions of panels that share the first panel's limits and size to the
    positions its locator chooses now, those inside the view (the ones drawn; call once the
    layout is final).

    Such panels get the same automatic ticks anyway; without this matplotlib re-runs every
    panel's locator at every draw (twice per ``bbox_inches="tight"`` save), seconds on the
    ~200 panels of a per-model figure. Axes already on fixed ticks, or with other limits or
    size, are left alone.
    """
    axes = list(axes)
    if not axes:
        return
    first = axes[0]
    size = first.get_position().size
    same = [a for a in axes if np.allclose(a.get_position().size, size, rtol=1e-9, atol=0)]
    for name, lim in (("xaxis", "get_xlim"), ("yaxis", "get_ylim")):
        axis = getattr(first, name)
        if isinstance(axis.get_major_locator(), mticker.FixedLocator):
            continue
        lo, hi = sorted(axis.get_view_interval())
        tol = 1e-10 * (hi - lo)  # as matplotlib's own test of which ticks to draw
        locs = [v for v in axis.get_majorticklocs() if lo - tol <= v <= hi + tol]
        for a in same:
            if np.allclose(getattr(a, lim)(), getattr(first, lim)(), rtol=1e-12, atol=0):
                getattr(a, name).set_major_locator(mticker.FixedLocator(locs))


def share_bars(df: pd.DataFrame, *, category: str, value: str = "share", col: str,
               row: str | None = None, hue: str | None = None, stacked: bool = False,
               category_order: Sequence | None = None, col_order: Sequence | None = None,
               row_order: Sequence | None = None, hue_order: Sequence | None = None,
               palette: Mapping | None = None, labels: Mapping | None = None,
               col_titles: Mapping | None = None, row_titles: Mapping | None = None,
               note: str | None = None, xlim: tuple[float, float] | None = (0.0, 1.0),
               panel_size: tuple[float, float] = (2.6, 1.8), value_label: str = "proportion"):
    """Horizontal bars of shares: one panel per (row, col), one bar group per ``category``.

    Without ``hue`` each category gets one grey bar; with ``hue`` the hue values are side by side
    within the category (``stacked=False``) or stacked left to right (``stacked=True``), each bar
    labelled with its hue's display label. ``note`` names a column whose (first) value per panel
    is written in the panel's lower right corner (e.g. "N=1,234"). Categories of
    ``category_order`` and every value of ``col_order``/``row_order`` keep their slot even without
    data. Returns the figure; each hue is one ``ax.containers`` BarContainer labelled with its
    display label, whose bars (one per category, in order) have width = the share.
    """
    need = [category, value, col] + [c for c in (row, hue, note) if c]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise KeyError(f"share_bars: table lacks column(s) {missing}; has {list(df.columns)}")
    labels = dict(labels or {})
    cats = list(category_order) if category_order is not None else ordered_values(df, category, None)
    cols = ordered_values(df, col, col_order, keep_all=True)
    rows = ordered_values(df, row, row_order, keep_all=True) if row else [None]
    with paper_style({"axes.grid": False}):
        fig, axes = plt.subplots(len(rows), len(cols), squeeze=False, sharey=True,
                                 figsize=(panel_size[0] * len(cols), panel_size[1] * len(rows) + 0.3))
        axes[0][0].invert_yaxis()  # shared by every panel: first category on top
        for i, r in enumerate(rows):
            sub_r = df if r is None else df[df[row] == r]
            hues = ordered_values(sub_r, hue, hue_order) if hue else [None]
            colors = palette_for(hues, palette) if hue else {None: "#9a9a9a"}
            for j, c in enumerate(cols):
                ax = axes[i][j]
                sub = sub_r[sub_r[col] == c]
                ypos = np.arange(len(cats), dtype=float)
                height = 0.8 if (stacked or not hue) else 0.8 / len(hues)
                left = np.zeros(len(cats))
                for k, h in enumerate(hues):
                    d = sub if h is None else sub[sub[hue] == h]
                    vals = d.groupby(category)[value].sum().reindex(cats).fillna(0.0).to_numpy(float)
                    if stacked or not hue:
                        y = ypos
                    else:
                        y = ypos - 0.4 + height * (k + 0.5)
                    ax.barh(y, vals, height=height, left=left if stacked else None, color=colors[h],
                            label="_nolegend_" if h is None else labels.get(h, str(h)))
                    if stacked:
                        left = left + vals
                ax.set_yticks(ypos, [str(v) for v in cats])
                if xlim is not None:
                    ax.set_xlim(*xlim)
                if i == 0:
                    ax.set_title((col_titles or {}).get(c, str(c)))
                if j == 0 and r is not None:
                    ax.set_ylabel((row_titles or {}).get(r, str(r)))
                if i == len(rows) - 1:
                    ax.set_xlabel(value_label)
                if note and not sub.empty:
                    ax.text(0.97, 0.03, str(sub[note].iloc[0]), ha="right", va="bottom", transform=ax.transAxes,
                            fontsize=7, color="#555555")
            if hue:
                handles, names = axes[i][0].get_legend_handles_labels()
                for a in axes[i][1:]:
                    hs, ns = a.get_legend_handles_labels()
                    handles += hs
                    names += ns
                seen = dict(zip(names, handles))
                if seen:
                    axes[i][-1].legend(list(seen.values()), list(seen), loc="center left", bbox_to_anchor=(1.02, 0.5))
        fig.tight_layout()
    return fig
