"""lib.panel.server: the panel's routes over real HTTP, how faults reach the wire (status, headers,
stalls cut by shutdown, truncated bodies), and the server's own lifetime (stop, parent watch)."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import httpx
import pytest

from lib import paths
from lib.panel import FaultConfig, Panel
from lib.panel.server import _alive, serve_in_thread

ASK = [{"role": "user", "content": "hello there"}]      # no paper's prompt: the panel's "rephrase" answer


@pytest.fixture
def serve():
    """``serve(faults)`` -> (panel, base_url); every server started is stopped after the test."""
    stops = []

    def start(faults=None):
        panel = Panel(5, faults=faults or FaultConfig())
        url, stop = serve_in_thread(panel)
        stops.append(stop)
        return panel, url
    yield start
    for stop in stops:
        stop()


def _model(panel) -> str:
    return panel.models()["data"][0]["id"]


def test_health_and_models_routes(serve):
    panel, url = serve()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    root = url[:-3]
    with httpx.Client(timeout=5) as c:
        assert c.get(f"{root}/health").json() == {"status": "ok", "seed": 5, "pid": os.getpid()}
        assert c.get(f"{url}/health/").json()["status"] == "ok"            # trailing slash and /v1 prefix
        listing = c.get(f"{url}/models")
        assert listing.status_code == 200 and listing.headers["content-type"] == "application/json"
        assert listing.json() == panel.models() and listing.json()["data"]
        assert c.get(f"{root}/models").json() == panel.models()


@pytest.mark.parametrize("method, path", [("GET", "/v1/nothing"), ("POST", "/v1/completions"),
                                          ("DELETE", "/v1/chat/completions")])
def test_unknown_routes_answer_404_with_an_openai_error(serve, method, path):
    _, url = serve()
    r = httpx.request(method, url[:-3] + path, json={}, timeout=5)
    assert r.status_code == 404
    assert r.json()["error"] == {"message": f"no route {path}", "type": "invalid_request_error", "code": "not_found"}


def test_a_body_that_is_not_json_gets_400(serve):
    _, url = serve()
    r = httpx.post(f"{url}/chat/completions", content=b"{not json", timeout=5)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_json"
    assert "invalid JSON body" in r.json()["error"]["message"]


def test_a_chat_over_http_is_the_in_process_answer(serve):
    panel, url = serve()
    body = {"model": _model(panel), "messages": ASK, "temperature": 0.5, "seed": 3}
    r = httpx.post(f"{url}/chat/completions", json=body, timeout=5)
    status, _, payload = panel.complete(body, {})
    assert r.status_code == status == 200
    got = r.json()
    assert got["choices"] == payload["choices"] and got["id"] == payload["id"]
    assert "rephrase" in got["choices"][0]["message"]["content"]
    # the in-process path takes the headers the HTTP client sent: a replicate header changes the answer's key
    again = httpx.post(f"{url}/chat/completions", json=body, headers={"X-Replicate": "9"}, timeout=5).json()
    assert again["id"] != got["id"]


def test_a_429_fault_carries_retry_after(serve):
    panel, url = serve(FaultConfig(rate_429=1.0, retry_after_s=2.5))
    r = httpx.post(f"{url}/chat/completions", json={"model": _model(panel), "messages": ASK}, timeout=5)
    assert r.status_code == 429 and r.headers["retry-after"] == "2.5"
    assert r.json()["error"]["type"] == "rate_limit_exceeded"


def test_a_stall_delays_the_answer_and_its_header_stays_inside(serve):
    panel, url = serve(FaultConfig(rate_stall=1.0, stall_s=0.4))
    t0 = time.monotonic()
    r = httpx.post(f"{url}/chat/completions", json={"model": _model(panel), "messages": ASK}, timeout=5)
    assert time.monotonic() - t0 >= 0.4
    assert r.status_code == 200 and r.json()["choices"]
    assert not [h for h in r.headers if h.lower().startswith("x-panel-")]


def test_shutdown_does_not_wait_out_a_stall_and_the_stalled_client_gets_no_answer():
    panel = Panel(5, faults=FaultConfig(rate_stall=1.0, stall_s=60))
    url, stop = serve_in_thread(panel)
    outcome = {}

    def ask():
        try:
            outcome["r"] = httpx.post(f"{url}/chat/completions", json={"model": _model(panel), "messages": ASK},
                                      timeout=3)
        except httpx.HTTPError as exc:
            outcome["error"] = exc
    t = threading.Thread(target=ask)
    t.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    stop()
    assert time.monotonic() - t0 < 2                 # not the 60 s stall
    t.join(timeout=10)
    assert not t.is_alive() and "r" not in outcome and isinstance(outcome["error"], httpx.HTTPError)


def test_a_truncated_fault_sends_json_cut_mid_way(serve):
    panel, url = serve(FaultConfig(rate_truncated=1.0))
    r = httpx.post(f"{url}/chat/completions", json={"model": _model(panel), "messages": ASK}, timeout=5)
    assert r.status_code == 200 and r.text.startswith('{"id": "gen-')
    assert int(r.headers["content-length"]) == len(r.content)
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.text)


def test_stop_removes_the_batch_folder_and_closes_the_port(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))       # the batch service's folder lands here
    url, stop = serve_in_thread(Panel(5))
    r = httpx.post(f"{url}/files", files={"file": ("in.jsonl", b"{}\n")}, data={"purpose": "batch"}, timeout=5)
    assert r.status_code == 200, r.text
    (root,) = tmp_path.glob("panel_batch_*")
    assert list(root.glob("*.jsonl"))                              # the upload is stored there
    stop()
    assert not root.exists()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/models", timeout=2)


def test_alive_tells_a_running_process_from_a_finished_one():
    assert _alive(os.getpid())
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert not _alive(proc.pid)


def test_serve_forever_prints_its_url_and_stops_when_its_parent_is_gone():
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    code = ("import sys; from lib.panel import Panel; from lib.panel.server import serve_forever; "
            "serve_forever(Panel(1), parent_pid=int(sys.argv[1]))")
    server = subprocess.Popen([sys.executable, "-c", code, str(parent.pid)], cwd=paths.ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        assert httpx.get(f"{url}/models", timeout=5).status_code == 200
        parent.kill()
        parent.wait()
        assert server.wait(timeout=10) == 0
        err = server.stderr.read()
        assert f"parent process {parent.pid} is gone" in err and "panel stopped" in err
    finally:
        for p in (parent, server):
            if p.poll() is None:
                p.kill()
                p.wait()
