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


def test_switches_are_checked_and_kept_a_keyword_overriding_its_field(load_profile_text):
    cfg = load_profile_text()
    assert inputs.resolve(cfg).switches == inputs.Switches() == inputs.Switches(
        weights_source="pilot", pilot_design="reference", pilot_fit="gd", pilot_averaging="subsets",
        parse_mode="faithful")                                                  # the faithful defaults
    got = inputs.resolve(cfg, switches=inputs.Switches(pilot_fit="mle", parse_mode="corrected"))
    assert (got.switches.pilot_fit, got.switches.parse_mode, got.switches.pilot_design) == ("mle", "corrected", "reference")
    assert inputs.resolve(cfg, switches=inputs.Switches(pilot_fit="mle"), pilot_fit="gd").switches.pilot_fit == "gd"
    with pytest.raises(ValueError) as exc:
        inputs.resolve(cfg, switches=inputs.Switches(pilot_design="shared", parse_mode="strict"))
    assert str(exc.value).splitlines() == [
        f"{NB}: parameter pilot_design: expected 'reference' or 'shared_content', got 'shared'",
        f"{NB}: parameter parse_mode: expected 'faithful' or 'corrected', got 'strict'"]


def test_describe_names_the_corpus_and_both_model_lists(load_profile_text):
    from types import SimpleNamespace

    import pandas as pd

    cfg = load_profile_text()
    res = inputs.resolve(cfg, main_models=["gpt-5.4"], pilot_models=["mistral:7b"])
    c = SimpleNamespace(source="synthetic corpus", papers=pd.DataFrame({"paper_id": range(50)}),
                        authors=pd.DataFrame({"author_id": range(7)}), queries=pd.DataFrame({"query_id": range(10)}))
    assert inputs.describe(res, c) == ("synthetic corpus | 50 papers, 7 authors, 10 queries\n"
                                       "main-experiment models: ['gpt-5.4']\npilot models: ['mistral:7b']")
