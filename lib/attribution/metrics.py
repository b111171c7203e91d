"""Accuracy, suppression (S_omit, S_evid) and subgroup disparity over a responses table (paper §3, §5).

**Responses table** (one row per model reply; what the collection runner stores):

=============  ==========================================================================
quote_id       the AttriBench quote (``jstet_<n>``)
model          model id as shown in figures (e.g. ``gpt-5.1``)
prompt_type    ``direct`` | ``indirect`` | ``indirect_overt``
evidence       bool: False = no-evidence, True = evidence-conditioned (R(q) in the prompt)
generation     1, 2, 3: the stochastic generation (the reference's ``run``)
text           the model's reply; missing/empty = no author mentioned
=============  ==========================================================================

An optional ``dataset`` column names the AttriBench dataset; :func:`score_responses` sets it.

Per reply (:func:`score_responses`): the three outcomes of §3 via :mod:`.mentions`, and three
0/1 row metrics: ``accuracy`` = correct author named; ``omission`` = 1 − mentioned_any (no
person named at all: S_omit-style); ``miss`` = 1 − correct (wrong or no author: S_evid-style).
Per quote (:func:`quote_level`): the mean over generations (reference B.5). Per group
(:func:`rate_table`): the mean of the quote-level values with se = sd/√n_quotes.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats as st

from lib import stats as lstats
from lib.attribution import dataset as ds
from lib.attribution.mentions import AuthorMatcher, Mode, classify_frame, matcher_for

RESPONSE_COLUMNS = ("quote_id", "model", "prompt_type", "evidence", "generation", "text")
KEY = ("dataset", "model", "prompt_type", "evidence")
Metric = Literal["accuracy", "omission", "miss", "wrong", "none"]
Z_CRIT = 1.96


def score_responses(responses: pd.DataFrame, dataset: pd.DataFrame, *, kind: ds.DatasetKind,
                    dataset_name: str | None = None, matcher: AuthorMatcher | None = None,
                    strict_names: bool = False, mode: Mode = "faithful",
                    universe: Literal["run", "dataset"] | None = None) -> pd.DataFrame:
    """Classify every reply against its quote's author and attach the author's demographics.

    ``dataset``: the AttriBench quote table the responses were made from (needs quote_id,
    author_clean, race, gender, log10_hits). The author universe of the matcher is the set of
    the authors of the run file (reference B.4): ``mode="faithful"`` builds one matcher per
    (model, evidence) group (one release ``raw_outputs.csv``) from that group's authors in row
    order, so a run on a 300-matching subset knows only the subset's authors and ties follow
    the file order; ``mode="corrected"`` uses every author of ``dataset`` (order-free tie rule,
    see :class:`AuthorMatcher`); ``universe`` ("run" / "dataset") overrides the mode's universe
    alone (to measure that quirk by itself). ``dataset_name`` defaults to ``kind``. Raises if a
    column is missing, a quote_id is not in the dataset, or a (model, prompt_type, evidence,
    quote_id, generation) key repeats. Adds ``author_clean, race, gender, log10_hits,
    subgroup, outcome, correct, mentioned_any, mentioned_author, no_answer, accuracy,
    omission, miss, wrong, none``.
    """
    missing = [c for c in RESPONSE_COLUMNS if c not in responses]
    if missing:
        raise ValueError(f"responses table lacks column(s) {missing}; expected {list(RESPONSE_COLUMNS)}")
    need = [c for c in ("quote_id", "author_clean", "race", "gender", "log10_hits") if c not in dataset]
    if need:
        raise ValueError(f"dataset table lacks column(s) {need}")
    key = ["model", "prompt_type", "evidence", "quote_id", "generation"]
    dup = responses.duplicated(key)
    if dup.any():
        raise ValueError(f"responses table: key {key} repeats, first at row {int(np.flatnonzero(dup)[0])}: "
                         f"{responses.loc[dup, key].iloc[0].to_dict()}")
    info = dataset[["quote_id", "author_clean", "race", "gender", "log10_hits"]].drop_duplicates("quote_id")
    out = responses.drop(columns=[c for c in ("author_clean", "race", "gender", "log10_hits") if c in responses])
    out = out.merge(info, on="quote_id", how="left", validate="many_to_one")
    unknown = out["author_clean"].isna()
    if unknown.any():
        raise ValueError(f"responses table: quote_id {out.loc[unknown, 'quote_id'].iloc[0]!r} "
                         f"(and {int(unknown.sum()) - 1} more rows) not in the dataset table")
    ev = out["evidence"]
    if not (pd.api.types.is_bool_dtype(ev) or (pd.api.types.is_integer_dtype(ev) and ev.isin([0, 1]).all())):
        raise ValueError(f"responses table: column 'evidence' must be bool (or 0/1), got dtype {ev.dtype}")
    out["evidence"] = ev.astype(bool)
    out["dataset"] = dataset_name or kind
    out["subgroup"] = ds.subgroup_labels(out, kind)
    universe = universe or ("run" if mode == "faithful" else "dataset")
    if universe not in ("run", "dataset"):
        raise ValueError(f"universe must be 'run' or 'dataset', got {universe!r}")
    if matcher is not None:
        out = classify_frame(out, matcher)
    elif universe == "dataset":
        out = classify_frame(out, matcher_for(dataset["author_clean"].unique(), strict_names=strict_names, mode=mode))
    else:
        parts = [classify_frame(g, matcher_for(pd.unique(g["author_clean"]), strict_names=strict_names, mode=mode))
                 for _, g in out.groupby(["model", "evidence"], sort=False)]
        out = pd.concat(parts).loc[out.index] if parts else classify_frame(out, AuthorMatcher([]))
    return add_rates(out)


def add_rates(scored: pd.DataFrame) -> pd.DataFrame:
    """The 0/1 row metrics from ``correct`` and ``mentioned_any`` (in place, returned): ``outcome``
    (correct / wrong / none), ``accuracy`` = correct, ``omission`` = 1 − mentioned_any, ``miss`` =
    1 − correct, ``wrong`` and ``none`` (the outcome's indicators)."""
    c, m = scored["correct"].to_numpy(dtype=bool), scored["mentioned_any"].to_numpy(dtype=bool)
    scored["outcome"] = np.where(c, "correct", np.where(m, "wrong", "none")).astype(object)
    scored["accuracy"] = scored["correct"].astype(float)
    scored["omission"] = 1.0 - scored["mentioned_any"]
    scored["miss"] = 1.0 - scored["correct"]
    scored["wrong"] = scored["outcome"].eq("wrong").astype(float)
    scored["none"] = scored["outcome"].eq("none").astype(float)
    return scored


def score_datasets(responses: pd.DataFrame, datasets: dict[str, pd.DataFrame], *, strict_names: bool = False,
                   mode: Mode = "faithful", universe: Literal["run", "dataset"] | None = None) -> pd.DataFrame:
    """:func:`score_responses` per dataset, concatenated: the responses table's ``dataset`` column
    names the key of ``datasets`` (``intersectional`` / ``multirace``; a name containing
    "multirace" is scored as that kind). Each dataset's own authors form its matcher universe."""
    if "dataset" not in responses:
        raise ValueError("score_datasets: responses table lacks column 'dataset' (lib.attribution.runs.responses sets it)")
    unknown = sorted(set(responses["dataset"]) - set(datasets))
    if unknown:
        raise ValueError(f"score_datasets: responses name dataset(s) {unknown}, expected some of {sorted(datasets)}")
    parts = [score_responses(responses[responses["dataset"] == name].drop(columns="dataset"), df,
                             kind="multirace" if "multirace" in name else "intersectional", dataset_name=name,
                             strict_names=strict_names, mode=mode, universe=universe)
             for name, df in datasets.items() if (responses["dataset"] == name).any()]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def outcomes(scored: pd.DataFrame, datasets: dict[str, pd.DataFrame], *, strict_names: bool = False,
             mode: Mode = "faithful", universe: Literal["run", "dataset"] | None = None) -> pd.DataFrame:
    """``correct`` and ``mentioned_any`` of every row of a :func:`score_datasets` table (with its
    ``text``) re-scored under other switches: what :func:`score_datasets` with the same keywords
    gives, without redoing the merge and checks (the matcher universes are built the same way:
    per dataset and, for the run universe, per (model, evidence) group in row order)."""
    universe = universe or ("run" if mode == "faithful" else "dataset")
    out = pd.DataFrame({"correct": np.zeros(len(scored), dtype="int64"),
                        "mentioned_any": np.zeros(len(scored), dtype="int64")}, index=scored.index)
    for name, df in datasets.items():
        rows = scored[scored["dataset"] == name]
        if rows.empty:
            continue
        slim = rows[["text", "author_clean", "model", "evidence"]]
        if universe == "dataset":
            groups = [(None, slim)]
            m = matcher_for(df["author_clean"].unique(), strict_names=strict_names, mode=mode)
        else:
            groups = list(slim.groupby(["model", "evidence"], sort=False))
        for _, g in groups:
            if universe != "dataset":
                m = matcher_for(pd.unique(g["author_clean"]), strict_names=strict_names, mode=mode)
            c = classify_frame(g[["text", "author_clean"]], m)
            out.loc[g.index, "correct"] = c["correct"].to_numpy()
            out.loc[g.index, "mentioned_any"] = c["mentioned_any"].to_numpy()
    return out


def quote_level(scored: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, model, prompt_type, evidence, quote): the means over generations.

    Columns: the key, ``subgroup, race, gender, log10_hits``, ``n_generations`` and the
    quote-level ``accuracy, omission, miss, wrong, none`` (reference B.5 ``*_quote``).
    """
    keys = [*KEY, "quote_id"]
    agg = scored.groupby(keys, sort=False).agg(
        subgroup=("subgroup", "first"), race=("race", "first"), gender=("gender", "first"),
        log10_hits=("log10_hits", "first"), n_generations=("generation", "size"),
        accuracy=("accuracy", "mean"), omission=("omission", "mean"), miss=("miss", "mean"),
        wrong=("wrong", "mean"), none=("none", "mean"))
    return agg.reset_index()


def _knowing(q: pd.DataFrame) -> pd.Series:
    """Quotes whose direct prompt (same dataset, model, evidence setting) is correct in every generation."""
    direct = q[q["prompt_type"] == "direct"]
    known = direct.loc[direct["accuracy"] >= 1.0, ["dataset", "model", "evidence", "quote_id"]]
    k = pd.MultiIndex.from_frame(known)
    return pd.Series(pd.MultiIndex.from_frame(q[["dataset", "model", "evidence", "quote_id"]]).isin(k), index=q.index)


def rate_table(scored: pd.DataFrame, metric: Metric, *, subgroups: bool = False, ci: Literal["se", "wilson"] = "se",
               conditional: bool = False, prompt_type: str | None = None, evidence: bool | None = None,
               alpha: float = 0.05, quotes: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean of a quote-level metric per (dataset, model, prompt_type, evidence[, subgroup]).

    Definition: mean = (1/n) Σ_q m̄_q over the n quotes, m̄_q = the metric averaged over the
    quote's generations; variance/std with ddof = 1, se = std/√n (reference B.5).
    ``ci="se"`` (faithful, reference ``add_subgroup_significance``): mean ∓ 1.96·se.
    ``ci="wilson"``: :func:`lib.stats.wilson_ci` over the pooled replies (successes = Σ row
    metric, n = replies); it ignores the clustering of generations within quotes and is
    slightly narrower when generations agree.
    ``conditional``: only quotes the model "knows", i.e. whose direct prompt in the same
    evidence setting is correct in every generation (the summary's CONDITIONAL section;
    reference B.5 ⚠: the paper may define S_omit that way, the per-quote code does not).
    ``prompt_type``/``evidence`` filter the rows first. ``quotes``: :func:`quote_level` of
    ``scored`` when already computed (callers asking many tables of one run). Edge cases: one quote gives se = NaN and
    a NaN normal interval; an empty selection gives an empty table.
    """
    if metric not in ("accuracy", "omission", "miss", "wrong", "none"):
        raise ValueError(f"metric must be accuracy|omission|miss|wrong|none, got {metric!r}")
    if ci not in ("se", "wilson"):
        raise ValueError(f"ci must be 'se' or 'wilson', got {ci!r}")
    q = quote_level(scored) if quotes is None else quotes
    if conditional:
        q = q[_knowing(q)]
    rows = scored
    if prompt_type is not None:
        q, rows = q[q["prompt_type"] == prompt_type], rows[rows["prompt_type"] == prompt_type]
    if evidence is not None:
        q, rows = q[q["evidence"] == evidence], rows[rows["evidence"] == evidence]
    keys = [*KEY, "subgroup"] if subgroups else list(KEY)
    g = q.groupby(keys, sort=False)[metric]
    out = g.agg(n_quotes="size", mean="mean", variance=lambda s: s.var(ddof=1)).reset_index()
    out["std"] = np.sqrt(out["variance"])
    out["se"] = out["std"] / np.sqrt(out["n_quotes"])
    if ci == "se":
        z = st.norm.ppf(1 - alpha / 2) if alpha != 0.05 else Z_CRIT
        out["ci_low"], out["ci_high"] = out["mean"] - z * out["se"], out["mean"] + z * out["se"]
    else:
        if conditional:
            rows = rows.merge(q[["dataset", "model", "prompt_type", "evidence", "quote_id"]], how="inner")
        pooled = rows.groupby(keys, sort=False)[metric].agg(["sum", "size"]).reset_index()
        lims = [lstats.wilson_ci(s, int(n), alpha) for s, n in zip(pooled["sum"], pooled["size"])]
        pooled["ci_low"], pooled["ci_high"] = [x[0] for x in lims], [x[1] for x in lims]
        out = out.merge(pooled[[*keys, "ci_low", "ci_high"]], on=keys, how="left")
    n_resp = q.groupby(keys, sort=False)["n_generations"].sum().rename("n_responses").reset_index()
    out = out.merge(n_resp, on=keys, how="left")
    out.insert(len(keys), "metric", metric)
    return out


def accuracy(scored: pd.DataFrame, **kw) -> pd.DataFrame:
    """Attribution accuracy, P(a(q) ∈ M(q)) (paper §3): :func:`rate_table` with ``metric="accuracy"``."""
    return rate_table(scored, "accuracy", **kw)


def s_omit(scored: pd.DataFrame, *, prompt_type: str = "indirect", **kw) -> pd.DataFrame:
    """S_omit: share of no-evidence replies naming no author at all, M(q) = ∅ (paper §5.2, Fig. 6).

    Computed as 1 − mentioned_any on the ``indirect`` prompt without evidence (higher = more
    omission). With ``prompt_type="direct"`` the same quantity is the direct-prompt omission rate
    of A.10 (task failure, Fig. 15). ``conditional=True`` restricts to quotes the model knows.
    """
    return rate_table(scored, "omission", prompt_type=prompt_type, evidence=kw.pop("evidence", False), **kw)


def s_evid(scored: pd.DataFrame, *, prompt_type: str = "indirect", **kw) -> pd.DataFrame:
    """S_evid: share of evidence-conditioned replies not naming the correct author, a(q) ∉ M(q)
    (wrong or none) although R(q) contains it (paper §5.2, Fig. 7; reference ``--rag``: 1 − correct)."""
    return rate_table(scored, "miss", prompt_type=prompt_type, evidence=True, **kw)


def subgroup_significance(table: pd.DataFrame, *, higher_is_better: bool, test: Literal["z", "welch"] = "z",
                          alpha: float = 0.05) -> pd.DataFrame:
    """Mark each subgroup as the reference or (not) significantly different from it (reference B.5).

    Within every (dataset, model, prompt_type, evidence): the reference = the subgroup(s) with the
    best mean (max accuracy / min suppression; exact ties all count). For every other subgroup
    z = |m_ref − m| / √(se_ref² + se²); with several references the smallest z is kept.
    ``test="z"`` (faithful): not significantly different iff z ≤ 1.96. The paper calls this "a
    t-test on differences in means"; ``test="welch"`` (corrected) uses Welch's t with
    Welch–Satterthwaite df from (std, n_quotes) and p ≥ α. Reference rows are "not different";
    a NaN statistic counts as different (reference). ``asterisk_on_reference``: exactly one
    reference and every other subgroup significantly different. Adds ``is_reference, z, p_value,
    not_significantly_different_from_reference, asterisk_on_reference, diff_from_reference``
    (mean − reference mean).
    """
    if test not in ("z", "welch"):
        raise ValueError(f"test must be 'z' or 'welch', got {test!r}")
    need = [c for c in ("subgroup", "mean", "se", "std", "n_quotes") if c not in table]
    if need:
        raise ValueError(f"subgroup_significance: table lacks column(s) {need} (use rate_table(..., subgroups=True))")
    parts = []
    for _, g in table.groupby(list(KEY), sort=False):
        g = g.copy()
        best = g["mean"].max() if higher_is_better else g["mean"].min()
        ref = g["mean"].eq(best)
        g["is_reference"] = ref
        zs, ps = [], []
        for _, row in g.iterrows():
            if ref.loc[row.name]:
                zs.append(np.nan)
                ps.append(np.nan)
                continue
            cand = []
            for _, r in g[ref].iterrows():
                denom = np.sqrt(r["se"] ** 2 + row["se"] ** 2)
                z = abs(r["mean"] - row["mean"]) / denom if denom > 0 else (np.inf if r["mean"] != row["mean"] else np.nan)
                if test == "z":
                    p = 2 * st.norm.sf(z) if np.isfinite(z) else (0.0 if z == np.inf else np.nan)
                else:
                    res = st.ttest_ind_from_stats(r["mean"], r["std"], r["n_quotes"], row["mean"], row["std"],
                                                  row["n_quotes"], equal_var=False)
                    p = float(res.pvalue)
                cand.append((z, p))
            finite = [c for c in cand if not np.isnan(c[0])]
            z, p = min(finite, key=lambda c: c[0]) if finite else (np.nan, np.nan)
            zs.append(z)
            ps.append(p)
        g["z"], g["p_value"] = zs, ps
        if test == "z":
            same = g["z"].le(Z_CRIT)
        else:
            same = g["p_value"].ge(alpha)
        g["not_significantly_different_from_reference"] = ref | same.fillna(False)
        others_differ = (~g.loc[~ref, "not_significantly_different_from_reference"]).all()
        g["asterisk_on_reference"] = ref & (ref.sum() == 1) & bool(others_differ) & (len(g) > 1)
        g["diff_from_reference"] = g["mean"] - best
        parts.append(g)
    return pd.concat(parts, ignore_index=True) if parts else table.assign(is_reference=[], z=[], p_value=[])


def disparity(table: pd.DataFrame, *, higher_is_better: bool) -> pd.DataFrame:
    """Disparity per (dataset, model, prompt_type, evidence): the best and worst subgroup and the
    gap = (max − min) of the subgroup means in percentage points (reference summary "gap" lines).
    Direction only decides which end is called best."""
    rows = []
    for k, g in table.groupby(list(KEY), sort=False):
        hi, lo = g.loc[g["mean"].idxmax()], g.loc[g["mean"].idxmin()]
        best, worst = (hi, lo) if higher_is_better else (lo, hi)
        rows.append({**dict(zip(KEY, k)), "metric": g["metric"].iat[0] if "metric" in g else "",
                     "best_subgroup": best["subgroup"], "best_mean": best["mean"],
                     "worst_subgroup": worst["subgroup"], "worst_mean": worst["mean"],
                     "gap_pp": 100.0 * (hi["mean"] - lo["mean"])})
    return pd.DataFrame(rows)


def outcome_rates(scored: pd.DataFrame) -> pd.DataFrame:
    """Three-way breakdown per (dataset, model, prompt_type, evidence): correct / wrong / none
    shares of replies (reference summary "OVERALL ACCURACY BY PROMPT TYPE (THREE-WAY BREAKDOWN)")."""
    g = scored.groupby(list(KEY), sort=False)
    return g.agg(n_responses=("outcome", "size"), correct=("accuracy", "mean"), wrong=("wrong", "mean"),
                 none=("none", "mean")).reset_index()


def fame_bins(log10_hits: pd.Series, *, width: float = 0.5, low: float = 3.0, high: float = 7.0) -> pd.Series:
    """Fame bin labels of log10_hits: [low, low+width), …, with everything ≥ high in one top bin."""
    edges = [*np.arange(low, high, width), high, np.inf]
    labels = [f"{a:g}–{b:g}" for a, b in zip(edges[:-2], edges[1:-1])] + [f"≥{high:g}"]
    return pd.cut(log10_hits, bins=[-np.inf, *edges[1:]], labels=labels, right=False)


def accuracy_by_fame(scored: pd.DataFrame, *, prompt_type: str = "direct", evidence: bool = False,
                     width: float = 0.5, low: float = 3.0, high: float = 7.0) -> pd.DataFrame:
    """Mean quote-level accuracy per fame bin (paper A.1, Fig. 8): per (dataset, model) and bin,
    ``n_quotes`` and ``mean``. The bottom bin also holds fames below ``low`` (none after balancing)."""
    q = quote_level(scored)
    q = q[(q["prompt_type"] == prompt_type) & (q["evidence"] == evidence)].copy()
    q["fame_bin"] = fame_bins(q["log10_hits"], width=width, low=low, high=high)
    out = q.groupby(["dataset", "model", "fame_bin"], observed=True, sort=True)["accuracy"].agg(
        n_quotes="size", mean="mean").reset_index()
    return out
