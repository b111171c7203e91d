"""The panel over HTTP: a stdlib ThreadingHTTPServer bound to 127.0.0.1.

Routes: ``POST /v1/chat/completions``, ``GET /v1/models``, ``GET /health``, and the Batch API
(``/v1/files``, ``/v1/batches``: :mod:`lib.panel.batch`, processed in this process). A stalled
fault holds the connection for ``stall_s`` seconds (interruptible by shutdown) before answering.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from lib.panel.batch import BatchService
from lib.panel.core import Panel

HOST = "127.0.0.1"


def _make_handler(panel: Panel, stopping: threading.Event):
    batches = BatchService(panel)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # keep-alive answers are small: without TCP_NODELAY each one waits on Nagle + delayed ACK (~40 ms)
        disable_nagle_algorithm = True

        def log_message(self, fmt, *args):  # quiet: the collectors keep their own logs
            return

        def _send(self, status: int, payload, headers: dict | None = None) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
            raw = data.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                if not k.lower().startswith("x-panel-"):
                    self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)

        # ---- the Batch API: bodies go through a temporary file, file contents are streamed ----
        def _batch(self, method: str) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            try:
                with tempfile.NamedTemporaryFile(dir=batches.root, prefix=".body.", delete=True) as tmp:
                    while length > 0:
                        chunk = self.rfile.read(min(length, 1 << 20))
                        if not chunk:
                            break
                        tmp.write(chunk)
                        length -= len(chunk)
                    tmp.flush()
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    status, hdrs, payload = batches.handle(method, url.path.rstrip("/"), dict(parse_qsl(url.query)),
                                                           headers, Path(tmp.name))
            except OSError as exc:
                # e.g. a full disk under the batch folder: answer, so the client says why, instead of
                # dropping the connection (the client then only sees a ReadError)
                self.close_connection = True
                self._send(507, {"error": {"message": f"panel batch storage {batches.root}: {exc}",
                                           "type": "server_error", "code": "insufficient_storage"}})
                return
            if not isinstance(payload, Path):
                self._send(status, payload, hdrs)
                return
            self.send_response(status)
            self.send_header("Content-Type", hdrs.get("Content-Type", "application/octet-stream"))
            self.send_header("Content-Length", str(payload.stat().st_size))
            self.end_headers()
            with open(payload, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    self.wfile.write(chunk)

        def _is_batch(self) -> bool:
            return self.path.startswith(("/v1/files", "/v1/batches", "/files", "/batches"))

        def do_DELETE(self):
            if self._is_batch():
                self._batch("DELETE")
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error",
                                           "code": "not_found"}})

        def do_GET(self):
            if self._is_batch():
                self._batch("GET")
                return
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                self._send(200, panel.models())
            elif path in ("/health", "/v1/health"):
                self._send(200, {"status": "ok", "seed": panel.seed, "pid": os.getpid()})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error",
                                           "code": "not_found"}})

        def do_POST(self):
            if self._is_batch():
                self._batch("POST")
                return
            path = self.path.split("?")[0].rstrip("/")
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error",
                                           "code": "not_found"}})
                return
            try:
                body = json.loads(raw.decode("utf-8") or "null")
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                self._send(400, {"error": {"message": f"invalid JSON body: {exc}", "type": "invalid_request_error",
                                           "code": "invalid_json"}})
                return
            status, headers, payload = panel.complete(body, dict(self.headers.items()))
            stall = float(headers.get("X-Panel-Stall-Seconds", 0) or 0)
            if stall > 0 and stopping.wait(stall):
                return
            self._send(status, payload, headers)

    Handler.batches = batches
    return Handler


def _drop_batch_files(server) -> None:
    shutil.rmtree(server.RequestHandlerClass.batches.root, ignore_errors=True)


def make_server(panel: Panel, port: int = 0, host: str = HOST) -> tuple[ThreadingHTTPServer, threading.Event]:
    stopping = threading.Event()
    server = ThreadingHTTPServer((host, int(port)), _make_handler(panel, stopping))
    server.daemon_threads = True
    return server, stopping


def serve_in_thread(panel: Panel, port: int = 0, host: str = HOST):
    """Start the panel on a background thread; returns (base_url ending in /v1, stop())."""
    server, stopping = make_server(panel, port, host)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    base_url = f"http://{host}:{server.server_address[1]}/v1"

    def stop() -> None:
        stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        _drop_batch_files(server)

    return base_url, stop


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def serve_forever(panel: Panel, port: int = 0, host: str = HOST, *, parent_pid: int | None = None) -> None:
    """Serve until SIGTERM/SIGINT; the first stdout line is the base URL.

    With ``parent_pid`` the server also stops when that process is gone (checked every second),
    so a panel started by a notebook kernel never outlives a kernel that was killed.
    """
    server, stopping = make_server(panel, port, host)
    print(f"http://{host}:{server.server_address[1]}/v1", flush=True)

    def _stop(signum=None, frame=None):
        stopping.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    if parent_pid is not None:
        def _watch() -> None:
            while not stopping.wait(1.0):
                if not _alive(parent_pid):
                    print(f"parent process {parent_pid} is gone", file=sys.stderr, flush=True)
                    _stop()
                    return
        threading.Thread(target=_watch, daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        _drop_batch_files(server)
        print("panel stopped", file=sys.stderr, flush=True)
