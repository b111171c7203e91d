"""Faithful vs corrected for the authority-bias paper: every difference from the reference code, in one table.

``mode="faithful"`` (the default everywhere) takes the decisions of the paper's released scripts
(``run_experiment.py``, ``run_1n_experiment.py``, ``analyse_results.py``, ``analyse_1n_results.py``,
``analyse_cross_model_agreement.py``; the ⚠ items of ``shared/spec/authority_attribution_reference.md``
Part A), checked against golden outputs of that code (``tests/authority/test_golden.py``); each
switch turns one of them into what the paper's text or standard practice says. :func:`as_table`
returns the table, :func:`as_markdown` renders it for ``docs/faithful_vs_corrected.md``;
:func:`mode_comparison` measures every switch on a run (table ``ab-quirks``): the largest change in
any number of the paper's tables, and the headline numbers with all switches faithful vs corrected.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lib import quirks as quirk_table
from lib.authority import analysis as an
from lib.authority import pilot as pl
from lib.authority.published import authority_table_long

if TYPE_CHECKING:
    from lib.authority.flip_pilot import Pilot
    from lib.authority.main_experiment import MainExperiment

#: ``key`` names the switch in :func:`mode_comparison`; ``effect`` is what the switch changes, with the
#: measurement of the quick profile (seed 20261130, notebook 05's ab-quirks; regenerated every run).
QUIRKS = [
    {"key": "table12_pairs", "quirk": "Table 12 rates over all pairs of each variant",
     "where": "lib.authority.analysis.instruction_effect_by_model(mode=), tier_ablation(mode=)",
     "faithful": "per model × variant fr = fc / ft over every parsed original/flipped pair of that variant (analyse_results.py metric 4, by_model_variant); baseline and variant rates can rest on different queries",
     "corrected": "both rates over the paired subset (all four cells parsed), the cells McNemar compares",
     "effect": "moves per-model rates and deltas where a cell parsed under one variant only; quick: 13 numbers move, largest 2.1 pp (ab-tab12 gemma2:9b delta 0.0 → −2.1 pp)"},
    {"key": "pilot_fit", "quirk": "pilot fit by unconverged gradient descent",
     "where": "lib.authority.pilot.fit_logit(method=), notebook 05 pilot_fit",
     "faithful": "batch GD from zero, step 0.01, at most 5,000 steps, stop after the step with max|grad| < 1e-6; coefficients to 6 dp",
     "corrected": "exact maximum likelihood (statsmodels Logit), which the descent approaches",
     "effect": "shrinks β toward 0 and lowers McFadden R²; the fused weights (and through them the conditions) move; quick: 46 numbers move, largest Table 20's author_score β (6 predictors) 0.144 → 0.261"},
    {"key": "dominance_averaging", "quirk": "dominance as a simple mean over subsets",
     "where": "lib.authority.pilot.dominance_analysis(averaging=)",
     "faithful": "D_j = mean of j's 2^(k-1) contributions, every subset weighted equally; reported to 6 dp",
     "corrected": "Budescu's general dominance: mean within each subset size, then over sizes (Σ D_j = full R²)",
     "effect": "reweights middle-size subsets; quick: 15 numbers move, largest 0.0129 (Table 1 venue weight 0.5024 → 0.4895)"},
    {"key": "fusion_rounding", "quirk": "weight fusion rounded at every step",
     "where": "lib.authority.pilot.fuse_weights(rounding=)",
     "faithful": "coefficient and dominance shares, their mean and the renormalised weight each rounded to 4 dp",
     "corrected": "full precision, rounded only for display",
     "effect": "at most a few 1e-4 on a weight; quick: 10 numbers move, largest 0.0001 (Table 1 venue weight)"},
    {"key": "parser", "quirk": "first integer in 1..10 is the choice",
     "where": "lib.authority.parsing.parse_choice(mode=), notebook 05 parse_mode",
     "faithful": "re.findall(r'(?:paper\\s*)?(\\d+)') on the lowercased answer, first value in 1..10 (stray numbers such as '2-3 sentences' or a reasoning trace count)",
     "corrected": "a stricter parser that skips stray numbers and reasoning traces",
     "effect": "adds spurious choices and flips; quick: 209 numbers move, largest Table 7's highest / lowest susceptibility 3.95 → 3.79; with every switch corrected the flip rate 39.6 → 37.1 % and the boost rate 21.2 → 17.0 %"},
    {"key": "kappa_degenerate", "quirk": "κ = 0 for a model pair without variation",
     "where": "lib.authority.analysis.flip_agreement(corrected=), agreement_summary(corrected=)",
     "faithful": "κ = 0 when 1 − p_e ≤ 1e-9 (both models never or always flip); each pair's κ rounded to 3 dp before the mean and range",
     "corrected": "Cohen's κ with κ = 1 for perfect agreement (lib.stats.cohens_kappa), unrounded mean",
     "effect": "pairs with a constant flip indicator, and the 3-dp rounding; quick: 6 numbers of Table 8 move, by at most 0.0005 (boosted κ max 0.292 vs 0.2925)"},
    {"key": "yates", "quirk": "Yates correction on the 2×2 flip-vs-boost χ²",
     "where": "lib.authority.analysis.flip_boost_gap(yates=), significance_summary(yates=)",
     "faithful": "scipy chi2_contingency's default continuity correction on the 2×2 table",
     "corrected": "uncorrected Pearson χ²",
     "effect": "lowers χ² slightly; quick: Table 22 flip-vs-boost χ² 95.2 (faithful) vs 96.1"},
    {"key": "marker_counts", "quirk": "marker counts once per matching pattern",
     "where": "lib.authority.analysis.marker_categories(corrected=)",
     "faithful": "two patterns carry the label 'citations', so one answer can add 2 to it",
     "corrected": "each label counted once per answer",
     "effect": "inflates the citations share of Table 23 for answers that use both citation phrasings; none on the quick profile: each marker sentence of the panel matches one pattern (tests/panel/test_calibration.py), so no answer counts twice"},
    {"key": "latency_median", "quirk": "upper median of latency, 0-s cells skipped",
     "where": "lib.authority.analysis.inference_time(mode=)",
     "faithful": "sorted(s)[len // 2] over cells with a truthy elapsed_seconds",
     "corrected": "the usual median over every timed cell",
     "effect": "half a step between the two middle latencies; quick: 6 medians move, by at most 0.00001 s"},
    {"key": "card_missing_values", "quirk": "cards print a present-but-empty venue and a missing year as they are",
     "where": "lib.authority.prompts.render_card(mode=), build_main_requests / build_pilot_requests(prompt_mode=)",
     "faithful": "paper.get(key, default): an empty venue prints 'Venue: ', a null year 'Year: None' (the layout is format_paper's byte for byte in both modes)",
     "corrected": "'Unknown' and 'N/A', the defaults the reference meant",
     "effect": "changes only prompts with an empty venue or no year; quick: 0 of 450 main prompts (the synthetic corpus has none); a change needs a re-collection to move a table"},
    {"key": "pilot_duplicate_metadata", "quirk": "pilot source card keeps its metadata",
     "where": "lib.authority.prompts.build_pilot_requests(source_keeps_metadata=, shared_content=)",
     "faithful": "the fixed card wears paper s's metadata while paper s keeps it, so it appears twice",
     "corrected": "source_keeps_metadata=False swaps the two; shared_content=True shows one content on all ten cards (the text's design)",
     "effect": "a different pilot design; not measured per run (it needs a second pilot collection)"},
]
def as_table() -> pd.DataFrame:
    """The differences as a DataFrame (quirk, where, faithful, corrected, effect)."""
    return quirk_table.table(QUIRKS)


def as_markdown() -> str:
    """The differences as a markdown table for the docs."""
    return quirk_table.markdown(QUIRKS)


_SWITCHES = ("table12_pairs", "kappa_degenerate", "yates", "marker_counts", "latency_median")


def main_tables(responses: pd.DataFrame, responses_all: pd.DataFrame, *, groups: Mapping[str, str] | None = None,
                headline: Sequence[str] = (), ablation_model: str | None = None,
                corrected: Sequence[str] = ()) -> dict[str, pd.DataFrame]:
    """The main-experiment tables (ab-tab5 … ab-tab23) as notebook 05 builds them, with the switches named in
    ``corrected`` (keys of :data:`QUIRKS`) turned to corrected and the others faithful."""
    bad = set(corrected) - set(_SWITCHES)
    if bad:
        raise ValueError(f"main_tables: unknown switch(es) {sorted(bad)}; expected some of {_SWITCHES}")
    on = set(corrected).__contains__
    t12 = "corrected" if on("table12_pairs") else "faithful"
    out = {
        "ab-tab5": an.flip_rates(responses),
        "ab-tab6": pd.concat([an.flip_direction(responses).assign(model="all"), an.flip_direction(responses, by="model")],
                             ignore_index=True),
        "ab-tab7": an.susceptibility_table(responses),
        "ab-tab8": an.agreement_summary(responses, corrected=on("kappa_degenerate")),
        "ab-tab9": an.dose_response(responses),
        "ab-tab10": an.topic_extremes(responses),
        "ab-tab11": an.instruction_effect(responses),
        "ab-tab12": an.instruction_effect_by_model(responses, "anti_authority", groups=groups, mode=t12),
        "ab-tab13": an.say_do_gap(responses),
        "ab-tab15": an.inference_time(responses_all, mode="corrected" if on("latency_median") else "faithful"),
        "ab-tab19": an.topic_rates(responses),
        "ab-tab22": an.significance_summary(responses, yates=not on("yates")),
        "ab-tab23": an.marker_categories(responses, corrected=on("marker_counts")),
    }
    if ablation_model is not None and ablation_model in set(responses_all["model"]):
        out["ab-tab21"] = an.tier_ablation(responses_all, headline_models=headline, ablation_model=ablation_model,
                                           mode=t12)
    return out


def pilot_tables(rows: pd.DataFrame, *, method: str = "gd", averaging: str = "subsets", rounding: bool = True,
                 base: pl.PilotResult | None = None, tab20: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Tables 1, 16 and 20 of the pilot under one fit method, dominance averaging and fusion rounding.

    ``base`` (a :class:`lib.authority.pilot.PilotResult` of the same rows and ``method``) is re-averaged
    and re-fused instead of refitted, and ``tab20`` taken as given; without them everything is fitted."""
    predictors = list(pl.PILOT_PREDICTORS)
    if base is None or base.fit.method != method:
        res = pl.analyse_pilot(rows, method=method, averaging=averaging)
    else:
        df = rows.dropna(subset=predictors)
        dom = pl.dominance_analysis(df[predictors].to_numpy(float), df["y"].to_numpy(float), predictors,
                                    method=method, averaging=averaging, subset_r2=base.dominance.subset_r2)
        res = pl.PilotResult(base.fit, base.vif, dom, pl.fuse_weights(base.fit.coef, dom.dominance), base.descriptives)
    if not rounding:
        res = pl.PilotResult(res.fit, res.vif, res.dominance,
                             pl.fuse_weights(res.fit.coef, res.dominance.dominance, rounding=False), res.descriptives)
    out = {"ab-tab1": res.table1(), "ab-tab16": res.table16()}
    out["ab-tab20"] = tab20 if tab20 is not None else pl.author_score_ablation(rows, method=method, averaging=averaging)
    return out


_P_COLUMNS = {"p", "p_binomial", "p_mcnemar"}     # test p-values are not compared as effects


def _long(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    parts = [authority_table_long(k, v) for k, v in tables.items() if len(v)]
    long = pd.concat(parts, ignore_index=True)
    return long[~long["column"].isin(_P_COLUMNS)].groupby(["artifact", "row", "column"], as_index=False)["regenerated"].first()


def _compare(faithful: Mapping[str, pd.DataFrame], corrected: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    f, c = _long(faithful), _long(corrected)
    m = f.merge(c, on=["artifact", "row", "column"], how="outer", suffixes=("_f", "_c"))
    m = m.rename(columns={"regenerated_f": "faithful", "regenerated_c": "corrected"})
    m["change"] = m["corrected"] - m["faithful"]
    return m


#: Counts and test statistics are on their own scales: the largest change is taken among the other numbers
#: (rates, shares, weights, coefficients, seconds) unless only counts or statistics moved.
_SCALE_COLUMNS = {"statistic", "count", "changed", "pairs", "n", "cells", "chi2_homogeneity"}


def _largest(key: str, cmp: pd.DataFrame) -> dict:
    quirk = next(q["quirk"] for q in QUIRKS if q["key"] == key)
    d = cmp.dropna(subset=["change"])
    d = d[d["change"].abs() > 1e-12]
    changed = len(d)
    if (~d["column"].isin(_SCALE_COLUMNS)).any():
        d = d[~d["column"].isin(_SCALE_COLUMNS)]
    if d.empty or not changed:
        return dict(section="quirk", key=key, quirk=quirk, artifact="", row="", column="", faithful=np.nan,
                    corrected=np.nan, change=0.0, numbers_changed=changed)
    top = d.loc[d["change"].abs().idxmax()]
    return dict(section="quirk", key=key, quirk=quirk, artifact=top["artifact"], row=top["row"], column=top["column"],
                faithful=top["faithful"], corrected=top["corrected"], change=top["change"], numbers_changed=changed)


#: The headline numbers shown under both modes (artifact, row, column of the long tables; rates as fractions).
HEADLINES = (("ab-tab5", "flipped", "rate"), ("ab-tab5", "boosted", "rate"),
             ("ab-tab6", "boosted/all", "toward_higher_pct"), ("ab-tab7", "all", "susceptibility_max_over_min"),
             ("ab-tab11", "content_first", "flip_reduction_pp"), ("ab-tab11", "anti_authority", "flip_change_pp"),
             ("ab-tab12", "group/frontier", "delta_pp"), ("ab-tab12", "group/open", "delta_pp"),
             ("ab-tab13", "content_first", "gap_pp"), ("ab-tab16", "all", "mcfadden_r2"),
             *(("ab-tab1", d, "weight") for d in ("venue", "median_h", "max_h", "citations", "affiliation")))


def _prompt_changes(prompt_tables: Sequence[tuple[pd.DataFrame, pd.DataFrame]]) -> dict:
    n = differ = 0
    for f, c in prompt_tables:
        sha = lambda t: dict(zip(t["request_id"], t["prompt_sha256"]))  # noqa: E731
        a, b = sha(f), sha(c)
        n += len(a)
        differ += sum(a[k] != b.get(k) for k in a)
    return dict(section="quirk", key="card_missing_values", quirk=next(q["quirk"] for q in QUIRKS
                                                                       if q["key"] == "card_missing_values"),
                artifact="prompts", row=f"{n} prompts", column="prompts that differ", faithful=np.nan, corrected=np.nan,
                change=float(differ), numbers_changed=differ)


def mode_comparison(responses: pd.DataFrame, responses_all: pd.DataFrame, *,
                    responses_corrected_parser: pd.DataFrame | None = None,
                    responses_all_corrected_parser: pd.DataFrame | None = None,
                    pilot_rows: pd.DataFrame | None = None, groups: Mapping[str, str] | None = None,
                    headline: Sequence[str] = (), ablation_model: str | None = None,
                    prompt_tables: Sequence[tuple[pd.DataFrame, pd.DataFrame]] = (),
                    pilot_result: pl.PilotResult | None = None, pilot_tab20: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table ``ab-quirks``: what each quirk of :data:`QUIRKS` does to the paper's numbers on this run.

    ``responses`` / ``responses_all`` are the labelled headline / all-model responses under the faithful
    parser, the ``*_corrected_parser`` ones the same answers under the corrected parser;
    ``pilot_rows`` the pilot's regression rows; ``prompt_tables`` pairs of request tables built
    with ``prompt_mode="faithful"`` and ``"corrected"``; ``pilot_result`` / ``pilot_tab20`` the run's faithful
    pilot analysis and Table 20, reused instead of refitted. Every number of every table (in the
    comparison scale of :func:`lib.authority.published.authority_table_long`: rates as fractions, pp / 100;
    p-values left out) is computed with all switches faithful, then with one switch corrected.

    Returns rows ``section="quirk"``, one per measured quirk: the number that moves most (counts and
    test statistics only when nothing else moved)
    (``artifact, row, column, faithful, corrected, change = corrected − faithful``) and how many
    numbers moved (``numbers_changed``); and rows ``section="headline"``: the headline numbers of
    :data:`HEADLINES` with every switch faithful vs every switch corrected (parser, Table 12,
    κ, Yates, markers, latency, pilot fit, dominance, rounding). The pilot's weights also define
    the conditions and hence the prompts of the main experiment; that downstream effect needs a
    re-collection and is not included.
    """
    base = dict(groups=groups, headline=headline, ablation_model=ablation_model)
    faithful = main_tables(responses, responses_all, **base)
    rows = [_largest(k, _compare(faithful, main_tables(responses, responses_all, corrected=[k], **base)))
            for k in _SWITCHES]
    all_c = main_tables(responses_corrected_parser if responses_corrected_parser is not None else responses,
                        responses_all_corrected_parser if responses_all_corrected_parser is not None else responses_all,
                        corrected=_SWITCHES, **base)
    if responses_corrected_parser is not None:
        rows.append(_largest("parser", _compare(faithful, main_tables(
            responses_corrected_parser, responses_all_corrected_parser if responses_all_corrected_parser is not None
            else responses_all, **base))))
    if pilot_rows is not None:
        base_res = pilot_result if pilot_result is not None else pl.analyse_pilot(pilot_rows)
        pf = pilot_tables(pilot_rows, base=base_res, tab20=pilot_tab20)
        faithful = {**faithful, **pf}
        rows.append(_largest("pilot_fit", _compare(pf, pilot_tables(pilot_rows, method="mle"))))
        no20 = {k: v for k, v in pf.items() if k != "ab-tab20"}   # re-averaging and rounding: Tables 1 and 16
        rows.append(_largest("dominance_averaging", _compare(no20, pilot_tables(
            pilot_rows, averaging="general", base=base_res, tab20=pf["ab-tab20"]))))
        rows.append(_largest("fusion_rounding", _compare(no20, pilot_tables(
            pilot_rows, rounding=False, base=base_res, tab20=pf["ab-tab20"]))))
        all_c = {**all_c, **pilot_tables(pilot_rows, method="mle", averaging="general", rounding=False)}
    if prompt_tables:
        rows.append(_prompt_changes(prompt_tables))
    head = _compare(faithful, all_c).set_index(["artifact", "row", "column"])
    for key in HEADLINES:
        if key in head.index:
            h = head.loc[key]
            rows.append(dict(section="headline", key="all", quirk="every switch", artifact=key[0], row=key[1],
                             column=key[2], faithful=h["faithful"], corrected=h["corrected"], change=h["change"],
                             numbers_changed=int(abs(h["change"]) > 1e-12) if pd.notna(h["change"]) else 0))
    return pd.DataFrame(rows, columns=["section", "key", "quirk", "artifact", "row", "column", "faithful", "corrected",
                                       "change", "numbers_changed"])


def run_comparison(main: MainExperiment, pilot: Pilot, labelled: tuple[pd.DataFrame, pd.DataFrame],
                   labelled_corrected: tuple[pd.DataFrame, pd.DataFrame], *, cohorts: Mapping[str, str],
                   corrected_prompts: pd.DataFrame) -> pd.DataFrame:
    """ab-quirks for notebook 05's run (:func:`mode_comparison`): ``labelled`` / ``labelled_corrected`` are
    (all models, headline models) under the run's parser and under the corrected one
    (:func:`lib.authority.main_experiment.label`); the faithful pilot analysis and Table 20 are
    ``pilot``'s (absent pilot: no pilot rows); ``corrected_prompts`` are ``main``'s requests with the
    cards corrected (:func:`lib.authority.main_experiment.corrected_prompts`); ``cohorts`` group Table 12."""
    (every, headline), (every_c, headline_c) = labelled, labelled_corrected
    return mode_comparison(headline, every, responses_corrected_parser=headline_c, responses_all_corrected_parser=every_c,
                           pilot_rows=pilot.rows, groups=cohorts, headline=list(main.headline),
                           ablation_model=main.ablation, prompt_tables=[(main.requests, corrected_prompts)],
                           pilot_result=pilot.result, pilot_tab20=pilot.tab20)
