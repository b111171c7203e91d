"""Where the notebooks' chat completions go: the embedded panel or the profile's real endpoint.

``open_endpoint(cfg)`` is the one place outside the tests that knows both the synthetic LLM panel
(:mod:`lib.panel`) and the OpenAI-compatible client (:mod:`lib.llm.client`). The collecting
notebooks (01, 02, 05, 06) write::

    with endpoints.open_endpoint(cfg) as endpoint:
        summary = collect(requests, endpoint)

- ``cfg.llm.base_url`` is None (the embedded default, DESIGN §3): the synthetic world of
  (``cfg.seed``, ``cfg.world.n_authors``) is loaded (parquet cache), a panel is built over it and
  served on 127.0.0.1 on a free port, by a server process of its own, for the duration of the
  ``with`` block (``llm.panel_transport`` offers a thread or no socket instead). The panel needs no
  key, so the endpoint carries none and nothing reads the profile's ``api_key_env``. The panel
  answers by model *key* (it keeps grounded and plain Gemini apart).
- ``cfg.llm.base_url`` given: the profile's one endpoint is returned as is (``Endpoint.from_profile``)
  and every model goes there; the key is read from the environment variable it names, at send time,
  by the client only.
- ``cfg.llm.providers`` given: a :class:`lib.llm.providers.RoutedEndpoint`, one endpoint per named
  provider; collection sends each request to the provider of its model (the paper's routing table)
  and refuses to start while a provider it needs has no key.

Importing this module does not import the panel (only ``open_endpoint`` does, lazily); the
analysis reads the raw store and the parquet tables built from it, never this module.
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
from typing import Iterator

import httpx
import pandas as pd

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
    """Yield the :class:`~lib.llm.client.Endpoint` (or the routed endpoint of ``llm.providers``) the
    profile ``cfg`` asks for (see module doc).

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
    if getattr(llm, "providers", None):
        from lib.llm.providers import RoutedEndpoint

        yield RoutedEndpoint.from_profile(llm)
        return
    if llm.base_url is not None:
        yield Endpoint.from_profile(llm)
        return
    mode = "in_process" if in_process else getattr(llm, "panel_transport", "http")
    if mode == "http":
        with _panel_process(cfg, world=world, with_world=with_world, cache_dir=cache_dir, **panel_kw) as base_url:
            # the panel never asks for a key: api_key_env=None whatever the profile names
            yield Endpoint.from_profile(llm, base_url=base_url, api_key_env=None)
        return
    from lib import registry
    from lib.panel import Panel, serve_in_thread

    if with_world:
        if world is None:
            from lib.groundtruth.world import load_world

            world = load_world(cfg.seed, cfg.world.n_authors, cache_dir=cache_dir)
        panel = Panel.from_world(world, cfg.seed, own_models=registry.own_models(cfg) or None, **panel_kw)
    else:
        panel = Panel(cfg.seed, own_models=registry.own_models(cfg) or None, **panel_kw)
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
        from lib import registry

        for paper, rows in registry.own_models(cfg).items():     # the profile's own models (models.<paper>)
            rows.to_csv(tmp / f"own_{paper}.csv", index=False)
            cmd += ["--own-models", f"{paper}={tmp / f'own_{paper}.csv'}"]
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
