"""lib.authority.inputs: notebook 05's choices fail at profile validation; resolve() picks the inputs."""
import pytest

from lib import config
from lib.authority import inputs

NB = "05_authority_pilot_regression"


def test_bad_choices_unknown_models_and_missing_release_fail_at_profile_validation(tmp_path, load_profile_text):
    with pytest.raises(config.ProfileError) as exc:
        load_profile_text(f"notebooks: {{{NB}: {{weights_source: fixed, main_models: [llama3.1:8b, gpt-9], "
                               f"corpus_source: {tmp_path / 'nothing'}}}}}\n")
    msg = str(exc.value)
    assert f"key 'notebooks.{NB}.weights_source': expected 'pilot' or 'given', got 'fixed'" in msg
    assert f"key 'notebooks.{NB}.main_models': unknown model(s) ['gpt-9']" in msg
    assert f"key 'notebooks.{NB}.corpus_source': " in msg and "scholar_papers.json" in msg


def test_resolve_defaults_release_and_endpoint(tmp_path, load_profile_text):
    cfg = load_profile_text()
    got = inputs.resolve(cfg)
    assert got.synthetic and got.collect and len(got.main_models) == 9 and len(got.headline) == 8
    assert got.pilot_models == ("llama3.1:8b", "mistral:7b", "gemma2:9b")
    assert inputs.resolve(cfg, main_models=["gpt-5.4", "gpt-4o-mini"]).headline == ["gpt-5.4"]
    with pytest.raises(ValueError, match=f"{NB}: parameter pilot_fit: expected 'gd' or 'mle', got 'sgd'"):
        inputs.resolve(cfg, pilot_fit="sgd")
    # a real-data profile with the released dataset and no endpoint reads the release's answers
    real = cfg.model_copy(update={"synthetic": False,
                                  "real_data": cfg.real_data.model_copy(update={"authority_dataset_dir": str(tmp_path)})})
    got = inputs.resolve(real)
    assert got.corpus_source == str(tmp_path) and not got.synthetic and not got.collect


def test_a_real_profile_without_the_authority_corpus_stops_unless_mixed(tmp_path, load_profile_text):
    """issue 16: synthetic: false and no real_data.authority_dataset_dir: notebook 05 would use the
    synthetic corpus; declared mixed it may, and its outputs are labelled mixed."""
    cfg = load_profile_text("llm: {base_url: 'http://127.0.0.1:9/v1'}\n")
    real = cfg.model_copy(update={"synthetic": False})
    (msg,) = inputs.profile_errors(real, "p.yaml")
    assert msg.startswith("p.yaml: key 'real_data.authority_dataset_dir': synthetic: false, but it is null")
    assert "huggingface.co/datasets/uthmanjinadu/authority-bias-paper-recommendation" in msg
    given = real.model_copy(update={"real_data": real.real_data.model_copy(update={"authority_dataset_dir": str(tmp_path)})})
    assert inputs.profile_errors(given, "p.yaml") == []
    mixed = cfg.model_copy(update={"synthetic": "mixed"})
    assert inputs.profile_errors(mixed, "p.yaml") == [] and inputs.profile_errors(cfg, "p.yaml") == []
    assert inputs.resolve(mixed).synthetic == "mixed" and inputs.resolve(cfg).synthetic is True
    assert inputs.resolve(given).synthetic is False
