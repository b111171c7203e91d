"""Browser check: a double click on notebooks/03_infrastructure_benchmark.py in JupyterLab opens it
as a notebook on the companion's kernel (the default-viewer override of default_setting_overrides.json).

Usage: python scripts/jupyter/check_double_click.py [SCREENSHOT.png] [--without-override]
Needs ``chromium`` on PATH (Debian: apt-get install -y chromium) and the environment's JupyterLab.
Starts JupyterLab on 127.0.0.1 with fresh settings (the override installed into a temporary
Jupyter config path, as scripts/bootstrap.sh installs it into the environment), drives headless
Chromium over the DevTools protocol (real mouse events), saves a screenshot and prints what
opened; exits 0 if it is a notebook with the "LLM audit companion" kernel. ``--without-override``
is the control (a plain Python editor is expected; exit 0 if so). About 40 s.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    control = "--without-override" in sys.argv
    shot = Path(args[0]) if args else Path(tempfile.gettempdir()) / "jupyterlab_double_click.png"
    tmp = Path(tempfile.mkdtemp(prefix="jl-check-"))
    etc = tmp / "etc"
    etc.mkdir()
    if not control:
        subprocess.run([sys.executable, str(HERE / "install_overrides.py"), str(HERE / "default_setting_overrides.json"),
                        str(etc / "labconfig" / "default_setting_overrides.json")], check=True)
    lab_port, port, token = free_port(), free_port(), "check"
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(etc), "JUPYTER_CONFIG_DIR": str(tmp / "user"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "ws")}
    lab = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser", "--ip", "127.0.0.1",
                            f"--port={lab_port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    chrome = None
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{lab_port}/api/status?token={token}")
                break
            except OSError:
                time.sleep(0.5)
        chrome = subprocess.Popen(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                                   f"--remote-debugging-port={port}", "--remote-allow-origins=*",
                                   "--window-size=1400,900", f"--user-data-dir={tmp / 'chrome'}", "about:blank"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return drive(port, lab_port, token, shot, control)
    finally:
        for p in (chrome, lab):
            if p is not None:
                p.terminate()
                p.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


def drive(port, lab_port, token, shot, control) -> int:
    for _ in range(50):
        try:
            tabs = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
            break
        except OSError:
            time.sleep(0.2)
    ws = websocket.create_connection([t for t in tabs if t["type"] == "page"][0]["webSocketDebuggerUrl"], timeout=60)
    n = [0]

    def cdp(method, **params):
        n[0] += 1
        ws.send(json.dumps({"id": n[0], "method": method, "params": params}))
        while True:
            m = json.loads(ws.recv())
            if m.get("id") == n[0]:
                return m.get("result", {})

    def js(expr):
        return cdp("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True).get("result", {}).get("value")

    def wait(expr, timeout=60):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if js(expr):
                return True
            time.sleep(0.5)
        return False

    def dblclick(selector):
        time.sleep(1.5)  # the listing settles before the pointer goes to the item
        box = js(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        cdp("Input.dispatchMouseEvent", type="mouseMoved", x=box[0], y=box[1])
        for t in ("mousePressed", "mouseReleased"):
            cdp("Input.dispatchMouseEvent", type=t, x=box[0], y=box[1], button="left", clickCount=1)
        for t in ("mousePressed", "mouseReleased"):
            cdp("Input.dispatchMouseEvent", type=t, x=box[0], y=box[1], button="left", clickCount=2)
    cdp("Page.navigate", url=f"http://127.0.0.1:{lab_port}/lab?token={token}&reset")
    item = '.jp-DirListing-item[title^="Name: {}"]'
    if not wait(f"!!document.querySelector({json.dumps(item.format('notebooks'))})"):
        raise SystemExit("the file browser did not show notebooks/")
    dblclick(item.format("notebooks"))
    target = item.format("03_infrastructure_benchmark.py")
    if not wait(f"!!document.querySelector({json.dumps(target)})", 30):
        raise SystemExit("a double click on notebooks/ did not list 03_infrastructure_benchmark.py")
    dblclick(target)
    wait("!!document.querySelector('.jp-NotebookPanel .jp-Cell') || !!document.querySelector('.jp-FileEditor')")
    time.sleep(6)  # let the kernel start and the cells render
    state = js("""(() => ({
        notebook: !!document.querySelector('.jp-NotebookPanel .jp-Cell'),
        editor: !!document.querySelector('.jp-FileEditor'),
        cells: document.querySelectorAll('.jp-NotebookPanel .jp-Cell').length,
        markdown_cells: document.querySelectorAll('.jp-NotebookPanel .jp-MarkdownCell').length,
        kernel: (document.querySelector('.jp-Toolbar-kernelName') || {}).textContent,
    }))()""")
    png = cdp("Page.captureScreenshot", format="png")["data"]
    shot.write_bytes(base64.b64decode(png))
    print(json.dumps(state), "| screenshot:", shot)
    if control:
        return 0 if state["editor"] and not state["notebook"] else 1
    return 0 if state["notebook"] and state["kernel"] == "LLM audit companion" else 1


if __name__ == "__main__":
    raise SystemExit(main())
