"""Authority bias's request plans: what notebook 05 sends, built without sending it.

:func:`notebook_plans` builds the pilot's and the main experiment's requests from a profile's
notebook parameters for the dry run (``python -m lib.pipeline --dry-run``), as notebook 05 builds
them, with no endpoint, panel or network. The expected completion tokens are
:func:`lib.authority.runs.expected_completion`'s (its ``ASSUMPTION``, stated in the dry run).
"""
from __future__ import annotations

from collections.abc import Mapping

from lib.authority import flip_pilot, inputs, models, prompts, runs
from lib.llm.cost import PlannedCollection


def notebook_plans(cfg, notebook: str, params: Mapping) -> list:
    """The collections ``notebook`` (05) would make under ``cfg`` and its parameters ``params`` (pilot and
    main experiment), built as the notebook builds them, with nothing sent. The main experiment's
    conditions are built from ``authority_weights`` (the pilot's fused weights are not known before
    it runs; the prompts' length does not depend on them). [] when nothing is collected (a
    released dataset without an endpoint)."""
    choices = {k: params[k] for k in inputs.CHOICES if k in params}
    res = inputs.resolve(cfg, corpus_source=params.get("corpus_source", inputs.SYNTHETIC),
                         main_models=params.get("main_models", ()), pilot_models=params.get("pilot_models", ()),
                         **choices)
    if not res.collect:
        return []
    paper_corpus = inputs.load_corpus(cfg, res, params.get("topics", ()))
    pilot_table = flip_pilot.requests(paper_corpus, topics=params.get("pilot_topics") or (),
                                      n_queries=params.get("pilot_queries_per_topic", 10), seed=cfg.seed,
                                      design=params.get("pilot_design"))
    conds = inputs.load_conditions(cfg, res, paper_corpus, dict(params["authority_weights"]))
    main_table = prompts.build_main_requests(paper_corpus, n_queries=params.get("queries_per_topic", 10),
                                             seed=cfg.seed, condition_set=conds)
    api_ids = params.get("api_model_ids") or {}
    plans = []
    for stage, table, stage_models in (("pilot", pilot_table, res.pilot_models), ("main", main_table, res.main_models)):
        if len(table):
            reqs = runs.to_requests(table, stage_models, experiment=runs.EXPERIMENTS[stage], api_ids=api_ids)
            plans.append(PlannedCollection(notebook, stage, reqs, runs.expected_completion, runs.ASSUMPTION,
                                           cfg.llm.max_attempts, prices=models.prices()))
    return plans
