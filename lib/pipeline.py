"""The runner behind ``./run_all.sh``: execute the notebooks with papermill, in order of what they read.

Each notebook runs with a named kernel, the repository root as working directory, a per-cell
timeout and the parameters of the chosen profile. A notebook whose inputs (its source, the hash
of ``lib/``, its parameters, the data of its upstream notebooks, the pinned requirements) are
unchanged since its last successful run, and whose outputs are still on disk, is skipped. A
failure stops the run, names the notebook and the failing cell, and keeps the executed notebook.
The run ends with the manifest summary (``N of M artifacts regenerated``).

Timing: each executed notebook's wall time and its stage times (:func:`stage_times`, the seconds
of the cells under each ``## `` heading, from papermill's per-cell durations) and the peak
resident memory of its kernel go into the notebook's state file and the manifest's ``stages``
block; a skipped notebook keeps the times of the run that produced its outputs (marked
``earlier_run``). ``benchmarks/pipeline_stages.py`` prints them.

Interruptions: SIGINT (Ctrl-C) or SIGTERM stops the running notebook and shuts its kernel down
(the kernel's own children, e.g. the embedded panel, stop with it); the notebook is recorded as
failed, so the next run executes it again, and collections resume from the raw store. The exit
code is 130 (SIGINT) or 143 (SIGTERM). A cell that outlasts ``execution_timeout_s`` is reported
with the notebook, the cell number and the heading above it.

Side by side: up to ``--jobs`` notebooks run at once (default two on a machine with two cores), each
once the notebooks it reads have finished, so LLMScholarBench's 01-04 and the other papers' 05 and 06
share the cores. Their collections take turns on the raw store (its writer lock, which they wait
for). Each kernel gets its own environment, log and memory figure.

Usage: ``python -m lib.pipeline [--profile quick|paper|PATH] [--only NN ...] [--force] [--jobs N] [--dry-run]``
(``--dry-run``: :mod:`lib.dryrun`, the requests and their cost per notebook and provider; nothing runs or is sent).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import signal
import sys
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from lib import artifacts, claims, claims_plot, config, manifest, paths, rawsource, registry
from lib.llm import store as lib_store

KERNEL = "llm-audit-companion"
#: the run banner's words for a profile's data label (lib.config.Profile.data_label)
BANNER = {"synthetic": "synthetic embedded default", "real": "real data",
          "mixed": "MIXED data: a real endpoint's answers about synthetic inputs"}


@dataclass
class NotebookRun:
    name: str
    status: str = "pending"  # ran | skipped | failed | absent | not-selected
    wall_s: float = 0.0
    input_hash: str = ""
    error: str = ""
    executed: str = ""
    produced: list[str] = field(default_factory=list)
    stages: list[dict] = field(default_factory=list)
    peak_rss_mb: float | None = None


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tree_hash(root: Path, patterns: tuple[str, ...] = ("**/*",)) -> str:
    """Content hash of every file under ``root`` (paths and bytes), ignoring caches."""
    h = hashlib.sha256()
    files = sorted({p for pat in patterns for p in root.glob(pat) if p.is_file()
                    and "__pycache__" not in p.parts and not p.name.endswith((".pyc", ".tmp"))})
    for p in files:
        h.update(str(p.relative_to(root)).encode() + b"\0" + artifacts.sha256_file(p).encode())
    return h.hexdigest()


def lib_hash() -> str:
    return tree_hash(paths.LIB)


def data_digest(notebook: str) -> str:
    """Hash of the data ``notebook`` hands to later notebooks (its ``outputs/data/<name>/``)."""
    d = paths.stage_dir(notebook)
    return tree_hash(d) if d.is_dir() else "absent"


def outputs_digest(notebook: str) -> str:
    """Hash of what ``notebook`` left on disk: its data folder and its artifact files."""
    h = hashlib.sha256(data_digest(notebook).encode())
    for a in artifacts.by_notebook(notebook):
        rec = paths.RECORDS / f"{a.id}.json"
        if rec.is_file():
            for rel, digest in sorted(json.loads(rec.read_text())["sha256"].items()):
                f = paths.OUTPUTS / rel
                h.update(rel.encode() + (artifacts.sha256_file(f).encode() if f.is_file() else b"absent"))
    return h.hexdigest()


def input_hash(notebook: str, prof: config.Profile, lib_digest: str) -> str:
    """Hash of everything the notebook's results depend on (see module docstring)."""
    shared = prof.model_dump(exclude={"name", "description", "promises", "notebooks", "path", "execution_timeout_s"})
    parts = {
        "source": _sha((paths.NOTEBOOKS / f"{notebook}.py").read_bytes()),
        "lib": lib_digest,
        "params": json.dumps({"shared": shared, "own": prof.notebooks.get(notebook, {})}, sort_keys=True, default=str),
        "upstream": {u: manifest.read_state(u).get("data_digest", "absent") for u in registry.upstream()[notebook]},
        "requirements": _sha((paths.ROOT / "requirements.txt").read_bytes()),
    }
    return _sha(json.dumps(parts, sort_keys=True).encode())


def is_up_to_date(notebook: str, digest: str) -> bool:
    st = manifest.read_state(notebook)
    return (st.get("status") == "ok" and st.get("input_hash") == digest
            and st.get("outputs_digest") == outputs_digest(notebook))


class _Scrub(logging.Filter):
    def __init__(self, secrets: list[str]):
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        for s in self.secrets:
            msg = msg.replace(s, "***")
        record.msg, record.args = msg, ()
        return True


def scrub_file(path: Path, secrets: list[str]) -> int:
    """Replace every secret value in a text file by ``***``; returns how many were found."""
    if not path.is_file() or not secrets:
        return 0
    text = path.read_text(errors="replace")
    n = sum(text.count(s) for s in secrets)
    if n:
        for s in secrets:
            text = text.replace(s, "***")
        path.write_text(text)
    return n


SETUP_STAGE = "setup"  # the cells before the first ``## `` heading: title, imports, parameters


def _cell_text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def stage_times(nb: dict) -> list[dict]:
    """Seconds per stage of an executed notebook: ``[{"stage": heading, "seconds": s}, ...]``.

    A stage is a markdown section: the cells from one ``## `` heading (level 2; ``###``
    subsections stay inside it) to the next, named by the heading text; the cells before the
    first heading (title, imports, parameters, papermill's injected parameters) form
    :data:`SETUP_STAGE`. Its seconds are the sum of papermill's per-cell
    ``metadata.papermill.duration``; cells without a duration (not reached after a failure)
    count 0, so a failed notebook's stages stop where it stopped. A heading that occurs twice gives
    two stages. The kernel start and the saving of the notebook are in no stage (the
    notebook's wall time minus the stages' sum).
    """
    out = [{"stage": SETUP_STAGE, "seconds": 0.0}]
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            heading = next((ln[3:].strip() for ln in _cell_text(cell).splitlines() if ln.startswith("## ")), None)
            if heading:
                out.append({"stage": heading, "seconds": 0.0})
        duration = ((cell.get("metadata") or {}).get("papermill") or {}).get("duration")
        if duration is not None:
            out[-1]["seconds"] += float(duration)
    if out[0]["seconds"] == 0.0 and len(out) > 1:
        out.pop(0)
    return [{"stage": s["stage"], "seconds": round(s["seconds"], 3)} for s in out]


def stage_times_file(path: Path) -> list[dict]:
    """:func:`stage_times` of an executed ``.ipynb`` on disk; [] if it is missing or unreadable."""
    try:
        return stage_times(json.loads(Path(path).read_text()))
    except (OSError, ValueError):
        return []


def child_pids(pid: int | None = None) -> list[int]:
    """Process ids whose parent is ``pid`` (default this process), from /proc ([] elsewhere)."""
    me, out = str(pid or os.getpid()), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[1] == me:
                out.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return out


class _PeakRSS:
    """Peak resident memory (MB) of the kernel while a notebook runs: ``pids()`` gives the processes
    to watch (default every child process of this one).

    Samples the children's ``VmHWM`` (their own high-water mark) from ``/proc`` every
    ``interval`` seconds, so the figure is exact up to what a child allocates in its last
    ``interval``; ``None`` where ``/proc`` is absent (not Linux).
    """

    def __init__(self, interval: float = 0.5, pids=child_pids):
        self.interval, self.peak_kb, self._stop, self.pids = interval, 0, threading.Event(), pids
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> None:
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak_kb = max(self.peak_kb, int(line.split()[1]))
            except (OSError, IndexError, ValueError):
                continue

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def start(self) -> "_PeakRSS":
        if Path("/proc/self/status").is_file():
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self._sample()

    @property
    def mb(self) -> float | None:
        return round(self.peak_kb / 1024, 1) if self.peak_kb else None


def _ipc_kernel_manager(env: dict[str, str] | None = None, kernel_log: Path | None = None, on_launch=None):
    """Kernel manager on IPC sockets: no TCP ports to race for, no plain-TCP warning from the kernel.
    Each kernel's sockets live in a folder of their own: jupyter_client's default (``kernel-ipc-N``
    in the working directory, N the first free number) races between two runs started at once from
    one directory, and the loser's messages fail with "Invalid Signature".

    ``env``: added to the kernel's environment (this process's own is left alone, so two notebooks
    can start side by side); ``kernel_log``: the kernel's stderr; ``on_launch(pid)``: told the
    kernel's process id (its memory is measured)."""
    import shutil
    import tempfile

    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kw):
            super().__init__(transport="ipc", **kw)
            self.ip = str(Path(tempfile.mkdtemp(prefix="companion-kernel-")) / "ipc")

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            await super()._async_cleanup_resources(restart=restart)
            if not restart:
                shutil.rmtree(Path(self.ip).parent, ignore_errors=True)

        async def _async_launch_kernel(self, kernel_cmd, **kw):
            if env:
                kw["env"] = {**(kw.get("env") or os.environ), **env}
            # the kernel's own stderr (its shutdown noise after an interruption, e.g. a zmq.error.ZMQError
            # traceback) goes to the notebook's kernel log, not above the runner's INTERRUPTED line
            if kernel_log is None or "stderr" in kw:
                out = await super()._async_launch_kernel(kernel_cmd, **kw)
            else:
                with open(kernel_log, "ab") as fh:
                    out = await super()._async_launch_kernel(kernel_cmd, stderr=fh, **kw)
            if on_launch is not None and getattr(self.provisioner, "pid", None):
                on_launch(self.provisioner.pid)
            return out

    return IPCKernelManager


def _quiet_after_interrupt(log_path: Path) -> None:
    """After Ctrl-C, the kernel client's threads and tasks may still report their torn-down sockets
    (zmq.error.ZMQError); send those reports to the notebook's log instead of the terminal."""
    import threading

    def to_log(text: str) -> None:
        try:
            with open(log_path, "a", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError:
            pass

    threading.excepthook = lambda a: to_log(f"after the interruption, thread {a.thread}: {a.exc_type.__name__}: "
                                            f"{a.exc_value}")
    sys.unraisablehook = lambda u: to_log(f"after the interruption: {u.exc_type.__name__}: {u.exc_value}")
    # e.g. asyncio's "Task exception was never retrieved ... DeadKernelError" when the cell's task is
    # collected; a logger left with no handler would fall back to logging.lastResort, the terminal
    to_file = logging.FileHandler(log_path, encoding="utf-8", delay=True)
    to_file.setFormatter(logging.Formatter("after the interruption, %(name)s: %(message)s"))
    for name in ("asyncio", "traitlets", "papermill", "nbclient"):
        lg = logging.getLogger(name)
        lg.handlers[:] = [h for h in lg.handlers if isinstance(h, logging.FileHandler)] + [to_file]
        lg.propagate = False


def running_cell(nb: dict) -> str:
    """Which cell of a partly executed notebook it stopped in: its number and the heading above it.

    That is the first cell papermill marks running or failed, else (a timeout or an interruption,
    after which papermill marks every cell completed) the last cell that started before a code
    cell that never started. '' when every cell ran."""
    cells = nb.get("cells", [])
    meta = [((c.get("metadata") or {}).get("papermill") or {}) for c in cells]
    code = [i for i, c in enumerate(cells) if c.get("cell_type") == "code"]
    hit = next((i for i in code if meta[i].get("status") in ("running", "failed")), None)
    if hit is None and any(meta[i].get("start_time") is None for i in code):
        started = [i for i in code if meta[i].get("start_time") is not None]
        hit = started[-1] if started else None
    if hit is None:
        return ""
    heading = ""
    for cell in cells[:hit]:
        if cell.get("cell_type") == "markdown":
            heading = next((ln.lstrip("#").strip() for ln in _cell_text(cell).splitlines() if ln.startswith("#")),
                           heading)
    first = next((ln for ln in _cell_text(cells[hit]).splitlines() if ln.strip()), "")[:80]
    return f"cell {hit}" + (f" under the heading '{heading}'" if heading else "") + (f": {first}" if first else "")


def _running_cell_file(path: Path) -> str:
    try:
        return running_cell(json.loads(Path(path).read_text()))
    except (OSError, ValueError):
        return ""


def _stop_children(grace_s: float = 5.0) -> None:
    """Terminate this process's child processes (the notebook's kernel) after an interruption."""
    kids = child_pids()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in kids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace_s
        while kids and time.monotonic() < deadline:
            kids = [k for k in kids if Path(f"/proc/{k}").exists() and _reap(k)]
            time.sleep(0.05)
        if not kids:
            return


def _reap(pid: int) -> bool:
    """True while ``pid`` is still running (reaps it if it has exited)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return Path(f"/proc/{pid}").exists()


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM reached the runner."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupt(signum, frame):
    raise Interrupted(signum)


def _without_the_iri_grammars() -> None:
    """Keep jsonschema from loading ``rfc3987_syntax``: papermill and jupytext validate notebooks with
    nbformat, whose jsonschema imports that IRI checker when it is installed (jupyter-events pulls it
    in), and the import compiles some 40 lark grammars: 2.5 s at every run's start (jsonschema issue
    #1428). No nbformat schema uses the ``iri`` formats it checks, so validation is unchanged."""
    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)     # None: "import rfc3987_syntax" raises ImportError


def _prepare_input(notebook: str, out_dir: Path) -> Path:
    """Jupytext percent source -> .ipynb with the companion kernel set (papermill can't read .py)."""
    _without_the_iri_grammars()
    import jupytext

    nb = jupytext.read(paths.NOTEBOOKS / f"{notebook}.py")
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "LLM audit companion", "language": "python"}
    target = out_dir / f".{notebook}.input.ipynb"
    jupytext.write(nb, target, fmt="ipynb")
    return target


def _clear_previous(notebook: str) -> None:
    """Forget the notebook's earlier artifacts and claims so the manifest can't show stale ones."""
    claims.clear(notebook)
    for a in artifacts.by_notebook(notebook):
        rec = paths.RECORDS / f"{a.id}.json"
        if rec.is_file():
            for rel in json.loads(rec.read_text())["files"]:
                (paths.OUTPUTS / rel).unlink(missing_ok=True)
            rec.unlink()
    manifest.state_path(notebook).unlink(missing_ok=True)


def execute(notebook: str, prof: config.Profile, run_id: str, secrets: list[str], *,
            store_wait: bool = False) -> NotebookRun:
    """Run one notebook through papermill; never raises for a notebook error. ``store_wait``: other
    notebooks run beside it, so its collections wait for the raw store's writer lock
    (:data:`lib.llm.store.WAIT_ENV`, up to ``execution_timeout_s``) instead of failing on it."""
    _without_the_iri_grammars()
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    run = NotebookRun(notebook)
    paths.ensure(paths.EXECUTED, paths.LOGS, paths.STATE, paths.RECORDS, paths.stage_dir(notebook))
    _clear_previous(notebook)
    src = _prepare_input(notebook, paths.EXECUTED)
    out = paths.EXECUTED / f"{notebook}.ipynb"
    log_path, kernel_log = paths.LOGS / f"{notebook}.log", paths.LOGS / f"{notebook}.kernel.log"
    handler = logging.FileHandler(log_path, mode="w")
    handler.addFilter(_Scrub(secrets))
    me = threading.get_ident()          # papermill logs the cells' output in the thread that runs them
    handler.addFilter(lambda record: record.thread == me)
    pm_logger = logging.getLogger("papermill")
    pm_logger.addHandler(handler)
    pm_logger.setLevel(logging.INFO)
    env = dict(COMPANION_NOTEBOOK=notebook, COMPANION_PROFILE=prof.name, COMPANION_RUN_ID=run_id,
               COMPANION_OUTPUTS=str(paths.OUTPUTS), COMPANION_CACHE=str(paths.CACHE),
               MPLBACKEND="Agg", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONHASHSEED="0",
               **({lib_store.WAIT_ENV: str(prof.execution_timeout_s)} if store_wait else {}))
    kernel: list[int] = []
    started = time.perf_counter()
    rss = _PeakRSS(pids=lambda: kernel).start()
    try:
        pm.execute_notebook(
            str(src), str(out), parameters=prof.notebook_params(notebook), kernel_name=KERNEL,
            cwd=str(paths.ROOT), execution_timeout=prof.execution_timeout_s, start_timeout=120,
            request_save_on_cell_execute=True, progress_bar=False, log_output=True,
            kernel_manager_class=_ipc_kernel_manager(env, kernel_log, on_launch=kernel.append),
        )
        run.status = "ran"
        off = _stage_problems(notebook)
        if off:
            run.status, run.error = "failed", off
    except PapermillExecutionError as exc:
        run.status = "failed"
        where = _running_cell_file(out)        # numbered as in the executed notebook that is kept
        head, _, first = where.partition(": ")
        run.error = (f"{head or f'cell {exc.cell_index}'} (In [{exc.exec_count}]): {exc.ename}: {exc.evalue}".strip()
                     + f"\n    {first or (exc.source.strip().splitlines()[0][:100] if exc.source.strip() else '')}")
    except KeyboardInterrupt:
        run.status = "failed"
        _quiet_after_interrupt(log_path)
        where = _running_cell_file(out)
        run.error = f"interrupted{' in ' + where if where else ''}"
        _stop_children()
        raise
    except Exception as exc:  # kernel death, timeout, missing kernel: still a notebook failure
        run.status = "failed"
        where = _running_cell_file(out) or "a cell"
        if "timeout" in type(exc).__name__.lower() or "timed out" in str(exc).lower():
            run.error = (f"{where}: did not finish within execution_timeout_s = {prof.execution_timeout_s} s "
                         f"(profile {prof.name}); raise it in the profile if the cell needs longer")
        else:
            msg = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
            run.error = f"{type(exc).__name__} in {where}: {msg}"
    finally:
        run.wall_s = time.perf_counter() - started
        rss.stop()
        run.peak_rss_mb = rss.mb
        pm_logger.removeHandler(handler)
        handler.close()
        src.unlink(missing_ok=True)
        for f in (out, log_path, kernel_log):
            scrub_file(f, secrets)
    run.executed = str(out.relative_to(paths.OUTPUTS)) if out.is_file() else ""
    run.stages = stage_times_file(out)
    run.produced = [a.id for a in artifacts.by_notebook(notebook) if (paths.RECORDS / f"{a.id}.json").is_file()]
    return run


def _stage_problems(notebook: str) -> str:
    """What the notebook's data folder holds against its declaration (lib/<paper>/paper.py): files it
    does not declare, or declared ``writes`` it did not leave; '' when they agree. Downstream
    notebooks read only declared files, so a stray or missing one is the notebook's failure."""
    from lib import stage

    extra, missing = stage.undeclared(notebook), stage.missing_writes(notebook)
    if not (extra or missing):
        return ""
    return (f"{notebook}: its data folder {paths.stage_dir(notebook)} does not match its declaration in "
            f"lib/<paper>/paper.py (Notebook.writes / may_write): undeclared {extra}, declared but not written {missing}")


def _write_state(run: NotebookRun, prof: config.Profile, run_id: str) -> None:
    state = {"git_commit": manifest.git_commit()[0], "status": "ok" if run.status == "ran" else run.status, "input_hash": run.input_hash,
             "outputs_digest": outputs_digest(run.name), "data_digest": data_digest(run.name), "profile": prof.name, "wall_s": round(run.wall_s, 2),
             "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "produced": run.produced, "run_id": run_id,
             "stages": run.stages, "peak_rss_mb": run.peak_rss_mb}
    manifest.write_state(run.name, state)


def missing_upstream(notebook: str) -> list[str]:
    """The notebooks ``notebook`` reads from (its declared upstream, :func:`lib.registry.upstream`) whose
    outputs are not there: never run successfully in this outputs folder, or their data folder gone."""
    return [u for u in registry.upstream()[notebook] if manifest.read_state(u).get("status") != "ok"
            or not (paths.DATA / u).is_dir()]


def _upstream_hint(notebook: str, error: str) -> str:
    """A failure on a missing file while an upstream notebook's outputs are missing says what to run first
    (``--only 03`` without 02's outputs), before the notebook's own error."""
    missing = missing_upstream(notebook)
    if not missing or not any(s in (error or "") for s in ("FileNotFoundError", "No such file", "run 0")):
        return error
    first = " and ".join(u[:2] for u in missing)
    return (f"{notebook} reads the outputs of {', '.join(missing)}, which are missing: run {first} first "
            f"(./run_all.sh --only {','.join(u[:2] for u in [*missing, notebook])}); the notebook stopped at "
            f"{error}")


def default_jobs() -> int:
    """Notebooks run side by side: ``COMPANION_JOBS``, else one per core, at most two (the two
    independent chains, LLMScholarBench 01-04 and the other two papers' 05 and 06)."""
    env = os.environ.get("COMPANION_JOBS", "").strip()
    if env:
        if not env.isdigit() or int(env) < 1:
            raise SystemExit(f"COMPANION_JOBS: expected a whole number of notebooks run side by side (1 or more), got {env!r}")
        return int(env)
    return max(1, min(2, os.cpu_count() or 1))


def _stop_running(running: dict, runs: dict) -> list[NotebookRun]:
    """After Ctrl-C: stop the kernels of the running notebooks (again, until their threads are done, so
    a kernel that was just starting is stopped too), and mark each notebook failed where it stopped."""
    names = list(running.values())
    if not names:
        return []
    _quiet_after_interrupt(paths.LOGS / f"{names[0]}.log")
    deadline = time.monotonic() + 60
    while any(not f.done() for f in running) and time.monotonic() < deadline:
        _stop_children(grace_s=2.0)
        wait(list(running), timeout=0.5)
    stopped = []
    for fut, name in running.items():
        try:
            nr = fut.result(timeout=0) if fut.done() else NotebookRun(name, status="failed")
        except BaseException:       # the notebook's thread itself was interrupted
            nr = NotebookRun(name, status="failed")
        where = _running_cell_file(paths.EXECUTED / f"{name}.ipynb")
        nr.status, nr.error = "failed", f"interrupted{' in ' + where if where else ''}"
        nr.input_hash = runs[name].input_hash
        runs[name] = nr
        stopped.append(nr)
    return stopped


def run(profile: str, only: list[str] | None = None, force: bool = False, out=sys.stdout, *,
        allow_partial: bool = False, jobs: int | None = None) -> int:
    """Run the pipeline; returns the process exit code (0 only if every promise is kept and, unless
    ``allow_partial``, no model is partial: answered too few of its requests, manifest ``partial``).

    ``jobs`` notebooks run side by side (default :func:`default_jobs`): a notebook starts once the
    notebooks it reads (:func:`lib.registry.upstream`) have finished in this run, in run order.
    After a failure no further notebook starts; those running finish."""
    from lib import report

    t0 = time.perf_counter()
    selected = registry.select(only)       # validation and promises follow --only (issue 28)
    prof = config.load_or_report(profile, out, selected if only else None)
    if prof is None:
        return 2
    problems = config.folder_problems()
    if problems:
        print("folder error:\n" + "\n".join(problems), file=out)
        return 2
    try:        # never resume answers of another source (lib.rawsource)
        moved = rawsource.check(prof)
    except rawsource.RawSourceError as exc:
        print(f"raw store error:\n{exc}", file=out)
        return 2
    if moved:
        print(moved, file=out, flush=True)
    for note in config.release_notes(prof):     # absent files the run can do without, and what they add
        print(note, file=out, flush=True)
    secrets = config.secret_values(prof)
    run_id = uuid.uuid4().hex[:12]
    lib_digest = lib_hash()
    print(f"profile {prof.name} ({BANNER[prof.data_label]}), "
          f"outputs in {paths.OUTPUTS}", file=out, flush=True)
    names = registry.notebook_names()
    runs = {name: NotebookRun(name) for name in names}
    tags = {name: f"[{i}/{len(names)}] {name:<31}" for i, name in enumerate(names, 1)}
    todo = []
    for name in names:
        if not (paths.NOTEBOOKS / f"{name}.py").is_file():
            runs[name].status = "absent"
            print(f"{tags[name]} not yet written (its artifacts are reported missing)", file=out, flush=True)
        elif name in selected:
            todo.append(name)
        else:
            runs[name].status = "not-selected"
    jobs = max(1, min(jobs or default_jobs(), len(todo) or 1))
    upstream = registry.upstream()
    failed: NotebookRun | None = None
    running: dict = {}          # future -> notebook name

    def start_ready(pool) -> None:
        """Start (or skip) every notebook whose upstream in this run has finished, in run order."""
        for name in list(todo):
            if failed or len(running) >= jobs:
                return
            if any(u in todo or u in running.values() for u in upstream[name]):
                continue
            todo.remove(name)
            nr = runs[name]
            nr.input_hash = input_hash(name, prof, lib_digest)
            if not force and is_up_to_date(name, nr.input_hash):
                nr.status = "skipped"
                nr.produced = manifest.read_state(name).get("produced", [])
                print(f"{tags[name]} skipped: inputs unchanged since its last successful run", file=out, flush=True)
                return start_ready(pool)            # its downstream may be ready now
            print(f"{tags[name]} running ... (follow: tail -f {paths.LOGS / (name + '.log')})", file=out, flush=True)
            running[pool.submit(execute, name, prof, run_id, secrets, store_wait=jobs > 1)] = name

    def finish(fut) -> None:
        nonlocal failed
        name = running.pop(fut)
        nr = fut.result()
        nr.input_hash = runs[name].input_hash
        runs[name] = nr
        _write_state(nr, prof, run_id)
        if nr.status == "failed":
            failed = failed or nr
            nr.error = _upstream_hint(name, nr.error)
            print(f"{tags[name]} FAILED after {nr.wall_s:.1f} s at {nr.error}\n"
                  f"    executed notebook kept: {paths.OUTPUTS / nr.executed}\n    log: {paths.LOGS / (name + '.log')}",
                  file=out, flush=True)
        else:
            print(f"{tags[name]} done in {nr.wall_s:.1f} s ({len(nr.produced)} artifacts)", file=out, flush=True)

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="notebook")
    try:
        start_ready(pool)
        while running:
            done, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in done:
                finish(fut)
            start_ready(pool)
    except KeyboardInterrupt as exc:
        exc = exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT)
        stopped = _stop_running(running, runs)
        for nr in stopped:
            _write_state(nr, prof, run_id)
            print(f"{tags[nr.name]} INTERRUPTED ({exc}): the notebook and its kernel were stopped; nothing is marked "
                  f"complete, and a re-run resumes (collections continue from the raw store)", file=out, flush=True)
        pool.shutdown(wait=False, cancel_futures=True)
        man = manifest.build(prof, list(runs.values()), run_id=run_id, wall_s=time.perf_counter() - t0,
                             upstream=upstream)
        manifest.write(man)
        return 128 + exc.signum
    pool.shutdown(wait=True)
    for name in todo:               # not started: a notebook before them failed
        runs[name].status = "not-selected"
    runs = list(runs.values())
    man = manifest.build(prof, runs, run_id=run_id, wall_s=time.perf_counter() - t0, upstream=registry.upstream())
    man = man.with_claims(claims_plot.write_markdown(man))
    manifest.write(man)
    report.write_index(man)
    code = manifest.print_summary(man, out=out)
    if failed:
        print(f"run stopped: notebook {failed.name} failed at {failed.error.splitlines()[0]}", file=out)
        return 1
    if man.partial and not allow_partial:
        print(f"ERROR: {len(man.partial)} models are partial (see PARTIAL above and manifest 'partial'); their "
              "results stand on too few answers. Run again to resume the missing requests, or pass --allow-partial "
              "to accept them as partial", file=out)
        return code or 1
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="run_all.sh", description=__doc__.split("\n\n")[0],
        epilog="Notebooks, in order: " + ", ".join(registry.notebook_names())
        + ". Profiles: params/*.yaml. Outputs: outputs/ (manifest.json, index.html, claims.md).")
    parser.add_argument("--profile", default="quick", help="quick (default), paper, or a path to a YAML profile")
    parser.add_argument("--only", action="append", metavar="NN",
                        help="run only these notebooks (e.g. --only 03 --only 05, or --only 03,05)")
    parser.add_argument("--force", action="store_true", help="re-run notebooks even if their inputs are unchanged")
    parser.add_argument("--dry-run", action="store_true",
                        help="print per notebook and provider the requests, expected tokens and cost; send nothing "
                             "(also outputs/dry_run.csv and .json)")
    parser.add_argument("--allow-partial", action="store_true",
                        help="exit 0 even when a model answered too few of its requests (it stays marked partial)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="notebooks run side by side, each once the notebooks it reads have finished "
                             "(default COMPANION_JOBS, else one per core, at most 2; 1: one after another)")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs: expected 1 or more notebooks side by side, got {args.jobs}")
    if args.dry_run:
        from lib import dryrun

        return dryrun.run(args.profile, only=args.only)
    # explicit handlers: a runner started in the background inherits an ignored SIGINT otherwise
    signal.signal(signal.SIGINT, _raise_interrupt)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        return run(args.profile, only=args.only, force=args.force, allow_partial=args.allow_partial, jobs=args.jobs)
    except manifest.ManifestError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:      # between notebooks (loading the profile, writing the report)
        signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
        print(f"INTERRUPTED ({signal.Signals(signum).name}) outside a notebook: no notebook was stopped half-way; "
              "a re-run resumes", file=sys.stderr)
        return 128 + signum


if __name__ == "__main__":
    sys.exit(main())
