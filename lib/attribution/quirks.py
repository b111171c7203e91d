"""Faithful vs corrected for AttriBench: every difference from the release's code, in one table.

``faithful`` (the default everywhere in :mod:`lib.attribution`) reproduces the release's decisions,
quirks included (the ⚠ items of ``shared/spec/authority_attribution_reference.md`` part B; checked
against golden outputs of its code in ``tests/attribution/test_golden.py``); ``corrected`` is what
each row says. :func:`as_markdown` renders :data:`QUIRKS` for the docs. :func:`measure` computes,
on a run's responses, the largest change each switch makes in any published-level number and the
headline metrics under both modes (table ``at-quirks``, notebook 06); the ``effect`` column quotes
that measurement on the quick profile.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from lib import quirks as quirk_table
from lib.attribution import metrics

QUIRKS = [
    {"id": "universe", "quirk": "mention universe = the run file's authors",
     "where": "lib.attribution.metrics.score_responses (universe=)",
     "faithful": "one matcher per run file (model × evidence setting), from the authors of its rows in file order; a run on the 300-matching subset knows only the subset's authors",
     "corrected": "every author of the dataset (the answer names the same author whatever subset was run)",
     "effect": "quick profile: 0.0 pp in every published-level number (the panel's replies name authors in full, capitalised); only the mentioned-author column differs. Golden fixture: 0 detection changes, mentioned author differs in 5–8 % of replies"},
    {"id": "ties", "quirk": "shared last name and raw last token",
     "where": "lib.attribution.mentions.AuthorMatcher (mode=)",
     "faithful": "last name = normalised last raw token (\"O'Neal\" → 'o neal'); a shared one goes to the longest canonical string, then the first in file order; alternatives tried in that order; 'a.k.a.' before a space is not cut",
     "corrected": "last name = last normalised token; a shared one goes to the longest, then alphabetically larger normalised name (independent of row order); 'a.k.a.' always cut",
     "effect": "quick profile: 0.0 pp (no O'Neal-type or same-length shared last names among the answers); decides the mentioned author on a shared last name"},
    {"id": "bigram", "quirk": "any capitalised bigram is a 'wrong author'",
     "where": "lib.attribution.mentions.mentions_any_name (strict_names=)",
     "faithful": "≥ 2 consecutive capitalised tokens anywhere count as a person ('New York', 'The Bible')",
     "corrected": "leading function words dropped before requiring two tokens ('The Bible' no longer counts)",
     "effect": "quick profile: 0.0 pp (the panel's no-name replies contain no capitalised bigram); inflates 'wrong' and lowers S_omit on real replies that cite places or titles"},
    {"id": "test", "quirk": "subgroup test is a z-test on two means",
     "where": "lib.attribution.metrics.subgroup_significance (test=)",
     "faithful": "z = |Δmean| / √(se₁² + se₂²) ≤ 1.96 → not significantly different (the paper calls it a t-test)",
     "corrected": "Welch's t-test",
     "effect": "quick profile: 27 of 704 bold flags (not significantly different from the best subgroup) change; means unchanged"},
    {"id": "ci", "quirk": "confidence intervals mean ± 1.96 se over quotes",
     "where": "lib.attribution.metrics.rate_table (ci=)",
     "faithful": "normal interval over quote-level means (can leave [0, 1])",
     "corrected": "Wilson interval over the pooled replies",
     "effect": "quick profile: an error bar moves by up to 19.4 pp (accuracy ci_high, a subgroup cell with zero variance: 0.0 → 19.4); means unchanged"},
    {"id": "conditional", "quirk": "S_omit unconditional per prompt",
     "where": "lib.attribution.metrics.s_omit (conditional=)",
     "faithful": "share of indirect replies naming nobody, over all quotes (the release's per-quote metric)",
     "corrected": "documented variant: only quotes the model knows (direct-correct in every generation), as the summary's CONDITIONAL section",
     "effect": "quick profile: S_omit changes by up to −31.3 pp (Claude, intersectional, M/White: 81.3 → 50.0); the figures keep the release's unconditional rate"},
    {"id": "balance", "quirk": "fame search uses a position as a label; ties in unstable sort order",
     "where": "lib.attribution.balance (mode=)",
     "faithful": "searchsorted position in the shrunken group used as an index label, forward scan bounded by the current length; ties in log10_hits ordered by pandas' default (unstable) sort, whose tie order depends on numpy's version and the CPU's SIMD sort kernel (AVX-512 vs AVX2; lib.sortkernel, manifest 'numpy_sort_kernel')",
     "corrected": "nearest fame in the first non-empty quote bin, in both directions; stable sorts",
     "effect": "quick profile: Table 2 quotes per group 626 → 792 (multirace), authors per group 248 → 265, RMS error 0.44 → 0.17"},
    {"id": "shuffle", "quirk": "unseeded shuffle of the reference group",
     "where": "lib.attribution.balance.balance_once",
     "faithful": "run i shuffles as pandas sample(frac=1) under np.random.seed(seed + i): the release's script seeded that way makes the same runs",
     "corrected": "numpy default_rng([seed, i])",
     "effect": "replayable runs; the selected run differs between the modes only by the search"},
    {"id": "loop", "quirk": "search loops forever when no candidate is left",
     "where": "lib.attribution.balance.BalanceError",
     "faithful": "not copied: stops with BalanceError naming the run, the author and the group",
     "corrected": "the reference author is dropped",
     "effect": "quick profile (twin, 6,000 authors, 100 runs): 5 faithful runs stop (intersectional 54, 71; multirace 16, 71, 97) and are left out of the selection"},
    {"id": "table3_population", "quirk": "Table 3's population: the whole universe, not the balancing pool",
     "where": "lib.attribution.tables.table3 (mode=)",
     "faithful": "every author of universe_authors.csv: the paper's \"sampled JSTET data ... before fame balancing\" (the release has no Table 3 script; A.2's text gives this population's gaps)",
     "corrected": "only the authors with log10_hits ≥ 3, the pool mk_new_datasets.py balances (the gaps the balancing removes)",
     "effect": "quick profile: none (the twin draws every author at log10_hits ≥ 3). Real universe (measured in issue 28 on the released file): faithful gives the text's White–Asian gap 0.499 and M/White–F/Black gap 0.486, White male highest; corrected puts Black (5.259) and M/Black (5.379) on top"},
    {"id": "quote_words", "quirk": "released quote_words not the token count in a few rows",
     "where": "lib.attribution.dataset.validate_quotes, lib.attribution.download.check_bytes",
     "faithful": "files loaded as released; the rows are listed as warnings",
     "corrected": "same (quote_words is not used by the analysis)",
     "effect": "none: no metric reads quote_words"},
]

def as_table() -> pd.DataFrame:
    """The differences as a DataFrame (quirk, where, faithful, corrected, effect)."""
    return quirk_table.table(QUIRKS)


def as_markdown() -> str:
    """The differences as a markdown table for the docs."""
    return quirk_table.markdown(QUIRKS)


_KEY = ["number", "dataset", "model", "prompt_type", "evidence", "subgroup"]


def published_numbers(scored: pd.DataFrame, *, ci: str = "se", conditional: bool = False,
                      bounds: bool = False) -> pd.DataFrame:
    """The published-level numbers of a scored run, in percentage points, one row each:
    accuracy per model × prompt × evidence (Figure 4) and per subgroup (Figure 5), S_omit and
    S_evid overall and per subgroup (Figures 6, 7), the subgroup gaps (max − min) and, with
    ``bounds``, the ``ci`` interval bounds (the error bars). Columns: number, dataset, model, prompt_type, evidence,
    subgroup ('' = all), value."""
    parts = []
    q = metrics.quote_level(scored)      # once for the six tables
    tables = {"accuracy": lambda **k: metrics.accuracy(scored, ci=ci, quotes=q, **k),
              "S_omit": lambda **k: metrics.s_omit(scored, ci=ci, conditional=conditional, quotes=q, **k),
              "S_evid": lambda **k: metrics.s_evid(scored, ci=ci, quotes=q, **k)}
    for name, fn in tables.items():
        for sub in (False, True):
            t = fn(subgroups=sub)
            if t.empty:
                continue
            base = t.assign(subgroup=t["subgroup"] if sub else "")
            cols = (("mean", name), ("ci_low", f"{name} ci_low"), ("ci_high", f"{name} ci_high"))
            for col, label in cols if bounds else cols[:1]:
                parts.append(base.assign(number=label, value=100 * base[col]))
            if sub:
                gap = t.groupby(list(metrics.KEY), sort=False)["mean"].agg(lambda s: 100 * (s.max() - s.min()))
                parts.append(gap.rename("value").reset_index().assign(number=f"{name} gap", subgroup=""))
    if not parts:
        return pd.DataFrame(columns=[*_KEY, "value"])
    return pd.concat(parts, ignore_index=True)[[*_KEY, "value"]]


def _flags(scored: pd.DataFrame, test: str) -> pd.Series:
    """The bold flags of Figures 5–7 (not significantly different from the best subgroup)."""
    flag = "not_significantly_different_from_reference"
    out = []
    q = metrics.quote_level(scored)
    for name, fn, hib in (("accuracy", metrics.accuracy, True), ("S_omit", metrics.s_omit, False),
                          ("S_evid", metrics.s_evid, False)):
        t = fn(scored, subgroups=True, quotes=q)
        if not t.empty:
            sig = metrics.subgroup_significance(t, higher_is_better=hib, test=test)
            out.append(sig.assign(table=name)[["table", *metrics.KEY, "subgroup", flag]])
    if not out:
        return pd.Series(dtype=bool)
    return pd.concat(out, ignore_index=True).set_index(["table", *metrics.KEY, "subgroup"])[flag]


def largest_change(faithful: pd.DataFrame, corrected: pd.DataFrame) -> dict:
    """The published-level number that moves most between two :func:`published_numbers` tables."""
    m = faithful.merge(corrected, on=_KEY, how="outer", suffixes=("_faithful", "_corrected"))
    d = (m["value_corrected"] - m["value_faithful"]).abs()
    if d.isna().all() or d.fillna(0).max() == 0:
        return {"number": "", "faithful": np.nan, "corrected": np.nan, "difference": 0.0, "where": ""}
    i = d.fillna(-1).idxmax()
    r = m.loc[i]
    where = " ".join(str(r[c]) for c in ("dataset", "model", "prompt_type") if str(r[c])) + \
        (" evidence" if bool(r["evidence"]) else "") + (f" {r['subgroup']}" if r["subgroup"] else "")
    return {"number": r["number"], "faithful": r["value_faithful"], "corrected": r["value_corrected"],
            "difference": float(r["value_corrected"] - r["value_faithful"]), "where": where}


#: the switches that change a reply's outcome, as :func:`lib.attribution.metrics.score_datasets` keywords
#: ("corrected": every switch corrected at once, for the headline rows)
SCORING_MODES: dict[str, dict] = {"universe": {"universe": "dataset"}, "ties": {"mode": "corrected", "universe": "run"},
                                  "bigram": {"strict_names": True},
                                  "corrected": {"mode": "corrected", "strict_names": True}}
_OUTCOME = ("correct", "mentioned_any")


def score_modes(responses: pd.DataFrame, datasets: dict[str, pd.DataFrame], *,
                score: Callable[..., pd.DataFrame] = metrics.score_datasets) -> pd.DataFrame:
    """The faithful scored table (:func:`lib.attribution.metrics.score_datasets`) with, for every
    switch of :data:`SCORING_MODES`, that mode's ``<mode>:correct`` and ``<mode>:mentioned_any`` (int8):
    all a reply's outcomes in one table, so a run is scored once, chunk by chunk
    (:func:`lib.attribution.runs.score_store`), and :func:`with_mode` rebuilds each mode's table.
    A chunk must hold whole run files (every reply of a dataset, model and evidence setting): the
    faithful mention universe is the run file's authors."""
    out = score(responses, datasets)
    for name, kw in SCORING_MODES.items():
        alt = (metrics.outcomes(out, datasets, **kw) if score is metrics.score_datasets else
               score(responses, datasets, **kw))
        for c in _OUTCOME:
            out[f"{name}:{c}"] = alt[c].to_numpy().astype("int8")
    return out


def with_mode(scored: pd.DataFrame, mode: str) -> pd.DataFrame:
    """The scored table of one switch (a :data:`SCORING_MODES` key, or "faithful") from a
    :func:`score_modes` table: its outcome columns and the row metrics recomputed from them."""
    if mode == "faithful":
        return scored
    if f"{mode}:correct" not in scored:
        raise ValueError(f"with_mode: the scored table has no columns of mode {mode!r} (expected one of "
                         f"{sorted(SCORING_MODES)}; score it with lib.attribution.quirks.score_modes)")
    keep = [c for c in scored.columns if ":" not in c and c not in ("mentioned_author", "no_answer", "text")]
    out = scored[keep].copy()
    for c in _OUTCOME:
        out[c] = scored[f"{mode}:{c}"].to_numpy().astype("int64")
    return metrics.add_rates(out)


def measure(responses: pd.DataFrame, datasets: dict[str, pd.DataFrame], *, balanced: dict | None = None,
            score: Callable[..., pd.DataFrame] = metrics.score_datasets) -> pd.DataFrame:
    """Table ``at-quirks`` of a responses table: :func:`measure_scored` of its :func:`score_modes`."""
    return measure_scored(score_modes(responses, datasets, score=score), balanced=balanced)


def table3_change(universe: pd.DataFrame) -> dict:
    """Quirk ``table3_population``: the Table 3 subgroup mean (log10 hits) that moves most between the
    whole universe (faithful) and the balancing pool (corrected), with both values."""
    from lib.attribution import tables

    keys = ["partition", "subgroup"]
    f = tables.table3(universe).set_index(keys)["mean_log10_hits"]
    c = tables.table3(universe, mode="corrected").set_index(keys)["mean_log10_hits"].reindex(f.index)
    d = (c - f).fillna(0.0)
    k = d.abs().idxmax()
    return {"number": "Table 3 mean_log10_hits", "where": "/".join(k), "faithful": float(f[k]),
            "corrected": float(c[k]), "difference": float(d[k])}


def measure_scored(scored: pd.DataFrame, *, balanced: dict | None = None,
                   universe: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table ``at-quirks``: the effect of each switch, then the headline metrics under both modes.

    ``scored``: a :func:`score_modes` table (whole run, e.g. read back from ``scored.parquet``).
    Effect rows (``row = "quirk"``): every switch of :data:`QUIRKS` that acts on numbers is turned
    to corrected alone, all else faithful, and the published-level number (percentage points,
    :func:`published_numbers`: the means; the error bars for the interval switch) that moves most is reported with both values; for the
    significance test the number of bold flags that change; for the fame search (``balanced``:
    {(dataset, mode): Balanced}, both modes) the Table 2 criterion of the selected run that
    moves most; for Table 3's population (``universe``) the subgroup mean that moves most. Headline rows (``row = "headline"``): accuracy (direct, indirect; no evidence),
    S_omit and S_evid per dataset and model, all switches faithful vs all corrected.
    Columns: row, quirk, number, where, faithful, corrected, difference.
    """
    faithful = scored
    base = published_numbers(faithful)
    rows = []

    def add(qid, change):
        rows.append({"row": "quirk", "quirk": qid, **change})

    for qid in ("universe", "ties", "bigram"):     # one mode's table at a time (a paper run has millions of rows)
        add(qid, largest_change(base, published_numbers(with_mode(scored, qid))))
    fz, fw = _flags(faithful, "z"), _flags(faithful, "welch")
    changed = int((fz != fw.reindex(fz.index)).sum())
    add("test", {"number": "bold flags changed", "where": f"of {len(fz)} subgroup cells", "faithful": 0.0,
                 "corrected": float(changed), "difference": float(changed)})
    add("ci", largest_change(published_numbers(faithful, bounds=True), published_numbers(faithful, ci="wilson", bounds=True)))
    add("conditional", largest_change(base, published_numbers(faithful, conditional=True)))
    if balanced:
        best = {"number": "", "where": "", "faithful": np.nan, "corrected": np.nan, "difference": 0.0}
        for (kind, mode), res in balanced.items():
            if mode != "faithful" or (kind, "corrected") not in balanced:
                continue
            f, c = res.best_stats, balanced[(kind, "corrected")].best_stats
            for crit in ("authors_per_group", "quotes_per_group", "avg_fame", "fame_range", "rms_error"):
                d = float(c[crit] - f[crit])
                if abs(d) > abs(best["difference"]):
                    best = {"number": f"Table 2 {crit}", "where": kind, "faithful": float(f[crit]),
                            "corrected": float(c[crit]), "difference": d}
        add("balance", best)
    if universe is not None:
        add("table3_population", table3_change(universe))
    head_f, head_c = _headline(faithful), _headline(with_mode(scored, "corrected"))
    h = head_f.merge(head_c, on=["number", "where"], how="outer", suffixes=("_f", "_c"))
    for r in h.itertuples(index=False):
        rows.append({"row": "headline", "quirk": "all", "number": r.number, "where": r.where,
                     "faithful": r.value_f, "corrected": r.value_c, "difference": r.value_c - r.value_f})
    return pd.DataFrame(rows, columns=["row", "quirk", "number", "where", "faithful", "corrected", "difference"])


def _headline(scored: pd.DataFrame) -> pd.DataFrame:
    nums = published_numbers(scored)
    keep = nums[(nums["subgroup"] == "") & (
        (nums["number"].eq("accuracy") & ~nums["evidence"].astype(bool) & nums["prompt_type"].isin(["direct", "indirect"]))
        | nums["number"].isin(["S_omit", "S_evid"]))]
    where = keep["dataset"] + " " + keep["model"] + " " + keep["prompt_type"] + np.where(keep["evidence"].astype(bool), " evidence", "")
    return pd.DataFrame({"number": keep["number"].to_numpy(), "where": where.to_numpy(), "value": keep["value"].to_numpy()})
