"""The one place the top of lib/ meets the paper packages: per paper, its parts, as tables.

Top-level modules (config, the published-values core) look a part up here instead of importing
a paper package by name. The tables name modules; :func:`part` imports one on use, so validating
a profile imports only the light modules it needs (the paper packages import the top-level
cores, so they cannot be imported when those load).
"""
from __future__ import annotations

import importlib
from typing import Any

#: real_data key -> the module whose ``check_release(path) -> list[str]`` names every missing file.
RELEASE_CHECKS = {
    "raw_responses_dir": "lib.scholar.release",
    "ground_truth_dir": "lib.groundtruth.release",
    "attribench_dir": "lib.attribution.download",
    "authority_dataset_dir": "lib.authority.corpus",
}
#: paper -> its inputs module: ``profile_errors(profile, where) -> list[str]`` checks the profile's
#: input choices (collect / import / release) for that paper's notebooks.
INPUTS = {
    "llmscholarbench": "lib.scholar.inputs",
    "authority_bias": "lib.authority.inputs",
    "attribution_bias": "lib.attribution.inputs",
}
#: paper -> its models module: ``user_rows(profile) -> DataFrame | None``, the profile's own models
#: (``models.<paper>``) as rows of the paper's resource file (the embedded panel serves them).
MODELS = {
    "llmscholarbench": "lib.scholar.models",
    "authority_bias": "lib.authority.models",
    "attribution_bias": "lib.attribution.models",
}
#: paper -> its published module: ``build(outputs, *, tolerance) -> {name: comparison}``.
PUBLISHED = {
    "llmscholarbench": "lib.scholar.published",
    "authority_bias": "lib.authority.published",
    "attribution_bias": "lib.attribution.published",
}

#: collecting notebook -> the module whose ``notebook_plans(profile, notebook, params) -> [PlannedCollection]``
#: builds what it would send (lib.dryrun; the notebooks not listed send nothing)
PLANS = {
    "01_calibration": "lib.scholar.plan",
    "02_collection": "lib.scholar.plan",
    "05_authority_pilot_regression": "lib.authority.plan",
    "06_attribution_fairness": "lib.attribution.runs",
}


def part(module: str, name: str) -> Any:
    """``module.name`` of a table entry, importing the module."""
    return getattr(importlib.import_module(module), name)


def release_check(key: str):
    """The ``check_release`` of ``real_data.<key>`` (KeyError naming the known keys)."""
    if key not in RELEASE_CHECKS:
        raise KeyError(f"real_data has no key {key!r}; expected one of: {', '.join(RELEASE_CHECKS)}")
    return part(RELEASE_CHECKS[key], "check_release")


def own_models(profile) -> dict[str, Any]:
    """paper -> the profile's own models (rows of the paper's resource file), for papers that have some."""
    out = {paper: part(module, "user_rows")(profile) for paper, module in MODELS.items()
           if paper in getattr(profile, "models", {})}
    return {k: v for k, v in out.items() if v is not None}
