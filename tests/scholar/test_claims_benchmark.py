"""lib.scholar.claims_benchmark: verdicts of the §4.1 / App. C.1 checks on constructed data."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from lib.scholar import claims_benchmark as cb


def _rows(metric, column, value_map):
    rows = []
    for g, values in value_map.items():
        for i, v in enumerate(values):
            rows.append({"model": f"m-{g}", column: g, "task": "top_k", "param": "top_5", "temperature": 0.0,
                         "replicate": i, "attempt": 1, "metric_name": metric, "metric_value": v})
    return pd.DataFrame(rows)


def test_group_difference_held_contradicted_inconclusive_and_na():
    refusals = _rows("refusal_pct", "access", {"open": [1] * 60 + [0] * 40, "proprietary": [1] * 10 + [0] * 90})
    v = cb.group_difference(refusals, "access", "open", "proprietary", "refusal_pct")
    assert v.status == "held" and v.tests[0]["estimate"] == pytest.approx(0.5)
    assert v.tests[0]["low"] > 0 and v.tests[0]["test"] == "Newcombe hybrid score"
    assert cb.group_difference(refusals, "access", "proprietary", "open", "refusal_pct").status == "contradicted"
    close = _rows("factuality_author", "access", {"open": [0.5, 0.7, 0.6, 0.4], "proprietary": [0.55, 0.65, 0.6, 0.5]})
    vc = cb.group_difference(close, "access", "proprietary", "open", "factuality_author")
    assert vc.status == "inconclusive" and vc.tests[0]["test"] == "Welch t" and vc.decide["n needed"] > 4
    lone = _rows("validity_pct", "access", {"open": [1, 0, 1]})
    na = cb.group_difference(lone, "access", "open", "proprietary", "validity_pct")
    assert na.status == "not applicable" and na.numbers["n proprietary"] == 0


def test_group_difference_by_model_counts_models_not_attempts():
    """Three proprietary and three open models whose levels differ far more than the groups do: 60
    attempts each make the attempt-level Welch interval exclude 0, yet six models do not decide it.
    The paper profile showed this: proprietary − open parity +0.051 [+0.047, +0.055] at one seed,
    −0.024 [−0.031, −0.017] at another."""
    rng = np.random.default_rng(2)
    levels = {"proprietary": (0.30, 0.55, 0.80), "open": (0.20, 0.50, 0.75)}
    rows = []
    for g, ls in levels.items():
        for i, level in enumerate(ls):
            for r in range(60):
                rows.append({"model": f"{g}-{i}", "access": g, "metric_name": "parity_gender",
                             "metric_value": level + rng.normal(0, 0.02)})
    d = pd.DataFrame(rows)
    pooled = cb.group_difference(d, "access", "proprietary", "open", "parity_gender")
    assert pooled.status == "held" and pooled.tests[0]["test"] == "Welch t"
    v = cb.group_difference(d, "access", "proprietary", "open", "parity_gender", by_model=True)
    t = v.tests[0]
    m = d.groupby(["access", "model"])["metric_value"].mean()
    # Student's t on the six model means, by hand: pooled variance over 4 df
    a, b = m["proprietary"].to_numpy(), m["open"].to_numpy()
    sp2 = (2 * a.var(ddof=1) + 2 * b.var(ddof=1)) / 4
    half = st.t.ppf(0.975, 4) * np.sqrt(sp2 * (1 / 3 + 1 / 3))
    assert t["estimate"] == pytest.approx(a.mean() - b.mean())
    assert (t["low"], t["high"]) == pytest.approx((a.mean() - b.mean() - half, a.mean() - b.mean() + half))
    assert v.status == "inconclusive" and t["low"] < 0 < t["high"]
    assert t["test"] == "Student t over models" and t["n"] == 3 and t["unit"] == "models per group"
    assert v.numbers["models proprietary"] == 3 and v.decide["n needed"] > 3
    # a gap far larger than the spread between models is decided on six models too
    far = d.assign(metric_value=d["metric_value"] + np.where(d["access"] == "proprietary", 1.0, 0.0))
    assert cb.group_difference(far, "access", "proprietary", "open", "parity_gender", by_model=True).status == "held"
    # one model on a side: the spread between its models is unknown
    one = d[d["model"].isin(["proprietary-0", "open-0", "open-1"])]
    na = cb.group_difference(one, "access", "proprietary", "open", "parity_gender", by_model=True)
    assert na.status == "not applicable" and "fewer than two models" in na.detail


def _sized(metric, value_map, models_per_class=3):
    """Per size class, its values spread over ``models_per_class`` models (m-S-0, m-S-1, ...)."""
    d = _rows(metric, "size_class", value_map)
    d["model"] = d["model"] + "-" + (d["replicate"] % models_per_class).astype(str)
    return d


def test_size_trend():
    rng = np.random.default_rng(0)
    vals = {s: list(np.clip(rng.normal(mu, 0.02, 30), 0, 1)) for s, mu in zip(cb.SIZE_ORDER, (0.2, 0.15, 0.1, 0.05))}
    dup = _sized("duplicates", vals)
    v = cb.size_trend(dup, "duplicates", direction="decrease")
    # the OLS slope on the size rank: the class means fall by 0.05 per class
    assert v.status == "held" and v.tests[0]["estimate"] == pytest.approx(-0.05, abs=0.005)
    assert v.tests[0]["test"] == "OLS trend, cluster-robust by model" and v.tests[0]["n"] == 12
    assert v.numbers["models"] == [3, 3, 3, 3]
    assert cb.size_trend(dup, "duplicates", direction="increase").status == "contradicted"
    # XL above S, but the middle classes run against the trend: a trend test over all classes
    # (slope −0.02 per class, its interval across 0), not the pairwise XL − S, decides: inconclusive
    bumpy = {"S": [0.35] * 20 + [0.25] * 20, "M": [0.9] * 40, "L": [0.1] * 40, "XL": [0.55] * 20 + [0.45] * 20}
    vb = cb.size_trend(_sized("x", bumpy), "x", direction="increase")
    assert vb.status == "inconclusive" and vb.tests[0]["estimate"] == pytest.approx(-0.02)
    one = _rows("consistency", "size_class", {"S": [0.3, 0.4]})
    assert cb.size_trend(one, "consistency", direction="decrease").status == "not applicable"
    assert cb.size_trend(dup.iloc[:0], "consistency").status == "not applicable"
    with pytest.raises(ValueError, match="direction"):
        cb.size_trend(dup, "duplicates", direction="down")


def test_size_trend_counts_models_not_attempts():
    """Two models per class whose levels differ by far more than the classes' trend: 40 attempts
    each make an attempt-level (HC1) interval exclude 0, yet with 8 models the slope is not decided.
    The seeds of the quick profile showed this: consistency's slope held at one seed and was
    contradicted at two, every interval excluding 0."""
    rng = np.random.default_rng(1)
    level = {"S": (0.10, 0.50), "M": (0.05, 0.45), "L": (0.40, 0.12), "XL": (0.35, 0.02)}
    rows = {s: [] for s in level}
    for s, (m0, m1) in level.items():
        rows[s] = [m0 + rng.normal(0, 0.01) if i % 2 == 0 else m1 + rng.normal(0, 0.01) for i in range(80)]
    d = _sized("consistency", rows, models_per_class=2)
    v = cb.size_trend(d, "consistency", direction="decrease")
    from lib import stats
    rank = d["size_class"].map({s: i for i, s in enumerate(cb.SIZE_ORDER)})
    _, lo, hi = stats.trend_slope(rank, d["metric_value"])                       # attempts as independent
    assert hi < 0                                                                 # HC1 would hold it
    assert v.status == "inconclusive" and v.tests[0]["low"] < 0 < v.tests[0]["high"] and v.tests[0]["n"] == 8


def test_task_factuality_gap():
    rows = []
    for task, metric, author, attr in (("field", "factuality_field", 0.9, 0.3), ("epoch", "factuality_epoch", 0.8, 0.6)):
        for rep in range(10):
            for name, v in (("factuality_author", author + 0.01 * rep), (metric, attr + 0.02 * (rep % 3))):
                rows.append({"model": "m", "task": task, "param": "p", "temperature": 0.0, "replicate": rep,
                             "attempt": 1, "metric_name": name, "metric_value": v})
    pa = pd.DataFrame(rows)
    v = cb.task_factuality_gap(pa)
    assert v.status == "held" and v.tests[0]["estimate"] == pytest.approx(0.9 + 0.045 - (0.3 + 0.02 * 0.9))
    flipped = pa.assign(metric_value=np.where(pa["metric_name"] == "factuality_epoch", 0.99, pa["metric_value"]))
    assert cb.task_factuality_gap(flipped).status == "contradicted"
    assert cb.task_factuality_gap(pa[pa["task"] == "top_k"]).status == "not applicable"


def test_claim_ids_are_unique_across_the_ledger():
    from lib.scholar import claims as lsb_claims

    ids = [c.id for c in cb.ALL]
    assert len(set(ids)) == len(ids) == 13 and all(i.startswith("lsb-") for i in ids)
    assert not set(ids) & {c.id for c in lsb_claims.ALL}
