"""LLMScholarBench §4.1 (AQ1) and App. C.1 claims, checked on the baseline per-attempt table.

Each :class:`lib.claims.Claim` is a sentence of the paper; its check is a pure function of the
per-attempt table of :func:`lib.scholar.aggregate.per_attempt_table` (baseline query) returning
a :class:`lib.claims.Verdict` with the means, 95 % CIs and n behind it. Decision rule, as in
:mod:`lib.scholar.claims_rules`: "A is higher than B" is judged on the 95 % interval of A − B
against 0. Where the groups are kinds of model (access, reasoning, size) the claim is about the
audited models, as the paper's figure is: the difference (for "increases with size", the slope
on the ordinal size class) of the model means, each model weighing the same, with the runs'
sampling error given the models (:func:`lib.stats.unit_means_slope`); the spread among the
models, what a claim about kinds of model at large would rest on, is reported beside it. Where
the groups are kinds of prompt (senior vs early-career) it is Newcombe's hybrid score interval
for refusal/validity and Welch's t otherwise, all per-attempt values of a group pooled
(reference §2.10). A missing group or metric (e.g. consistency with one run on the tiny
profile) gives ``not applicable`` with the reason.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from lib import stats
from lib.claims import Claim, Verdict, interval, judge, not_applicable
from lib.scholar.claims_rules import P, cells, compared, model_difference, summary, unit_for
from lib.scholar.models import SIZE_ORDER

ACCESS_REFUSALS = Claim("lsb-aq1-access-refusals", P, "§4.1 (Fig. 2)",
                        "Open models refuse more often than proprietary models.", ("lsb-fig2",))
ACCESS_VALIDITY = Claim("lsb-aq1-access-validity", P, "§4.1 (Fig. 2)",
                        "Open models reach higher eventual validity than proprietary models.", ("lsb-fig2",))
ACCESS_FACTUALITY = Claim("lsb-aq1-access-factuality", P, "§4.1 (Fig. 2)",
                          "Proprietary models have higher author factuality than open models.", ("lsb-fig2",))
ACCESS_PARITY = Claim("lsb-aq1-access-parity", P, "§4.1 (Fig. 2)",
                      "Proprietary models have higher gender parity than open models.", ("lsb-fig2",))
ACCESS_CONSISTENCY = Claim("lsb-aq1-access-consistency", P, "§4.1 (Fig. 2)",
                           "Proprietary models have higher temporal consistency than open models.", ("lsb-fig2",))
SIZE_VALIDITY = Claim("lsb-aq1-size-validity", P, "§4.1 (Fig. 2)", "Eventual validity increases with model size.", ("lsb-fig2",))
SIZE_REFUSALS = Claim("lsb-aq1-size-refusals", P, "§4.1 (Fig. 2)", "Refusals increase with model size.", ("lsb-fig2",))
SIZE_DUPLICATES = Claim("lsb-aq1-size-duplicates", P, "§4.1 (Fig. 2)", "Duplicates decrease with model size.", ("lsb-fig2",))
SIZE_CONSISTENCY = Claim("lsb-aq1-size-consistency", P, "§4.1 (Fig. 2)",
                         "Temporal consistency decreases with model size.", ("lsb-fig2",))
REASONING_VALIDITY = Claim("lsb-aq1-reasoning-validity", P, "§4.1 (Fig. 2)",
                           "Reasoning-disabled models have higher validity than reasoning-enabled models.", ("lsb-fig2",))
REASONING_FACTUALITY = Claim("lsb-aq1-reasoning-factuality", P, "§4.1 (Fig. 2)",
                             "Reasoning-enabled models have higher author factuality than reasoning-disabled models.", ("lsb-fig2",))
TASK_FACTUALITY = Claim("lsb-c1-task-factuality", P, "App. C.1 (Fig. C.8, C.10)",
                        "Author factuality exceeds field, epoch and seniority factuality on those tasks.", ("lsb-figC8", "lsb-figC10"))
SENIORITY_SENIOR = Claim("lsb-c1-seniority-senior", P, "App. C.1 (Fig. C.10)",
                         "Seniority factuality is higher for senior scholars than for early-career researchers.", ("lsb-figC10",))
ALL = (ACCESS_REFUSALS, ACCESS_VALIDITY, ACCESS_FACTUALITY, ACCESS_PARITY, ACCESS_CONSISTENCY, SIZE_VALIDITY,
       SIZE_REFUSALS, SIZE_DUPLICATES, SIZE_CONSISTENCY, REASONING_VALIDITY, REASONING_FACTUALITY, TASK_FACTUALITY,
       SENIORITY_SENIOR)


@lru_cache(maxsize=1)
def _published_models() -> pd.DataFrame:
    """The paper's per-model baseline means (App. B, ``lsb_published_per_model_baseline.csv``),
    one column per metric, with each model's access, size class and reasoning class."""
    from lib.scholar.aggregate import published_means
    from lib.scholar.models import load_models

    wide = published_means("model").pivot(index="group", columns="metric_name", values="published")
    return load_models().set_index("key")[["access", "size_class", "model_class"]].join(wide, how="inner")


def published_difference(group: str, higher: str, lower: str, metric: str) -> float | None:
    """The statistic of :func:`group_difference` (``by_model``) on the paper's own per-model means:
    mean over the ``higher`` models minus mean over the ``lower`` ones (None if not printed)."""
    m = _published_models()
    if metric not in m or group not in m:
        return None
    a, b = m.loc[m[group] == higher, metric].dropna(), m.loc[m[group] == lower, metric].dropna()
    return float(a.mean() - b.mean()) if a.size and b.size else None


def published_slope(metric: str, group: str = "size_class", order=SIZE_ORDER) -> float | None:
    """The statistic of :func:`size_trend` on the paper's per-model means: their least-squares
    slope on the ordinal size class (None if not printed)."""
    m = _published_models()
    if metric not in m:
        return None
    d = m[[group, metric]].dropna()
    rank = d[group].astype(str).map({s: i for i, s in enumerate(order)})
    return float(np.polyfit(rank.to_numpy(float), d[metric].to_numpy(float), 1)[0]) if rank.nunique() > 1 else None


def group_difference(per_attempt: pd.DataFrame, group: str, higher: str, lower: str, metric: str, *,
                     by_model: bool = False) -> Verdict:
    """``metric`` is higher for group value ``higher`` than for ``lower`` of column ``group``:
    the 95 % CI of mean(higher) − mean(lower) against 0.

    ``by_model``: the group is a property of the model (access, reasoning). The claim is then
    about the audited models, as the paper's Fig. 2 is: the statistic is the difference of the
    groups' model means (each model weighs the same), its interval the runs' sampling error given
    these models and prompts (:func:`lib.scholar.claims_rules.model_difference`); the paper's
    value is the same statistic on its per-model means (:func:`published_difference`). The spread
    among the models (Student's t over the model means, :func:`lib.stats.student_diff`)
    is reported beside it, not judged: with 2 proprietary models no run can say anything of
    proprietary models at large, and the paper does not claim that. Without ``by_model`` (a
    property of the prompt, e.g. senior vs early-career): Newcombe or Welch over the pooled
    attempts (:func:`lib.scholar.claims_rules.compared`)."""
    d = per_attempt[(per_attempt["metric_name"] == metric) & per_attempt["metric_value"].notna()]
    a, b = d.loc[d[group] == higher, "metric_value"], d.loc[d[group] == lower, "metric_value"]
    if a.size < 2 or b.size < 2:
        return not_applicable(f"{metric}: fewer than two values for {group}={higher!r} or {lower!r}",
                   {f"n {higher}": int(a.size), f"n {lower}": int(b.size)})
    sa, sb = summary(a, metric), summary(b, metric)
    nums = {f"{metric} {higher}": sa["mean"], f"CI {higher}": sa["ci"], f"n {higher}": sa["n"],
            f"{metric} {lower}": sb["mean"], f"CI {lower}": sb["ci"], f"n {lower}": sb["n"]}
    if not by_model:
        return judge([compared(b, a, metric, f"{metric} {higher} − {lower}")], nums)
    d = d[d[group].isin([higher, lower])]
    means = d.groupby([group, "model"])["metric_value"].mean()
    ma, mb = means.get(higher, pd.Series(dtype=float)), means.get(lower, pd.Series(dtype=float))
    nums |= {f"models {higher}": int(ma.size), f"models {lower}": int(mb.size)}
    across = stats.student_diff(ma, mb)
    nums |= {f"model mean {higher}": float(ma.mean()), f"model mean {lower}": float(mb.mean()),
             "across models (Student t)": [across[1], across[2]]}
    return judge([model_difference(d, group, higher, lower, f"{metric} {higher} − {lower} (model means)",
                                   published=published_difference(group, higher, lower, metric), unit=unit_for(metric))],
                 nums, "the audited models: each model weighs the same; the interval is the runs' sampling error")


def size_trend(per_attempt: pd.DataFrame, metric: str, *, direction: str = "increase",
               group: str = "size_class", order=SIZE_ORDER) -> Verdict:
    """``metric`` increases (or decreases) with model size: the slope of the audited models'
    means on the ordinal size class (0, 1, … over the classes present, in size order), each model
    weighing the same, with its 95 % interval for the runs' sampling error
    (:func:`lib.stats.unit_means_slope` on :func:`lib.scholar.claims_rules.cells`), against 0;
    pairwise comparisons of the four class means would not test a trend. The slope's interval
    over the models (cluster-robust by model, :func:`lib.stats.trend_slope`) is reported beside
    it, as for the access groups."""
    if direction not in ("increase", "decrease"):
        raise ValueError(f"size_trend: direction must be 'increase' or 'decrease', got {direction!r}")
    d = per_attempt[(per_attempt["metric_name"] == metric) & per_attempt["metric_value"].notna()]
    present = [s for s in order if (d[group] == s).sum() >= 2]
    if len(present) < 2:
        return not_applicable(f"{metric}: fewer than two size classes with two values", {"classes": present})
    d = d[d[group].isin(present)]
    rank = d[group].map({s: i for i, s in enumerate(present)})
    slope, lo, hi = stats.unit_means_slope(rank, d["metric_value"], d["model"], cells(d))
    _, alo, ahi = stats.trend_slope(rank, d["metric_value"], clusters=d["model"])
    means = d.groupby(group)["metric_value"].mean().reindex(present)
    nums = {f"{metric} {s}": float(means[s]) for s in present}
    nums["n"] = [int((d[group] == s).sum()) for s in present]
    nums["models"] = [int(d.loc[d[group] == s, "model"].nunique()) for s in present]
    nums["across models (cluster-robust by model)"] = [alo, ahi]
    side = "above" if direction == "increase" else "below"
    return judge([interval(f"{metric} slope per size class (model means)", slope, lo, hi, 0.0, side,
                           test="OLS trend on cells, HC1", n=int(len(d)), unit=unit_for(metric, per_group=False),
                           design="one-sample", published=published_slope(metric, group, order))],
                 nums, f"size classes in order {', '.join(present)}")


def task_factuality_gap(per_attempt: pd.DataFrame) -> Verdict:
    """On the field, epoch and seniority tasks, author factuality exceeds the task's own
    factuality: per task, the paired per-attempt difference author − task factuality with its
    95 % t-interval against 0; every task present (at least one) must hold."""
    tasks = {"field": "factuality_field", "epoch": "factuality_epoch", "seniority": "factuality_seniority"}
    keys = ["model", "task", "param", "temperature", "replicate", "attempt"]
    nums, tests = {}, []
    for task, metric in tasks.items():
        d = per_attempt[(per_attempt["task"] == task) & per_attempt["metric_name"].isin(["factuality_author", metric])]
        w = d.pivot_table(index=keys, columns="metric_name", values="metric_value", aggfunc="first")
        if metric not in w or "factuality_author" not in w:
            continue
        diff = (w["factuality_author"] - w[metric]).dropna()
        if diff.size < 2:
            continue
        mean, lo, hi = stats.t_ci(diff)
        tests.append(interval(f"author − {task} factuality", mean, lo, hi, 0.0, "above", test="paired t",
                              n=int(diff.size), unit="attempts", design="one-sample"))
        nums.update({f"author {task}": float(w["factuality_author"].mean()), f"{metric}": float(w[metric].mean())})
    if not tests:
        return not_applicable("no field, epoch or seniority attempt with both factualities")
    return judge(tests, nums, "paired per attempt")
