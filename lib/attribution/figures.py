"""Figures of the AttriBench paper (Figures 4–16), drawn from the tables of this package.

Each function returns a matplotlib Figure; the notebook saves it with
:func:`lib.artifacts.save_figure`. Layouts follow the paper's descriptions: grouped bars with
95 % CIs per model (Figs. 4, 13), subgroup heatmaps per model with the best subgroup and the
subgroups not significantly different from it in bold and an asterisk when the best is
significantly above all others (Figs. 5–7, 14–16), accuracy per fame bin (Fig. 8), corpus
demographics (Fig. 9), fame densities per group (Fig. 10), proxy scatter with per-group fits
(Fig. 11) and the row-normalised decile heatmap (Fig. 12).
"""
from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # figures are files; notebooks still display them inline
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats as st  # noqa: E402

from lib.attribution import dataset as ds  # noqa: E402

#: fixed palette per subgroup, so a group has the same colour in every figure
PALETTE = {"M/White": "#1f77b4", "F/White": "#9ecae1", "M/Black": "#d62728", "F/Black": "#fc9272",
           "White": "#1f77b4", "Black": "#d62728", "Asian": "#2ca02c", "Latino": "#ff7f0e"}
PROMPT_COLOURS = {"direct": "#4c72b0", "indirect": "#dd8452", "indirect_overt": "#55a868"}
PROMPT_LABELS = {"direct": "Direct", "indirect": "Indirect", "indirect_overt": "Indirect overt"}


def _datasets(table: pd.DataFrame) -> list[str]:
    order = {"intersectional": 0, "multirace": 1}
    return sorted(table["dataset"].unique(), key=lambda d: (order.get(d, 9), d))


def _kind(name: str) -> str:
    return "multirace" if "multirace" in name else "intersectional"


def overall_accuracy(acc: pd.DataFrame, *, evidence: bool = False, prompt_types: Sequence[str] = ("direct", "indirect"),
                     subset_models: Sequence[str] = (), ylabel: str = "Accuracy (%)") -> plt.Figure:
    """Figs. 4 and 13: accuracy per model, one bar per prompt type with its 95 % CI, one panel per
    dataset. ``acc`` = :func:`lib.attribution.metrics.accuracy` (no subgroups). Models in
    ``subset_models`` get a † (runs on the 300-matching subsets). Models sorted by the first
    prompt type's accuracy, best first."""
    t = acc[(acc["evidence"] == evidence) & acc["prompt_type"].isin(prompt_types)]
    if t.empty:
        raise ValueError(f"overall_accuracy: no rows with evidence={evidence} and prompt types {list(prompt_types)}")
    names = _datasets(t)
    fig, axes = plt.subplots(1, len(names), figsize=(6.2 * len(names), 3.8), squeeze=False, sharey=True)
    width = 0.8 / len(prompt_types)
    for ax, name in zip(axes[0], names):
        d = t[t["dataset"] == name]
        first = d[d["prompt_type"] == prompt_types[0]].sort_values("mean", ascending=False)
        models = list(first["model"]) + [m for m in d["model"].unique() if m not in set(first["model"])]
        x = np.arange(len(models))
        for i, p in enumerate(prompt_types):
            r = d[d["prompt_type"] == p].set_index("model").reindex(models)
            mean = 100 * r["mean"].to_numpy(float)
            err = np.vstack([mean - 100 * r["ci_low"].to_numpy(float), 100 * r["ci_high"].to_numpy(float) - mean])
            ax.bar(x + (i - (len(prompt_types) - 1) / 2) * width, mean, width, yerr=np.nan_to_num(err), capsize=2,
                   color=PROMPT_COLOURS.get(p, None), label=PROMPT_LABELS.get(p, p), error_kw={"lw": 0.8})
        ax.set_xticks(x, [m + ("†" if m in subset_models else "") for m in models], rotation=40, ha="right", fontsize=8)
        ax.set_title(f"AttriBench {name.capitalize()}" + (" (evidence-conditioned)" if evidence else ""), fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    axes[0][0].set_ylabel(ylabel)
    axes[0][-1].legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def subgroup_heatmaps(sig: pd.DataFrame, *, columns: Sequence[tuple[str, str, bool]], value_label: str,
                      higher_is_better: bool) -> plt.Figure:
    """Figs. 5–7, 14–16: per dataset (rows of panels) and per (title, prompt_type, evidence)
    (columns of panels) a heatmap model × subgroup of the metric in %, annotated; the reference
    subgroup and those not significantly different from it are bold, ``*`` marks a reference
    significantly better than all others. ``sig`` = :func:`...metrics.subgroup_significance`."""
    names = _datasets(sig)
    fig, axes = plt.subplots(len(names), len(columns), figsize=(4.3 * len(columns), 0.42 * sig["model"].nunique() * len(names) + 1.6),
                             squeeze=False)
    cmap = "Blues" if higher_is_better else "Oranges"
    for r, name in enumerate(names):
        kind = _kind(name)
        groups = [g for g in ds.group_order(kind) if g in set(sig.loc[sig["dataset"] == name, "subgroup"])]
        for c, (title, prompt_type, evidence) in enumerate(columns):
            ax = axes[r][c]
            d = sig[(sig["dataset"] == name) & (sig["prompt_type"] == prompt_type) & (sig["evidence"] == evidence)]
            if d.empty:
                ax.set_axis_off()
                ax.set_title(f"{title}: no data", fontsize=9)
                continue
            val = d.pivot(index="model", columns="subgroup", values="mean").reindex(columns=groups) * 100
            bold = d.pivot(index="model", columns="subgroup", values="not_significantly_different_from_reference").reindex(columns=groups)
            star = d.pivot(index="model", columns="subgroup", values="asterisk_on_reference").reindex(columns=groups)
            val = val.loc[val.mean(axis=1).sort_values(ascending=not higher_is_better).index]
            ax.imshow(val.to_numpy(float), cmap=cmap, aspect="auto", vmin=0, vmax=max(1.0, float(np.nanmax(val.to_numpy(float)))))
            vmax = np.nanmax(val.to_numpy(float)) if val.size else 1
            for i, m in enumerate(val.index):
                for j, g in enumerate(groups):
                    v = val.loc[m, g]
                    if np.isnan(v):
                        continue
                    is_bold = bool(bold.loc[m, g]) if not pd.isna(bold.loc[m, g]) else False
                    txt = f"{v:.1f}" + ("*" if (not pd.isna(star.loc[m, g]) and bool(star.loc[m, g])) else "")
                    ax.text(j, i, txt, ha="center", va="center", fontsize=7.5, fontweight="bold" if is_bold else "normal",
                            color="white" if v > 0.6 * vmax else "black")
            ax.set_xticks(range(len(groups)), groups, fontsize=8)
            ax.set_yticks(range(len(val.index)), val.index, fontsize=8)
            ax.set_title(f"{name.capitalize()}: {title}", fontsize=9)
    fig.suptitle(f"{value_label} by subgroup (%, bold = best or not significantly different; * = best, all others differ)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def accuracy_by_fame(table: pd.DataFrame) -> plt.Figure:
    """Fig. 8: mean direct-prompt accuracy per fame bin (binned log10_hits), one line per model,
    one panel per dataset. ``table`` = :func:`...metrics.accuracy_by_fame`."""
    names = _datasets(table)
    fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 3.8), squeeze=False, sharey=True)
    for ax, name in zip(axes[0], names):
        d = table[table["dataset"] == name]
        bins = list(d["fame_bin"].cat.categories) if hasattr(d["fame_bin"], "cat") else sorted(d["fame_bin"].unique())
        for model, g in d.groupby("model", sort=True):
            g = g.set_index("fame_bin").reindex(bins)
            ax.plot(range(len(bins)), 100 * g["mean"].to_numpy(float), marker="o", ms=3, lw=1.2, label=model)
        ax.set_xticks(range(len(bins)), bins, rotation=40, ha="right", fontsize=8)
        ax.set_xlabel("Fame bin (log10 search hits)")
        ax.set_title(f"AttriBench {name.capitalize()}", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("Mean accuracy, direct prompt (%)")
    axes[0][-1].legend(fontsize=7, frameon=False, ncol=1, loc="upper left")
    fig.tight_layout()
    return fig


def corpus_demographics(universe: pd.DataFrame) -> plt.Figure:
    """Fig. 9: demographics of the source corpus before balancing: authors per race, split by
    gender (stacked bars with shares), and the overall gender split."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8.5, 3.4), gridspec_kw={"width_ratios": [3, 1.3]})
    n = len(universe)
    races = ["white", "black", "asian", "latino"]
    counts = universe.groupby(["race", "gender"]).size().unstack(fill_value=0).reindex(races, fill_value=0)
    bottom = np.zeros(len(races))
    for gender, colour in (("male", "#4c72b0"), ("female", "#dd8452")):
        v = counts.get(gender, pd.Series(0, index=races)).to_numpy(float)
        a1.bar(range(len(races)), v, bottom=bottom, color=colour, label=gender.capitalize())
        bottom += v
    for i, tot in enumerate(bottom):
        a1.text(i, tot, f"{100 * tot / n:.1f}%", ha="center", va="bottom", fontsize=8)
    a1.set_xticks(range(len(races)), [r.capitalize() for r in races])
    a1.set_ylabel("Authors")
    a1.set_title("Race (stacked by gender)", fontsize=10)
    a1.legend(frameon=False, fontsize=8)
    share = universe["gender"].value_counts(normalize=True).reindex(["male", "female"], fill_value=0)
    a2.bar([0, 1], 100 * share.to_numpy(), color=["#4c72b0", "#dd8452"])
    for i, v in enumerate(share):
        a2.text(i, 100 * v, f"{100 * v:.0f}%", ha="center", va="bottom", fontsize=8)
    a2.set_xticks([0, 1], ["Male", "Female"])
    a2.set_ylabel("Share of authors (%)")
    a2.set_title("Gender", fontsize=10)
    fig.suptitle(f"Source corpus before balancing: {n:,} authors", fontsize=10)
    fig.tight_layout()
    return fig


def fame_kde(datasets: dict[str, pd.DataFrame] | None) -> plt.Figure | None:
    """Fig. 10: kernel density of log10_hits per subgroup after balancing (one author counted
    once), one panel per dataset. ``datasets``: name → quote-level table (None: not drawn)."""
    if datasets is None:
        return None
    names = [n for n in ("intersectional", "multirace") if n in datasets] + [n for n in datasets if n not in ("intersectional", "multirace")]
    fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 3.5), squeeze=False)
    for ax, name in zip(axes[0], names):
        kind = _kind(name)
        a = datasets[name].drop_duplicates("author_clean")
        a = a.assign(subgroup=ds.subgroup_labels(a, kind))
        lo, hi = a["log10_hits"].min() - 0.5, a["log10_hits"].max() + 0.5
        grid = np.linspace(lo, hi, 300)
        for g in ds.group_order(kind):
            v = a.loc[a["subgroup"] == g, "log10_hits"].to_numpy(float)
            if len(v) < 2:
                continue
            ax.plot(grid, st.gaussian_kde(v)(grid), color=PALETTE.get(g), lw=1.5, label=f"{g} (mean {v.mean():.2f})")
        ax.set_xlabel("log10 search hits")
        ax.set_ylabel("Density")
        ax.set_title(f"AttriBench {name.capitalize()}", fontsize=10)
        ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def proxy_scatter(authors: dict[str, pd.DataFrame]) -> plt.Figure:
    """Fig. 11: per author, log10(corpus count + 1) against log10 search hits, coloured by
    subgroup, with a per-subgroup OLS line; Pearson r overall in the title. ``authors``: name →
    :func:`...robustness.authors_with_proxies` table."""
    names = list(authors)
    fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 4.2), squeeze=False)
    for ax, name in zip(axes[0], names):
        a = authors[name]
        kind = _kind(name)
        for g in ds.group_order(kind):
            d = a[a["subgroup"] == g]
            if len(d) < 3:
                continue
            ax.scatter(d["log10_google"], d["log10_corpus"], s=5, alpha=0.35, color=PALETTE.get(g), lw=0)
            fit = st.linregress(d["log10_google"], d["log10_corpus"])
            xs = np.linspace(d["log10_google"].min(), d["log10_google"].max(), 50)
            ax.plot(xs, fit.intercept + fit.slope * xs, color=PALETTE.get(g), lw=1.6, label=f"{g} (r = {fit.rvalue:.2f})")
        r = st.pearsonr(a["log10_google"], a["log10_corpus"])[0]
        ax.set_title(f"AttriBench {name.capitalize()}: Pearson r = {r:.2f}", fontsize=10)
        ax.set_xlabel("log10 search hits")
        ax.set_ylabel("log10 (corpus name count + 1)")
        ax.legend(fontsize=8, frameon=False)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def decile_heatmap(tables: dict[str, tuple[pd.DataFrame, dict]]) -> plt.Figure:
    """Fig. 12: row-normalised crosstab of fame deciles, search hits (rows) vs corpus count
    (columns), per dataset, with the same-decile and ±1-decile shares in the title. ``tables``:
    name → :func:`...robustness.decile_agreement` result."""
    names = list(tables)
    fig, axes = plt.subplots(1, len(names), figsize=(5.2 * len(names), 4.4), squeeze=False)
    for ax, name in zip(axes[0], names):
        tab, summ = tables[name]
        im = ax.imshow(100 * tab.to_numpy(float), cmap="Blues", vmin=0, vmax=100, origin="lower")
        for i in range(tab.shape[0]):
            for j in range(tab.shape[1]):
                v = 100 * tab.iat[i, j]
                if v >= 5:
                    ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=6.5, color="black" if v < 50 else "white")
        ax.set_xticks(range(tab.shape[1]), tab.columns)
        ax.set_yticks(range(tab.shape[0]), tab.index)
        ax.set_xlabel("Decile by corpus name count")
        ax.set_ylabel("Decile by search hits")
        ax.set_title(f"{name.capitalize()}: same {summ['same_decile_pct']:.0f}%, ±1 {summ['within1_pct']:.0f}%", fontsize=10)
        fig.colorbar(im, ax=ax, fraction=0.046, label="% of row")
    fig.tight_layout()
    return fig


#: the response figures: (metric table, higher is better, heatmap columns (title, prompt_type, evidence))
RESPONSE_FIGURES = {
    "at-fig5": ("accuracy", True, (("Direct", "direct", False), ("Indirect", "indirect", False))),
    "at-fig6": ("s_omit", False, (("S_omit: indirect, no evidence", "indirect", False),)),
    "at-fig7": ("s_evid", False, (("S_evid: indirect, evidence", "indirect", True),)),
    "at-fig14": ("accuracy", True, (("Indirect, evidence", "indirect", True),)),
    "at-fig15": ("direct_omission", False, (("Direct, no evidence", "direct", False), ("Direct, evidence", "direct", True))),
    "at-fig16": ("accuracy", True, (("Indirect overt, no evidence", "indirect_overt", False),
                                    ("Indirect overt, evidence", "indirect_overt", True))),
}
_VALUE_LABELS = {"accuracy": "Accuracy", "s_omit": "S_omit (no author named)", "s_evid": "S_evid (correct author not named)",
                 "direct_omission": "Author omission, direct prompt"}


def response_figure(artifact_id: str, scored: pd.DataFrame, *, subset_models: Sequence[str] = (),
                    test: str = "z") -> plt.Figure:
    """Draw one of the response figures (at-fig4–8, at-fig13–16) from a scored responses table
    (:func:`lib.attribution.metrics.score_responses`, datasets concatenated). ``test`` chooses
    the subgroup test (``"z"`` faithful, ``"welch"`` corrected); ``subset_models`` get a † in
    Fig. 13 (RAG runs on the 300-matching subsets)."""
    from lib.attribution import metrics

    if artifact_id == "at-fig4":
        return overall_accuracy(metrics.accuracy(scored, evidence=False), evidence=False)
    if artifact_id == "at-fig13":
        return overall_accuracy(metrics.accuracy(scored, evidence=True), evidence=True, subset_models=subset_models)
    if artifact_id == "at-fig8":
        return accuracy_by_fame(metrics.accuracy_by_fame(scored))
    if artifact_id not in RESPONSE_FIGURES:
        raise KeyError(f"{artifact_id!r} is not a response figure; expected one of "
                       f"{['at-fig4', 'at-fig8', 'at-fig13', *RESPONSE_FIGURES]}")
    metric, higher, columns = RESPONSE_FIGURES[artifact_id]
    parts = []
    for _, prompt_type, evidence in columns:
        if metric == "accuracy":
            parts.append(metrics.accuracy(scored, subgroups=True, prompt_type=prompt_type, evidence=evidence))
        elif metric == "s_evid":
            parts.append(metrics.s_evid(scored, subgroups=True, prompt_type=prompt_type))
        else:
            parts.append(metrics.s_omit(scored, subgroups=True, prompt_type=prompt_type, evidence=evidence))
    table = pd.concat([p for p in parts if not p.empty], ignore_index=True)
    if table.empty:
        raise ValueError(f"{artifact_id}: the responses table has no rows for {[c[1:] for c in columns]}")
    sig = metrics.subgroup_significance(table, higher_is_better=higher, test=test)
    return subgroup_heatmaps(sig, columns=columns, value_label=_VALUE_LABELS[metric], higher_is_better=higher)
