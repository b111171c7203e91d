"""Figures of LLMScholarBench's intervention analyses: temperature (paper Fig. 3, C.12), from the
curves of :func:`lib.scholar.interventions.temperature_curves`, and constrained prompting, RAG and
quadrants (Fig. 4, 5, C.13–C.18), from the tables of :mod:`lib.scholar.constrained`, in
:mod:`lib.plots`' style.

Temperature figures (reference §3.1 "4_inter_temperature") are line panels of the nine Fig. 2
metrics: x = temperature, one line per group with markers, band = 95 % CI, y from 0 to 1.05
(:func:`lib.plots.line_grid` for Fig. 3; :func:`fan_grid`'s unshared axes for the per-model C.12).

Before/after "fans" (reference §3.1 notebooks 5 and 6) are line panels (line_grid's layout) with
x = B (0) and A (1): one line per constrained variant (or per task for RAG) from the shared
baseline point to the intervention, band = 95 % CI. Every requested panel is drawn; a panel (or a
whole figure) without data says "no data" instead of failing, so a profile that collected no
constrained or grounded runs still produces every artifact.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.collections as mcoll
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lib import plots
from lib.scholar import aggregate as ag
from lib.scholar import constrained as cp
from lib.scholar import interventions as iv
from lib.scholar import refusals
from lib.scholar.figures import PALETTE
from lib.scholar.models import GROUP_LABELS, GROUP_ORDER, GROUP_TITLES

#: Variant colours as in the reference's fans (Equal grey, female orange, male blue, neutral green).
VARIANT_PALETTE = {"Equal": "#8c8c8c", "Only female": "#dd8452", "Only male": "#4c72b0", "Only neutral": "#55a868",
                   "Only Asian": "#8172b3", "Only White": "#4c72b0", "Only Latino": "#937860", "Only Black": "#c44e52",
                   "Lowly cited only": "#dd8452", "Highly cited only": "#4c72b0", "Diverse": "#da8bc3"}
TASK_ORDER = ("top_k", "field", "epoch", "seniority", "twins-real", "twins-fake")
NO_DATA = "no data"
#: The nine panels of Fig. 3 and C.12: the Fig. 2 headline metrics (reference §3.1 PANELS_METRICS).
TEMPERATURE_METRICS = ag.HEADLINE_METRICS
#: Fig. A.5's task order (twins split into real and fake reference persons)
REFUSAL_TASK_ORDER = ("top_k", "field", "epoch", "seniority", "twins-real", "twins-fake", "biased_top_k")


def _temperature_ylim(curves: pd.DataFrame) -> tuple[float, float]:
    """y from 0 to 1.05 (the reference's panels), raised when a mean passes 1: faithful
    diversity counts "Unknown" as a category and can exceed 1 (reference §2.8)."""
    top = curves["mean"].max() if not curves.empty else float("nan")
    return (0.0, max(1.05, float(top) + 0.05)) if pd.notna(top) else (0.0, 1.05)


def temperature_grid(curves: pd.DataFrame, *, metrics: Sequence[str] = TEMPERATURE_METRICS):
    """Fig. 3: rows Access, Size, Reasoning × one panel per metric of ``metrics`` (default the
    nine of Fig. 2), x = temperature, one line per group value with markers, band = 95 % CI.

    ``curves``: :func:`lib.scholar.interventions.temperature_curves` over the infrastructure
    groups (group_kind, group, temperature, metric_name, mean, ci_low, ci_high). Each row's
    legend sits in its Duplicates panel, as in the reference (right of the row's last panel when
    ``metrics`` lacks duplicates). Every panel is drawn; one without data says "no data"; rows
    of other metrics are left out.
    """
    hue_order = [v for g in iv.GROUP_COLUMNS for v in GROUP_ORDER[g]]
    metrics = list(metrics)
    curves = curves[curves["metric_name"].isin(metrics)]  # other metrics would add columns
    fig = plots.line_grid(curves, x="temperature", hue="group", col="metric_name", row="group_kind",
                          col_order=metrics, row_order=iv.GROUP_COLUMNS, hue_order=hue_order,
                          palette=PALETTE, labels=GROUP_LABELS,
                          col_titles=cp.METRIC_TITLES, row_titles=GROUP_TITLES, xlabel="temperature",
                          ylim=_temperature_ylim(curves), legend="none")
    axes = fig.axes
    j = metrics.index("duplicates") if "duplicates" in metrics else None
    with plots.paper_style():
        for i in range(len(axes) // len(metrics)):
            row = axes[i * len(metrics):(i + 1) * len(metrics)]
            handles = plots.line_handles(row)
            if not handles:
                continue
            if j is None:
                row[-1].legend(list(handles.values()), list(handles), loc="center left", bbox_to_anchor=(1.02, 0.5))
            else:
                row[j].legend(list(handles.values()), list(handles), loc="upper right")
    return fig


def temperature_by_model(model_curves: pd.DataFrame, *, metrics: Sequence[str] = TEMPERATURE_METRICS,
                         models: Sequence[str] | None = None):
    """Fig. C.12: one row per model (``models`` order, default as in ``model_curves``) × one panel
    per metric, x = temperature, the model's line coloured by its access group, band = 95 % CI,
    one legend above the grid.

    ``model_curves``: :func:`lib.scholar.interventions.temperature_curves` with
    ``groups=("model",)`` and an ``access`` column (the model's access group). Drawn with
    :func:`fan_grid`'s unshared axes: :func:`lib.plots.line_grid` shares x, which takes minutes
    over 24 models × 9 panels.
    """
    model_curves = model_curves[model_curves["metric_name"].isin(list(metrics))]
    return fan_grid(model_curves, hue="access", metrics=list(metrics), row="group", row_order=models,
                    hue_order=list(GROUP_ORDER["access"]), legend="figure", row_title_rotation=0,
                    panel_size=(1.9, 1.2), x="temperature", xlabel="temperature",
                    ylim=_temperature_ylim(model_curves))


def fan_grid(table: pd.DataFrame, *, hue: str, metrics: Sequence[str], row: str | None = None,
             row_order: Sequence | None = None, row_titles: Mapping | None = None,
             hue_order: Sequence | None = None, palette: Mapping | None = None, suptitle: str | None = None,
             panel_size: tuple[float, float] = (1.7, 1.6), legend: str = "row", row_title_rotation: float = 90,
             x: str = "x", xlabel: str | None = None, ylim: tuple[float, float] | None = None):
    """Before/after panels: one column per metric, one line per ``hue`` from B (x=0) to A (x=1),
    band = ci_low..ci_high, y from −0.1 to 1.1 as the reference's fans (higher when a mean exceeds 1).

    The :func:`lib.plots.line_grid` layout without shared axes: sharing x across the hundreds of
    panels of a per-model figure makes matplotlib's limit updates quadratic (minutes per figure).
    Every requested panel is drawn; one without rows says "no data"; an empty table gets one row.
    Another ``x`` column (e.g. temperature) draws plain line panels over that column instead of
    the B/A axis: every panel spans the table's x range, the bottom row is labelled ``xlabel``.
    ``ylim`` replaces the fans' y range.

    Drawn for speed on ~200 panels without changing the picture: the table is split once, limits
    are fixed before plotting, bands are fill_between's collection added without autoscaling,
    hidden tick labels are switched off rather than replaced by empty strings, every panel keeps
    the first panel's ticks (:func:`lib.plots.freeze_ticks`), and in the fixed-margin layout the
    spines stay out of the "tight" bbox computation.
    """
    need = [x, "mean", "ci_low", "ci_high", hue, "metric_name"] + ([row] if row else [])
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise KeyError(f"fan_grid: table lacks column(s) {missing}; has {list(table.columns)}")
    rows = [None] if row is None else (list(row_order) if row_order else
                                       list(dict.fromkeys(table[row])) or [NO_DATA])
    present = list(dict.fromkeys(table[hue]))
    hues = [h for h in (hue_order or []) if h in present] + [h for h in present if h not in (hue_order or [])]
    colors = plots.palette_for(hues, {**PALETTE, **VARIANT_PALETTE, **(palette or {})})
    labels = dict(GROUP_LABELS)
    many = len(rows) * len(metrics) > 60
    # faithful diversity counts "Unknown" as a category and can exceed 1 (reference §2.8): widen
    top = max(1.1, float(table["mean"].max()) + 0.05) if not table.empty else 1.1
    ylim = ylim or (-0.1, top)
    fan = x == "x"
    if not fan and table[x].notna().any():
        lo, hi = float(table[x].min()), float(table[x].max())
        pad = 0.05 * (hi - lo) if hi > lo else 0.5
        xlim = (lo - pad, hi + pad)
    else:
        xlim = (-0.3, 1.3)
    keys = ([] if row is None else [row]) + ["metric_name", hue]
    parts = dict(iter(table.groupby(keys, sort=False, observed=True))) if not table.empty else {}
    cells = set(table[keys[:-1]].itertuples(index=False, name=None))  # panels with rows (any hue)
    with plots.paper_style():
        fig, axes = plt.subplots(len(rows), len(metrics), squeeze=False,
                                 figsize=(panel_size[0] * len(metrics), panel_size[1] * len(rows)))
        for i, r in enumerate(rows):
            for j, metric in enumerate(metrics):
                ax = axes[i][j]
                ax.set_xlim(*xlim)
                ax.set_ylim(*ylim)
                for h in hues:
                    d = parts.get((metric, h) if row is None else (r, metric, h))
                    if d is None:
                        continue
                    d = d.sort_values(x)
                    xs = d[x].to_numpy(float)
                    ax.plot(xs, d["mean"].to_numpy(float), marker="o", color=colors[h], label=labels.get(h, str(h)))
                    # fill_between's own collection (NaN bounds masked: gaps), without its per-call
                    # data-limit and autoscale work
                    band_lo, band_hi = (np.ma.masked_invalid(d[c].to_numpy(float)) for c in ("ci_low", "ci_high"))
                    ax.add_collection(mcoll.FillBetweenPolyCollection(
                        "x", np.ma.masked_invalid(xs), band_lo, band_hi, color=colors[h], alpha=0.18, linewidth=0,
                        label="_band"), autolim=False)
                if ((metric,) if row is None else (r, metric)) not in cells:
                    ax.text(0.5, 0.5, NO_DATA, ha="center", va="center", transform=ax.transAxes, color="#828282")
                if fan:
                    ax.set_xticks([0, 1], ["B", "A"])
                if i == len(rows) - 1:
                    if not fan:
                        ax.set_xlabel(xlabel if xlabel is not None else x)
                else:
                    ax.tick_params(labelbottom=False)
                if i == 0:
                    ax.set_title(cp.METRIC_TITLES.get(metric, metric))
                if j == 0 and r is not None:
                    ax.set_ylabel((row_titles or {}).get(r, str(r)), rotation=row_title_rotation,
                                  ha="center" if row_title_rotation else "right",
                                  va="bottom" if row_title_rotation else "center")
                elif j > 0:
                    ax.tick_params(labelleft=False)
            if legend == "row":
                handles = plots.line_handles(axes[i])
                if handles:
                    axes[i][-1].legend(list(handles.values()), list(handles), loc="center left",
                                       bbox_to_anchor=(1.02, 0.5))
        if suptitle:
            fig.suptitle(suptitle)
        if many:  # tight_layout is slow on hundreds of panels; fixed margins instead
            fig.subplots_adjust(left=0.1, right=0.98, top=0.96, bottom=0.03, wspace=0.08, hspace=0.12)
            # a spine lies within its panel's box and tick labels, so it never widens a "tight"
            # save's bbox; measuring hundreds of them (each re-ticks its axis) is pure cost
            for ax in axes.ravel():
                for spine in ax.spines.values():
                    spine.set_in_layout(False)
        else:
            fig.tight_layout()
        plots.freeze_ticks(axes.ravel())
        if legend == "figure":
            handles = plots.line_handles(axes.ravel())
            if handles:
                fig.legend(list(handles.values()), list(handles), loc="lower center", bbox_to_anchor=(0.5, 1.0),
                           ncol=min(len(handles), 6))
    return fig


def constrained_overall(table: pd.DataFrame, family: str = "gender"):
    """Fig. 4: :func:`lib.scholar.constrained.before_after` pooled over models, 11 panels."""
    return fan_grid(table, hue="variant", metrics=cp.FAN_METRICS, hue_order=list(cp.VARIANTS[family].values()),
                    suptitle=f"{family}-constrained prompting (all models)", panel_size=(1.8, 2.3))


def constrained_by_model(table: pd.DataFrame, family: str, *, models: Sequence[str] | None = None):
    """Fig. C.13–C.16: one row per model (``before_after(by=("model",))``), the 9 panels of
    :func:`lib.scholar.constrained.by_model_metrics`."""
    order = list(models) if models is not None else sorted(table["model"].unique()) if not table.empty else []
    return fan_grid(table, hue="variant", metrics=cp.by_model_metrics(family), row="model", row_order=order or None,
                    hue_order=list(cp.VARIANTS[family].values()), legend="figure", row_title_rotation=0,
                    panel_size=(1.5, 1.1))


def tradeoff_grid(table: pd.DataFrame):
    """Fig. C.17: rows (a) gender, (b) ethnicity, (c) citations, (d) general; factuality and the
    four diversities per variant, pooled over models."""
    hues = [v for f in cp.VARIANTS for v in cp.VARIANTS[f].values()]
    rows = list(cp.VARIANTS)
    d = table if not table.empty else table.assign(family=pd.Series(dtype=str))
    return fan_grid(d, hue="variant", metrics=cp.TRADEOFF_METRICS, row="family", row_order=rows,
                    row_titles=cp.FAMILY_TITLES, hue_order=list(dict.fromkeys(hues)))


def rag_grid(table: pd.DataFrame, *, models: Sequence[str] = ("gemini-2.5-flash", "gemini-2.5-pro")):
    """Fig. 5: rows = Flash, Pro (base model keys); one line per task from B (no RAG) to A (RAG)."""
    titles = {"gemini-2.5-flash": "Flash", "gemini-2.5-pro": "Pro"}
    return fan_grid(table, hue="task_label", metrics=cp.FAN_METRICS, row="base_model", row_order=list(models),
                    row_titles=titles, hue_order=list(TASK_ORDER), palette={})


def quadrant_grid(points: pd.DataFrame, *, configurations: Sequence[str] = ("baseline", "temperature",
                                                                             "constrained", "RAG"),
                  titles: Mapping[str, str] | None = None, panel_size: tuple[float, float] = (3.4, 3.0)):
    """Fig. C.18: per configuration, models by technical (x) and social (y) score, coloured by
    provider family, sized by size class (S < M < L < XL), dashed median cross-hairs; a
    configuration without points says "no data"."""
    titles = titles or {"baseline": "(a) baseline", "temperature": "(b) temperature",
                        "constrained": "(c) constrained prompting", "RAG": "(d) RAG"}
    sizes = {"S": 15, "M": 35, "L": 60, "XL": 95}
    fams = sorted(points["family"].dropna().unique()) if not points.empty else []
    colors = plots.palette_for(fams, PALETTE)
    with plots.paper_style():
        fig, axes = plt.subplots(1, len(configurations), squeeze=False,
                                 figsize=(panel_size[0] * len(configurations), panel_size[1]))
        for ax, conf in zip(axes[0], configurations):
            d = points[points["configuration"] == conf] if not points.empty else points
            ax.set_title(titles.get(conf, conf))
            ax.set_xlabel("Technical: uniqueness + validity + Σ factuality")
            if d.empty:
                ax.text(0.5, 0.5, NO_DATA, ha="center", va="center", transform=ax.transAxes, color="#828282")
                continue
            for fam, g in d.groupby("family", sort=True):
                ax.scatter(g["technical"], g["social"], s=g["size_class"].map(sizes).fillna(95), color=colors[fam],
                           label=fam, edgecolor="white", linewidth=0.5)
            ax.axvline(d["median_technical"].iloc[0], ls="--", color="#828282", lw=0.8)
            ax.axhline(d["median_social"].iloc[0], ls="--", color="#828282", lw=0.8)
            ax.set_xlim(d["technical"].min() - 0.1, d["technical"].max() + 0.1)
            ax.set_ylim(d["social"].min() - 0.1, d["social"].max() + 0.1)
        axes[0][0].set_ylabel("Social: Σ parity")
        fig.tight_layout()
        handles = {}
        for ax in axes[0]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(lab, h)
        if handles:
            fig.legend(list(handles.values()), list(handles), loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def reason_figure(shares: pd.DataFrame):
    """Fig. A.3: per configuration, the share of its attempts refused for each reason
    (:func:`lib.scholar.interventions.reason_shares`)."""
    return plots.share_bars(shares, category="reason", col="configuration", col_order=iv.CONFIGURATIONS,
                            category_order=refusals.DISPLAY_ORDER, note="note", value_label="share of attempts")


def reason_groups_figure(group_shares: pd.DataFrame):
    """Fig. A.4: per configuration (columns) and group kind (rows: access, size, reasoning), the
    refusals split by reason and group (:func:`lib.scholar.interventions.reason_shares_by_group`)."""
    hue_order = [v for g in iv.GROUP_COLUMNS for v in GROUP_ORDER[g]]
    return plots.share_bars(group_shares, category="reason", col="configuration", row="group_kind", hue="group",
                            col_order=iv.CONFIGURATIONS, row_order=iv.GROUP_COLUMNS, hue_order=hue_order,
                            palette=PALETTE, labels=GROUP_LABELS, category_order=refusals.DISPLAY_ORDER,
                            row_titles=GROUP_TITLES, note="note", value_label="share of refusals")


def reason_tasks_figure(task_shares: pd.DataFrame):
    """Fig. A.5: per configuration, the refusals split by reason and task (``task_label``)."""
    return plots.share_bars(task_shares, category="reason", col="configuration", hue="task_label",
                            col_order=iv.CONFIGURATIONS, hue_order=list(REFUSAL_TASK_ORDER),
                            category_order=refusals.DISPLAY_ORDER, note="note", value_label="share of refusals")
