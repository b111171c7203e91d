"""The LLMScholarBench command line: plan, cost, collect, and batch files for offline engines.

::

    python -m lib.scholar.cli collect --dry-run --experiment interventions --replicates 62
    python -m lib.scholar.cli collect --experiment baseline --base-url http://127.0.0.1:8765/v1 --model-id key
    python -m lib.scholar.cli export --experiment baseline --seed 20261130 --out batch_in/
    python -m lib.scholar.cli import batch_in/results-00001.jsonl --base-url vllm:llama-3.1-8b

The request plan is the paper's (:func:`lib.scholar.plan.build_requests` over
``lib/resources/lsb_models.csv``), every answer is labelled by the LLMCaller check
(:func:`lib.scholar.labels.llmcaller_validate`), and collection goes through
:func:`lib.llm.collect.collect` (the raw store, resume, failures and spend of docs/failures.md);
``export``/``import`` are :mod:`lib.llm.batch.offline` (docs/batch.md).
"""
from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

from lib.config import BatchSettings
from lib.llm.batch.offline import export, import_output
from lib.llm.client import Endpoint, FatalAPIError, Request
from lib.llm.collect import collect
from lib.llm.cost import dry_run
from lib.llm.kernel import CollectionError
from lib.llm.store import StoreError
from lib.scholar.labels import llmcaller_validate
from lib.scholar.models import load_models, prices
from lib.scholar.plan import build_requests


def plan_arguments(ap: argparse.ArgumentParser) -> None:
    """The command-line options of an LLMScholarBench request plan (``collect`` and ``export``)."""
    ap.add_argument("--experiment", required=True, help="experiment name (a folder of the raw store)")
    ap.add_argument("--models", default="all", help="comma-separated model keys, or 'all'")
    ap.add_argument("--families", default=None, help="comma-separated task families (default: all six)")
    ap.add_argument("--replicates", type=int, default=1)
    ap.add_argument("--temperatures", default="calibrated", help="'calibrated' or comma-separated values")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--model-id", default="api_model", choices=["api_model", "key"])
    ap.add_argument("--pin-provider", action="store_true", help="send OpenRouter sub-provider pinning")
    ap.add_argument("--store", default=None, help="raw store folder (default outputs/raw)")


def models_from_args(ap: argparse.ArgumentParser, a):
    models = load_models()
    if a.models != "all":
        keys = a.models.split(",")
        unknown = sorted(set(keys) - set(models["key"]))
        if unknown:
            ap.error(f"--models: unknown keys {unknown}; see lib/resources/lsb_models.csv")
        models = models[models["key"].isin(keys)]
    return models


def plan_from_args(ap: argparse.ArgumentParser, a) -> list[Request]:
    """The requests of :func:`plan_arguments`' options."""
    temps = "calibrated" if a.temperatures == "calibrated" else [float(t) for t in a.temperatures.split(",")]
    return build_requests(models_from_args(ap, a), experiment=a.experiment,
                          families=a.families.split(",") if a.families else None, replicates=a.replicates,
                          temperatures=temps, seed=a.seed, model_id=a.model_id)


def _collect(ap: argparse.ArgumentParser, a) -> int:
    reqs = plan_from_args(ap, a)
    dry_run(reqs, prices(models_from_args(ap, a)), output_tokens=a.output_tokens, base_url=a.base_url)
    if a.dry_run:
        return 0
    if not a.base_url:
        ap.error("--base-url is required unless --dry-run")
    try:
        endpoint = Endpoint.from_dict({"base_url": a.base_url, "api_key_env": a.api_key_env,
                                       "max_concurrency": a.max_concurrency, "pin_provider": a.pin_provider,
                                       "model_id": a.model_id}, where="command line")
    except ValueError as e:
        ap.error(str(e))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)      # one line per request is noise
    try:
        summary = collect(reqs, endpoint, store_root=a.store, validate=llmcaller_validate)
    except (CollectionError, FatalAPIError, StoreError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(summary.line())
    if summary.quarantined:
        print(f"error: {summary.quarantined} malformed raw-store lines were quarantined (see quarantine.jsonl)",
              file=sys.stderr)
        return 1
    return 0


def _export(ap: argparse.ArgumentParser, a) -> int:
    reqs = plan_from_args(ap, a)
    files = export(reqs, a.out, store_root=a.store, max_attempts=a.max_attempts, pin_provider=a.pin_provider,
                   validate=llmcaller_validate, batch=BatchSettings(max_requests_per_file=a.max_requests_per_file,
                                                                     max_bytes_per_file=a.max_bytes_per_file))
    for f in files:
        print(f"{f['path']}: {f['n']} requests, {f['bytes']} bytes")
    print(f"{sum(f['n'] for f in files)} requests in {len(files)} files" if files else
          "nothing to export: every request has a valid attempt, a stop or all its attempts")
    return 0


def _import(ap: argparse.ArgumentParser, a) -> int:
    rep = import_output(a.file, a.plan, store_root=a.store, base_url=a.base_url)
    for _, msg in rep.malformed:
        print(msg)
    print(rep.line())
    return 1 if rep.malformed else 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.scholar.cli", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    co = sub.add_parser("collect", help="print the plan and its cost, then collect it (unless --dry-run)")
    plan_arguments(co)
    co.add_argument("--output-tokens", type=int, default=1000, help="dry run: expected output tokens per attempt")
    co.add_argument("--dry-run", action="store_true", help="print the plan and its cost; send nothing")
    co.add_argument("--base-url", default=None)
    co.add_argument("--api-key-env", default=None, help="NAME of the environment variable holding the key")
    co.add_argument("--max-concurrency", type=int, default=8)
    ex = sub.add_parser("export", help="write the batch input files of the next round")
    plan_arguments(ex)
    ex.add_argument("--out", required=True, help="folder for the input files and their *.requests.jsonl plans")
    ex.add_argument("--max-attempts", type=int, default=3)
    ex.add_argument("--max-requests-per-file", type=int, default=BatchSettings().max_requests_per_file)
    ex.add_argument("--max-bytes-per-file", type=int, default=BatchSettings().max_bytes_per_file)
    im = sub.add_parser("import", help="store an output file (OpenAI or vllm run-batch format)")
    im.add_argument("file")
    im.add_argument("--plan", action="append", default=None, help="export folder or *.requests.jsonl (default: FILE's folder)")
    im.add_argument("--store", default=None, help="raw store folder (default outputs/raw)")
    im.add_argument("--base-url", default="offline", help="recorded as the records' base_url (e.g. vllm:<model>)")
    a = ap.parse_args(argv)
    return {"collect": _collect, "export": _export, "import": _import}[a.command](ap, a)


if __name__ == "__main__":
    raise SystemExit(main())
