"""LLMScholarBench's request plans: what notebooks 01 and 02 send, built without sending it.

The notebooks call :func:`calibration_requests` (01, the temperature sweep of App. A.3) and
:func:`collection_requests` (02, the longitudinal collection of §3.2 / App. A.1);
:func:`notebook_plans` builds the same requests from a profile's notebook parameters for the
dry run (``python -m lib.pipeline --dry-run``), with no endpoint, panel or network.

Expected completion tokens (:func:`expected_completion`, an assumption, stated in the dry run):
a JSON array of ``{"Name": "..."}`` objects at about 8 tokens per name plus 20 of framing, for
100 names (top_100 and the constrained prompts), 5 (top_5) or 25 (the open-ended epoch, field,
twins and seniority lists). Reasoning models also bill their reasoning tokens as output, which
this does not count: the max-attempts bound is the safer figure for them.
"""
from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

from lib.llm.client import Request
from lib.llm.cost import PlannedCollection
from lib.scholar import prompts

TOKENS_PER_NAME, FRAMING_TOKENS = 8, 20
ASSUMPTION = ("JSON list of names, ~8 tokens per name + 20: 100 names (top_100, constrained), 5 (top_5), "
              "25 (epoch, field, twins, seniority); reasoning tokens not counted")


def expected_completion(request) -> int:
    """Assumed completion tokens of one LLMScholarBench attempt (module docstring)."""
    n = 100 if "100" in request.param else 5 if request.param == "top_5" else 25
    return TOKENS_PER_NAME * n + FRAMING_TOKENS


def task_params(families: Sequence[str], params_per_family: int) -> list[str]:
    """The first ``params_per_family`` task parameters of each family, in the release's order (0 = all)."""
    return [tp.param for fam in families for tp in prompts.task_params([fam])[:params_per_family or None]]


def build_requests(models, *, experiment: str, families: Sequence[str] | None = None,
                   params: Sequence[str] | None = None, replicates: int = 1, temperatures="calibrated",
                   seed: int | None = None, max_tokens: int | None = None, model_id: str = "api_model") -> list[Request]:
    """The request plan: every model x task parameter x temperature x replicate.

    ``models`` is (a subset of) :func:`lib.scholar.models.load_models`; ``temperatures`` is
    'calibrated' (each model's own, paper App. A.3) or a list (the calibration grid). Gemini
    rows get no system message (reference §1.2); grounded rows (the RAG configurations) ask for the
    provider's web search (:data:`lib.llm.client.GROUNDING`). ``model_id`` is 'api_model' or 'key'.
    Each request carries its row's ``provider`` (the routing of :func:`lib.scholar.models.routing`).
    """
    if model_id not in ("api_model", "key"):
        raise ValueError(f"build_requests: model_id must be 'api_model' or 'key', got {model_id!r}")
    tps = [tp for tp in prompts.task_params(families) if params is None or tp.param in params]
    if params is not None:
        unknown = sorted(set(params) - {tp.param for tp in tps})
        if unknown:
            raise KeyError(f"build_requests: unknown parameters {unknown} for families {families or 'all'}")
    out = []
    for m in models.itertuples(index=False):
        temps = [float(m.temperature)] if isinstance(temperatures, str) and temperatures == "calibrated" else [float(t) for t in temperatures]
        for tp in tps:
            msgs = tuple(prompts.messages(tp.family, tp.param, system_message=bool(m.system_message)))
            for t in temps:
                for rep in range(replicates):
                    out.append(Request(experiment=experiment, model=m.key, api_model=getattr(m, model_id),
                                       task=tp.family, param=tp.param, temperature=t, replicate=rep, messages=msgs,
                                       seed=seed, max_tokens=max_tokens, sub_provider=m.sub_provider,
                                       grounded=bool(getattr(m, "grounded", False)),
                                       provider=getattr(m, "provider", None)))
    return out


def calibration_requests(models: pd.DataFrame, *, temperatures, families: Sequence[str], params_per_family: int,
                         replicates: int, gemini_replicates: int, seed: int | None, model_id: str):
    """Notebook 01's sweep: every configuration x task parameter x temperature x replicate
    (``gemini_replicates`` for the Gemini rows)."""
    params = task_params(families, params_per_family)
    is_gemini = models["provider"] == "gemini"
    kw = dict(experiment="temperature_analysis", params=params, temperatures=temperatures, seed=seed,
              model_id=model_id)
    return (build_requests(models[~is_gemini], replicates=replicates, **kw)
            + build_requests(models[is_gemini], replicates=gemini_replicates, **kw))


def collection_requests(models: pd.DataFrame, *, families: Sequence[str], params_per_family: int,
                        constrained_prompts: bool, rag: bool, runs: int, seed: int | None, model_id: str):
    """Notebook 02's collection: the baseline families (plus the constrained ``biased_top_k``
    prompts) x ``runs`` replicates at each configuration's temperature (the grounded RAG
    configurations only with ``rag``). Returns (configurations collected, requests)."""
    collected = models if rag else models[~models["grounded"]]
    fams = [f for f in families if f != "biased_top_k"] + (["biased_top_k"] if constrained_prompts else [])
    reqs = build_requests(collected, experiment="interventions", params=task_params(fams, params_per_family),
                          replicates=runs, temperatures="calibrated", seed=seed, model_id=model_id)
    return collected, reqs


def notebook_plans(cfg, notebook: str, params: dict[str, Any]) -> list[PlannedCollection]:
    """The collections notebook 01 or 02 would make under ``cfg`` with ``params`` (its parameters
    cell with the profile's overrides); [] when it imports the release instead (``source: release``)."""
    from lib.scholar import inputs
    from lib.scholar.models import for_profile, prices

    if params.get("source", "collect") != "collect":
        return []
    models = for_profile(cfg)            # the paper's configurations and the profile's own
    model_id = "api_model" if cfg.llm.real_endpoint else "key"
    if notebook == "01_calibration":
        reqs = calibration_requests(models, temperatures=params["temperatures"], families=params["families"],
                                    params_per_family=params["params_per_family"], replicates=params["replicates"],
                                    gemini_replicates=params["gemini_replicates"], seed=cfg.seed, model_id=model_id)
        stage = "temperature sweep"
    elif notebook == "02_collection":
        try:
            models = inputs.collection_temperatures(models, params.get("temperature_source", "calibration"))
        except (FileNotFoundError, KeyError):
            pass            # 01 has not run yet: the temperature changes no token count
        _, reqs = collection_requests(models, families=params["families"],
                                      params_per_family=params["params_per_family"],
                                      constrained_prompts=params["constrained_prompts"], rag=params["rag"],
                                      runs=params["runs"], seed=cfg.seed, model_id=model_id)
        stage = "longitudinal collection"
    else:
        raise ValueError(f"lib.scholar.plan: {notebook!r} is not an LLMScholarBench collecting notebook")
    return [PlannedCollection(notebook, stage, reqs, expected_completion, ASSUMPTION, cfg.llm.max_attempts,
                              prices=prices(models))]
