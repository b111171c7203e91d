"""Loader for real ground truth already in the companion's schema.

:func:`load_tables` reads ``authors``, ``publications``, ``authorships`` and (optionally)
``coauthorships`` as parquet or CSV files from one directory, in the schema of
``lib.groundtruth.schema`` (alt_names in CSV as a Python/JSON list literal), and validates them
(``schema.validate``): a missing column, a wrong type or a dangling id is an error naming the
table, the column and an example row. Missing coauthorships are derived from the authorships.

The LLMScholarBench release's own tables (APS/OpenAlex CSVs in ``final_dataset.tar.gz``,
reference §4) are read by :mod:`lib.groundtruth.release`, whose ``import_release`` writes the
tables this loader reads back.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd

from lib.groundtruth.schema import SchemaError, validate
from lib.groundtruth.world import World, coauthorship_edges


def _parse_list(v):
    if isinstance(v, (list, tuple, np.ndarray)):
        return [str(x) for x in v]
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return []
    try:
        out = ast.literal_eval(str(v))
    except (ValueError, SyntaxError) as err:
        raise SchemaError(f"ground truth: alternative names {v!r} are not a list literal") from err
    return [str(x) for x in out]


def _read(directory: Path, name: str, required: bool = True) -> pd.DataFrame | None:
    for ext, reader in ((".parquet", pd.read_parquet), (".csv", pd.read_csv)):
        p = directory / f"{name}{ext}"
        if p.is_file():
            return reader(p)
    if required:
        raise SchemaError(f"ground truth: table {name!r} not found in {directory} (expected {name}.parquet or {name}.csv)")
    return None


def load_tables(directory: Path) -> World:
    """Read and validate the schema tables from ``directory``; missing coauthorships are derived.

    ``meta`` is ``meta.json`` of the directory when there is one (so a saved synthetic world stays
    labelled synthetic, and an imported release keeps its DOI and file list), else
    ``{"synthetic": False}``; ``source`` is ``directory``."""
    directory = Path(directory)
    t = {name: _read(directory, name) for name in ("authors", "publications", "authorships")}
    t["coauthorships"] = _read(directory, "coauthorships", required=False)
    if "alt_names" in t["authors"].columns:
        t["authors"]["alt_names"] = t["authors"]["alt_names"].map(_parse_list)
    if t["coauthorships"] is None:
        t["coauthorships"] = coauthorship_edges(t["authorships"])
    validate(t)
    meta = {"synthetic": False}
    if (directory / "meta.json").is_file():  # written by world.save_world (release import, saved worlds)
        meta.update(json.loads((directory / "meta.json").read_text()))
        meta["imported_from"] = meta.get("source")
    meta["source"] = str(directory)
    return World(t["authors"], t["publications"], t["authorships"], t["coauthorships"], meta=meta)
