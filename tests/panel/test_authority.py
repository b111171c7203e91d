"""lib.panel.authority: the prestige tiers and the credibility ceiling by hand, the parse folding of
stray numbers and think blocks by hand, choice probabilities recomposed from their terms, flips of
identical prompts, the mention rate and the pick distribution recovered from draws within a
binomial 99.9 % interval, and the fitted file's errors."""
import json

import numpy as np
import pytest

from lib import paths
from lib.panel import authority as au
from lib.panel import prompts
from lib.panel.profiles import all_profiles
from tests.panel.test_panel import authority_prompt, wilson

SEED = 11


@pytest.fixture(scope="module")
def task():
    return prompts.parse(authority_prompt(boost=4))


@pytest.mark.parametrize("venue,prestige", [
    ("Neural Information Processing Systems", 1.0), ("NAACL-HLT", 0.75), ("Neural Networks", 0.5),
    ("IEEE Access", 0.25), ("arxiv.org", 0.125), ("A Workshop on Graphs", 0.375), ("Some Venue", 0.125),
    ("", 0.0), ("unknown", 0.0)])
def test_venue_tiers(venue, prestige):
    assert au._venue_prestige(venue) == prestige


def test_affiliation_tiers_match_whole_words():
    assert au._one_affiliation("MIT CSAIL") == 1.0 and au._one_affiliation("Dept. of CS, Virginia Tech") == 0.66
    assert au._one_affiliation("Summit Labs") == 0.33 and au._one_affiliation(" ") == 0.0     # no "MIT" in Summit
    assert au._affiliation_prestige(["Small College", "Harvard University"]) == 1.0 and au._affiliation_prestige([]) == 0


def test_credited_is_a_soft_minimum_at_the_ceiling():
    k = au.CREDIT_SOFTNESS
    got = au.credited(np.array([0.0, 0.5, 5.0]), 0.5)
    # far below C: a − κ·log(1 + e^((a − C)/κ)); at C: C − κ ln 2; far above: C
    assert got == pytest.approx([-k * np.log1p(np.exp(-0.5 / k)), 0.5 - k * np.log(2), 0.5], abs=1e-12)


def test_parse_folding_by_hand():
    p = np.zeros(10)
    p[0] = 1.0
    assert au.observed_from_choice("gpt-5.4", p)[0].tolist() == p.tolist()           # frontier: no quirks
    # an open model: 4 % of answers carry a stray prefix whose first number (2, 3, 1 or 10) is read
    want = 0.96 * p
    for k in (2, 3, 1, 10):
        want[k - 1] += 0.04 / 4
    assert au.observed_from_choice("llama3.1:8b", p)[0] == pytest.approx(want)
    # deepseek-r1's think block names a random candidate first with probability 0.1
    assert au.observed_from_choice("deepseek-r1:8b", p)[0] == pytest.approx(0.9 * p + 0.01)


def test_choice_probabilities_are_the_softmax_of_their_terms(task):
    model = "mistral:7b"
    par = au.model_params(SEED)[model]
    a, r = au.card_terms(SEED, task)
    u = ((r + au.card_noise(SEED, model, task)) / au.topic_factor(SEED, model, task)
         + par["susceptibility_by_instruction"]["none"] * au.credited(a, par["credit_ceiling"]))
    u[0] += au.PRIMACY
    u /= par["tau"]["none"] * au.topic_noise(SEED, model, task)
    want = np.exp(u - u.max()) / np.exp(u - u.max()).sum()
    got = au.choice_probabilities(SEED, model, task)
    assert got == pytest.approx(want) and got.sum() == pytest.approx(1.0)
    assert au.topic_of(task) == "Knowledge Distillation"
    assert au.flip_probability(SEED, model, task, task) == pytest.approx(1 - (got ** 2).sum())


def test_picks_and_mentions_are_recovered_from_draws(task):
    profile = all_profiles()["gpt-5.4"]
    par = au.model_params(SEED)[profile.id]
    probs = np.array([0.3, 0.7] + [0.0] * 8)
    rng = np.random.default_rng(0)
    n = 1500
    metas = [au.answer(SEED, profile, task, rng, probs)["meta"] for _ in range(n)]
    second = sum(m["chosen_index"] == 2 for m in metas)
    lo, hi = wilson(second, n)
    assert lo <= 0.7 <= hi and {m["chosen_index"] for m in metas} == {1, 2}
    assert all(m["faithful_parse"] == m["chosen_index"] for m in metas)   # frontier: no stray numbers
    mentions = sum(m["mention_intended"] for m in metas)
    lo, hi = wilson(mentions, n)
    assert lo <= par["mention_rate"]["none"] <= hi


def test_think_blocks_and_the_faithful_parse(task):
    deepseek = all_profiles()["deepseek-r1:8b"]
    rng = np.random.default_rng(1)
    outs = [au.answer(SEED, deepseek, task, rng, np.eye(10)[6]) for _ in range(300)]
    assert all(o["content"].startswith("<think>\n") and o["meta"]["chosen_index"] == 7 for o in outs)
    wrong = sum(o["meta"]["faithful_parse"] != 7 for o in outs)
    lo, hi = wilson(wrong, 300)
    # the think block's first number is a random candidate with θ = 0.1, right by chance 1 in 10;
    # a missing number (0.009) leaves only the think block's
    assert lo <= 0.1 * 0.9 <= hi


def test_unfitted_models_take_their_cohorts_mean_fit():
    fit = au.fitted()["models"]
    par = au.model_params(SEED)
    opened = [f for m, f in fit.items() if au.cohort(m) == "open"]
    qwen = par["qwen/qwen3-8b"]
    assert not qwen["fitted"] and qwen["cohort"] == "open"
    assert qwen["tau"]["none"] == pytest.approx(np.mean([f["tau"]["none"] for f in opened]))
    for m in ("llama3.1:8b", "gpt-5.4"):
        s = par[m]["susceptibility_by_instruction"]
        assert par[m]["fitted"] and par[m]["instruction_multiplier"]["mild"] == pytest.approx(s["mild"] / s["none"])
    assert au.reported_gain("It gains 3.5 points over X.") == 3.5 and np.isnan(au.reported_gain("No gain."))


def test_the_fitted_file_is_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RESOURCES", tmp_path)
    au.fitted.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="needs its fitted parameters .*panel_authority_fit.json"):
            au.fitted()
        (tmp_path / au.FIT_FILE).write_text(json.dumps({"models": {}, "seed": 1}))
        with pytest.raises(ValueError, match="panel_authority_fit.json: missing field 'topic_multiplier'"):
            au.fitted()
    finally:
        au.fitted.cache_clear()
