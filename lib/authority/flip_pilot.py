"""The 1:N flip pilot as notebook 05 runs it (paper §4.3, Appendices A.7, D): its prompts, its
answers and the regression behind Tables 16, 1 and 20.

The answers are collected from the endpoint when there is one to ask (:attr:`Inputs.collect
<lib.authority.inputs.Inputs.collect>`), else read from a release's ``results/1n_pilot/`` files. A
pilot with neither (a release without pilot files and no endpoint; no pilot topic in the corpus)
is *absent*: ``rows`` is None and every table below is None, so the manifest reports ab-tab1,
ab-tab16 and ab-tab20 missing, the conditions use ``authority_weights`` and the pilot claims are
"not applicable", never made up.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from lib import config
from lib.authority import pilot as pl
from lib.authority.inputs import Inputs


@dataclass(frozen=True)
class Pilot:
    """One run's pilot; ``result`` is None until :func:`analyse`."""

    requests: pd.DataFrame              # the prompts (lib.authority.prompts.build_pilot_requests)
    rows: pd.DataFrame | None           # the regression rows (lib.authority.pilot.pilot_rows); None: absent
    result: pl.PilotResult | None = None
    method: str = "gd"                  # the fit of the analysis (pilot_fit)
    averaging: str = "subsets"          # its dominance averaging (pilot_averaging)
    tab20: pd.DataFrame | None = None   # Table 20, the six-predictor refit under the same fit (set by analyse)


def requests(paper_corpus, *, topics: Sequence[str], n_queries: int, seed: int | None, design: str) -> pd.DataFrame:
    """The pilot prompts: 10 x 10 per query of ``topics`` ([]: the paper's five) present in the corpus;
    ``design = "shared_content"`` shows the fixed paper's content on every card (the paper's text)."""
    from lib.authority import prompts

    present = [t for t in (topics or prompts.PILOT_TOPICS) if t in paper_corpus.topics]
    return prompts.build_pilot_requests(paper_corpus, topics=present, n_queries=n_queries, seed=seed,
                                        shared_content=design == "shared_content")


def collect(cfg: config.Profile, inputs: Inputs, paper_corpus, *, topics: Sequence[str], n_queries: int,
            api_ids: Mapping[str, str], design: str | None = None, parse_mode: str | None = None) -> Pilot:
    """Ask the pilot models the pilot prompts (resuming in the raw store) and parse the answers into
    regression rows; without an endpoint or prompts, the release's pilot runs (None on the synthetic corpus).
    ``design`` and ``parse_mode`` default to ``inputs.switches``' pilot_design and parse_mode."""
    from lib.authority import corpus, runs

    design = design if design is not None else inputs.switches.pilot_design
    parse_mode = parse_mode if parse_mode is not None else inputs.switches.parse_mode
    reqs = requests(paper_corpus, topics=topics, n_queries=n_queries, seed=cfg.seed, design=design)
    if not (inputs.collect and len(reqs)):
        rows = None if inputs.synthetic else corpus.load_released_pilot(inputs.corpus_source)
        print("pilot skipped: the release has no results/1n_pilot/ files and no live endpoint is configured"
              if rows is None else f"pilot: {len(rows)} parsed runs of {rows['model'].nunique()} models read from the "
                                   f"release; fixed paper kept in {rows['y'].mean():.1%} (chance 10%)")
        return Pilot(reqs, rows)
    from lib import endpoints

    with endpoints.open_endpoint(cfg, with_world=False) as endpoint:
        raw, run = runs.collect_table(reqs, inputs.by_id(inputs.pilot_models), endpoint,
                                      experiment=runs.EXPERIMENTS["pilot"], max_attempts=cfg.llm.max_attempts,
                                      api_ids=api_ids)
    print(run.line())
    rows = pl.pilot_rows(reqs, runs.parse_answers(raw, parse_mode=parse_mode))
    print(f"pilot: {len(reqs)} prompts x {len(inputs.pilot_models)} models, {len(raw)} answers, "
          f"{len(rows)} parsed runs; fixed paper kept in {rows['y'].mean():.1%} (chance 10%)")
    return Pilot(reqs, rows)


def analyse(p: Pilot, *, method: str, averaging: str) -> Pilot:
    """The regression of Table 16 (:func:`lib.authority.pilot.analyse_pilot`; prints its descriptives) and
    of Table 20 (:func:`lib.authority.pilot.author_score_ablation`), both under ``method`` and ``averaging``.
    An absent pilot stays absent."""
    if p.rows is None:
        return p
    result = pl.analyse_pilot(p.rows, method=method, averaging=averaging)
    print(result.descriptives)
    return replace(p, result=result, method=method, averaging=averaging,
                   tab20=pl.author_score_ablation(p.rows, method=method, averaging=averaging))


def table16(p: Pilot) -> pd.DataFrame | None:
    """ab-tab16, the regression diagnostics (None when absent)."""
    return p.result.table16() if p.result is not None else None


def rank_stability(p: Pilot) -> pd.DataFrame | None:
    """Each pilot model's rank order of |β| (:func:`lib.authority.pilot.weight_rank_stability`; None when absent)."""
    return pl.weight_rank_stability(p.rows, method=p.method) if p.result is not None else None


def table1(p: Pilot) -> pd.DataFrame | None:
    """ab-tab1, the fused authority weights (None when absent)."""
    return p.result.table1() if p.result is not None else None


def table20(p: Pilot) -> pd.DataFrame | None:
    """ab-tab20, the six-predictor author-identity ablation (same fit as Table 16; None when absent)."""
    return p.tab20 if p.result is not None else None


def weights(p: Pilot, weights_source: str, given: Mapping[str, float]) -> dict[str, float]:
    """The composite's weights w_d (Eq. 1) the conditions are built with: the pilot's fused weights
    (``weights_source = "pilot"``, the reference's step 8) when the pilot ran, else ``given``."""
    return dict(p.result.weights) if weights_source == "pilot" and p.result is not None else dict(given)
