"""LLMScholarBench §4.1 (AQ1) and App. C.1 claims, checked on the baseline per-attempt table.

Each :class:`lib.claims.Claim` is a sentence of the paper; its check is a pure function of the
per-attempt table of :func:`lib.scholar.aggregate.per_attempt_table` (baseline query) returning
a :class:`lib.claims.Verdict` with the means, 95 % CIs and n behind it. Decision rule, as in
:mod:`lib.scholar.claims_rules`: "A is higher than B" is judged on the 95 % interval of A − B
against 0. A model's attempts are one model's evidence: where the groups are kinds of model
(access, reasoning) the unit is the model (Student's t over the model means), and "increases with
size" is the slope of the per-attempt values on the ordinal size class with its interval
cluster-robust by model (:func:`lib.stats.trend_slope`). Where the groups are kinds of prompt
(senior vs early-career) it is Newcombe's hybrid score interval for refusal/validity and Welch's t
otherwise, all per-attempt values of a group pooled (reference §2.10).
A missing group or metric (e.g. consistency with one run on the tiny profile) gives ``not
applicable`` with the reason.
"""
from __future__ import annotations

import pandas as pd

from lib import stats
from lib.claims import Claim, Verdict, interval, judge, not_applicable
from lib.scholar.claims_rules import P, compared, summary
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


def group_difference(per_attempt: pd.DataFrame, group: str, higher: str, lower: str, metric: str, *,
                     by_model: bool = False) -> Verdict:
    """``metric`` is higher for group value ``higher`` than for ``lower`` of column ``group``:
    the 95 % CI of mean(higher) − mean(lower) against 0.

    ``by_model``: the group is a property of the model (access, reasoning), so the model is the
    unit: the difference of the two groups' model means (each model's mean over its attempts) with
    Student's pooled-variance t-interval over the models (:func:`lib.stats.student_diff`), n = the
    smaller group's models. The seeds showed the attempt-level Welch interval far too narrow: the
    paper profile's proprietary − open parity was +0.051 [+0.047, +0.055] at one seed and −0.024
    [−0.031, −0.017] at another, on about 1,580 attempts per group and two proprietary models; a
    cluster-robust (CR1) interval with two clusters in a group is still too narrow (five quick
    seeds' estimates spread twice as far as its half-width). Without it (a property of the prompt,
    e.g. senior vs early-career): Newcombe or Welch over the pooled attempts
    (:func:`lib.scholar.claims_rules.compared`)."""
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
    means = d[d[group].isin([higher, lower])].groupby([group, "model"])["metric_value"].mean()
    ma, mb = means.get(higher, pd.Series(dtype=float)), means.get(lower, pd.Series(dtype=float))
    nums |= {f"models {higher}": int(ma.size), f"models {lower}": int(mb.size)}
    if min(ma.size, mb.size) < 2:
        return not_applicable(f"{metric}: fewer than two models with values for {group}={higher!r} or {lower!r}", nums)
    diff, lo, hi = stats.student_diff(ma, mb)
    nums |= {f"model mean {higher}": float(ma.mean()), f"model mean {lower}": float(mb.mean())}
    return judge([interval(f"{metric} {higher} − {lower} (model means)", diff, lo, hi, 0.0, "above",
                           test="Student t over models", n=int(min(ma.size, mb.size)), unit="models per group")],
                 nums, "the model is the unit: each model's mean over its attempts")


def size_trend(per_attempt: pd.DataFrame, metric: str, *, direction: str = "increase",
               group: str = "size_class", order=SIZE_ORDER) -> Verdict:
    """``metric`` increases (or decreases) with model size: the least-squares slope of the
    per-attempt values on the ordinal size class (0, 1, … over the classes present, in size
    order) with its 95 % interval, cluster-robust by model (:func:`lib.stats.trend_slope`): the
    seeds showed the attempt-level HC1 interval far too narrow (the consistency slope held at one
    seed and was contradicted at two others, each interval excluding 0), against 0."""
    if direction not in ("increase", "decrease"):
        raise ValueError(f"size_trend: direction must be 'increase' or 'decrease', got {direction!r}")
    d = per_attempt[(per_attempt["metric_name"] == metric) & per_attempt["metric_value"].notna()]
    present = [s for s in order if (d[group] == s).sum() >= 2]
    if len(present) < 2:
        return not_applicable(f"{metric}: fewer than two size classes with two values", {"classes": present})
    d = d[d[group].isin(present)]
    rank = d[group].map({s: i for i, s in enumerate(present)})
    # the size class is a property of the model: the attempts of one model are one cluster
    slope, lo, hi = stats.trend_slope(rank, d["metric_value"], clusters=d["model"])
    means = d.groupby(group)["metric_value"].mean().reindex(present)
    nums = {f"{metric} {s}": float(means[s]) for s in present}
    nums["n"] = [int((d[group] == s).sum()) for s in present]
    nums["models"] = [int(d.loc[d[group] == s, "model"].nunique()) for s in present]
    side = "above" if direction == "increase" else "below"
    return judge([interval(f"{metric} slope per size class", slope, lo, hi, 0.0, side,
                           test="OLS trend, cluster-robust by model", n=int(d["model"].nunique()), unit="models",
                           design="one-sample")], nums, f"size classes in order {', '.join(present)}")


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
