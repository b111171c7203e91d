"""Routing: every request to the provider its paper's model table names (issue 16).

A profile's ``llm.providers`` names OpenAI-compatible endpoints (OpenRouter, OpenAI, Anthropic's
and Google's OpenAI-compatible endpoints, Together, a local Ollama or vLLM server), each with its
own key variable, concurrency, rate limit, timeout and batch switch. Each paper's request builders
set :attr:`lib.llm.client.Request.provider` from that paper's routing table (``routing()`` in its
``models.py``); ``llm.routes`` renames a table's provider to a profile one (``gemini: google``).
This module knows no paper: it resolves each request's provider name to an
:class:`~lib.llm.client.Endpoint` and collects every provider's share at once, each with its own
client (so its own connections, concurrency, token bucket, circuit breaker and key) into the one
raw store; a provider with ``batch: true`` takes the Batch API path (:mod:`lib.llm.batch`, its
journal under ``<store>/batches/<provider>/``). This layer splits and runs; which strategy each
provider's share takes is the dispatcher's choice (:func:`lib.llm.collect.strategy`), passed in.

Keys: before anything is sent, every provider the planned requests use must have its key variable
set (:meth:`RoutedEndpoint.check_keys`); a missing one names the provider, the variable and the
profile key. A provider's key goes only into the Authorization header of its own requests.
"""
from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from lib.llm.client import Endpoint, FatalAPIError, Request
from lib.llm.cost import price_map
from lib.llm.kernel import (CollectionError, CollectionSummary, CollectOptions, Strategy, check_complete,
                            count_completeness, run_sync)
from lib.llm.spend import Ledger, Progress
from lib.llm.store import RawStore

log = logging.getLogger("lib.llm.providers")


class RoutingError(ValueError):
    """A request whose provider the profile does not define (raised before anything is sent)."""


class MissingKeyError(FatalAPIError):
    """A provider's key variable is not set (raised before anything is sent)."""


@dataclass(frozen=True)
class RoutedEndpoint:
    """Named endpoints and the renaming of table providers; what :func:`lib.endpoints.open_endpoint`
    yields for a profile with ``llm.providers``. ``collect``/``collect_batch`` recognise it (``routed``)."""

    providers: dict[str, Endpoint]
    routes: dict[str, str] = field(default_factory=dict)
    max_failed_fraction: float = 0.01
    #: real providers are addressed by the provider's model name (the routing's provider_model)
    model_id: str = "api_model"
    #: profile llm.budget_usd and llm.prices: one budget over all providers (lib.llm.spend)
    budget_usd: float | None = None
    prices: dict = field(default_factory=dict, compare=False)
    routed = True

    @property
    def base_url(self) -> str:
        """A description for messages (check_complete): every provider's name and URL."""
        return "providers " + ", ".join(f"{n} ({e.base_url})" for n, e in self.providers.items())

    @classmethod
    def from_profile(cls, llm) -> "RoutedEndpoint":
        """From a validated profile ``llm`` section with ``providers`` (lib.config.LLMSettings)."""
        eps = {}
        for name, p in llm.providers.items():
            eps[name] = Endpoint.from_dict({
                "base_url": p.base_url, "api_key_env": p.api_key_env, "max_concurrency": int(p.max_concurrency),
                "timeout_s": float(p.request_timeout_s), "requests_per_minute": p.requests_per_minute,
                "pin_provider": "openrouter.ai" in p.base_url, "model_id": "api_model",
                "max_failed_fraction": float(llm.max_failed_fraction), "mode": "batch" if p.batch else "requests",
                "batch": llm.batch.model_dump(), "name": name}, where=f"profile llm.providers.{name}")
        return cls(eps, dict(llm.routes), max_failed_fraction=float(llm.max_failed_fraction),
                   budget_usd=llm.budget_usd, prices={m: p.model_dump() for m, p in llm.prices.items()})

    def provider_of(self, req: Request) -> str:
        """The profile provider serving ``req`` (its routing name through ``llm.routes``)."""
        if req.provider is None:
            if len(self.providers) == 1:
                return next(iter(self.providers))
            raise RoutingError(f"request for model {req.model!r} names no provider, and the profile has "
                               f"{len(self.providers)} (llm.providers: {', '.join(self.providers)}); give the model "
                               "a provider in its paper's model table")
        name = self.routes.get(req.provider, req.provider)
        if name not in self.providers:
            via = f" (llm.routes maps {req.provider!r} to {name!r})" if name != req.provider else ""
            raise RoutingError(f"model {req.model!r} is routed to provider {req.provider!r}{via}, which the profile "
                               f"does not define; expected one of llm.providers: {', '.join(self.providers)}; add "
                               f"llm.providers.{name}, or map it with llm.routes: {{{req.provider}: <provider>}}")
        return name

    def split(self, requests: Sequence[Request]) -> dict[str, list[Request]]:
        """provider name -> its requests, in the order given (raises :class:`RoutingError` first)."""
        out: dict[str, list[Request]] = {}
        for r in requests:
            out.setdefault(self.provider_of(r), []).append(r)
        return out

    def check_keys(self, names) -> None:
        """Every provider of ``names`` that needs a key has its variable set, or :class:`MissingKeyError`
        naming each missing one (provider, variable, profile key)."""
        missing = [(n, self.providers[n].api_key_env) for n in names
                   if self.providers[n].api_key_env and not os.environ.get(self.providers[n].api_key_env)]
        if missing:
            raise MissingKeyError("; ".join(
                f"provider {n!r}: environment variable {v} is not set (profile key llm.providers.{n}.api_key_env); "
                f"export {v}=<key> before running" for n, v in missing) + "; nothing was sent")


async def _collect_all(groups: dict[str, list[Request]], store: RawStore, routed: RoutedEndpoint,
                       options: CollectOptions, choose: Callable[[Endpoint, int], Strategy], ledger: Ledger,
                       bars: Progress | None) -> dict[str, object]:
    """Every provider's share at once, each by the strategy ``choose`` gives its endpoint; provider ->
    its summary or the exception that stopped it (a failing provider does not stop the others: what
    they collect is stored either way)."""
    eps = {n: routed.providers[n] if options.transport is None else replace(routed.providers[n],
                                                                               transport=options.transport)
           for n in groups}
    results = await asyncio.gather(*(choose(eps[n], len(groups[n])).run(groups[n], store, eps[n], options,
                                                                         ledger=ledger, bars=bars, provider=n)
                                     for n in groups), return_exceptions=True)
    return dict(zip(groups, results))


def _merge(total: CollectionSummary, s: CollectionSummary) -> None:
    for k in ("already_complete", "attempts_written", "valid_requests", "api_error_attempts", "stopped_requests",
              "failed_tries"):
        setattr(total, k, getattr(total, k) + getattr(s, k))
    total.tries.update(s.tries)
    total.seconds = max(total.seconds, s.seconds)       # the providers ran at the same time


def collect_routed(requests: Sequence[Request], routed: RoutedEndpoint, options: CollectOptions,
                   choose: Callable[[Endpoint, int], Strategy]) -> CollectionSummary:
    """A collection over several providers (module docstring). Routing and keys are checked for every
    request before anything is sent; then each provider's share runs at once by the strategy
    ``choose(endpoint, n_requests)`` gives it, against one budget (``llm.budget_usd``: one
    :class:`~lib.llm.spend.Ledger` for all providers) and with one progress bar per provider.
    The summary adds up the providers' (``providers``: name -> its own summary); the first provider
    that failed (key refused, endpoint down, incomplete) raises after all have finished and stored."""
    max_attempts = options.max_attempts
    requests = list(requests)
    groups = routed.split(requests)
    routed.check_keys(groups)
    total = CollectionSummary(requests=len(requests))
    with RawStore(options.store_root) as store:
        ledger = Ledger(price_map(options.prices, routed.prices), provider_of=routed.provider_of,
                        completion_tokens=options.expected_completion(),
                        budget_usd=routed.budget_usd, spent_usd=store.spent_usd,
                        spent_by_provider=store.spent_by_provider)
        if ledger.budget_usd is not None and (unpriced := ledger.unpriced(requests)):
            raise ValueError(f"llm.budget_usd is {ledger.budget_usd} but models {unpriced} have no known price, so "
                             f"the budget cannot be kept; give them one in the profile (llm.prices: {{MODEL: "
                             f"{{input: USD, output: USD}}}} per million tokens); nothing was sent")
        todo = {n: sum(store.next_attempt(r, max_attempts) is not None for r in g) for n, g in groups.items()}
        bars = (Progress({n: len(g) for n, g in groups.items()}, initial={n: len(g) - todo[n] for n, g in groups.items()})
                if options.progress and requests else None)
        try:
            results = run_sync(_collect_all(groups, store, routed, options, choose, ledger, bars))
        finally:
            if bars is not None:
                bars.close()
        for name, res in results.items():
            s = res.summary if isinstance(res, CollectionError) else res
            if isinstance(s, CollectionSummary):
                _merge(total, s)
                total.providers[name] = s
                log.info("provider %s: %s", name, s.line())
        count_completeness(total, store, requests, max_attempts)
    if options.write_index:
        RawStore(options.store_root).write_index()
    errors = {n: e for n, e in results.items() if isinstance(e, BaseException)}
    for kind in (FatalAPIError, CollectionError, BaseException):
        for name, e in errors.items():
            if isinstance(e, kind):
                log.error("provider %s stopped: %s", name, e)
                raise e
    log.info("routed collection: %s", total.line())
    check_complete(total, routed)
    return total
