"""The smoke run of one paper's notebooks, in order, through the real runner on the tiny profile.

Each paper's chain is its own test module (``test_smoke_<paper>.py``), so pytest-xdist's
``--dist loadfile`` runs the three chains on both cores side by side; each chain has its own
outputs and cache folders, so no two share a file.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest

from lib import config, paths, registry


def run_chain(paper: str, tmp_path) -> None:
    """Run ``paper``'s notebooks on tests/data/tiny.yaml and check what the smoke test promises:
    every notebook ran, every artifact params/quick.yaml promises of them regenerated, and every claim
    of the paper got an outcome (a 'not applicable' one with its reason)."""
    names = [nb.name for nb in registry.papers()[paper].notebooks if (paths.NOTEBOOKS / f"{nb.name}.py").is_file()]
    assert names, f"paper {paper}: no notebook has landed yet"
    env = {**os.environ, "COMPANION_OUTPUTS": str(tmp_path / "outputs"), "COMPANION_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(paths.TEST_DATA / "tiny.yaml"),
                           "--only", ",".join(n[:2] for n in names)],
                          cwd=paths.ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    man = json.loads((tmp_path / "outputs/manifest.json").read_text())
    ran = {n["name"]: n["status"] for n in man["notebooks"]}
    assert [n for n in names if ran.get(n) != "ran"] == []
    status = {a["id"]: a["status"] for a in man["artifacts"]}
    promised = [a for a in config.load_profile("quick").promised_ids()
                if a in registry.artifacts() and registry.artifacts()[a].notebook in names]
    assert promised, f"params/quick.yaml promises nothing of paper {paper}"
    assert [i for i in promised if status[i] != "regenerated"] == [], proc.stdout[-3000:]
    recs = {json.loads(p.read_text())["id"]: json.loads(p.read_text())
            for p in (tmp_path / "outputs/records/claims").glob("*.json")}
    package = next(p for p in registry.PAPERS if importlib.import_module(f"{p}.paper").PAPER.key == paper)
    expected = {c.claim.id for c in importlib.import_module(f"{package}.claims").CHECKS}
    assert expected <= set(recs), sorted(expected - set(recs))
    assert all(r["detail"] for r in recs.values() if r["status"] == "not applicable")
    assert ("| claim | outcome | deciding statistic [95 % CI] vs threshold (test) | to decide | reproduce | time |"
            in (tmp_path / "outputs/claims.md").read_text())


@pytest.fixture
def smoke(tmp_path):
    return lambda paper: run_chain(paper, tmp_path)
