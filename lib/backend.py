"""Where the notebooks' chat completions go: the embedded panel or the profile's real endpoint.

``open_endpoint(cfg)`` is the one place outside the tests that knows both the synthetic LLM panel
(:mod:`lib.panel`) and the OpenAI-compatible client (:mod:`lib.llm.client`). The collecting
notebooks (01, 02, 05, 06) write::

    with backend.open_endpoint(cfg) as endpoint:
        summary = collect(requests, endpoint)

- ``cfg.llm.base_url`` is None (the embedded default, DESIGN §3): the synthetic world of
  (``cfg.seed``, ``cfg.world.n_authors``) is loaded (parquet cache), a panel is built over it and
  served on 127.0.0.1 on a free port, by a server process of its own, for the duration of the
  ``with`` block (``llm.panel_transport`` offers a thread or no socket instead). The panel needs no
  key, so the endpoint carries none and nothing reads the profile's ``api_key_env``. The panel
  answers by model *key* (it keeps grounded and plain Gemini apart).
- Otherwise the profile's endpoint is returned as is (``Endpoint.from_profile``): the key is read
  from the environment variable it names, at send time, by the client only.

The collection notebooks (01, 02) also turn the raw store into the tables the analysis reads:
:func:`attempt_table` (one row per attempt, both label sets, provenance; built model by model
from the store by :func:`attempts_from_store`) and :func:`name_table` (one row per recommended
name with its match in the ground truth); :func:`write_parquet` stores them. Importing this module does not import the panel (only ``open_endpoint`` does, lazily), and
the analysis notebooks read the parquet, never this module.
"""
from __future__ import annotations

import asyncio
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Iterator, Sequence

import httpx
import pandas as pd

from lib.llm import labels
from lib.llm.client import Endpoint


class PanelTransport(httpx.AsyncBaseTransport):
    """An httpx transport that hands each request to a panel in this process (no socket).

    The request goes through the whole client (body, headers, retries, status handling, JSON
    parsing); only the TCP hop and the HTTP server are skipped, which halves the CPU time per
    attempt of a collection against the embedded panel. The panel answers from the same body and
    headers as over HTTP, so the responses are identical. A stalled fault waits ``stall_s``
    seconds before answering, as the server does, so the client's timeout fires the same way.
    """

    def __init__(self, panel):
        self.panel = panel
        self._batches = None

    async def _batch_api(self, request: httpx.Request) -> httpx.Response:
        """``/v1/files`` and ``/v1/batches`` (llm.mode: batch) through the panel's batch service."""
        from lib.panel.batch import BatchService

        if self._batches is None:
            self._batches = BatchService(self.panel)
        with tempfile.NamedTemporaryFile(dir=self._batches.root, prefix=".body.") as tmp:
            tmp.write(await request.aread())
            tmp.flush()
            status, headers, payload = self._batches.handle(
                request.method, request.url.path.rstrip("/"), dict(request.url.params),
                {k.lower(): v for k, v in request.headers.items()}, Path(tmp.name))
        data = payload.read_bytes() if isinstance(payload, Path) else json.dumps(payload).encode("utf-8")
        return httpx.Response(status, content=data, request=request,
                              headers={"Content-Type": "application/json", **headers})

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if "/files" in request.url.path or "/batches" in request.url.path:
            return await self._batch_api(request)
        try:
            body = json.loads((await request.aread()).decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            status, headers, payload = 400, {}, {"error": {"message": f"invalid JSON body: {exc}",
                                                           "type": "invalid_request_error", "code": "invalid_json"}}
        else:
            status, headers, payload = self.panel.complete(body, dict(request.headers.items()))
        stall = float(headers.get("X-Panel-Stall-Seconds", 0) or 0)
        if stall > 0:
            await asyncio.sleep(stall)
        data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        return httpx.Response(status, content=data.encode("utf-8"), request=request,
                              headers={"Content-Type": "application/json",
                                       **{k: v for k, v in headers.items() if not k.lower().startswith("x-panel-")}})


#: base URL recorded for in-process requests (the reserved .invalid domain: never a network host)
IN_PROCESS_URL = "http://panel.invalid/v1"


@contextmanager
def open_endpoint(cfg, *, world=None, with_world: bool = True, cache_dir=None, in_process: bool = False,
                  **panel_kw) -> Iterator[Endpoint]:
    """Yield the :class:`~lib.llm.client.Endpoint` the profile ``cfg`` asks for (see module doc).

    Panel options (ignored for a real endpoint): ``world``, a loaded
    :class:`lib.groundtruth.world.World` to serve (else the world of ``cfg`` from its cache);
    ``with_world=False`` starts a panel without a ground truth (enough for the authority and
    AttriBench prompts, which do not ask for scholars); ``cache_dir`` for the world cache;
    ``panel_kw`` goes to :class:`lib.panel.Panel` (``quotes=``, ``faults=``).

    How the panel is reached follows ``llm.panel_transport`` (``in_process=True`` forces the last):

    - ``http`` (default): a server process of its own (``python -m lib.panel serve``) on a free
      port of 127.0.0.1, as a real endpoint is. Client and panel then run on separate cores
      instead of sharing one interpreter lock, which halves the wall time of a collection.
    - ``http_thread``: the same server on a thread of this process (one interpreter lock).
    - ``in_process``: no port; the endpoint carries a :class:`PanelTransport` (its ``base_url``
      is :data:`IN_PROCESS_URL`) and the same client code talks to the panel directly.

    All three give identical answers. The panel is stopped and its port closed when the block
    exits, also on an exception; a server process also stops by itself if this process dies.
    """
    llm = cfg.llm
    if llm.base_url is not None:
        yield Endpoint.from_profile(llm)
        return
    mode = "in_process" if in_process else getattr(llm, "panel_transport", "http")
    if mode == "http":
        with _panel_process(cfg, world=world, with_world=with_world, cache_dir=cache_dir, **panel_kw) as base_url:
            # the panel never asks for a key: api_key_env=None whatever the profile names
            yield Endpoint.from_profile(llm, base_url=base_url, api_key_env=None)
        return
    from lib.panel import Panel, serve_in_thread

    if with_world:
        if world is None:
            from lib.groundtruth.world import load_world

            world = load_world(cfg.seed, cfg.world.n_authors, cache_dir=cache_dir)
        panel = Panel.from_world(world, cfg.seed, **panel_kw)
    else:
        panel = Panel(cfg.seed, **panel_kw)
    if mode == "in_process":
        yield replace(Endpoint.from_profile(llm, base_url=IN_PROCESS_URL, api_key_env=None),
                      transport=PanelTransport(panel))
        return
    base_url, stop = serve_in_thread(panel)
    try:
        yield Endpoint.from_profile(llm, base_url=base_url, api_key_env=None)
    finally:
        stop()


#: seconds a panel server process may take to load its world and print its address
PANEL_START_TIMEOUT_S = 600.0


@contextmanager
def _panel_process(cfg, *, world=None, with_world: bool = True, cache_dir=None, quotes=None,
                   faults=None) -> Iterator[str]:
    """Run ``python -m lib.panel serve`` for ``cfg`` in a child process; yield its base URL.

    The child reads the world from its folder (``world.source``, the cache entry of ``cfg``, or
    a temporary copy of a world that was never saved) and quotes given as a table from a
    temporary parquet. Its stderr goes to a temporary log whose tail is shown if it fails to start.
    """
    from lib import paths

    with tempfile.TemporaryDirectory(prefix="panel_") as tmp:
        tmp = Path(tmp)
        cmd = [sys.executable, "-m", "lib.panel", "serve", "--seed", str(int(cfg.seed)), "--port", "0",
               "--parent-pid", str(os.getpid())]
        if not with_world:
            cmd.append("--no-world")
        else:
            from lib.groundtruth import world as gw

            if world is None:
                folder = gw.ensure_world(cfg.seed, cfg.world.n_authors, cache_dir=cache_dir)
            elif world.source is not None:
                folder = world.source
            else:
                folder = gw.save_world(world, tmp / "world")
            cmd += ["--world-dir", str(folder)]
        if quotes is not None:
            if isinstance(quotes, pd.DataFrame):
                quotes.to_parquet(tmp / "quotes.parquet", index=False)
                quotes = tmp / "quotes.parquet"
            cmd += ["--quotes", str(quotes)]
        if faults is not None and faults.spec():
            cmd += ["--faults", faults.spec()]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(paths.ROOT), os.environ.get("PYTHONPATH", "")])}
        with open(tmp / "panel.log", "wb") as log_fh:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log_fh, cwd=paths.ROOT, env=env)
        try:
            base_url = _read_address(proc, tmp / "panel.log")
            yield base_url
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            proc.stdout.close()


def _read_address(proc, log_path: Path) -> str:
    """The base URL the panel server prints first, or an error with its log's tail."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + PANEL_START_TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            if sel.select(timeout=0.5):
                line = proc.stdout.readline().decode("utf-8", "replace").strip()
                if line.startswith("http://"):
                    return line
                try:  # end of output: the server is exiting
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
                break
            if proc.poll() is not None:
                break
    finally:
        sel.close()
    tail = log_path.read_text(encoding="utf-8", errors="replace")[-2000:] if log_path.exists() else ""
    reason = (f"exited with code {proc.returncode}" if proc.poll() is not None
              else f"printed no address within {PANEL_START_TIMEOUT_S:.0f} s" if time.monotonic() >= deadline
              else "closed its output without an address")
    raise RuntimeError(f"the embedded panel server ({' '.join(proc.args[1:6])} ...) {reason}; its log:\n{tail}")


# ---- collection tables ----------------------------------------------------------------------------
#: provenance kept per attempt from the raw record (lib.llm.client's flat record)
RECORD_COLUMNS = ("request_id", "status", "http_status", "tries", "served_model", "provider", "system_fingerprint",
                  "base_url", "requested_model", "sub_provider", "finish_reason", "latency_s", "started_at",
                  "finished_at", "prompt_sha256")
MODEL_COLUMNS = ("grounded", "access", "size_class", "model_class", "model_family", "reasoning")


def attempt_table(records: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    """One row per stored attempt with both label sets, the chosen attempts and provenance.

    ``records``: :meth:`lib.llm.store.RawStore.records`; ``models``: :func:`lib.llm.models.load_models`.
    Labels: :func:`lib.llm.labels.label_attempts` in faithful mode (``label`` = the reference's
    label, ``valid_attempt`` its chosen attempt, reference §2.1–2.2) plus the paper's seven labels
    (``label_paper``) and the attempt they choose (``valid_attempt_paper``: the lowest ``valid``,
    else ``verbose``, paper label). ``run`` is the replicate index (it stands for the paper's
    twice-daily runs). Provenance: served model, provider, fingerprint, status, tries, latency,
    timestamps, token usage. Model attributes: access, size class, reasoning class, grounded (RAG).
    """
    if records.empty:
        raise ValueError("attempt_table: the raw store holds no attempt for this experiment")
    unknown = sorted(set(records["model"]) - set(models["key"]))
    if unknown:
        raise KeyError(f"attempt_table: records column model has keys {unknown} not in lib/resources/lsb_models.csv")
    lab = labels.label_attempts(records, mode="faithful")
    lab["valid_attempt_paper"] = labels.set_attempt_validity(lab, label_col="label_paper")["valid_attempt"]
    lab.insert(lab.columns.get_loc("replicate") + 1, "run", lab["replicate"])
    rec = records.reset_index(drop=True)
    for c in RECORD_COLUMNS:
        lab[c] = rec[c] if c in rec else None
    usage = rec["usage"] if "usage" in rec else pd.Series([{}] * len(rec))
    for c in ("prompt_tokens", "completion_tokens", "total_tokens"):
        lab[c] = usage.map(lambda u, c=c: (u or {}).get(c) if isinstance(u, dict) else None).astype("Int64")
    errors = rec["error"] if "error" in rec else pd.Series([None] * len(rec))
    lab["error_kind"] = errors.map(lambda e: e.get("kind") if isinstance(e, dict) else None)
    attrs = models.set_index("key")[list(MODEL_COLUMNS)]
    for c in MODEL_COLUMNS:
        lab[c] = lab["model"].map(attrs[c]).to_numpy()
    lab["size_class"] = lab["size_class"].astype(str)
    return lab


def attempts_from_store(models: pd.DataFrame, experiment: str, *, requests=None, store_root=None) -> pd.DataFrame:
    """:func:`attempt_table` of one experiment of the raw store, built model by model.

    The store keeps one shard per (experiment, model), and the chosen attempt is decided within a
    request, so labelling shard by shard is exact while only one model's raw records (full
    response bodies) are in memory at a time. ``requests`` (the plan, a list of
    :class:`lib.llm.client.Request`) keeps only the attempts of those requests, so a store that
    also holds an earlier, larger plan gives the same table. ``store_root`` defaults to
    ``lib.paths.RAW``.
    """
    from itertools import groupby

    from lib.llm.store import RawStore, request_key

    wanted = {r.key for r in requests} if requests is not None else None
    parts = []
    stream = RawStore(store_root).iter_records(experiment)
    for _, recs in groupby(stream, key=lambda r: r["model"]):
        chunk = [r for r in recs if wanted is None or request_key(r) in wanted]
        if chunk:
            parts.append(attempt_table(pd.DataFrame(chunk), models))
    if not parts:
        raise ValueError(f"raw store {RawStore(store_root).root}: no attempt of experiment {experiment!r}"
                         + (" for the requested plan" if wanted is not None else ""))
    return pd.concat(parts, ignore_index=True)


def name_table(attempts: pd.DataFrame, authors: pd.DataFrame, *,
               modes: Sequence[str] = ("faithful", "paper"), index_cache: Path | str | None = None) -> pd.DataFrame:
    """One row per recommended name of the chosen attempts, with its ground-truth match.

    ``mode`` 'faithful': the reference's name rows (§2.2) matched with the faithful rule of
    :mod:`lib.scholar.matching`; 'paper': the paper labels' list items matched with the corrected
    rule. Columns: mode, request keys, run, attempt, label, name, years, doi, career_age, flag,
    clean_name, author_id (<NA> when unmatched), score, n_best (homonyms), matched.
    The ground-truth indexes of large author tables are cached on disk
    (:func:`lib.scholar.matching.cached_index`; ``index_cache`` overrides its folder).
    """
    from lib.scholar import matching

    out = []
    for mode in modes:
        if mode == "faithful":
            rows = labels.name_rows(attempts, mode="faithful")
            index = matching.cached_index(authors, "faithful", cache_dir=index_cache)
        elif mode == "paper":
            view = attempts.assign(valid_attempt=attempts["valid_attempt_paper"], label=attempts["label_paper"])
            rows = labels.name_rows(view, mode="paper")
            index = matching.cached_index(authors, "corrected", cache_dir=index_cache)
        else:
            raise ValueError(f"name_table: modes must be 'faithful' or 'paper', got {mode!r}")
        m = matching.match_names(rows["name"], index)
        rows = rows.assign(run=rows["replicate"], clean_name=m["clean_name"].to_numpy(),
                           author_id=m["author_id"].array, score=m["score"].to_numpy(),
                           n_best=m["n_best"].to_numpy(), matched=m["matched"].to_numpy())
        rows.insert(0, "mode", mode)
        out.append(rows)
    return pd.concat(out, ignore_index=True)


def _jsonable(v):
    return json.dumps(v, ensure_ascii=False, default=str) if isinstance(v, (list, dict, tuple)) else v


def write_parquet(df: pd.DataFrame, path: Path | str) -> Path:
    """Write ``df`` as parquet; list/dict cells (the label items) become JSON text, so the file
    reads back with any engine (``json.loads`` restores them). Mixed-type object columns
    (e.g. career ages as text or numbers) are stored as text."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            vals = out[c].map(_jsonable)
            kinds = {type(v) for v in vals if v is not None and not (isinstance(v, float) and v != v)}
            out[c] = vals.map(lambda v: v if v is None or isinstance(v, str) else str(v)) if len(kinds) > 1 else vals
    out.attrs = {}
    tmp = path.with_name(f".{path.name}.tmp")
    out.to_parquet(tmp, index=False)
    tmp.replace(path)
    return path
