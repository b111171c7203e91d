"""Shared fixtures: every test that writes outputs gets its own outputs/ and cache folders."""
import importlib

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
