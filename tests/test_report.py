"""outputs/index.html: every registered id is on the page, synthetic data are flagged, and it
renders in a real browser (headless Chromium)."""
import json
import os
import shutil
import subprocess
from html import escape
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib import artifacts, claims_plot, config, manifest, paths, report, sortkernel  # noqa: E402
from lib.pipeline import NotebookRun  # noqa: E402


def _n_data() -> int:
    """Data artifacts of the registry (diagrams are not-data)."""
    return sum(a.notebook is not None for a in artifacts.REGISTRY.values())


@pytest.fixture
def built_index(isolated_outputs):
    fig, ax = plt.subplots()
    ax.bar(["a"], [1])
    artifacts.save_figure(fig, "lsb-fig2", synthetic=True)
    artifacts.save_table(pd.DataFrame({"model": ["llama"], "access": ["open"]}), "lsb-tab1", synthetic=False)
    artifacts.save_text("### Task ###", "lsb-figA1")
    prof = config.load_profile("quick")
    runs = [NotebookRun(n, status="ran", wall_s=1.0) for n in config.NOTEBOOK_NAMES]
    man = manifest.build(prof, runs, run_id="test", wall_s=1.0)
    manifest.write(man)
    return man, report.write_index(man)


def test_manifest_statuses_and_files(built_index):
    man, _ = built_index
    rows = {r["id"]: r for r in json.loads(paths.MANIFEST.read_text())["artifacts"]}
    assert len(rows) == len(artifacts.REGISTRY)
    assert rows["lsb-fig2"]["status"] == "regenerated" and rows["lsb-fig2"]["synthetic"] is True
    assert rows["lsb-fig2"]["files"] == ["figures/lsb-fig2.pdf", "figures/lsb-fig2.png"]
    assert rows["lsb-fig1"]["status"] == "not-data" and rows["ab-tab5"]["status"] == "missing"
    assert man.summary.regenerated == 3 and man.summary.data_artifacts == _n_data()
    # the numpy and the sort kernel the faithful tie rules ran with (lib.sortkernel)
    import numpy
    manifest = json.loads(paths.MANIFEST.read_text())
    assert manifest["numpy"] == numpy.__version__
    assert manifest["numpy_sort_kernel"] == sortkernel.numpy_sort_kernel()


def test_tampered_file_is_not_reported_as_regenerated(built_index):
    (paths.FIGURES / "lsb-fig2.png").write_bytes(b"not the figure")
    man = manifest.build(config.load_profile("quick"), [], run_id="t", wall_s=0)
    assert {r.id: r.status for r in man.artifacts}["lsb-fig2"] == "missing"


def test_index_lists_every_id_with_status_and_synthetic_banner(built_index):
    _, index = built_index
    html = index.read_text()
    for aid in artifacts.REGISTRY:
        assert f'id="{aid}"' in html
    assert 'src="figures/lsb-fig2.png"' in html and "<td>llama</td>" in html and "### Task ###" in html
    assert html.count('class="synthetic"') == 1 and "not the papers' findings" in html


def test_a_mixed_profile_is_labelled_mixed_in_the_manifest_and_the_report(isolated_outputs, tmp_path):
    """issue 16: a declared mixed set-up (real endpoint, synthetic world) says so in every output."""
    (tmp_path / "mixed.yaml").write_text("name: mixed\nsynthetic: mixed\nseed: 1\nworld: {n_authors: 10}\n"
                                         "llm: {base_url: 'http://127.0.0.1:9/v1'}\n")
    prof = config.load_profile(tmp_path / "mixed.yaml")
    fig, _ = plt.subplots()
    artifacts.save_figure(fig, "lsb-fig2", synthetic=prof.synthetic)
    artifacts.save_figure(plt.subplots()[0], "lsb-figB6", synthetic=True)      # the synthetic world alone
    artifacts.save_table(pd.DataFrame({"model": ["llama"]}), "lsb-tab1", synthetic=False)
    man = manifest.build(prof, [], run_id="t", wall_s=0)
    rows = {r.id: r for r in man.artifacts}
    assert man.run.label == "mixed" and man.run.synthetic == "mixed"
    assert [rows[a].label for a in ("lsb-fig2", "lsb-figB6", "lsb-tab1")] == ["mixed", "synthetic", "real"]
    html = report.render_index(man)
    assert "<b>Mixed data.</b>" in html and "synthetic: mixed" in html and "<b>Synthetic data.</b>" in html
    assert html.count("mixed data</span>") == 1 and html.count(escape(artifacts.MIXED_NOTE)) == 1
    assert "mixed data</span>" in html.split('id="lsb-fig2"')[1].split('class="card"')[0]


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.browser
def test_index_renders_in_headless_chromium(built_index, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("COMPANION_REQUIRE_BROWSER"):
            pytest.fail("chromium is required here (COMPANION_REQUIRE_BROWSER is set) but not installed")
        pytest.skip("chromium not installed (apt-get install chromium); .ci/run installs it")
    _, index = built_index
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", index.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    for aid in artifacts.REGISTRY:
        assert f'id="{aid}"' in dom, aid
    assert f"3 of {_n_data()} artifacts regenerated" in dom
    shot = tmp_path / "index.png"
    subprocess.run([browser, *flags, "--window-size=1200,900", f"--screenshot={shot}", index.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000  # a real rendering, not a blank page


def test_index_shows_claims_table_per_paper_and_claims_on_cards(built_index, monkeypatch):
    from lib import claims

    man, _ = built_index
    monkeypatch.setenv("COMPANION_PROFILE", "quick")
    flip = claims.Claim("ab-flip-vs-boost", "authority_bias", "§5.1", "39.2% flip vs 21.7% boost.", ("ab-tab5",))
    gap = claims.interval("flip − boost rate", 0.175, -0.01, 0.36, test="Newcombe", n=40, unit="pairs")
    claims.check(flip, lambda: claims.judge([gap], {"gap pp": 17.5}), synthetic=True,
                 notebook="05_authority_pilot_regression")
    man = man.model_copy(update={"stages": manifest.Stages(notebooks={"05_authority_pilot_regression": manifest.NotebookTimes(
        status="ran", wall_s=12.34, stages=[], peak_rss_mb=None, run_id="test", earlier_run=False, cells_s=0)},
        total_s=12.34, this_run_s=12.34)})
    claims_plot.write_markdown(man)          # also the forest plots
    html = report.write_index(man).read_text()
    ab = html[html.index("<h2>Authority bias"):html.index("<h2>Attribution bias")]
    assert "Claims: 0 held, 0 contradicted, 1 inconclusive, 0 not applicable" in ab
    assert '<tr id="claim-ab-flip-vs-boost">' in ab and "flip − boost rate = 0.175 [-0.01, 0.36] vs above 0" in ab
    assert "n ≈ " in ab and "pairs (this run: 40); reached by:" in ab and claims.RULE[1:40] in ab
    assert '<img class="forest"' in ab and 'src="figures/claims-authority_bias.png"' in ab
    assert ab.index('<img class="forest"') < ab.index('<table class="claims">')
    assert "<code>./run_all.sh --only 05</code> (quick)" in ab and "<td>12.3 s</td>" in ab
    card = html[html.index('<div class="card" id="ab-tab5"'):]
    card = card[:card.index('<div class="card"', 10)]
    assert 'href="#claim-ab-flip-vs-boost"' in card and "inconclusive" in card
    lsb = html[html.index("<h2>LLMScholarBench"):html.index("<h2>Authority bias")]
    assert "Claims:" not in lsb


def test_a_partial_model_is_marked_in_the_manifest_and_its_artifacts(isolated_outputs, monkeypatch):
    """Issue 26: a model that answered too few requests is *partial* in the manifest, on every artifact
    of the notebook that collected it and of those downstream, and in the printed summary."""
    import io

    from lib.llm import coverage as collect

    fig, ax = plt.subplots()
    ax.bar(["a"], [1])
    artifacts.save_figure(fig, "lsb-figA2", synthetic=True)            # notebook 01
    artifacts.save_table(pd.DataFrame({"x": [1]}), "ab-tab5", synthetic=True)   # notebook 05: not downstream
    monkeypatch.setenv("COMPANION_NOTEBOOK", "01_calibration")
    collect.write_coverage(paths.RAW, {("temperature_analysis", "dead"): [10, 3],
                                       ("temperature_analysis", "fine"): [10, 9]})
    from lib import registry

    man = manifest.build(config.load_profile("quick"), [], run_id="t", wall_s=0, upstream=registry.upstream())
    assert [(p.model, p.answered, p.planned) for p in man.partial] == [("dead", 3, 10)]
    assert man.partial[0].used_by == ["01_calibration", "02_collection", "03_infrastructure_benchmark",
                                    "04_interventions"]
    rows = {r["id"]: r for r in man.to_dict()["artifacts"]}
    assert rows["lsb-figA2"]["partial_models"] == ["dead"] and "partial_models" not in rows["ab-tab5"]
    out = io.StringIO()
    manifest.print_summary(man, out=out)
    assert "PARTIAL: model dead (temperature_analysis) answered 3 of 10 requests (30%" in out.getvalue()
    assert collect.partial_models(experiment="temperature_analysis").keys() == {"dead"}
