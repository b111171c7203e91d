"""LLMScholarBench's inputs: collect from the endpoint or import the data release, per notebook.

Notebooks 01 and 02 have a ``source`` parameter: ``collect`` asks the profile's endpoint (the
embedded panel by default), ``release`` imports the paper's own runs from
``real_data.raw_responses_dir`` and matches the names against ``real_data.ground_truth_dir``
(Tier A, no request). Notebook 02 also chooses its temperatures (``temperature_source``: 01's
calibration or the paper's Table A.1), and notebooks 03 and 04 their ground truth D
(:func:`reference_dataset`). :func:`profile_errors` checks these choices when the
profile is loaded (through :meth:`lib.declare.Paper.profile_errors`), so a bad one fails before any work; the
notebooks call the loaders below instead of choosing in their cells.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from lib import config, paths
from lib.stage import Stage

#: The notebooks that collect from the endpoint unless their ``source`` parameter says "release".
COLLECTING_NOTEBOOKS = ("01_calibration", "02_collection")
#: Allowed values of each input parameter.
CHOICES = {"source": ("collect", "release"), "temperature_source": ("calibration", "paper")}
#: What the release import needs: real_data key and what it holds.
RELEASE_NEEDS = (("raw_responses_dir", "the LLMScholarBench raw responses to import"),
                 ("ground_truth_dir", "the ground truth the recommended names are matched against"))
#: The notebooks that match recommended names against a ground truth (the synthetic world when none is given).
GROUND_TRUTH_NOTEBOOKS = ("01_calibration", "02_collection", "03_infrastructure_benchmark", "04_interventions")
GROUND_TRUTH_SOURCE = ("get the LLMScholarBench ground-truth release (doi:10.5281/zenodo.20417107; README, "
                       "\"Tier A: the release profile\"), check it with `python -m lib.groundtruth.release check DIR` "
                       "and set real_data.ground_truth_dir to DIR")


def check_choice(notebook: str, name: str, value: Any) -> str:
    """``value`` if it is an allowed value of parameter ``name``, else ValueError naming both."""
    allowed = CHOICES[name]
    if value not in allowed:
        raise ValueError(f"{notebook}: parameter {name} must be " + " or ".join(repr(a) for a in allowed)
                         + f", got {value!r}")
    return value


def profile_errors(prof: config.Profile, where: str) -> list[str]:
    """Import mode (``source: release``) needs the release and a ground truth to match names against;
    a real-data profile without an endpoint (``synthetic: false``, no ``llm.base_url`` nor ``llm.providers``) must not
    collect: the embedded panel is synthetic, and its answers would be labelled real. The
    profile's own models (``models.llmscholarbench``) must load (:func:`lib.scholar.models.profile_errors`)."""
    from lib.scholar import models

    errs = models.profile_errors(prof, where)
    no_endpoint = not prof.synthetic and not prof.llm.real_endpoint
    for nb in COLLECTING_NOTEBOOKS:
        if not (paths.NOTEBOOKS / f"{nb}.py").is_file() or "source" not in (defaults := config.notebook_parameters(nb)):
            continue
        given = prof.notebooks.get(nb, {})
        source = given.get("source", defaults["source"])
        if "temperature_source" in defaults:
            ts = given.get("temperature_source", defaults["temperature_source"])
            if ts not in CHOICES["temperature_source"]:
                errs.append(f"{where}: key 'notebooks.{nb}.temperature_source': expected 'calibration' or 'paper', "
                            f"got {ts!r}")
        if source not in CHOICES["source"]:
            errs.append(f"{where}: key 'notebooks.{nb}.source': expected 'collect' or 'release', got {source!r}")
        elif source == "release":
            errs += [f"{where}: key 'real_data.{key}': notebooks.{nb}.source is 'release', which needs {what}; "
                     f"set it (see README, \"Tier A: the release profile\")"
                     for key, what in RELEASE_NEEDS if getattr(prof.real_data, key) is None]
        elif no_endpoint:
            errs.append(f"{where}: key 'notebooks.{nb}.source': synthetic: false with llm.base_url: null has no "
                        f"endpoint to collect from (the embedded panel is synthetic); set it to 'release' "
                        f"(import real_data.raw_responses_dir) or give llm.base_url or llm.providers")
    if not any("'real_data.ground_truth_dir'" in e for e in errs):
        errs += ground_truth_errors(prof, where)
    return errs


def ground_truth_errors(prof: config.Profile, where: str) -> list[str]:
    """A real-data profile (``synthetic: false``) whose notebooks 01–04 would match names against the
    synthetic world (no ``real_data.ground_truth_dir``) stops: its figures would be labelled real.
    ``synthetic: mixed`` declares that set-up; notebook 03's own ``ground_truth_dir`` parameter
    (a folder of companion-schema tables) serves that notebook."""
    if prof.synthetic is not False or prof.real_data.ground_truth_dir is not None:
        return []
    needing = [nb for nb in GROUND_TRUTH_NOTEBOOKS if (paths.NOTEBOOKS / f"{nb}.py").is_file()
               and not prof.notebooks.get(nb, {}).get("ground_truth_dir")]
    if not needing:
        return []
    return [f"{where}: key 'real_data.ground_truth_dir': synthetic: false, but it is null, so notebooks "
            f"{', '.join(needing)} would match the recommended names against the synthetic world; "
            f"{GROUND_TRUTH_SOURCE}, or declare synthetic: mixed (a real endpoint on the synthetic world)"]


def import_release(cfg: config.Profile):
    """Tier A: the release's ground truth (a :class:`~lib.groundtruth.world.World`) and its raw
    responses imported into the raw store (:func:`lib.scholar.release.import_release`; resumes)."""
    from lib.groundtruth.release import load_release
    from lib.scholar import release

    world = load_release(cfg.real_path("ground_truth_dir"),
                         accept_modified="ground_truth_dir" in cfg.accept_modified_releases)
    imported = release.import_release(cfg.real_path("raw_responses_dir"), progress=False)
    return world, imported


def collection_temperatures(models: pd.DataFrame, temperature_source: str) -> pd.DataFrame:
    """``models`` with the temperatures notebook 02 collects at: 01's selected temperatures
    (``calibration``, read from its stage folder) or the paper's Table A.1 (``paper``, as loaded)."""
    check_choice("02_collection", "temperature_source", temperature_source)
    if temperature_source == "paper":
        return models
    try:
        selected_path = Stage("02_collection").upstream_path("01_calibration/selected_temperatures.parquet")
    except FileNotFoundError as e:
        raise FileNotFoundError(f"{e} (it selects the temperatures), or set temperature_source = 'paper'") from None
    selected = pd.read_parquet(selected_path).set_index("model")["temperature"]
    missing = sorted(set(models["key"]) - set(selected.index))
    if missing:
        raise KeyError(f"{selected_path}: column model lacks {missing}; re-run notebook 01")
    return models.assign(temperature=models["key"].map(selected).astype(float))


def reference_dataset(cfg: config.Profile, tables_dir: str | Path = ""):
    """The ground truth D notebooks 03 and 04 measure against (a :class:`~lib.groundtruth.world.World`):
    ``tables_dir``, a folder of the companion's own tables (:mod:`lib.groundtruth.schema`), else the
    LLMScholarBench ground-truth release (``real_data.ground_truth_dir``, Tier A), else the synthetic world."""
    if tables_dir:
        from lib.groundtruth import loaders

        return loaders.load_tables(tables_dir)
    if cfg.real_data.ground_truth_dir:
        from lib.groundtruth.release import load_release

        return load_release(cfg.real_path("ground_truth_dir"),
                            accept_modified="ground_truth_dir" in cfg.accept_modified_releases)
    from lib.groundtruth.world import load_world

    return load_world(cfg.seed, cfg.world.n_authors)


def describe(world) -> str:
    """One line on the ground truth D: authors, publications, coauthorship edges, synthetic or real."""
    kind = "synthetic" if world.synthetic else "real"
    return (f"D: {len(world.authors):,} authors, {len(world.publications):,} publications, "
            f"{len(world.coauthorships):,} coauthorship edges ({kind})")
