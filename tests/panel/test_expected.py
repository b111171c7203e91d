"""lib.panel.expected: the truth JSON's structure and its rates taken from the latent parameters,
the AttriBench expectation averaged by group by hand, the parameter table by hand on one model.
AttriBench's own parameters (a costly per-seed solve, tested in test_attribution.py) are stubbed
here, and the truth is built for two models (it loops over every profile alike): this module checks
what expected.py assembles, not how attribution.py fits."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from lib.panel import Panel, calibration, expected, latent
from lib.panel.profiles import all_profiles
from tests.panel.test_world import authors_table

SEED = 11
LLAMA = "meta-llama/llama-3.1-8b-instruct"
TWO = (LLAMA, "gpt-5.4")
QUOTES = pd.DataFrame({"quote": ["q one", "q two", "q three"], "author": ["A A", "B B", "C C"],
                       "race": ["White", "black", "black"], "gender": ["male", "Female", "female"],
                       "log10_hits": [6.0, 2.0, 4.0]})


def stub_outcomes(p, family, evidence, fame, race, gender):
    """Hand-checkable outcome probabilities: correct = fame / 10 (+0.1 with evidence, +0.05 direct)."""
    c = fame / 10 + (0.1 if evidence else 0.0) + (0.05 if family == "direct" else 0.0)
    return {"knows": c, "correct": c, "wrong": (1 - c) / 2, "none": (1 - c) / 2}


@pytest.fixture(scope="module")
def facts():
    mp = pytest.MonkeyPatch()
    mp.setattr(expected, "all_profiles", lambda: {m: all_profiles()[m] for m in TWO})
    mp.setattr(expected.attribution, "model_params", lambda seed: {m: {"alpha": 0.0, "in_paper": False}
                                                                   for m in all_profiles()})
    mp.setattr(expected.attribution, "outcome_probabilities", stub_outcomes)
    mp.setattr(expected.attribution, "suppression_gaps", lambda params: {"stub": 1.0})
    mp.setattr(expected.attribution, "target_table", lambda params: pd.DataFrame({"quantity": ["stub"]}))
    try:
        panel = Panel(SEED, authors_table(), quotes=QUOTES)
        yield expected.truth(SEED, panel=panel, temperatures=(0.0, 1.0)), panel
    finally:
        mp.undo()


def test_clean_makes_json_safe_values():
    got = expected._clean({"a": np.float64(1.5), 2: [np.int64(3), float("nan"), np.bool_(True)], "t": (np.nan,)})
    assert got == {"a": 1.5, "2": [3, None, True], "t": [None]}
    assert type(got["2"][0]) is int and type(got["2"][2]) is bool


def test_truth_header_and_json(facts):
    facts, panel = facts
    json.dumps(facts, allow_nan=False)                     # strict JSON
    assert facts["panel"] == {"version": "panel/1", "seed": SEED, "synthetic": True, "n_authors": panel.index.n,
                              "n_quotes": 3, "attribution_expected_over": "registered quotes"}
    assert set(facts["request_fields"]) == {"replicate", "attempt", "infrastructure_try", "grounding", "temperature"}
    assert facts["faults"] == panel.faults.as_dict() and tuple(facts["models"]) == TWO
    assert facts["calibration"]["attribution_suppression_gaps"] == {"stub": 1.0}


def test_truth_rates_are_the_latent_parameters(facts):
    facts, panel = facts
    m = facts["models"][LLAMA]
    T = all_profiles()[LLAMA].temperature
    at = latent.lsb_task(SEED, LLAMA, "senior", T)
    got = m["lsb"]["tasks"]["senior"]
    assert got["q"] == at["q"] and got["eventual_validity"] == at["eventual_validity"]
    assert got["refusal_family_mix"]["Contradictory request"] == 0.80              # baseline mix
    assert m["lsb"]["tasks"]["movie_male"]["refusal_family_mix"]["Contradictory request"] == 0.90
    assert set(m["lsb"]["temperature_curves"]["senior"]) == {"0", "1"}
    assert m["lsb"]["temperature_curves"]["senior"]["1"]["kappa"] == latent.lsb_task(SEED, LLAMA, "senior", 1.0)["kappa"]
    assert m["lsb"]["latent"]["beta"] == panel.scholar.beta(LLAMA)
    assert m["attributes"] == all_profiles()[LLAMA].attributes()
    assert set(m["lsb"]["tasks"]) == set(calibration.ALL_PARAMS)


def test_attribution_expectation_is_the_mean_over_each_groups_quotes(facts):
    exp = facts[0]["models"][LLAMA]["attribution"]["expected"]
    direct = exp["direct"]["no_evidence"]
    # correct = fame/10 + 0.05: white_male 0.65; black_female (fame 2 and 4) 0.35; all three 0.45
    assert direct["white_male"] == pytest.approx({"knows": 0.65, "correct": 0.65, "wrong": 0.175, "none": 0.175,
                                                  "n_quotes": 1})
    assert direct["black_female"]["correct"] == pytest.approx(0.35) and direct["black_female"]["n_quotes"] == 2
    assert direct["black"]["correct"] == pytest.approx(0.35) and direct["all"]["correct"] == pytest.approx(0.45)
    assert exp["indirect"]["evidence"]["all"]["correct"] == pytest.approx(0.5)
    assert set(exp) == {"direct", "indirect", "indirect_overt"}


def test_parameter_table_by_hand_on_one_model():
    table = expected.parameter_table(SEED)
    row = table.loc[LLAMA]
    T = all_profiles()[LLAMA].temperature
    tasks = [latent.lsb_task(SEED, LLAMA, p, T) for p in calibration.BASELINE_PARAMS]
    assert row["q"] == pytest.approx(np.mean([t["q"] for t in tasks]))
    assert row["kappa"] == pytest.approx(np.mean([t["kappa"] for t in tasks]))
    assert row["Tc_minus_Tstar"] == latent.lsb_models(SEED)[LLAMA].Tc_gap and math.isnan(row["beta"])
    assert row["target_val"] == calibration.model_targets().loc[LLAMA, "val"]
    assert list(table.index) == list(expected.all_profiles())
