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
    """Task factuality flags of the named authors (field: PER/CM&MP; epoch; seniority)."""
    a = ctx.authors
    if task == "field":
        if param not in ctx.field_flags:  # every author's flag, computed once per field
            ctx.field_flags[param] = m.author_field_flags(param, ctx.publications, ctx.authorships, mode=ctx.mode)
        per = ctx.field_flags[param]
        return ids.map(lambda i: float(per[i]) if pd.notna(i) and i in per.index else np.nan)

    def year(col):
        return ids.map(lambda i: a.at[i, col] if pd.notna(i) and i in a.index else np.nan)

    if task == "epoch":
        return m.epoch_match(year("career_start"), year("career_end"), param)
    return m.seniority_match(year("career_start"), param, mode=ctx.mode)


def per_attempt_metrics(names: pd.DataFrame, ctx: GroundTruthContext, *, keys: Sequence[str],
                        task_col: str = "task_name", param_col: str = "task_param") -> pd.DataFrame:
    """The per-attempt metric values of every attempt in ``names`` (grouped by ``keys``).

    Within an attempt, names are de-duplicated on clean_name (first row kept), as the reference
    does; the factual authors are the de-duplicated rows with an author id. ``ctx.mode`` selects
    faithful or corrected edge cases for every metric.
    """
    need = [*keys, "clean_name", "author_id"]
    missing = [c for c in need if c not in names.columns]
    if missing:
        raise KeyError(f"per_attempt_metrics: name table lacks column(s) {missing}")
    out = []
    mode = ctx.mode
    for key, g in names.groupby(list(keys), sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        vals = {"duplicates": m.duplicates(g["clean_name"].tolist(), mode=mode),
                "factuality_author": m.factuality(g["clean_name"].tolist(), g["author_id"].tolist())}
        d = g.drop_duplicates("clean_name", keep="first")
        fact = d[d["author_id"].notna()]
        ids = fact["author_id"].tolist()
        vals["connectedness"] = m.connectedness(ctx.graph, ids)
        vals["similarity_pca"] = m.scholarly_similarity(ctx.embedding, ids)
        for attr, (col, _, _) in ATTRIBUTES.items():
            labels = ctx.authors[col].reindex(ids).tolist()
            vals[f"diversity_{attr}"] = m.diversity(labels, DIVERSITY_CATEGORIES[attr], mode=mode)
            vals[f"parity_{attr}"] = m.parity(labels, ctx.reference[attr], mode=mode)
        task = g[task_col].iloc[0] if task_col in g.columns else None
        if task in TASK_FACTUALITY:
            flags = _task_flags(d["author_id"].reset_index(drop=True), ctx, task, g[param_col].iloc[0])
            vals[TASK_FACTUALITY[task]] = m.task_factuality(d["clean_name"].tolist(), flags.tolist())
        for name, v in vals.items():
            out.append((*key, name, v))
    return pd.DataFrame(out, columns=[*keys, "metric_name", "metric_value"])
