"""lib.scholar.inputs: notebook 01/02 input choices fail at profile validation; 02's temperatures."""
import pandas as pd
import pytest

from lib import config, paths
from lib.scholar import inputs, models


def test_bad_temperature_source_fails_when_the_profile_loads(load_profile_text):
    with pytest.raises(config.ProfileError, match=r"key 'notebooks.02_collection.temperature_source': "
                                                  r"expected 'calibration' or 'paper', got 'table'"):
        load_profile_text("notebooks: {02_collection: {temperature_source: table}}\n")
    assert load_profile_text("notebooks: {02_collection: {temperature_source: paper}}\n")


def test_check_choice_names_notebook_parameter_and_values():
    assert inputs.check_choice("01_calibration", "source", "release") == "release"
    with pytest.raises(ValueError, match=r"^01_calibration: parameter source must be 'collect' or 'release', got 'x'$"):
        inputs.check_choice("01_calibration", "source", "x")


def test_collection_temperatures_read_the_calibration_stage(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "DATA", tmp_path)
    m = models.load_models().head(3)
    assert inputs.collection_temperatures(m, "paper") is m
    with pytest.raises(FileNotFoundError, match="run notebook 01 first"):
        inputs.collection_temperatures(m, "calibration")
    (tmp_path / "01_calibration").mkdir()
    sel = pd.DataFrame({"model": m["key"][:2], "temperature": [0.25, 1.5]})
    sel.to_parquet(tmp_path / "01_calibration" / "selected_temperatures.parquet")
    with pytest.raises(KeyError, match=f"lacks \\['{m['key'].iloc[2]}'\\]"):
        inputs.collection_temperatures(m, "calibration")
    sel = pd.concat([sel, pd.DataFrame({"model": [m["key"].iloc[2]], "temperature": [0.0]})])
    sel.to_parquet(tmp_path / "01_calibration" / "selected_temperatures.parquet")
    got = inputs.collection_temperatures(m, "calibration")
    assert got["temperature"].tolist() == [0.25, 1.5, 0.0] and m["temperature"].tolist() != [0.25, 1.5, 0.0]


def test_stage_dir_rejects_a_notebook_that_does_not_exist():
    assert paths.stage_dir("01_calibration") == paths.DATA / "01_calibration"
    with pytest.raises(ValueError, match=r"no notebook '01_calibraton'.*'01_calibration'"):
        paths.stage_dir("01_calibraton")


def test_a_real_profile_without_a_ground_truth_stops_unless_mixed(load_profile_text):
    """issue 16: synthetic: false, an endpoint and no real_data.ground_truth_dir: notebooks 01-04 would
    match names against the synthetic world; the message names the key, the DOI and the check command."""
    cfg = load_profile_text("llm: {base_url: 'http://127.0.0.1:9/v1'}\n")
    real = cfg.model_copy(update={"synthetic": False})
    (msg,) = inputs.profile_errors(real, "p.yaml")
    assert msg.startswith("p.yaml: key 'real_data.ground_truth_dir': synthetic: false, but it is null")
    assert "01_calibration, 02_collection, 03_infrastructure_benchmark, 04_interventions" in msg
    assert "10.5281/zenodo.20417107" in msg and "python -m lib.groundtruth.release check" in msg
    assert inputs.profile_errors(cfg.model_copy(update={"synthetic": "mixed"}), "p.yaml") == []
    assert inputs.profile_errors(cfg, "p.yaml") == []                          # the embedded default
    given = real.model_copy(update={"real_data": real.real_data.model_copy(update={"ground_truth_dir": "gt"})})
    assert inputs.profile_errors(given, "p.yaml") == []
    # notebook 03's own ground_truth_dir parameter serves notebook 03 only
    own = real.model_copy(update={"notebooks": {"03_infrastructure_benchmark": {"ground_truth_dir": "tables"}}})
    (msg,) = inputs.profile_errors(own, "p.yaml")
    assert "notebooks 01_calibration, 02_collection, 04_interventions would" in msg


def test_describe_counts_the_ground_truth_and_says_whether_it_is_synthetic(tiny_world):
    assert inputs.describe(tiny_world) == "D: 4 authors, 3 publications, 1 coauthorship edges (real)"
