"""Shared fixtures: every test that writes outputs gets its own outputs/ and cache folders."""
import importlib
import os
import sys
from pathlib import Path

# Test modules live in folders that mirror lib/ (imported by path, --import-mode=importlib); the
# shared fixture builders next to this file stay importable by name (`import release_fixture`).
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Under pytest-xdist each worker gets its own default outputs/ and cache folders (before lib.paths
# is imported), so tests that use the defaults never share a file with the other worker or with a
# user's ./run_all.sh; the cache persists across runs (.cache/ is gitignored).
_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    _root = Path(__file__).resolve().parent.parent
    os.environ.setdefault("COMPANION_OUTPUTS", str(_root / ".cache" / "pytest" / _worker / "outputs"))
    os.environ.setdefault("COMPANION_CACHE", str(_root / ".cache" / "pytest" / _worker / "cache"))

import pandas as pd
import pytest

from lib import paths


@pytest.fixture
def isolated_outputs(tmp_path, monkeypatch):
    """Point lib.paths (and so every module using it) at fresh folders under tmp_path."""
    monkeypatch.setenv("COMPANION_OUTPUTS", str(tmp_path / "outputs"))
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    importlib.reload(paths)
    yield tmp_path / "outputs"
    monkeypatch.undo()
    importlib.reload(paths)


@pytest.fixture(scope="session")
def tiny_world():
    """A four-author ground truth with hand-checkable attributes (two coauthors, 1 and 2)."""
    from lib.groundtruth.world import World

    authors = pd.DataFrame({
        "author_id": [1, 2, 3, 4], "works_count": [10, 3, 1, 50], "cited_by_count": [100, 5, 0, 900],
        "h_index": [5, 1, 0, 20], "career_age": [10, 3, 1, 30], "career_start": [2015, 2020, 1955, 1990],
        "career_end": [2020, 2020, 1955, 2020], "perceived_gender": ["Female", "Male", "Unknown", "Male"],
        "perceived_ethnicity": ["Asian", "White", "White", "Unknown"],
        "prominence_pub": ["mid", "low", "low", "elite"], "prominence_cit": ["mid", "low", "low", "elite"]})
    pubs = pd.DataFrame({"publication_id": [10, 11, 12], "subfield": ["Education", "Condensed Matter Physics", "Education"]})
    auth = pd.DataFrame({"publication_id": [10, 11, 12, 12], "author_id": [1, 2, 3, 4]})
    return World(authors, pubs, auth, pd.DataFrame({"src": [1], "dst": [2]}))


#: The smallest valid profile; tests append the keys they exercise.
MINIMAL_PROFILE = "name: t\nsynthetic: true\nseed: 1\nworld: {n_authors: 10}\n"


@pytest.fixture
def load_profile_text(tmp_path):
    """``load_profile_text(extra)``: validate ``MINIMAL_PROFILE + extra`` written to a file, as run_all would."""
    from lib import config

    def load(extra: str = ""):
        p = tmp_path / "profile.yaml"
        p.write_text(MINIMAL_PROFILE + extra)
        return config.load_profile(p)
    return load



def saved_ids(notebook: str) -> set[str]:
    """Artifact ids a notebook's source passes to ``artifacts.save_figure/save_table/save_text``."""
    import re

    src = (paths.NOTEBOOKS / f"{notebook}.py").read_text(encoding="utf-8")
    return set(re.findall(r"save_(?:figure|table|text)\([^)]*?\"([a-z]+-[\w-]+)\"", src, flags=re.S))


def declaration_problems(paper) -> list[str]:
    """What a paper's declaration says that its notebooks do not: an artifact id its producing
    notebook never names, or an id a notebook saves that the declaration gives to no notebook of its."""
    bad = []
    for nb in paper.notebooks:
        declared = {a.id for a in paper.artifacts if a.notebook == nb.name}
        src = (paths.NOTEBOOKS / f"{nb.name}.py").read_text(encoding="utf-8")
        bad += [f"{nb.name}: never names {i}" for i in sorted(declared) if f'"{i}"' not in src]
        bad += [f"{nb.name}: saves undeclared {i}" for i in sorted(saved_ids(nb.name) - declared)]
    return bad


#: The longest test files, longest first (a quiet run's --durations, summed per file). Under
#: ``--dist loadfile`` a file goes to one worker; starting the long ones first (the
#: longest-processing-time rule) keeps both workers busy to the end instead of leaving one to run
#: a 30 s file alone while the other has finished.
HEAVY_FIRST = ("project/test_release_profile.py", "notebooks/test_smoke_scholar.py", "llm/test_client.py",
               "notebooks/test_smoke_attribution.py", "project/test_runner_failures.py", "test_endpoints.py",
               "test_pipeline.py", "notebooks/test_smoke_authority.py", "panel/test_calibration.py",
               "authority/test_runs.py", "attribution/test_runs.py", "panel/test_panel.py", "llm/batch/test_run.py",
               "panel/test_server.py", "authority/test_quirks.py")


def pytest_collection_modifyitems(config, items):
    root = Path(__file__).resolve().parent
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}

    def key(item):
        rel = Path(item.fspath).resolve().relative_to(root).as_posix() if str(item.fspath).startswith(str(root)) else ""
        return rank.get(rel, len(rank))
    items.sort(key=key)    # stable: the rest keep their order
