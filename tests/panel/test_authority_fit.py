"""lib.panel.authority_fit: the published targets turned into per-instruction flip and boost targets
by hand, the targets file's checks, the root finder, and the fit's known target on a tiny prompt set
(two queries, three conditions): at s = 0 a manipulation changes nothing but sampling, a flip rate
made at a known (s, τ) is solved back to that s, and the per-instruction solve reaches its targets."""
import numpy as np
import pandas as pd
import pytest

from lib import paths
from lib.panel import authority_fit as fit
from tests.panel.test_panel import BASELINE, card

SEED = 11
MODEL = "mistral:7b"
QUERIES = {"q1": "What are effective knowledge distillation techniques?",
           "q2": "How can prompt engineering improve reasoning?"}


def prompt(query: str, elite: set[int]) -> str:
    cards = [card(i, f"Study {chr(64 + i)} of {query[:20]}", "Neural Information Processing Systems" if i in elite
                  else "arXiv.org", 4000 if i in elite else 30, 75 if i in elite else 4,
                  "Stanford University" if i in elite else "Small College") for i in range(1, 11)]
    return BASELINE.format(query=query, papers_list="\n\n".join(cards))


# original: card 2 shows elite metadata; flipped: they move to card 9; boosted: card 5 is inflated too
CONDITION_ELITE = {"original": {2}, "flipped": {9}, "boosted": {2, 5}}


@pytest.fixture(scope="module")
def arrays() -> fit.PromptArrays:
    rows = pd.DataFrame([(q, c, prompt(text, elite)) for q, text in QUERIES.items()
                         for c, elite in CONDITION_ELITE.items()], columns=["query_id", "condition", "text"])
    return fit.PromptArrays(SEED, rows)


def test_flip_and_boost_targets_by_hand():
    t = fit.model_flip_targets(["gpt-4o-mini", MODEL])
    # gpt-4o-mini: F = 37.6, printed baseline 45.2 and mild change −3.6 → strong 3F − 2·45.2 + 3.6
    mini = t["gpt-4o-mini"]
    assert (mini["none"], mini["mild"], mini["strong"]) == pytest.approx((0.452, 0.416, 0.26))
    # mistral: F = 49.7, δ = +2.0; ρ = 31.4 / 44.3 the aggregate strong/baseline ratio
    rho = 31.4 / 44.3
    b = (3 * 49.7 - 2.0) / (2 + rho)
    m = t[MODEL]
    assert (m["none"], m["mild"], m["strong"]) == pytest.approx((b / 100, (b + 2) / 100, rho * b / 100))
    assert np.mean([m[v] for v in fit.VARIANTS]) == pytest.approx(0.497)       # the three average to F
    pooled = {"none": 21.8, "mild": 22.3, "strong": 21.0}                     # §5.7's boost rates per instruction
    assert m["boost"] == 0.22 and m["boost_mild"] == pytest.approx(0.22 * 22.3 / np.mean(list(pooled.values())))
    assert fit.boost_pick_lift_targets(["gpt-4o-mini"]) == {}
    assert fit.topic_targets(["Knowledge Distillation", "No Such Topic"])["No Such Topic"] == pytest.approx(
        fit._t("other topics", "topic_flip_rate") / 100)


def test_the_targets_file_is_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RESOURCES", tmp_path)
    fit.targets.cache_clear()
    try:
        (tmp_path / fit.TARGETS_FILE).write_text("name,quantity,value\nx,flip_rate,1\n")
        with pytest.raises(ValueError, match=r"columns \['name', 'quantity', 'value'\], expected \['name', "):
            fit.targets()
        fit.targets.cache_clear()
        (tmp_path / fit.TARGETS_FILE).write_text("name,quantity,value,printed,line,note\n"
                                                 "x,flip_rate,1,1%,3,Table 7\ny,boost_rate,2,,4,a guess\n")
        with pytest.raises(ValueError, match="row 3 has no printed value and no 'derived' note"):
            fit.targets()
    finally:
        fit.targets.cache_clear()


def test_solve_for_finds_roots_and_clamps():
    assert fit._solve_for(lambda x: x * x, 0.0, 10.0, 4.0) == pytest.approx(2.0, abs=1e-7)
    assert fit._solve_for(lambda x: np.log(x), 0.01, 100.0, 1.0, log=True) == pytest.approx(np.e, rel=1e-7)
    assert fit._solve_for(lambda x: x, 1.0, 2.0, 0.5) == 1.0 and fit._solve_for(lambda x: x, 1.0, 2.0, 5.0) == 2.0


def test_prompt_arrays_read_conditions_and_the_boosted_card(arrays):
    assert arrays.queries == ["q1", "q2"] and arrays.n == 10
    assert arrays.boosted.tolist() == [[0, 0, 0, 0, 1, 0, 0, 0, 0, 0]] * 2 and arrays.boost_chance() == 0.1
    assert arrays.topic.tolist() == ["Knowledge Distillation", "Prompt Engineering"]
    assert (arrays.A["original"][:, 1] > arrays.A["original"][:, 0]).all()      # card 2 shows the authority
    with pytest.raises(ValueError, match=r"no prompt for \('q1', 'boosted'\)"):
        fit.PromptArrays(SEED, pd.DataFrame({"query_id": ["q1"] * 2, "condition": ["original", "flipped"],
                                             "text": [prompt(QUERIES["q1"], {2}), prompt(QUERIES["q1"], {9})]}))
    with pytest.raises(ValueError, match=r"the prompt table lacks \['text'\]"):
        fit.PromptArrays(SEED, pd.DataFrame({"query_id": ["q1"], "condition": ["original"]}))


def test_without_susceptibility_a_manipulation_changes_only_the_sampling(arrays):
    t = np.ones(2)
    po = arrays.observed(MODEL, "original", 0.0, 0.5, t)
    assert po.sum(axis=1) == pytest.approx([1.0, 1.0])
    # same content on every card across conditions: at s = 0 a flip is two independent draws of one distribution
    assert arrays.change(MODEL, "flipped", 0.0, 0.5, t) == pytest.approx(1.0 - (po * po).sum(axis=1))
    assert arrays.change(MODEL, "boosted", 0.0, 0.5, t) == pytest.approx(1.0 - (po * po).sum(axis=1))


def test_a_flip_rate_made_at_a_known_susceptibility_is_solved_back(arrays):
    t, nq = np.ones(2), np.ones(2)
    made = arrays.change(MODEL, "flipped", 4.0, 0.4, t, nq, 0.8).mean()
    s = fit._solve_s(arrays, MODEL, made, 0.4, t, nq, 0.8, "none")
    assert s == pytest.approx(4.0, rel=1e-4)
    assert arrays.change(MODEL, "flipped", s, 0.4, t, nq, 0.8).mean() == pytest.approx(made, abs=1e-8)


def test_the_per_instruction_solve_reaches_flip_and_boost_targets(arrays):
    """Targets made at known (s, τ) are reached again. The nested solve needs the flip rate to rise
    with s and the boost rate with τ at the flip-matching s. On this two-query set that fails at small
    s under the strong instruction (its new reading makes the flip rate dip below its s = 0 value
    up to s ≈ 1) and at large s with small τ (s = 4, τ = 0.4 flips 96 % of picks); the points
    below avoid both. The real prompt set is checked by test_calibration.py."""
    t, nq = np.ones(2), np.ones(2)
    tgt = {}
    for v, (s, tau) in {"none": (0.5, 0.5), "mild": (1.0, 0.6), "strong": (4.0, 0.8)}.items():
        tgt[v] = arrays.change(MODEL, "flipped", s, tau, t, nq, 0.8, v).mean()
        tgt[f"boost_{v}"] = arrays.change(MODEL, "boosted", s, tau, t, nq, 0.8, v).mean()
    got = fit._solve(arrays, MODEL, tgt, t, nq, 0.8)
    assert got["ceiling"] == 0.8
    for v in fit.VARIANTS:
        s, tau = got["s"][v], got["tau"][v]
        assert arrays.change(MODEL, "flipped", s, tau, t, nq, 0.8, v).mean() == pytest.approx(tgt[v], abs=1e-6)
        assert arrays.change(MODEL, "boosted", s, tau, t, nq, 0.8, v).mean() == pytest.approx(tgt[f"boost_{v}"], abs=1e-5)
