"""Coverage: each model's answered share of its planned requests, kept beside the raw store (issue 26).

A model that answered (HTTP 2xx with choices, valid or not) fewer than :data:`MIN_ANSWERED_SHARE`
of its planned requests is *partial*: marked so in the manifest and its tables and figures, and
the run fails unless ``--allow-partial``. Every collection's completeness check writes the file
(:func:`lib.llm.kernel.count_completeness`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

#: below this answered share a model is partial
MIN_ANSWERED_SHARE = 0.9
COVERAGE_NAME = "coverage.json"


def write_coverage(root: Path, cov: dict[tuple[str, str], list[int]]) -> None:
    """Merge {(experiment, model): [planned, answered]} into ``<root>/coverage.json`` (the latest
    collection of a model in an experiment replaces its entry), with its share, whether it is
    partial and the notebook that collected it (``COMPANION_NOTEBOOK``, set by the runner)."""
    path = Path(root) / COVERAGE_NAME
    data = read_coverage(root)
    nb = os.environ.get("COMPANION_NOTEBOOK")
    for (exp, model), (planned, answered) in cov.items():
        share = answered / planned if planned else 1.0
        data.setdefault(exp, {})[model] = {"planned": planned, "answered": answered, "share": round(share, 6),
                                           "partial": share < MIN_ANSWERED_SHARE, "threshold": MIN_ANSWERED_SHARE,
                                           "notebook": nb}
    tmp = path.with_name(f".{COVERAGE_NAME}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


def read_coverage(root: Path | str | None = None) -> dict:
    """``<root>/coverage.json`` (default the raw store): {experiment: {model: {planned, answered, share,
    partial, threshold, notebook}}}; {} when no collection wrote it."""
    from lib import paths

    path = Path(root if root is not None else paths.RAW) / COVERAGE_NAME
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except ValueError as e:
        raise ValueError(f"{path}: not valid JSON ({e}); delete it and run the collection again") from None


def partial_models(root: Path | str | None = None, experiment: str | None = None) -> dict[str, dict]:
    """Models marked partial in the coverage file: {model: entry} of ``experiment`` (or of all
    experiments, keyed ``experiment/model``)."""
    cov = read_coverage(root)
    if experiment is not None:
        return {m: e for m, e in cov.get(experiment, {}).items() if e.get("partial")}
    return {f"{x}/{m}": e for x, ms in cov.items() for m, e in ms.items() if e.get("partial")}
