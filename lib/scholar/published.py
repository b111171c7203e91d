"""LLMScholarBench's published values next to the regenerated ones (on the core :mod:`lib.published`).

The published side is the figure value labels (2 decimals, so ±0.005 is their rounding
half-width) read through :func:`lib.scholar.aggregate.published_means`, and the temperature
calibration (chosen temperature, task-averaged factuality mean and sd, share of valid requests)
of ``lib/resources/lsb_published_temperature_calibration.csv``.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from lib import paths
from lib.published import KEYS, TOLERANCE, finish, printed_number, read_parquet
from lib.scholar import aggregate as ag

#: The panel's stated calibration tolerance for LLMScholarBench: each model's baseline validity and
#: refusal within 0.01 of its calibrated target (tests/panel/test_panel.py); it widens each regenerated
#: interval for the comparison's ``consistent`` column.
CALIBRATION = 0.01

_LSB_WHICH = ("fig2", "model", "param")
_LSB_FIG2_KINDS = set(ag.GROUP_COLUMNS)
_LSB_CALIBRATION = "lsb_published_temperature_calibration.csv"


def _lsb_artifact(group_kind: str, metric: str) -> str:
    """Which figure shows a (group kind, metric) mean: Fig. 2 for the infrastructure groups, C.7
    (nine headline metrics), C.8 (task factualities) or C.9 (other diversity/parity) per model,
    C.11 per task parameter."""
    if group_kind in _LSB_FIG2_KINDS:
        return "lsb-fig2"
    if group_kind == "param":
        return "lsb-figC11"
    if metric in ag.HEADLINE_METRICS:
        return "lsb-figC7"
    return "lsb-figC8" if metric in ag.FACTUALITY_METRICS else "lsb-figC9"


def lsb_means(aggregates: pd.DataFrame | Sequence[pd.DataFrame], *, tolerance: float = TOLERANCE,
              resources: Path | None = None) -> pd.DataFrame:
    """Regenerated baseline means vs the published figure labels (Fig. 2, C.7–C.9, C.11).

    ``aggregates``: outputs of :func:`lib.scholar.aggregate.aggregate` (one frame or several,
    e.g. notebook 03's ``infra``, ``by_model`` and ``by_param``). Wraps
    :func:`~lib.scholar.aggregate.compare_published` against
    :func:`~lib.scholar.aggregate.published_means` for 'fig2', 'model' and 'param' and adds the
    ±``tolerance`` verdict; the labels are rounded to 2 decimals, so ±0.005 is "agrees with the
    label". Rows: ``<group_kind>=<group>``; columns: the metric names of the aggregate table.
    """
    frames = [aggregates] if isinstance(aggregates, pd.DataFrame) else list(aggregates)
    cols = ["group_kind", "group", "metric_name", "mean"]
    ci = [c for c in ("ci_low", "ci_high") if all(c in f for f in frames)] if frames else []
    agg = pd.concat([f[cols + ci] for f in frames], ignore_index=True) if frames else pd.DataFrame(columns=cols)
    dup = agg.duplicated(cols[:3], keep=False)
    if dup.any():
        raise ValueError(f"lsb_means: the aggregates repeat {agg.loc[dup, cols[:3]].iloc[0].to_dict()}")
    vs = pd.concat([ag.compare_published(agg[cols], ag.published_means(w, resources=resources)) for w in _LSB_WHICH],
                   ignore_index=True)
    if len(ci) == 2:   # the aggregates' own 95 % intervals (Wilson / t, reference §2.10)
        vs = vs.merge(agg[cols[:3] + ci], on=cols[:3], how="left")
    long = pd.DataFrame({
        "artifact": [_lsb_artifact(k, m) for k, m in zip(vs["group_kind"], vs["metric_name"])],
        "row": vs["group_kind"].astype(str) + "=" + vs["group"].astype(str),
        "column": vs["metric_name"], "regenerated": vs["mean"], "published": vs["published"],
        **{c: vs[c] for c in ci if c in vs},
    })
    return finish(long, KEYS, tolerance, calibration=CALIBRATION)


def lsb_published_temperatures(*, resources: Path | None = None) -> pd.DataFrame:
    """The published temperature calibration: model, temperature (t*), fact_mean, fact_std, f_valid.

    Read from ``lsb_published_temperature_calibration.csv``; a cell like ".000 (→ score 3.8e99)"
    keeps its leading number (the note about the score is not a compared value)."""
    path = (resources or paths.RESOURCES) / _LSB_CALIBRATION
    raw = pd.read_csv(path, dtype=str)
    need = ["model", "t*", "mean", "std", "f_valid"]
    if [c for c in need if c not in raw.columns]:
        raise ValueError(f"{path}: columns {list(raw.columns)}, expected {need}")
    out = pd.DataFrame({"model": raw["model"].str.strip()})
    for src, dst in (("t*", "temperature"), ("mean", "fact_mean"), ("std", "fact_std"), ("f_valid", "f_valid")):
        out[dst] = [printed_number(v) for v in raw[src]]
    return out


def lsb_temperatures(selected: pd.DataFrame, scores: pd.DataFrame | None = None, *, tolerance: float = TOLERANCE,
                     resources: Path | None = None) -> pd.DataFrame:
    """Notebook 01's calibration vs the published one (Table A.1 temperature, Fig. A.2 values).

    - lsb-tabA1, column ``temperature``: the selected temperature per model
      (:func:`lib.scholar.calibration.select_temperatures`) vs the published t*.
    - lsb-figA2, columns ``fact_mean``, ``fact_std``, ``f_valid``: the published values are at
      t*, so with ``scores`` (:func:`~lib.scholar.calibration.temperature_scores`) the regenerated
      ones are read at the published t* (like for like); without it, at the regenerated
      selected temperature (``selected``'s columns), which mixes two temperatures where the
      selections differ.
    Rows are model keys; a model without a regenerated value (or not scored) counts as missing.
    """
    need = ["model", "temperature"] + ([] if scores is not None else ["fact_mean", "fact_std", "f_valid"])
    missing = [c for c in need if c not in selected.columns]
    if missing:
        raise ValueError(f"lsb_temperatures: the selected-temperature table lacks {missing}")
    pub = lsb_published_temperatures(resources=resources)
    sel = selected.drop_duplicates("model").set_index("model")
    if "scored" in sel:       # a model without a score selected nothing: missing, never its lowest temperature
        sel = sel.assign(temperature=sel["temperature"].where(sel["scored"].astype(bool)))
    rows = [{"artifact": "lsb-tabA1", "row": m, "column": "temperature", "published": t,
             "regenerated": sel["temperature"].get(m, np.nan)} for m, t in zip(pub["model"], pub["temperature"])]
    if scores is not None:
        gone = [c for c in ("model", "temperature", "fact_mean", "fact_std", "f_valid") if c not in scores.columns]
        if gone:
            raise ValueError(f"lsb_temperatures: the temperature-score table lacks {gone}")
        sc = scores.assign(temperature=scores["temperature"].astype(float).round(6))
        if sc.duplicated(["model", "temperature"]).any():
            raise ValueError("lsb_temperatures: the temperature-score table repeats a (model, temperature)")
        at = pub[["model", "temperature"]].assign(temperature=pub["temperature"].round(6)).merge(
            sc, on=["model", "temperature"], how="left").set_index("model")
    else:
        at = sel
    for c in ("fact_mean", "fact_std", "f_valid"):
        rows += [{"artifact": "lsb-figA2", "row": m, "column": c, "published": v,
                  "regenerated": at[c].get(m, np.nan) if c in at else np.nan} for m, v in zip(pub["model"], pub[c])]
    return finish(pd.DataFrame(rows), KEYS, tolerance)


def build(outputs: Path, *, tolerance: float = TOLERANCE) -> dict[str, pd.DataFrame]:
    """The LLMScholarBench comparisons an outputs folder allows: ``lsb_means`` from
    data/03_infrastructure_benchmark/{infrastructure,by_model,by_task_param}.parquet and
    ``lsb_temperature_calibration`` from data/01_calibration/{selected_temperatures,temperature_scores}.parquet;
    each is left out when none of its files exists."""
    data = Path(outputs) / "data"
    res: dict[str, pd.DataFrame] = {}
    aggs = [f for f in (read_parquet(data / "03_infrastructure_benchmark" / f"{n}.parquet")
                        for n in ("infrastructure", "by_model", "by_task_param")) if f is not None]
    if aggs:
        res["lsb_means"] = lsb_means(aggs, tolerance=tolerance)
    selected = read_parquet(data / "01_calibration" / "selected_temperatures.parquet")
    if selected is not None:
        scores = read_parquet(data / "01_calibration" / "temperature_scores.parquet")
        res["lsb_temperature_calibration"] = lsb_temperatures(selected, scores, tolerance=tolerance)
    return res
