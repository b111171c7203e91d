"""lib.scholar.claims_interventions: verdicts on constructed per-attempt tables."""
import numpy as np
import pandas as pd
import pytest

from lib.scholar import claims_interventions as cpc

def _rows(model, task, param, metric, mean, n=30, grounded=False, binary=False, sd=0.05):
    # deterministic values with the given mean: round(mean·n) ones, or an even spread ± sd
    vals = (np.arange(n) < round(mean * n)).astype(float) if binary else mean + sd * np.linspace(-1, 1, n)
    return pd.DataFrame({"model": model, "base_model": model.replace("-grounded", ""), "grounded": grounded,
                         "size_class": "S", "task": task, "param": param, "temperature": 0.5,
                         "replicate": range(n), "metric_name": metric, "metric_value": vals})


def _gender(female=0.3, equal=0.7, male=0.8, before=0.9):
    return pd.concat([
        _rows("m1", "top_k", "top_100", "factuality_author", before),
        _rows("m1", "biased_top_k", "top_100_bias_gender_female", "factuality_author", female),
        _rows("m1", "biased_top_k", "top_100_bias_gender_equal", "factuality_author", equal),
        _rows("m1", "biased_top_k", "top_100_bias_gender_male", "factuality_author", male),
        _rows("m1", "top_k", "top_100", "diversity_gender", 0.4),
        _rows("m1", "biased_top_k", "top_100_bias_gender_equal", "diversity_gender", 0.8),
    ], ignore_index=True)


def test_female_lowest_factuality_held_and_contradicted():
    assert cpc.female_lowest_factuality(_gender()).status == "held"
    assert cpc.female_lowest_factuality(_gender(female=0.75, equal=0.5)).status == "contradicted"


def test_female_lowest_not_applicable_without_female_prompt():
    d = _gender()
    d = d[d["param"] != "top_100_bias_gender_female"]
    assert cpc.female_lowest_factuality(d).status == "not applicable"


def test_equal_gender_diversity_and_factuality_cost():
    d = _gender()
    assert cpc.equal_gender_raises_diversity(d).status == "held"
    assert cpc.constrained_lowers_factuality(d).status == "held"
    assert cpc.constrained_lowers_factuality(_gender(female=0.95, equal=0.95, male=0.95)).status == "contradicted"


def _general(gender_after=0.8, eth_after=0.4, pub_after=0.4, n=400):
    parts = [_rows("m1", "top_k", "top_100", m, 0.4, n=n) for m in
             ("diversity_gender", "diversity_ethnicity", "diversity_prominence_pub", "diversity_prominence_cit")]
    parts += [_rows("m1", "biased_top_k", "top_100_bias_diverse", "diversity_gender", gender_after, n=n),
              _rows("m1", "biased_top_k", "top_100_bias_diverse", "diversity_ethnicity", eth_after, n=n),
              _rows("m1", "biased_top_k", "top_100_bias_diverse", "diversity_prominence_pub", pub_after, n=n),
              _rows("m1", "biased_top_k", "top_100_bias_diverse", "diversity_prominence_cit", 0.35, n=n)]
    return pd.concat(parts, ignore_index=True)


def test_general_gender_only():
    assert cpc.general_gender_only(_general()).status == "held"
    assert cpc.general_gender_only(_general(eth_after=0.8)).status == "contradicted"   # ethnicity rose too
    assert cpc.general_gender_only(_general(gender_after=0.4)).status == "inconclusive"  # gender unmoved
    # the three "no rise" statistics are one family (Bonferroni): each on its 1 − 0.05/3 interval
    tests = {t["statistic"].split(" (")[0]: t for t in cpc.general_gender_only(_general()).tests}
    assert tests["diversity_gender change"]["test"] == "Welch t"
    assert [tests[f"{m} change"]["test"] for m in cpc.UNCHANGED] == ["Welch t, 98.33 % interval"] * 3


def test_general_gender_only_no_rise_is_an_equivalence_margin():
    """"No rise" is judged against the smallest rise that counts (0.2 pooled SD), not against 0."""
    from lib import stats

    spread = 0.4 + 0.05 * np.linspace(-1, 1, 2000)                         # the fixture's values
    sd = float(np.std(spread, ddof=1))
    assert stats.small_effect(spread, spread + 1) == pytest.approx(0.2 * sd)
    # a rise of 0.1 SD on 2,000 attempts per group: significant against 0, but under the margin: held
    small = cpc.general_gender_only(_general(pub_after=0.4 + 0.1 * sd, n=2000))
    pub = next(t for t in small.tests if t["statistic"].startswith("diversity_prominence_pub"))
    assert pub["low"] > 0 and pub["threshold"] == pytest.approx(0.2 * sd, rel=1e-3) and pub["side"] == "below"
    assert small.status == "held"
    # a rise of 0.5 SD: beyond the margin: contradicted
    assert cpc.general_gender_only(_general(pub_after=0.4 + 0.5 * sd, n=2000)).status == "contradicted"
    # 30 attempts per group cannot show a change under 0.2 SD: inconclusive, with the size that decides it
    few = cpc.general_gender_only(_general(n=30))
    assert few.status == "inconclusive" and few.decide["n needed"] > 30


def _rag(flash_after=0.4, pro_after=0.9, div_after=0.3):
    return pd.concat([
        _rows("gemini-2.5-flash", "top_k", "top_5", "validity_pct", 0.95, n=200, binary=True),
        _rows("gemini-2.5-flash-grounded", "top_k", "top_5", "validity_pct", flash_after, n=200, grounded=True,
              binary=True),
        _rows("gemini-2.5-pro", "top_k", "top_5", "validity_pct", 0.95, n=200, binary=True),
        _rows("gemini-2.5-pro-grounded", "top_k", "top_5", "validity_pct", pro_after, n=200, grounded=True,
              binary=True),
        _rows("gemini-2.5-pro", "top_k", "top_5", "diversity_gender", 0.5),
        _rows("gemini-2.5-pro-grounded", "top_k", "top_5", "diversity_gender", div_after, grounded=True),
    ], ignore_index=True)


def test_rag_claims():
    assert cpc.flash_loses_more_validity(_rag()).status == "held"
    assert cpc.flash_loses_more_validity(_rag(flash_after=0.9, pro_after=0.4)).status == "contradicted"
    assert cpc.rag_lowers_gender_diversity(_rag()).status == "held"
    assert cpc.rag_lowers_gender_diversity(_rag(div_after=0.7)).status == "contradicted"


def test_rag_claims_not_applicable_without_grounded_runs():
    d = _rag()
    d = d[~d["grounded"]]
    assert cpc.flash_loses_more_validity(d).status == "not applicable"
    assert cpc.rag_lowers_gender_diversity(d).status == "not applicable"


def test_numbers_are_reported():
    v = cpc.flash_loses_more_validity(_rag())
    t = v.tests[0]
    assert t["estimate"] == pytest.approx(
        v.numbers["gemini-2.5-flash validity drop"] - v.numbers["gemini-2.5-pro validity drop"])
    assert t["low"] < t["estimate"] < t["high"] and t["n"] == 200
