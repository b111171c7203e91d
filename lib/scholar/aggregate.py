"""The per-attempt table of LLMScholarBench's metrics and its group aggregates (paper §4.1, App. C.1).

Inputs are notebook 02's tables (:func:`lib.attempts.attempt_table`, one row per attempt;
:func:`lib.attempts.name_table`, one row per recommended name of a chosen attempt) and a
:class:`lib.scholar.benchmark.GroundTruthContext`. Nothing here recomputes a metric: the
technical ones come from :func:`lib.scholar.interventions.technical_per_attempt` (refusal over
every attempt, validity per request, duplicates and author factuality per chosen attempt,
consistency per configuration over its runs) and the name-based ones from
:func:`lib.scholar.benchmark.per_attempt_metrics` (connectedness, similarity, diversity, parity,
task factualities). This module stacks them, labels the rows with the infrastructure groups, and
aggregates them per group as the reference's ``aggregate_per_group`` (reference §2.10).

- :func:`baseline`: the reference's ``baseline`` query (§2.9).
- :func:`per_attempt_table`: the long per-attempt table of every metric (§2.8).
- :func:`aggregate`: mean ± 95 % CI per (group, metric), stacked over grouping columns, with the
  best-in-group flag of the paper's bold values (Fig. 2, C.7–C.11).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from lib import stats
from lib.scholar import benchmark
from lib.scholar import interventions as iv
from lib.scholar.metrics import BINARY_METRICS

#: The nine headline metrics of Fig. 2 / C.7 / C.11, in the paper's panel order (reference §2.8).
HEADLINE_METRICS = ("refusal_pct", "validity_pct", "duplicates", "consistency", "factuality_author",
                    "connectedness", "similarity_pca", "diversity_gender", "parity_gender")
FACTUALITY_METRICS = ("factuality_author", "factuality_field", "factuality_epoch", "factuality_seniority")
SOCIAL_ATTRIBUTES = ("gender", "ethnicity", "prominence_pub", "prominence_cit")
DIVERSITY_METRICS = tuple(f"diversity_{a}" for a in SOCIAL_ATTRIBUTES)
PARITY_METRICS = tuple(f"parity_{a}" for a in SOCIAL_ATTRIBUTES)
#: Direction of preference (paper §4: ↑ validity, factuality, parity; ↓ duplicates); others none.
DIRECTION = {"validity_pct": "max", "duplicates": "min",
             **{m: "max" for m in FACTUALITY_METRICS}, **{m: "max" for m in PARITY_METRICS}}
#: Infrastructure grouping columns of the attempts table (reference §2.11): access, size, reasoning.
GROUP_COLUMNS = iv.GROUP_COLUMNS
#: Columns of the per-attempt table, in order.
PER_ATTEMPT_COLUMNS = ["model", *GROUP_COLUMNS, "model_family", "task", "param", "temperature", "replicate",
                       "attempt", "metric_name", "metric_value"]
_KEYS = list(iv.ATTEMPT_KEYS)


def baseline(attempts: pd.DataFrame) -> pd.DataFrame:
    """The reference's ``baseline`` query (§2.9): task != biased_top_k and not grounded, i.e. the
    same rows as its ``temperature`` query (:func:`lib.scholar.interventions.temperature_filter`)
    applied to the interventions collection of notebook 02."""
    return iv.temperature_filter(attempts)


def per_attempt_table(attempts: pd.DataFrame, names: pd.DataFrame, ctx: benchmark.GroundTruthContext, *,
                      mode: str = "faithful", consistency_pairs: str = "consecutive") -> pd.DataFrame:
    """Every per-attempt metric value of ``attempts`` in one long table (reference §2.8).

    - refusal_pct, validity_pct, duplicates, factuality_author, consistency:
      :func:`lib.scholar.interventions.technical_per_attempt` (``mode`` 'faithful' reads the
      reference's labels and name rows, 'paper' the paper's; ``consistency_pairs`` 'consecutive'
      is eq. 4, 'all' the v1 variant; the duplicates rule follows ``ctx.mode``). Consistency has one row per configuration (model, task,
      param, temperature) with NaN replicate, NaN-valued when a configuration has a single run
      with a valid answer (e.g. the tiny profile's single run), as the reference's table.
    - connectedness, similarity_pca, diversity_*, parity_* and factuality_{field,epoch,seniority}
      (on their own task only): :func:`lib.scholar.benchmark.per_attempt_metrics` over the same
      name rows, with ``ctx.mode`` deciding the faithful/corrected edge cases of those metrics
      (its duplicates and factuality_author are dropped: the technical ones above are the same
      definition).

    Only the names of attempts in ``attempts`` are used, so filter first (e.g. :func:`baseline`).
    Rows: refusal_pct per attempt; validity_pct per request (NaN attempt); the name-based metrics
    per chosen attempt; consistency per configuration (NaN replicate and attempt).
    Returns :data:`PER_ATTEMPT_COLUMNS`; ``model_family`` is the provider family when the
    attempts carry it (else the key's prefix before the first "-", reference §2.11).
    """
    tech = iv.technical_per_attempt(attempts, names, mode=mode, consistency_pairs=consistency_pairs,
                                    metric_mode=ctx.mode)
    nm = names[names["mode"] == mode] if "mode" in names.columns else names
    nm = nm.merge(attempts[_KEYS].drop_duplicates(), on=_KEYS, how="inner")
    parts = [tech]
    if not nm.empty:
        social = benchmark.per_attempt_metrics(nm, ctx, keys=[*_KEYS, "attempt"], task_col="task", param_col="param")
        social = social[~social["metric_name"].isin(["duplicates", "factuality_author"])]
        parts.append(social)
        # the technical name-based rows carry the chosen attempt too (one per request)
        chosen = nm[[*_KEYS, "attempt"]].drop_duplicates(_KEYS).rename(columns={"attempt": "_chosen"})
        tech = tech.merge(chosen, on=_KEYS, how="left")
        named = tech["metric_name"].isin(["duplicates", "factuality_author"])
        tech["attempt"] = tech["attempt"].where(~named, tech["_chosen"])
        parts[0] = tech.drop(columns="_chosen")
    out = pd.concat(parts, ignore_index=True)
    attrs = attempts.drop_duplicates("model").set_index("model")
    for c in GROUP_COLUMNS:
        out[c] = out["model"].map(attrs[c]).astype(str)
    family = attrs["model_family"] if "model_family" in attrs.columns else attrs.index.to_series().str.split("-").str[0]
    out["model_family"] = out["model"].map(family)
    out["metric_value"] = out["metric_value"].astype(float)
    return out.reindex(columns=PER_ATTEMPT_COLUMNS)


def _best(agg: pd.DataFrame, within: Sequence[str], decimals: int) -> pd.Series:
    """Best-in-group flag: per ``within`` group of a directional metric, the rows whose mean,
    rounded to the displayed ``decimals``, equals the best rounded mean (ties are all bold)."""
    flag = pd.Series(False, index=agg.index)
    for _, g in agg.groupby(list(within), sort=False, dropna=False):
        how = DIRECTION.get(g["metric_name"].iloc[0])
        shown = g["mean"].round(decimals)
        if how is None or shown.notna().sum() < 2:
            continue
        target = shown.max() if how == "max" else shown.min()
        flag.loc[g.index] = (shown == target).to_numpy()
    return flag


def aggregate(per_attempt: pd.DataFrame, groups: Sequence[str] = GROUP_COLUMNS, *,
              metrics: Sequence[str] | None = None, alpha: float = 0.05, decimals: int = 2) -> pd.DataFrame:
    """Mean and (1 − α) CI of each metric per group, stacked over the grouping columns ``groups``.

    For each column g (access, size_class, model_class for Fig. 2; model for C.7–C.9; param for
    C.10–C.11): :func:`lib.stats.aggregate_by_groups`, i.e. all per-attempt values of a group
    pooled (models with more attempts weigh more, reference §2.10), Wilson intervals for
    refusal_pct/validity_pct, unclipped t-intervals otherwise (one value → NaN bounds). Missing
    values are ignored, so a metric without any value (consistency with one run) gets no row.

    ``best`` marks the paper's bold values: within one group_kind and metric, the group with the
    highest mean for ↑ metrics (validity, factuality, parity) or the lowest for ↓ (duplicates),
    compared at ``decimals`` places as displayed (ties all bold: this tie rule is the companion's
    choice, the reference notes only say "best within a row group"); never for refusals,
    consistency, connectedness, similarity, diversity (no universal direction, paper §4), nor
    when fewer than two groups have a value.

    Returns group_kind, group, metric_name, n, mean, std, median, sum, ci_low, ci_high, ci, best.
    """
    missing = [c for c in [*groups, "metric_name", "metric_value"] if c not in per_attempt.columns]
    if missing:
        raise KeyError(f"aggregate: per-attempt table lacks column(s) {missing}; has {list(per_attempt.columns)}")
    d = per_attempt if metrics is None else per_attempt[per_attempt["metric_name"].isin(metrics)]
    d = d[d["metric_value"].notna()]
    agg = stats.aggregate_by_groups(d, groups, binary=BINARY_METRICS, alpha=alpha)
    agg["best"] = _best(agg, ["group_kind", "metric_name"], decimals) if len(agg) else pd.Series(dtype=bool)
    agg["best"] = agg["best"].astype(bool)
    return agg


def display_order(per_attempt: pd.DataFrame, column: str, *, by: Sequence[str] = ("model_family",)) -> list:
    """The values of ``column`` sorted by ``by`` then by name (e.g. models grouped by provider
    family, as the colour-coded bars of Fig. C.7–C.9)."""
    cols = list(dict.fromkeys([*by, column]))
    return per_attempt[cols].drop_duplicates().sort_values(cols)[column].drop_duplicates().tolist()



def param_order(per_attempt: pd.DataFrame, tasks: Sequence[str]) -> list:
    """The task parameters of ``tasks``, task by task in the order given, each task's by name (the
    x order of Figs. C.10 and C.11); tasks the table lacks add nothing."""
    return [p for t in tasks for p in display_order(per_attempt[per_attempt["task"] == t], "param", by=())]


@dataclass(frozen=True)
class MetricOptions:
    """Notebook 03's metric choices, as its parameters cell names them: the labels and name rows
    (``label_mode``: faithful or paper), the metric edge cases (``metric_mode``: faithful or
    corrected) and the consistency pairs (consecutive or all)."""

    label_mode: str = "faithful"
    metric_mode: str = "faithful"
    consistency_pairs: str = "consecutive"


# ---- the published means (lib/resources, transcribed from the paper's figures) -----------------

_PUBLISHED = {"fig2": "lsb_published_fig2_group_means.csv", "model": "lsb_published_per_model_baseline.csv",
              "param": "lsb_published_per_task_baseline.csv"}
_PUBLISHED_COLUMNS = {
    "refusals": "refusal_pct", "validity": "validity_pct", "duplicates": "duplicates", "consistency": "consistency",
    "factuality": "factuality_author", "connectedness": "connectedness", "similarity": "similarity_pca",
    "diversity_gender": "diversity_gender", "parity_gender": "parity_gender",
    "ref": "refusal_pct", "val": "validity_pct", "dup": "duplicates", "cons": "consistency",
    "f_auth": "factuality_author", "f_field": "factuality_field", "f_epoch": "factuality_epoch",
    "f_sen": "factuality_seniority", "conn": "connectedness", "sim": "similarity_pca",
    **{f"{k}_{a}": f"{m}_{b}" for k, m in (("div", "diversity"), ("par", "parity"))
       for a, b in (("g", "gender"), ("e", "ethnicity"), ("pub", "prominence_pub"), ("cit", "prominence_cit"))},
}


def published_means(which: str, *, resources=None) -> pd.DataFrame:
    """The paper's baseline means as transcribed in ``lib/resources`` (SOURCES.md): ``which`` =
    'fig2' (access / size / reasoning groups), 'model' (per model) or 'param' (per task
    parameter; its pooled task factuality ``f_task`` is left out). Long format: group_kind,
    group, metric_name, published; "–" (not applicable) cells are dropped."""
    from lib import paths
    from lib.scholar.models import GROUP_LABELS, GROUP_TITLES

    if which not in _PUBLISHED:
        raise ValueError(f"published_means: which must be one of {list(_PUBLISHED)}, got {which!r}")
    path = (resources or paths.RESOURCES) / _PUBLISHED[which]
    raw = pd.read_csv(path, dtype=str)
    if which == "fig2":
        kind = {v: k for k, v in GROUP_TITLES.items()}
        value = {v: k for k, v in GROUP_LABELS.items()}
        ids = pd.DataFrame({"group_kind": raw["group"].map(kind), "group": raw["kind"].map(value)})
        if ids.isna().any().any():
            raise ValueError(f"{path}: columns group/kind hold values outside {list(kind)} / {list(value)}")
    else:
        first = raw.columns[0]
        ids = pd.DataFrame({"group_kind": which, "group": raw[first]})
    vals = raw[[c for c in raw.columns if c in _PUBLISHED_COLUMNS]].rename(columns=_PUBLISHED_COLUMNS)
    long = pd.concat([ids, vals], axis=1).melt(id_vars=["group_kind", "group"], var_name="metric_name",
                                              value_name="published")
    long["published"] = pd.to_numeric(long["published"], errors="coerce")
    return long.dropna(subset=["published"]).reset_index(drop=True)


def compare_published(agg: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Regenerated means next to the published ones: group_kind, group, metric_name, mean,
    published, difference (regenerated − published), in ``published``'s order. Groups or
    metrics the regenerated table lacks keep NaN means."""
    out = published.merge(agg[["group_kind", "group", "metric_name", "mean"]],
                          on=["group_kind", "group", "metric_name"], how="left")
    out["difference"] = out["mean"] - out["published"]
    return out[["group_kind", "group", "metric_name", "mean", "published", "difference"]]
