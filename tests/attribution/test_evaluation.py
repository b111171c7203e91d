"""lib.attribution.evaluation: an absent evaluation (no endpoint) builds nothing, and the views of a
scored one (accuracy as "% [CI]", best-minus-worst gaps) by hand."""
import pandas as pd
import pytest

from lib.attribution import evaluation as ev
from lib.attribution import inputs


def _rows(metric: str, prompt: str, evidence: bool, means: dict[str, float]) -> list[dict]:
    return [{"dataset": "intersectional", "model": "m1", "prompt_type": prompt, "evidence": evidence,
             "metric": metric, "subgroup": g, "mean": v} for g, v in means.items()]


@pytest.fixture(scope="module")
def scored_eval():
    acc = pd.DataFrame(_rows("accuracy", "direct", False, {"M/White": 0.80, "F/Black": 0.55})
                       + _rows("accuracy", "direct", True, {"M/White": 0.99, "F/Black": 0.97}))
    omit = pd.DataFrame(_rows("omission", "indirect", False, {"M/White": 0.20, "F/Black": 0.35}))
    evid = pd.DataFrame(_rows("miss", "indirect", True, {"M/White": 0.10, "F/Black": 0.12}))
    return ev.Evaluation(synthetic=True, acc_sig=acc, omit_sig=omit, evid_sig=evid,
                         accuracy=pd.DataFrame({"dataset": "intersectional", "model": "m1", "prompt_type": ["direct"] * 2,
                                                "evidence": [False, True], "mean": [0.675, 0.98],
                                                "ci_low": [0.6012, 0.97], "ci_high": [0.74, 0.99]}))


def test_disparities_are_max_minus_min_in_pp_with_the_best_end_by_direction(scored_eval):
    d = ev.disparities(scored_eval).set_index(["metric", "evidence"])
    acc = d.loc[("accuracy", False)]
    assert acc["gap_pp"] == pytest.approx(25.0) and acc["best_subgroup"] == "M/White"
    omit = d.loc[("omission", False)]                    # suppression: lower is better
    assert omit["gap_pp"] == pytest.approx(15.0) and omit["best_subgroup"] == "M/White"
    assert omit["worst_subgroup"] == "F/Black"
    gaps = ev.headline_gaps(scored_eval)                 # the evidence accuracy row is not a headline gap
    assert gaps.loc["m1"].to_dict() == {("intersectional", "accuracy", "direct"): 25.0,
                                        ("intersectional", "miss", "indirect"): 2.0,
                                        ("intersectional", "omission", "indirect"): 15.0}


def test_accuracy_view_prints_percent_and_interval_without_evidence(scored_eval):
    v = ev.accuracy_view(scored_eval)
    assert v.loc["m1", ("intersectional", "direct")] == "67.5 [60.1, 74.0]"
    assert v.shape == (1, 1)


def test_subgroups_concatenates_the_three_tests(scored_eval):
    assert len(scored_eval.subgroups) == 8 and ev.Evaluation(synthetic=True).subgroups is None


def test_a_profile_without_endpoint_makes_no_runs_and_every_step_is_none(tmp_path, load_profile_text):
    cfg = load_profile_text().model_copy(update={"synthetic": False})
    assert not inputs.run_models(cfg)
    got = ev.collect(cfg, sources=None, table=pd.DataFrame(), options=ev.RunOptions(run_matchings=0, generations=1))
    assert not got.ran and got.reason == ev.NO_ENDPOINT
    assert got.line() == f"model runs: none, {ev.NO_ENDPOINT}"
    out = tmp_path / "06"
    out.mkdir()
    assert ev.score(got, out) is got and not list(out.iterdir())   # nothing written
    assert (ev.accuracy_view(got), ev.disparities(got), ev.headline_gaps(got), ev.figure(got, "at-fig4"),
            ev.quirk_table(got, balanced=None)) == (None, None, None, None, None)
