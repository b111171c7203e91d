"""Smoke run of every landed notebook, in order, through the real runner on the tiny profile.

Each notebook in notebooks/ must execute without error and save every artifact that the default
profile (params/quick.yaml) promises, so a notebook that silently produces nothing fails here.
"""
import json
import os
import subprocess
import sys

from lib import config, paths


def test_all_notebooks_run_on_the_tiny_profile(tmp_path):
    landed = [n for n in config.NOTEBOOK_NAMES if (paths.NOTEBOOKS / f"{n}.py").is_file()]
    assert landed, "no notebook has landed yet"
    env = {**os.environ, "COMPANION_OUTPUTS": str(tmp_path / "outputs"), "COMPANION_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(paths.TEST_DATA / "tiny.yaml")],
                          cwd=paths.ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    man = json.loads((tmp_path / "outputs/manifest.json").read_text())
    ran = {n["name"]: n["status"] for n in man["notebooks"]}
    assert [n for n in landed if ran[n] != "ran"] == []
    status = {a["id"]: a["status"] for a in man["artifacts"]}
    promised = config.load_profile("quick").promised_ids()
    assert promised, "params/quick.yaml promises nothing"
    assert [i for i in promised if status[i] != "regenerated"] == [], proc.stdout[-3000:]
    # every claim of the three papers gets an outcome (held / contradicted / inconclusive / not applicable with a reason)
    from lib.attribution import claims as at_claims
    from lib.authority import claims as ab_claims
    from lib.scholar import claims as lsb_claims

    recs = {json.loads(p.read_text())["id"]: json.loads(p.read_text())
            for p in (tmp_path / "outputs/records/claims").glob("*.json")}
    expected = {c.claim.id for c in (*lsb_claims.CHECKS, *ab_claims.CHECKS, *at_claims.CHECKS)}
    assert expected <= set(recs), sorted(expected - set(recs))
    assert all(r["detail"] for r in recs.values() if r["status"] == "not applicable")
    assert ("| claim | outcome | deciding statistic [95 % CI] vs threshold (test) | to decide | reproduce | time |"
            in (tmp_path / "outputs/claims.md").read_text())
