"""lib.claims_plot: the forest plot's scale (hand-computed), one row per claim in its outcome's
colour, clipping, not-applicable rows, and one PNG per paper that has claims."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from lib import claims, claims_plot, paths  # noqa: E402

AB = "authority_bias"


def _verdict(est, low, high, threshold, side="above"):
    return lambda: claims.judge([claims.interval("rate", est, low, high, threshold, side)])


@pytest.mark.parametrize("t, want", [
    # (0.45 - 0.3) / 0.1 = 1.5; the interval 0.35..0.55 is 0.5..2.5 half-widths right of the line
    ({"estimate": 0.45, "low": 0.35, "high": 0.55, "threshold": 0.3, "side": "above"}, (1.5, 0.5, 2.5, None)),
    # a below claim is mirrored: -0.2 with threshold 0 and half-width 0.1 is 2 on the claim's side
    ({"estimate": -0.2, "low": -0.3, "high": -0.1, "threshold": 0.0, "side": "below", "published": -0.25},
     (2.0, 1.0, 3.0, 2.5)),
    ({"estimate": 0.5, "low": 0.2, "high": 0.6, "threshold": 0.4, "side": "not above"}, (-0.5, -1.0, 1.0, None)),
    # a significance test (zero width) is measured in its own units: 3 - 1.3 = 1.7
    ({"estimate": 3.0, "low": 3.0, "high": 3.0, "threshold": 1.3, "side": "above", "published": "2"},
     (1.7, 1.7, 1.7, 0.7)),
])
def test_scale_is_half_widths_from_the_threshold_on_the_claims_side(t, want):
    got = claims_plot._scaled(t)
    assert got[:3] == pytest.approx(want[:3]) and (got[3] is None if want[3] is None else got[3] == pytest.approx(want[3]))


def test_forest_draws_rows_in_order_clips_far_values_and_names_not_applicable(isolated_outputs):
    held = claims.Claim("ab-a-held", AB, "§1", "s")
    far = claims.Claim("ab-b-far", AB, "§2", "s")
    na = claims.Claim("ab-c-na", AB, "§3", "s")
    claims.check(held, _verdict(0.45, 0.35, 0.55, 0.3), synthetic=True, notebook="05_authority_pilot_regression")
    claims.check(far, _verdict(0.0, -0.1, 0.1, 1.0), synthetic=True, notebook="05_authority_pilot_regression")
    claims.check(na, lambda: claims.not_applicable("fewer than two topics"), synthetic=True,
                 notebook="05_authority_pilot_regression")
    recs = claims.records()
    assert [r["status"] for r in recs] == ["held", "contradicted", "not applicable"]
    fig = claims_plot.forest(recs, "t")
    ax = fig.axes[0]
    ids = {t.get_text(): t.get_position()[1] for t in ax.texts if t.get_text().startswith("ab-")}
    assert ids == {"ab-a-held": 2, "ab-b-far": 1, "ab-c-na": 0}                     # first claim on top
    segs = {ln.get_color(): list(ln.get_xdata()) for ln in ax.get_lines()
            if len(ln.get_xdata()) == 2 and ln.get_linestyle() == "-"}
    assert segs[claims_plot.COLOURS["held"]] == pytest.approx([0.5, 2.5])
    # (0 - 1) / 0.1 = -10 half-widths, interval -11..-9: drawn at the edge, with an arrow
    assert segs[claims_plot.COLOURS["contradicted"]] == [-claims_plot.CLIP, -claims_plot.CLIP]
    arrows = [ln for ln in ax.get_lines() if ln.get_marker() == "<"]
    assert len(arrows) == 1 and list(arrows[0].get_xdata()) == [-claims_plot.CLIP]
    assert any(t.get_text() == "not applicable: fewer than two topics" for t in ax.texts)
    assert ax.get_xlim() == (-claims_plot.CLIP, claims_plot.CLIP)
    plt.close(fig)


def test_write_all_writes_one_png_per_paper_with_claims(isolated_outputs):
    claims.check(claims.Claim("ab-x", AB, "§1", "s"), _verdict(0.45, 0.35, 0.55, 0.3), synthetic=True,
                 notebook="05_authority_pilot_regression")
    assert claims_plot.write_all(claims.records()) == [paths.FIGURES / f"claims-{AB}.png"]
    assert (paths.FIGURES / f"claims-{AB}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in paths.FIGURES.iterdir()) == [f"claims-{AB}.png"]
    assert claims_plot.write_markdown() == {"held": 1, "contradicted": 0, "inconclusive": 0, "not applicable": 0}
    assert "figures/claims-authority_bias.png" in paths.CLAIMS.read_text()


def test_the_saved_plot_keeps_the_whole_statistic_and_says_synthetic(isolated_outputs, monkeypatch):
    long = "diversity_prominence_cit change (0.2 SD margin)"
    claims.check(claims.Claim("ab-x", AB, "§1", "s"),
                 lambda: claims.judge([claims.interval(long, 0.0279, -0.0203, 0.0762, 0.0383, "below", n=39)]),
                 synthetic=True, notebook="05_authority_pilot_regression")
    titles = []
    forest = claims_plot.forest
    monkeypatch.setattr(claims_plot, "forest", lambda recs, title: titles.append(title) or forest(recs, title))
    path, = claims_plot.write_all(claims.records())
    assert titles[0].endswith("claims ledger (synthetic data)")
    import numpy as np
    from PIL import Image

    # the row's text "… below 0.0383" runs past the 11 in figure's right edge: the saved box
    # keeps it, so the image ends in white padding instead of in cut glyphs
    fig = forest(claims.records(), titles[0])
    fig.draw_without_rendering()
    text = next(t for t in fig.axes[0].texts if t.get_text().startswith(long))
    assert text.get_window_extent().x1 > fig.get_size_inches()[0] * fig.dpi
    px = np.asarray(Image.open(path).convert("L"))
    assert (px[:, -8:] == 255).all() and (px[:, :-8] < 200).any()
