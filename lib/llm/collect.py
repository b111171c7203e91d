"""Collection: plan requests, run them with up to three validation attempts, store every attempt.

Paper §3.2 / App. A.1: each prompt is sent; if the answer is invalid (the LLMCaller check,
:func:`lib.llm.labels.llmcaller_validate`) it is re-asked, up to three attempts, and the first
valid attempt is the one analysed; every attempt is stored. Collection resumes: requests that
already hold a valid attempt, a non-retryable stop or all their attempts are skipped, the others
continue at their next attempt.

Failures (docs/failures.md): an infrastructure failure that outlasts the client's retries is
stored as a failed try, not an attempt, and the request is left for the next run. Every
collection ends with a completeness check (planned, answered, ended without a valid answer,
failed); when more than ``endpoint.max_failed_fraction`` of the planned requests failed it raises
:class:`IncompleteCollectionError`, and the client's circuit breaker
(:class:`lib.llm.client.EndpointDownError`) stops it early when the endpoint is down. Both
leave a store that the next run resumes.

From a notebook: ``collect(requests, endpoint, store_root=...)`` (works inside a running event
loop). From a shell::

    python -m lib.llm.collect --dry-run --experiment interventions --replicates 62
    python -m lib.llm.collect --experiment baseline --base-url http://127.0.0.1:8765/v1 --model-id key
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from lib.config import BatchSettings
from lib.llm import cost, prompts
from lib.llm.client import ChatClient, Endpoint, EndpointDownError, FatalAPIError, Request
from lib.llm.labels import llmcaller_validate
from lib.llm.spend import BudgetStop, Ledger, Progress
from lib.llm.store import RawStore

log = logging.getLogger("lib.llm.collect")
#: expected completion tokens of an attempt when neither the request (max_tokens) nor the caller says
DEFAULT_COMPLETION_TOKENS = 1000


def build_requests(models, *, experiment: str, families: Sequence[str] | None = None,
                   params: Sequence[str] | None = None, replicates: int = 1, temperatures="calibrated",
                   seed: int | None = None, max_tokens: int | None = None, model_id: str = "api_model") -> list[Request]:
    """The request plan: every model x task parameter x temperature x replicate.

    ``models`` is (a subset of) :func:`lib.scholar.models.load_models`; ``temperatures`` is
    'calibrated' (each model's own, paper App. A.3) or a list (the calibration grid). Gemini
    rows get no system message (reference §1.2); grounded rows (the RAG configurations) ask for the
    provider's web search (:data:`lib.llm.client.GROUNDING`). ``model_id`` is 'api_model' or 'key'.
    Each request carries its row's ``provider`` (the routing of :func:`lib.scholar.models.routing`).
    """
    if model_id not in ("api_model", "key"):
        raise ValueError(f"build_requests: model_id must be 'api_model' or 'key', got {model_id!r}")
    tps = [tp for tp in prompts.task_params(families) if params is None or tp.param in params]
    if params is not None:
        unknown = sorted(set(params) - {tp.param for tp in tps})
        if unknown:
            raise KeyError(f"build_requests: unknown parameters {unknown} for families {families or 'all'}")
    out = []
    for m in models.itertuples(index=False):
        temps = [float(m.temperature)] if isinstance(temperatures, str) and temperatures == "calibrated" else [float(t) for t in temperatures]
        for tp in tps:
            msgs = tuple(prompts.messages(tp.family, tp.param, system_message=bool(m.system_message)))
            for t in temps:
                for rep in range(replicates):
                    out.append(Request(experiment=experiment, model=m.key, api_model=getattr(m, model_id),
                                       task=tp.family, param=tp.param, temperature=t, replicate=rep, messages=msgs,
                                       seed=seed, max_tokens=max_tokens, sub_provider=m.sub_provider,
                                       grounded=bool(getattr(m, "grounded", False)),
                                       provider=getattr(m, "provider", None)))
    return out


@dataclass
class CollectionSummary:
    """What one collection run did (counts of requests, attempts and HTTP tries by outcome)."""

    requests: int = 0
    already_complete: int = 0
    attempts_written: int = 0
    valid_requests: int = 0
    api_error_attempts: int = 0
    stopped_requests: int = 0
    tries: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    #: failed tries stored (infrastructure failures that outlasted the retries; not attempts)
    failed_tries: int = 0
    #: the completeness check, from the store after the run: requests with a valid attempt,
    #: requests that ended without one (all attempts used or a non-retryable stop), and requests
    #: still open (failed at the infrastructure: the next run asks again)
    answered: int = 0
    ended_invalid: int = 0
    failed: int = 0
    #: malformed store lines moved to quarantine.jsonl when the store was opened
    quarantined: int = 0
    #: a routed collection (lib.llm.providers): provider name -> that provider's own summary
    providers: dict = field(default_factory=dict)
    #: USD the attempts of this run cost (from their usage; lib.llm.spend)
    cost_usd: float = 0.0
    #: lost attempts (quarantined lines below stored attempts) asked again of the embedded panel
    reasked_lost: int = 0
    #: (experiment, model) -> [planned, answered] requests (:func:`write_coverage`)
    coverage: dict = field(default_factory=dict)

    def partial(self) -> dict[tuple[str, str], float]:
        """(experiment, model) -> answered share, for models under :data:`MIN_ANSWERED_SHARE`."""
        return {k: a / p for k, (p, a) in self.coverage.items() if p and a / p < MIN_ANSWERED_SHARE}

    def line(self) -> str:
        return (f"{self.requests} requests ({self.already_complete} already complete), {self.attempts_written} attempts "
                f"written, {self.valid_requests} valid, {self.api_error_attempts} API-error attempts, "
                f"{self.failed_tries} failed tries, tries {dict(self.tries)}, {self.seconds:.1f} s; "
                + self.completeness())

    def completeness(self) -> str:
        part = self.partial()
        return (f"completeness: {self.requests} planned, {self.answered} answered, {self.ended_invalid} ended "
                f"without a valid answer, {self.failed} failed (retryable)"
                + (f"; {self.quarantined} malformed store lines quarantined" if self.quarantined else "")
                + (f"; {self.reasked_lost} lost attempts re-asked" if self.reasked_lost else "")
                + (f"; PARTIAL (answered under {MIN_ANSWERED_SHARE:.0%}): " + ", ".join(
                    f"{m} {v:.0%}" for (_, m), v in sorted(part.items())) if part else ""))


class CollectionError(RuntimeError):
    """A collection that did not finish; the store holds everything done, and a re-run resumes."""

    def __init__(self, message: str, summary: CollectionSummary):
        super().__init__(message)
        self.summary = summary


class IncompleteCollectionError(CollectionError):
    """More requests failed (retryable) than ``endpoint.max_failed_fraction`` allows."""


class EndpointDown(CollectionError):
    """The circuit breaker stopped the collection (:class:`lib.llm.client.EndpointDownError`)."""


class BudgetExceeded(CollectionError):
    """The next attempt's expected cost would pass ``llm.budget_usd`` (:mod:`lib.llm.spend`); what was
    sent is stored, and a run with a larger budget resumes without re-sending it."""


def any_answer(text: str | None, task: str) -> dict:
    """Validation for free-text tasks (authority, AttriBench): any non-empty answer is kept."""
    ok = bool((text or "").strip())
    return {"is_valid": ok, "message": "Validation successful" if ok else "Empty response", "extracted_data": None}


def check_prompts(requests: Sequence[Request], store: RawStore) -> None:
    """Refuse to resume a request whose stored attempts were made with another prompt."""
    for r in requests:
        for a, done in sorted(store.attempts(r).items()):
            if done["prompt_sha256"] not in (None, r.prompt_sha256):
                raise ValueError(f"raw store {store.root}: attempt {a} of {r.key} was made with a different prompt "
                                 f"(prompt_sha256 {done['prompt_sha256'][:12]} vs {r.prompt_sha256[:12]}); "
                                 "use a new experiment name for changed prompts")


class LostAttemptsError(ValueError):
    """Stored attempts of the planned requests miss earlier ones (quarantined lines), and the endpoint
    is a real one: re-asking would not give the lost answer back, and a later attempt exists only
    because of it, so the collection stops and says which."""


def check_lost(requests: Sequence[Request], store: RawStore, endpoint: Endpoint) -> int:
    """The lost attempts of ``requests`` (:meth:`RawStore.holes`: quarantined lines below stored
    attempts). The embedded panel answers a re-ask exactly as before, so there they are asked again
    (returns how many); a real endpoint's are refused with :class:`LostAttemptsError`."""
    from lib.llm.client import endpoint_id

    lost = [(r, store.holes(r)) for r in requests]
    lost = [(r, h) for r, h in lost if h]
    n = sum(len(h) for _, h in lost)
    if not n:
        return 0
    where = f"{store.root / 'quarantine.jsonl'}" if store.quarantined or (store.root / "quarantine.jsonl").exists() \
        else "the shards"
    first = lost[0]
    msg = (f"raw store {store.root}: {n} stored attempts of {len(lost)} requests are lost (e.g. attempt "
           f"{first[1][0]} of {first[0].key}, whose later attempts are stored), most likely malformed lines moved to "
           f"{where}")
    if endpoint_id(endpoint) == "panel":
        log.warning("%s; the embedded panel answers them again exactly, so they are re-asked", msg)
        return n
    raise LostAttemptsError(f"{msg}. A real endpoint would not give the lost answers back, and the later attempts "
                            "were asked because of them: repair the lines (quarantine.jsonl keeps their text) and put "
                            "them back in their shards, or move the store away and collect anew; nothing was sent")


class EndpointMismatchError(ValueError):
    """Stored attempts of the planned requests were answered by another endpoint than this run's."""


def check_endpoint(requests: Sequence[Request], store: RawStore, endpoint: Endpoint) -> None:
    """Refuse to resume requests whose stored attempts another endpoint answered (``endpoint_host``):
    one endpoint's answers never count as another's. Records that do not say (older ones on a
    loopback address) are not checked."""
    from lib.llm.client import endpoint_id

    want = endpoint_id(endpoint)
    for r in requests:
        for a, done in sorted(store.attempts(r).items()):
            have = done.get("endpoint")
            if have is not None and have != want:
                raise EndpointMismatchError(
                    f"raw store {store.root}: attempt {a} of {r.key} was answered by endpoint {have!r}, and this run "
                    f"sends to {want!r} ({endpoint.base_url}); resuming would count one endpoint's answers as the "
                    f"other's. Give this endpoint a store of its own (another outputs folder: "
                    f"COMPANION_OUTPUTS=outputs-<name>, or --store), or move {store.root} away")


def _spend(requests: Sequence[Request], store: RawStore, endpoint: Endpoint, prices, completion_tokens):
    """The ledger and the provider of each request for one collection (see :mod:`lib.llm.spend`)."""
    # the embedded panel is the endpoint addressed by model key (Endpoint.from_profile)
    default = cost.endpoint_provider(endpoint.base_url, panel=endpoint.model_id == "key")
    # one endpoint takes every request whatever its model table's provider (a routed collection,
    # lib.llm.providers, labels by provider instead)
    provider_of = (lambda r: default)
    table = cost.price_map(prices, getattr(endpoint, "prices", None), panel=default == cost.PANEL)
    expect = completion_tokens if callable(completion_tokens) else (lambda r: r.max_tokens or completion_tokens)
    ledger = Ledger(table, provider_of=provider_of, completion_tokens=expect,
                    budget_usd=getattr(endpoint, "budget_usd", None), spent_usd=store.spent_usd,
                    spent_by_provider=store.spent_by_provider)
    return ledger, provider_of


async def collect_async(requests: Iterable[Request], store: RawStore, endpoint: Endpoint, *, max_attempts: int = 3,
                        transport=None, validate: Callable[[str | None, str], dict] = llmcaller_validate,
                        prices=None, completion_tokens: int | Callable[[Request], int] = DEFAULT_COMPLETION_TOKENS,
                        progress: bool = True, ledger: Ledger | None = None, bars: Progress | None = None
                        ) -> CollectionSummary:
    """Run every incomplete request into an open ``store`` (see module docstring).

    ``validate(text, task)`` decides whether an answer ends the request: the LLMCaller check for
    the LLMScholarBench tasks (default), :func:`any_answer` for free-text tasks.
    Spend (:mod:`lib.llm.spend`): ``prices`` is the paper's prices table (columns model,
    price_in, price_out; the endpoint's ``prices`` override it), ``completion_tokens`` the expected
    completion per attempt (an int, used when a request has no ``max_tokens``, or a function of the
    request). Each stored attempt carries its ``cost``; with ``endpoint.budget_usd`` each attempt
    is reserved before it is sent and :class:`BudgetExceeded` stops the collection cleanly.
    ``progress``: tqdm bars per provider (requests done of total, rate, ETA, cost so far).
    ``ledger`` and ``bars``: shared by the providers of a routed collection (one budget, one set of
    bars; :func:`lib.llm.providers.collect_routed` owns and closes them).
    """
    requests = list(requests)
    summary = CollectionSummary(requests=len(requests))
    t0 = time.perf_counter()
    check_prompts(requests, store)
    check_endpoint(requests, store, endpoint)
    summary.reasked_lost = check_lost(requests, store, endpoint)
    shared_bars = bars is not None
    ledger, provider_of = ((ledger, ledger.provider_of) if ledger is not None else
                           _spend(requests, store, endpoint, prices, completion_tokens))
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
        async with ChatClient(endpoint, transport=transport) as client:
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
                _check(summary, store, requests, max_attempts)
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
    _check(summary, store, requests, max_attempts)
    if ledger.stopped:
        done = summary.answered + summary.ended_invalid
        raise BudgetExceeded(
            f"budget reached: llm.budget_usd = ${ledger.budget_usd:.4f}, and the next attempt (about "
            f"${ledger.refused:.4f}) would pass it; stopped sending with {done} of {summary.requests} requests done "
            f"({summary.attempts_written} attempts stored by this run); {ledger.account()}. To resume, raise "
            f"llm.budget_usd in the profile or run again with a larger budget: stored attempts are never re-sent, "
            f"so nothing is paid twice", summary)
    return summary


def _check(summary: CollectionSummary, store: RawStore, requests: Sequence[Request], max_attempts: int) -> None:
    """Fill the completeness counts from the store: answered, ended without a valid answer, failed;
    and write each model's answered share to the store's coverage file (:func:`write_coverage`)."""
    summary.answered = summary.ended_invalid = summary.failed = 0
    summary.quarantined = len(store.quarantined)
    cov: dict[tuple[str, str], list[int]] = {}
    for r in requests:
        done = store.attempts(r)
        c = cov.setdefault((r.experiment, r.model), [0, 0])
        c[0] += 1
        c[1] += any(a["status"] == "ok" for a in done.values())
        if any(a["valid"] for a in done.values()):
            summary.answered += 1
        elif store.next_attempt(r, max_attempts) is None:
            summary.ended_invalid += 1
        else:
            summary.failed += 1
    summary.coverage = cov
    if cov:
        write_coverage(store.root, cov)


#: a model that answered (HTTP 2xx with choices, valid or not) fewer than this share of its planned
#: requests is *partial*: marked so in the manifest and its tables and figures, and the run fails
#: unless ``--allow-partial`` (issue 26)
MIN_ANSWERED_SHARE = 0.9
COVERAGE_NAME = "coverage.json"


def write_coverage(root: Path, cov: dict[tuple[str, str], list[int]]) -> None:
    """Merge {(experiment, model): [planned, answered]} into ``<root>/coverage.json`` (the latest
    collection of a model in an experiment replaces its entry), with its share, whether it is
    partial and the notebook that collected it (``COMPANION_NOTEBOOK``, set by the runner)."""
    import json
    import os

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
    import json

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


def check_complete(summary: CollectionSummary, endpoint: Endpoint) -> None:
    """Raise :class:`IncompleteCollectionError` when more than ``endpoint.max_failed_fraction`` of the
    planned requests are still failed (the completeness check every collection ends with)."""
    limit = endpoint.max_failed_fraction
    if summary.requests and summary.failed > limit * summary.requests:
        raise IncompleteCollectionError(
            f"collection from {endpoint.base_url} is incomplete: {summary.failed} of {summary.requests} requests "
            f"({summary.failed / summary.requests:.1%}) failed at the infrastructure, above the allowed "
            f"{limit:.1%} (profile llm.max_failed_fraction); {summary.completeness()}. They are stored as failed "
            f"tries, not attempts: run again to resume", summary)


def _run_sync(coro):
    """asyncio.run, or a helper thread when an event loop already runs (Jupyter kernels)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict = {}
    th = threading.Thread(target=lambda: box.update(result=_capture(coro)))
    th.start()
    th.join()
    if "error" in box["result"]:
        raise box["result"]["error"]
    return box["result"]["value"]


def _capture(coro) -> dict:
    try:
        return {"value": asyncio.run(coro)}
    except BaseException as e:  # re-raised in the caller's thread
        return {"error": e}


def collect(requests: Sequence[Request], endpoint: Endpoint, *, store_root: Path | str | None = None,
            max_attempts: int = 3, transport=None, write_index: bool = True,
            validate: Callable[[str | None, str], dict] = llmcaller_validate, prices=None,
            completion_tokens: int | Callable[[Request], int] = DEFAULT_COMPLETION_TOKENS,
            progress: bool = True) -> CollectionSummary:
    """Collect ``requests`` into the raw store at ``store_root`` (default ``lib.paths.RAW``).

    ``validate``, ``prices``, ``completion_tokens``, ``progress``: see :func:`collect_async`
    (:func:`any_answer` for free-text tasks). Raises :class:`BudgetExceeded` when the profile's
    ``llm.budget_usd`` would be passed.
    Raises :class:`EndpointDown` (circuit breaker) or :class:`IncompleteCollectionError`
    (completeness check) after storing all that was done, so a re-run resumes.
    A routed endpoint (profile ``llm.providers``, :class:`lib.llm.providers.RoutedEndpoint`) splits
    the requests by provider and collects from all providers at once
    (:func:`lib.llm.providers.collect_routed`). An endpoint with ``mode: batch`` (profile ``llm.mode``) sends a collection of at least
    ``llm.batch.min_requests`` requests through the Batch API instead
    (:func:`lib.llm.batch.collect_batch`: same store, attempts and labels).
    """
    if getattr(endpoint, "routed", False):
        from lib.llm.providers import collect_routed

        return collect_routed(requests, endpoint, store_root=store_root, max_attempts=max_attempts,
                              transport=transport, write_index=write_index, validate=validate, prices=prices,
                              completion_tokens=completion_tokens, progress=progress)
    # ---- llm.mode: batch dispatch (lib.llm.batch owns that path) for collections of llm.batch.min_requests+ ----
    if getattr(endpoint, "mode", "requests") == "batch":
        from lib.llm.batch import collect_batch

        if not hasattr(requests, "__len__"):
            requests = list(requests)    # a sized re-iterable (a lazy plan) stays lazy
        if len(requests) >= BatchSettings.from_dict(endpoint.batch).min_requests:
            return collect_batch(requests, endpoint, store_root=store_root, max_attempts=max_attempts,
                                 transport=transport, write_index=write_index, validate=validate, prices=prices,
                                 completion_tokens=completion_tokens)
    try:
        with RawStore(store_root) as store:
            summary = _run_sync(collect_async(requests, store, endpoint, max_attempts=max_attempts,
                                              transport=transport, validate=validate, prices=prices,
                                              completion_tokens=completion_tokens, progress=progress))
    except CollectionError as e:
        if write_index:
            RawStore(store_root).write_index(read=False)
        log.error("collection stopped: %s", e)
        raise
    if write_index:
        RawStore(store_root).write_index(read=False)
    log.info("collection: %s", summary.line())
    if summary.quarantined:
        log.warning("raw store %s: %d malformed lines were moved to %s", store.root, summary.quarantined,
                    store.root / "quarantine.jsonl")
    check_complete(summary, endpoint)
    return summary


def dry_run(requests: Sequence[Request], prices, *, output_tokens: int = DEFAULT_COMPLETION_TOKENS,
            max_attempts: int = 3, base_url: str | None = None, file=None):
    """Print what ``requests`` would send and cost, sending nothing, in the table of ``./run_all.sh
    --dry-run`` (:func:`lib.llm.cost.plan_table`, :func:`lib.llm.cost.format_plan`); return its rows.
    ``prices``: columns model, price_in, price_out (a paper's ``models.prices()``). Each request is
    labelled with ``base_url``'s host, or without one the provider its model table routes it to."""
    experiments = ", ".join(dict.fromkeys(r.experiment for r in requests)) or "no requests"
    plan = cost.PlannedCollection("command line", experiments, list(requests), output_tokens,
                                  f"{output_tokens} per attempt (--output-tokens)", max_attempts, prices=prices)
    table = cost.plan_table(plan, provider=cost.endpoint_provider(base_url) if base_url else
                            (lambda r: r.provider or "unrouted"))
    print(cost.format_plan(table), file=file or sys.stdout)
    return table


def plan_arguments(ap: argparse.ArgumentParser) -> None:
    """The command-line options of an LLMScholarBench request plan (shared with ``lib.llm.batch export``)."""
    ap.add_argument("--experiment", required=True, help="experiment name (a folder of the raw store)")
    ap.add_argument("--models", default="all", help="comma-separated model keys, or 'all'")
    ap.add_argument("--families", default=None, help="comma-separated task families (default: all six)")
    ap.add_argument("--replicates", type=int, default=1)
    ap.add_argument("--temperatures", default="calibrated", help="'calibrated' or comma-separated values")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--model-id", default="api_model", choices=["api_model", "key"])
    ap.add_argument("--pin-provider", action="store_true", help="send OpenRouter sub-provider pinning")
    ap.add_argument("--store", default=None, help="raw store folder (default outputs/raw)")


def _models_from_args(ap: argparse.ArgumentParser, a):
    from lib.scholar.models import load_models

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
    return build_requests(_models_from_args(ap, a), experiment=a.experiment,
                          families=a.families.split(",") if a.families else None, replicates=a.replicates,
                          temperatures=temps, seed=a.seed, model_id=a.model_id)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.llm.collect", description=__doc__.split("\n\n")[0])
    plan_arguments(ap)
    ap.add_argument("--output-tokens", type=int, default=1000, help="dry run: expected output tokens per attempt")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and its cost; send nothing")
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--api-key-env", default=None, help="NAME of the environment variable holding the key")
    ap.add_argument("--max-concurrency", type=int, default=8)
    a = ap.parse_args(argv)
    from lib.scholar.models import prices

    reqs = plan_from_args(ap, a)
    dry_run(reqs, prices(_models_from_args(ap, a)), output_tokens=a.output_tokens, base_url=a.base_url)
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
    from lib.llm.store import StoreError

    try:
        summary = collect(reqs, endpoint, store_root=a.store)
    except (CollectionError, FatalAPIError, StoreError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(summary.line())
    if summary.quarantined:
        print(f"error: {summary.quarantined} malformed raw-store lines were quarantined (see quarantine.jsonl)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
