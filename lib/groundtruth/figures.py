"""Figures of the ground truth itself (LLMScholarBench Appendix B)."""
from __future__ import annotations

import pandas as pd

TITLES = {"gender": "Perceived gender", "ethnicity": "Perceived ethnicity",
          "prominence_pub": "Prominence (publications)", "prominence_cit": "Prominence (citations)"}


def attribute_distribution_figure(dist: pd.DataFrame):
    """Figure B.6: 2 × 2 grey bar charts of the % of authors per category, shared y axis.

    ``dist`` is :func:`lib.groundtruth.demographics.attribute_distribution`'s table.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(7.0, 5.0), sharey=True)
    for ax, (attr, sub) in zip(axes.ravel(), dist.groupby("attribute", sort=False)):
        pct = 100 * sub["share"].to_numpy()
        bars = ax.bar(sub["label"], pct, color="#9a9a9a", edgecolor="#555555", linewidth=0.6)
        for b, v in zip(bars, pct):
            ax.annotate(f"{v:.1f}", (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 1), textcoords="offset points")
        ax.set_title(TITLES.get(attr, attr), fontsize=10)
        ax.tick_params(axis="x", labelsize=8, rotation=20)
        ax.tick_params(axis="y", labelsize=8)
        ax.spines[["top", "right"]].set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("% of authors")
    axes[0, 0].set_ylim(0, 100)
    fig.tight_layout()
    return fig
