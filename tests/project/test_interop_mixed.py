"""issue 26, item 4: a ``synthetic: mixed`` run (a real endpoint asked about the synthetic world)
is labelled mixed everywhere: the runner's banner, Fig. A.2's title and every figure's footer
(which never prints over a legend), the manifest, index.html and claims.md's header and rows."""
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib import artifacts, claims, config, manifest, paths, report  # noqa: E402
from lib.scholar import calibration  # noqa: E402

MIXED_PROFILE = ("name: mixed\nsynthetic: mixed\nseed: 1\nworld: {n_authors: 10}\n"
                 "llm: {base_url: 'http://127.0.0.1:9/v1'}\npromises: []\n")


@pytest.fixture
def mixed(tmp_path):
    (tmp_path / "mixed.yaml").write_text(MIXED_PROFILE)
    return config.load_profile(tmp_path / "mixed.yaml")


def _figure_a2(synthetic):
    """Fig. A.2 of four models, its legend (eight entries) along the bottom edge as in the run."""
    models = ["a", "b", "c", "d"]
    temps = [0.0, 0.5, 1.0]
    rows = [(m, t) for m in models for t in temps]
    shares = pd.DataFrame({"model": [m for m, _ in rows], "temperature": [t for _, t in rows],
                           "valid": [1 - t / 2 for _, t in rows], "invalid": [t / 4 for _, t in rows],
                           "skipped-item": [t / 4 for _, t in rows]})
    scores = pd.DataFrame({"model": shares["model"], "temperature": shares["temperature"],
                           "fact_mean": 0.8, "fact_std": 0.1})
    selected = pd.DataFrame({"model": models, "temperature": 0.5})
    return calibration.figure_a2(shares, scores, selected, models=models, synthetic=synthetic, ncols=2)


def _footer(fig):
    return [t for t in fig.texts if t.get_text() in (artifacts.MIXED_NOTE, artifacts.SYNTHETIC_NOTE)]


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("synthetic, title_word, note", [("mixed", "MIXED", artifacts.MIXED_NOTE),
                                                         (True, "SYNTHETIC", artifacts.SYNTHETIC_NOTE)])
def test_figure_a2_title_and_footer_name_the_data_and_the_footer_clears_the_legend(
        isolated_outputs, synthetic, title_word, note):
    fig = _figure_a2(synthetic)
    assert title_word in fig._suptitle.get_text()
    assert ("SYNTHETIC" in fig._suptitle.get_text()) == (synthetic is True)
    png = [f for f in artifacts.save_figure(fig, "lsb-figA2", synthetic=synthetic) if f.suffix == ".png"][0]
    (footer,) = _footer(fig)
    assert footer.get_text() == note
    renderer = fig.canvas.get_renderer()
    box = footer.get_window_extent(renderer)
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert legends, "Fig. A.2 draws a legend"
    for lg in legends:
        assert not _overlap(box, lg.get_window_extent(renderer)), (box, lg.get_window_extent(renderer))
    for ax in fig.axes:
        if ax.get_visible():
            assert not _overlap(box, ax.get_tightbbox(renderer))
    # the saved file holds the footer: its red text is in the bottom rows of the PNG, under the legend
    img = plt.imread(png)[..., :3]
    reddish = (img[..., 0] - img[..., 1] > 0.25) & (img[..., 0] - img[..., 2] > 0.25)    # the note's #a33
    dark = img.max(axis=2) < 0.3                          # black: legend text, markers, axes
    rows = np.flatnonzero(reddish.sum(axis=1) >= 3)
    assert rows.size and rows.min() > 0.9 * img.shape[0], "the footer is the bottom line of the file"
    assert not dark[rows.min():rows.max() + 1].any(), "the footer shares its lines with the legend"


def test_a_footer_clears_a_legend_placed_below_the_axes(isolated_outputs):
    """A legend under the axes (bbox_to_anchor below 0) pushes the footer further down."""
    fig, ax = plt.subplots(figsize=(4, 3))
    for k in range(6):
        ax.plot([0, 1], [k, k + 1], label=f"line {k}")
    fig.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=3)
    artifacts.save_figure(fig, "lsb-fig2", synthetic="mixed")
    renderer = fig.canvas.get_renderer()
    (footer,) = _footer(fig)
    assert not _overlap(footer.get_window_extent(renderer), fig.legends[0].get_window_extent(renderer))


def _claim(cid: str) -> claims.Claim:
    return claims.Claim(id=cid, paper="llmscholarbench", statement="higher temperature lowers validity",
                        where="§4.1", artifacts=("lsb-figA2",))


def test_a_mixed_run_is_mixed_in_manifest_claims_md_and_index_html(isolated_outputs, mixed):
    artifacts.save_figure(_figure_a2(mixed.synthetic), "lsb-figA2", synthetic=mixed.synthetic)
    artifacts.save_table(pd.DataFrame({"model": ["a"], "temperature": [0.5]}), "lsb-tabA1", synthetic=mixed.synthetic)
    claims.check(_claim("lsb-c-temp"), lambda: claims.Verdict("held", {"slope": -0.4}, "slope < 0"),
                 synthetic=mixed.synthetic, notebook="01_calibration")
    rec = json.loads((paths.OUTPUTS / "records" / "claims" / "lsb-c-temp.json").read_text())
    assert rec["label"] == "mixed" and rec["synthetic"] is True

    man = manifest.build(mixed, [], run_id="t", wall_s=0)
    rows = {r.id: r for r in man.artifacts}
    assert man.run.label == "mixed" and rows["lsb-figA2"].label == rows["lsb-tabA1"].label == "mixed"

    md = claims.render_markdown(claims.records(), claims.notebook_times(man))
    assert "**Mixed data.**" in md and "synthetic: mixed" in md
    assert "**Synthetic data.**" not in md and "embedded default" not in md
    row = next(line for line in md.splitlines() if "`lsb-c-temp`" in line and line.startswith("|"))
    assert "**held** (mixed)" in row and "(synthetic)" not in row

    html = report.render_index(man)
    assert "<b>Mixed data.</b>" in html and "<b>Synthetic data.</b>" not in html
    claim_row = html.split('id="claim-lsb-c-temp"')[1].split("</tr>")[0]
    assert "(mixed)" in claim_row and "(synthetic)" not in claim_row
    assert "mixed data</span>" in html.split('id="lsb-figA2"')[1].split('class="card"')[0]


def test_a_synthetic_claim_next_to_a_mixed_one_keeps_its_own_label(isolated_outputs):
    """Records of both kinds (the synthetic world alone, a mixed run): each row says its own."""
    claims.check(_claim("lsb-c-a"), lambda: claims.Verdict("held", {}, "r"), synthetic=True, notebook="01_calibration")
    claims.check(_claim("lsb-c-b"), lambda: claims.Verdict("not held", {}, "r"), synthetic="mixed",
                 notebook="01_calibration")
    md = claims.render_markdown(claims.records())
    assert "**Synthetic data.**" in md and "**Mixed data.**" in md
    rows = {c: next(line for line in md.splitlines() if f"`{c}`" in line and line.startswith("|"))
            for c in ("lsb-c-a", "lsb-c-b")}
    assert "(synthetic)" in rows["lsb-c-a"] and "(mixed)" in rows["lsb-c-b"] and "(synthetic)" not in rows["lsb-c-b"]
    # a record written before labels existed reads as its synthetic flag said
    assert claims.label({"synthetic": True}) == "synthetic" and claims.label({"synthetic": False}) == "real"


def test_the_runner_banner_says_mixed(tmp_path, mixed):
    (tmp_path / "nb").mkdir()
    env = {**os.environ, "COMPANION_OUTPUTS": str(tmp_path / "outputs"), "COMPANION_CACHE": str(tmp_path / "cache"),
           "COMPANION_NOTEBOOKS": str(tmp_path / "nb")}
    out = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(tmp_path / "mixed.yaml")],
                         cwd=paths.ROOT, env=env, capture_output=True, text=True, timeout=120)
    banner = next(line for line in out.stdout.splitlines() if line.startswith("profile mixed"))
    assert "MIXED data" in banner and "synthetic embedded default" not in banner, out.stdout + out.stderr
