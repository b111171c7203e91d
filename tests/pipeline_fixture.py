"""The runner tests' fixture: a tiny profile and the real CLI (`python -m lib.pipeline`) run in a
subprocess on three small fixture notebooks (tests/data/pipeline_notebooks/), with their own
outputs and cache folders. Shared by tests/test_pipeline.py and tests/project/test_runner_failures.py."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from lib import paths

FIXTURES = paths.TEST_DATA / "pipeline_notebooks"
CANARY = "canary-key-5f2b9c7e1d"


def profile(tmp: Path, notebooks: str = "{}", promises: str = "[]") -> Path:
    p = tmp / "tiny.yaml"
    p.write_text(textwrap.dedent(f"""\
        name: tiny
        synthetic: true
        seed: 3
        execution_timeout_s: 120
        world: {{n_authors: 10}}
        promises: {promises}
        notebooks: {notebooks}
        """))
    return p


def env(outputs: Path, cache: Path) -> dict:
    """The runner's environment: these outputs and cache folders, the fixture notebooks, a canary key."""
    return {**os.environ, "COMPANION_OUTPUTS": str(outputs), "COMPANION_CACHE": str(cache),
            "COMPANION_NOTEBOOKS": str(FIXTURES), "FIXTURE_API_KEY": CANARY}


def run(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lib.pipeline", *args], cwd=paths.ROOT,
                          env=env(tmp / "outputs", tmp / "cache"), capture_output=True, text=True, timeout=300)


def store_holders(tmp: Path) -> Path:
    """A notebooks folder with 05 and 06 only, each the raw-store holder fixture
    (tests/data/pipeline_store_holder.py): two notebooks that read nothing of each other."""
    side = tmp / "notebooks"
    side.mkdir()
    holder = (paths.TEST_DATA / "pipeline_store_holder.py").read_text()
    for nb in ("05_authority_pilot_regression", "06_attribution_fairness"):
        (side / f"{nb}.py").write_text(holder.replace("{notebook}", nb))
    return side


def manifest(tmp: Path) -> dict:
    return json.loads((tmp / "outputs" / "manifest.json").read_text())


def status(tmp: Path) -> dict:
    return {a["id"]: a["status"] for a in manifest(tmp)["artifacts"]}
