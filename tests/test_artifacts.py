"""The artifact registry and the save functions notebooks write through."""
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib import artifacts, config, paths  # noqa: E402


def test_registry_holds_every_artifact_of_the_three_papers():
    reg = artifacts.REGISTRY
    assert len(reg) == 75
    per_paper = {p: sum(a.paper == p for a in reg.values()) for p in artifacts.PAPERS}
    assert per_paper == {"llmscholarbench": 27, "authority_bias": 24, "attribution_bias": 24}
    diagrams = sorted(a.id for a in reg.values() if a.kind == "diagram")
    assert diagrams == ["at-fig1", "at-fig2", "at-fig3", "lsb-fig1"]
    assert all(a.notebook is None for a in reg.values() if a.kind == "diagram")
    assert {a.notebook for a in reg.values() if a.notebook} == set(config.NOTEBOOK_NAMES)
    assert all(len(a.caption) >= 8 and a.caption == a.caption.strip() for a in reg.values())
    assert {a.id for a in artifacts.by_notebook("05_authority_pilot_regression")} == {f"ab-tab{i}" for i in range(1, 24)} | {"ab-quirks"}


def test_unknown_id_suggests_the_closest():
    with pytest.raises(KeyError, match="did you mean lsb-fig2"):
        artifacts.get("lsb-fig22")


def test_save_figure_writes_pdf_png_and_a_record(isolated_outputs):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    files = artifacts.save_figure(fig, "lsb-fig2", synthetic=True)
    assert [f.name for f in files] == ["lsb-fig2.pdf", "lsb-fig2.png"]
    assert files[0].read_bytes().startswith(b"%PDF") and files[1].read_bytes()[:4] == b"\x89PNG"
    assert any(artifacts.SYNTHETIC_NOTE in t.get_text() for t in fig.texts)
    rec = json.loads((paths.RECORDS / "lsb-fig2.json").read_text())
    assert rec["synthetic"] is True and rec["files"] == ["figures/lsb-fig2.pdf", "figures/lsb-fig2.png"]
    assert rec["sha256"]["figures/lsb-fig2.png"] == artifacts.sha256_file(files[1])
    assert not list(paths.FIGURES.glob(".*tmp")), "no temporary files left behind"


def test_real_figures_carry_no_synthetic_label(isolated_outputs):
    fig, _ = plt.subplots()
    artifacts.save_figure(fig, "at-fig4", synthetic=False)
    assert not fig.texts


def test_save_table_writes_csv_and_booktabs_latex(isolated_outputs):
    df = pd.DataFrame({"model": ["a_b", "c"], "validity": [0.91234, 0.5]})
    csv, tex = artifacts.save_table(df, "lsb-tab1", synthetic=True)
    assert pd.read_csv(csv).equals(df)
    latex = tex.read_text()
    for piece in (r"\toprule", r"\midrule", r"\bottomrule", r"\label{tab:lsb-tab1}", "0.912", r"a\_b", "(synthetic data)"):
        assert piece in latex
    # the process remembers what it saved (comparisons read these, never a stale CSV)
    df.loc[0, "validity"] = -1.0                      # a later change to the caller's frame is not seen
    saved = artifacts.saved_tables("lsb-")
    assert saved["lsb-tab1"]["validity"].iloc[0] == 0.91234 and "ab-tab1" not in saved


def test_a_mixed_label_reaches_the_caption_the_figure_and_the_record(isolated_outputs):
    """issue 16: synthetic: 'mixed' (a mixed profile's value, passed through as notebooks pass
    cfg.synthetic) is neither the synthetic nor the real label."""
    _, tex = artifacts.save_table(pd.DataFrame({"model": ["a"]}), "lsb-tab1", synthetic="mixed")
    latex = tex.read_text()
    assert "(mixed data: real answers, synthetic inputs)" in latex and "(synthetic data)" not in latex
    fig, _ = plt.subplots()
    artifacts.save_figure(fig, "lsb-fig2", synthetic="mixed")
    assert [t.get_text() for t in fig.texts] == [artifacts.MIXED_NOTE]
    for aid, label in (("lsb-tab1", "mixed"), ("lsb-fig2", "mixed")):
        rec = json.loads((paths.RECORDS / f"{aid}.json").read_text())
        assert rec["label"] == label and rec["synthetic"] is True      # mixed outputs hold synthetic inputs
    artifacts.save_table(pd.DataFrame({"model": ["a"]}), "lsb-tab1", synthetic=False)
    assert json.loads((paths.RECORDS / "lsb-tab1.json").read_text())["label"] == "real"
    with pytest.raises(ValueError, match="True, False or 'mixed', got 'Mixed'"):
        artifacts.save_table(pd.DataFrame({"model": ["a"]}), "lsb-tab1", synthetic="Mixed")


def test_save_text(isolated_outputs):
    (out,) = artifacts.save_text("### Task ###\n", "lsb-figA1")
    assert out.read_text() == "### Task ###\n"
    assert json.loads((paths.RECORDS / "lsb-figA1.json").read_text())["synthetic"] is False


def test_wrong_kind_empty_table_and_wrong_producer_are_refused(isolated_outputs, monkeypatch):
    with pytest.raises(ValueError, match="registered as a figure, not a table"):
        artifacts.save_table(pd.DataFrame({"a": [1]}), "lsb-fig2", synthetic=True)
    with pytest.raises(ValueError, match="empty table"):
        artifacts.save_table(pd.DataFrame({"a": []}), "lsb-tab1", synthetic=True)
    monkeypatch.setenv("COMPANION_NOTEBOOK", "06_attribution_fairness")
    with pytest.raises(ValueError, match="produced by notebook 01_calibration, not by 06_attribution_fairness"):
        artifacts.save_table(pd.DataFrame({"a": [1]}), "lsb-tab1", synthetic=True)
