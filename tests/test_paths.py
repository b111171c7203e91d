"""lib.paths: the root is found from any folder below it, stage folders name real notebooks, and an
unusable output folder is reported with its name, path and what was expected."""
import importlib
import os

import pytest

from lib import paths


def test_find_root_walks_up_to_the_folder_with_pyproject_and_lib(tmp_path):
    (tmp_path / "lib" / "panel").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")
    assert paths.find_root(tmp_path / "lib" / "panel") == tmp_path.resolve()
    assert paths.find_root(tmp_path) == tmp_path.resolve()
    assert paths.find_root() == paths.ROOT and (paths.ROOT / "run_all.sh").is_file()


def test_find_root_without_a_project_says_where_it_looked(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")        # no lib/ beside it: not the root
    with pytest.raises(RuntimeError, match="no pyproject.toml beside lib/") as exc:
        paths.find_root(tmp_path / "x")
    assert str(tmp_path / "x") in str(exc.value)


def test_outputs_and_cache_follow_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_OUTPUTS", str(tmp_path / "o"))
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "c"))
    try:
        importlib.reload(paths)
        assert paths.OUTPUTS == (tmp_path / "o").resolve()
        assert paths.TABLES == paths.OUTPUTS / "tables" and paths.MANIFEST == paths.OUTPUTS / "manifest.json"
        assert paths.CACHE == (tmp_path / "c").resolve()
        assert not paths.OUTPUTS.exists()               # nothing is created at import time
    finally:
        monkeypatch.undo()
        importlib.reload(paths)


def test_ensure_creates_nested_folders_and_tolerates_existing_ones(tmp_path):
    a, b = tmp_path / "a" / "b", tmp_path / "c"
    paths.ensure(a, b)
    paths.ensure(a)
    assert a.is_dir() and b.is_dir()


def test_stage_dir_is_under_data_and_rejects_an_unknown_notebook():
    assert paths.stage_dir("01_calibration") == paths.DATA / "01_calibration"
    with pytest.raises(ValueError, match=r"no notebook '01_calibratoin'.*expected one of \['01_calibration'"):
        paths.stage_dir("01_calibratoin")


def test_unusable_folders_names_each_problem(tmp_path):
    ok = tmp_path / "ok"
    ok.mkdir()
    afile = tmp_path / "afile"
    afile.write_text("")
    errs = paths.unusable_folders({"outputs": ok, "new": tmp_path / "not" / "yet", "cache": afile,
                                   "below": afile / "sub"})
    assert errs == [f"cache: {afile} is a file; expected a folder",
                    f"below: {afile / 'sub'} cannot be created: {afile} is a file; expected a folder"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders")
def test_unusable_folders_reports_read_only_folders(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert paths.unusable_folders({"outputs": ro, "downloads": ro / "new"}) == [
            f"outputs: {ro} is read-only; expected a folder this user can write",
            f"downloads: {ro / 'new'} cannot be created: {ro} is read-only; expected a folder this user can write"]
    finally:
        ro.chmod(0o700)
