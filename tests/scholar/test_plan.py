"""lib.scholar.plan: the request plans of notebooks 01 and 02 on a tiny profile, counted by hand
from the parameters (24 configurations: 4 Gemini, 2 of them grounded)."""
from collections import Counter

import pytest

from lib.scholar import models, plan

N_MODELS, N_GEMINI, N_GROUNDED = 24, 4, 2


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    from lib import config
    p = tmp_path_factory.mktemp("profile") / "p.yaml"
    p.write_text("name: t\nsynthetic: true\nseed: 1\nworld: {n_authors: 10}\n")
    return config.load_profile(p)


def test_the_model_table_is_as_counted():
    m = models.load_models()
    assert (len(m), (m["provider"] == "gemini").sum(), m["grounded"].sum()) == (N_MODELS, N_GEMINI, N_GROUNDED)


def test_calibration_sweep_counts(cfg):
    params = {"temperatures": [0.0, 0.5], "families": ["top_k", "epoch"], "params_per_family": 1,
              "replicates": 2, "gemini_replicates": 1}
    (p,) = plan.notebook_plans(cfg, "01_calibration", params)
    # (20 models x 2 replicates + 4 Gemini x 1) x 2 task parameters x 2 temperatures
    assert len(p.requests) == (20 * 2 + 4 * 1) * 2 * 2 == 176
    assert p.stage == "temperature sweep" and p.notebook == "01_calibration"
    assert Counter(r.param for r in p.requests) == {"top_5": 88, plan.task_params(["epoch"], 1)[0]: 88}
    assert {r.api_model for r in p.requests} == set(models.load_models()["key"])     # the panel: model keys
    gem = [r for r in p.requests if r.model.startswith("gemini")]
    assert all(m["role"] != "system" for r in gem for m in r.messages)             # Gemini: no system message
    assert all(r.grounded for r in p.requests if r.model.endswith("-grounded"))


@pytest.mark.parametrize("constrained, rag, expected", [
    (True, False, (N_MODELS - N_GROUNDED) * 2 * 3),      # top_k + biased_top_k, 3 runs
    (True, True, N_MODELS * 2 * 3),
    (False, False, (N_MODELS - N_GROUNDED) * 1 * 3),
])
def test_collection_counts(cfg, constrained, rag, expected):
    params = {"families": ["top_k", "biased_top_k"], "params_per_family": 1, "constrained_prompts": constrained,
              "rag": rag, "runs": 3, "temperature_source": "paper"}
    (p,) = plan.notebook_plans(cfg, "02_collection", params)
    assert len(p.requests) == expected and {r.replicate for r in p.requests} == {0, 1, 2}
    calibrated = models.load_models().set_index("key")["temperature"]
    assert all(r.temperature == calibrated[r.model] for r in p.requests)             # each its own (Table A.1)


def test_release_source_plans_nothing_and_other_notebooks_are_an_error(cfg):
    assert plan.notebook_plans(cfg, "02_collection", {"source": "release"}) == []
    with pytest.raises(ValueError, match=r"'03_infrastructure_benchmark' is not an LLMScholarBench collecting notebook"):
        plan.notebook_plans(cfg, "03_infrastructure_benchmark", {})


def test_expected_completion_tokens_by_hand():
    class R:
        def __init__(self, param):
            self.param = param
    assert [plan.expected_completion(R(p)) for p in ("top_100", "top_100_bias_diverse", "top_5", "1950s")] == [
        8 * 100 + 20, 820, 8 * 5 + 20, 8 * 25 + 20]
    assert plan.task_params(["top_k", "twins"], 0) == [tp.param for tp in plan.prompts.task_params(["top_k", "twins"])]
    with pytest.raises(KeyError, match=r"unknown parameters \['top_7'\]"):
        plan.build_requests(models.load_models().head(1), experiment="e", families=["top_k"], params=["top_7"])
