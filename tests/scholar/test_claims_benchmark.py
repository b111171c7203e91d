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


def _models(levels, n, sd, rng, column="access", metric="parity_gender", prompts=4):
    """Per group its models at the given levels, ``n`` attempts each over ``prompts`` prompts."""
    rows = []
    for g, ls in levels.items():
        for i, level in enumerate(ls):
            for r in range(n):
                rows.append({"model": f"{g}-{i}", column: g, "param": f"p{r % prompts}", "metric_name": metric,
                             "metric_value": level + rng.normal(0, sd)})
    return pd.DataFrame(rows)


def test_group_difference_by_model_judges_the_audited_models():
    """Two proprietary and three open models whose levels differ: the claim is about these five
    models (the paper's Fig. 2), so the statistic is the difference of their means, each model
    weighing the same, and its interval the attempts' error. The spread among the models, which
    two proprietary models cannot pin down, is reported beside it (Student t), not judged."""
    rng = np.random.default_rng(2)
    d = _models({"proprietary": (0.62, 0.70), "open": (0.55, 0.60, 0.66)}, 80, 0.1, rng)
    d = d[~((d["model"] == "open-0") & (d.index % 2 == 0))]            # unequal attempts per model
    v = cb.group_difference(d, "access", "proprietary", "open", "parity_gender", by_model=True)
    t = v.tests[0]
    m = d.groupby(["access", "model"])["metric_value"].mean()
    assert t["estimate"] == pytest.approx(m["proprietary"].mean() - m["open"].mean())
    assert v.status == "held" and t["low"] > 0
    assert t["test"] == "OLS on cells, HC1" and t["unit"] == "attempts per group"
    assert t["n"] == 160 and v.numbers["models proprietary"] == 2 and v.numbers["models open"] == 3
    lo, hi = v.numbers["across models (Student t)"]
    assert lo < 0 < hi                                                  # five models say nothing of kinds
    assert cb.group_difference(d, "access", "open", "proprietary", "parity_gender", by_model=True).status == "contradicted"
    # the same levels on 6 attempts per model: the attempts do not decide it
    few = _models({"proprietary": (0.62, 0.70), "open": (0.55, 0.60, 0.66)}, 6, 0.3, rng)
    vf = cb.group_difference(few, "access", "proprietary", "open", "parity_gender", by_model=True)
    assert vf.status == "inconclusive" and vf.decide["n needed"] > 12
    none = d[d["access"] == "open"]
    na = cb.group_difference(none, "access", "proprietary", "open", "parity_gender", by_model=True)
    assert na.status == "not applicable"


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
    # the slope of the model means on the size rank: the class means fall by 0.05 per class
    assert v.status == "held" and v.tests[0]["estimate"] == pytest.approx(-0.05, abs=0.005)
    assert v.tests[0]["test"] == "OLS trend on cells, HC1" and v.tests[0]["n"] == 120
    assert v.numbers["models"] == [3, 3, 3, 3]
    assert cb.size_trend(dup, "duplicates", direction="increase").status == "contradicted"
    # XL above S, but the middle classes run against the trend: a trend test over all classes
    # (slope −0.02 per class), not the pairwise XL − S, decides: these twelve models' means fall
    bumpy = {"S": [0.35] * 20 + [0.25] * 20, "M": [0.9] * 40, "L": [0.1] * 40, "XL": [0.55] * 20 + [0.45] * 20}
    vb = cb.size_trend(_sized("x", bumpy), "x", direction="increase")
    assert vb.status == "contradicted" and vb.tests[0]["estimate"] == pytest.approx(-0.02)
    assert vb.numbers["x XL"] > vb.numbers["x S"]
    one = _rows("consistency", "size_class", {"S": [0.3, 0.4]})
    assert cb.size_trend(one, "consistency", direction="decrease").status == "not applicable"
    assert cb.size_trend(dup.iloc[:0], "consistency").status == "not applicable"
    with pytest.raises(ValueError, match="direction"):
        cb.size_trend(dup, "duplicates", direction="down")


def test_size_trend_weighs_models_equally():
    """One big model in the largest class must not pull the slope: the statistic is the slope of
    the model means (each model once), and the slope across models is reported beside it."""
    rng = np.random.default_rng(1)
    level = {"S": (0.10, 0.50), "M": (0.05, 0.45), "L": (0.40, 0.12), "XL": (0.35, 0.02)}
    rows = {s: [m0 + rng.normal(0, 0.01) if i % 2 == 0 else m1 + rng.normal(0, 0.01) for i in range(80)]
            for s, (m0, m1) in level.items()}
    d = _sized("consistency", rows, models_per_class=2)
    d["param"] = "p" + (d["replicate"] // 2 % 5).astype(str)              # five prompts per model
    d = d[~((d["model"] == "m-XL-1") & (d["replicate"] % 8 != 1))]       # the XL model at 0.02: 10 attempts
    v = cb.size_trend(d, "consistency", direction="decrease")
    means = d.groupby("model")["metric_value"].mean()
    rank = means.index.str.split("-").str[1].map({s: i for i, s in enumerate(cb.SIZE_ORDER)})
    assert v.tests[0]["estimate"] == pytest.approx(np.polyfit(rank.to_numpy(float), means.to_numpy(), 1)[0])
    assert v.status == "held" and v.tests[0]["n"] == len(d)
    lo, hi = v.numbers["across models (cluster-robust by model)"]
    assert lo < 0 < hi                                                    # 8 models say nothing of sizes at large


def test_published_values_are_the_same_statistics_on_the_papers_per_model_means():
    """App. B's per-model table, by hand: the two proprietary (Gemini) models refuse .58 and .12
    (mean .35), the twenty open ones 10.60 in all (mean .53): open − proprietary = +0.18."""
    assert cb.published_difference("access", "open", "proprietary", "refusal_pct") == pytest.approx(0.18)
    assert cb.published_slope("duplicates") < 0 < cb.published_slope("validity_pct")
    assert cb.published_difference("access", "open", "proprietary", "no_such_metric") is None
    d = _models({"proprietary": (0.2, 0.3), "open": (0.5, 0.6)}, 20, 0.05, np.random.default_rng(3), metric="refusal_pct")
    v = cb.group_difference(d, "access", "open", "proprietary", "refusal_pct", by_model=True)
    assert v.tests[0]["published"] == pytest.approx(0.18)


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


def test_a_consistency_check_counts_configurations_and_grows_with_no_profile_parameter():
    """Consistency has one value per configuration (model × prompt), so more runs per prompt do
    not add to its sample: its checks count configurations and carry no knob (the paper
    profile's 62 runs would otherwise be read as 20× quick's 3 and claim to decide it)."""
    from lib.scholar import claims as lsb_claims
    from lib.scholar.claims_rules import COLLECTION

    knobs = {c.claim.id: c.knob for c in lsb_claims.checks()}
    assert knobs["lsb-aq1-access-consistency"] is None and knobs["lsb-aq1-size-consistency"] is None
    assert knobs["lsb-aq1-access-parity"] == COLLECTION and knobs["lsb-aq1-size-validity"] == COLLECTION
    rng = np.random.default_rng(3)
    d = _models({"proprietary": (0.36, 0.33), "open": (0.32, 0.31, 0.34)}, 6, 0.1, rng, metric="consistency")
    v = cb.group_difference(d, "access", "proprietary", "open", "consistency", by_model=True)
    assert v.tests[0]["unit"] == "configurations per group"
    trend = _sized("consistency", {s: [0.4, 0.35, 0.3] for s in cb.SIZE_ORDER})
    assert cb.size_trend(trend, "consistency", direction="decrease").tests[0]["unit"] == "configurations"
