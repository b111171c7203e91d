"""lib.scholar.aggregate: the per-attempt table of all metrics and its group aggregates, on
hand-made tables with known means and 95 % CIs."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from lib import stats
from lib.scholar import aggregate as ag


def _long(rows):
    return pd.DataFrame(rows, columns=["access", "model", "metric_name", "metric_value"])


@pytest.fixture
def table():
    rows = []
    for v in (1, 1, 0, 1):
        rows.append(("open", "a-1", "validity_pct", v))
    for v in (1, 0):
        rows.append(("proprietary", "b-1", "validity_pct", v))
    for v in (0.1, 0.3):
        rows.append(("open", "a-1", "duplicates", v))
    for v in (0.2, 0.2, np.nan):
        rows.append(("proprietary", "b-1", "duplicates", v))
    for v in (0.9, 0.1):
        rows.append(("open", "a-1", "refusal_pct", v))
    rows.append(("open", "a-1", "consistency", np.nan))       # no value anywhere -> no row
    rows.append(("open", "a-1", "parity_gender", 0.5))
    rows.append(("proprietary", "b-1", "parity_gender", 0.5))  # tie -> both bold
    return _long(rows)


def test_means_and_intervals(table):
    agg = ag.aggregate(table, ("access",)).set_index(["group", "metric_name"])
    v = agg.loc[("open", "validity_pct")]
    assert v["n"] == 4 and v["mean"] == 0.75
    assert (v["ci_low"], v["ci_high"]) == pytest.approx(stats.wilson_ci(3, 4))
    d = agg.loc[("open", "duplicates")]
    half = st.t.ppf(0.975, 1) * np.std([0.1, 0.3], ddof=1) / math.sqrt(2)
    assert d["mean"] == pytest.approx(0.2) and d["ci_high"] == pytest.approx(0.2 + half)
    assert d["ci_low"] == pytest.approx(0.2 - half) and d["ci_low"] < 0       # unclipped t
    p = agg.loc[("proprietary", "duplicates")]
    assert p["n"] == 2 and p["ci"] == pytest.approx(0.0)                      # NaN ignored, constant values
    assert ("open", "consistency") not in agg.index
    assert set(agg["group_kind"]) == {"access"}


def test_best_in_group(table):
    agg = ag.aggregate(table, ("access",)).set_index(["group", "metric_name"])["best"]
    assert agg[("open", "validity_pct")] and not agg[("proprietary", "validity_pct")]      # max
    assert agg[("open", "duplicates")] and agg[("proprietary", "duplicates")]            # 0.20 == 0.20 shown
    assert not agg[("open", "refusal_pct")]                                               # no direction
    assert agg[("open", "parity_gender")] and agg[("proprietary", "parity_gender")]      # tie
    lone = ag.aggregate(table[table["access"] == "open"], ("access",))
    assert not lone["best"].any()                                                         # one group: nothing bold


def test_best_uses_displayed_decimals():
    t = _long([("open", "a", "duplicates", 0.101), ("open", "a", "duplicates", 0.101),
               ("proprietary", "b", "duplicates", 0.12), ("proprietary", "b", "duplicates", 0.12)])
    assert ag.aggregate(t, ("access",)).set_index("group")["best"].to_dict() == {"open": True, "proprietary": False}
    assert ag.aggregate(t, ("access",), decimals=1)["best"].all()


def test_stacked_groups_and_metric_filter(table):
    agg = ag.aggregate(table, ("access", "model"), metrics=["validity_pct"])
    assert list(agg["group_kind"].unique()) == ["access", "model"] and set(agg["metric_name"]) == {"validity_pct"}
    with pytest.raises(KeyError, match="size_class"):
        ag.aggregate(table, ("size_class",))


def test_display_order():
    t = pd.DataFrame({"model": ["b-2", "a-1", "c-1", "a-1"], "model_family": ["z", "y", "y", "y"]})
    assert ag.display_order(t, "model") == ["a-1", "c-1", "b-2"]


# ---- per-attempt table on a tiny world ---------------------------------------------------------

MODELS = {"m-open": ("open", "S", "non-reasoning"), "g-prop": ("proprietary", "M", "reasoning")}


def _att(model, rep, attempt, valid, refusal, task="field", param="PER", grounded=False):
    acc, size, cls = MODELS[model]
    return {"model": model, "task": task, "param": param, "temperature": 0.0, "replicate": rep, "attempt": attempt,
            "valid_attempt": valid, "is_refusal": refusal, "valid_attempt_paper": valid,
            "is_refusal_corrected": refusal, "grounded": grounded, "access": acc, "size_class": size,
            "model_class": cls}


def _nm(model, rep, attempt, pairs, task="field", param="PER"):
    return [{"mode": "faithful", "model": model, "task": task, "param": param, "temperature": 0.0, "replicate": rep,
             "attempt": attempt, "clean_name": n, "author_id": a} for n, a in pairs]


@pytest.fixture(scope="module")
def ctx(tiny_world):
    from lib.scholar.benchmark import GroundTruthContext

    return GroundTruthContext.from_world(tiny_world)


@pytest.fixture
def collection():
    att = pd.DataFrame([_att("m-open", 0, 1, False, 1), _att("m-open", 0, 2, True, 0),
                        _att("g-prop", 0, 1, True, 0),
                        _att("m-open", 0, 1, True, 1, task="biased_top_k", param="top_100_bias_diverse"),
                        _att("g-prop", 0, 1, True, 0, grounded=True)])
    names = pd.DataFrame(_nm("m-open", 0, 2, [("x", 1), ("y", 2), ("y", 2), ("ghost", None)])
                         + _nm("g-prop", 0, 1, [("z", 4)])
                         + _nm("m-open", 0, 1, [("q", 3)], task="biased_top_k", param="top_100_bias_diverse"))
    names["author_id"] = names["author_id"].astype("Int64")
    return att, names


def test_baseline_query(collection):
    att, _ = collection
    b = ag.baseline(att)
    assert len(b) == 3 and (b["task"] != "biased_top_k").all() and not b["grounded"].any()


def test_per_attempt_table(collection, ctx):
    att, names = collection
    pa = ag.per_attempt_table(ag.baseline(att), names, ctx)
    assert list(pa.columns) == ag.PER_ATTEMPT_COLUMNS
    v = pa[pa["model"] == "m-open"].set_index("metric_name")
    assert v.loc["duplicates", "metric_value"] == 0.25 and v.loc["factuality_author", "metric_value"] == pytest.approx(2 / 3)
    assert v.loc["factuality_field", "metric_value"] == 0.5          # x in PER, y not; ghost excluded
    assert v.loc["connectedness", "metric_value"] == 1.0
    assert v.loc["duplicates", "attempt"] == 2 and math.isnan(v.loc["validity_pct", "attempt"])
    assert sorted(pa.loc[(pa["model"] == "m-open") & (pa["metric_name"] == "refusal_pct"), "metric_value"]) == [0, 1]
    assert (pa["metric_name"] == "duplicates").sum() == 2              # the constrained prompt's names left out
    cons = pa[pa["metric_name"] == "consistency"]                     # one run: a NaN row (the reference's)
    assert len(cons) > 0 and cons["metric_value"].isna().all() and cons["replicate"].isna().all()
    assert set(pa["model_family"]) == {"m", "g"} and set(pa["access"]) == {"open", "proprietary"}
    for metric in ag.HEADLINE_METRICS:
        if metric != "consistency":
            assert metric in set(pa["metric_name"]), metric


def test_per_attempt_consistency_with_two_runs(collection, ctx):
    att, names = collection
    att2 = pd.concat([att, pd.DataFrame([_att("g-prop", 1, 1, True, 0)])], ignore_index=True)
    names2 = pd.concat([names, pd.DataFrame(_nm("g-prop", 1, 1, [("z", 4), ("w", None)]))], ignore_index=True)
    pa = ag.per_attempt_table(ag.baseline(att2), names2, ctx)
    c = pa[(pa["metric_name"] == "consistency") & pa["metric_value"].notna()]
    assert len(c) == 1 and c["model"].iloc[0] == "g-prop" and c["metric_value"].iloc[0] == 0.5   # {z} vs {z, w}


def test_published_means_and_comparison(tmp_path):
    fig2 = ag.published_means("fig2")
    assert len(fig2) == 8 * 9 and set(fig2["group_kind"]) == set(ag.GROUP_COLUMNS)
    row = fig2[(fig2["group"] == "proprietary") & (fig2["metric_name"] == "factuality_author")]
    assert row["published"].tolist() == [0.91]
    per_model = ag.published_means("model")
    assert {"factuality_seniority", "parity_prominence_cit"} <= set(per_model["metric_name"])
    agg = pd.DataFrame({"group_kind": ["access"], "group": ["proprietary"], "metric_name": ["factuality_author"],
                        "mean": [0.81]})
    cmp = ag.compare_published(agg, fig2).set_index(["group", "metric_name"])
    assert cmp.loc[("proprietary", "factuality_author"), "difference"] == pytest.approx(-0.10)
    assert cmp["mean"].notna().sum() == 1 and len(cmp) == 72
    (tmp_path / "lsb_published_fig2_group_means.csv").write_text("group,kind,refusals\nAccess,Closed,0.1\n")
    with pytest.raises(ValueError, match="group/kind"):
        ag.published_means("fig2", resources=tmp_path)
    with pytest.raises(ValueError, match="which"):
        ag.published_means("figure2")


def test_param_order_goes_task_by_task_in_the_given_order():
    t = pd.DataFrame({"task": ["field", "epoch", "field", "top_k", "epoch"],
                      "param": ["PER", "1950s", "CM&MP", "top_5", "2000s"]})
    assert ag.param_order(t, ("epoch", "field", "seniority")) == ["1950s", "2000s", "CM&MP", "PER"]
    assert ag.param_order(t, ()) == []
