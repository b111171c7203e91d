"""Aggregations behind LLMScholarBench's intervention figures: temperature and refusal reasons.

Inputs are the collection tables of notebooks 01 and 02 (:func:`lib.attempts.attempt_table`, one
row per attempt with ``is_refusal``, ``valid_attempt``, the raw text and the model attributes
access / size_class / model_class; :func:`lib.attempts.name_table`, one row per recommended name
of a chosen attempt). Everything is a pure function of those tables.

- :func:`technical_per_attempt`: the per-attempt values of the five technical metrics
  (reference §2.8): refusal_pct (every attempt), validity_pct (per request),
  duplicates and factuality_author (per chosen attempt), consistency (per configuration, over
  the replicates as runs).
- :func:`temperature_curves`: group means and 95 % CIs per temperature (reference §2.10:
  Wilson for refusal/validity, t otherwise), stacked over the infrastructure groups (Fig. 3)
  or per model (Fig. C.12), of the technical metrics or, from
  :func:`lib.scholar.aggregate.per_attempt_table`, of all nine panels.
- :func:`configuration`, :func:`refusal_table`, :func:`reason_shares`, :func:`reason_examples`,
  :func:`task_label`: the refusal reasons by configuration, group and task (App. A.4,
  Fig. A.3–A.5, Table A.2).

Faithful vs corrected: ``mode='faithful'`` (default) reads the reference's labels and flags
(``valid_attempt``, ``is_refusal``, the faithful name rows); ``mode='paper'`` reads the paper's
seven labels (``valid_attempt_paper``), the corrected refusal keywords (``is_refusal_corrected``)
and the paper-mode name rows.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from lib import stats
from lib.scholar import metrics as m

#: Infrastructure group columns of the attempts tables (reference §2.11).
GROUP_COLUMNS = ("access", "size_class", "model_class")
#: The five technical metrics (refusal, validity, duplicates, consistency, author factuality), in panel order.
TECHNICAL_METRICS = ("refusal_pct", "validity_pct", "duplicates", "consistency", "factuality_author")
METRIC_TITLES = {"refusal_pct": "Refusals", "validity_pct": "Validity ↑", "duplicates": "Duplicates ↓",
                 "consistency": "Consistency", "factuality_author": "Factuality ↑"}
#: Configurations of the refusal analysis, in the paper's facet order (Fig. A.3).
CONFIGURATIONS = ("Baseline", "Temperature", "Constrained prompting", "RAG")
CONSTRAINED_TASK = "biased_top_k"
ATTEMPT_KEYS = ("model", "task", "param", "temperature", "replicate")
_MODES = {"faithful": ("valid_attempt", "is_refusal"), "paper": ("valid_attempt_paper", "is_refusal_corrected")}


def _need(df: pd.DataFrame, cols: Sequence[str], where: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise KeyError(f"{where}: table lacks column(s) {missing}; has {list(df.columns)}")


def _flags(mode: str) -> tuple[str, str]:
    if mode not in _MODES:
        raise ValueError(f"mode must be 'faithful' or 'paper', got {mode!r}")
    return _MODES[mode]


def context_mode(label_mode: str) -> str:
    """The ground-truth mode notebook 04 matches names in: faithful with the reference's labels,
    corrected with the paper's (``label_mode`` 'paper')."""
    _flags(label_mode)
    return "faithful" if label_mode == "faithful" else "corrected"


def refusal_column(label_mode: str) -> str:
    """The attempts column flagging refusals under ``label_mode``: the reference's keywords
    (``is_refusal``) or the corrected ones (``is_refusal_corrected``)."""
    return _flags(label_mode)[1]


def temperature_filter(attempts: pd.DataFrame) -> pd.DataFrame:
    """The reference's ``temperature`` query (§2.9): task != biased_top_k and not grounded."""
    _need(attempts, ["task", "grounded"], "temperature_filter(attempts)")
    keep = (attempts["task"] != CONSTRAINED_TASK) & ~attempts["grounded"].astype(bool)
    return attempts[keep]


def technical_per_attempt(attempts: pd.DataFrame, names: pd.DataFrame, *, mode: str = "faithful",
                          consistency_pairs: str = "consecutive", metric_mode: str | None = None) -> pd.DataFrame:
    """Per-attempt values of :data:`TECHNICAL_METRICS` (reference §2.8), long format.

    - refusal_pct: one row per attempt, 1 if the refusal flag is 1 else 0 (−1 "no text" counts
      0, faithful), every attempt counted (paper eq. 1);
    - validity_pct: one row per request (model, task, param, temperature, replicate), 1 if any
      of its attempts is the chosen valid one (eq. 2);
    - duplicates, factuality_author: one row per chosen attempt with names, eqs. (3), (5):
      1 − |U|/|L| over the clean names, and the share of distinct names matched to an author;
    - consistency: one row per configuration (model, task, param, temperature) with a named run:
      mean Jaccard of consecutive replicates' name sets in replicate order (eq. 4); replicates
      without a valid answer or without a non-empty name are absent; a single run gives a NaN row
      (the reference's ``aggregate_consistency`` keeps it). ``consistency_pairs='all'`` is the v1 variant.

    ``names`` holds the rows of :func:`lib.attempts.name_table` (its ``mode`` column is filtered to
    ``mode`` when present; only names of attempts in ``attempts`` are used). Duplicates follow
    ``metric_mode`` ('faithful' counts missing names in |L| only; 'corrected' drops them from
    both counts, eq. 3); without it, the label mode decides (faithful labels → faithful rule,
    the paper's labels → corrected). Returns columns model,
    access, size_class, model_class, task, param, temperature, replicate (NaN for consistency),
    attempt (refusal rows only), metric_name, metric_value.
    """
    valid_col, refusal_col = _flags(mode)
    dup_mode = metric_mode or ("faithful" if mode == "faithful" else "corrected")
    _need(attempts, [*ATTEMPT_KEYS, "attempt", valid_col, refusal_col, *GROUP_COLUMNS], "technical_per_attempt(attempts)")
    _need(names, [*ATTEMPT_KEYS, "clean_name", "author_id"], "technical_per_attempt(names)")
    attrs = attempts.drop_duplicates("model").set_index("model")[list(GROUP_COLUMNS)]
    keys = list(ATTEMPT_KEYS)
    out = []
    r = attempts[[*keys, "attempt"]].copy()
    r["metric_value"] = [m.refusal([x]) for x in attempts[refusal_col]]
    out.append(r.assign(metric_name="refusal_pct"))
    v = attempts.assign(_v=attempts[valid_col].fillna(False).astype(bool)).groupby(keys, dropna=False)["_v"].any()
    out.append(v.astype(float).rename("metric_value").reset_index().assign(metric_name="validity_pct"))
    nm = names[names["mode"] == mode] if "mode" in names.columns else names
    # only the names of attempts in the table (e.g. after temperature_filter)
    nm = nm.merge(attempts[keys].drop_duplicates(), on=keys, how="inner")
    if not nm.empty:
        rows = []
        for key, g in nm.groupby(keys, sort=False, dropna=False):
            clean = g["clean_name"].tolist()
            ids = [None if pd.isna(x) else x for x in g["author_id"].tolist()]
            rows.append((*key, m.duplicates(clean, mode=dup_mode),
                         m.factuality(clean, ids)))
        per = pd.DataFrame(rows, columns=[*keys, "duplicates", "factuality_author"])
        out.append(per.melt(id_vars=keys, var_name="metric_name", value_name="metric_value"))
        crow = []
        conf = ["model", "task", "param", "temperature"]
        # as aggregate_consistency: missing/empty names go first, so a run without one is no run
        named = nm[nm["clean_name"].map(lambda c: isinstance(c, str) and c != "")]
        for key, g in named.groupby(conf, sort=False, dropna=False):
            sets = [set(s["clean_name"]) for _, s in g.groupby("replicate", sort=True)]
            crow.append((*key, m.consistency(sets, pairs=consistency_pairs)))   # one run: a NaN row, kept
        if crow:
            out.append(pd.DataFrame(crow, columns=[*conf, "metric_value"]).assign(metric_name="consistency"))
    res = pd.concat(out, ignore_index=True)
    for c in GROUP_COLUMNS:
        res[c] = res["model"].map(attrs[c]).astype(str)
    cols = ["model", *GROUP_COLUMNS, "task", "param", "temperature", "replicate", "attempt", "metric_name",
            "metric_value"]
    return res.reindex(columns=cols)


def temperature_curves(per_attempt: pd.DataFrame, groups: Sequence[str] = GROUP_COLUMNS, *,
                       metrics: Sequence[str] | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """Mean and (1 − α) CI of every metric per (group, temperature), stacked over ``groups``.

    ``per_attempt``: :func:`technical_per_attempt`, or :func:`lib.scholar.aggregate.per_attempt_table`
    for the name-based panels too (both keep each value's temperature). ``metrics`` keeps only
    those metric names (None: every metric of the table); missing values (e.g. a parity left
    NaN in corrected mode) are not pooled, and a group without any value has no row. For each
    column g of ``groups`` (e.g. access, size_class, model_class, or just ``model`` for Fig. C.12):
    :func:`lib.stats.aggregate_per_group` by [g, temperature, metric_name], i.e. all per-attempt
    values of the group pooled (reference §2.10; models with more attempts weigh more), Wilson
    intervals for refusal/validity, unclipped t-intervals otherwise (NaN for one value). Returns
    group_kind, group, temperature, metric_name, n, mean, std, median, sum, ci_low, ci_high, ci.
    """
    _need(per_attempt, [*groups, "temperature", "metric_name", "metric_value"], "temperature_curves(per_attempt)")
    if metrics is not None:
        per_attempt = per_attempt[per_attempt["metric_name"].isin(list(metrics))]
    per_attempt = per_attempt[per_attempt["metric_value"].notna()]     # e.g. one run's NaN consistency
    parts = []
    for g in groups:
        a = stats.aggregate_per_group(per_attempt, [g, "temperature", "metric_name"], binary=m.BINARY_METRICS,
                                    alpha=alpha)
        parts.append(a.rename(columns={g: "group"}).assign(group_kind=g))
    cols = ["group_kind", "group", "temperature", "metric_name", "n", "mean", "std", "median", "sum",
            "ci_low", "ci_high", "ci"]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


# ---- refusal reasons (paper App. A.4, reference §2.4) -----------------------------------------

def configuration(attempts: pd.DataFrame, *, source: str) -> pd.Series:
    """The configuration of each attempt (reference §2.9 queries).

    ``source='temperature'`` (notebook 01's sweep): every non-constrained, non-grounded attempt is
    "Temperature" (the reference's refusal notebook keeps only these), the others None.
    ``source='interventions'`` (notebook 02): "Baseline" = not constrained, not grounded;
    "Constrained prompting" = task biased_top_k, not grounded; "RAG" = not constrained, grounded;
    constrained + grounded (CP+RAG, not in the figures) is None.
    """
    _need(attempts, ["task", "grounded"], f"configuration(attempts of {source})")
    cp = (attempts["task"] == CONSTRAINED_TASK).to_numpy()
    gr = attempts["grounded"].astype(bool).to_numpy()
    if source == "temperature":
        lab = np.where(~cp & ~gr, "Temperature", None)
    elif source == "interventions":
        lab = np.select([~cp & ~gr, cp & ~gr, ~cp & gr], ["Baseline", "Constrained prompting", "RAG"], None)
    else:
        raise ValueError(f"configuration: source must be 'temperature' or 'interventions', got {source!r}")
    return pd.Series(lab, index=attempts.index, dtype=object)


def refusal_table(sources: Mapping[str, pd.DataFrame], assign: Callable, *, mode: str = "faithful") -> pd.DataFrame:
    """Every attempt of every configuration, with the reason of its refusal (reference §2.4).

    ``sources`` maps 'temperature' / 'interventions' to an attempts table; ``assign`` is
    :func:`lib.scholar.refusals.assign_reasons` (or a stand-in with its output columns). Refusals are
    attempts whose flag is 1 with a text: the raw output (``result_original_output``, the
    reasoning trace for reasoning models), else ``result_original_message``. Returns one row per
    attempt in a configuration: configuration, model, access, size_class, model_class, task,
    param, refused (bool), text, and for refusals cluster_name, cluster_sim.
    """
    _, refusal_col = _flags(mode)
    parts = []
    for source, att in sources.items():
        _need(att, ["model", "task", "param", refusal_col, "result_original_output", "result_original_message",
                    *GROUP_COLUMNS], f"refusal_table({source} attempts)")
        conf = configuration(att, source=source)
        a = att[conf.notna()]
        text = a["result_original_output"].where(a["result_original_output"].fillna("").astype(str) != "",
                                                 a["result_original_message"])
        parts.append(pd.DataFrame({
            "configuration": conf[conf.notna()], "model": a["model"], **{c: a[c].astype(str) for c in GROUP_COLUMNS},
            "task": a["task"], "param": a["param"], "text": text,
            "refused": (a[refusal_col] == 1) & text.notna() & (text.fillna("").astype(str) != "")}))
    cols = ["configuration", "model", *GROUP_COLUMNS, "task", "param", "refused", "text", "cluster_name", "cluster_sim"]
    if not parts:
        return pd.DataFrame(columns=cols)
    tab = pd.concat(parts, ignore_index=True)
    tab["cluster_name"], tab["cluster_sim"] = None, np.nan
    ref = tab["refused"].to_numpy()
    if ref.any():
        r = assign(tab.loc[ref, "text"].astype(str).tolist())
        tab.loc[ref, "cluster_name"] = r["cluster_name"].to_numpy()
        tab.loc[ref, "cluster_sim"] = r["cluster_sim"].to_numpy(float)
    return tab[cols]


def reason_shares(table: pd.DataFrame, by: str | None = None, *, reasons: Sequence[str] | None = None,
                  configurations: Sequence[str] = CONFIGURATIONS) -> pd.DataFrame:
    """Shares of refusal reasons per configuration (Fig. A.3) or per configuration × ``by`` (A.4, A.5).

    Without ``by`` (Fig. A.3, reference ``1_refusal``): share = refusals of the reason / **all
    attempts** of the configuration, so a facet's bars sum to its refusal rate; ``note`` reads
    "N=<attempts>". With ``by`` (e.g. access, task): share = refusals of (group, reason) / **all
    refusals** of the configuration, so every bar of a facet (over groups × reasons) sums to 1;
    ``note`` reads "N_r=<refusals>". Every configuration of ``configurations`` and every reason
    of ``reasons`` gets a row (share 0 when absent). Returns configuration, [by], reason, count,
    total, share, note.
    """
    from lib.scholar.refusals import DISPLAY_ORDER

    reasons = list(reasons or DISPLAY_ORDER)
    _need(table, ["configuration", "refused", "cluster_name"] + ([by] if by else []), "reason_shares(table)")
    rows = []
    for conf in configurations:
        t = table[table["configuration"] == conf]
        r = t[t["refused"].astype(bool)]
        total = len(t) if by is None else len(r)
        groups = [(None, r)] if by is None else list(r.groupby(by, sort=True))
        for gval, g in groups:
            counts = g["cluster_name"].value_counts()
            for reason in reasons:
                c = int(counts.get(reason, 0))
                rows.append({"configuration": conf, **({by: gval} if by else {}), "reason": reason, "count": c,
                             "total": total, "share": c / total if total else 0.0,
                             "note": f"N={total:,}" if by is None else f"N_r={total:,}"})
    cols = ["configuration", *([by] if by else []), "reason", "count", "total", "share", "note"]
    return pd.DataFrame(rows, columns=cols)


def reason_shares_by_group(table: pd.DataFrame, groups: Sequence[str] = GROUP_COLUMNS) -> pd.DataFrame:
    """:func:`reason_shares` per infrastructure group column (Fig. A.4), stacked: the group's value in
    ``group``, its column in ``group_kind``."""
    return pd.concat([reason_shares(table, by=g).rename(columns={g: "group"}).assign(group_kind=g) for g in groups],
                     ignore_index=True)


def reason_examples(table: pd.DataFrame, *, per_reason: int = 2, chars: int = 300,
                    reasons: Sequence[str] | None = None) -> pd.DataFrame:
    """Example refusal texts per reason (Table A.2): the highest-similarity texts first.

    As the reference's ``1_refusal`` table: within a reason, texts are sorted by cluster_sim
    (descending), de-duplicated on their first 20 characters, the first ``per_reason`` kept and
    cut to ``chars`` characters (with "…"). "Other or no explanation" texts keep their similarity
    to the best category, so the order still applies. Returns reason, configuration, model, task,
    cluster_sim, text.
    """
    from lib.scholar.refusals import DISPLAY_ORDER, norm_text

    _need(table, ["refused", "cluster_name", "cluster_sim", "text", "configuration", "model", "task"],
          "reason_examples(table)")
    r = table[table["refused"].astype(bool)].copy()
    r["norm"] = r["text"].astype(str).map(norm_text)
    rows = []
    for reason in list(reasons or DISPLAY_ORDER):
        g = r[r["cluster_name"] == reason].sort_values("cluster_sim", ascending=False, kind="mergesort")
        g = g.drop_duplicates(subset="norm").assign(head=lambda d: d["norm"].str[:20]).drop_duplicates("head")
        for x in g.head(per_reason).itertuples(index=False):
            text = x.norm if len(x.norm) <= chars else x.norm[:chars].rstrip() + "…"
            rows.append({"reason": reason, "configuration": x.configuration, "model": x.model, "task": x.task,
                         "cluster_sim": float(x.cluster_sim), "text": text})
    return pd.DataFrame(rows, columns=["reason", "configuration", "model", "task", "cluster_sim", "text"])


def task_label(task: pd.Series, param: pd.Series) -> pd.Series:
    """The task names of Fig. A.5: the family, with twins split into twins-real (famous and
    random scientists) and twins-fake (politicians, movie characters, fictitious names)."""
    from lib.scholar.prompts import TWINS_FAKE

    fake = param.isin(TWINS_FAKE)
    out = task.astype(str).where(task != "twins", np.where(fake, "twins-fake", "twins-real"))
    return out.rename("task_label")
