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
