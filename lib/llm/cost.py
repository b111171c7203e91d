"""Spend before sending: estimated requests, tokens and cost of a request plan, and the cost of an attempt.

Prompt tokens are estimated as ceil(characters / 4) per message plus 4 tokens of chat framing
per message (the common rule of thumb for English text with GPT-style BPE tokenizers; no
tokenizer is downloaded). Completion tokens are the caller's assumption per request (each paper
states its own: :class:`PlannedCollection`), since answer length varies by task and model. Cost =
tokens / 1e6 x the model's USD price per million tokens, from a prices table the caller gives
(each paper's model table, ``prices()`` of its ``models`` module, with the profile's
``llm.prices`` overrides applied by :func:`price_map`). Two bounds: one attempt per request
(every first attempt valid) and ``max_attempts`` per request (every attempt re-asked). A model
without a known price gets NaN cost, never zero; the embedded panel costs 0 unless the profile
prices a model explicitly. This module knows no paper.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

#: the provider label of the embedded synthetic panel (free)
PANEL = "panel"
NAN = float("nan")
PLAN_COLUMNS = ["notebook", "stage", "provider", "model", "requests", "prompt_tokens", "completion_tokens",
                "price_in", "price_out", "cost_usd", "cost_usd_max", "max_attempts", "completion_assumption"]


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): an approximate BPE token count for English prose."""
    return math.ceil(len(text) / 4)


def message_tokens(messages: Iterable[dict]) -> int:
    """Estimated prompt tokens of a chat: :func:`estimate_tokens` per message plus 4 of framing."""
    return sum(estimate_tokens(m["content"]) + 4 for m in messages)


def usd(prompt_tokens: float, completion_tokens: float, price: tuple[float, float]) -> float:
    """Cost in USD of the tokens at ``price`` = (input, output) USD per million tokens (NaN if unknown)."""
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6


def endpoint_provider(base_url: str | None, *, panel: bool = False) -> str:
    """The provider label of an endpoint: 'panel' for the embedded panel (``panel`` or no base_url),
    else the URL's host[:port] (e.g. 'openrouter.ai')."""
    if panel or not base_url:
        return PANEL
    return urlsplit(base_url).netloc or base_url


def price_map(table, overrides: Mapping[str, Mapping[str, float]] | None = None, *,
              panel: bool = False) -> dict[str, tuple[float, float]]:
    """model -> (input, output) USD per Mtok: ``table`` (a DataFrame with columns model, price_in,
    price_out; NaN = unknown) with the profile's ``llm.prices`` ``overrides`` ({model: {input, output}})
    on top. On the embedded panel (``panel``) every table price is 0; an override still applies, so a
    synthetic run can rehearse a budget."""
    out: dict[str, tuple[float, float]] = {}
    if table is not None:
        for m, p_in, p_out in zip(table["model"], table["price_in"], table["price_out"]):
            out[str(m)] = (0.0, 0.0) if panel else (float(p_in), float(p_out))
    for m, p in (overrides or {}).items():
        p = p if isinstance(p, Mapping) else p.model_dump()
        out[str(m)] = (float(p["input"]), float(p["output"]))
    return out


def price_of(prices: Mapping[str, tuple[float, float]], model: str, *, panel: bool = False) -> tuple[float, float]:
    """The price of ``model``; a model the table lacks is free on the panel and unknown (NaN) elsewhere."""
    return prices.get(model, (0.0, 0.0) if panel else (NAN, NAN))


@dataclass(frozen=True)
class PlannedCollection:
    """One collection a notebook will make: its requests and the assumed completion tokens.

    ``completion_tokens`` is an int per attempt, or a function of the request (e.g. its
    ``max_tokens`` cap); ``assumption`` says in words where the figure comes from (the dry run
    prints it). ``max_attempts`` bounds the validation re-asks. ``prices`` is the paper's prices
    table (columns model, price_in, price_out; its ``models.prices()``).
    """

    notebook: str
    stage: str
    requests: Sequence
    completion_tokens: int | Callable[[object], int]
    assumption: str
    max_attempts: int = 3
    prices: object = None

    def expected_completion(self, request) -> int:
        c = self.completion_tokens
        return int(c(request) if callable(c) else c)


def plan_table(plan: PlannedCollection, overrides: Mapping | None = None, *, provider: str):
    """One row per (provider, model) of a planned collection: requests, estimated prompt and
    completion tokens for one attempt each, the prices (``plan.prices`` with the profile's
    ``overrides``; free on the panel), ``cost_usd`` (one attempt per request) and ``cost_usd_max``
    (``max_attempts`` per request); columns :data:`PLAN_COLUMNS`. ``provider``: the label of every
    request (the endpoint's, :func:`endpoint_provider`), or a function of the request (a routed
    profile: the provider its model is routed to)."""
    import pandas as pd

    maps = {False: price_map(plan.prices, overrides), True: price_map(plan.prices, overrides, panel=True)}

    rows: dict[tuple, dict] = {}
    lengths: dict[int, int] = {}          # the same messages tuple is shared by many requests
    for r in plan.requests:
        prov = provider(r) if callable(provider) else provider
        row = rows.get((prov, r.model))
        if row is None:
            row = rows[(prov, r.model)] = {"provider": prov, "model": r.model, "requests": 0, "prompt_tokens": 0,
                                           "completion_tokens": 0}
        key = id(r.messages)
        n = lengths.get(key)
        if n is None:
            n = lengths[key] = message_tokens(r.messages)
        row["requests"] += 1
        row["prompt_tokens"] += n
        row["completion_tokens"] += plan.expected_completion(r)
    df = pd.DataFrame(list(rows.values()), columns=["provider", "model", "requests", "prompt_tokens",
                                                    "completion_tokens"])
    price = [price_of(maps[p == PANEL], m, panel=p == PANEL) for p, m in zip(df["provider"], df["model"])]
    df["price_in"] = [p[0] for p in price]
    df["price_out"] = [p[1] for p in price]
    df["cost_usd"] = (df["prompt_tokens"] * df["price_in"] + df["completion_tokens"] * df["price_out"]) / 1e6
    df["cost_usd_max"] = df["cost_usd"] * plan.max_attempts
    df.insert(0, "stage", plan.stage)
    df.insert(0, "notebook", plan.notebook)
    df["max_attempts"] = plan.max_attempts
    df["completion_assumption"] = plan.assumption
    return df[PLAN_COLUMNS]


def _money(x: float) -> str:
    return "n/a" if isinstance(x, float) and math.isnan(x) else f"{x:.4f}"


def _sum(s) -> str:
    """A sum of costs as text: exact; ``>=x`` (the priced part, a lower bound) when some prices are
    unknown; ``n/a`` when none is known. An unknown price never counts as 0."""
    if not s.isna().any():
        return _money(float(s.sum()))
    return "n/a" if s.isna().all() else ">=" + _money(float(s.sum()))


def format_plan(df) -> str:
    """Plain text: one table per notebook x provider (rows per model), subtotals, the grand total,
    the completion assumptions and the models without a price."""
    if df.empty:
        return "nothing to send: no notebook of this profile collects"
    head = f"  {'model':50s} {'requests':>10s} {'prompt_tok':>13s} {'compl_tok':>12s} {'cost_usd':>12s} {'max_usd':>12s}"
    lines = []

    def row(label, g):
        return (f"  {label:50s} {int(g['requests'].sum()):10d} {int(g['prompt_tokens'].sum()):13d} "
                f"{int(g['completion_tokens'].sum()):12d} {_sum(g['cost_usd']):>12s} {_sum(g['cost_usd_max']):>12s}")
    for (nb, prov), g in df.groupby(["notebook", "provider"], sort=False):
        lines += [f"{nb} | provider {prov}", head]
        for (stage, model), m in g.groupby(["stage", "model"], sort=False):
            lines.append(row(f"{model} ({stage})" if g["stage"].nunique() > 1 else model, m))
        lines.append(row("subtotal", g))
        lines.append("")
    lines.append("totals per notebook and provider")
    lines.append(head)
    for (nb, prov), g in df.groupby(["notebook", "provider"], sort=False):
        lines.append(row(f"{nb} / {prov}", g))
    lines.append(row("TOTAL", df))
    lines.append("(cost_usd: one attempt per request; max_usd: every request re-asked up to max_attempts)")
    for (nb, stage), text in df.groupby(["notebook", "stage"], sort=False)["completion_assumption"].first().items():
        lines.append(f"completion tokens, {nb} {stage}: {text}")
    unpriced = sorted(set(df.loc[df["cost_usd"].isna(), "model"]))
    if unpriced:
        lines.append(f"no known price (totals marked >= count only the priced models; set llm.prices in the "
                     f"profile): {', '.join(unpriced)}")
    return "\n".join(lines)


def read_prices(path, id_column: str):
    """The prices table of a model-table CSV with columns ``price_in_usd_per_mtok``,
    ``price_out_usd_per_mtok`` (empty = unknown: NaN) and ``price_source``: columns model,
    price_in, price_out, price_source. A value that is not a number >= 0 is an error naming the
    file, row and column."""
    import pandas as pd

    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    need = [id_column, "price_in_usd_per_mtok", "price_out_usd_per_mtok", "price_source"]
    missing = [c for c in need if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}; expected {need}")
    out = {"model": list(raw[id_column]), "price_in": [], "price_out": [], "price_source": list(raw["price_source"])}
    for i, r in raw.iterrows():
        for col, key in (("price_in_usd_per_mtok", "price_in"), ("price_out_usd_per_mtok", "price_out")):
            v = r[col].strip()
            try:
                x = NAN if v == "" else float(v)
            except ValueError:
                x = -1.0
            if not (math.isnan(x) or x >= 0):
                raise ValueError(f"{path} row {i + 2} ({r[id_column]}): column {col} expects USD per million tokens "
                                 f"(a number >= 0, or empty when unknown), got {v!r}")
            out[key].append(x)
    return pd.DataFrame(out)


def dry_run(requests: Sequence, prices, *, output_tokens: int = 1000,
            max_attempts: int = 3, base_url: str | None = None, file=None):
    """Print what ``requests`` would send and cost, sending nothing, in the table of ``./run_all.sh
    --dry-run`` (:func:`plan_table`, :func:`format_plan`); return its rows.
    ``prices``: columns model, price_in, price_out (a paper's ``models.prices()``). Each request is
    labelled with ``base_url``'s host, or without one the provider its model table routes it to."""
    experiments = ", ".join(dict.fromkeys(r.experiment for r in requests)) or "no requests"
    plan = PlannedCollection("command line", experiments, list(requests), output_tokens,
                             f"{output_tokens} per attempt (--output-tokens)", max_attempts, prices=prices)
    table = plan_table(plan, provider=endpoint_provider(base_url) if base_url else
                       (lambda r: r.provider or "unrouted"))
    print(format_plan(table), file=file or sys.stdout)
    return table
