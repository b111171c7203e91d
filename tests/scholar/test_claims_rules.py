"""lib.scholar.claims_rules: a metric's mean and 95 % CI and the CI of a difference, by hand."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from lib.scholar import claims_rules as cr


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_summary_is_wilson_for_proportions_and_t_otherwise():
    s = cr.summary(pd.Series([1, 1, 1, 0, None]), "refusal_pct")      # NaN dropped: 3 of 4
    assert s["mean"] == 0.75 and s["n"] == 4 and s["ci"] == pytest.approx(list(_wilson(3, 4)))
    v = [0.2, 0.4, 0.9]
    t = cr.summary(pd.Series(v), "factuality_author")
    half = st.t.ppf(0.975, 2) * np.std(v, ddof=1) / math.sqrt(3)
    assert t["mean"] == pytest.approx(0.5) and t["ci"] == pytest.approx([0.5 - half, 0.5 + half])
    empty = cr.summary(pd.Series([], dtype=float), "validity_pct")
    assert empty["n"] == 0 and math.isnan(empty["mean"]) and all(math.isnan(x) for x in empty["ci"])


def test_difference_of_proportions_is_newcombes_hybrid_score_interval():
    a, b = pd.Series([1, 0, 0, 0]), pd.Series([1, 1, 1, 0])           # 1/4 vs 3/4
    d = cr.difference(a, b, "validity_pct")
    (l1, u1), (l2, u2) = _wilson(3, 4), _wilson(1, 4)                  # b first: b - a
    delta = 0.75 - 0.25
    lo = delta - math.sqrt((0.75 - l1) ** 2 + (u2 - 0.25) ** 2)
    hi = delta + math.sqrt((u1 - 0.75) ** 2 + (0.25 - l2) ** 2)
    assert d["diff"] == pytest.approx(0.5) and d["ci"] == pytest.approx([lo, hi])
    assert cr.test_of("validity_pct") == "Newcombe hybrid score" and cr.test_of("similarity") == "Welch t"


def test_difference_of_means_is_welch_and_empty_sides_are_nan():
    a, b = pd.Series([0.1, 0.2, 0.3]), pd.Series([0.5, 0.7, 0.9, 1.1])
    d = cr.difference(a, b, "similarity")
    va, vb = np.var(a, ddof=1) / 3, np.var(b, ddof=1) / 4
    df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 3)
    half = st.t.ppf(0.975, df) * math.sqrt(va + vb)
    assert d["diff"] == pytest.approx(0.6) and d["ci"] == pytest.approx([0.6 - half, 0.6 + half])
    gone = cr.difference(pd.Series([], dtype=float), b, "similarity")
    assert math.isnan(gone["diff"]) and all(math.isnan(x) for x in gone["ci"])


def test_compared_judges_the_difference_against_zero_with_the_smaller_side_as_n():
    a, b = pd.Series([0.1, 0.2, 0.3, None]), pd.Series([0.5, 0.7, 0.9, 1.1])
    iv = cr.compared(a, b, "similarity", "diversity lift", side="above")
    assert (iv.statistic, iv.threshold, iv.side, iv.test, iv.n) == ("diversity lift", 0.0, "above", "Welch t", 3)
    assert iv.estimate == pytest.approx(0.6) and iv.low > 0
    assert (cr.COLLECTION.notebook, cr.COLLECTION.param) == ("02_collection", "runs") and cr.SWEEP.zero == 5
