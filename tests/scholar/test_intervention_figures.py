"""lib.scholar.intervention_figures: each figure on a tiny fixture, inspecting the plotted data."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib.scholar import constrained as cp  # noqa: E402
from lib.scholar import intervention_figures as ifig  # noqa: E402


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def _lines(ax):
    return {ln.get_label(): ln.get_ydata().tolist() for ln in ax.get_lines() if not ln.get_label().startswith("_")}


def _fan(metric="factuality_author", by_model=False):
    rows = []
    for model in (["m1", "m2"] if by_model else [None]):
        for variant, after in (("Only female", 0.3), ("Equal", 0.6)):
            for phase, x, mean in (("B", 0.0, 0.9), ("A", 1.0, after)):
                r = {"variant": variant, "phase": phase, "x": x, "metric_name": metric, "mean": mean,
                     "ci_low": mean - 0.05, "ci_high": mean + 0.05}
                if model:
                    r["model"] = model
                rows.append(r)
    return pd.DataFrame(rows)


def test_constrained_overall_plots_b_to_a():
    fig = ifig.constrained_overall(_fan(), "gender")
    assert len(fig.axes) == len(cp.FAN_METRICS)
    ax = fig.axes[cp.FAN_METRICS.index("factuality_author")]
    assert _lines(ax) == {"Only female": [0.9, 0.3], "Equal": [0.9, 0.6]}
    assert [t.get_text() for t in ax.get_xticklabels()] == ["B", "A"]
    assert _texts(fig).count("no data") == len(cp.FAN_METRICS) - 1
    plt.close(fig)


def test_constrained_by_model_rows():
    fig = ifig.constrained_by_model(_fan(by_model=True), "gender")
    assert len(fig.axes) == 2 * 9
    assert fig.axes[0].get_ylabel() == "m1"
    assert _lines(fig.axes[9 + 4]) == {"Only female": [0.9, 0.3], "Equal": [0.9, 0.6]}   # m2, factuality
    fig2 = ifig.constrained_by_model(_fan(by_model=True), "ethnicity")
    assert [ax.get_title() for ax in fig2.axes[7:9]] == ["Diversity (eth.)", "Parity ↑ (eth.)"]
    plt.close(fig2)
    plt.close(fig)


@pytest.mark.parametrize("make", [
    lambda: ifig.constrained_overall(cp.before_after(pd.DataFrame(columns=["model", "grounded", "task", "param",
                                                                           "metric_name", "metric_value"]),
                                                     cp.VARIANTS["gender"])),
    lambda: ifig.constrained_by_model(pd.DataFrame(columns=["model", "variant", "x", "metric_name", "mean",
                                                            "ci_low", "ci_high"]), "ethnicity"),
    lambda: ifig.tradeoff_grid(pd.DataFrame(columns=["family", "variant", "x", "metric_name", "mean", "ci_low",
                                                     "ci_high"])),
    lambda: ifig.rag_grid(pd.DataFrame(columns=["base_model", "task_label", "x", "metric_name", "mean", "ci_low",
                                                "ci_high"])),
    lambda: ifig.quadrant_grid(pd.DataFrame(columns=["configuration", "model", "family", "size_class", "technical",
                                                     "social", "median_technical", "median_social"])),
])
def test_empty_inputs_say_no_data(make):
    fig = make()
    assert _texts(fig) and set(_texts(fig)) == {"no data"}
    assert len(_texts(fig)) == len(fig.axes)
    plt.close(fig)


def test_tradeoff_grid_rows_per_family():
    t = _fan().assign(family="citations").replace({"Only female": "Lowly cited only", "Equal": "Highly cited only"})
    fig = ifig.tradeoff_grid(t)
    assert len(fig.axes) == 4 * len(cp.TRADEOFF_METRICS)
    ax = fig.axes[2 * len(cp.TRADEOFF_METRICS)]                      # (c) citations, factuality
    assert _lines(ax) == {"Lowly cited only": [0.9, 0.3], "Highly cited only": [0.9, 0.6]}
    assert fig.axes[0].get_ylabel() == "(a) gender"
    plt.close(fig)


def test_rag_grid_lines_per_task():
    t = pd.DataFrame({"base_model": "gemini-2.5-pro", "task_label": "top_k", "x": [0.0, 1.0],
                      "metric_name": "validity_pct", "mean": [1.0, 0.8], "ci_low": [0.9, 0.7],
                      "ci_high": [1.0, 0.9]})
    fig = ifig.rag_grid(t)
    n = len(cp.FAN_METRICS)
    assert fig.axes[0].get_ylabel() == "Flash" and fig.axes[n].get_ylabel() == "Pro"
    assert _lines(fig.axes[n + 1]) == {"top_k": [1.0, 0.8]}
    assert "no data" in [t.get_text() for t in fig.axes[1].texts]    # Flash row: nothing collected
    plt.close(fig)


def test_quadrant_grid_points_and_medians():
    q = pd.DataFrame({"configuration": "baseline", "model": ["llama-a", "gemma-b", "qwen3-c"],
                      "family": ["llama", "gemma", "qwen3"], "size_class": ["S", "M", "XL"],
                      "technical": [2.0, 3.0, 4.0], "social": [1.0, 2.5, 2.0]})
    q["median_technical"], q["median_social"] = 3.0, 2.0
    fig = ifig.quadrant_grid(q)
    ax = fig.axes[0]
    pts = np.vstack([c.get_offsets() for c in ax.collections])
    assert sorted(map(tuple, pts)) == [(2.0, 1.0), (3.0, 2.5), (4.0, 2.0)]
    dashed = [ln.get_xdata()[0] if ln.get_xdata()[0] == ln.get_xdata()[1] else ln.get_ydata()[0]
              for ln in ax.get_lines()]
    assert dashed == [3.0, 2.0]
    assert [t.get_text() for t in fig.axes[1].texts] == ["no data"]
    plt.close(fig)


def test_fan_grid_names_missing_columns():
    with pytest.raises(KeyError, match="variant"):
        ifig.fan_grid(pd.DataFrame({"x": [0.0], "mean": [1.0]}), hue="variant", metrics=["validity_pct"])


def test_y_axis_widens_for_diversity_above_one():
    t = _fan(metric="diversity_gender").assign(mean=lambda d: d["mean"] + 0.3)
    fig = ifig.constrained_overall(t, "gender")
    assert fig.axes[0].get_ylim()[1] == pytest.approx(1.25)
    plt.close(fig)


NINE_TITLES = ["Refusals", "Validity ↑", "Duplicates ↓", "Consistency", "Factuality ↑", "Connectedness",
               "Similarity", "Diversity (gen.)", "Parity ↑ (gen.)"]


def _curves(groups, metrics=ifig.TEMPERATURE_METRICS, temps=(0.0, 1.0, 2.0), skip=()):
    """A temperature_curves-shaped table: mean = 0.1·(group index + 1) + 0.2·T, CI ± 0.05."""
    rows = []
    for kind, values in groups.items():
        for gi, g in enumerate(values):
            for metric in metrics:
                if (g, metric) in skip:
                    continue
                for t in temps:
                    mean = 0.1 * (gi + 1) + 0.2 * t
                    rows.append({"group_kind": kind, "group": g, "temperature": t, "metric_name": metric,
                                 "mean": mean, "ci_low": mean - 0.05, "ci_high": mean + 0.05})
    return pd.DataFrame(rows)


def test_temperature_grid_nine_panels_per_group_kind():
    cur = _curves({"access": ["open", "proprietary"], "size_class": ["S", "M", "L", "XL"],
                   "model_class": ["non-reasoning", "reasoning"]}, skip={("S", "parity_gender")})
    fig = ifig.temperature_grid(cur)
    assert list(ifig.TEMPERATURE_METRICS) == ["refusal_pct", "validity_pct", "duplicates", "consistency",
                                              "factuality_author", "connectedness", "similarity_pca",
                                              "diversity_gender", "parity_gender"]
    assert len(fig.axes) == 3 * 9
    assert [ax.get_title() for ax in fig.axes[:9]] == NINE_TITLES
    assert [fig.axes[9 * i].get_ylabel() for i in range(3)] == ["Access", "Size", "Reasoning"]
    # access row, parity panel: one line per access group over the temperatures, with a band each
    ax = fig.axes[8]
    assert _lines(ax) == {"Open": pytest.approx([0.1, 0.3, 0.5]), "Proprietary": pytest.approx([0.2, 0.4, 0.6])}
    assert [ln.get_xdata().tolist() for ln in ax.get_lines()] == [[0.0, 1.0, 2.0]] * 2
    assert len(ax.collections) == 2 and all(ln.get_marker() == "o" for ln in ax.get_lines())
    # size row: the parity panel lacks S; the connectedness panel has all four sizes
    assert list(_lines(fig.axes[9 + 8])) == ["Medium", "Large", "Extra Large"]
    assert list(_lines(fig.axes[9 + 5])) == ["Small", "Medium", "Large", "Extra Large"]
    # the legend of each row sits in its Duplicates panel, nowhere else
    with_legend = [i for i, a in enumerate(fig.axes) if a.get_legend() is not None]
    assert with_legend == [2, 11, 20]
    assert [t.get_text() for t in fig.axes[11].get_legend().get_texts()] == ["Small", "Medium", "Large", "Extra Large"]
    assert fig.axes[0].get_ylim() == pytest.approx((0.0, 1.05))
    plt.close(fig)


def test_temperature_grid_missing_metric_says_no_data_and_widens_for_diversity():
    cur = _curves({"access": ["open"]}, metrics=["refusal_pct", "diversity_gender", "diversity_ethnicity"])
    cur.loc[cur["metric_name"] == "diversity_gender", "mean"] = 1.2        # faithful: Unknown counted
    fig = ifig.temperature_grid(cur)
    assert len(fig.axes) == 27
    assert [t.get_text() for t in fig.axes[1].texts] == ["no data"]
    assert fig.axes[0].get_ylim() == pytest.approx((0.0, 1.25))
    plt.close(fig)


def test_temperature_by_model_rows_and_nine_panels():
    cur = _curves({"model": ["m-a", "m-b"]}, skip={("m-b", "consistency")})
    cur["access"] = cur["group"].map({"m-a": "open", "m-b": "proprietary"})
    fig = ifig.temperature_by_model(cur)
    assert len(fig.axes) == 2 * 9
    assert [ax.get_title() for ax in fig.axes[:9]] == NINE_TITLES
    assert [fig.axes[0].get_ylabel(), fig.axes[9].get_ylabel()] == ["m-a", "m-b"]
    assert _lines(fig.axes[5]) == {"Open": pytest.approx([0.1, 0.3, 0.5])}                  # m-a connectedness
    assert _lines(fig.axes[9 + 8]) == {"Proprietary": pytest.approx([0.2, 0.4, 0.6])}      # m-b parity
    assert fig.axes[9 + 8].get_lines()[0].get_xdata().tolist() == [0.0, 1.0, 2.0]
    assert [t.get_text() for t in fig.axes[9 + 3].texts] == ["no data"]
    assert fig.axes[9].get_xlabel() == "temperature" and fig.axes[0].get_xlabel() == ""
    assert sorted(t.get_text() for lg in fig.legends for t in lg.get_texts()) == ["Open", "Proprietary"]
    plt.close(fig)


def test_by_model_band_leaves_a_gap_at_a_missing_bound_and_bounds_are_plotted():
    cur = _curves({"model": ["m-a"]}, metrics=["validity_pct"], temps=(0.0, 1.0, 2.0, 3.0, 4.0))
    cur.loc[cur["temperature"] == 2.0, "ci_low"] = np.nan              # e.g. a single value's t-interval
    cur["access"] = "open"
    fig = ifig.temperature_by_model(cur, metrics=["validity_pct"])
    (band,) = fig.axes[0].collections
    polys = [p.vertices for p in band.get_paths()]
    assert len(polys) == 2                                              # T 0–1 and 3–4, nothing at T = 2
    assert sorted({x for p in polys for x in p[:, 0]}) == [0.0, 1.0, 3.0, 4.0]
    assert {tuple(np.round(v, 9)) for v in polys[0]} == {(0.0, 0.05), (1.0, 0.25), (0.0, 0.15), (1.0, 0.35)}
    plt.close(fig)


def test_many_panels_share_the_first_panels_ticks_and_hide_inner_labels():
    cur = _curves({"model": [f"m{i}" for i in range(8)]})
    cur["access"] = "open"
    fig = ifig.temperature_by_model(cur)                                # 72 panels: the fixed-margin layout
    first = fig.axes[0]
    assert all(list(a.yaxis.get_majorticklocs()) == list(first.yaxis.get_majorticklocs()) for a in fig.axes)
    assert all(list(a.xaxis.get_majorticklocs()) == list(first.xaxis.get_majorticklocs()) for a in fig.axes)
    assert set(first.xaxis.get_majorticklocs()) >= {0.0, 2.0}            # the temperature range
    assert not fig.axes[1].yaxis.get_tick_params()["labelleft"] and first.yaxis.get_tick_params()["labelleft"]
    assert not first.xaxis.get_tick_params()["labelbottom"] and fig.axes[-1].xaxis.get_tick_params()["labelbottom"]
    plt.close(fig)
