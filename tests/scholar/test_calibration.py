"""lib.scholar.calibration: the temperature selection rule of reference §2.12 on hand-made tables."""
import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

from lib.scholar import calibration as cal
from lib.scholar import models as lsb_models

matplotlib.use("Agg")
KEYS = list(cal.REQUEST_KEYS)


def _attempts(rows):
    """rows: (model, task, param, T, replicate, [labels of attempts 1..k]); valid_attempt as the
    reference marks it (lowest valid, else lowest verbose)."""
    out = []
    for m, task, param, T, rep, labs in rows:
        chosen = next((i for i, l in enumerate(labs) if l == "valid"), None)
        if chosen is None:
            chosen = next((i for i, l in enumerate(labs) if l == "verbose"), None)
        for i, lab in enumerate(labs):
            out.append({"experiment": "e", "model": m, "task": task, "param": param, "temperature": T,
                        "replicate": rep, "attempt": i + 1, "label": lab, "valid_attempt": i == chosen})
    return pd.DataFrame(out)


def _names(rows):
    """rows: (model, task, param, T, replicate, [(name, matched), ...])."""
    out = []
    for m, task, param, T, rep, names in rows:
        for n, ok in names:
            out.append({"experiment": "e", "model": m, "task": task, "param": param, "temperature": T,
                        "replicate": rep, "name": n, "matched": ok})
    return pd.DataFrame(out)


@pytest.fixture
def sweep():
    att = _attempts([
        ("m", "top_k", "top_5", 0.0, 0, ["valid"]),
        ("m", "top_k", "top_5", 0.0, 1, ["valid"]),
        ("m", "twins", "famous_male", 0.0, 0, ["valid"]),
        ("m", "twins", "famous_male", 0.0, 1, ["valid"]),
        ("m", "top_k", "top_5", 1.0, 0, ["invalid", "valid"]),
        ("m", "top_k", "top_5", 1.0, 1, ["verbose"]),
        ("m", "twins", "famous_male", 1.0, 0, ["invalid", "empty", "invalid"]),
        ("m", "twins", "famous_male", 1.0, 1, ["skipped-item", "skipped-item", "skipped-item"]),
        # constrained prompts never count (reference §2.12: the 18 experiment params only)
        ("m", "biased_top_k", "top_100_bias_diverse", 1.0, 0, ["valid"]),
    ])
    names = _names([
        ("m", "top_k", "top_5", 0.0, 0, [("a", True), ("b", True), ("c", True), ("d", False)]),   # .75
        ("m", "top_k", "top_5", 0.0, 1, [("a", True), ("b", True), ("e", False), ("f", False)]),  # .5
        ("m", "twins", "famous_male", 0.0, 0, [("g", True), ("h", True)]),                         # 1
        ("m", "twins", "famous_male", 0.0, 1, [("g", True), ("i", False)]),                        # .5
        ("m", "top_k", "top_5", 1.0, 0, [("a", True), ("b", True), ("c", True), ("j", True)]),    # 1
        ("m", "top_k", "top_5", 1.0, 1, [("a", True), ("b", True), ("c", True), ("k", False)]),   # .75
        ("m", "biased_top_k", "top_100_bias_diverse", 1.0, 0, [("z", True)]),
    ])
    return att, names


def test_representative_attempt_is_the_valid_one_else_the_last(sweep):
    att, _ = sweep
    rep = cal.representative_attempts(att).set_index(["task", "temperature", "replicate"])
    assert rep.loc[("top_k", 1.0, 0), "attempt"] == 2 and rep.loc[("top_k", 1.0, 0), "label"] == "valid"
    assert rep.loc[("twins", 1.0, 0), "attempt"] == 3 and rep.loc[("twins", 1.0, 0), "label"] == "invalid"
    assert len(rep) == 9


def test_scores_by_hand(sweep):
    att, names = sweep
    sc = cal.temperature_scores(att, names).set_index("temperature")
    # T=0: top_k shares (.75, .5): mean .625, sd .17678; twins (1, .5): mean .75, sd .35355
    sd0 = (np.std([.75, .5], ddof=1) + np.std([1, .5], ddof=1)) / 2
    assert sc.loc[0.0, "fact_mean"] == pytest.approx((.625 + .75) / 2)
    assert sc.loc[0.0, "fact_std"] == pytest.approx(sd0)
    assert sc.loc[0.0, "f_valid"] == 1.0 and sc.loc[0.0, "n_requests"] == 4
    assert sc.loc[0.0, "score"] == pytest.approx(.6875 / sd0)
    # T=1: only top_k has names (1, .75); twins' requests end invalid / skipped-item; biased ignored
    assert sc.loc[1.0, "fact_mean"] == pytest.approx(.875)
    assert sc.loc[1.0, "fact_std"] == pytest.approx(np.std([1, .75], ddof=1))
    assert sc.loc[1.0, "f_valid"] == 0.5 and sc.loc[1.0, "n_requests"] == 4
    assert sc.loc[1.0, "score"] == pytest.approx(.875 / np.std([1, .75], ddof=1) * 0.5)


def test_validity_penalty_decides_and_the_caption_label_set_changes_it(sweep):
    att, names = sweep
    # factuality alone prefers T=1 (4.95 vs 2.59), but half its requests are not valid: 2.47 < 2.59
    sc = cal.temperature_scores(att, names)
    assert sc.set_index("temperature")["f_score"].idxmax() == 1.0
    assert cal.select_temperatures(sc)["temperature"].tolist() == [0.0]
    # counting skipped-item as valid (Fig. A.2's caption) lifts f_valid(T=1) to .75: 3.71 > 2.59
    sc2 = cal.temperature_scores(att, names, valid_labels=cal.CAPTION_VALID_LABELS)
    assert sc2.set_index("temperature").loc[1.0, "f_valid"] == 0.75
    assert cal.select_temperatures(sc2)["temperature"].tolist() == [1.0]


def test_zero_sd_wins_outright_faithfully():
    att = _attempts([("m", "top_k", "top_5", T, r, ["valid"]) for T in (0.0, 0.5) for r in (0, 1)])
    names = _names([("m", "top_k", "top_5", 0.0, 0, [("a", True), ("b", True)]),
                    ("m", "top_k", "top_5", 0.0, 1, [("a", True), ("c", False)]),
                    ("m", "top_k", "top_5", 0.5, 0, [("a", True), ("c", False)]),
                    ("m", "top_k", "top_5", 0.5, 1, [("a", True), ("d", False)])])
    sc = cal.temperature_scores(att, names).set_index("temperature")
    assert sc.loc[0.5, "fact_std"] == 0 and sc.loc[0.5, "f_score"] == pytest.approx(0.5 / cal.STD_FLOOR)
    assert cal.select_temperatures(sc.reset_index())["temperature"].tolist() == [0.5]


def test_selection_ties_go_to_the_lower_temperature_and_nan_ranks_last():
    scores = pd.DataFrame({
        "model": ["a", "a", "a", "b", "b", "c", "c"],
        "temperature": [1.0, 0.5, 0.0, 0.0, 0.25, 0.75, 0.25],
        "score": [3.0, 3.0, 2.0, np.nan, 1.0, np.nan, np.nan],
    })
    sel = cal.select_temperatures(scores.sample(frac=1, random_state=3)).set_index("model")
    assert sel.loc["a", "temperature"] == 0.5 and sel.loc["a", "scored"]
    assert sel.loc["b", "temperature"] == 0.25
    assert sel.loc["c", "temperature"] == 0.25 and not sel.loc["c", "scored"]


def test_request_factuality_faithful_counts_duplicates_and_drops_zero_requests():
    names = _names([("m", "top_k", "top_5", 0.0, 0, [("x", True), ("x", True), ("y", False)]),
                    ("m", "top_k", "top_5", 0.0, 1, [("z", False)])])
    f = cal.request_factuality(names).set_index("replicate")["factuality"]
    assert f.to_dict() == {0: pytest.approx(2 / 3)}
    c = cal.request_factuality(names, mode="corrected").set_index("replicate")["factuality"]
    assert c.to_dict() == {0: pytest.approx(1 / 2), 1: 0.0}
    with pytest.raises(ValueError, match="mode"):
        cal.request_factuality(names, mode="paper")
    with pytest.raises(KeyError, match="matched"):
        cal.request_factuality(names.drop(columns="matched"))


def test_label_shares_sum_to_one(sweep):
    att, _ = sweep
    sh = cal.label_shares(att).set_index(["model", "temperature"])
    assert np.allclose(sh.sum(axis=1), 1.0)
    assert sh.loc[("m", 1.0), "skipped-item"] == 0.25 and sh.loc[("m", 0.0), "valid"] == 1.0


def test_table_a1_and_figure_a2():
    models = lsb_models.load_models()
    sel = pd.DataFrame({"model": models["key"], "temperature": 0.25})
    tab = cal.table_a1(models, sel)
    assert len(tab) == 24 and (tab["Temper. (selected)"] == 0.25).all()
    assert tab.set_index("Model").loc["gemini-2.5-pro-grounded", "RAG"] == "✓"
    with pytest.raises(KeyError, match="llama-3.1-8b"):
        cal.table_a1(models, sel[sel["model"] != "llama-3.1-8b"])
    shares = pd.DataFrame({"model": ["a", "a"], "temperature": [0.0, 1.0], "valid": [1.0, 0.4], "invalid": [0.0, 0.6]})
    scores = pd.DataFrame({"model": ["a", "a"], "temperature": [0.0, 1.0], "fact_mean": [.9, .7], "fact_std": [.1, .2]})
    fig = cal.figure_a2(shares, scores, pd.DataFrame({"model": ["a"], "temperature": [1.0]}), models=["a"],
                        synthetic=True)
    ax = fig.axes[0]
    outlined = [p for p in ax.patches if not p.get_fill()]
    assert len(outlined) == 1 and math.isclose(outlined[0].get_x(), 1 - 0.4)
    assert "SYNTHETIC" in fig._suptitle.get_text()


def test_a_model_not_scored_or_partial_is_never_shown_at_its_lowest_temperature():
    """Issue 26: a model that never answered had 0.0 as its 'selected' temperature in Table A.1, an
    outline at 0 in Fig. A.2 and 0.0 in the comparison; now it is empty, unoutlined and missing."""
    from lib.scholar import published as lsb_published

    models = lsb_models.load_models()
    sel = pd.DataFrame({"model": models["key"], "temperature": 0.25, "scored": True})
    dead = "llama-3.1-8b"
    sel.loc[sel["model"] == dead, ["temperature", "scored"]] = [0.0, False]
    tab = cal.table_a1(models, sel, partial={dead: 0.0, "gemma-3-12b": 0.5}).set_index("Model")
    assert math.isnan(tab.loc[dead, "Temper. (selected)"]) and tab.loc[dead, "Note"] == "not scored; partial: answered 0%"
    assert tab.loc["gemma-3-12b", "Note"] == "partial: answered 50%" and tab.loc["gemma-3-12b", "Temper. (selected)"] == 0.25
    assert (tab.drop(index=[dead, "gemma-3-12b"])["Note"] == "").all()
    cmp = lsb_published.lsb_temperatures(sel.assign(fact_mean=.5, fact_std=.1, f_valid=1.0))
    row = cmp[(cmp["row"] == dead) & (cmp["column"] == "temperature")].iloc[0]
    assert math.isnan(row["regenerated"])
    shares = pd.DataFrame({"model": ["a", "a"], "temperature": [0.0, 1.0], "invalid": [1.0, 1.0]})
    scores = pd.DataFrame({"model": ["a", "a"], "temperature": [0.0, 1.0], "fact_mean": [np.nan] * 2,
                           "fact_std": [np.nan] * 2})
    fig = cal.figure_a2(shares, scores, pd.DataFrame({"model": ["a"], "temperature": [0.0], "scored": [False]}),
                        models=["a"], synthetic=True, partial={"a": 0.1})
    ax = fig.axes[0]
    assert not [p for p in ax.patches if not p.get_fill()] and "not scored" in ax.get_title()
    assert "partial: answered 10%" in ax.get_title()
