"""lib.scholar.figures on tiny aggregate tables: the plotted bars, error bars, value labels and
bold best-in-group values (not pixels)."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from lib.scholar import figures as fg
from lib.scholar import models as lsb_models


def _row(kind, group, metric, mean, lo, hi, best=False):
    return {"group_kind": kind, "group": group, "metric_name": metric, "mean": mean, "ci_low": lo,
            "ci_high": hi, "best": best}


@pytest.fixture
def infra():
    return pd.DataFrame([
        _row("access", "proprietary", "validity_pct", 0.6, 0.5, 0.7),
        _row("access", "open", "validity_pct", 0.8, 0.7, 0.9, True),
        _row("access", "open", "duplicates", 0.1, np.nan, np.nan, True),      # one value: no error bar
        _row("size_class", "S", "validity_pct", 0.3, 0.2, 0.4),
        _row("size_class", "XL", "validity_pct", 0.9, 0.85, 1.2, True),       # unclipped t bound past 1
        _row("model_class", "reasoning", "validity_pct", 0.5, 0.4, 0.6),
    ])


def _bars(ax):
    return [p.get_width() for p in ax.containers[0]]


def _ticks(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


def _err_segments(ax):
    return [seg for seg in ax.containers[1].lines[2][0].get_segments()]


def test_infrastructure_layout_bars_and_labels(infra):
    metrics = ["validity_pct", "duplicates", "consistency"]
    fig = fg.infrastructure_figure(infra, metrics)
    axes = np.array(fig.axes).reshape(3, 3)
    access = axes[0][0]
    assert _ticks(access) == ["Open", "Proprietary"]                        # GROUP_ORDER, not table order
    assert _bars(access) == pytest.approx([0.8, 0.6])
    assert [p.get_facecolor()[:3] for p in access.containers[0]] == [
        pytest.approx(plt.matplotlib.colors.to_rgb(lsb_models.GROUP_PALETTE[g])) for g in ("open", "proprietary")]
    segs = _err_segments(access)
    assert [s[0][0] for s in segs] == pytest.approx([0.7, 0.5]) and [s[1][0] for s in segs] == pytest.approx([0.9, 0.7])
    texts = {t.get_text(): t.get_fontweight() for t in access.texts}
    assert texts == {"0.80": "bold", "0.60": "normal"}
    assert access.get_title() == "Validity ↑" and access.get_ylabel() == "Access"
    size = axes[1][0]
    assert _ticks(size) == ["Small", "Extra Large"] and size.get_xlim()[1] > 1.2   # axis widened to the bound
    dup = axes[0][1]
    assert _bars(dup) == pytest.approx([0.1, 0.0]) and len(_err_segments(dup)) == 1  # proprietary has no value
    assert "Duplicates ↓" == dup.get_title()
    assert any("needs ≥ 2 runs" in t.get_text() for t in axes[0][2].texts)      # consistency missing
    assert axes[2][0].get_ylabel() == "Reasoning" and _ticks(axes[2][0]) == ["Enabled"]
    plt.close(fig)


def test_by_model_colours_by_family_and_order():
    agg = pd.DataFrame([_row("model", m, "factuality_author", v, v - 0.1, v + 0.1, b)
                        for m, v, b in [("llama-x", 0.5, False), ("deepseek-y", 0.9, True), ("qwen3-z", 0.7, False)]])
    fam = {"llama-x": "llama", "deepseek-y": "deepseek", "qwen3-z": "qwen3"}
    fig = fg.by_model_figure(agg, ["factuality_author", "factuality_field"], families=fam,
                             model_order=["deepseek-y", "llama-x", "qwen3-z"])
    ax, field = fig.axes
    assert _ticks(ax) == ["deepseek-y", "llama-x", "qwen3-z"] and _bars(ax) == pytest.approx([0.9, 0.5, 0.7])
    assert ax.containers[0][0].get_facecolor()[:3] == pytest.approx(fg.FAMILY_PALETTE["deepseek"])
    assert ax.containers[0][1].get_facecolor()[:3] == pytest.approx(fg.FAMILY_PALETTE["llama"])
    assert [t.get_fontweight() for t in ax.texts if t.get_text() == "0.90"] == ["bold"]
    assert any(t.get_text() == "no data" for t in field.texts)
    plt.close(fig)


def test_social_by_model_rows_and_columns():
    rows = []
    for kind in ("diversity", "parity"):
        for attr in ("gender", "ethnicity", "prominence_pub", "prominence_cit"):
            for m, v in (("a-1", 0.4), ("b-1", 0.6)):
                rows.append(_row("model", m, f"{kind}_{attr}", v + (kind == "parity") * 0.1, v - 0.05, v + 0.05))
    fig = fg.social_by_model_figure(pd.DataFrame(rows), families={"a-1": "gemma", "b-1": "gpt"})
    axes = np.array(fig.axes).reshape(2, 4)
    assert [a.get_title() for a in axes[0]] == ["Gender", "Ethnicity", "Publications", "Citations"]
    assert axes[0][0].get_ylabel() == "(a) Diversity" and axes[1][0].get_ylabel() == "(b) Parity ↑"
    assert _bars(axes[0][2]) == pytest.approx([0.4, 0.6]) and _bars(axes[1][3]) == pytest.approx([0.5, 0.7])
    plt.close(fig)


def test_by_task_figure_params():
    agg = pd.DataFrame([_row("param", "PER", "factuality_author", 0.8, 0.7, 0.9, True),
                        _row("param", "PER", "factuality_field", 0.3, 0.2, 0.4),
                        _row("param", "1950s", "factuality_author", 0.6, 0.5, 0.7),
                        _row("param", "1950s", "factuality_epoch", 0.7, 0.6, 0.8)])
    fig = fg.by_task_figure(agg, ["factuality_author", "factuality_field", "factuality_epoch"], param_order=["PER", "1950s"])
    author, field, epoch = fig.axes
    assert _ticks(author) == ["PER", "1950s"] and _bars(author) == pytest.approx([0.8, 0.6])
    assert _bars(field) == pytest.approx([0.3, 0.0]) and _bars(epoch) == pytest.approx([0.0, 0.7])
    assert author.containers[0][0].get_facecolor() != author.containers[0][1].get_facecolor()
    plt.close(fig)


def test_metric_bars_names_missing_columns():
    with pytest.raises(KeyError, match="ci_low"):
        fg.metric_bars(pd.DataFrame({"group": ["a"], "metric_name": ["x"], "mean": [1.0]}))


def test_only_the_given_panels_are_drawn(infra):
    fig = fg.metric_bars(infra[infra["group_kind"] == "access"], col_order=["duplicates"])
    assert len(fig.axes) == 1 and fig.axes[0].get_title() == "Duplicates ↓"
    plt.close(fig)
