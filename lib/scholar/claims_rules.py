"""The decision rule shared by the LLMScholarBench claims (:mod:`lib.scholar.claims` and the
check modules it tables): a metric's mean and 95 % CI, and the CI of a difference.

"A is lower than B" holds when the 95 % interval of the difference B − A lies entirely above 0.
For proportions (refusal, validity, reason shares) the difference interval is Newcombe's hybrid
score interval built from the two Wilson intervals (:func:`lib.stats.newcombe_diff`), for other
metrics Welch's t-interval (:func:`lib.stats.welch_diff`); each group's own mean and interval
(reference §2.10: Wilson for refusal/validity, t otherwise) are reported too.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib import stats

P = "llmscholarbench"


def summary(values: pd.Series, metric: str) -> dict:
    """mean, n and 95 % CI of per-attempt values (Wilson for binary metrics, t otherwise)."""
    v = values.astype(float).dropna().to_numpy()
    if metric in stats.BINARY_METRICS:
        lo, hi = stats.wilson_ci(float(v.sum()), v.size) if v.size else (np.nan, np.nan)
        mean = float(v.mean()) if v.size else np.nan
    else:
        mean, lo, hi = stats.t_ci(v)
    return {"mean": mean, "ci": [lo, hi], "n": int(v.size)}


def difference(a: pd.Series, b: pd.Series, metric: str, alpha: float = 0.05) -> dict:
    """b − a with its (1 − α) interval: Newcombe's hybrid score interval from the two Wilson
    intervals for binary metrics, Welch's t-interval otherwise (NaN when a side has < 2 values)."""
    x = a.astype(float).dropna().to_numpy()
    y = b.astype(float).dropna().to_numpy()
    if x.size == 0 or y.size == 0:
        return {"diff": np.nan, "ci": [np.nan, np.nan]}
    if metric in stats.BINARY_METRICS:
        d, lo, hi = stats.newcombe_diff(float(y.sum()), y.size, float(x.sum()), x.size, alpha)
    else:
        d, lo, hi = stats.welch_diff(y, x, alpha)
    return {"diff": float(d), "ci": [float(lo), float(hi)]}


def above_zero(diff: dict) -> bool:
    """True when the whole interval of a :func:`difference` lies above 0 (NaN bounds: False)."""
    return bool(diff["ci"][0] > 0)
