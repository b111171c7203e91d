"""Benchmark: wall time of the notebooks and of their stages for a profile (issue 5's time budget).

Runs ``python -m lib.pipeline --profile P --only ... --force`` into a fresh temporary outputs
folder (``COMPANION_OUTPUTS``), then prints from the manifest's ``stages`` block. The cache
(``COMPANION_CACHE``, the synthetic world's parquet) is the repository's ``.cache/`` unless
``--fresh-cache`` asks for an empty temporary one too: with the shared cache the world is loaded,
not generated, as on any run after the first. Targets (issue 5, 2 cores): paper profile 01–04
under 1800 s, quick profile under 600 s.

Usage::

    .venv/bin/python benchmarks/pipeline_stages.py [--profile quick|paper|PATH] [--only 01,02,03,04]
    .venv/bin/python benchmarks/pipeline_stages.py --from-manifest outputs/manifest.json

Prints ``name: value unit`` lines: per notebook its wall time, kernel peak memory and stage
seconds, the requests and recommended names of the collections (from the notebooks' data
folders, when they are beside the manifest), the peak memory, the run's ``elapsed`` clock time
(less than the sum when notebooks ran side by side, ``--jobs``), and the headline last:
``total_<first>_<last>: N s``, the sum of the notebooks' wall times. A stage time from an earlier run (a notebook skipped as
unchanged) is marked ``(earlier run)``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from lib import paths

COLLECTIONS = ("01_calibration", "02_collection")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:48]


def collection_counts(outputs: Path) -> list[tuple[str, float, str]]:
    """Requests, attempts and recommended names (faithful name rows) of the collecting notebooks."""
    out = []
    for nb in COLLECTIONS:
        d = outputs / "data" / nb
        if (d / "attempts.parquet").is_file():
            att = pd.read_parquet(d / "attempts.parquet", columns=["request_id"])
            out += [(f"{nb[:2]}_requests", att["request_id"].nunique(), "requests"),
                    (f"{nb[:2]}_attempts", len(att), "attempts")]
        if (d / "names.parquet").is_file():
            mode = pd.read_parquet(d / "names.parquet", columns=["mode"])["mode"]
            for m, n in mode.value_counts().sort_index().items():
                out.append((f"{nb[:2]}_names_{m}", int(n), "names"))
    return out


def lines(man: dict, outputs: Path | None) -> list[tuple[str, float, str]]:
    """The printed figures of a manifest (see module docstring), headline last."""
    block = man.get("stages") or {}
    notebooks = block.get("notebooks", {})
    if not notebooks:
        raise SystemExit("manifest has no stages block (written before stage times were recorded, or nothing ran)")
    rows = []
    for nb, e in notebooks.items():
        tag = nb[:2]
        note = " (earlier run)" if e.get("earlier_run") else ""
        rows.append((f"{tag}_wall", e["wall_s"], "s" + note))
        rows.append((f"{tag}_outside_cells", round(e["wall_s"] - e.get("cells_s", 0.0), 2), "s" + note))
        if e.get("peak_rss_mb") is not None:
            rows.append((f"{tag}_peak_rss", e["peak_rss_mb"], "MB" + note))
        for i, s in enumerate(e["stages"]):
            rows.append((f"{tag}_stage{i}_{_slug(s['stage'])}", s["seconds"], "s" + note))
    if outputs is not None:
        rows += collection_counts(outputs)
    peaks = [e["peak_rss_mb"] for e in notebooks.values() if e.get("peak_rss_mb") is not None]
    if peaks:
        rows.append(("peak_rss", max(peaks), "MB"))
    first, last = min(notebooks)[:2], max(notebooks)[:2]
    if man.get("wall_s") is not None:       # the run's clock: below the sum when notebooks ran side by side
        rows.append(("elapsed", round(float(man["wall_s"]), 2), "s"))
    rows.append((f"total_{first}_{last}", block["total_s"], "s"))
    return rows


def print_lines(rows, file=sys.stdout) -> None:
    for name, value, unit in rows:
        print(f"{name}: {round(value, 2) if isinstance(value, float) else value} {unit}", file=file)


def run_pipeline(profile: str, only: str, outputs: Path, cache: Path | None) -> int:
    env = {**os.environ, "COMPANION_OUTPUTS": str(outputs)}
    if cache is not None:
        env["COMPANION_CACHE"] = str(cache)
    cmd = [sys.executable, "-m", "lib.pipeline", "--profile", profile, "--only", only, "--force"]
    print(f"# {' '.join(cmd[1:])}  (COMPANION_OUTPUTS={outputs}, COMPANION_CACHE={env.get('COMPANION_CACHE', paths.CACHE)})",
          file=sys.stderr, flush=True)
    return subprocess.run(cmd, cwd=paths.ROOT, env=env, stdout=sys.stderr).returncode


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="quick", help="quick (default), paper, or a path to a YAML profile")
    ap.add_argument("--only", default="01,02,03,04", help="notebooks to run (default 01,02,03,04)")
    ap.add_argument("--fresh-cache", action="store_true", help="also use an empty temporary cache (world generated)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary outputs folder (its path is printed)")
    ap.add_argument("--from-manifest", type=Path, metavar="PATH", help="only print from an existing manifest.json")
    args = ap.parse_args(argv)
    if args.from_manifest:
        man = json.loads(args.from_manifest.read_text())
        print_lines(lines(man, args.from_manifest.parent))
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="pipeline_stages_"))
    outputs = tmp / "outputs"
    t0 = time.perf_counter()
    code = run_pipeline(args.profile, args.only, outputs, tmp / "cache" if args.fresh_cache else None)
    elapsed = time.perf_counter() - t0
    man = json.loads((outputs / "manifest.json").read_text())
    print(f"# profile {man['profile']}, load average {os.getloadavg()[0]:.2f} (1 min) at the end, "
          f"runner exit code {code}, outputs {outputs if args.keep else '(removed)'}")
    print_lines([("runner_elapsed", round(elapsed, 1), "s")] + lines(man, outputs))
    if not args.keep:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
