"""Per-attempt values of the name-based LLMScholarBench metrics (reference §2.8, one row per metric).

Input: a name table, one row per recommended name of a chosen (valid) attempt, with the attempt's
keys, ``clean_name`` and the matched ``author_id`` (<NA> when unmatched), e.g. from
:func:`lib.scholar.matching.match_names`. Output: a long table (attempt keys, metric_name,
metric_value) for duplicates, factuality_author, factuality_{field,epoch,seniority} (on their own
task only), connectedness, similarity_pca, diversity_* and parity_* for gender, ethnicity and
the two prominence strata. Refusal, validity and consistency need every attempt or every run and
are computed from the attempts table with :func:`lib.scholar.metrics.refusal`, ``validity`` and
``consistency``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lib.groundtruth.demographics import ATTRIBUTES, DIVERSITY_CATEGORIES, attribute_distribution
from lib.scholar import metrics as m

TASK_FACTUALITY = {"field": "factuality_field", "epoch": "factuality_epoch", "seniority": "factuality_seniority"}


@dataclass
class GroundTruthContext:
    """What the metrics read from D, prepared once: author attributes, the coauthorship graph,
    the similarity embedding and the population shares of each attribute (parity's q)."""

    authors: pd.DataFrame  # indexed by author_id
    publications: pd.DataFrame
    authorships: pd.DataFrame
    graph: m.CoauthorGraph
    embedding: pd.DataFrame
    reference: dict  # attribute -> {category: population share}
    mode: m.Mode = "faithful"
    field_flags: dict = field(default_factory=dict)  # field param -> per-author flag (filled lazily)

    @classmethod
    def from_world(cls, world, *, mode: m.Mode = "faithful") -> "GroundTruthContext":
        a = world.authors
        dist = attribute_distribution(a)
        ref = {attr: dict(zip(sub["category"], sub["share"])) for attr, sub in dist.groupby("attribute", sort=False)}
        return cls(a.set_index("author_id"), world.publications, world.authorships,
                   m.CoauthorGraph(world.coauthorships, nodes=a["author_id"]),
                   m.similarity_embedding(a, mode=mode), ref, mode)


def _task_flags(ids: pd.Series, ctx: GroundTruthContext, task: str, param: str) -> pd.Series:
    """Task factuality flags of the named authors (field: PER/CM&MP; epoch; seniority), one per
    entry of ``ids`` (unmatched entries: NaN, or 0 for faithful seniority)."""
    a = ctx.authors
    if task == "field":
        if param not in ctx.field_flags:  # every author's flag, computed once per field
            ctx.field_flags[param] = m.author_field_flags(param, ctx.publications, ctx.authorships, mode=ctx.mode)
        per = ctx.field_flags[param]
        return ids.map(lambda i: float(per[i]) if pd.notna(i) and i in per.index else np.nan)

    known = ids.notna() & ids.isin(a.index)

    def year(col):
        return pd.Series(a[col].reindex(ids[known]).to_numpy(), index=ids.index[known.to_numpy()]).reindex(ids.index)

    if task == "epoch":
        return m.epoch_match(year("career_start"), year("career_end"), param)
    return m.seniority_match(year("career_start"), param, mode=ctx.mode)


def _group_positions(names: pd.DataFrame, keys: Sequence[str]) -> list[np.ndarray]:
    """Row positions of each group of ``keys``, groups in order of first appearance and rows in
    table order (the iteration order of ``groupby(keys, sort=False, dropna=False)``)."""
    codes = names.groupby(list(keys), sort=False, dropna=False).ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return np.split(order, bounds)


def per_attempt_metrics(names: pd.DataFrame, ctx: GroundTruthContext, *, keys: Sequence[str],
                        task_col: str = "task_name", param_col: str = "task_param") -> pd.DataFrame:
    """The per-attempt metric values of every attempt in ``names`` (grouped by ``keys``).

    Within an attempt, names are de-duplicated on clean_name (first row kept), as the reference
    does; the factual authors are the de-duplicated rows with an author id. ``ctx.mode`` selects
    faithful or corrected edge cases for every metric. An attempt without a factual author has
    no diversity rows (the reference's ``aggregate_diversity`` groups matched rows only).

    The metric functions of :mod:`lib.scholar.metrics` run once per attempt on plain lists;
    the lookups into D (attribute labels, task flags) are made once for the whole table, so the
    cost grows with the number of attempts, not with pandas calls per attempt.
    """
    need = [*keys, "clean_name", "author_id"]
    missing = [c for c in need if c not in names.columns]
    if missing:
        raise KeyError(f"per_attempt_metrics: name table lacks column(s) {missing}")
    mode = ctx.mode
    names = names.reset_index(drop=True)
    if names.empty:
        return pd.DataFrame([], columns=[*keys, "metric_name", "metric_value"])
    clean = names["clean_name"].tolist()
    ids = names["author_id"].tolist()
    has_id = names["author_id"].notna().to_numpy()
    # one label per row and attribute, looked up once (unmatched rows are never read)
    labels = {}
    for attr, (col, _, _) in ATTRIBUTES.items():
        lab = np.full(len(names), None, dtype=object)
        lab[has_id] = ctx.authors[col].reindex(names["author_id"][has_id]).to_numpy(dtype=object)
        labels[attr] = lab.tolist()
    tasks = names[task_col] if task_col in names.columns else pd.Series(None, index=names.index, dtype=object)
    flags = np.full(len(names), np.nan, dtype=object)
    on_task = names[tasks.isin(list(TASK_FACTUALITY))]   # none without a task column (no task factuality)
    for (task, param), rows in (on_task.groupby([task_col, param_col], sort=False).groups.items() if len(on_task) else ()):
        flags[names.index.get_indexer(rows)] = _task_flags(names.loc[rows, "author_id"], ctx, task, param).to_numpy(dtype=object)
    flags = flags.tolist()
    task_list = tasks.tolist()
    key_rows = names[list(keys)].itertuples(index=False, name=None)
    key_rows = list(key_rows)
    out = []
    for pos in _group_positions(names, keys):
        pos = pos.tolist()
        key = key_rows[pos[0]]
        g_clean = [clean[i] for i in pos]
        vals = {"duplicates": m.duplicates(g_clean, mode=mode),
                "factuality_author": m.factuality(g_clean, [ids[i] for i in pos])}
        first = m.first_per_name(g_clean, pos)          # de-duplicated rows, first kept
        fact = [i for i in first if has_id[i]]
        fact_ids = [ids[i] for i in fact]
        vals["connectedness"] = m.connectedness(ctx.graph, fact_ids)
        vals["similarity_pca"] = m.scholarly_similarity(ctx.embedding, fact_ids)
        for attr in ATTRIBUTES:
            lab = [labels[attr][i] for i in fact]
            if fact:        # aggregate_diversity groups matched rows only: no factual name, no row
                vals[f"diversity_{attr}"] = m.diversity(lab, DIVERSITY_CATEGORIES[attr], mode=mode)
            vals[f"parity_{attr}"] = m.parity(lab, ctx.reference[attr], mode=mode,
                                              categorical=attr in m.CATEGORICAL_ATTRIBUTES)
        task = task_list[pos[0]]
        if task in TASK_FACTUALITY:
            vals[TASK_FACTUALITY[task]] = m.task_factuality([clean[i] for i in first], [flags[i] for i in first])
        for name, v in vals.items():
            out.append((*key, name, v))
    return pd.DataFrame(out, columns=[*keys, "metric_name", "metric_value"])
