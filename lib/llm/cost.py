"""Dry-run estimate of requests, tokens and cost per model before any live spend.

Prompt tokens are estimated as ceil(characters / 4) per message plus 4 tokens of chat framing
per message (the common rule of thumb for English text with GPT-style BPE tokenizers; no
tokenizer is downloaded). Output tokens are a parameter (``output_tokens`` per attempt), since
list length varies by task and model. Cost = tokens / 1e6 x the model's USD price per million
tokens (``lib/resources/lsb_models.csv``). Two bounds: one attempt per request (every first
attempt valid) and ``max_attempts`` per request (every attempt re-asked). Models without a
published price (the Gemini configurations) get NaN cost, never zero.
"""
from __future__ import annotations

import math
from typing import Iterable


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): an approximate BPE token count for English prose."""
    return math.ceil(len(text) / 4)


def message_tokens(messages: Iterable[dict]) -> int:
    return sum(estimate_tokens(m["content"]) + 4 for m in messages)


def dry_run_table(requests, models, *, output_tokens: int = 1000, max_attempts: int = 3):
    """One row per model: requests, estimated prompt/output tokens and USD cost (low/high bound).

    ``requests`` are :class:`lib.llm.client.Request`; ``models`` is :func:`lib.scholar.models.load_models`.
    """
    import pandas as pd

    prices = models.set_index("key")[["price_in", "price_out"]]
    rows: dict[str, dict] = {}
    for r in requests:
        row = rows.setdefault(r.model, {"model": r.model, "requests": 0, "prompt_tokens": 0})
        row["requests"] += 1
        row["prompt_tokens"] += message_tokens(r.messages)
    df = pd.DataFrame(list(rows.values()), columns=["model", "requests", "prompt_tokens"])
    df["output_tokens"] = df["requests"] * output_tokens
    missing = sorted(set(df["model"]) - set(prices.index))
    if missing:
        raise KeyError(f"dry run: models {missing} are not in the model table (lib/resources/lsb_models.csv, column key)")
    df = df.join(prices, on="model")
    df["cost_usd"] = (df["prompt_tokens"] * df["price_in"] + df["output_tokens"] * df["price_out"]) / 1e6
    df["cost_usd_max"] = df["cost_usd"] * max_attempts
    return df


def format_dry_run(df) -> str:
    """A plain-text table plus totals (priced models only; unpriced ones are listed)."""
    lines = [f"{'model':28s} {'requests':>9s} {'prompt_tok':>11s} {'output_tok':>11s} {'cost_usd':>10s} {'max_usd':>10s}"]
    for r in df.itertuples(index=False):
        cost = "n/a" if math.isnan(r.cost_usd) else f"{r.cost_usd:.4f}"
        cmax = "n/a" if math.isnan(r.cost_usd_max) else f"{r.cost_usd_max:.4f}"
        lines.append(f"{r.model:28s} {r.requests:9d} {r.prompt_tokens:11d} {r.output_tokens:11d} {cost:>10s} {cmax:>10s}")
    unpriced = df.loc[df["cost_usd"].isna(), "model"].tolist()
    lines.append(f"{'total':28s} {int(df['requests'].sum()):9d} {int(df['prompt_tokens'].sum()):11d} "
                 f"{int(df['output_tokens'].sum()):11d} {df['cost_usd'].sum():10.4f} {df['cost_usd_max'].sum():10.4f}")
    if unpriced:
        lines.append(f"no published price (cost not included): {', '.join(unpriced)}")
    return "\n".join(lines)
