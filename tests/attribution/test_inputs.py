"""lib.attribution.inputs: notebook 06's choices fail at profile validation; when the models are asked."""
import pytest

from lib import config
from lib.attribution import inputs

NB = "06_attribution_fairness"


def test_bad_choices_fail_at_profile_validation(load_profile_text):
    with pytest.raises(config.ProfileError) as exc:
        load_profile_text(f"notebooks: {{{NB}: {{significance_test: t, rag_subset_models: [gpt-5.1, gpt-2]}}}}\n")
    msg = str(exc.value)
    assert f"key 'notebooks.{NB}.significance_test': expected 'z' or 'welch', got 't'" in msg
    assert "rag_subset_models': unknown model(s) ['gpt-2']" in msg
    with pytest.raises(ValueError, match=f"{NB}: parameter prompt_family: expected 'reference' or 'providers' or 'together'"):
        inputs.check(prompt_family="openai")


def test_models_are_asked_only_with_an_endpoint(load_profile_text):
    cfg = load_profile_text()
    assert inputs.run_models(cfg)
    real = cfg.model_copy(update={"synthetic": False})
    assert not inputs.run_models(real)
    assert inputs.run_models(real.model_copy(update={"llm": real.llm.model_copy(update={"base_url": "http://x/v1"})}))
    assert inputs.released(cfg, False, runs=1, lam=1.0) is None


def test_a_real_profile_without_the_attribench_release_stops_unless_mixed(load_profile_text):
    """issue 16: synthetic: false without real_data.attribench_dir (or with use_released_data false):
    notebook 06 would stand the synthetic twin in for the release."""
    cfg = load_profile_text("llm: {base_url: 'http://127.0.0.1:9/v1'}\n")
    real = cfg.model_copy(update={"synthetic": False})
    (msg,) = inputs.profile_errors(real, "p.yaml")
    assert msg.startswith("p.yaml: key 'real_data.attribench_dir': synthetic: false, but it is null")
    assert "python -m lib.attribution.download" in msg and "synthetic: mixed" in msg
    given = real.model_copy(update={"real_data": real.real_data.model_copy(update={"attribench_dir": "downloads/ab"})})
    assert inputs.profile_errors(given, "p.yaml") == []
    off = given.model_copy(update={"notebooks": {NB: {"use_released_data": False}}})
    (msg,) = inputs.profile_errors(off, "p.yaml")
    assert f"notebooks.{NB}.use_released_data is false" in msg
    assert inputs.profile_errors(cfg.model_copy(update={"synthetic": "mixed"}), "p.yaml") == []
    assert inputs.profile_errors(cfg, "p.yaml") == []
