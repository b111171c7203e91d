"""Notebook 05's intermediate tables as parquet in its stage folder, for later notebooks and for
re-analysis without re-collection: the corpus, the conditions, the request tables, the pilot's
regression rows (when the pilot ran) and the labelled main-experiment responses.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib import paths
from lib.authority.inputs import NOTEBOOK


def _lists(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` of tuples or sets as lists (what parquet stores)."""
    return df.assign(**{column: df[column].map(list)})


def write(out_dir: Path, *, paper_corpus, candidates: pd.DataFrame, conds, pilot_requests: pd.DataFrame,
          main_requests: pd.DataFrame, pilot_rows: pd.DataFrame | None, responses: pd.DataFrame) -> list[str]:
    """Write the tables to ``out_dir``; returns the parquet file names there, sorted."""
    out_dir = Path(out_dir)
    paper_corpus.papers.to_parquet(out_dir / "papers.parquet")
    _lists(paper_corpus.authors, "affiliations").to_parquet(out_dir / "authors.parquet")
    paper_corpus.queries.to_parquet(out_dir / "queries.parquet")
    candidates.to_parquet(out_dir / "candidates.parquet")
    conds.papers.to_parquet(out_dir / "condition_papers.parquet")
    _lists(conds.authors, "affiliations").to_parquet(out_dir / "condition_authors.parquet")
    for name, table in (("pilot_requests", pilot_requests), ("main_requests", main_requests)):
        _lists(table, "candidate_ids").to_parquet(out_dir / f"{name}.parquet")
    if pilot_rows is not None:
        pilot_rows.to_parquet(out_dir / "pilot_rows.parquet")
    responses.to_parquet(out_dir / "responses.parquet")
    return sorted(p.name for p in out_dir.glob("*.parquet"))


def write_stages(paper_corpus, candidates: pd.DataFrame, conds, pilot, main, responses: pd.DataFrame, *,
                 out_dir: Path | None = None) -> list[str]:
    """:func:`write` for notebook 05's stages: the pilot's (:class:`lib.authority.flip_pilot.Pilot`) requests and
    regression rows, the main experiment's (:class:`lib.authority.main_experiment.MainExperiment`) requests and
    the labelled ``responses`` of every model, into ``out_dir`` (default: the notebook's stage folder, created)."""
    out_dir = Path(out_dir) if out_dir is not None else paths.stage_dir(NOTEBOOK)
    paths.ensure(out_dir)
    return write(out_dir, paper_corpus=paper_corpus, candidates=candidates, conds=conds, pilot_requests=pilot.requests,
                 main_requests=main.requests, pilot_rows=pilot.rows, responses=responses)
