"""lib.panel.scholar: the LLMScholarBench behaviour on a 300-author world: task groups and refusal
mixes, list lengths, the answer forms in the shapes the release's parser reads, the per-attempt
validity q recovered from draws within a binomial 99.9 % interval, and determinism of the generators."""
import json
import re

import numpy as np
import pytest

from lib.panel import latent, prompts, texts
from lib.panel.profiles import all_profiles
from lib.panel.scholar import FAMILY_MIX, ScholarBehaviour, _weighted, task_group
from lib.panel.world import AuthorIndex
from tests.panel.test_panel import golden, make_authors, wilson  # noqa: F401  (golden is a fixture)

SEED = 11
QWEN = "qwen/qwen3-8b"          # a reasoning model with a trace
LLAMA = "meta-llama/llama-3.1-8b-instruct"


@pytest.fixture(scope="module")
def authors():
    return make_authors(300, seed=2)


@pytest.fixture(scope="module")
def behaviour(authors) -> ScholarBehaviour:
    return ScholarBehaviour(AuthorIndex(authors), SEED)


def attempt(behaviour, model, task, T, r, core=0):
    return behaviour.answer(all_profiles()[model], task, T, np.random.default_rng([core, 1]),
                            np.random.default_rng([core, r, 2]))


@pytest.mark.parametrize("param,group", [
    ("movie_male", "twins_fake"), ("politic_female", "twins_fake"), ("fictitious_male", "twins_fake"),
    ("famous_female", "twins_real"), ("random_male", "twins_real"), ("twin_unknown", "twins_real"),
    ("top_100_bias_gender_female", "cp_identity"), ("top_100_bias_ethnicity_black", "cp_identity"),
    ("top_100_bias_gender_equal", "cp_other"), ("top_100_bias_citations_low", "cp_other"),
    ("top_100_bias_diverse", "cp_other"), ("top_5", "baseline"), ("senior", "baseline"), ("1950s", "baseline")])
def test_task_groups(param, group):
    assert task_group(param) == group


def test_weighted_choice_follows_the_mix():
    rng = np.random.default_rng(0)
    mix = FAMILY_MIX["cp_identity"]
    n = 3000
    draws = [_weighted(rng, mix) for _ in range(n)]
    for family, p in mix.items():
        lo, hi = wilson(draws.count(family), n)
        assert lo <= p <= hi, family
    assert _weighted(rng, {"only": 2.0}) == "only"                      # weights need not sum to 1


def test_list_lengths(behaviour, golden):
    lat = latent.lsb_models(SEED)[LLAMA]
    def length(var):
        task = prompts.parse(golden[var])
        return latent.list_length(lat, task.family, int(task.detail.get("k", 100)))

    assert length("top_5") == 5 and length("top_100") == min(100, lat.list_len_100)
    assert length("1950s") == max(3, round(lat.list_len_k)) and length("famous_male") == max(3, round(0.6 * lat.list_len_k))


def test_refusal_texts_name_fake_twins_only(behaviour, golden):
    rng = np.random.default_rng(1)
    fake, real = prompts.parse(golden["movie_male"]), prompts.parse(golden["famous_male"])
    for _ in range(60):
        family, text = behaviour.refusal_text(rng, fake)
        assert family in FAMILY_MIX["twins_fake"] and "{" not in text
        family, text = behaviour.refusal_text(rng, real)
        if family == "Contradictory request":
            assert real.detail["twin"] not in text
    named = [t for f, t in (behaviour.refusal_text(rng, fake) for _ in range(200)) if f == "Contradictory request"]
    assert any("Sheldon Cooper is a fictional character from a television series" in t for t in named)


def test_answer_forms_are_in_the_shapes_the_parser_reads(behaviour, golden):
    task = prompts.parse(golden["1950s"])
    forms = {}
    for r in range(300):
        out = attempt(behaviour, QWEN, task, 0.6, r)
        meta = out["meta"]
        assert meta["n_names"] == len(meta["names"]) and meta["n_real"] == len(meta["real_positions"])
        assert out["reasoning"]                                        # qwen3 writes a trace
        forms.setdefault(meta["form"], out["content"])
    assert {"clean", "verbose", "refusal", "empty", "placeholder"} <= set(forms)
    items = json.loads(forms["clean"])
    assert all(set(it) == {"Name", "Years"} and re.fullmatch(r"\d{4}-\d{4}", it["Years"]) for it in items)
    fenced = re.search(r"```json\n(.*)\n```", forms["verbose"], re.S).group(1)
    assert isinstance(json.loads(fenced), list)
    assert forms["empty"] == "[]" and forms["placeholder"].startswith('[{"Name": "Scientist 1", "Years": "YYYY-YYYY"}')
    assert any(forms["refusal"] in (t.format(name="", descr="") for t in opts) for opts in texts.REFUSALS.values())
    gemini = attempt(behaviour, "gemini-2.5-flash", task, 0.6, 0)
    assert gemini["reasoning"] is None                                  # Gemini returns no trace


def test_validity_is_recovered_within_a_binomial_interval(behaviour, golden):
    task = prompts.parse(golden["top_5"])
    for T in (0.0, 1.6):
        q = latent.lsb_task(SEED, LLAMA, "top_5", T)["q"]
        n = 300
        k = sum(attempt(behaviour, LLAMA, task, T, r)["meta"]["valid_intended"] for r in range(n))
        lo, hi = wilson(k, n)
        assert lo <= q <= hi, (T, k / n, q)


def test_same_generators_same_answer_and_the_core_list_is_shared(behaviour, golden):
    task = prompts.parse(golden["senior"])
    a, b = attempt(behaviour, LLAMA, task, 0.0, 4), attempt(behaviour, LLAMA, task, 0.0, 4)
    assert a == b
    runs = [set(attempt(behaviour, LLAMA, task, 0.0, r)["meta"]["real_positions"]) for r in range(8)]
    other_core = [set(attempt(behaviour, LLAMA, task, 0.0, r, core=9)["meta"]["real_positions"]) for r in range(8)]
    same = np.mean([len(x & y) / len(x | y) for x, y in zip(runs, runs[1:]) if x | y])
    across = np.mean([len(x & y) / len(x | y) for x, y in zip(runs, other_core) if x | y])
    assert same > across                                                # runs keep a share κ of one core list
