"""Aggregations behind LLMScholarBench's intervention figures: constrained prompting, RAG, quadrants.

Inputs are the collection tables of notebooks 01/02 (:func:`lib.attempts.attempt_table`,
:func:`lib.attempts.name_table`), turned into one long per-attempt table of every metric by
:func:`metric_table` (technical metrics from :func:`lib.scholar.interventions.technical_per_attempt`,
name-based ones from :func:`lib.scholar.benchmark.per_attempt_metrics`). Everything else is a
pure function of that long table.

- :func:`before_after`: mean ± 95 % CI before (B, the baseline top-100 prompt of the same models)
  and after (A, each constrained variant) constrained prompting (paper Fig. 4, C.13–C.17;
  reference §3.1 notebook 5 and §2.9 ``baseline_top_100`` / ``constrained_prompting`` queries).
- :func:`rag_before_after`: B = the non-grounded Gemini configuration, A = its grounded twin, per
  task (paper Fig. 5; reference §2.9 ``rag`` query with the "-grounded" suffix stripped).
- :func:`quadrant_points`: per-model technical and social sums with the median cross-hairs
  (paper App. C.3, Fig. C.18; reference §2.13).

Aggregation follows reference §2.10 (:func:`lib.stats.aggregate_per_group`): all attempts of a
group pooled, Wilson intervals for refusal/validity, t-intervals otherwise.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from lib import stats
from lib.scholar import benchmark
from lib.scholar import interventions as iv
from lib.scholar.metrics import BINARY_METRICS

CONSTRAINED_TASK = iv.CONSTRAINED_TASK
#: The constrained variants per attribute family, with the legend labels of Fig. 4 / C.13–C.17.
VARIANTS: dict[str, dict[str, str]] = {
    "gender": {"top_100_bias_gender_equal": "Equal", "top_100_bias_gender_female": "Only female",
               "top_100_bias_gender_male": "Only male", "top_100_bias_gender_neutral": "Only neutral"},
    "ethnicity": {"top_100_bias_ethnicity_equal": "Equal", "top_100_bias_ethnicity_asian": "Only Asian",
                  "top_100_bias_ethnicity_white": "Only White", "top_100_bias_ethnicity_latino": "Only Latino",
                  "top_100_bias_ethnicity_black": "Only Black"},
    "citations": {"top_100_bias_citations_low": "Lowly cited only", "top_100_bias_citations_high": "Highly cited only"},
    "general": {"top_100_bias_diverse": "Diverse"},
}
FAMILY_TITLES = {"gender": "(a) gender", "ethnicity": "(b) ethnicity", "citations": "(c) citations",
                 "general": "(d) general diversity"}
#: The 11 panels of Fig. 4 and Fig. 5 (reference §3.1, notebooks 5 and 6).
FAN_METRICS = ("refusal_pct", "validity_pct", "duplicates", "consistency", "factuality_author", "connectedness",
               "similarity_pca", "diversity_gender", "diversity_ethnicity", "parity_gender", "parity_ethnicity")
#: The 9 panels of the per-model fans (Fig. C.13–C.16; reference §3.1 notebook 5 "by_model": the
#: headline metrics), with the diversity and parity of the family's own attribute.
_FAMILY_ATTRIBUTE = {"gender": "gender", "ethnicity": "ethnicity", "citations": "prominence_cit", "general": "gender"}


def by_model_metrics(family: str) -> tuple[str, ...]:
    """The headline metrics of a per-model fan; diversity/parity of the family's attribute."""
    a = _FAMILY_ATTRIBUTE[family]
    return ("refusal_pct", "validity_pct", "duplicates", "consistency", "factuality_author", "connectedness",
            "similarity_pca", f"diversity_{a}", f"parity_{a}")


#: The panels of Fig. C.17 (factuality against the diversity of every attribute).
TRADEOFF_METRICS = ("factuality_author", "diversity_gender", "diversity_ethnicity", "diversity_prominence_pub",
                    "diversity_prominence_cit")
METRIC_TITLES = {**iv.METRIC_TITLES, "connectedness": "Connectedness", "similarity_pca": "Similarity",
                 "diversity_gender": "Diversity (gen.)", "diversity_ethnicity": "Diversity (eth.)",
                 "diversity_prominence_pub": "Diversity (pubs.)", "diversity_prominence_cit": "Diversity (cits.)",
                 "parity_gender": "Parity ↑ (gen.)", "parity_ethnicity": "Parity ↑ (eth.)",
                 "parity_prominence_cit": "Parity ↑ (cits.)"}
#: Quadrant axes (reference §2.13): technical ∈ [0, 6], social ∈ [0, 4].
TECHNICAL_AXIS = ("validity_pct", "uniqueness", "factuality_author", "factuality_field", "factuality_epoch",
                  "factuality_seniority")
SOCIAL_AXIS = ("parity_gender", "parity_ethnicity", "parity_prominence_pub", "parity_prominence_cit")
_KEYS = ["model", "task", "param", "temperature", "replicate"]
_TECH_KEEP = ("refusal_pct", "validity_pct", "consistency")
AGG_COLS = ["n", "mean", "std", "median", "sum", "ci_low", "ci_high", "ci"]


def _need(df: pd.DataFrame, cols: Sequence[str], where: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise KeyError(f"{where}: table lacks column(s) {missing}; has {list(df.columns)}")


def base_model(model: pd.Series) -> pd.Series:
    """The model key with the "-grounded" suffix stripped (reference §2.9 ``rag`` query)."""
    return model.astype(str).str.replace(r"-grounded$", "", regex=True)


def metric_table(attempts: pd.DataFrame, names: pd.DataFrame, ctx: benchmark.GroundTruthContext, *,
                 mode: str = "faithful", consistency_pairs: str = "consecutive") -> pd.DataFrame:
    """One long per-attempt table of every metric (reference §2.8) for the attempts given.

    refusal_pct (every attempt), validity_pct (per request) and consistency (per configuration)
    come from :func:`lib.scholar.interventions.technical_per_attempt`; duplicates, factualities,
    connectedness, similarity, diversity and parity from
    :func:`lib.scholar.benchmark.per_attempt_metrics` over the names of the chosen attempts
    (``names`` filtered to ``mode``). Returns model, base_model, grounded, size_class, task, param,
    temperature, replicate, metric_name, metric_value.
    """
    _need(attempts, [*_KEYS, "grounded", "size_class"], "metric_table(attempts)")
    tech = iv.technical_per_attempt(attempts, names, mode=mode, consistency_pairs=consistency_pairs)
    tech = tech[tech["metric_name"].isin(_TECH_KEEP)]
    nm = names[names["mode"] == mode] if "mode" in names.columns else names
    nm = nm.merge(attempts[_KEYS].drop_duplicates(), on=_KEYS, how="inner")
    social = benchmark.per_attempt_metrics(nm, ctx, keys=_KEYS, task_col="task", param_col="param")
    long = pd.concat([tech[[*_KEYS, "metric_name", "metric_value"]], social], ignore_index=True)
    attrs = attempts.drop_duplicates("model").set_index("model")
    long["grounded"] = long["model"].map(attrs["grounded"]).astype(bool)
    long["size_class"] = long["model"].map(attrs["size_class"]).astype(str)
    long["base_model"] = base_model(long["model"])
    return long[["model", "base_model", "grounded", "size_class", *_KEYS[1:], "metric_name", "metric_value"]]


def constrained_pairs(long: pd.DataFrame, params: Sequence[str], *, before_param: str = "top_100"
                      ) -> tuple[pd.DataFrame, pd.DataFrame, str | None]:
    """The per-attempt rows before (B) and after (A) constrained prompting, paired by model.

    A = non-grounded ``biased_top_k`` rows with ``param`` in ``params``; B = the non-grounded
    ``top_k`` rows of ``before_param`` (the paper's unconstrained top-100 prompt, reference §3.1
    notebook 5 ``baseline_top_100``) of the models that have A rows. When no model has a
    ``before_param`` row (a profile that collects only top_5), B falls back to every top_k
    parameter of those models; the third return value names what B used (None: no B rows).
    """
    _need(long, ["model", "grounded", "task", "param", "metric_name", "metric_value"], "constrained_pairs(long)")
    ng = long[~long["grounded"].astype(bool)]
    after = ng[(ng["task"] == CONSTRAINED_TASK) & ng["param"].isin(list(params))]
    top = ng[(ng["task"] == "top_k") & ng["model"].isin(set(after["model"]))]
    before = top[top["param"] == before_param]
    used: str | None = before_param
    if before.empty:
        before = top
        used = "+".join(sorted(top["param"].unique())) or None
    return before, after, used


def _agg(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    return stats.aggregate_per_group(df, [*by, "metric_name"], binary=BINARY_METRICS)


def before_after(long: pd.DataFrame, variants: Mapping[str, str], *, by: Sequence[str] = (),
                 metrics: Sequence[str] = FAN_METRICS, before_param: str = "top_100") -> pd.DataFrame:
    """Mean ± 95 % CI of each metric before (x=0, phase B) and after (x=1, phase A) each variant.

    ``variants`` maps a constrained param to its label (:data:`VARIANTS`); ``by=()`` pools the
    attempts of all models (Fig. 4, C.17), ``by=("model",)`` gives one fan per model (C.13–C.16).
    The B value of a group is repeated for every variant with A rows in that group, so each
    variant draws a line from B to A. Returns by + [variant, phase, x, metric_name, n, mean, std,
    median, sum, ci_low, ci_high, ci, before_param]; empty (with these columns) when no variant
    was collected.
    """
    cols = [*by, "variant", "phase", "x", "metric_name", *AGG_COLS, "before_param"]
    before, after, used = constrained_pairs(long, list(variants), before_param=before_param)
    before = before[before["metric_name"].isin(metrics)]
    after = after[after["metric_name"].isin(metrics)]
    parts = []
    b = _agg(before, by) if not before.empty else pd.DataFrame(columns=[*by, "metric_name", *AGG_COLS])
    for param, label in variants.items():
        a = after[after["param"] == param]
        if a.empty:
            continue
        aa = _agg(a, by).assign(variant=label, phase="A", x=1.0)
        groups = aa[list(by)].drop_duplicates() if by else None
        bb = b.merge(groups, on=list(by)) if by else b
        parts += [bb.assign(variant=label, phase="B", x=0.0), aa]
    if not parts:
        return pd.DataFrame(columns=cols)
    out = pd.concat([p for p in parts if not p.empty], ignore_index=True)
    out["before_param"] = used
    return out[cols]


#: The per-model figures of constrained prompting: family -> artifact (Figs. C.13-C.16)
BY_MODEL_FIGURES = {"gender": "lsb-figC13", "ethnicity": "lsb-figC14", "citations": "lsb-figC15",
                    "general": "lsb-figC16"}


def per_model(long: pd.DataFrame, *, before_param: str = "top_100") -> dict[str, pd.DataFrame]:
    """family -> :func:`before_after` per model on that family's :func:`by_model_metrics`, for the
    families of :data:`BY_MODEL_FIGURES` in their order."""
    return {f: before_after(long, VARIANTS[f], by=("model",), before_param=before_param, metrics=by_model_metrics(f))
            for f in BY_MODEL_FIGURES}


def per_model_summary(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per family of :func:`per_model`: how many models and variants have constrained runs."""
    return pd.DataFrame({f: {"models": t["model"].nunique() if not t.empty else 0, "variants": t["variant"].nunique()}
                         for f, t in tables.items()}).T


def means_table(table: pd.DataFrame, index, columns) -> pd.DataFrame:
    """The means of a :func:`before_after` or :func:`rag_before_after` table, ``index`` by
    ``columns``, rounded to 2 decimals; an empty table as it is (a profile without those runs)."""
    if table.empty:
        return table
    return table.pivot_table(index=index, columns=columns, values="mean").round(2)


def tradeoffs(long: pd.DataFrame, *, metrics: Sequence[str] = TRADEOFF_METRICS, before_param: str = "top_100"
              ) -> pd.DataFrame:
    """Fig. C.17: :func:`before_after` pooled over models for every family of :data:`VARIANTS`,
    stacked with a ``family`` column (gender, ethnicity, citations, general)."""
    parts = [before_after(long, v, metrics=metrics, before_param=before_param).assign(family=f)
             for f, v in VARIANTS.items()]
    full = [p for p in parts if not p.empty]
    return pd.concat(full, ignore_index=True) if full else parts[0]


def rag_pairs(long: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-attempt rows before (non-grounded) and after (grounded) RAG for the models with a
    grounded twin, baseline tasks only (reference §2.9: ``rag`` and ``baseline_rag`` queries)."""
    _need(long, ["model", "base_model", "grounded", "task", "param"], "rag_pairs(long)")
    base = long[long["task"] != CONSTRAINED_TASK]
    after = base[base["grounded"].astype(bool)]
    before = base[~base["grounded"].astype(bool) & base["model"].isin(set(after["base_model"]))]
    return before, after


def rag_before_after(long: pd.DataFrame, *, metrics: Sequence[str] = FAN_METRICS) -> pd.DataFrame:
    """Fig. 5: mean ± 95 % CI per (base model, task label, metric) before (x=0, B, no web search)
    and after (x=1, A, grounded). Task labels split twins into real and fake reference persons
    (:func:`lib.scholar.interventions.task_label`); only tasks collected on both sides are kept.
    Returns base_model, task_label, phase, x, metric_name and the aggregate columns."""
    cols = ["base_model", "task_label", "phase", "x", "metric_name", *AGG_COLS]
    before, after = rag_pairs(long)
    parts = []
    for phase, x, d in (("B", 0.0, before), ("A", 1.0, after)):
        d = d[d["metric_name"].isin(metrics)]
        if d.empty:
            continue
        d = d.assign(task_label=iv.task_label(d["task"], d["param"]).to_numpy())
        parts.append(_agg(d, ["base_model", "task_label"]).assign(phase=phase, x=x))
    if len(parts) < 2:
        return pd.DataFrame(columns=cols)
    out = pd.concat(parts, ignore_index=True)
    both = out.groupby(["base_model", "task_label"])["phase"].transform("nunique") == 2
    return out[both][cols].reset_index(drop=True)


def configuration_tables(collection: pd.DataFrame, sweep: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    """The four experiment queries of Fig. C.18 (reference §2.9, §2.13) as long tables.

    baseline: collection, baseline tasks, not grounded; temperature: notebook 01's sweep over every
    temperature (baseline tasks, not grounded). ⚠ The reference draws the *baseline* rows again
    under this name, so its panel (b) is identical to (a); here it is the sweep, as the paper's
    caption describes. constrained: ``biased_top_k``, not grounded; RAG: baseline tasks, grounded,
    with the model key's "-grounded" stripped so points pair with the base model.
    """
    g = collection["grounded"].astype(bool)
    base = collection["task"] != CONSTRAINED_TASK
    rag = collection[base & g].assign(model=lambda d: d["base_model"])
    temp = sweep[(sweep["task"] != CONSTRAINED_TASK) & ~sweep["grounded"].astype(bool)] if sweep is not None \
        else collection.iloc[0:0]
    return {"baseline": collection[base & ~g], "temperature": temp,
            "constrained": collection[~base & ~g], "RAG": rag}


def quadrant_points(long: pd.DataFrame) -> pd.DataFrame:
    """Per-model technical and social scores with the panel's median cross-hairs (reference §2.13).

    technical = Σ of the model's mean validity_pct, uniqueness (1 − duplicates per attempt) and
    factuality_{author,field,epoch,seniority} (0–6); social = Σ of the mean parities for gender,
    ethnicity and the two prominence strata (0–4). Each mean pools every per-attempt row of the
    model (:func:`lib.stats.aggregate_per_group`), so configurations with different request counts
    are comparable. Faithful to the reference's pandas sum, a metric the model lacks (e.g. the task
    factualities under constrained prompting, which has no field/epoch/seniority task) adds 0;
    ``n_technical``/``n_social`` count the terms present. median_technical / median_social are the
    medians over the plotted models (the dashed lines). Empty input → empty table.
    """
    cols = ["model", "size_class", "family", "technical", "social", "n_technical", "n_social",
            "median_technical", "median_social"]
    _need(long, ["model", "metric_name", "metric_value"], "quadrant_points(long)")
    dup = long[long["metric_name"] == "duplicates"]
    uniq = dup.assign(metric_name="uniqueness", metric_value=1 - dup["metric_value"].astype(float))
    d = pd.concat([long, uniq], ignore_index=True)
    d = d[d["metric_name"].isin([*TECHNICAL_AXIS, *SOCIAL_AXIS])]
    if d.empty:
        return pd.DataFrame(columns=cols)
    means = stats.aggregate_per_group(d, ["model", "metric_name"], binary=BINARY_METRICS).pivot(
        index="model", columns="metric_name", values="mean")
    tech = means.reindex(columns=list(TECHNICAL_AXIS))
    soc = means.reindex(columns=list(SOCIAL_AXIS))
    out = pd.DataFrame({"technical": tech.sum(axis=1, skipna=True), "social": soc.sum(axis=1, skipna=True),
                        "n_technical": tech.notna().sum(axis=1), "n_social": soc.notna().sum(axis=1)})
    out = out.reset_index()
    if "size_class" in long.columns:
        out["size_class"] = out["model"].map(long.drop_duplicates("model").set_index("model")["size_class"])
    else:
        out["size_class"] = np.nan
    out["family"] = out["model"].astype(str).str.split("-").str[0]
    out["median_technical"] = out["technical"].median()
    out["median_social"] = out["social"].median()
    return out[cols]


def quadrants(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """:func:`quadrant_points` of every configuration, stacked with a ``configuration`` column."""
    parts = [quadrant_points(t).assign(configuration=name) for name, t in tables.items()]
    return pd.concat(parts, ignore_index=True)
