"""lib.authority.plan: notebook 05's pilot and main-experiment collections on a tiny profile,
counted by hand from the parameters, with nothing sent."""
import pytest

from lib.authority import models, plan

NB = "05_authority_pilot_regression"
TOPIC = "Sentiment Analysis"
WEIGHTS = {"venue": 0.2, "median_h": 0.2, "max_h": 0.2, "citations": 0.2, "affiliation": 0.2}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    from lib import config
    p = tmp_path_factory.mktemp("profile") / "p.yaml"
    p.write_text("name: t\nsynthetic: true\nseed: 1\nworld: {n_authors: 10}\n")
    return config.load_profile(p)


@pytest.fixture(scope="module")
def plans(cfg):
    from lib.authority import corpus

    whole = corpus.synthetic_corpus
    with pytest.MonkeyPatch.context() as mp:
        # the plan asks for the whole synthetic corpus and keeps one topic; a topic draws from its own stream
        # (corpus.synthetic_corpus), so generating only that topic gives the same papers in 1/25 of the time
        mp.setattr(corpus, "synthetic_corpus", lambda seed, **kw: whole(seed, topics=[TOPIC]))
        return plan.notebook_plans(cfg, NB, {"topics": [TOPIC], "pilot_topics": [TOPIC],
                                             "pilot_queries_per_topic": 1, "queries_per_topic": 1,
                                             "main_models": ["llama3.1:8b", "gpt-5.4"], "pilot_models": ["mistral:7b"],
                                             "authority_weights": WEIGHTS})


def test_one_topic_of_the_synthetic_corpus_is_its_slice_of_the_whole():
    from lib.authority import corpus

    one = corpus.synthetic_corpus(1, topics=[TOPIC, "Question Answering"]).subset([TOPIC])
    assert one.papers.reset_index(drop=True).equals(corpus.synthetic_corpus(1, topics=[TOPIC]).papers)


def test_pilot_and_main_request_counts(plans):
    pilot, main = plans
    assert (pilot.notebook, pilot.stage, main.stage) == (NB, "pilot", "main")
    # pilot: 1 topic x 1 query x 10 fixed x 10 source positions, one model
    assert len(pilot.requests) == 100 and {r.model for r in pilot.requests} == {"mistral:7b"}
    # main: 1 query x 3 instructions x 3 conditions, two models
    assert len(main.requests) == 9 * 2 and {r.model for r in main.requests} == {"llama3.1:8b", "gpt-5.4"}
    assert {r.experiment for r in pilot.requests} == {"authority_pilot"}
    # each model at the temperature the paper ran it at, sent to its provider
    assert {(r.model, r.temperature, r.provider) for r in main.requests} == {("llama3.1:8b", 0.8, "ollama"),
                                                                            ("gpt-5.4", 1.0, "openai")}


def test_the_plan_carries_the_papers_prices_and_the_completion_assumption(plans, cfg):
    _, main = plans
    assert main.max_attempts == cfg.llm.max_attempts and main.prices.equals(models.prices())
    assert main.assumption and main.expected_completion(main.requests[0]) > 0


def test_a_released_dataset_without_endpoint_plans_nothing(cfg, tmp_path):
    real = cfg.model_copy(update={"synthetic": False,
                                  "real_data": cfg.real_data.model_copy(update={"authority_dataset_dir": str(tmp_path)})})
    assert plan.notebook_plans(real, NB, {"authority_weights": WEIGHTS}) == []
