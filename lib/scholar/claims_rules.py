"""The decision rule shared by the LLMScholarBench claims (:mod:`lib.scholar.claims` and the
check modules it tables): a metric's mean and 95 % CI, and the CI of a difference.

"A is lower than B" is judged on the 95 % interval of the difference A − B against 0 with the four
outcomes of :data:`lib.claims.RULE` (held below 0, contradicted above, inconclusive across it).
For proportions (refusal, validity, reason shares) the difference interval is Newcombe's hybrid
score interval built from the two Wilson intervals (:func:`lib.stats.newcombe_diff`), for other
metrics Welch's t-interval (:func:`lib.stats.welch_diff`); each group's own mean and interval
(reference §2.10: Wilson for refusal/validity, t otherwise) are reported too. "A does not rise"
is judged against an equivalence margin instead of 0 (:func:`no_rise`, 0.2 pooled SD).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib import stats
from lib.claims import Interval, Knob, interval
from lib.scholar.metrics import BINARY_METRICS

P = "llmscholarbench"
#: The parameters the samples grow with: 03's and 04's collection-based checks read notebook 02's
#: attempts (runs per prompt), 04's temperature checks notebook 01's sweep (task parameters per
#: family; 0 = all 30, five per family).
COLLECTION = Knob("02_collection", "runs")
SWEEP = Knob("01_calibration", "params_per_family", zero=5)
#: Metrics with one value per configuration (model, task, parameter) rather than per attempt
#: (consistency, eq. (4), over a configuration's runs): their sample is the design's models ×
#: prompts, which more runs do not grow, so their checks carry no knob.
PER_CONFIGURATION = ("consistency",)


def knob_for(metric: str) -> Knob | None:
    """The parameter a baseline check on ``metric`` grows with: 02's runs, none for a per-configuration metric."""
    return None if metric in PER_CONFIGURATION else COLLECTION


def unit_for(metric: str, per_group: bool = True) -> str:
    """The unit a baseline check on ``metric`` counts: attempts, or configurations (model × prompt)."""
    unit = "configurations" if metric in PER_CONFIGURATION else "attempts"
    return f"{unit} per group" if per_group else unit


def summary(values: pd.Series, metric: str) -> dict:
    """mean, n and 95 % CI of per-attempt values (Wilson for binary metrics, t otherwise)."""
    v = values.astype(float).dropna().to_numpy()
    if metric in BINARY_METRICS:
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
    if metric in BINARY_METRICS:
        d, lo, hi = stats.newcombe_diff(float(y.sum()), y.size, float(x.sum()), x.size, alpha)
    else:
        d, lo, hi = stats.welch_diff(y, x, alpha)
    return {"diff": float(d), "ci": [float(lo), float(hi)]}


def test_of(metric: str) -> str:
    """The interval a :func:`difference` of ``metric`` uses."""
    return "Newcombe hybrid score" if metric in BINARY_METRICS else "Welch t"


def compared(a: pd.Series, b: pd.Series, metric: str, statistic: str, side: str = "above",
             alpha: float = 0.05, threshold: float = 0.0) -> Interval:
    """The :func:`difference` b − a as a judged statistic against ``threshold`` (n = the smaller
    side, per group), on its (1 − ``alpha``) interval (named in the test when not 95 %)."""
    d = difference(a, b, metric, alpha)
    n = min(int(a.notna().sum()), int(b.notna().sum()))
    level = "" if alpha == 0.05 else f", {100 * (1 - alpha):.4g} % interval"
    return interval(statistic, d["diff"], *d["ci"], threshold, side, test=test_of(metric) + level, n=n,
                    unit="attempts per group", alpha=alpha)


def no_rise(a: pd.Series, b: pd.Series, metric: str, statistic: str, alpha: float = 0.05) -> Interval:
    """"``metric`` does not rise from a to b" as an equivalence statement: the change b − a lies
    below the smallest rise that counts, Cohen's small effect (0.2 pooled SD,
    :func:`lib.stats.small_effect`). Held when the interval lies under that margin, contradicted
    when it lies above it, inconclusive across it; judged against 0 instead, any small true rise
    would contradict the claim once the sample is large."""
    margin = stats.small_effect(a, b)
    return compared(a, b, metric, f"{statistic} (0.2 SD margin)", "below", alpha, margin)


def cells(d: pd.DataFrame, by=("param",)) -> pd.Series:
    """The cell whose repeated values measure a model's sampling error: its model × prompt (the
    ``by`` columns: task parameter, and temperature in the sweep), whose values are the prompt's
    repeated runs; the model itself where a metric has one value per cell (consistency, one per
    prompt across its runs), its prompts then the sample."""
    cell = d["model"].astype(str)
    for col in by:
        cell = cell + "|" + d[col].astype(str)
    return cell if cell.value_counts().median() >= 2 else d["model"].astype(str)


def model_difference(d: pd.DataFrame, group: str, higher: str, lower: str, statistic: str, side: str = "above", *,
                     by=("param",), published: float | None = None, unit: str = "attempts per group") -> Interval:
    """Where the groups are kinds of model: the mean of the ``higher`` models' means minus that of
    the ``lower`` ones (each model weighing the same) with the runs' sampling error given the
    models and prompts (:func:`lib.stats.unit_means_slope` on :func:`cells`); n = the smaller
    group's values, per group. ``d``: one metric's per-attempt rows of the two groups."""
    d = d[d[group].isin([higher, lower])]
    diff, lo, hi = stats.unit_means_slope(d[group] == higher, d["metric_value"], d["model"], cells(d, by))
    n = int(min((d[group] == higher).sum(), (d[group] == lower).sum()))
    return interval(statistic, diff, lo, hi, 0.0, side, test="OLS on cells, HC1", n=n, unit=unit,
                    published=published)
