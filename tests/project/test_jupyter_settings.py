"""JupyterLab opens notebooks/*.py as notebooks: the default-viewer override the set-up installs.

scripts/bootstrap.sh merges scripts/jupyter/default_setting_overrides.json into the
environment's <prefix>/etc/jupyter/labconfig/; jupyterlab_server reads that folder from the
Jupyter config path. The browser check (a double click in a running JupyterLab) is documented in
scripts/jupyter/README.md.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lib import paths

SRC = paths.ROOT / "scripts" / "jupyter" / "default_setting_overrides.json"
INSTALL = paths.ROOT / "scripts" / "jupyter" / "install_overrides.py"
PLUGIN = "@jupyterlab/docmanager-extension:plugin"


def test_python_files_default_to_the_jupytext_notebook_factory():
    assert json.loads(SRC.read_text())[PLUGIN]["defaultViewers"] == {"python": "Jupytext Notebook"}
    # the factory name is the one the installed jupytext lab extension registers
    ext = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-jupytext" / "static"
    if not ext.is_dir():
        pytest.skip("jupytext's lab extension is not installed in this environment")
    assert any('"Jupytext Notebook"' in p.read_text(errors="replace") for p in ext.glob("*.js"))


def test_bootstrap_installs_it_under_the_environment_prefix():
    text = (paths.ROOT / "scripts" / "bootstrap.sh").read_text()
    assert ('"$PY" scripts/jupyter/install_overrides.py scripts/jupyter/default_setting_overrides.json "$labconfig"'
            in text)
    assert 'labconfig="$prefix/etc/jupyter/labconfig/default_setting_overrides.json"' in text


def test_install_merges_keeps_other_settings_and_jupyterlab_server_reads_it(tmp_path, monkeypatch):
    target = tmp_path / "etc" / "labconfig" / "default_setting_overrides.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({PLUGIN: {"autosave": False}, "other:plugin": {"x": 1}}))
    run = [sys.executable, str(INSTALL), str(SRC), str(target)]
    subprocess.run(run, check=True)
    got = json.loads(target.read_text())
    assert got == {PLUGIN: {"autosave": False, "defaultViewers": {"python": "Jupytext Notebook"}}, "other:plugin": {"x": 1}}
    before = target.stat().st_mtime_ns
    subprocess.run(run, check=True)                       # idempotent: nothing rewritten
    assert target.stat().st_mtime_ns == before
    settings_utils = pytest.importorskip("jupyterlab_server.settings_utils")
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path / "etc"))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "user"))
    overrides, error = settings_utils._get_overrides(str(tmp_path / "app-settings"))
    assert not error and overrides[PLUGIN]["defaultViewers"]["python"] == "Jupytext Notebook"
