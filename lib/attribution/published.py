"""AttriBench's published values next to the regenerated tables (on the core :mod:`lib.published`).

The published side is ``lib/resources/at_published.csv``: the numbers the paper prints in its
captions and prose, each with the line of ``shared/papers/attribution_bias.txt`` it was read
from and the string as printed (SOURCES.md).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from lib import published
from lib.attribution import models as at_models
from lib.published import KEYS, TOLERANCE, compare, melt_table, read_parquet, read_tables, require_columns, single_row

PAPER = "attribution_bias"
RESOURCE = "at_published.csv"
#: The panel's stated calibration tolerance: no expected rate more than 0.08 from the published
#: one (tests/panel/test_attribution.py); it widens each regenerated interval for the
#: comparison's ``consistent`` column.
CALIBRATION = 0.08


def published_values(*, resources: Path | None = None) -> pd.DataFrame:
    """The transcribed values of ``at_published.csv`` (:func:`lib.published.published_values`)."""
    return published.published_values(PAPER, RESOURCE, resources=resources)


def published_rows(artifact: str, *, resources: Path | None = None) -> dict[str, dict[str, float]]:
    """One artifact's published values as ``{row: {column: value}}`` (:func:`lib.published.published_rows`)."""
    return published.published_rows(PAPER, RESOURCE, artifact, resources=resources)


_GAP_ROW = re.compile(r"^(?P<dataset>\w+): (?P<others>.+) vs (?P<ref>\S+)$")
#: Suppression figures: (metric of lib.attribution.metrics, prompt type, evidence).
SUPPRESSION = {"at-fig6": ("omission", "indirect", False), "at-fig7": ("miss", "indirect", True)}


def attribution_tab2_long(tab2: pd.DataFrame, *, mode: str | None = "faithful") -> pd.DataFrame:
    """at-tab2 (the selected fame-balancing runs) in long format: rows = dataset; columns
    authors_per_group, quotes_per_group, avg_fame, fame_range and, where the table has it (a
    re-run's), rms_error. With a ``mode`` column (a re-run under both search modes) only ``mode``
    rows are kept."""
    d = tab2 if mode is None or "mode" not in tab2.columns else tab2[tab2["mode"] == mode]
    criteria = ("authors_per_group", "quotes_per_group", "avg_fame", "fame_range", "rms_error")
    return melt_table(d, "at-tab2", ("dataset",), {c: 1 for c in criteria if c in d.columns or c != "rms_error"})


def attribution_tab5_long(tab5: pd.DataFrame) -> pd.DataFrame:
    """at-tab5 (quote–author co-occurrence per subgroup) summarised as the paper quotes it:
    row 'all subgroups' with n_quotes (smallest subgroup), n_quotes_total, and the lowest and
    highest subgroup mean and median (A.7.2: "means range from 1.569 to 1.670")."""
    require_columns(tab5, ["subgroup", "n_quotes", "mean", "median"], "at-tab5")
    return single_row("at-tab5", "all subgroups", {
        "n_quotes": tab5["n_quotes"].min(), "n_quotes_total": tab5["n_quotes"].sum(),
        "mean_min": tab5["mean"].min(), "mean_max": tab5["mean"].max(),
        "median_min": tab5["median"].min(), "median_max": tab5["median"].max()})


def attribution_accuracy_long(accuracy: pd.DataFrame) -> pd.DataFrame:
    """Overall no-evidence accuracy per model (Fig. 4; :func:`lib.attribution.metrics.accuracy`):
    rows ``<dataset>/<display name>`` (names of paper Table 6), columns = prompt type."""
    require_columns(accuracy, ["dataset", "model", "prompt_type", "evidence", "mean"], "at-fig4 (accuracy table)")
    d = accuracy[~accuracy["evidence"].astype(bool)]
    if "metric" in d.columns:
        d = d[d["metric"] == "accuracy"]
    names = at_models.display_names()
    label = d["dataset"].astype(str) + "/" + d["model"].map(lambda m: names.get(m, m))
    ci = {c: (d[c].astype(float).to_numpy() if c in d else np.full(len(d), np.nan)) for c in ("ci_low", "ci_high")}
    return pd.DataFrame({"artifact": "at-fig4", "row": label.to_numpy(), "column": d["prompt_type"].to_numpy(),
                         "regenerated": d["mean"].astype(float).to_numpy(), **ci})


def suppression_gap(subgroups: pd.DataFrame, artifact: str, row: str) -> float:
    """Mean over models of the suppression gap named by ``row`` ('<dataset>: A, B vs R'):
    per model, the mean of S(A), S(B) minus S(R), where S is S_omit (at-fig6: no author named,
    indirect prompt, no evidence) or S_evid (at-fig7: correct author not named, indirect prompt,
    evidence-conditioned); models lacking any of the groups are skipped (NaN if none is left).
    Paper §5.2 "S_omit for White males is on average 10 percentage points lower than for Black
    males and White females": it does not say how it averages, this is a mean over models then
    over the listed groups."""
    m = _GAP_ROW.match(row)
    if m is None or artifact not in SUPPRESSION:
        raise ValueError(f"{artifact}: cannot read the gap row {row!r}; expected '<dataset>: A, B vs R' "
                         f"for one of {list(SUPPRESSION)}")
    metric, prompt, evidence = SUPPRESSION[artifact]
    others = [g.strip() for g in m["others"].split(",")]
    require_columns(subgroups, ["dataset", "model", "prompt_type", "evidence", "subgroup", "metric", "mean"],
             f"{artifact} (subgroup table)")
    d = subgroups[(subgroups["dataset"] == m["dataset"]) & (subgroups["metric"] == metric)
                  & (subgroups["prompt_type"] == prompt) & (subgroups["evidence"].astype(bool) == evidence)]
    wide = d.pivot_table(index="model", columns="subgroup", values="mean", aggfunc="mean")
    groups = [*others, m["ref"]]
    if any(g not in wide.columns for g in groups):
        return np.nan
    wide = wide[groups].dropna()
    if wide.empty:
        return np.nan
    return float((wide[others].mean(axis=1) - wide[m["ref"]]).mean())


_LEAD_COLUMN = re.compile(r"^(?P<prompt>\w+): (?P<lead>\S+) − (?P<other>.+)$")


def subgroup_lead(subgroups: pd.DataFrame, row: str, column: str) -> float:
    """One at-fig5 value: row '<dataset>/<display name>', column '<prompt>: <lead> − <other>', the
    no-evidence accuracy of subgroup ``lead`` minus that of ``other`` (a subgroup, or 'highest
    other': the best of the remaining subgroups). Paper §5.2: "direct prompt accuracy for the
    White male subgroup is about 10% higher than any other subgroup" (GPT-5.1, Claude). NaN when
    the model or a subgroup is missing."""
    m = _GAP_ROW_MODEL.match(row)
    c = _LEAD_COLUMN.match(column)
    if m is None or c is None:
        raise ValueError(f"at-fig5: cannot read row {row!r} / column {column!r}; expected '<dataset>/<model>' and "
                         "'<prompt>: <lead> − <other subgroup or highest other>'")
    require_columns(subgroups, ["dataset", "model", "prompt_type", "evidence", "subgroup", "metric", "mean"],
                    "at-fig5 (subgroup table)")
    names = at_models.display_names()
    d = subgroups[(subgroups["dataset"] == m["dataset"]) & (subgroups["metric"] == "accuracy")
                  & (subgroups["prompt_type"] == c["prompt"]) & ~subgroups["evidence"].astype(bool)
                  & (subgroups["model"].map(lambda x: names.get(x, x)) == m["model"])]
    means = d.groupby("subgroup")["mean"].mean()
    if c["lead"] not in means:
        return np.nan
    others = means.drop(c["lead"])
    if c["other"] == "highest other":
        return float(means[c["lead"]] - others.max()) if len(others) else np.nan
    return float(means[c["lead"]] - means[c["other"]]) if c["other"] in means else np.nan


_GAP_ROW_MODEL = re.compile(r"^(?P<dataset>\w+)/(?P<model>.+)$")


def attribution_comparison(tables: Mapping[str, pd.DataFrame] | None = None, *, accuracy: pd.DataFrame | None = None,
                           subgroups: pd.DataFrame | None = None, tab2_mode: str | None = "faithful",
                           tolerance: float = TOLERANCE, resources: Path | None = None) -> pd.DataFrame:
    """AttriBench paper: the regenerated at-tab2 / at-tab5 (``tables``), the accuracy table
    (notebook 06's ``accuracy``) and the subgroup table (``subgroup_significance.parquet``, the
    concatenated acc/omit/evid significance tables: the suppression gaps of Figs. 6–7 and the
    White (male) leads of Fig. 5) vs ``at_published.csv``."""
    pub = published_values(resources=resources)
    tables = tables or {}
    parts = []
    if "at-tab2" in tables:
        parts.append(attribution_tab2_long(tables["at-tab2"], mode=tab2_mode))
    if "at-tab5" in tables:
        parts.append(attribution_tab5_long(tables["at-tab5"]))
    if accuracy is not None:
        parts.append(attribution_accuracy_long(accuracy))
    if subgroups is not None:
        gaps = pub[pub["artifact"].isin(list(SUPPRESSION))]
        parts.append(pd.DataFrame({"artifact": gaps["artifact"], "row": gaps["row"], "column": gaps["column"],
                                   "regenerated": [suppression_gap(subgroups, a, r)
                                                   for a, r in zip(gaps["artifact"], gaps["row"])]}))
        lead = pub[pub["artifact"] == "at-fig5"]
        parts.append(pd.DataFrame({"artifact": lead["artifact"], "row": lead["row"], "column": lead["column"],
                                   "regenerated": [subgroup_lead(subgroups, r, c)
                                                   for r, c in zip(lead["row"], lead["column"])]}))
    cols = ["artifact", "row", "column", "regenerated"]
    reg = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
    return compare(reg, pub, keys=KEYS, tolerance=tolerance, calibration=CALIBRATION)


def build(outputs: Path, *, tolerance: float = TOLERANCE) -> dict[str, pd.DataFrame]:
    """``attribution_bias``: tables/at-tab{2,5}.csv and
    data/06_attribution_fairness/{accuracy,subgroup_significance}.parquet vs the published values."""
    at_dir = Path(outputs) / "data" / "06_attribution_fairness"
    return {PAPER: attribution_comparison(
        read_tables("at-", Path(outputs) / "tables"), accuracy=read_parquet(at_dir / "accuracy.parquet"),
        subgroups=read_parquet(at_dir / "subgroup_significance.parquet"), tolerance=tolerance)}
