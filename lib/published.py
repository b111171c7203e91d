"""Regenerated values next to the papers' published ones: the paper-agnostic core (issue 8).

The one place where published numbers meet regenerated ones. Every comparison is a long table
``paper, artifact, row, column, regenerated, published, difference, within_tolerance, ci_low,
ci_high, consistent`` where difference = regenerated − published, within_tolerance =
|difference| ≤ 0.005 (NA when the regenerated value is missing), ci_low/ci_high the regenerated
value's 95 % interval (from the table's own interval columns, or a Wilson interval from its
count column) and consistent = the published value lies inside that interval widened by the
panel's stated calibration tolerance (each paper's ``CALIBRATION``): sampling error, not the
raw difference, judges a regenerated value. p-value rows are read as p-values: consistent when
both sides make the same decision at α = 0.05. NA where no interval is known. Each paper's published values and the mapping of its regenerated
tables onto this shape live in ``lib/<paper>/published.py`` (found through
:meth:`lib.declare.Paper.published`); transcribed values come from ``lib/resources`` (SOURCES.md), read
by :func:`published_values`: percentages and percentage points are stored as printed (unit ``%``
/ ``pp``) and compared as fractions (39.2 % → 0.392, −2.3 pp → −0.023), the scale of the
regenerated rates.

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

#: Default tolerance: half a unit of the second decimal (LLMScholarBench's labels are rounded to it).
TOLERANCE = 0.005
#: Key columns of every comparison.
KEYS = ("artifact", "row", "column")
COLUMNS = ["paper", "artifact", "row", "column", "regenerated", "published", "difference", "within_tolerance",
           "ci_low", "ci_high", "consistent"]
#: Value columns that hold p-values (judged by their decision at ALPHA, not as rates).
P_VALUE = re.compile(r"^p(?:$|_)|(?:^|_)p_value$")
ALPHA = 0.05
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


def consistent(df: pd.DataFrame, calibration: float = 0.0, alpha: float = ALPHA) -> pd.Series:
    """Per row: is the published value consistent with the regenerated one? p-value columns
    (:data:`P_VALUE`): both below ``alpha`` or both not. Others: published within
    [ci_low − calibration, ci_high + calibration] (1e-12 slack). NA without a regenerated value
    or (non-p rows) without an interval."""
    pv = df["column"].astype(str).str.contains(P_VALUE)
    reg, pub = df["regenerated"], df["published"]
    lo, hi = df["ci_low"], df["ci_high"]
    inside = (pub >= lo - calibration - _EPS) & (pub <= hi + calibration + _EPS)
    same = (reg < alpha) == (pub < alpha)
    out = inside.where(lo.notna() & hi.notna()).where(~pv, same.where(reg.notna()))
    return pd.array(out.where(reg.notna()), dtype="boolean")


def finish(df: pd.DataFrame, keys: Sequence[str], tolerance: float, extra: Sequence[str] = (),
           calibration: float = 0.0) -> pd.DataFrame:
    """Add difference, within_tolerance, the interval columns (NA when ``df`` has none) and
    consistent (:func:`consistent` with ``calibration``) to a frame holding the keys,
    regenerated and published."""
    out = df.copy()
    out["regenerated"] = pd.to_numeric(out["regenerated"], errors="coerce").astype(float)
    out["published"] = out["published"].astype(float)
    out["difference"] = out["regenerated"] - out["published"]
    within = (out["difference"].abs() - tolerance) <= _EPS
    out["within_tolerance"] = pd.array(within.where(out["regenerated"].notna()), dtype="boolean")
    for c in ("ci_low", "ci_high"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype(float) if c in out else np.nan
    if "column" not in out:
        out["column"] = ""
    out["consistent"] = consistent(out, calibration)
    if "artifact" not in out:
        out["artifact"] = pd.NA
    if "paper" not in out:
        out["paper"] = out["artifact"].map(_paper_of)
    lead = ["paper", "artifact", *[k for k in keys if k not in ("paper", "artifact")]]
    tail = ["regenerated", "published", "difference", "within_tolerance", "ci_low", "ci_high", "consistent"]
    return out[[*lead, *tail, *[c for c in extra if c in out and c not in lead + tail]]].reset_index(drop=True)


def compare(regenerated: pd.DataFrame, published: pd.DataFrame, *, keys: Sequence[str] = KEYS,
            tolerance: float = TOLERANCE, calibration: float = 0.0) -> pd.DataFrame:
    """Line up regenerated and published values on ``keys`` and judge each difference.

    ``regenerated``: the keys and a ``regenerated`` column; ``published``: the keys and a
    ``published`` column (optionally ``paper``, ``artifact``, ``unit``, ``note``, carried along).
    One row per published value, in ``published``'s order; regenerated rows without a published
    counterpart are not comparisons and are left out. Key values are compared as strings.

    difference = regenerated − published; within_tolerance = |difference| ≤ ``tolerance``
    (inclusive, with 1e-12 slack for floating error), NA when the regenerated value is missing.
    ``paper`` is taken from ``published`` or else from the artifact registry via ``artifact``.
    ``regenerated`` may carry ci_low/ci_high (its 95 % interval); ``calibration`` widens it for
    the consistent column (:func:`consistent`).
    Returns paper, artifact, the keys, regenerated, published, difference, within_tolerance
    (nullable boolean), ci_low, ci_high, consistent, then unit/note when ``published`` has them.

    Raises ValueError when a key or value column is missing, a key repeats on either side, or a
    published value is missing.
    """
    keys = list(keys)
    for name, frame, value in (("regenerated", regenerated, "regenerated"), ("published", published, "published")):
        missing = [c for c in [*keys, value] if c not in frame.columns]
        if missing:
            raise ValueError(f"compare: the {name} table lacks column(s) {missing}; has {list(frame.columns)}")
    pub = published.copy()
    reg = regenerated[[*keys, "regenerated", *[c for c in ("ci_low", "ci_high") if c in regenerated]]].copy()
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
    return finish(out, keys, tolerance, extra=("unit", "note"), calibration=calibration)


def summary(df: pd.DataFrame, *, by: Sequence[str] = ("paper",)) -> pd.DataFrame:
    """Counts per group of a comparison: published (rows), compared (regenerated present),
    within, outside, missing, and the largest absolute difference."""
    cons = df["consistent"] if "consistent" in df else pd.Series(pd.NA, index=df.index, dtype="boolean")
    g = df.assign(_cmp=df["regenerated"].notna(), _in=df["within_tolerance"].fillna(False).astype(bool),
                  _abs=df["difference"].abs(), _con=cons.fillna(False).astype(bool),
                  _incon=(~cons.fillna(True)).astype(bool), _none=df["regenerated"].notna() & cons.isna())
    out = g.groupby(list(by), sort=False, dropna=False).agg(
        published=("published", "size"), compared=("_cmp", "sum"), within=("_in", "sum"),
        consistent=("_con", "sum"), inconsistent=("_incon", "sum"), no_interval=("_none", "sum"),
        max_abs_difference=("_abs", "max")).reset_index()
    out["outside"] = out["compared"] - out["within"]
    out["missing"] = out["published"] - out["compared"]
    return out[[*by, "published", "compared", "within", "outside", "missing", "consistent", "inconsistent",
                "no_interval", "max_abs_difference"]]


def summary_line(df: pd.DataFrame, paper: str, *, tolerance: float = TOLERANCE) -> str:
    """One line: ``paper: n compared of m published values, k within ±tol, j missing``."""
    s = df[df["paper"] == paper]
    n_pub, n_cmp = len(s), int(s["regenerated"].notna().sum())
    n_in = int(s["within_tolerance"].fillna(False).astype(bool).sum())
    cons = s["consistent"] if "consistent" in s else pd.Series(pd.NA, index=s.index, dtype="boolean")
    n_con, n_int = int(cons.fillna(False).astype(bool).sum()), int(cons.notna().sum())
    return (f"{paper}: {n_cmp} compared of {n_pub} published values, {n_in} within ±{tolerance:g}, "
            f"{n_con} of {n_int} with an interval consistent, {n_pub - n_cmp} missing")


def _fmt(v) -> str:
    return "–" if pd.isna(v) else f"{v:.4g}"


def to_markdown(df: pd.DataFrame, title: str, *, tolerance: float = TOLERANCE, synthetic: bool | str | None = None,
                largest: int = 15) -> str:
    """A short markdown report: per-artifact counts, then the ``largest`` absolute differences."""
    lines = [f"# Regenerated vs published: {title}", ""]
    if synthetic:                                        # True or 'mixed' (artifacts.data_label)
        lines += [f"**{artifacts.NOTES[artifacts.data_label(synthetic)][0]}**", ""]
    lines += [f"Difference = regenerated − published; within = |difference| ≤ {tolerance:g}. Percentages and "
              "percentage points are compared as fractions (39.2 % → 0.392). *Consistent*: the published value lies "
              "inside the regenerated value's 95 % interval widened by the panel's calibration tolerance (p-values: "
              "the same decision at α = 0.05); *no interval*: rows whose table gives no interval.", "",
              "| paper | artifact | published | compared | within | outside | missing | consistent | inconsistent | "
              "no interval | max abs difference |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary(df, by=("paper", "artifact")).itertuples(index=False):
        lines.append(f"| {r.paper} | {r.artifact} | {r.published} | {r.compared} | {r.within} | {r.outside} | "
                     f"{r.missing} | {r.consistent} | {r.inconsistent} | {r.no_interval} | "
                     f"{_fmt(r.max_abs_difference)} |")
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


# ---- regenerated tables → long format ------------------------------------------------------------

def require_columns(df: pd.DataFrame, cols, table: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{table}: the regenerated table lacks column(s) {missing}; has {list(df.columns)}")


def _interval_columns(df: pd.DataFrame, c: str) -> tuple[str, str] | str | None:
    """The columns holding value column ``c``'s 95 % interval (``c_ci_low``/``c_ci_high``;
    ``flip_rate`` → ``flip_ci_low``; ``rate``/``mean`` → ``ci_low``), else the count column a
    Wilson interval of a rate can be built from (``flip_rate`` → ``flip_pairs``; ``pairs``, ``n``,
    ``n_quotes``), else None."""
    stem = c[:-5] if c.endswith("_rate") else c
    for lo, hi in ((f"{c}_ci_low", f"{c}_ci_high"), (f"{stem}_ci_low", f"{stem}_ci_high")):
        if lo in df and hi in df:
            return lo, hi
    if c in ("rate", "mean") and {"ci_low", "ci_high"} <= set(df.columns):
        return "ci_low", "ci_high"
    if c.endswith("_rate") or c == "rate":
        for n in (f"{stem}_pairs", "pairs", "n", "n_quotes"):
            if n in df:
                return n
    return None


def _wilson(rate: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from lib import stats

    pairs = [stats.wilson_ci(float(r) * float(k), int(k)) if np.isfinite(r) and np.isfinite(k) and k > 0
             and 0 <= r <= 1 else (np.nan, np.nan) for r, k in zip(rate, n)]
    return np.array([p[0] for p in pairs], dtype=float), np.array([p[1] for p in pairs], dtype=float)


def melt_table(df: pd.DataFrame, table: str, row_cols: Sequence[str], values: Mapping[str, float]) -> pd.DataFrame:
    """Long rows (artifact, row, column, regenerated, ci_low, ci_high) of the ``values`` columns,
    each divided by its divisor; the row label joins ``row_cols`` with '/'. The interval is the
    table's own (:func:`_interval_columns`) or a Wilson interval from its count column; NaN when
    the table has neither."""
    require_columns(df, [*row_cols, *values], table)
    label = df[list(row_cols)].astype(str).agg("/".join, axis=1)
    parts = []
    for c, d in values.items():
        v = pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float)
        lo = hi = np.full(len(df), np.nan)
        found = _interval_columns(df, c)
        if isinstance(found, tuple):
            lo, hi = (pd.to_numeric(df[k], errors="coerce").to_numpy(dtype=float) for k in found)
        elif isinstance(found, str):
            lo, hi = _wilson(v / d, pd.to_numeric(df[found], errors="coerce").to_numpy(dtype=float))
            lo, hi = lo * d, hi * d
        parts.append(pd.DataFrame({"artifact": table, "row": label.to_numpy(), "column": c, "regenerated": v / d,
                                   "ci_low": lo / d, "ci_high": hi / d}))
    return pd.concat(parts, ignore_index=True)


def single_row(table: str, row: str, values: Mapping[str, float]) -> pd.DataFrame:
    """One long row per value, without an interval (table-wide values: χ², spreads, ratios)."""
    return pd.DataFrame({"artifact": table, "row": row, "column": list(values),
                         "regenerated": [float(v) for v in values.values()], "ci_low": np.nan, "ci_high": np.nan})



# ---- published values transcribed from the papers -----------------------------------------------

def printed_number(printed: str) -> float:
    """The number in a printed string ('39.2%', '−2.3pp', '.02', '15,000', '+0.099')."""
    m = _NUMBER.search(printed.replace("−", "-"))
    if m is None:
        raise ValueError(f"no number in the printed string {printed!r}")
    return float(m.group().replace(",", ""))


def published_values(paper: str, file: str, *, resources: Path | None = None) -> pd.DataFrame:
    """The transcribed values of ``paper`` in ``lib/resources/<file>`` on the comparison scale.

    Reads the file (e.g. ``ab_published.csv``; columns :data:`RESOURCE_COLUMNS`: artifact,
    row, column, value as printed, unit, printed string, line of the paper text, note), checks it
    (known artifact ids of this paper, known units, numeric values equal to the printed number,
    derived values explained in the note, unique keys) and returns paper, artifact, row, column,
    published (value / 100 for % and pp), unit, note.
    """
    if paper not in artifacts.PAPERS:
        raise ValueError(f"published_values: paper must be one of {list(artifacts.PAPERS)}, got {paper!r}")
    path = (resources or paths.RESOURCES) / file
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



def published_rows(paper: str, file: str, artifact: str, *, resources: Path | None = None) -> dict[str, dict[str, float]]:
    """The published values of one artifact as ``{row: {column: value}}`` on the comparison scale
    (:func:`published_values`), in the file's order: for tables that print the paper's numbers
    next to their own (e.g. at-tab2's ``paper_*`` columns), so those numbers live only in the CSV."""
    pv = published_values(paper, file, resources=resources)
    pv = pv[pv["artifact"] == artifact]
    if pv.empty:
        raise ValueError(f"published_rows: {file} has no rows with artifact {artifact!r}")
    out: dict[str, dict[str, float]] = {}
    for row, column, value in zip(pv["row"], pv["column"], pv["published"]):
        out.setdefault(row, {})[column] = float(value)
    return out

# ---- from an outputs folder ------------------------------------------------------------------------

def read_tables(prefix: str, tables_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    """The saved table CSVs whose artifact id starts with ``prefix`` (e.g. 'ab-'), keyed by id."""
    folder = Path(tables_dir) if tables_dir is not None else paths.TABLES
    return {p.stem: pd.read_csv(p) for p in sorted(folder.glob(f"{prefix}*.csv"))}


def read_parquet(path: Path) -> pd.DataFrame | None:
    """The parquet file at ``path``, or None when it does not exist (an input not regenerated)."""
    return pd.read_parquet(path) if path.is_file() else None


def _synthetic(outputs: Path, ids) -> bool | str | None:
    """'mixed' if any saved record of these artifacts is labelled mixed, else True if any is
    synthetic, else False; None without records."""
    recs = [json.loads(p.read_text()) for i in set(ids) if (p := outputs / "records" / f"{i}.json").is_file()]
    if not recs:
        return None
    return "mixed" if any(r.get("label") == "mixed" for r in recs) else any(bool(r.get("synthetic")) for r in recs)


def build_all(outputs: Path | None = None, *, tolerance: float = TOLERANCE) -> dict[str, pd.DataFrame]:
    """Every comparison available from an outputs folder, keyed by file name: each paper's
    ``build(outputs, tolerance=...)`` of :meth:`lib.declare.Paper.published` (its ``published``
    module says which files it reads). Missing inputs leave their published values missing."""
    from lib import registry  # the declarations name the paper packages, which import this core

    out = Path(outputs) if outputs is not None else paths.OUTPUTS
    res: dict[str, pd.DataFrame] = {}
    for decl in registry.papers().values():
        res.update(decl.published(out, tolerance=tolerance))
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
