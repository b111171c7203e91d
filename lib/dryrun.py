"""``./run_all.sh --profile P --dry-run``: what each notebook would send and what it would cost, sending nothing.

Per collecting notebook (:func:`lib.registry.plans`: 01, 02, 05, 06; 03 and 04 only analyse)
its paper's ``notebook_plans`` builds the requests from the profile's notebook parameters the
way the notebook does (the synthetic world or twin may be built from its cache; no endpoint is
opened, no panel started, nothing sent). :mod:`lib.llm.cost` prices them: prompt tokens from the
real prompt texts, the paper's stated completion assumption, the model tables' prices with the
profile's ``llm.prices`` on top (the embedded panel is free), one-attempt and max-attempts bounds.
A request goes to its provider (the model table's routing) or else the profile's endpoint.

Output: a plain-text table per notebook x provider with totals, and the same rows as
``outputs/dry_run.csv`` and ``outputs/dry_run.json``.
"""
from __future__ import annotations

import json
import math
import sys
import time

from lib import config, paths, registry
from lib.llm import cost


def plan(prof: config.Profile, notebooks: list[str] | None = None):
    """The dry-run table (:data:`lib.llm.cost.PLAN_COLUMNS`) of ``prof`` for ``notebooks`` (default all)."""
    import pandas as pd

    # one endpoint (or the panel) takes every request; llm.providers: each its model's provider
    provider = (cost.endpoint_provider(prof.llm.base_url) if not prof.llm.providers else
                (lambda r: prof.llm.routes.get(r.provider, r.provider)))
    frames = []
    for nb in notebooks or registry.notebook_names():
        if nb not in registry.plans() or not (paths.NOTEBOOKS / f"{nb}.py").is_file():
            continue
        params = {**config.notebook_parameters(nb), **prof.notebooks.get(nb, {})}
        for pc in registry.paper_of(nb).notebook_plans(prof, nb, params):
            frames.append(cost.plan_table(pc, prof.llm.prices, provider=provider))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cost.PLAN_COLUMNS)


def _total(s) -> float | None:
    return None if s.isna().any() else round(float(s.sum()), 6)


def _unpriced(df) -> list[str]:
    return sorted(set(df.loc[df["cost_usd"].isna(), "model"]))


def write(df, prof: config.Profile) -> tuple:
    """``outputs/dry_run.csv`` (the rows) and ``outputs/dry_run.json`` (rows and totals per notebook x provider)."""
    paths.ensure(paths.OUTPUTS)
    csv_path, json_path = paths.OUTPUTS / "dry_run.csv", paths.OUTPUTS / "dry_run.json"
    df.to_csv(csv_path, index=False)
    totals = [{"notebook": nb, "provider": p, "requests": int(g["requests"].sum()),
               "prompt_tokens": int(g["prompt_tokens"].sum()), "completion_tokens": int(g["completion_tokens"].sum()),
               "cost_usd": _total(g["cost_usd"]), "cost_usd_max": _total(g["cost_usd_max"]),
               "cost_usd_priced": round(float(g["cost_usd"].sum()), 6), "unpriced_models": _unpriced(g)}
              for (nb, p), g in df.groupby(["notebook", "provider"], sort=False)]
    rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in df.to_dict(orient="records")]
    doc = {"profile": prof.name, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "rows": rows, "totals": totals,
           "total": {"requests": int(df["requests"].sum()), "cost_usd": _total(df["cost_usd"]),
                     "cost_usd_max": _total(df["cost_usd_max"]), "cost_usd_priced": round(float(df["cost_usd"].sum()), 6),
                     "cost_usd_max_priced": round(float(df["cost_usd_max"].sum()), 6), "unpriced_models": _unpriced(df)},
           "note": "cost_usd: one attempt per request; cost_usd_max: max_attempts per request; null = a price is "
                   "unknown; *_priced: the sum over the priced models only (a lower bound)"}
    json_path.write_text(json.dumps(doc, indent=1, default=str))
    return csv_path, json_path


def run(profile: str, only: list[str] | None = None, out=None) -> int:
    """Print the dry run of ``profile`` (restricted to ``only``'s notebooks) to ``out`` (default stdout)
    and write its files; returns the exit code."""
    out = out or sys.stdout
    selected = registry.select(only)
    prof = config.load_or_report(profile, out, selected if only else None)
    if prof is None:
        return 2
    t0 = time.perf_counter()
    print(f"dry run of profile {prof.name}: nothing is sent (no endpoint opened, no panel started)", file=out)
    for nb in selected:
        if nb not in registry.plans():
            print(f"{nb}: analyses only (no requests)", file=out)
    df = plan(prof, selected)
    print(cost.format_plan(df), file=out)
    csv_path, json_path = write(df, prof)
    print(f"written: {csv_path}, {json_path} ({time.perf_counter() - t0:.1f} s)", file=out, flush=True)
    return 0
