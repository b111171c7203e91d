"""lib.attribution.figures: figures drawn from tiny hand-made tables (Agg backend), with the paper's
axes and panel titles; every figure is closed."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib.attribution import figures, robustness  # noqa: E402


@pytest.fixture
def close():
    made = []
    yield made.append
    for f in made:
        plt.close(f)


def _acc():
    return pd.DataFrame({"dataset": ["intersectional"] * 4 + ["multirace"] * 2,
                         "model": ["GPT-5.1", "GPT-5.1", "Kimi-K2.5", "Kimi-K2.5", "GPT-5.1", "GPT-5.1"],
                         "prompt_type": ["direct", "indirect"] * 3, "evidence": False,
                         "mean": [0.267, 0.130, 0.225, 0.164, 0.226, 0.110],
                         "ci_low": [0.25, 0.12, 0.21, 0.15, 0.21, 0.10], "ci_high": [0.28, 0.14, 0.24, 0.18, 0.24, 0.12]})


def test_figure4_bars_per_prompt_with_cis_one_panel_per_dataset(close):
    fig = figures.overall_accuracy(_acc(), subset_models=["GPT-5.1"])
    close(fig)
    left, right = fig.axes
    assert left.get_ylabel() == "Accuracy (%)" and left.get_title() == "AttriBench Intersectional"
    assert right.get_title() == "AttriBench Multirace"
    # models best first by direct accuracy; the subset model carries a dagger
    assert [t.get_text() for t in left.get_xticklabels()] == ["GPT-5.1†", "Kimi-K2.5"]
    heights = sorted(round(p.get_height(), 1) for p in left.patches)
    assert heights == [13.0, 16.4, 22.5, 26.7]
    assert [t.get_text() for t in right.get_legend().get_texts()] == ["Direct", "Indirect"]
    with pytest.raises(ValueError, match=r"no rows with evidence=True"):
        figures.overall_accuracy(_acc(), evidence=True)


def test_figure11_proxy_scatter_has_the_papers_axes_and_r_in_the_title(close):
    rng = np.random.default_rng(0)
    g = rng.normal(5, 1, 40)
    authors = pd.DataFrame({"author_clean": [f"a{i}" for i in range(40)], "subgroup": ["White", "Black"] * 20,
                            "log10_google": g, "log10_corpus": g + rng.normal(0, 0.3, 40)})
    fig = figures.proxy_scatter({"multirace": authors})
    close(fig)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "log10 search hits" and ax.get_ylabel() == "log10 (corpus name count + 1)"
    r = np.corrcoef(authors["log10_google"], authors["log10_corpus"])[0, 1]
    assert ax.get_title() == f"AttriBench Multirace: Pearson r = {r:.2f}"
    assert len(ax.get_lines()) == 2                                   # one OLS line per subgroup with >= 3 authors


def test_figure12_decile_heatmap_titles_the_shift_summary(close):
    a = pd.DataFrame({"author_clean": [f"a{i}" for i in range(20)], "subgroup": "White",
                      "log10_google": np.arange(20.0), "log10_corpus": np.arange(20.0)})
    fig = figures.decile_heatmap({"multirace": robustness.decile_agreement(a)})
    close(fig)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Decile by corpus name count" and ax.get_ylabel() == "Decile by search hits"
    assert ax.get_title() == "Multirace: same 100%, ±1 100%"


def test_figure8_accuracy_per_fame_bin_one_line_per_model(close):
    t = pd.DataFrame({"dataset": "intersectional", "model": ["A", "A", "B", "B"],
                      "fame_bin": pd.Categorical(["[3.0, 3.5)", "[3.5, 4.0)"] * 2), "mean": [0.1, 0.2, 0.3, 0.4]})
    fig = figures.accuracy_by_fame(t)
    close(fig)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "Fame bin (log10 search hits)" and ax.get_ylabel() == "Mean accuracy, direct prompt (%)"
    assert [list(np.round(l.get_ydata(), 6)) for l in ax.get_lines()] == [[10.0, 20.0], [30.0, 40.0]]
