"""lib.scholar.claims: each check gives the known verdict on constructed data."""
import numpy as np
import pandas as pd
import pytest

from lib import claims
from lib.scholar import claims as sc
from lib.scholar import claims_rules as rules
from lib.scholar import interventions as iv


def _binary(metric, temp, k, n, access="open", model="m"):
    return pd.DataFrame({"metric_name": metric, "temperature": temp, "access": access, "model": model,
                         "metric_value": [1.0] * k + [0.0] * (n - k)})


def _cont(metric, temp, values, access="open"):
    return pd.DataFrame({"metric_name": metric, "temperature": temp, "access": access, "model": "m",
                         "metric_value": values})


def test_temperature_effect_held_contradicted_inconclusive_and_na():
    drop = pd.concat([_binary("validity_pct", 0.0, 90, 100), _binary("validity_pct", 1.0, 50, 100),
                      _binary("validity_pct", 2.0, 40, 100)])
    v = sc.temperature_effect(drop, "validity_pct")
    assert v.status == "held"
    assert v.numbers["validity_pct at T=0"] == pytest.approx(0.9)
    assert v.numbers["validity_pct at T=2"] == pytest.approx(0.4)
    assert v.numbers["CI high T"][1] < v.numbers["CI low T"][0]
    assert v.tests[0]["side"] == "below" and v.tests[0]["estimate"] == pytest.approx(-0.5)
    # a small drop inside overlapping CIs is inconclusive, with the size that would decide it; a rise contradicts
    small = pd.concat([_binary("validity_pct", 0.0, 9, 10), _binary("validity_pct", 2.0, 8, 10)])
    vs = sc.temperature_effect(small, "validity_pct")
    assert vs.status == "inconclusive" and vs.decide["n needed"] > 10
    rise = pd.concat([_binary("validity_pct", 0.0, 40, 100), _binary("validity_pct", 2.0, 90, 100)])
    assert sc.temperature_effect(rise, "validity_pct").status == "contradicted"
    assert sc.temperature_effect(rise, "validity_pct", direction="higher").status == "held"
    one_t = _binary("validity_pct", 0.0, 5, 10)
    assert sc.temperature_effect(one_t, "validity_pct").status == "not applicable"


def test_consistency_falls_back_to_factuality():
    rng = np.random.default_rng(0)
    fact = pd.concat([_cont("factuality_author", 0.0, 0.9 + rng.normal(0, 0.01, 30)),
                      _cont("factuality_author", 2.0, 0.6 + rng.normal(0, 0.01, 30))])
    v = sc.temperature_effect_consistency(fact)
    assert v.status == "held" and "consistency unavailable" in v.detail
    cons = pd.concat([fact, _cont("consistency", 0.0, [0.5, 0.52, 0.48]), _cont("consistency", 2.0, [0.5, 0.6, 0.4])])
    v2 = sc.temperature_effect_consistency(cons)
    assert v2.status == "inconclusive" and "consistency at T=0" in v2.numbers


def _curves(open_vals, prop_vals):
    rows = []
    for g, vals in (("open", open_vals), ("proprietary", prop_vals)):
        for t, v in zip((0.0, 1.0, 2.0), vals):
            for metric in ("validity_pct", "factuality_author"):
                rows.append({"group_kind": "access", "group": g, "temperature": t, "metric_name": metric, "mean": v,
                             "ci": 0.02, "n": 200})
    return pd.DataFrame(rows)


def test_access_sensitivity():
    v = sc.access_sensitivity(_curves([0.9, 0.7, 0.5], [0.8, 0.82, 0.78]))
    assert v.status == "held"
    assert v.numbers["sensitivity open"] == pytest.approx(0.4)
    assert v.numbers["sensitivity proprietary"] == pytest.approx(0.04)
    # open − proprietary = 0.36 with se = √(8·(0.02/1.96)²)/2 per group... well inside: held; reversed: contradicted
    assert v.tests[0]["estimate"] == pytest.approx(0.36)
    assert sc.access_sensitivity(_curves([0.8, 0.8, 0.8], [0.9, 0.5, 0.7])).status == "contradicted"
    assert sc.access_sensitivity(_curves([0.8, 0.79, 0.8], [0.8, 0.8, 0.8])).status == "inconclusive"
    only_open = _curves([0.9, 0.7, 0.5], [0, 0, 0]).query("group == 'open'")
    assert sc.access_sensitivity(only_open).status == "not applicable"


def _refusals(rates: dict, temps=(0.0, 1.0), n=100):
    """Per (model, access) its refusal rate per temperature, ``n`` attempts over four prompts."""
    rows = []
    for (model, access), by_t in rates.items():
        for t, rate in zip(temps, by_t):
            k = int(round(rate * n))
            rows.append(_binary("refusal_pct", t, k, n, access, model).assign(param=[f"p{i % 4}" for i in range(n)]))
    return pd.concat(rows, ignore_index=True)


def test_open_refuse_more():
    pa = _refusals({("o1", "open"): (0.6, 0.6), ("o2", "open"): (0.5, 0.7), ("p1", "proprietary"): (0.2, 0.2),
                    ("p2", "proprietary"): (0.3, 0.1)})
    v = sc.open_refuse_more(pa)
    assert v.status == "held" and len(v.tests) == 3 and v.tests[1]["side"] == "not below"
    # the model means, each model once: (0.6 + 0.6)/2 − (0.25 + 0.2)/2 over both temperatures
    assert v.tests[0]["estimate"] == pytest.approx(0.6 - 0.2) and v.tests[0]["test"] == "OLS on cells, HC1"
    assert v.numbers["models open"] == 2
    # one big open model must not stand for the group: unequal attempts, the same model means
    big = pd.concat([pa, pa[pa["model"] == "o1"]], ignore_index=True)
    assert sc.open_refuse_more(big).tests[0]["estimate"] == pytest.approx(0.4)
    flip = _refusals({("o1", "open"): (0.9, 0.05), ("o2", "open"): (0.9, 0.05), ("p1", "proprietary"): (0.2, 0.3)})
    assert sc.open_refuse_more(flip).status == "contradicted"  # significantly reversed at T=1
    assert sc.open_refuse_more(pa[pa["access"] == "open"]).status == "not applicable"


def _attempts(task, n, k, grounded=False):
    return pd.DataFrame({"task": task, "grounded": grounded, "is_refusal": [1] * k + [0] * (n - k)})


def test_constrained_refusals():
    more = pd.concat([_attempts("biased_top_k", 100, 70), _attempts("top_k", 100, 30), _attempts("field", 100, 99),
                      _attempts("biased_top_k", 50, 0, grounded=True)])
    v = sc.constrained_refusals(more)
    assert v.status == "held"
    assert v.numbers["refusal constrained"] == pytest.approx(0.7)
    assert v.numbers["refusal baseline top_k"] == pytest.approx(0.3) and v.numbers["n baseline"] == 100
    same = pd.concat([_attempts("biased_top_k", 100, 30), _attempts("top_k", 100, 30)])
    assert sc.constrained_refusals(same).status == "inconclusive"
    assert sc.constrained_refusals(_attempts("top_k", 10, 3)).status == "not applicable"


def test_constrained_unethical_share():
    tab = pd.DataFrame({
        "configuration": ["Baseline"] * 100 + ["Constrained prompting"] * 100,
        "refused": True,
        "cluster_name": (["Contradictory request"] * 98 + ["Unethical request"] * 2
                         + ["Contradictory request"] * 60 + ["Unethical request"] * 40)})
    v = sc.constrained_unethical_share(iv.reason_shares(tab))
    assert v.status == "held"
    assert v.numbers["unethical share constrained"] == pytest.approx(0.4)
    assert v.numbers["unethical share baseline"] == pytest.approx(0.02)
    none_cp = tab[tab["configuration"] == "Baseline"]
    assert sc.constrained_unethical_share(iv.reason_shares(none_cp)).status == "not applicable"


def test_claims_are_registered_and_checkable(isolated_outputs):
    ids = [c.id for c in sc.ALL]
    assert len(ids) == len(set(ids)) and all(c.paper == "llmscholarbench" for c in sc.ALL)
    v = claims.check(sc.CP_REFUSALS, sc.constrained_refusals, _attempts("top_k", 10, 3), synthetic=True)
    assert v.status == "not applicable"
    assert [r["id"] for r in claims.records()] == ["lsb-cp-refusals"]


def test_difference_newcombe_and_welch():
    # Newcombe (1998), Table II example (56/70 vs 48/80), method 10: 0.0524 to 0.3339
    a = pd.Series([1.0] * 48 + [0.0] * 32)
    b = pd.Series([1.0] * 56 + [0.0] * 14)
    d = rules.difference(a, b, "refusal_pct")
    assert d["diff"] == pytest.approx(0.2)
    assert d["ci"] == [pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4)]
    from scipy import stats as st
    x, y = pd.Series([0.1, 0.4, 0.35, 0.8]), pd.Series([0.9, 0.7, 0.95])
    ref = st.ttest_ind(y, x, equal_var=False).confidence_interval()
    w = rules.difference(x, y, "factuality_author")
    assert w["ci"] == [pytest.approx(ref.low), pytest.approx(ref.high)]
    assert np.isnan(rules.difference(x, y.iloc[:1], "factuality_author")["ci"][0])


def test_check_all_runs_the_notebooks_share_of_the_26_checks(isolated_outputs):
    assert len(sc.CHECKS) == 26 and len({c.claim.id for c in sc.CHECKS}) == 26
    assert {c.notebook for c in sc.CHECKS} == {"03_infrastructure_benchmark", "04_interventions"}
    v = sc.check_all({"collection": _attempts("top_k", 10, 3)}, notebook="04_interventions", synthetic=True)
    assert len(v) == 13 and v["lsb-cp-refusals"].status == "not applicable"
    assert "['sweep']" in v["lsb-temp-validity"].detail
    assert {r["notebook"] for r in claims.records()} == {"04_interventions"}
    assert len(sc.check_all({}, notebook="03_infrastructure_benchmark", synthetic=True)) == 13
    with pytest.raises(ValueError, match="03_infrastructure_benchmark or 04_interventions"):
        sc.check_all({}, notebook="05_authority_pilot_regression", synthetic=True)


def test_check_all_passes_the_refusal_label_through(isolated_outputs):
    cp = next(c for c in sc.checks(refusal_col="is_refusal_corrected") if c.claim.id == "lsb-cp-refusals")
    assert cp.kwargs == {"refusal_col": "is_refusal_corrected"}
