"""Forest plots of the claims ledger: ``outputs/figures/claims-<paper>.png``, one per paper, and the
ledger's writer (:func:`write_markdown`: the plots and ``outputs/claims.md``), above :mod:`lib.claims`.

One row per claim: its deciding statistic (:func:`lib.claims.deciding`) with its 95 % interval,
the threshold as the vertical line at 0, the paper's printed value (a diamond) where there is
one, and the colour of the outcome. Claims live on different scales (rates, slopes, κ, −log10 p),
so each row is drawn as (value − threshold) / h, h the interval's half-width, and mirrored so
that the claim's side is always to the right: an interval wholly right of the line is held,
wholly left contradicted, across it inconclusive. The raw numbers are printed at the right of
each row. Points beyond ±:data:`CLIP` half-widths are drawn at the edge with an arrow.
"""
from __future__ import annotations

import math

from lib import artifacts, claims, paths
from lib.claims import STATUSES, deciding

#: Outcome colours (colour-blind safe: Okabe–Ito green, vermillion, orange, grey).
COLOURS = dict(zip(STATUSES, ("#009E73", "#D55E00", "#E69F00", "#999999")))
CLIP = 6.0


def _scaled(t: dict) -> tuple[float, float, float, float | None]:
    """(estimate, low, high, published) in half-widths from the threshold, claim's side positive."""
    sign = -1.0 if t["side"] in ("below", "not above") else 1.0
    half = (t["high"] - t["low"]) / 2 or 1.0     # a significance test (zero width): its own unit
    f = (lambda v: sign * (v - t["threshold"]) / half)
    lo, hi = sorted((f(t["low"]), f(t["high"])))
    pub = None if t.get("published") is None else f(float(t["published"]))
    return f(t["estimate"]), lo, hi, pub


def _clip(v: float) -> float:
    return max(-CLIP, min(CLIP, v))


def forest(recs: list[dict], title: str):
    """The forest plot of one paper's records (in ledger order); returns the Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from lib.plots import paper_style      # here: the runner loads this module, and plots loads pyplot

    with paper_style():
        fig, ax = plt.subplots(figsize=(11, 0.3 * len(recs) + 1.6))
        ax.axvspan(0, CLIP, color=COLOURS["held"], alpha=0.06, lw=0)          # the claim's side
        ax.axvspan(-CLIP, 0, color=COLOURS["contradicted"], alpha=0.04, lw=0)
        for i, r in enumerate(recs):
            y = len(recs) - 1 - i
            t, colour = deciding(r), COLOURS[r["status"]]
            ax.text(-CLIP - 0.3, y, r["id"], ha="right", va="center", fontsize=7.5)
            if t is None or any(math.isnan(float(t[k])) for k in ("estimate", "low", "high")):
                ax.text(0.15, y, "not applicable: " + (r.get("detail") or "")[:70], va="center", fontsize=6.5,
                        color=colour)
                continue
            e, lo, hi, pub = _scaled(t)
            ax.plot([_clip(lo), _clip(hi)], [y, y], color=colour, lw=2.2, solid_capstyle="butt")
            ax.plot([_clip(e)], [y], "o", color=colour, ms=5, label=r["status"])
            for v, mark in ((lo, "<"), (hi, ">")):
                if abs(v) > CLIP:
                    ax.plot([_clip(v)], [y], mark, color=colour, ms=5)
            if pub is not None:
                ax.plot([_clip(pub)], [y], "D", mfc="none", mec="black", ms=5)
            g = lambda v: f"{v:.3g}"
            ax.text(CLIP + 0.3, y, f"{t['statistic'][:60]} = {g(t['estimate'])} [{g(t['low'])}, {g(t['high'])}] "
                    f"{t['side']} {t['threshold']:.3g}", va="center", fontsize=6.5)
        ax.axvline(0, color="black", lw=1)
        ax.set_xlim(-CLIP, CLIP)
        ax.set_ylim(-0.7, len(recs) - 0.3)
        ax.set_yticks([])
        ax.set_xlabel("(statistic − threshold) / half-width of its 95 % interval;  claim's side →")
        ax.set_title(title, loc="left")
        handles = [Line2D([], [], color=COLOURS[s], lw=2.2, marker="o", label=s) for s in STATUSES]
        handles.append(Line2D([], [], ls="", marker="D", mfc="none", mec="black", label="paper's printed value"))
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.9 / (0.3 * len(recs) + 1.6)),
                  ncol=5, frameon=False, fontsize=7)
        h = 0.3 * len(recs) + 1.6
        fig.subplots_adjust(left=0.2, right=0.62, top=1 - 0.45 / h, bottom=1.05 / h)
    return fig


def write_all(recs: list[dict]) -> list:
    """Write ``figures/claims-<paper>.png`` for every paper with records; returns the paths."""
    out = []
    for key, title in artifacts.PAPERS.items():
        rows = [r for r in recs if r["paper"] == key]
        path = paths.FIGURES / f"claims-{key}.png"
        if not rows:
            continue
        import matplotlib.pyplot as plt        # only for a paper with records (0.4 s a run otherwise)

        paths.ensure(paths.FIGURES)
        labels = sorted({claims.label(r) for r in rows} - {"real"})
        data = f" ({' and '.join(labels)} data)" if labels else ""
        fig = forest(rows, f"{title}: claims ledger{data}")
        # tight: the statistic beside each row runs past the figure's right edge
        artifacts.atomic_write(path, lambda p: fig.savefig(p, dpi=130, format="png", bbox_inches="tight"))
        plt.close(fig)
        out.append(path)
    return out


def write_markdown(man=None) -> dict:
    """Write the forest plots (:func:`write_all`) and ``outputs/claims.md`` from the records,
    with the notebook times of the manifest ``man`` (:func:`lib.manifest.build`); returns the
    verdict counts."""
    recs = claims.records()
    paths.ensure(paths.OUTPUTS)
    write_all(recs)
    paths.CLAIMS.write_text(claims.render_markdown(recs, claims.notebook_times(man)))
    return claims.counts(recs)
