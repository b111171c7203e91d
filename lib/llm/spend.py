"""The running cost of a collection: the budget ledger and the progress bars.

:class:`Ledger` (profile ``llm.budget_usd``): before an attempt is sent its expected cost (the
prompt's estimated tokens plus the assumed completion, :mod:`lib.llm.cost`) is reserved; when
the response comes back the reservation is settled with the cost of the response's ``usage``
(the estimate when a provider reports none), which is written into the record as ``cost``
(``{usd, provider, estimated}``). The spent total starts from what the raw store's records
already cost (:attr:`lib.llm.store.RawStore.spent_usd`, summed from those fields when the store
opens), so a resumed run counts earlier runs and no counter file can drift from the store. A
reservation that would pass the budget stops the collection: nothing more is sent, attempts in
flight finish and are stored, and the collector raises
:class:`lib.llm.kernel.BudgetExceeded`.

:class:`Progress`: one tqdm bar per provider (requests done of total, rate, ETA, and the cost
so far as the postfix), updated at most every ``interval`` seconds so the per-request path of
thousands of requests per second pays one clock read per request.
"""
from __future__ import annotations

import math
import os
import time
from typing import Callable, Mapping, Sequence

from lib.llm.cost import PANEL, message_tokens, price_of, usd


class BudgetStop(Exception):
    """A reservation would pass the budget (internal to the collector)."""


class Ledger:
    """Reservations and settled costs of one collection against ``budget_usd`` (None: no cap, costs still recorded)."""

    def __init__(self, prices: Mapping[str, tuple[float, float]], *, provider_of: Callable[[object], str],
                 completion_tokens: Callable[[object], int], budget_usd: float | None = None,
                 spent_usd: float = 0.0, spent_by_provider: Mapping[str, float] | None = None):
        self.prices, self.provider_of, self.completion_tokens = prices, provider_of, completion_tokens
        self.budget_usd = budget_usd
        self.spent_before = float(spent_usd)
        self.spent_by_provider = dict(spent_by_provider or {})
        self.run_by_provider: dict[str, float] = {}
        self.spent = float(spent_usd)
        self.reserved = 0.0
        self.stopped = False
        self.refused: float | None = None       # the reservation that was refused
        self._prompt: dict[int, int] = {}

    def price(self, r) -> tuple[float, float]:
        return price_of(self.prices, r.model, panel=self.provider_of(r) == PANEL)

    def prompt_tokens(self, r) -> int:
        n = self._prompt.get(id(r.messages))
        if n is None:
            n = self._prompt[id(r.messages)] = message_tokens(r.messages)
        return n

    def expected(self, r) -> float:
        """Expected USD of one attempt of ``r``."""
        return usd(self.prompt_tokens(r), self.completion_tokens(r), self.price(r))

    def unpriced(self, requests: Sequence) -> list[str]:
        """Models of ``requests`` without a known price (a budget cannot be kept for them)."""
        return sorted({r.model for r in requests if math.isnan(self.price(r)[0]) or math.isnan(self.price(r)[1])})

    def reserve(self, r) -> float:
        """Reserve the expected cost of the next attempt of ``r``; :class:`BudgetStop` when it would pass the budget."""
        c = self.expected(r)
        if self.budget_usd is not None:
            if self.stopped or self.spent + self.reserved + c > self.budget_usd:
                self.stopped = True
                self.refused = c if self.refused is None else self.refused
                raise BudgetStop
        self.reserved += c
        return c

    def settle(self, r, rec: dict, reserved: float) -> float:
        """Replace the reservation by what the attempt cost; writes ``rec['cost']``; returns the USD."""
        self.reserved -= reserved
        usage = rec.get("usage") or {}
        prov = self.provider_of(r)
        estimated = False
        if isinstance(usage.get("prompt_tokens"), int) or isinstance(usage.get("completion_tokens"), int):
            cost = usd(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0, self.price(r))
        elif rec.get("status") == "ok":          # answered but no usage reported: count the estimate
            cost, estimated = reserved, True
        else:                                    # no answer and no usage: nothing billed
            cost = 0.0
        rec["cost"] = {"usd": None if math.isnan(cost) else round(cost, 10), "provider": prov, "estimated": estimated}
        if not math.isnan(cost):
            self.spent += cost
            self.run_by_provider[prov] = self.run_by_provider.get(prov, 0.0) + cost
            self.spent_by_provider[prov] = self.spent_by_provider.get(prov, 0.0) + cost
        return cost

    def account(self) -> str:
        """Spent so far (earlier runs and this one), per provider."""
        per = ", ".join(f"{p or '?'} ${v:.4f}" for p, v in sorted(self.spent_by_provider.items()))
        return (f"${self.spent:.4f} spent in all (${self.spent - self.spent_before:.4f} by this run"
                + (f"; per provider: {per}" if per else "") + ")")


def _label() -> str:
    return os.environ.get("COMPANION_NOTEBOOK", "collect")


class Progress:
    """tqdm bars per provider: requests done of total, rate, ETA and cost so far (see module docstring)."""

    def __init__(self, totals: Mapping[str, int], *, label: str | None = None, interval: float = 1.0,
                 initial: Mapping[str, int] | None = None, file=None):
        from tqdm.auto import tqdm

        self.interval = interval
        label = label or _label()
        self.bars = {p: tqdm(total=n, initial=(initial or {}).get(p, 0), desc=f"{label} | {p}", unit="req",
                             mininterval=0, miniters=1, smoothing=0.1, leave=True, file=file, dynamic_ncols=True)
                     for p, n in totals.items()}
        self.pending = dict.fromkeys(totals, 0)
        self.cost = dict.fromkeys(totals, 0.0)
        self._last = time.monotonic()

    def done(self, provider: str, cost: float = 0.0) -> None:
        """One request finished (its last attempt of this run); ``cost`` its attempts' USD."""
        self.pending[provider] += 1
        self.cost[provider] += cost
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self.flush()

    def add_cost(self, provider: str, cost: float) -> None:
        self.cost[provider] += cost

    def flush(self) -> None:
        for p, bar in self.bars.items():
            c = self.cost[p]
            bar.set_postfix_str("cost n/a" if math.isnan(c) else f"${c:.4f}", refresh=False)
            bar.update(self.pending[p])
            self.pending[p] = 0

    def close(self) -> None:
        self.flush()
        for bar in self.bars.values():
            bar.refresh()
            bar.close()
