"""The responses notebooks 01 and 02 analyse: the temperature sweep (App. A.3) and the longitudinal
collection (§3.2, App. A.1), asked of the profile's endpoint or imported from the data release.

Each notebook's ``source`` parameter chooses (:data:`lib.scholar.inputs.CHOICES`): ``collect`` sends
the plan of :mod:`lib.scholar.plan` (resume-safe, into the raw store); ``release`` (Tier A) imports the
paper's own runs, which fix models, temperatures, tasks and runs, so the design parameters go unused.
Either way the result says which raw-store experiments hold the responses and which ground truth D
their names are matched against, so the notebook's labelling cell is the same for both.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from lib import config
from lib.scholar import inputs
from lib.stage import Stage


@dataclass(frozen=True)
class Responses:
    """One notebook's responses in the raw store; ``attempts`` and ``names`` are None until :func:`label`."""

    source: str                          # "collect" or "release"
    world: object                        # the ground truth D (lib.groundtruth.world.World)
    models: pd.DataFrame                 # the configurations, at the temperatures asked
    experiments: tuple[str, ...]         # raw-store experiments holding the responses
    requests: list | None                # the plan sent; None: everything the imported experiments hold
    line: str                            # what was collected or imported
    attempts: pd.DataFrame | None = None
    names: pd.DataFrame | None = None

    @property
    def partial(self) -> dict[str, float]:
        """Models that answered too few of their requests in these experiments (the raw store's
        coverage, :func:`lib.llm.coverage.partial_models`): model -> answered share."""
        from lib.llm.coverage import partial_models

        return {m: e["share"] for x in self.experiments for m, e in partial_models(experiment=x).items()}


def _imported(cfg: config.Profile, models: pd.DataFrame, experiments) -> Responses:
    """The release imported into the store (:func:`lib.scholar.inputs.import_release`); ``experiments``
    picks the store experiments this notebook reads from the import report."""
    world, imported = inputs.import_release(cfg)
    return Responses("release", world, models, tuple(experiments(imported)), None, imported.summary())


def _real_endpoint(cfg: config.Profile) -> bool:
    return bool(getattr(cfg.llm, "providers", None)) or cfg.llm.base_url is not None


def _collected(cfg: config.Profile, models: pd.DataFrame, experiment: str, plan) -> Responses:
    """Send ``plan(model_id) -> (requests, description)`` to the profile's endpoint and keep the
    collection summary. The embedded panel serves the synthetic world, so its names are matched
    against it; a real endpoint's names are matched against the ground truth notebooks 03 and 04
    use (:func:`lib.scholar.inputs.reference_dataset`: the release when the profile names one)."""
    from lib import endpoints
    from lib.groundtruth.world import load_world
    from lib.llm.collect import collect
    from lib.scholar import models as lsb_models
    from lib.scholar import plan as lsb_plan
    from lib.scholar.labels import llmcaller_validate

    world = inputs.reference_dataset(cfg) if _real_endpoint(cfg) else load_world(cfg.seed, cfg.world.n_authors)
    with endpoints.open_endpoint(cfg, world=world) as endpoint:
        requests, description = plan(endpoint.model_id)
        print(description)
        summary = collect(requests, endpoint, max_attempts=cfg.llm.max_attempts, prices=lsb_models.prices(models),
                          completion_tokens=lsb_plan.expected_completion, validate=llmcaller_validate)
    return Responses("collect", world, models, (experiment,), requests, summary.line())


@dataclass(frozen=True)
class SweepGrid:
    """Notebook 01's sweep design, as its parameters cell names it: the temperature grid, the task
    families and parameters per family, and replicates per (model, task, temperature)."""

    temperatures: tuple
    families: tuple
    params_per_family: int
    replicates: int
    gemini_replicates: int


def temperature_sweep(cfg: config.Profile, models: pd.DataFrame, *, source: str, grid: SweepGrid) -> Responses:
    """Notebook 01's sweep: every configuration x task parameter x temperature x replicate of ``grid``
    (:func:`lib.scholar.plan.calibration_requests`), or the release's ``temperature`` experiment."""
    inputs.check_choice("01_calibration", "source", source)
    if source == "release":
        return _imported(cfg, models, lambda imported: ["temperature"])
    from lib.scholar import plan as lsb_plan

    temperatures, families, params_per_family = list(grid.temperatures), list(grid.families), grid.params_per_family
    replicates, gemini_replicates = grid.replicates, grid.gemini_replicates

    def plan(model_id):
        requests = lsb_plan.calibration_requests(models, temperatures=temperatures, families=families,
                                                 params_per_family=params_per_family, replicates=replicates,
                                                 gemini_replicates=gemini_replicates, seed=cfg.seed,
                                                 model_id=model_id)
        return requests, (f"{len(requests)} requests: {len(models)} configurations × "
                          f"{len(lsb_plan.task_params(families, params_per_family))} task parameters × "
                          f"{len(temperatures)} temperatures × {replicates} replicates ({gemini_replicates} for Gemini)")

    return _collected(cfg, models, "temperature_analysis", plan)


@dataclass(frozen=True)
class CollectionGrid:
    """Notebook 02's design, as its parameters cell names it: the baseline task families and
    parameters per family, whether to add the constrained prompts and the grounded (RAG)
    configurations, and the runs (replicates) per prompt."""

    families: tuple
    params_per_family: int
    constrained_prompts: bool
    rag: bool
    runs: int


def longitudinal_collection(cfg: config.Profile, models: pd.DataFrame, *, source: str, temperature_source: str,
                            grid: CollectionGrid) -> Responses:
    """Notebook 02's collection at each configuration's temperature (``temperature_source``) over
    ``grid.runs`` replicates (:func:`lib.scholar.plan.collection_requests`), or the release's
    ``baseline`` runs (with the constrained prompts) and its grounded Gemini runs (``grid.rag``)."""
    inputs.check_choice("02_collection", "source", source)
    if source == "release":
        return _imported(cfg, models, lambda imported: [e for e in ("baseline", "rag")
                                                        if imported.per_experiment.get(e)])
    from lib.scholar import plan as lsb_plan

    models = inputs.collection_temperatures(models, temperature_source)
    families, params_per_family, runs = list(grid.families), grid.params_per_family, grid.runs
    constrained_prompts, rag = grid.constrained_prompts, grid.rag

    def plan(model_id):
        collected, requests = lsb_plan.collection_requests(
            models, families=families, params_per_family=params_per_family, constrained_prompts=constrained_prompts,
            rag=rag, runs=runs, seed=cfg.seed, model_id=model_id)
        return requests, (f"{len(requests)} requests: {len(collected)} configurations × "
                          f"{len({r.param for r in requests})} task parameters × {runs} runs")

    return _collected(cfg, models, "interventions", plan)


def label(responses: Responses, out: Stage | Path) -> Responses:
    """The labelled attempts (:func:`lib.scholar.attempts.attempts_from_store`, per experiment) and the
    recommended names matched against D (:func:`lib.scholar.attempts.name_table`), written to
    ``out`` (the notebook's :class:`lib.stage.Stage`, or a folder) as ``attempts.parquet`` and
    ``names.parquet`` for notebooks 03 and 04. An imported release keeps only the configurations it
    holds (what Fig. A.2 and Table A.1 show)."""
    from lib.scholar import attempts as lsb_attempts

    attempts = pd.concat([lsb_attempts.attempts_from_store(responses.models, e, requests=responses.requests)
                          for e in responses.experiments], ignore_index=True)
    models = responses.models
    if responses.requests is None:
        models = models[models["key"].isin(set(attempts["model"]))].reset_index(drop=True)
    names = lsb_attempts.name_table(attempts, responses.world.authors)
    for file, table in (("attempts.parquet", attempts), ("names.parquet", names)):
        if isinstance(out, Stage):
            out.write(lsb_attempts.storable(table), file)
        else:
            lsb_attempts.write_parquet(table, Path(out) / file)
    return replace(responses, models=models, attempts=attempts, names=names)


def label_counts(attempts: pd.DataFrame, label: str = "label") -> pd.DataFrame:
    """Attempts per (model, task) row and ``label`` column (``label``: the reference's labels;
    ``label_paper``: the paper's seven)."""
    return attempts.groupby(["model", "task", label]).size().unstack(fill_value=0)


def _joined(s: pd.Series) -> str:
    return ", ".join(sorted(s.dropna().unique()))


def provenance(attempts: pd.DataFrame, *, synthetic: bool) -> pd.DataFrame:
    """Per configuration: where its requests went, what answered (served models, providers,
    system fingerprints), temperature, requests, attempts, HTTP tries, failed attempts, valid
    requests, tokens, mean latency and the time span; ``synthetic`` as given."""
    out = attempts.groupby("model").agg(
        base_url=("base_url", "first"), requested_model=("requested_model", "first"),
        served_models=("served_model", _joined), providers=("provider", _joined),
        fingerprints=("system_fingerprint", _joined),
        temperature=("temperature", "first"), grounded=("grounded", "first"),
        requests=("request_id", "nunique"), attempts=("attempt", "size"), http_tries=("tries", "sum"),
        failed_attempts=("status", lambda s: int((s != "ok").sum())),
        valid_requests=("valid_attempt", "sum"), total_tokens=("total_tokens", "sum"),
        mean_latency_s=("latency_s", "mean"), first_request=("started_at", "min"), last_request=("finished_at", "max"),
    ).reset_index()
    out["synthetic"] = synthetic
    return out
