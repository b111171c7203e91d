"""Coverage: each model's answered share beside the raw store, and the partial-model threshold by hand."""
import json

import pytest

from lib import paths
from lib.llm import coverage
from lib.llm.coverage import MIN_ANSWERED_SHARE, partial_models, read_coverage, write_coverage


def test_write_then_read_round_trip_with_share_partial_and_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_NOTEBOOK", "02_baseline")
    write_coverage(tmp_path, {("base", "m-a"): [10, 9], ("base", "m-b"): [1000, 899], ("temp", "m-a"): [0, 0]})
    cov = read_coverage(tmp_path)
    assert cov["base"]["m-a"] == {"planned": 10, "answered": 9, "share": 0.9, "partial": False,
                                  "threshold": MIN_ANSWERED_SHARE, "notebook": "02_baseline"}
    assert cov["base"]["m-b"]["share"] == 0.899 and cov["base"]["m-b"]["partial"]     # 899/1000 < 0.9
    assert cov["temp"]["m-a"]["share"] == 1.0 and not cov["temp"]["m-a"]["partial"]  # nothing planned
    assert json.loads((tmp_path / coverage.COVERAGE_NAME).read_text()) == cov
    assert [p.name for p in tmp_path.iterdir()] == [coverage.COVERAGE_NAME]       # no temporary file left


def test_a_later_collection_replaces_its_own_entry_and_keeps_the_others(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_NOTEBOOK", raising=False)
    write_coverage(tmp_path, {("base", "m-a"): [10, 5], ("base", "m-b"): [10, 10]})
    write_coverage(tmp_path, {("base", "m-a"): [10, 10], ("other", "m-c"): [4, 3]})
    cov = read_coverage(tmp_path)
    assert {x: {m: (e["answered"], e["partial"]) for m, e in ms.items()} for x, ms in cov.items()} == \
        {"base": {"m-a": (10, False), "m-b": (10, False)}, "other": {"m-c": (3, True)}}
    assert cov["base"]["m-a"]["notebook"] is None


def test_partial_models_of_one_experiment_or_of_all(tmp_path, monkeypatch):
    write_coverage(tmp_path, {("x", "m-a"): [10, 8], ("x", "m-b"): [10, 9], ("y", "m-a"): [2, 1]})
    assert set(partial_models(tmp_path, "x")) == {"m-a"} and partial_models(tmp_path, "none") == {}
    assert set(partial_models(tmp_path)) == {"x/m-a", "y/m-a"}
    monkeypatch.setattr(paths, "RAW", tmp_path)                     # the default root is the raw store
    assert set(partial_models()) == {"x/m-a", "y/m-a"}


def test_no_file_reads_empty_and_a_broken_file_is_named(tmp_path):
    assert read_coverage(tmp_path) == {}
    (tmp_path / "coverage.json").write_text('{"x": ')
    with pytest.raises(ValueError, match=r"coverage\.json: not valid JSON .*delete it and run the collection again"):
        read_coverage(tmp_path)
