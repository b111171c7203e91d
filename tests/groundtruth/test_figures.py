"""lib.groundtruth.figures: Figure B.6 drawn from a tiny attribute-distribution table."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from lib.groundtruth.demographics import attribute_distribution  # noqa: E402
from lib.groundtruth.figures import attribute_distribution_figure  # noqa: E402


def test_figure_b6_has_one_panel_per_attribute_with_the_shares_as_percent(tiny_world):
    dist = attribute_distribution(tiny_world.authors)
    fig = attribute_distribution_figure(dist)
    try:
        axes = fig.axes
        assert [ax.get_title() for ax in axes] == ["Perceived gender", "Perceived ethnicity",
                                                   "Prominence (publications)", "Prominence (citations)"]
        gender = axes[0]
        assert [t.get_text() for t in gender.get_xticklabels()] == ["Female", "Male", "Neutral", "Unknown"]
        assert [b.get_height() for b in gender.patches] == pytest.approx([25.0, 50.0, 0.0, 25.0])
        assert [t.get_text() for t in gender.texts] == ["25.0", "50.0", "0.0", "25.0"]
        # prominence_pub of the four authors: mid, low, low, elite
        assert [b.get_height() for b in axes[2].patches] == pytest.approx([50.0, 25.0, 0.0, 25.0])
        assert axes[0].get_ylim() == (0.0, 100.0) and axes[1].get_ylim() == (0.0, 100.0)   # shared y axis
        assert axes[0].get_ylabel() == axes[2].get_ylabel() == "% of authors" and axes[1].get_ylabel() == ""
    finally:
        plt.close(fig)
    assert fig.number not in plt.get_fignums()
