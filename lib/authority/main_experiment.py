"""The counterfactual main experiment as notebook 05 runs it (paper §4.6, Appendix E): every query's
ten candidates under the three instructions x three conditions, answered by every model.

The answers are collected from the endpoint when there is one to ask (:attr:`Inputs.collect
<lib.authority.inputs.Inputs.collect>`), else they are the release's own (Tier A): then the
models are those the release answered with, and the headline set is them without the tier
ablation. :func:`label` turns the answers into the responses table every §5 table reads.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from lib import config
from lib.authority.inputs import Inputs


@dataclass(frozen=True)
class MainExperiment:
    """The main experiment's requests and raw answers, and which models they are from."""

    requests: pd.DataFrame              # lib.authority.prompts.build_main_requests
    raw: pd.DataFrame                   # one answer per model x request (lib.authority.responses.RAW_COLUMNS)
    models: tuple[str, ...]             # the models answering (the headline set and the tier ablation)
    headline: tuple[str, ...]           # the models without the tier ablation (the paper's headline view)
    ablation: str | None                # the tier-ablation model (Table 21)
    n_queries: int | None = None        # queries per topic the requests were built with (None: all)


def requests(paper_corpus, conds, *, n_queries: int | None, seed: int, prompt_mode: str = "faithful") -> pd.DataFrame:
    """The main experiment's requests of ``n_queries`` queries per topic under ``conds``, with the paper
    cards rendered under ``prompt_mode`` (:func:`lib.authority.prompts.build_main_requests`)."""
    from lib.authority import prompts

    return prompts.build_main_requests(paper_corpus, n_queries=n_queries, seed=seed, condition_set=conds,
                                       prompt_mode=prompt_mode)


def corrected_prompts(cfg: config.Profile, main: MainExperiment, paper_corpus, conds) -> pd.DataFrame:
    """``main``'s requests again with the cards' missing values rendered as corrected (the ``card_missing_values``
    quirk of ab-quirks): same queries, conditions and order, only the prompt text may differ."""
    return requests(paper_corpus, conds, n_queries=main.n_queries, seed=cfg.seed, prompt_mode="corrected")


def collect(cfg: config.Profile, inputs: Inputs, paper_corpus, conds, *, n_queries: int,
            api_ids: Mapping[str, str]) -> MainExperiment:
    """Build the requests of ``n_queries`` queries per topic under ``conds`` and ask the main models
    (resuming in the raw store), or read the release's answers when there is no endpoint."""
    reqs = requests(paper_corpus, conds, n_queries=n_queries, seed=cfg.seed)
    print(f"main: {len(reqs)} prompts ({reqs['query_id'].nunique()} queries x 3 instructions x "
          f"3 conditions) x {len(inputs.main_models)} models")
    if not inputs.collect:
        from lib.authority import corpus, responses

        raw = responses.attach_request_ids(corpus.load_released_responses(inputs.corpus_source), reqs)
        models = tuple(sorted(raw["model"].unique()))
        return MainExperiment(reqs, raw, models, tuple(m for m in models if m != inputs.ablation), inputs.ablation,
                              n_queries)
    from lib import endpoints
    from lib.authority import runs

    with endpoints.open_endpoint(cfg, with_world=False) as endpoint:
        raw, run = runs.collect_table(reqs, inputs.by_id(inputs.main_models), endpoint,
                                      experiment=runs.EXPERIMENTS["main"], max_attempts=cfg.llm.max_attempts,
                                      api_ids=api_ids)
    print(run.line())
    return MainExperiment(reqs, raw, inputs.main_models, tuple(inputs.headline), inputs.ablation, n_queries)


def label(main: MainExperiment, paper_corpus, conds, *, parse_mode: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The labelled responses of every model and of the headline models
    (:func:`lib.authority.responses.label_responses` under ``parse_mode``)."""
    from lib.authority import responses

    every = responses.label_responses(main.raw, main.requests, paper_corpus, conds, parse_mode=parse_mode)
    return every, every[every["model"].isin(main.headline)]


def tier_ablation(main: MainExperiment, resp_all: pd.DataFrame) -> pd.DataFrame | None:
    """ab-tab21 (:func:`lib.authority.analysis.tier_ablation`); None, said so, when no tier-ablation
    model answered (the manifest reports it missing)."""
    from lib.authority import analysis

    if main.ablation not in set(resp_all["model"]):
        print(f"tier ablation skipped: no answers from a tier-ablation model ({main.ablation})")
        return None
    return analysis.tier_ablation(resp_all, headline_models=list(main.headline), ablation_model=main.ablation)
