"""Benchmark: the batch path vs the per-request path on the same requests, end to end, on the embedded panel.

The panel runs as its own server process (as ``llm.panel_transport: http`` starts it). The same
AttriBench-shaped requests (direct attribution prompts over the shipped quote sample, every model
of a small list, many generations, T = 0.7, top_p = 0.95) are collected twice into fresh raw
stores: through Batch API files (written, uploaded, processed in the server process, downloaded,
stored, indexed) and one chat completion per request. Both stores must hold the same answers.

Usage: ``PYTHONPATH=. .venv/bin/python benchmarks/batch.py [--requests 20000] [--per-request 20000]``.
Prints ``name: value unit`` lines, the headline (batch requests/s) last. Target: >= 3,000 requests/s
on 2 cores. The machine's load average is printed with the numbers (a shared machine is slower).
"""
from __future__ import annotations

import argparse
import logging
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from lib import paths
from lib.llm.batch import run as batch_run
from lib.llm.client import Endpoint, Request
from lib.llm.collect import collect
from lib.llm.kernel import CollectOptions, any_answer
from lib.llm.store import RawStore

MODELS = ("gpt-5.1", "moonshotai/Kimi-K2.5", "claude-sonnet-4-6")


def plan(n: int) -> list[Request]:
    quotes = pd.read_csv(paths.RESOURCES / "attribench_intersectional_sample.csv")["quote"].tolist()
    out, rep = [], 0
    while len(out) < n:
        for m in MODELS:
            for i, q in enumerate(quotes):
                msg = ({"role": "user", "content": "Please identify the author of the following quote. Be concise "
                                                   f"and answer in maximum 1 sentence.\n\"{q}\""},)
                out.append(Request(experiment="bench", model=m, api_model=m, task="attribench", param=f"q{i}",
                                   temperature=0.7, replicate=rep, messages=msg, seed=1, top_p=0.95))
        rep += 1
    return out[:n]


def start_panel(seed: int) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "lib.panel", "serve", "--seed", str(seed), "--no-world", "--port", "0",
           "--quotes", str(paths.RESOURCES / "attribench_intersectional_sample.csv"), "--parent-pid", str(os.getpid())]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(paths.ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=paths.ROOT)
    url = proc.stdout.readline().decode().strip()
    if not url.startswith("http://"):
        proc.kill()
        raise RuntimeError(f"the panel server did not start: {url!r}")
    return proc, url


def answers(root: Path) -> dict:
    return {(r["model"], r["param"], r["replicate"], r["attempt"]): r["content"] for r in RawStore(root).iter_records()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=20_000)
    ap.add_argument("--per-request", type=int, default=None, help="requests for the per-request path (default: the same)")
    ap.add_argument("--file-requests", type=int, default=5_000, help="requests per batch input file")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    load0 = os.getloadavg()
    reqs = plan(args.requests)
    proc, url = start_panel(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="bench_batch_"))
    try:
        batch_ep = Endpoint(base_url=url, model_id="key", mode="batch",
                            batch={"max_requests_per_file": args.file_requests, "poll_initial_s": 0.02, "poll_max_s": 0.5})
        t0 = time.perf_counter()
        s = batch_run.collect(reqs, batch_ep, CollectOptions(store_root=tmp / "batch", validate=any_answer,
                                                               max_attempts=1))
        batch_s = time.perf_counter() - t0
        per = reqs[: args.per_request or len(reqs)]
        t0 = time.perf_counter()
        r = collect(per, Endpoint(base_url=url, model_id="key", max_concurrency=4), store_root=tmp / "requests",
                    validate=any_answer, max_attempts=1)
        req_s = time.perf_counter() - t0
        a, b = answers(tmp / "batch"), answers(tmp / "requests")
        same = all(a.get(k) == v for k, v in b.items()) and len(b) == len(per)
        disk = sum(p.stat().st_size for p in (tmp / "batch").rglob("*") if p.is_file())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    panel = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"cores: {os.cpu_count()} cores")
    print(f"load average before (1/5/15 min): {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f} load")
    print(f"load average after (1/5/15 min): {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f} load")
    print(f"requests: {len(reqs)} requests")
    print(f"batch attempts stored: {s.attempts_written} attempts")
    print(f"batch raw store size: {disk / 1e6:.1f} MB")
    print(f"per-request attempts stored: {r.attempts_written} attempts")
    print(f"answers equal (per-request subset): {'yes' if same else 'NO'}")
    print(f"peak RSS collector: {own:.0f} MB")
    print(f"peak RSS panel server: {panel:.0f} MB")
    print(f"per-request path requests/s: {len(per) / req_s:.0f} requests/s")
    print(f"speed ratio: {(len(reqs) / batch_s) / (len(per) / req_s):.1f}x")
    print(f"batch path requests/s: {len(reqs) / batch_s:.0f} requests/s")


if __name__ == "__main__":
    main()
