"""The collection kernel: what every collection path shares, below the strategies.

A collection (:func:`lib.llm.collect.collect`) runs its requests with up to ``max_attempts``
validation attempts each and stores every attempt (:class:`lib.llm.store.RawStore`); it resumes
what an earlier run left. This module holds its parts that do not depend on how requests are
sent: the options (:class:`CollectOptions`), the summary and the errors, the checks made before
anything is sent (prompts, endpoint, lost attempts), the spend ledger, the completeness check
every collection ends with, and :func:`run_sync`. The per-request strategy
(:mod:`lib.llm.perrequest`), the batch strategy (:mod:`lib.llm.batch.run`) and the routed layer
(:mod:`lib.llm.providers`) sit above it; it knows none of them, and no paper.

Failures (docs/failures.md): an infrastructure failure that outlasts the client's retries is a
failed try, not an attempt, and the request is left for the next run; when more than
``endpoint.max_failed_fraction`` of the planned requests failed, :func:`check_complete` raises
:class:`IncompleteCollectionError`. Both leave a store that the next run resumes.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, Sequence

from lib.config import BatchSettings
from lib.llm import cost
from lib.llm.client import Endpoint, Request, endpoint_id
from lib.llm.coverage import MIN_ANSWERED_SHARE, write_coverage
from lib.llm.spend import Ledger
from lib.llm.store import RawStore

log = logging.getLogger("lib.llm.kernel")
#: expected completion tokens of an attempt when neither the request (max_tokens) nor the caller says
DEFAULT_COMPLETION_TOKENS = 1000
Validator = Callable[[str | None, str], dict]


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
    #: (experiment, model) -> [planned, answered] requests (:func:`lib.llm.coverage.write_coverage`)
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


#: validators by name: a batch plan names its validator, and an offline import labels by that name
VALIDATORS: dict[str, Validator] = {"any_answer": any_answer}


def register_validator(fn: Validator) -> Validator:
    """Make ``fn`` known by its name to offline batch imports (a paper package registers its own)."""
    VALIDATORS[fn.__name__] = fn
    return fn


def validator(name: str | None) -> Validator:
    """The registered validator called ``name`` (a batch plan's ``validate``)."""
    try:
        return VALIDATORS[name]
    except KeyError:
        raise KeyError(f"batch plan: validator {name!r} is not registered; expected one of {sorted(VALIDATORS)} "
                       "(import the paper package that defines it, e.g. lib.scholar.labels)") from None


@dataclass(frozen=True, eq=False)
class CollectOptions:
    """How one collection runs, whatever its path (per request, batch, routed).

    ``store_root``: the raw store (default ``lib.paths.RAW``). ``validate(text, task)`` decides
    whether an answer ends the request (default :func:`any_answer`; a paper passes its own, e.g.
    LLMScholarBench's :func:`lib.scholar.labels.llmcaller_validate`). ``prices``: the paper's prices
    table (columns model, price_in, price_out; the endpoint's ``prices`` override it);
    ``completion_tokens``: the expected completion per attempt (an int, used when a request has no
    ``max_tokens``, or a function of the request). ``progress``: tqdm bars per provider.
    ``write_index``: rewrite the store's index afterwards. ``batch``: the Batch API settings
    (default the endpoint's ``batch`` mapping). ``transport``: an httpx transport (tests).
    """

    store_root: Path | str | None = None
    max_attempts: int = 3
    validate: Validator = any_answer
    prices: object = None
    completion_tokens: int | Callable[[Request], int] = DEFAULT_COMPLETION_TOKENS
    progress: bool = True
    write_index: bool = True
    batch: BatchSettings | None = None
    transport: object = None

    def __post_init__(self):
        # a bad value would otherwise pass silently: max_attempts=0 "completes" without sending anything
        m, n = self.max_attempts, self.completion_tokens
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ValueError(f"CollectOptions.max_attempts: expected an integer >= 1, got {m!r}")
        if not callable(n) and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise ValueError(f"CollectOptions.completion_tokens: expected an integer >= 0 or a function of the "
                             f"request, got {n!r}")
        if not callable(self.validate):
            raise ValueError(f"CollectOptions.validate: expected a function (text, task) -> dict, got "
                             f"{self.validate!r}")

    def expected_completion(self) -> Callable[[Request], int]:
        """Expected completion tokens of one attempt of a request."""
        n = self.completion_tokens
        return n if callable(n) else (lambda r: r.max_tokens or n)

    def batch_settings(self, endpoint) -> BatchSettings:
        return self.batch or BatchSettings.from_dict(getattr(endpoint, "batch", None))


class DuplicateRequestError(ValueError):
    """The same request (:attr:`lib.llm.client.Request.key`) is planned more than once."""


def check_unique(requests: Sequence[Request]) -> None:
    """Refuse a plan that holds a request twice: both copies would be sent (paid twice) and the second
    answer refused by the append-only store (the batch path: the provider refuses the file, round after
    round). Names the first repeated keys; nothing was sent. A lazy plan is read once more only when two
    keys share a hash (hashes, not keys, are kept: plans of millions)."""
    seen: set[int] = set()
    clash = {h for h in (hash(r.key) for r in requests) if h in seen or seen.add(h)}
    counts = Counter(r.key for r in requests if hash(r.key) in clash) if clash else Counter()
    dup = {k: n for k, n in counts.items() if n > 1}
    if dup:
        first = ", ".join(f"{k} x{n}" for k, n in list(dup.items())[:3])
        raise DuplicateRequestError(f"collection plan: {len(dup)} requests are planned more than once (key "
                                    f"experiment, model, task, param, temperature, replicate), e.g. {first}; "
                                    "give repeated samples distinct replicate numbers; nothing was sent")


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


class Strategy(Protocol):
    """How a collection sends its requests: per request (:mod:`lib.llm.perrequest`) or through the
    Batch API (:mod:`lib.llm.batch.run`); :func:`lib.llm.collect.strategy` chooses one."""

    async def run(self, requests: Sequence[Request], store: RawStore, endpoint: Endpoint, options: CollectOptions, *,
                  ledger: Ledger | None = None, bars=None, provider: str | None = None) -> "CollectionSummary":
        """Into an open store, with a routed collection's shared ledger, bars and provider name."""

    def collect(self, requests: Sequence[Request], endpoint: Endpoint, options: CollectOptions) -> "CollectionSummary":
        """From one endpoint: opens the store, ends with the completeness check."""


def make_ledger(requests: Sequence[Request], store: RawStore, endpoint: Endpoint, options: CollectOptions) -> Ledger:
    """The spend ledger of one collection from one endpoint (see :mod:`lib.llm.spend`)."""
    # the embedded panel is the endpoint addressed by model key (Endpoint.from_profile)
    default = cost.endpoint_provider(endpoint.base_url, panel=endpoint.model_id == "key")
    # one endpoint takes every request whatever its model table's provider (a routed collection,
    # lib.llm.providers, labels by provider instead)
    table = cost.price_map(options.prices, getattr(endpoint, "prices", None), panel=default == cost.PANEL)
    return Ledger(table, provider_of=lambda r: default, completion_tokens=options.expected_completion(),
                  budget_usd=getattr(endpoint, "budget_usd", None), spent_usd=store.spent_usd,
                  spent_by_provider=store.spent_by_provider)


def count_completeness(summary: CollectionSummary, store: RawStore, requests: Sequence[Request], max_attempts: int) -> None:
    """Fill the completeness counts from the store: answered, ended without a valid answer, failed;
    and write each model's answered share to the store's coverage file (:func:`lib.llm.coverage.write_coverage`)."""
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


def run_sync(coro):
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
