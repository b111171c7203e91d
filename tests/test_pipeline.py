"""The papermill runner: order, skip-if-unchanged, stage times, secret scrubbing, the dry run,
papermill's parameters, kernels and declared data folders. The failure paths (a failing cell, a
timeout, SIGINT, a bad profile, a missing promise) are in tests/project/test_runner_failures.py,
so that the two files run on the two workers.

Runs the real CLI (`python -m lib.pipeline`) in a subprocess on three small fixture notebooks
(tests/data/pipeline_notebooks/) with their own outputs folder (tests/pipeline_fixture.py).
"""
import json
from pathlib import Path

import pytest

from lib import artifacts, paths, pipeline
from pipeline_fixture import CANARY, FIXTURES, manifest, profile, run, status

@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pipeline")
    prof = profile(tmp, promises="[lsb-tab1, lsb-figA1, lsb-figB6]")
    return tmp, prof, run(tmp, "--profile", str(prof))


def test_first_run_executes_in_order_and_regenerates_the_promises(first_run):
    tmp, _, proc = first_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    ran = [ln.split()[1] for ln in lines if " done in " in ln]
    assert ran == ["01_calibration", "02_collection", "03_infrastructure_benchmark"]
    assert any("04_interventions" in ln and "not yet written" in ln for ln in lines)
    n_data = sum(a.notebook is not None for a in artifacts.REGISTRY.values())
    assert f"3 of {n_data} artifacts regenerated" in proc.stdout
    st = status(tmp)
    assert st["lsb-tab1"] == st["lsb-figA1"] == st["lsb-figB6"] == "regenerated"
    assert st["lsb-fig2"] == "missing" and st["lsb-fig1"] == "not-data"
    # 02 read 01's data: its text artifact lists 01's models
    assert (tmp / "outputs/texts/lsb-figA1.txt").read_text() == "m0\nm1\nm2!"
    man = manifest(tmp)
    row = next(a for a in man["artifacts"] if a["id"] == "lsb-tab1")
    assert row["files"] == ["tables/lsb-tab1.csv", "tables/lsb-tab1.tex"] and row["synthetic"] is True
    assert row["profile"] == "tiny" and len(row["input_hash"]) == 64 and row["notebook_wall_s"] > 0
    assert (tmp / "outputs/index.html").is_file() and (tmp / "outputs/executed/02_collection.ipynb").is_file()


def test_manifest_records_wall_and_stage_times_per_notebook(first_run):
    tmp, _, _ = first_run
    man = manifest(tmp)
    block = man["stages"]
    assert list(block["notebooks"]) == ["01_calibration", "02_collection", "03_infrastructure_benchmark"]
    for name, entry in block["notebooks"].items():
        # the fixture notebooks have no ## heading: all their cells are the setup stage
        assert [s["stage"] for s in entry["stages"]] == ["setup"], entry
        assert entry["earlier_run"] is False and entry["run_id"] == man["run_id"] and entry["status"] == "ran"
        assert 0 < entry["cells_s"] < entry["wall_s"]
        executed = json.loads((tmp / "outputs/executed" / f"{name}.ipynb").read_text())
        durations = sum(c["metadata"]["papermill"]["duration"] for c in executed["cells"])
        assert entry["cells_s"] == pytest.approx(durations, abs=0.01)
        assert entry["peak_rss_mb"] is None or 20 < entry["peak_rss_mb"] < 4000
    assert block["total_s"] == block["this_run_s"] == round(sum(e["wall_s"] for e in block["notebooks"].values()), 2)


def _cell(kind: str, source, duration=None) -> dict:
    meta = {} if duration is False else {"papermill": {"duration": duration}}
    return {"cell_type": kind, "source": source, "metadata": meta}


def test_stage_times_sum_the_cells_under_each_level_two_heading():
    from lib.pipeline import stage_times

    nb = {"cells": [
        _cell("markdown", "# 01 Title\n\nText", 0.001),
        _cell("code", "import x", 1.5),
        _cell("code", "profile = 'quick'", 0.25),           # the parameters cell
        _cell("markdown", ["## Table 1: models\n", "\n", "what it shows"], 0.002),
        _cell("code", "tab1 = ...", 2.0),
        _cell("markdown", "### A subsection stays in its stage", 0.0),
        _cell("code", "more", 3.0),
        _cell("markdown", "Some text\n## Heading not on the first line", None),
        _cell("code", "y", 4.0),
        _cell("code", "never reached", None),                # after a failure: no duration
        _cell("code", "no papermill metadata", False),
    ]}
    assert stage_times(nb) == [
        {"stage": "setup", "seconds": 1.751},
        {"stage": "Table 1: models", "seconds": 5.002},
        {"stage": "Heading not on the first line", "seconds": 4.0},
    ]
    # no cells before the first heading: no setup stage; a repeated heading is a new stage
    nb2 = {"cells": [_cell("markdown", "## A", None), _cell("code", "", 1.0), _cell("markdown", "## A", None),
                     _cell("code", "", 2.0)]}
    assert stage_times(nb2) == [{"stage": "A", "seconds": 1.0}, {"stage": "A", "seconds": 2.0}]
    assert stage_times({"cells": []}) == [{"stage": "setup", "seconds": 0.0}]


def test_stage_times_file_tolerates_a_missing_or_broken_notebook(tmp_path):
    from lib.pipeline import stage_times_file

    assert stage_times_file(tmp_path / "absent.ipynb") == []
    (tmp_path / "broken.ipynb").write_text("{not json")
    assert stage_times_file(tmp_path / "broken.ipynb") == []
    (tmp_path / "ok.ipynb").write_text(json.dumps({"cells": [_cell("code", "x", 0.5)]}))
    assert stage_times_file(tmp_path / "ok.ipynb") == [{"stage": "setup", "seconds": 0.5}]


def test_secrets_never_reach_executed_notebooks_or_logs(first_run):
    tmp, _, _ = first_run
    written = [p for p in (tmp / "outputs").rglob("*") if p.is_file()]
    assert any(p.suffix == ".ipynb" for p in written) and any(p.suffix == ".log" for p in written)
    for p in written:
        assert CANARY.encode() not in p.read_bytes(), p
    assert "***" in (tmp / "outputs/executed/01_calibration.ipynb").read_text()


def test_second_run_skips_everything_and_changes_rerun_only_what_depends_on_them(first_run):
    tmp, prof, _ = first_run
    before = manifest(tmp)["stages"]["notebooks"]
    again = run(tmp, "--profile", str(prof))
    assert again.returncode == 0 and again.stdout.count("skipped: inputs unchanged") == 3, again.stdout
    assert status(tmp)["lsb-figA1"] == "regenerated"
    # skipped notebooks keep the stage times of the run that made their outputs, marked as such
    after = manifest(tmp)["stages"]
    for name, entry in after["notebooks"].items():
        assert entry["earlier_run"] is True and entry["status"] == "skipped"
        assert entry["stages"] == before[name]["stages"] and entry["wall_s"] == before[name]["wall_s"]
        assert entry["run_id"] == before[name]["run_id"] != manifest(tmp)["run_id"]
    assert after["this_run_s"] == 0 and after["total_s"] == round(sum(e["wall_s"] for e in before.values()), 2)
    # a parameter of 02 that changes its artifact but not the data it hands on: only 02 re-runs
    prof2 = profile(tmp, notebooks="{02_collection: {suffix: '?'}}", promises="[lsb-tab1, lsb-figA1, lsb-figB6]")
    p2 = run(tmp, "--profile", str(prof2))
    ran = [ln.split()[1] for ln in p2.stdout.splitlines() if " done in " in ln]
    assert ran == ["02_collection"], p2.stdout
    # a parameter of 01 that changes its data: 01, then 02 (upstream changed) and 03 (02's data changed)
    prof3 = profile(tmp, notebooks="{01_calibration: {n_rows: 4}, 02_collection: {suffix: '?'}}")
    p3 = run(tmp, "--profile", str(prof3))
    ran = [ln.split()[1] for ln in p3.stdout.splitlines() if " done in " in ln]
    assert ran == ["01_calibration", "02_collection", "03_infrastructure_benchmark"], p3.stdout
    # an output deleted by hand is noticed
    (tmp / "outputs/figures/lsb-figB6.png").unlink()
    p4 = run(tmp, "--profile", str(prof3))
    ran = [ln.split()[1] for ln in p4.stdout.splitlines() if " done in " in ln]
    assert ran == ["03_infrastructure_benchmark"], p4.stdout
    # --only and --force
    p5 = run(tmp, "--profile", str(prof3), "--only", "02", "--force")
    ran = [ln.split()[1] for ln in p5.stdout.splitlines() if " done in " in ln]
    assert ran == ["02_collection"], p5.stdout


def test_dry_run_plans_the_quick_design_and_sends_nothing(isolated_outputs, capsys, monkeypatch):
    """--dry-run: the requests of 01, 02 and 05 as their notebooks build them, with no endpoint opened."""
    import json

    from lib import endpoints, pipeline

    def refuse(*a, **k):
        raise AssertionError("the dry run opened an endpoint")
    monkeypatch.setattr(endpoints, "open_endpoint", refuse)
    assert pipeline.main(["--profile", "quick", "--only", "01,02,03,05", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "03_infrastructure_benchmark: analyses only (no requests)" in out
    totals = {(t["notebook"], t["provider"]): t for t in json.loads((isolated_outputs / "dry_run.json").read_text())["totals"]}
    # quick.yaml's design: 01 = (20 models x 3 replicates + 4 Gemini x 2) x 6 parameters x 7 temperatures;
    # 02 = 24 models x 30 parameters x 3 runs; 05 = pilot 5 topics x 4 queries x 100 prompts x 3 models
    # + main 25 topics x 4 queries x 9 cells x 9 models
    assert totals[("01_calibration", "panel")]["requests"] == (20 * 3 + 4 * 2) * 6 * 7
    assert totals[("02_collection", "panel")]["requests"] == 24 * 30 * 3
    assert totals[("05_authority_pilot_regression", "panel")]["requests"] == 5 * 4 * 100 * 3 + 25 * 4 * 9 * 9
    assert all(t["cost_usd"] == 0.0 for t in totals.values())      # the embedded panel is free
    assert not (isolated_outputs / "executed").exists() and not (isolated_outputs / "raw").exists()


@pytest.mark.parametrize("notebook", [p.stem for p in sorted(paths.NOTEBOOKS.glob("[0-9][0-9]_*.py"))])
def test_papermill_reads_every_parameter_of_each_notebook(notebook, caplog):
    """papermill infers the parameters cell line by line; a line it cannot parse (e.g. a second '='
    in its comment) is logged as "Unable to parse" and the parameter then shows as unknown."""
    import jupytext
    from papermill.inspection import _infer_parameters

    from lib import config

    nb = jupytext.read(paths.NOTEBOOKS / f"{notebook}.py")
    for cell in nb.cells:
        cell.metadata.setdefault("tags", [])
    with caplog.at_level("WARNING", logger="papermill"):
        names = [p.name for p in _infer_parameters(nb)]
    assert "Unable to parse" not in caplog.text
    assert names == list(config.notebook_parameters(notebook))


def test_each_kernel_gets_its_own_socket_folder_and_leaves_none_behind(tmp_path, monkeypatch):
    """Two runs started at once from one directory raced for jupyter_client's ``kernel-ipc-N`` and
    one failed with "Invalid Signature"; each kernel now binds in a folder of its own."""
    import asyncio

    monkeypatch.chdir(tmp_path)
    manager = pipeline._ipc_kernel_manager()

    async def start_two():
        kms = [manager(kernel_name=pipeline.KERNEL) for _ in range(2)]
        for km in kms:
            await km.start_kernel()
        folders = [Path(km.ip).parent for km in kms]
        alive = [f.is_dir() for f in folders]
        for km in kms:
            await km.shutdown_kernel(now=True)
        return folders, alive

    folders, alive = asyncio.run(start_two())
    assert folders[0] != folders[1] and alive == [True, True]
    assert not any(f.exists() for f in folders)
    assert list(tmp_path.glob("kernel-ipc*")) == []


def test_a_data_folder_off_its_declaration_fails_the_notebook(isolated_outputs):
    from lib import registry

    nb = registry.notebooks()["02_collection"]
    folder = paths.stage_dir("02_collection")
    folder.mkdir(parents=True)
    for f in nb.writes[1:]:
        (folder / f).write_text("x")
    (folder / "scratch.parquet").write_text("x")
    msg = pipeline._stage_problems("02_collection")
    assert f"undeclared ['scratch.parquet'], declared but not written ['{nb.writes[0]}']" in msg and str(folder) in msg
    (folder / "scratch.parquet").unlink()
    (folder / nb.writes[0]).write_text("x")
    assert pipeline._stage_problems("02_collection") == ""


def test_independent_notebooks_run_side_by_side_and_take_turns_on_the_raw_store(tmp_path):
    """05 and 06 read nothing of each other: with --jobs 2 they run at once, each kernel with its own
    notebook name, log and memory figure, and their collections wait for the store's writer lock
    instead of failing on it (each fixture holds the lock for 3 s)."""
    import subprocess
    import sys

    import pandas as pd

    from pipeline_fixture import env, store_holders

    side = store_holders(tmp_path)
    prof = profile(tmp_path, notebooks="{05_authority_pilot_regression: {hold_s: 3.0}, "
                                       "06_attribution_fairness: {hold_s: 3.0}}")
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(prof), "--jobs", "2"], cwd=paths.ROOT,
                          env={**env(tmp_path / "outputs", tmp_path / "cache"), "COMPANION_NOTEBOOKS": str(side)},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    started = [ln.split()[1] for ln in proc.stdout.splitlines() if "running ..." in ln]
    done = [ln.split()[1] for ln in proc.stdout.splitlines() if " done in " in ln]
    assert started == ["05_authority_pilot_regression", "06_attribution_fairness"] and sorted(done) == started
    data = tmp_path / "outputs/data"
    held = {nb: pd.read_parquet(data / nb / f).iloc[0] for nb, f in
            [("05_authority_pilot_regression", "papers.parquet"), ("06_attribution_fairness", "fixture_universe.parquet")]}
    a, b = held.values()
    assert a.held_to <= b.held_from or b.held_to <= a.held_from, held      # one writer at a time
    executed = {nb: json.loads((tmp_path / "outputs/executed" / f"{nb}.ipynb").read_text()) for nb in held}
    span = {nb: (pd.Timestamp(e["metadata"]["papermill"]["start_time"]), pd.Timestamp(e["metadata"]["papermill"]["end_time"]))
            for nb, e in executed.items()}
    (s5, e5), (s6, e6) = span.values()
    assert s6 < e5 and s5 < e6, span                                         # the notebooks overlapped
    logs = {nb: (tmp_path / "outputs/logs" / f"{nb}.log").read_text() for nb in held}
    for nb, other in [tuple(held), tuple(held)[::-1]]:
        assert f"fixture {nb} says hello" in logs[nb] and f"fixture {other} says hello" not in logs[nb]
    text = "".join(logs.values()) + "".join(json.dumps(e) for e in executed.values())
    assert "waiting for it" in text                                         # the second writer waited
    block = manifest(tmp_path)["stages"]["notebooks"]
    assert all(block[nb]["peak_rss_mb"] is None or 20 < block[nb]["peak_rss_mb"] < 4000 for nb in held)
