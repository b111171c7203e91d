"""lib.plots: the plotted data (lines, bands, bars, labels) of each figure type on tiny tables."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection

from lib import plots
from lib.scholar import models as lsb_models


@pytest.fixture
def curves():
    rows = []
    for kind, groups in (("access", ("open", "proprietary")), ("model_class", ("reasoning",))):
        for g in groups:
            for t in (1.0, 0.0):  # unsorted on purpose
                for metric in ("validity_pct", "duplicates"):
                    mean = 0.5 + 0.1 * t + (0.2 if g == "proprietary" else 0.0)
                    rows.append({"group_kind": kind, "group": g, "temperature": t, "metric_name": metric,
                                 "mean": mean, "ci_low": mean - 0.05, "ci_high": mean + 0.05})
    return pd.DataFrame(rows)


def _lines(ax):
    return {ln.get_label(): ln for ln in ax.get_lines()}


def test_line_grid_lines_bands_and_labels(curves):
    fig = plots.line_grid(curves, x="temperature", hue="group", col="metric_name", row="group_kind",
                          col_order=["validity_pct", "duplicates"], row_order=["access", "model_class"],
                          col_titles={"validity_pct": "Validity ↑"}, row_titles=lsb_models.GROUP_TITLES,
                          palette=lsb_models.GROUP_PALETTE, labels=lsb_models.GROUP_LABELS)
    axes = np.array(fig.axes[:4]).reshape(2, 2)
    assert axes[0][0].get_title() == "Validity ↑" and axes[0][1].get_title() == "duplicates"
    assert axes[0][0].get_ylabel() == "Access" and axes[1][0].get_ylabel() == "Reasoning"
    lines = _lines(axes[0][0])
    assert set(lines) == {"Open", "Proprietary"}
    np.testing.assert_allclose(lines["Open"].get_xdata(), [0.0, 1.0])  # sorted by x
    np.testing.assert_allclose(lines["Proprietary"].get_ydata(), [0.7, 0.8])
    assert lines["Open"].get_color() == lsb_models.GROUP_PALETTE["open"]
    bands = [c for c in axes[0][0].collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    ys = bands[0].get_paths()[0].vertices[:, 1]
    assert ys.min() == pytest.approx(0.45) and ys.max() == pytest.approx(0.65)
    assert set(_lines(axes[1][1])) == {"Enabled"}
    # one legend per row, in the last panel
    leg = axes[0][1].get_legend()
    assert [t.get_text() for t in leg.get_texts()] == ["Open", "Proprietary"]
    plt.close(fig)


def test_line_grid_empty_panel_and_missing_column(curves):
    fig = plots.line_grid(curves[curves["metric_name"] == "validity_pct"], x="temperature", hue="group",
                          col="metric_name", col_order=["validity_pct", "consistency"], legend="none")
    assert len(fig.axes) == 2
    assert [t.get_text() for t in fig.axes[1].texts] == ["no data"]
    assert fig.axes[0].get_legend() is None
    plt.close(fig)
    with pytest.raises(KeyError, match="ci_low"):
        plots.line_grid(curves.drop(columns="ci_low"), x="temperature", hue="group", col="metric_name")


@pytest.fixture
def shares():
    return pd.DataFrame({
        "configuration": ["Baseline"] * 4 + ["RAG"] * 2,
        "group": ["open", "open", "proprietary", "proprietary", "proprietary", "proprietary"],
        "reason": ["A", "B", "A", "B", "A", "B"],
        "share": [0.4, 0.1, 0.3, 0.2, 0.6, 0.4],
        "note": ["N_r=10"] * 4 + ["N_r=5"] * 2,
    })


def test_share_bars_grouped(shares):
    fig = plots.share_bars(shares, category="reason", col="configuration", hue="group", note="note",
                           category_order=["A", "B", "C"], hue_order=["open", "proprietary"],
                           labels=lsb_models.GROUP_LABELS)
    ax = fig.axes[0]
    assert len(ax.patches) == 6  # 2 hues x 3 categories (C empty)
    by_label = {c.get_label(): [round(b.get_width(), 6) for b in c] for c in ax.containers}
    assert by_label == {"Open": [0.4, 0.1, 0.0], "Proprietary": [0.3, 0.2, 0.0]}
    assert all(b.get_x() == 0 for b in ax.patches)
    # side by side: the open bar sits above the proprietary bar of the same category
    (o, p) = ax.containers
    assert o[0].get_y() < p[0].get_y() and o[0].get_height() == pytest.approx(0.4)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B", "C"]
    assert [t.get_text() for t in ax.texts] == ["N_r=10"]
    assert [t.get_text() for t in fig.axes[1].texts] == ["N_r=5"]
    assert ax.get_title() == "Baseline"
    leg = fig.axes[-1].get_legend()
    assert [t.get_text() for t in leg.get_texts()] == ["Open", "Proprietary"]
    plt.close(fig)


def test_share_bars_stacked_and_plain(shares):
    fig = plots.share_bars(shares, category="reason", col="configuration", hue="group", stacked=True,
                           hue_order=["open", "proprietary"], labels=lsb_models.GROUP_LABELS)
    ax = fig.axes[0]
    prop = {c.get_label(): c for c in ax.containers}["Proprietary"]
    assert [round(b.get_x(), 6) for b in prop] == [0.4, 0.1]  # stacked after open
    assert [round(b.get_width(), 6) for b in prop] == [0.3, 0.2]
    plt.close(fig)
    plain = shares.groupby(["configuration", "reason"], as_index=False)["share"].sum()
    fig = plots.share_bars(plain, category="reason", col="configuration", col_order=["RAG", "Baseline"])
    assert fig.axes[0].get_title() == "RAG"
    assert [round(b.get_width(), 6) for b in fig.axes[1].patches] == [0.7, 0.3]
    plt.close(fig)


def test_paper_style_restores_and_palette_fallback():
    before = plt.rcParams["font.size"]
    with plots.paper_style({"font.size": 13.0}):
        assert plt.rcParams["font.size"] == 13.0
        assert plt.rcParams["axes.spines.top"] is False
    assert plt.rcParams["font.size"] == before
    pal = plots.palette_for(["open", "unknown-thing"], lsb_models.GROUP_PALETTE)
    assert pal["open"] == lsb_models.GROUP_PALETTE["open"]
    assert pal["unknown-thing"] == plt.get_cmap("tab10").colors[1]


def test_line_grid_figure_legend_collects_every_hue(curves):
    fig = plots.line_grid(curves, x="temperature", hue="group", col="metric_name", row="group_kind",
                          legend="figure", row_title_rotation=0, labels=lsb_models.GROUP_LABELS)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Open", "Proprietary", "Enabled"]
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert fig.axes[0].yaxis.label.get_rotation() == 0
    plt.close(fig)
    with pytest.raises(ValueError, match="legend must be"):
        plots.line_grid(curves, x="temperature", hue="group", col="metric_name", legend="first")


def test_line_handles_first_line_per_label_skipping_hidden():
    fig, (a, b) = plt.subplots(1, 2)
    first = a.plot([0, 1], [0, 1], label="Open")[0]
    a.plot([0, 1], [1, 0], label="_hidden")
    b.plot([0, 1], [0, 1], label="Open")
    other = b.plot([0, 1], [1, 1], label="Proprietary")[0]
    b.fill_between([0, 1], [0, 0], [1, 1], label="Band")          # a collection, never a handle
    assert plots.line_handles([a, b]) == {"Open": first, "Proprietary": other}
    plt.close(fig)


def test_freeze_ticks_fixes_the_first_panels_visible_ticks():
    fig, axes = plt.subplots(2, 2)
    for ax in axes.flat:
        ax.set_ylim(-0.1, 1.3)
        ax.set_xlim(0, 2)
    axes[1][1].set_ylim(0, 10)                                        # other limits: left alone
    auto = axes[0][0].yaxis.get_majorticklocs()
    plots.freeze_ticks(axes.flat)
    want = [v for v in auto if -0.1 <= v <= 1.3]
    for ax in (axes[0][0], axes[0][1], axes[1][0]):
        assert list(ax.yaxis.get_majorticklocs()) == want
    assert list(axes[1][1].yaxis.get_majorticklocs()) == list(axes[1][1].yaxis.get_major_locator()())
    assert type(axes[1][1].yaxis.get_major_locator()).__name__ == "AutoLocator"
    plt.close(fig)
