"""The per-request strategy: one chat completion per attempt, up to ``max_attempts`` validation attempts.

Each prompt is sent; if the answer is invalid (the caller's ``validate``) it is re-asked, and the
first valid attempt is the one analysed; every attempt is stored. Requests that already hold a
valid attempt, a non-retryable stop or all their attempts are skipped, the others continue at
their next attempt. The client's circuit breaker (:class:`lib.llm.client.EndpointDownError`)
stops the collection early when the endpoint is down (:class:`~lib.llm.kernel.EndpointDown`).
The dispatcher :func:`lib.llm.collect.collect` chooses this path; it knows no other.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Sequence

from lib.llm.client import ChatClient, Endpoint, EndpointDownError, FatalAPIError, Request
from lib.llm.kernel import (BudgetExceeded, CollectionError, CollectionSummary, CollectOptions, EndpointDown,
                            check_complete, check_endpoint, check_lost, check_prompts, check_unique, count_completeness,
                            make_ledger, run_sync)
from lib.llm.spend import BudgetStop, Ledger, Progress
from lib.llm.store import RawStore

log = logging.getLogger("lib.llm.perrequest")


async def run(requests: Sequence[Request], store: RawStore, endpoint: Endpoint, options: CollectOptions, *,
              ledger: Ledger | None = None, bars: Progress | None = None, provider: str | None = None
              ) -> CollectionSummary:
    """Run every incomplete request into an open ``store``, one chat completion per attempt.

    Each stored attempt carries its ``cost``; with ``endpoint.budget_usd`` each attempt is reserved
    before it is sent and :class:`~lib.llm.kernel.BudgetExceeded` stops the collection cleanly.
    ``ledger`` and ``bars``: shared by the providers of a routed collection (one budget, one set of
    bars; :func:`lib.llm.providers.collect_routed` owns and closes them). ``provider``: a routed
    collection's provider name (not needed here: the ledger names each request's provider).
    """
    max_attempts, validate, progress = options.max_attempts, options.validate, options.progress
    requests = list(requests)
    summary = CollectionSummary(requests=len(requests))
    t0 = time.perf_counter()
    check_unique(requests)
    check_prompts(requests, store)
    check_endpoint(requests, store, endpoint)
    summary.reasked_lost = check_lost(requests, store, endpoint)
    shared_bars = bars is not None
    ledger = ledger if ledger is not None else make_ledger(requests, store, endpoint, options)
    provider_of = ledger.provider_of
    todo = [r for r in requests if store.next_attempt(r, max_attempts) is not None]
    if ledger.budget_usd is not None and (unpriced := ledger.unpriced(todo)):
        raise ValueError(f"llm.budget_usd is {ledger.budget_usd} but models {unpriced} have no known price, so the "
                         f"budget cannot be kept; give them one in the profile (llm.prices: {{MODEL: {{input: USD, "
                         f"output: USD}}}} per million tokens)")
    gate = asyncio.Semaphore(endpoint.max_concurrency) if ledger.budget_usd is not None else None
    if progress and requests and not shared_bars:
        totals, initial = Counter(map(provider_of, requests)), Counter(map(provider_of, todo))
        bars = Progress(totals, initial={p: totals[p] - initial[p] for p in totals})

    async def one(client: ChatClient, r: Request, attempt: int) -> dict | None:
        """Send one attempt (reserved against the budget first); None when the budget stops it."""
        if gate is None:
            reserved = ledger.reserve(r)
            rec = await client.attempt(r, attempt, first_try=store.tries_spent(r, attempt) + 1)
        else:
            async with gate:            # reserve only what is about to go out, not the queue
                try:
                    reserved = ledger.reserve(r)
                except BudgetStop:
                    return None
                rec = await client.attempt(r, attempt, first_try=store.tries_spent(r, attempt) + 1)
        ledger.settle(r, rec, reserved)
        return rec

    async def run(client: ChatClient, r: Request) -> None:
        nxt = store.next_attempt(r, max_attempts)
        if nxt is None:
            summary.already_complete += 1
            return
        spent, stopped = 0.0, False
        try:
            attempt = nxt
            while attempt is not None:
                rec = await one(client, r, attempt)
                if rec is None:             # the budget stopped it: not done, the next run continues it
                    stopped = True
                    return
                spent += rec["cost"]["usd"] if rec["cost"]["usd"] is not None else float("nan")
                rec["validation"] = (validate(rec["content"], r.task) if rec["status"] == "ok" else
                                     {"is_valid": False, "message": "Infrastructure failure - API call failed",
                                      "extracted_data": None})
                store.append(rec)
                if rec["status"] == "infra_error":      # a failed try: the request stays open for the next run
                    summary.failed_tries += 1
                    return
                summary.attempts_written += 1
                summary.api_error_attempts += rec["status"] == "api_error"
                if rec["validation"]["is_valid"]:
                    summary.valid_requests += 1
                    return
                if rec["stop"]:
                    summary.stopped_requests += 1
                    return
                attempt = store.next_attempt(r, max_attempts)      # a refilled lost attempt, else the next one
                if endpoint.reask_delay_s and attempt is not None:
                    await asyncio.sleep(endpoint.reask_delay_s)
        finally:
            if bars is not None and stopped:
                bars.add_cost(provider_of(r), spent)
            elif bars is not None:
                bars.done(provider_of(r), spent)

    try:
        async with ChatClient(endpoint, transport=options.transport) as client:
            tasks = [asyncio.ensure_future(run(client, r)) for r in requests]
            try:
                await asyncio.gather(*tasks)
            except (FatalAPIError, EndpointDownError) as e:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                if isinstance(e, FatalAPIError):
                    raise
                summary.tries = Counter(client.counts)
                count_completeness(summary, store, requests, max_attempts)
                raise EndpointDown(f"{e}; stopped the collection with {summary.answered + summary.ended_invalid} of "
                                   f"{summary.requests} requests done ({summary.attempts_written} attempts stored by "
                                   f"this run, {summary.failed_tries} failed tries); start the endpoint and run again "
                                   f"to resume", summary) from None
            finally:
                summary.tries = Counter(client.counts)
    finally:
        if bars is not None and not shared_bars:
            bars.close()
    summary.seconds = time.perf_counter() - t0
    summary.cost_usd = ledger.spent - ledger.spent_before
    count_completeness(summary, store, requests, max_attempts)
    if ledger.stopped:
        done = summary.answered + summary.ended_invalid
        raise BudgetExceeded(
            f"budget reached: llm.budget_usd = ${ledger.budget_usd:.4f}, and the next attempt (about "
            f"${ledger.refused:.4f}) would pass it; stopped sending with {done} of {summary.requests} requests done "
            f"({summary.attempts_written} attempts stored by this run); {ledger.account()}. To resume, raise "
            f"llm.budget_usd in the profile or run again with a larger budget: stored attempts are never re-sent, "
            f"so nothing is paid twice", summary)
    return summary


def collect(requests: Sequence[Request], endpoint: Endpoint, options: CollectOptions) -> CollectionSummary:
    """Collect ``requests`` from one endpoint into the raw store at ``options.store_root``.

    Raises :class:`~lib.llm.kernel.BudgetExceeded`, :class:`~lib.llm.kernel.EndpointDown` or
    :class:`~lib.llm.kernel.IncompleteCollectionError` after storing all that was done, so a re-run
    resumes.
    """
    try:
        with RawStore(options.store_root) as store:
            summary = run_sync(run(requests, store, endpoint, options))
    except CollectionError as e:
        if options.write_index:
            RawStore(options.store_root).write_index(read=False)
        log.error("collection stopped: %s", e)
        raise
    if options.write_index:
        RawStore(options.store_root).write_index(read=False)
    log.info("collection: %s", summary.line())
    if summary.quarantined:
        log.warning("raw store %s: %d malformed lines were moved to %s", store.root, summary.quarantined,
                    store.root / "quarantine.jsonl")
    check_complete(summary, endpoint)
    return summary
