"""The runner's failure paths, end to end: a failing cell, a missing upstream, a missing promise, a
bad profile, a cell timeout, SIGINT and a resume, an outputs folder that is a file. Each runs the
real CLI in a subprocess on the fixture notebooks (tests/pipeline_fixture.py); split from
tests/test_pipeline.py so that the two files run on the two workers."""
import subprocess
import sys
from pathlib import Path

from lib import paths
from pipeline_fixture import FIXTURES, env, manifest, profile, run, status, store_holders


def test_failure_names_notebook_and_cell_keeps_the_notebook_and_stops(tmp_path):
    prof = profile(tmp_path, notebooks="{03_infrastructure_benchmark: {fail: true}}")
    proc = run(tmp_path, "--profile", str(prof))
    assert proc.returncode == 1
    assert "03_infrastructure_benchmark" in proc.stdout and "FAILED" in proc.stdout
    assert "ValueError: fixture failure requested" in proc.stdout and "cell" in proc.stdout
    executed = tmp_path / "outputs/executed/03_infrastructure_benchmark.ipynb"
    assert executed.is_file() and "fixture failure requested" in executed.read_text()
    st = status(tmp_path)
    assert st["lsb-figB6"] == "failed" and st["lsb-tab1"] == "regenerated"
    nb = {n["name"]: n for n in manifest(tmp_path)["notebooks"]}
    assert nb["03_infrastructure_benchmark"]["status"] == "failed"


def test_only_03_without_02s_outputs_says_run_02_first(tmp_path):
    """Issue 26: ``--only 03`` on a fresh outputs folder gave a bare FileNotFoundError."""
    prof = profile(tmp_path, notebooks="{03_infrastructure_benchmark: {read_upstream: true}}")
    proc = run(tmp_path, "--profile", str(prof), "--only", "03")
    assert proc.returncode == 1
    assert "reads the outputs of 02_collection, which are missing: run 02 first (./run_all.sh --only 02,03)" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_missing_promise_fails_the_run(tmp_path):
    prof = profile(tmp_path, promises="[lsb-tab1, lsb-fig2]")      # lsb-fig2 is notebook 03's; its fixture skips it
    proc = run(tmp_path, "--profile", str(prof), "--only", "01,03")
    assert proc.returncode == 1
    assert "promises 1 artifacts that are missing: lsb-fig2" in proc.stdout
    # issue 28: promises follow --only: 03's promise is not one for a run of 01 to keep
    proc = run(tmp_path, "--profile", str(prof), "--only", "01")
    assert proc.returncode == 0 and "promises" not in proc.stdout, proc.stdout


def test_a_bad_profile_stops_before_any_work(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(profile(tmp_path).read_text().replace("seed:", "sead:"))
    proc = run(tmp_path, "--profile", str(bad))
    assert proc.returncode == 2
    assert "key 'sead'" in proc.stdout and "did you mean 'seed'" in proc.stdout
    assert not (tmp_path / "outputs").exists()


def test_a_bad_profile_stops_the_dry_run_the_same_way(tmp_path, isolated_outputs, capsys):
    from lib import pipeline

    bad = tmp_path / "bad.yaml"
    bad.write_text(profile(tmp_path).read_text().replace("seed:", "sead:"))
    assert pipeline.main(["--profile", str(bad), "--dry-run"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("profile error:\n") and "key 'sead'" in out and "did you mean 'seed'" in out
    assert "dry run of profile" not in out and not isolated_outputs.exists()


def test_help_lists_the_options():
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--help"], capture_output=True, text=True)
    for opt in ("--profile", "--only", "--force", "01_calibration", "06_attribution_fairness"):
        assert opt in proc.stdout


def test_a_cell_timeout_names_the_notebook_cell_and_heading(tmp_path, isolated_outputs, monkeypatch):
    from lib import config, pipeline

    monkeypatch.setattr(paths, "NOTEBOOKS", FIXTURES)
    monkeypatch.setenv("COMPANION_NOTEBOOKS", str(FIXTURES))      # the kernel validates the profile too
    prof = config.load_profile(profile(tmp_path, notebooks="{03_infrastructure_benchmark: {sleep_s: 30.0}}"))
    prof.execution_timeout_s = 3          # below the validated minimum on purpose: the timeout path itself
    r = pipeline.execute("03_infrastructure_benchmark", prof, "t", [])
    assert r.status == "failed" and r.wall_s < 25, r
    assert "under the heading 'A slow step': time.sleep(sleep_s)" in r.error, r.error
    assert "did not finish within execution_timeout_s = 3 s" in r.error and "Error" not in r.error.split(":")[0]


def test_sigint_stops_the_runner_and_its_kernel_and_a_rerun_resumes(tmp_path):
    import signal
    import time

    prof = profile(tmp_path, notebooks="{03_infrastructure_benchmark: {sleep_s: 60.0}}")
    proc = subprocess.Popen([sys.executable, "-m", "lib.pipeline", "--profile", str(prof), "--only", "03"],
                            cwd=paths.ROOT, env=env(tmp_path / "outputs", tmp_path / "cache"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    executed = tmp_path / "outputs/executed/03_infrastructure_benchmark.ipynb"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if executed.is_file() and "time.sleep" in executed.read_text() and '"running"' in executed.read_text():
            break
        time.sleep(0.2)
    from lib.pipeline import child_pids

    kernels = child_pids(proc.pid)
    assert proc.poll() is None and kernels, "the notebook never reached its slow cell"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    assert "INTERRUPTED (SIGINT)" in out and "a re-run resumes" in out
    assert "Traceback" not in err and "ZMQError" not in err, err      # issue 26: no kernel noise on the terminal
    assert (tmp_path / "outputs/logs/03_infrastructure_benchmark.kernel.log").is_file()
    time.sleep(0.5)
    assert not [k for k in kernels if Path(f"/proc/{k}").exists()], "the kernel outlived the runner"
    again = run(tmp_path, "--profile", str(profile(tmp_path)), "--only", "03")
    assert again.returncode == 0, again.stdout
    assert "03_infrastructure_benchmark" in again.stdout and "skipped" not in again.stdout


def test_sigint_stops_both_notebooks_running_side_by_side_and_their_kernels(tmp_path):
    """05 holds the raw store's lock for a minute and 06 waits for it: Ctrl-C stops both kernels, and
    each notebook gets its INTERRUPTED line."""
    import signal
    import time

    from lib.pipeline import child_pids

    side = store_holders(tmp_path)
    prof = profile(tmp_path, notebooks="{05_authority_pilot_regression: {hold_s: 60.0}, "
                                       "06_attribution_fairness: {hold_s: 60.0}}")
    proc = subprocess.Popen([sys.executable, "-m", "lib.pipeline", "--profile", str(prof), "--jobs", "2"],
                            cwd=paths.ROOT, env={**env(tmp_path / "outputs", tmp_path / "cache"),
                                                 "COMPANION_NOTEBOOKS": str(side)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline, kernels = time.monotonic() + 120, []
    while time.monotonic() < deadline and proc.poll() is None:
        kernels = child_pids(proc.pid)
        lock = tmp_path / "outputs/raw/.writer.lock"
        if len(kernels) == 2 and lock.is_file() and "notebook" in lock.read_text():
            break
        time.sleep(0.2)
    assert proc.poll() is None and len(kernels) == 2, "the two notebooks never ran side by side"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    stopped = [ln.split()[1] for ln in out.splitlines() if "INTERRUPTED (SIGINT)" in ln]
    assert sorted(stopped) == ["05_authority_pilot_regression", "06_attribution_fairness"], out
    assert "Traceback" not in err, err
    time.sleep(0.5)
    assert not [k for k in kernels if Path(f"/proc/{k}").exists()], "a kernel outlived the runner"
    nb = {n["name"]: n for n in manifest(tmp_path)["notebooks"]}
    assert nb["05_authority_pilot_regression"]["status"] == nb["06_attribution_fairness"]["status"] == "failed"


def test_after_an_interruption_late_library_errors_go_to_the_notebook_log_not_the_terminal(tmp_path, monkeypatch, capsys):
    """The SIGINT test above once failed on a clean clone: asyncio's "Task exception was never
    retrieved ... DeadKernelError", logged when the cell's task was collected, reached the terminal
    through logging.lastResort, because the silenced loggers were left with no handler at all."""
    import logging
    import threading

    from lib import pipeline

    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    for name in ("asyncio", "traitlets", "papermill", "nbclient"):
        lg = logging.getLogger(name)
        monkeypatch.setattr(lg, "handlers", list(lg.handlers))
        monkeypatch.setattr(lg, "propagate", lg.propagate)
    log = tmp_path / "03.kernel.log"
    pipeline._quiet_after_interrupt(log)
    logging.getLogger("asyncio").error("Task exception was never retrieved: DeadKernelError('Kernel died')")
    logging.getLogger("nbclient").warning("Kernel died")
    err = capsys.readouterr().err
    assert "never retrieved" not in err and "Kernel died" not in err, err
    text = log.read_text()
    assert "asyncio: Task exception was never retrieved" in text and "nbclient: Kernel died" in text


def test_outputs_or_cache_pointing_at_a_file_stops_before_any_notebook(tmp_path):
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(profile(tmp_path))], cwd=paths.ROOT,
                          env=env(a_file, a_file / "cache"), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    assert f"COMPANION_OUTPUTS (outputs folder): {a_file} is a file; expected a folder" in proc.stdout
    assert f"COMPANION_CACHE (cache folder): {a_file / 'cache'} cannot be created: {a_file} is a file" in proc.stdout
