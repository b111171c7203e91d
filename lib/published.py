"""Regenerated values next to the papers' published ones: one comparison table per paper (issue 8).

The one place where published numbers meet regenerated ones. Every comparison is a long table
``paper, artifact, row, column, regenerated, published, difference, within_tolerance`` where
difference = regenerated − published and within_tolerance = |difference| ≤ 0.005 (NA when the
regenerated value is missing). The published side comes from ``lib/resources`` (SOURCES.md):

- LLMScholarBench: the figure value labels (2 decimals, so ±0.005 is their rounding half-width)
  read through :func:`lib.scholar.aggregate.published_means`, and the temperature calibration
  (chosen temperature, task-averaged factuality mean and sd, share of valid requests).
- Authority bias and AttriBench: ``ab_published.csv`` / ``at_published.csv``, the numbers the
  papers print for their tables. The text of both papers carries the table captions but not the
  table bodies, so these are the numbers quoted in the captions and the prose, each with the line
  of ``shared/papers/*.txt`` it was read from and the string as printed. Percentages and
  percentage points are stored as printed (unit ``%`` / ``pp``) and compared as fractions
  (39.2 % → 0.392, −2.3 pp → −0.023), the scale of the regenerated rates; the mapping functions
  below put every regenerated table on that scale too.

On the embedded default the regenerated values are synthetic: the differences show how the
pipeline behaves on the synthetic panel, not whether the papers' findings hold.

``python -m lib.published [--outputs DIR]`` builds every comparison it can from an outputs
folder, writes them under ``DIR/comparison/`` and prints one summary line per paper.
"""
from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from lib import artifacts, paths
from lib.attribution import models as at_models
from lib.scholar import aggregate as ag

#: Default tolerance: half a unit of the second decimal (LLMScholarBench's labels are rounded to it).
TOLERANCE = 0.005
#: Key columns of every comparison.
KEYS = ("artifact", "row", "column")
COLUMNS = ["paper", "artifact", "row", "column", "regenerated", "published", "difference", "within_tolerance"]
#: Transcribed resource per paper (lib/resources).
RESOURCE_FILES = {"authority_bias": "ab_published.csv", "attribution_bias": "at_published.csv"}
RESOURCE_COLUMNS = ["artifact", "row", "column", "value", "unit", "printed", "line", "note"]
#: Units of the transcribed values and the divisor that puts them on the comparison scale.
UNITS = {"": 1.0, "%": 100.0, "pp": 100.0, "x": 1.0, "s": 1.0, "n": 1.0, "log10": 1.0}
#: Slack on the tolerance for binary floating error (0.835 − 0.83 = 0.0050000000000000044).
_EPS = 1e-12
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)")


# ---- the generic comparison -------------------------------------------------------------------

def _paper_of(artifact_id) -> str | None:
    if not isinstance(artifact_id, str):
        return None
    try:
        return artifacts.get(artifact_id).paper
    except KeyError:
        return None


def _finish(df: pd.DataFrame, keys: Sequence[str], tolerance: float, extra: Sequence[str] = ()) -> pd.DataFrame:
    """Add difference and within_tolerance to a frame holding the keys, regenerated and published."""
    out = df.copy()
    out["regenerated"] = pd.to_numeric(out["regenerated"], errors="coerce").astype(float)
    out["published"] = out["published"].astype(float)
    out["difference"] = out["regenerated"] - out["published"]
    within = (out["difference"].abs() - tolerance) <= _EPS
    out["within_tolerance"] = pd.array(within.where(out["regenerated"].notna()), dtype="boolean")
    if "artifact" not in out:
        out["artifact"] = pd.NA
    if "paper" not in out:
        out["paper"] = out["artifact"].map(_paper_of)
    lead = ["paper", "artifact", *[k for k in keys if k not in ("paper", "artifact")]]
    tail = ["regenerated", "published", "difference", "within_tolerance"]
    return out[[*lead, *tail, *[c for c in extra if c in out and c not in lead + tail]]].reset_index(drop=True)


def compare(regenerated: pd.DataFrame, published: pd.DataFrame, *, keys: Sequence[str] = KEYS,
            tolerance: float = TOLERANCE) -> pd.DataFrame:
    """Line up regenerated and published values on ``keys`` and judge each difference.

    ``regenerated``: the keys and a ``regenerated`` column; ``published``: the keys and a
    ``published`` column (optionally ``paper``, ``artifact``, ``unit``, ``note``, carried along).
    One row per published value, in ``published``'s order; regenerated rows without a published
    counterpart are not comparisons and are left out. Key values are compared as strings.

    difference = regenerated − published; within_tolerance = |difference| ≤ ``tolerance``
    (inclusive, with 1e-12 slack for floating error), NA when the regenerated value is missing.
    ``paper`` is taken from ``published`` or else from the artifact registry via ``artifact``.
    Returns paper, artifact, the keys, regenerated, published, difference, within_tolerance
    (nullable boolean), then unit/note when ``published`` has them.

    Raises ValueError when a key or value column is missing, a key repeats on either side, or a
    published value is missing.
    """
    keys = list(keys)
    for name, frame, value in (("regenerated", regenerated, "regenerated"), ("published", published, "published")):
        missing = [c for c in [*keys, value] if c not in frame.columns]
        if missing:
            raise ValueError(f"compare: the {name} table lacks column(s) {missing}; has {list(frame.columns)}")
    pub = published.copy()
    reg = regenerated[[*keys, "regenerated"]].copy()
    for frame in (pub, reg):
        for k in keys:
            frame[k] = frame[k].astype(str)
    for name, frame in (("published", pub), ("regenerated", reg)):
        dup = frame.duplicated(keys, keep=False)
        if dup.any():
            first = frame.loc[dup, keys].iloc[0].to_dict()
            raise ValueError(f"compare: the {name} table repeats the key {first} ({int(dup.sum())} rows); "
                             f"expected one value per {keys}")
    bad = pd.to_numeric(pub["published"], errors="coerce").isna()
    if bad.any():
        raise ValueError(f"compare: published value missing or not a number at {pub.loc[bad, keys].iloc[0].to_dict()}")
    pub["published"] = pd.to_numeric(pub["published"])
    out = pub.merge(reg, on=keys, how="left", validate="one_to_one")
    return _finish(out, keys, tolerance, extra=("unit", "note"))


def summary(df: pd.DataFrame, *, by: Sequence[str] = ("paper",)) -> pd.DataFrame:
    """Counts per group of a comparison: published (rows), compared (regenerated present),
    within, outside, missing, and the largest absolute difference."""
    g = df.assign(_cmp=df["regenerated"].notna(), _in=df["within_tolerance"].fillna(False).astype(bool),
                  _abs=df["difference"].abs())
    out = g.groupby(list(by), sort=False, dropna=False).agg(
        published=("published", "size"), compared=("_cmp", "sum"), within=("_in", "sum"),
        max_abs_difference=("_abs", "max")).reset_index()
    out["outside"] = out["compared"] - out["within"]
    out["missing"] = out["published"] - out["compared"]
    return out[[*by, "published", "compared", "within", "outside", "missing", "max_abs_difference"]]


def summary_line(df: pd.DataFrame, paper: str, *, tolerance: float = TOLERANCE) -> str:
    """One line: ``paper: n compared of m published values, k within ±tol, j missing``."""
    s = df[df["paper"] == paper]
    n_pub, n_cmp = len(s), int(s["regenerated"].notna().sum())
    n_in = int(s["within_tolerance"].fillna(False).astype(bool).sum())
    return (f"{paper}: {n_cmp} compared of {n_pub} published values, {n_in} within ±{tolerance:g}, "
            f"{n_pub - n_cmp} missing")


def _fmt(v) -> str:
    return "–" if pd.isna(v) else f"{v:.4g}"


def to_markdown(df: pd.DataFrame, title: str, *, tolerance: float = TOLERANCE, synthetic: bool | None = None,
                largest: int = 15) -> str:
    """A short markdown report: per-artifact counts, then the ``largest`` absolute differences."""
    lines = [f"# Regenerated vs published: {title}", ""]
    if synthetic:
        lines += [f"**{artifacts.SYNTHETIC_NOTE}**", ""]
    lines += [f"Difference = regenerated − published; within = |difference| ≤ {tolerance:g}. Percentages and "
              "percentage points are compared as fractions (39.2 % → 0.392).", "",
              "| paper | artifact | published | compared | within | outside | missing | max abs difference |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in summary(df, by=("paper", "artifact")).itertuples(index=False):
        lines.append(f"| {r.paper} | {r.artifact} | {r.published} | {r.compared} | {r.within} | {r.outside} | "
                     f"{r.missing} | {_fmt(r.max_abs_difference)} |")
    worst = df[df["difference"].notna()].assign(_abs=lambda d: d["difference"].abs())
    worst = worst.sort_values("_abs", ascending=False, kind="stable").head(largest)
    if len(worst):
        lines += ["", f"## Largest absolute differences (top {len(worst)}, each in its own unit)", "",
                  "| artifact | row | column | regenerated | published | difference |", "|---|---|---|---:|---:|---:|"]
        for r in worst.itertuples(index=False):
            lines.append(f"| {r.artifact} | {r.row} | {r.column} | {_fmt(r.regenerated)} | {_fmt(r.published)} | "
                         f"{_fmt(r.difference)} |")
    return "\n".join(lines) + "\n"


def write_comparison(df: pd.DataFrame, name: str, *, out_dir: Path | None = None, tolerance: float = TOLERANCE,
                     synthetic: bool | None = None) -> list[Path]:
    """Write ``<out_dir>/<name>.csv`` and the markdown summary ``<name>.md`` atomically.

    ``out_dir`` defaults to ``lib.paths.OUTPUTS / "comparison"``; ``synthetic`` adds the
    synthetic-data banner to the markdown. Returns the two paths.
    """
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"write_comparison({name!r}): the table lacks column(s) {missing}; expected {COLUMNS}")
    folder = Path(out_dir) if out_dir is not None else paths.OUTPUTS / "comparison"
    csv, md = folder / f"{name}.csv", folder / f"{name}.md"
    artifacts.atomic_write(csv, lambda p: df.to_csv(p, index=False))
    text = to_markdown(df, name, tolerance=tolerance, synthetic=synthetic)
    artifacts.atomic_write(md, lambda p: p.write_text(text))
    return [csv, md]


# ---- published values transcribed from the papers -----------------------------------------------

def printed_number(printed: str) -> float:
    """The number in a printed string ('39.2%', '−2.3pp', '.02', '15,000', '+0.099')."""
    m = _NUMBER.search(printed.replace("−", "-"))
    if m is None:
        raise ValueError(f"no number in the printed string {printed!r}")
    return float(m.group().replace(",", ""))


def published_values(paper: str, *, resources: Path | None = None) -> pd.DataFrame:
    """The transcribed values of ``paper`` ('authority_bias' or 'attribution_bias') on the comparison scale.

    Reads ``lib/resources/{ab,at}_published.csv`` (columns :data:`RESOURCE_COLUMNS`: artifact,
    row, column, value as printed, unit, printed string, line of the paper text, note), checks it
    (known artifact ids of this paper, known units, numeric values equal to the printed number,
    derived values explained in the note, unique keys) and returns paper, artifact, row, column,
    published (value / 100 for % and pp), unit, note.
    """
    if paper not in RESOURCE_FILES:
        raise ValueError(f"published_values: paper must be one of {list(RESOURCE_FILES)}, got {paper!r}")
    path = (resources or paths.RESOURCES) / RESOURCE_FILES[paper]
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(raw.columns) != RESOURCE_COLUMNS:
        raise ValueError(f"{path}: columns {list(raw.columns)}, expected {RESOURCE_COLUMNS}")
    for i, r in raw.iterrows():
        where = f"{path}, row {i + 2} ({r['artifact']} / {r['row']} / {r['column']})"
        if _paper_of(r["artifact"]) != paper:
            raise ValueError(f"{where}: artifact is not a registered {paper} artifact")
        if r["unit"] not in UNITS:
            raise ValueError(f"{where}: unit {r['unit']!r} not in {list(UNITS)}")
        try:
            value = float(r["value"])
        except ValueError:
            raise ValueError(f"{where}: value {r['value']!r} is not a number") from None
        if r["printed"]:
            if not np.isclose(printed_number(r["printed"]), value, rtol=0, atol=1e-12):
                raise ValueError(f"{where}: value {value} differs from the printed {r['printed']!r}")
        elif not r["note"].startswith("derived"):
            raise ValueError(f"{where}: no printed string, so the note must start with 'derived' and explain it")
    dup = raw.duplicated(list(KEYS), keep=False)
    if dup.any():
        raise ValueError(f"{path}: repeated key(s) {raw.loc[dup, list(KEYS)].values.tolist()}")
    out = raw[list(KEYS)].copy()
    out.insert(0, "paper", paper)
    out["published"] = raw["value"].astype(float) / raw["unit"].map(UNITS)
    out["unit"] = raw["unit"]
    out["note"] = [f"as printed: {p} (line {ln})" + (f"; {n}" if n else "") if p else f"{n} (line {ln})"
                   for p, ln, n in zip(raw["printed"], raw["line"], raw["note"])]
    return out



def published_rows(paper: str, artifact: str, *, resources: Path | None = None) -> dict[str, dict[str, float]]:
    """The published values of one artifact as ``{row: {column: value}}`` on the comparison scale
    (:func:`published_values`), in the file's order: for tables that print the paper's numbers
    next to their own (e.g. at-tab2's ``paper_*`` columns), so those numbers live only in the CSV."""
    pv = published_values(paper, resources=resources)
    pv = pv[pv["artifact"] == artifact]
    if pv.empty:
        raise ValueError(f"published_rows: {RESOURCE_FILES[paper]} has no rows with artifact {artifact!r}")
    out: dict[str, dict[str, float]] = {}
    for row, column, value in zip(pv["row"], pv["column"], pv["published"]):
        out.setdefault(row, {})[column] = float(value)
    return out

# ---- LLMScholarBench ----------------------------------------------------------------------------

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
    agg = pd.concat([f[cols] for f in frames], ignore_index=True) if frames else pd.DataFrame(columns=cols)
    dup = agg.duplicated(cols[:3], keep=False)
    if dup.any():
        raise ValueError(f"lsb_means: the aggregates repeat {agg.loc[dup, cols[:3]].iloc[0].to_dict()}")
    vs = pd.concat([ag.compare_published(agg, ag.published_means(w, resources=resources)) for w in _LSB_WHICH],
                   ignore_index=True)
    long = pd.DataFrame({
        "artifact": [_lsb_artifact(k, m) for k, m in zip(vs["group_kind"], vs["metric_name"])],
        "row": vs["group_kind"].astype(str) + "=" + vs["group"].astype(str),
        "column": vs["metric_name"], "regenerated": vs["mean"], "published": vs["published"],
    })
    return _finish(long, KEYS, tolerance)


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
    Rows are model keys; a model without a regenerated value counts as missing.
    """
    need = ["model", "temperature"] + ([] if scores is not None else ["fact_mean", "fact_std", "f_valid"])
    missing = [c for c in need if c not in selected.columns]
    if missing:
        raise ValueError(f"lsb_temperatures: the selected-temperature table lacks {missing}")
    pub = lsb_published_temperatures(resources=resources)
    sel = selected.drop_duplicates("model").set_index("model")
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
    return _finish(pd.DataFrame(rows), KEYS, tolerance)


# ---- authority bias: regenerated tables → long format -------------------------------------------

#: Per table: the column(s) naming a row, and the value columns with the divisor that puts them
#: on the comparison scale (100 for columns in percent or percentage points).
AB_TABLES: dict[str, tuple[tuple[str, ...], dict[str, float]]] = {
    "ab-tab1": (("dimension",), {"weight": 1}),
    "ab-tab5": (("manipulation",), {"changed": 1, "pairs": 1, "rate": 1, "ci_low": 1, "ci_high": 1}),
    "ab-tab6": (("manipulation", "model"), {"toward_higher_pct": 100, "decisive_higher_pct": 100, "p_binomial": 1}),
    "ab-tab7": (("model",), {"flip_rate": 1, "boost_rate": 1, "susceptibility": 1, "parse_rate": 1}),
    "ab-tab8": (("measure",), {"mean": 1, "min": 1, "max": 1}),
    "ab-tab9": (("tier",), {"share": 100, "original": 100, "flipped": 100, "boosted": 100}),
    "ab-tab10": (("topic",), {"flip_rate": 1, "boost_rate": 1}),
    "ab-tab11": (("instruction",), {"flip_rate": 1, "boost_rate": 1, "flip_reduction_pp": 100, "p_mcnemar": 1}),
    "ab-tab12": (("level", "name"), {"baseline_flip_rate": 1, "variant_flip_rate": 1, "delta_pp": 100, "p_mcnemar": 1}),
    "ab-tab13": (("instruction",), {"mention_rate": 1, "flip_rate": 1, "gap_pp": 100}),
    "ab-tab15": (("model",), {"mean_s": 1, "median_s": 1, "p95_s": 1}),
    "ab-tab16": (("predictor",), {"beta_std": 1, "vif": 1, "dominance_r2": 1, "fused_weight": 1}),
    "ab-tab17": (("manipulation", "scheme"), {"pct_total": 100, "pct_decisive": 100, "p_binomial": 1}),
    "ab-tab19": (("topic",), {"flip_rate": 1, "boost_rate": 1}),
    "ab-tab20": (("predictor",), {"beta_5": 1, "beta_6": 1, "vif_5": 1, "vif_6": 1, "dominance_5": 1, "dominance_6": 1}),
    "ab-tab21": (("quantity",), {"value": 1}),
    "ab-tab22": (("test",), {"statistic": 1, "p": 1}),
    "ab-tab23": (("category",), {"count": 1, "share_pct": 100}),
}
#: Table-wide values repeated on every row of a regenerated table, reported once as row "all".
_AB_TABLE_WIDE = {"ab-tab7": {"chi2_homogeneity": 1}, "ab-tab10": {"spread_pp": 100},
                  "ab-tab16": {"n": 1, "mcfadden_r2": 1},
                  "ab-tab20": {"mcfadden_r2_5": 1, "mcfadden_r2_6": 1, "delta_r2": 1}}


def _require(df: pd.DataFrame, cols, table: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{table}: the regenerated table lacks column(s) {missing}; has {list(df.columns)}")


def _melt(df: pd.DataFrame, table: str, row_cols: Sequence[str], values: Mapping[str, float]) -> pd.DataFrame:
    """Long rows (artifact, row, column, regenerated) of the ``values`` columns, each divided by its
    divisor; the row label joins ``row_cols`` with '/'."""
    _require(df, [*row_cols, *values], table)
    label = df[list(row_cols)].astype(str).agg("/".join, axis=1)
    parts = [pd.DataFrame({"artifact": table, "row": label.to_numpy(), "column": c,
                           "regenerated": pd.to_numeric(df[c], errors="coerce").to_numpy() / d})
             for c, d in values.items()]
    return pd.concat(parts, ignore_index=True)


def _row(table: str, row: str, values: Mapping[str, float]) -> pd.DataFrame:
    return pd.DataFrame({"artifact": table, "row": row, "column": list(values),
                         "regenerated": [float(v) for v in values.values()]})


def authority_table_long(table_id: str, df: pd.DataFrame) -> pd.DataFrame:
    """One regenerated authority-bias table (as passed to save_table, or its CSV) in long format.

    Columns artifact, row, column, regenerated, on the comparison scale (rates as fractions;
    ``*_pct`` and ``*_pp`` columns divided by 100). Rows as in :data:`AB_TABLES`, plus:
    ab-tab7 'all' (χ² of homogeneity; susceptibility_max_over_min = highest / lowest model
    susceptibility, the paper's "varies 2.83×"); ab-tab10 'all' spread_pp; ab-tab11
    flip_change_pp = −flip_reduction_pp (the paper prints the anti-authority effect as a change);
    ab-tab12 only the ``anti_authority`` rows when a ``variant`` column is present; ab-tab13
    mention_change_pp and flip_change_pp = −drop (as printed); ab-tab16/20 'all' with the fit-wide
    values; ab-tab21 the "(pp)" quantity divided by 100; ab-tab22 the direction statistics
    (percent) and the McNemar statistics (pp) divided by 100.
    """
    if table_id not in AB_TABLES:
        raise ValueError(f"authority_table_long: no mapping for {table_id!r}; mapped: {list(AB_TABLES)}")
    row_cols, values = AB_TABLES[table_id]
    d = df
    if table_id == "ab-tab10":     # with five topics or fewer a topic is both most and least susceptible
        d = d.drop_duplicates(subset=list(row_cols))
    if table_id == "ab-tab12" and "variant" in d.columns:
        d = d[d["variant"] == "anti_authority"]
    parts = [_melt(d, table_id, row_cols, values)]
    if table_id in _AB_TABLE_WIDE and len(d):
        wide = _AB_TABLE_WIDE[table_id]
        _require(d, wide, table_id)
        parts.append(_row(table_id, "all", {c: d[c].iloc[0] / k for c, k in wide.items()}))
    if table_id == "ab-tab7" and len(d):
        s = pd.to_numeric(d["susceptibility"], errors="coerce")
        parts.append(_row(table_id, "all", {"susceptibility_max_over_min": s.max() / s.min() if s.min() > 0 else np.nan}))
    if table_id == "ab-tab11":
        parts.append(_melt(d.assign(flip_change_pp=-d["flip_reduction_pp"]), table_id, row_cols, {"flip_change_pp": 100}))
    if table_id == "ab-tab13":
        _require(d, ["mention_drop_pp", "flip_drop_pp"], table_id)
        parts.append(_melt(d.assign(mention_change_pp=-d["mention_drop_pp"], flip_change_pp=-d["flip_drop_pp"]),
                           table_id, row_cols, {"mention_change_pp": 100, "flip_change_pp": 100}))
    long = pd.concat(parts, ignore_index=True)
    if table_id == "ab-tab21":
        pp = long["row"].str.contains("(pp)", regex=False)
        long.loc[pp, "regenerated"] = long.loc[pp, "regenerated"] / 100
    if table_id == "ab-tab22":
        _require(d, ["family"], table_id)
        family = dict(zip(d["test"].astype(str), d["family"]))
        pct = long["row"].str.startswith("direction") | long["row"].map(family).eq("McNemar")
        stat = long["column"] == "statistic"
        long.loc[pct & stat, "regenerated"] = long.loc[pct & stat, "regenerated"] / 100
    return long


def authority_long(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every mapped table of ``tables`` ({artifact id: DataFrame}) in long format; unmapped ids are skipped."""
    parts = [authority_table_long(k, v) for k, v in tables.items() if k in AB_TABLES]
    cols = ["artifact", "row", "column", "regenerated"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)


def authority_comparison(tables: Mapping[str, pd.DataFrame], *, tolerance: float = TOLERANCE,
                         resources: Path | None = None) -> pd.DataFrame:
    """Authority-bias paper: the regenerated tables vs ``ab_published.csv``. Tables not given
    leave their published values missing."""
    return compare(authority_long(tables), published_values("authority_bias", resources=resources),
                   keys=KEYS, tolerance=tolerance)


# ---- AttriBench: regenerated tables → long format ----------------------------------------------

_GAP_ROW = re.compile(r"^(?P<dataset>\w+): (?P<others>.+) vs (?P<ref>\S+)$")
#: Suppression figures: (metric of lib.attribution.metrics, prompt type, evidence).
SUPPRESSION = {"at-fig6": ("omission", "indirect", False), "at-fig7": ("miss", "indirect", True)}


def attribution_tab2_long(tab2: pd.DataFrame, *, mode: str | None = "faithful") -> pd.DataFrame:
    """at-tab2 (selected fame-balancing runs) in long format: rows = dataset; columns
    authors_per_group, quotes_per_group, avg_fame, fame_range, rms_error. With a ``mode``
    column (the companion runs both search modes) only ``mode`` rows are kept."""
    d = tab2 if mode is None or "mode" not in tab2.columns else tab2[tab2["mode"] == mode]
    return _melt(d, "at-tab2", ("dataset",), {c: 1 for c in
                                              ("authors_per_group", "quotes_per_group", "avg_fame", "fame_range", "rms_error")})


def attribution_tab5_long(tab5: pd.DataFrame) -> pd.DataFrame:
    """at-tab5 (quote–author co-occurrence per subgroup) summarised as the paper quotes it:
    row 'all subgroups' with n_quotes (smallest subgroup), n_quotes_total, and the lowest and
    highest subgroup mean and median (A.7.2: "means range from 1.569 to 1.670")."""
    _require(tab5, ["subgroup", "n_quotes", "mean", "median"], "at-tab5")
    return _row("at-tab5", "all subgroups", {
        "n_quotes": tab5["n_quotes"].min(), "n_quotes_total": tab5["n_quotes"].sum(),
        "mean_min": tab5["mean"].min(), "mean_max": tab5["mean"].max(),
        "median_min": tab5["median"].min(), "median_max": tab5["median"].max()})


def attribution_accuracy_long(accuracy: pd.DataFrame) -> pd.DataFrame:
    """Overall no-evidence accuracy per model (Fig. 4; :func:`lib.attribution.metrics.accuracy`):
    rows ``<dataset>/<display name>`` (names of paper Table 6), columns = prompt type."""
    _require(accuracy, ["dataset", "model", "prompt_type", "evidence", "mean"], "at-fig4 (accuracy table)")
    d = accuracy[~accuracy["evidence"].astype(bool)]
    if "metric" in d.columns:
        d = d[d["metric"] == "accuracy"]
    names = at_models.display_names()
    label = d["dataset"].astype(str) + "/" + d["model"].map(lambda m: names.get(m, m))
    return pd.DataFrame({"artifact": "at-fig4", "row": label.to_numpy(), "column": d["prompt_type"].to_numpy(),
                         "regenerated": d["mean"].astype(float).to_numpy()})


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
    _require(subgroups, ["dataset", "model", "prompt_type", "evidence", "subgroup", "metric", "mean"],
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


def attribution_comparison(tables: Mapping[str, pd.DataFrame] | None = None, *, accuracy: pd.DataFrame | None = None,
                           subgroups: pd.DataFrame | None = None, tab2_mode: str | None = "faithful",
                           tolerance: float = TOLERANCE, resources: Path | None = None) -> pd.DataFrame:
    """AttriBench paper: the regenerated at-tab2 / at-tab5 (``tables``), the accuracy table
    (notebook 06's ``accuracy``) and the subgroup table (``subgroup_significance.parquet``, the
    concatenated acc/omit/evid significance tables) vs ``at_published.csv``."""
    pub = published_values("attribution_bias", resources=resources)
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
    cols = ["artifact", "row", "column", "regenerated"]
    reg = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
    return compare(reg, pub, keys=KEYS, tolerance=tolerance)


# ---- from an outputs folder ------------------------------------------------------------------------

def read_tables(prefix: str, tables_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    """The saved table CSVs whose artifact id starts with ``prefix`` (e.g. 'ab-'), keyed by id."""
    folder = Path(tables_dir) if tables_dir is not None else paths.TABLES
    return {p.stem: pd.read_csv(p) for p in sorted(folder.glob(f"{prefix}*.csv"))}


def _read_parquet(path: Path) -> pd.DataFrame | None:
    return pd.read_parquet(path) if path.is_file() else None


def _synthetic(outputs: Path, ids) -> bool | None:
    """True if any saved record of these artifacts is synthetic; None without records."""
    flags = []
    for i in set(ids):
        rec = outputs / "records" / f"{i}.json"
        if rec.is_file():
            flags.append(bool(json.loads(rec.read_text()).get("synthetic")))
    return any(flags) if flags else None


def build_all(outputs: Path | None = None, *, tolerance: float = TOLERANCE) -> dict[str, pd.DataFrame]:
    """Every comparison available from an outputs folder, keyed by file name:

    - ``lsb_means``: data/03_infrastructure_benchmark/{infrastructure,by_model,by_task_param}.parquet
    - ``lsb_temperature_calibration``: data/01_calibration/{selected_temperatures,temperature_scores}.parquet
    - ``authority_bias``: tables/ab-tab*.csv
    - ``attribution_bias``: tables/at-tab{2,5}.csv, data/06_attribution_fairness/{accuracy,subgroup_significance}.parquet
    Missing inputs leave their published values missing (LLMScholarBench parts are skipped
    entirely when none of their files exists)."""
    out = Path(outputs) if outputs is not None else paths.OUTPUTS
    data, tables = out / "data", out / "tables"
    res: dict[str, pd.DataFrame] = {}
    aggs = [f for f in (_read_parquet(data / "03_infrastructure_benchmark" / f"{n}.parquet")
                        for n in ("infrastructure", "by_model", "by_task_param")) if f is not None]
    if aggs:
        res["lsb_means"] = lsb_means(aggs, tolerance=tolerance)
    selected = _read_parquet(data / "01_calibration" / "selected_temperatures.parquet")
    if selected is not None:
        scores = _read_parquet(data / "01_calibration" / "temperature_scores.parquet")
        res["lsb_temperature_calibration"] = lsb_temperatures(selected, scores, tolerance=tolerance)
    res["authority_bias"] = authority_comparison(read_tables("ab-", tables), tolerance=tolerance)
    at_dir = data / "06_attribution_fairness"
    res["attribution_bias"] = attribution_comparison(
        read_tables("at-", tables), accuracy=_read_parquet(at_dir / "accuracy.parquet"),
        subgroups=_read_parquet(at_dir / "subgroup_significance.parquet"), tolerance=tolerance)
    return res


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib.published",
                                     description="Compare regenerated values with the papers' published ones.")
    parser.add_argument("--outputs", type=Path, default=None, help="outputs folder (default: lib.paths.OUTPUTS)")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE, help="absolute tolerance (default 0.005)")
    args = parser.parse_args(argv)
    outputs = args.outputs if args.outputs is not None else paths.OUTPUTS
    if not outputs.is_dir():
        parser.error(f"--outputs {outputs}: not a folder")
    results = build_all(outputs, tolerance=args.tolerance)
    for name, df in results.items():
        write_comparison(df, name, out_dir=outputs / "comparison", tolerance=args.tolerance,
                         synthetic=_synthetic(outputs, df["artifact"]))
    combined = pd.concat(results.values(), ignore_index=True)
    for paper in artifacts.PAPERS:
        if (combined["paper"] == paper).any():
            print(summary_line(combined, paper, tolerance=args.tolerance))
    print(f"written: {outputs / 'comparison'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
