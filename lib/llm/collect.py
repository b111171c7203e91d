"""Collection: one entry, :func:`collect`, that chooses how the requests go, once.

``collect(requests, endpoint, ...)`` sends every request that lacks a valid attempt, up to
``max_attempts`` validation attempts each, into the raw store, and resumes what an earlier run
left (:mod:`lib.llm.kernel`: options, summary, errors, the completeness check). The choice
(:func:`strategy`): an endpoint with ``mode: batch`` (profile ``llm.mode``) sends a collection
of at least ``llm.batch.min_requests`` requests through the Batch API (:mod:`lib.llm.batch.run`),
anything else goes one chat completion per attempt (:mod:`lib.llm.perrequest`). A routed
endpoint (profile ``llm.providers``, :class:`lib.llm.providers.RoutedEndpoint`) splits the
requests by provider and makes the same choice for each provider's share
(:func:`lib.llm.providers.collect_routed`). Callers never branch.

From a notebook: ``collect(requests, endpoint, store_root=..., validate=...)`` (works inside a
running event loop). This package knows no paper: a paper passes its own ``validate`` (the
default keeps any non-empty answer, :func:`lib.llm.kernel.any_answer`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from lib.config import BatchSettings
from lib.llm import perrequest, providers
from lib.llm.batch import run as batch_run
from lib.llm.client import Endpoint, Request
from lib.llm.kernel import CollectionSummary, CollectOptions, Strategy


def strategy(endpoint: Endpoint, n_requests: int) -> Strategy:
    """The batch strategy for an endpoint with ``mode: batch`` and a collection of at least its
    ``batch.min_requests`` requests, else the per-request one (the only place this is decided)."""
    if getattr(endpoint, "mode", "requests") == "batch" and \
            n_requests >= BatchSettings.from_dict(endpoint.batch).min_requests:
        return batch_run
    return perrequest


def collect(requests: Sequence[Request], endpoint: Endpoint, options: CollectOptions | None = None,
            **fields) -> CollectionSummary:
    """Collect ``requests`` into the raw store (see module docstring).

    ``options`` (:class:`~lib.llm.kernel.CollectOptions`) says how; keyword ``fields`` override
    its fields (``store_root``, ``max_attempts``, ``validate``, ``prices``, ``completion_tokens``,
    ``progress``, ``write_index``, ``batch``, ``transport``), so ``collect(reqs, ep,
    store_root=..., validate=...)`` reads as before. Raises :class:`~lib.llm.kernel.BudgetExceeded`
    when the profile's ``llm.budget_usd`` would be passed, :class:`~lib.llm.kernel.EndpointDown`
    (circuit breaker) or :class:`~lib.llm.kernel.IncompleteCollectionError` (completeness check),
    each after storing all that was done, so a re-run resumes.
    """
    options = replace(options or CollectOptions(), **fields)
    if getattr(endpoint, "routed", False):
        return providers.collect_routed(requests, endpoint, options, strategy)
    if not hasattr(requests, "__len__"):
        requests = list(requests)    # a sized re-iterable (a lazy plan) stays lazy
    return strategy(endpoint, len(requests)).collect(requests, endpoint, options)
