"""An OpenAI-compatible async chat-completions client for collection (httpx).

One :class:`ChatClient` per endpoint (OpenRouter, a local Ollama/vLLM server, the embedded
panel). It sends one validation *attempt* of a :class:`Request` and returns a flat record with
what the store keeps: the request body, the full response, the served model, provider,
system_fingerprint, usage, latency, timestamps and the tries it took.

Inside an attempt an infrastructure loop retries transient failures (reference §1.5, made
honest): 429 rate limits (waiting ``Retry-After`` when given), 5xx and 408, timeouts, connection
errors, HTTP 200 bodies that carry an ``error`` (OpenRouter reports errors raised during
generation that way) and unparsable bodies, with exponential backoff
``min(base * 2**(k-1), max)``. Nothing is retried for a 4xx. A refusal of the requests
themselves stops that provider at once with :class:`RejectedError` (status, scrubbed body and a
hint: key rejected, model not served, request shape refused) without storing anything, so a
resumed run with the fix continues where it stopped: 401/402/403 or ``insufficient_quota``, a
model not served (404, or a 400/422 body naming the model: :func:`names_model`), and any 4xx
before the endpoint's first 2xx answer of the run. A later 400/422 is one request's fault: the
attempt is stored with ``stop=True``.

When the retries run out, what the last try was decides what the record means
(docs/failures.md has the full table):

* an error the provider RETURNED (HTTP 200 with an ``error`` body, a 200 without choices) is an
  *attempt* with status ``api_error``: it counts toward LLMScholarBench's three validation
  attempts, as in the reference (faithful attempt semantics);
* an *infrastructure failure* (:data:`INFRA_KINDS`: connection refused/reset, timeout, 5xx/408,
  429) is not a model's answer: the record gets status ``infra_error``, a *failed try* that the
  store keeps but does not count as an attempt, so a resumed run asks again.

A circuit breaker raises :class:`EndpointDownError` after ``breaker_after`` consecutive
connection/timeout/5xx tries (at least ``max_concurrency + 1``, so one burst of in-flight
failures is not enough): the endpoint is down, and collection stops instead of filling the store
with failures.

Keys: the endpoint names an environment variable (``api_key_env``); the key is read from
``os.environ`` at send time, used only in the Authorization header, and scrubbed from anything
stored or logged. The local panel needs no key.
"""
from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import logging
import os
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any

import httpx

log = logging.getLogger("lib.llm.client")
FATAL_STATUS = (401, 402, 403)
CLIENT_VERSION = "lib.llm/1"
#: the namespace of the request ids (uuid5 of the request key)
REQUEST_ID_NAMESPACE = uuid.UUID("6f1c2a1e-3b7d-5c39-9a51-0d8e7c4b2f60")


#: try kinds that are failures of the way to the model, not answers of the provider
INFRA_KINDS = ("connection", "timeout", "server", "rate_limit")
#: the subset that trips the circuit breaker (a 429 proves the endpoint is up)
DOWN_KINDS = ("connection", "timeout", "server")


class FatalAPIError(RuntimeError):
    """Authentication, credit or quota failure: stop collecting (nothing is stored)."""


class RejectedError(FatalAPIError):
    """The provider refused the requests themselves (key rejected, model not served, request shape
    refused): re-asking cannot help, so that provider is stopped at once. Carries the ``status``,
    the ``body`` (scrubbed of the key) and the ``hint`` of :func:`rejection_hint`."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "", hint: str = ""):
        super().__init__(message)
        self.status, self.body, self.hint = status, body, hint


def names_model(status: int | None, text: str, model: str) -> bool:
    """Whether an error answer says the model is not served: HTTP 404, a ``model_not_found`` code, or a
    400/422 body naming the requested model next to the word 'model' (LiteLLM, vLLM, Ollama say so)."""
    import re

    low = (text or "").lower()
    if status == 404 or "model_not_found" in low:
        return True
    named = bool(model) and re.search(rf"(?<![\w/-]){re.escape(model.lower())}(?![\w/-])", low) is not None
    return status in (400, 422) and named and re.search(r"\bmodel", low) is not None


def rejection_hint(status: int | None, text: str, model: str, key_env: str | None) -> str:
    """What a refused request most likely means, and the fix."""
    if status in (401, 403) or (status == 400 and "no connected db" in (text or "").lower()):
        where = f"the variable {key_env} (endpoint api_key_env)" if key_env else "a key (api_key_env names none)"
        return f"key rejected: check {where}; the endpoint does not accept it"
    if status == 402 or "insufficient_quota" in (text or ""):
        return "credit or quota exhausted: top up the account or raise its limit, then run again to resume"
    if names_model(status, text, model):
        return (f"model not served: the endpoint does not serve {model!r}; check the model table's api_model "
                "(or the gateway's model list) and the profile's llm.routes")
    return ("request shape refused: the endpoint answered the first requests with a 4xx, so it does not take "
            "this request body (an OpenAI chat-completions body; see the response above)")


class EndpointDownError(RuntimeError):
    """The circuit breaker: too many consecutive infrastructure failures; the endpoint looks down."""


def endpoint_id(endpoint: "Endpoint") -> str:
    """Who answers an endpoint's requests, as stored with every attempt (``endpoint_host``): 'panel'
    for the embedded panel (addressed by model key; its port changes each run), else the base URL's
    host[:port] (e.g. 'openrouter.ai', '127.0.0.1:4000')."""
    from urllib.parse import urlsplit

    if endpoint.model_id == "key":
        return "panel"
    return urlsplit(endpoint.base_url).netloc or endpoint.base_url


def is_http_url(url) -> bool:
    """An http(s) URL with a host and a valid port (if any)."""
    from urllib.parse import urlsplit

    if not isinstance(url, str) or any(c.isspace() for c in url):
        return False
    try:
        parts = urlsplit(url)
        parts.port                  # raises ValueError outside 0-65535
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


#: The web-search option a grounded request sends, by the provider it goes to (:func:`grounding_shape`):
#: OpenRouter's web plugin, else Google Search grounding as the Gemini API takes it, the tool
#: ``{"google_search": {}}`` in ``tools`` (the embedded panel reads both). Checked (docs search,
#: issue 16): Google's grounding guide gives that tool for the REST API; Google's OpenAI-compatibility
#: page (ai.google.dev/gemini-api/docs/openai, base URL .../v1beta/openai/) documents Gemini-only
#: options as ``extra_body: {"google": {...}}`` (thinking_config, cached_content) and no search field
#: of its own, and gateways document the same ``tools`` entry on the chat-completions interface. What
#: comes back is Gemini's GroundingMetadata (webSearchQueries, groundingChunks with web uri/title,
#: groundingSupports linking answer segments to chunks, searchEntryPoint): :func:`grounding_of`
#: keeps it in either spelling wherever the compat layer puts it (body, choice or message).
GROUNDING = {"openrouter": ("plugins", [{"id": "web"}]), "gemini": ("tools", [{"google_search": {}}])}
#: Where providers put what the search found: Gemini's grounding metadata (native and compat
#: spellings), OpenAI/OpenRouter's url_citation ``annotations`` on the message, top-level ``citations``.
GROUNDING_KEYS = ("groundingMetadata", "grounding_metadata", "annotations", "citations", "search_results")


def grounding_shape(base_url: str) -> str:
    """'openrouter' (web plugin) for OpenRouter's API, else 'gemini' (the google_search tool)."""
    return "openrouter" if "openrouter.ai" in (base_url or "") else "gemini"


def grounding_of(payload: Any) -> dict | None:
    """The grounding metadata a response carries ({key: value} from the body, its first choice and
    that choice's message), or None when it carries none."""
    if not isinstance(payload, dict):
        return None
    choice = (payload.get("choices") or [{}])[0] if isinstance(payload.get("choices"), list) else {}
    choice = choice if isinstance(choice, dict) else {}
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    found = {k: v for part in (payload, choice, message) for k, v in part.items() if k in GROUNDING_KEYS and v}
    return found or None


@dataclass(frozen=True)
class Endpoint:
    """Where and how to send requests. Built from a profile mapping with :meth:`from_dict`.

    ``api_key_env`` is the NAME of the environment variable holding the key (None: no key, as
    for the local panel). ``max_tries`` counts HTTP tries per validation attempt.
    ``pin_provider`` sends OpenRouter's ``provider: {order: [sub_provider], allow_fallbacks:
    false}``. ``model_id`` picks the model name sent: the table's ``api_model`` (real APIs) or
    its ``key`` (the panel; it keeps grounded and plain Gemini apart).
    """

    base_url: str
    api_key_env: str | None = None
    timeout_s: float = 120.0
    max_concurrency: int = 8
    max_tries: int = 5
    backoff_base_s: float = 5.0
    backoff_max_s: float = 60.0
    retry_after_cap_s: float = 600.0
    pin_provider: bool = False
    model_id: str = "api_model"
    reask_delay_s: float = 0.0
    #: consecutive connection/timeout/5xx tries that stop the collection (EndpointDownError)
    breaker_after: int = 20
    #: fraction of planned requests that may end a collection still failed (retryable) before
    #: it raises :class:`lib.llm.kernel.IncompleteCollectionError` (profile llm.max_failed_fraction)
    max_failed_fraction: float = 0.01
    headers: dict = field(default_factory=dict)
    #: requests per minute let out by the client's token bucket (:class:`RateLimiter`); None: no limit
    requests_per_minute: float | None = None
    #: the profile's name of this provider (``llm.providers.<name>``; None for a single endpoint), for messages
    name: str | None = None
    #: "requests" (one chat completion per attempt) or "batch" (the Batch API, :mod:`lib.llm.batch`,
    #: with the limits and polling of ``batch``: :class:`lib.config.BatchSettings` keys)
    mode: str = "requests"
    batch: dict = field(default_factory=dict, compare=False)
    #: profile llm.budget_usd: collection stops before an attempt whose expected cost would pass it
    #: (lib.llm.spend.Ledger); None = no cap
    budget_usd: float | None = None
    #: profile llm.prices: {model: {input, output}} USD per million tokens, over the model tables' prices
    prices: dict = field(default_factory=dict, compare=False)
    #: an httpx transport every client of this endpoint uses (not a profile key: set by code,
    #: e.g. :func:`lib.endpoints.open_endpoint` for the in-process panel); None = the network
    transport: Any = field(default=None, compare=False, repr=False)

    @classmethod
    def from_dict(cls, d: dict, where: str = "profile") -> "Endpoint":
        """Validate a profile's endpoint mapping; errors name ``where``, the key and the expectation."""
        if not isinstance(d, dict):
            raise ValueError(f"{where}: endpoint must be a mapping with at least base_url, got {type(d).__name__}")
        known = {f.name: f for f in fields(cls) if f.name != "transport"}
        for k in d:
            if k not in known:
                hint = " (give the NAME of an environment variable as api_key_env instead)" if "key" in k else ""
                raise ValueError(f"{where}: unknown endpoint key {k!r}{hint}; expected some of {sorted(known)}")
        if not is_http_url(d.get("base_url")):
            raise ValueError(f"{where}: endpoint.base_url must be an http(s) URL, got {d.get('base_url')!r}")
        env = d.get("api_key_env")
        if env is not None and (not isinstance(env, str) or not env.replace("_", "").isalnum() or env.startswith("sk-")):
            raise ValueError(f"{where}: endpoint.api_key_env must be an environment variable NAME like "
                             f"OPENROUTER_API_KEY, got a value that is not one")
        for k in ("timeout_s", "backoff_base_s", "backoff_max_s", "retry_after_cap_s", "reask_delay_s"):
            if k in d and (not isinstance(d[k], (int, float)) or d[k] < 0):
                raise ValueError(f"{where}: endpoint.{k} must be a number >= 0, got {d[k]!r}")
        if "max_failed_fraction" in d and (not isinstance(d["max_failed_fraction"], (int, float))
                                           or not 0 <= d["max_failed_fraction"] <= 1):
            raise ValueError(f"{where}: endpoint.max_failed_fraction must be a number in [0, 1], "
                             f"got {d['max_failed_fraction']!r}")
        rpm = d.get("requests_per_minute")
        if rpm is not None and (isinstance(rpm, bool) or not isinstance(rpm, (int, float)) or rpm <= 0):
            raise ValueError(f"{where}: endpoint.requests_per_minute must be a number > 0 or null, got {rpm!r}")
        for k in ("max_concurrency", "max_tries", "breaker_after"):
            if k in d and (not isinstance(d[k], int) or d[k] < 1):
                raise ValueError(f"{where}: endpoint.{k} must be an integer >= 1, got {d[k]!r}")
        hdrs = d.get("headers", {})
        if not isinstance(hdrs, dict) or any(str(h).lower() in ("authorization", "x-api-key", "api-key") for h in hdrs):
            raise ValueError(f"{where}: endpoint.headers must be a mapping without credentials "
                             f"(keys come only from the variable named in api_key_env)")
        if d.get("mode", "requests") not in ("requests", "batch"):
            raise ValueError(f"{where}: endpoint.mode must be 'requests' or 'batch', got {d['mode']!r}")
        b = d.get("budget_usd")
        if b is not None and (isinstance(b, bool) or not isinstance(b, (int, float)) or not b > 0):
            raise ValueError(f"{where}: endpoint.budget_usd must be a number > 0 (USD) or null, got {b!r}")
        prices = d.get("prices", {})
        if not isinstance(prices, dict) or any(
                not isinstance(p, dict) or set(p) != {"input", "output"}
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 for v in p.values())
                for p in prices.values()):
            raise ValueError(f"{where}: endpoint.prices must map a model to {{input: USD, output: USD}} per million "
                             f"tokens (numbers >= 0), got {prices!r}")
        if d.get("model_id", "api_model") not in ("api_model", "key"):
            raise ValueError(f"{where}: endpoint.model_id must be 'api_model' or 'key', got {d['model_id']!r}")
        return cls(**d)

    @classmethod
    def from_profile(cls, llm, *, base_url: str | None = None, **overrides) -> "Endpoint":
        """From a profile's ``llm`` section (base_url, api_key_env, max_concurrency, request_timeout_s).

        ``base_url`` replaces the profile's (pass the embedded panel's URL when the profile says
        null). OpenRouter URLs get sub-provider pinning; the panel (profile base_url null) is
        addressed by model key, real endpoints by API model id.
        """
        url = base_url or llm.base_url
        if not url:
            raise ValueError("profile llm.base_url is null (the embedded panel): pass base_url=<panel URL>")
        d = {"base_url": url, "api_key_env": llm.api_key_env, "max_concurrency": int(llm.max_concurrency),
             "timeout_s": float(llm.request_timeout_s), "pin_provider": "openrouter.ai" in url,
             "model_id": "key" if llm.base_url is None else "api_model",
             "max_failed_fraction": float(getattr(llm, "max_failed_fraction", 0.01)),
             "mode": getattr(llm, "mode", "requests"),
             "batch": llm.batch.model_dump() if getattr(llm, "batch", None) is not None else {},
             "budget_usd": getattr(llm, "budget_usd", None),
             "prices": {m: (p if isinstance(p, dict) else p.model_dump()) for m, p in (getattr(llm, "prices", None) or {}).items()},
             **overrides}
        return cls.from_dict(d, where="profile llm")

    def api_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            who = f"provider {self.name!r} " if self.name else ""
            raise FatalAPIError(f"{who}environment variable {self.api_key_env} (endpoint.api_key_env) is not set")
        return key


class RateLimiter:
    """An async token bucket: at most ``per_minute`` acquisitions per minute, in bursts of at most
    ``burst`` (default: one second's worth, at least 1). Providers state their limits per minute;
    spreading the requests keeps a collection under them instead of meeting 429s."""

    def __init__(self, per_minute: float, burst: float | None = None, clock=time.monotonic):
        self.rate = float(per_minute) / 60.0
        self.capacity = max(1.0, float(burst) if burst is not None else self.rate)
        self.tokens = self.capacity
        self._clock = clock
        self._last = clock()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:          # one waiter at a time: first come, first served
            while True:
                now = self._clock()
                self.tokens = min(self.capacity, self.tokens + (now - self._last) * self.rate)
                self._last = now
                if self.tokens >= 1.0:
                    self.tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self.tokens) / self.rate)


@dataclass(frozen=True)
class Request:
    """One request: a prompt for one model, task parameter, temperature and replicate.

    Identity: (experiment, model, task, param, temperature, replicate); the replicate index keeps
    repeated samples apart (inspect_ai #2580). ``seed`` is the base seed; the seed sent varies
    with replicate and attempt (:func:`attempt_seed`) so a re-ask can differ.
    """

    experiment: str
    model: str
    api_model: str
    task: str
    param: str
    temperature: float
    replicate: int
    messages: tuple
    seed: int | None = None
    max_tokens: int | None = None
    sub_provider: str | None = None
    #: nucleus sampling sent as ``top_p`` (None: not sent, the provider's default); not part of
    #: the identity, like ``max_tokens``
    top_p: float | None = None
    #: LLMScholarBench's RAG configurations (model table column ``grounded``): the body asks for
    #: the provider's web search (:data:`GROUNDING`); not part of the identity (the model key is)
    grounded: bool = False
    #: the provider this request goes to (a paper's routing table, e.g. 'openrouter', 'openai'), resolved
    #: by :mod:`lib.llm.providers` against the profile's ``llm.providers``; not part of the identity
    provider: str | None = None

    @property
    def key(self) -> tuple:
        return (self.experiment, self.model, self.task, self.param, round(float(self.temperature), 6), int(self.replicate))

    @property
    def request_id(self) -> str:
        """A UUID (version 5, from the request key: the same request has the same id in every run).
        Servers such as llama-cpp-python's refuse an ``X-Request-Id`` that is not a UUID."""
        return str(uuid.uuid5(REQUEST_ID_NAMESPACE, json.dumps(self.key)))

    @property
    def prompt_sha256(self) -> str:
        return prompt_sha256(list(self.messages))


def prompt_sha256(msgs: list[dict[str, str]]) -> str:
    """Hash of the exact messages sent, so a resumed run can detect a changed prompt."""
    canon = "\x1e".join(f"{m['role']}\x1f{m['content']}" for m in msgs)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def identity_user(replicate: int, attempt: int, try_: int | None = None) -> str:
    """The body's ``user`` field: ``lib.llm/r<replicate>/a<attempt>[/t<try>]`` (an OpenAI end-user id;
    what :mod:`lib.panel` reads the replicate, attempt and try from, before the X- headers)."""
    return f"lib.llm/r{int(replicate)}/a{int(attempt)}" + (f"/t{int(try_)}" if try_ is not None else "")


#: Tag in bits 20-30 of the seed lib.llm sends: the seed itself carries replicate and attempt, since
#: ``seed`` is the one body field every gateway forwards (LiteLLM 1.108 drops ``user`` and X- headers).
SEED_TAG = 0x4C5


def attempt_seed(seed: int | None, replicate: int, attempt: int) -> int | None:
    """The seed sent for (replicate, attempt): ``SEED_TAG << 20 | replicate << 4 | attempt``, in
    [0, 2**31). It differs between replicates and re-asks (so a provider's sampling can), and the
    embedded panel reads both back from it when a gateway dropped ``user``
    (:func:`lib.panel.core._body_identity`). None when the request has no base seed."""
    if seed is None:
        return None
    if not (0 <= int(replicate) < 1 << 16 and 0 <= int(attempt) < 1 << 4):
        raise ValueError(f"attempt_seed: replicate {replicate} must be in [0, 65536) and attempt {attempt} in [0, 16)")
    return SEED_TAG << 20 | int(replicate) << 4 | int(attempt)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def retry_wait(endpoint: "Endpoint", k: int, retry_after: float | None = None) -> float:
    """Seconds to wait after failed try ``k``: the provider's Retry-After (capped at
    ``retry_after_cap_s``), else exponential backoff ``backoff_base_s · 2^(k−1)`` up to
    ``backoff_max_s`` (the chat client adds jitter; the batch client's calls share it)."""
    if retry_after is not None:
        return min(retry_after, endpoint.retry_after_cap_s)
    return min(endpoint.backoff_base_s * 2 ** (k - 1), endpoint.backoff_max_s)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
        except (TypeError, ValueError):
            return None


def scrub(obj: Any, secret: str | None) -> Any:
    """Replace every occurrence of the key in strings (a provider may echo headers in an error)."""
    if not secret:
        return obj
    if isinstance(obj, str):
        return obj.replace(secret, "[REDACTED]")
    if isinstance(obj, dict):
        return {scrub(k, secret): scrub(v, secret) for k, v in obj.items()}
    if isinstance(obj, list):
        return [scrub(v, secret) for v in obj]
    return obj


@dataclass
class _Try:
    kind: str                 # ok | rate_limit | server | timeout | connection | body_error | bad_json | client | fatal
    status: int | None = None
    payload: Any = None
    message: str = ""
    retry_after: float | None = None
    latency_s: float = 0.0


class ChatClient:
    """Async client for one endpoint; use ``async with ChatClient(endpoint) as c: await c.attempt(r, 1)``.

    ``transport`` is passed to httpx (tests use a mock transport; default the endpoint's own). ``counts`` tallies the tries
    by outcome kind, for reports and benchmarks.
    """

    def __init__(self, endpoint: Endpoint, *, transport: httpx.AsyncBaseTransport | None = None):
        self.endpoint = endpoint
        self._transport = transport if transport is not None else endpoint.transport
        self._http: httpx.AsyncClient | None = None
        self._slots: asyncio.Semaphore | None = None
        self._limiter: RateLimiter | None = None
        self.counts: Counter = Counter()
        self._rng = random.Random(0)
        self._down_streak = 0            # consecutive DOWN_KINDS tries (the circuit breaker)
        #: 2xx answers so far: a 4xx before the first one means the endpoint refuses the request shape
        self.answered = 0

    async def __aenter__(self) -> "ChatClient":
        limits = httpx.Limits(max_connections=self.endpoint.max_concurrency,
                              max_keepalive_connections=self.endpoint.max_concurrency)
        self._http = httpx.AsyncClient(base_url=self.endpoint.base_url.rstrip("/") + "/", transport=self._transport,
                                       timeout=httpx.Timeout(self.endpoint.timeout_s), limits=limits)
        self._slots = asyncio.Semaphore(self.endpoint.max_concurrency)
        rpm = self.endpoint.requests_per_minute
        self._limiter = RateLimiter(rpm) if rpm else None
        return self

    async def __aexit__(self, *exc) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    # ---- one HTTP try ---------------------------------------------------------------------------
    def body(self, req: Request, attempt: int, try_: int | None = None) -> dict:
        """The chat-completions body of (``req``, ``attempt``), HTTP try ``try_`` (None: the batch path,
        whose provider numbers the tries). ``user`` carries the replicate, attempt and try
        (:func:`identity_user`) and ``seed`` the replicate and attempt (:func:`attempt_seed`):
        gateways drop custom headers (LiteLLM 1.108 drops ``user`` too, and forwards ``seed``), and
        the embedded panel keys its answers on them."""
        body: dict[str, Any] = {"model": req.api_model, "messages": list(req.messages),
                                "temperature": req.temperature, "stream": False,
                                "user": identity_user(req.replicate, attempt, try_)}
        seed = attempt_seed(req.seed, req.replicate, attempt)
        if seed is not None:
            body["seed"] = seed
        if req.top_p is not None:
            body["top_p"] = float(req.top_p)
        if req.max_tokens is not None:
            body["max_tokens"] = req.max_tokens
        if self.endpoint.pin_provider and req.sub_provider:
            body["provider"] = {"order": [req.sub_provider], "allow_fallbacks": False}
        if req.grounded:        # the shape of the provider the request goes to (routing: its own endpoint)
            field_name, value = GROUNDING[grounding_shape(self.endpoint.base_url)]
            body[field_name] = value
        return body

    async def _send(self, body: dict, headers: dict) -> _Try:
        assert self._http is not None and self._slots is not None, "use ChatClient inside 'async with'"
        async with self._slots:
            if self._limiter is not None:       # every HTTP try counts against the provider's limit
                await self._limiter.acquire()
            t0 = time.perf_counter()
            try:
                async with asyncio.timeout(self.endpoint.timeout_s):
                    r = await self._http.post("chat/completions", json=body, headers=headers)
            except (TimeoutError, httpx.TimeoutException):
                return _Try("timeout", message=f"no complete response within {self.endpoint.timeout_s} s",
                            latency_s=time.perf_counter() - t0)
            except httpx.TransportError as e:
                return _Try("connection", message=f"{type(e).__name__}: {e}", latency_s=time.perf_counter() - t0)
            latency = time.perf_counter() - t0
        status = r.status_code
        try:
            payload = r.json()
        except ValueError:
            payload = None
        err = payload.get("error") if isinstance(payload, dict) else None
        if not err and isinstance(payload, dict) and payload.get("choices"):
            first = payload["choices"][0]
            err = first.get("error") if isinstance(first, dict) else None
        err_text = json.dumps(err, ensure_ascii=False) if err else (r.text[:500] if payload is None else "")
        base = dict(status=status, payload=payload, latency_s=latency,
                    retry_after=parse_retry_after(r.headers.get("retry-after")))
        if status == 200:
            if err:
                return _Try("body_error", message=(err.get("message") if isinstance(err, dict) else str(err)) or err_text, **base)
            if not isinstance(payload, dict) or not payload.get("choices"):
                return _Try("bad_json", message=f"HTTP 200 without choices: {r.text[:200]}", **base)
            return _Try("ok", **base)
        if "insufficient_quota" in err_text or status in FATAL_STATUS:
            return _Try("fatal", message=f"HTTP {status}: {(err_text or r.text)[:500]}", **base)
        if status == 429:
            return _Try("rate_limit", message=f"HTTP 429: {err_text[:300]}", **base)
        if status >= 500 or status == 408:
            return _Try("server", message=f"HTTP {status}: {err_text[:300]}", **base)
        return _Try("client", message=f"HTTP {status}: {(err_text or r.text)[:500]}", **base)

    def rejected(self, t: _Try, req: Request, key: str | None) -> RejectedError:
        """The error that stops this provider: who refused what, the status, the body, the hint."""
        body = scrub(t.message.partition(": ")[2] if t.message.startswith("HTTP ") else t.message, key) or "(empty body)"
        hint = rejection_hint(t.status, body, req.api_model, self.endpoint.api_key_env)
        who = f"provider {self.endpoint.name!r} ({self.endpoint.base_url})" if self.endpoint.name else self.endpoint.base_url
        return RejectedError(f"{who} refused model {req.api_model}: HTTP {t.status}: {body[:500]}. Hint: {hint}. "
                             "Stopped sending to it (nothing of the refused request was stored)",
                             status=t.status, body=body, hint=hint)

    def _wait(self, t: _Try, k: int) -> float:
        if t.retry_after is not None:
            return retry_wait(self.endpoint, k, t.retry_after)
        return retry_wait(self.endpoint, k) * (1 + 0.1 * self._rng.random())

    def _breaker(self, t: _Try) -> None:
        """Count consecutive connection/timeout/5xx tries; raise EndpointDownError at the threshold."""
        if t.kind not in DOWN_KINDS:
            self._down_streak = 0
            return
        self._down_streak += 1
        limit = max(self.endpoint.breaker_after, self.endpoint.max_concurrency + 1)
        if self._down_streak >= limit:
            raise EndpointDownError(f"endpoint {self.endpoint.base_url} looks down: {self._down_streak} consecutive "
                                    f"infrastructure failures (last: {t.kind}, {t.message[:200]})")

    # ---- one validation attempt -----------------------------------------------------------------
    async def attempt(self, req: Request, attempt: int, first_try: int = 1) -> dict:
        """Run attempt ``attempt`` of ``req`` (with infrastructure retries); return its record.

        Raises :class:`RejectedError` (a :class:`FatalAPIError`) on a refusal (module docstring) and
        :class:`EndpointDownError` when the circuit breaker trips. The record's ``status`` is
        'ok' (a response with choices), 'api_error' (retries exhausted on an error the provider
        returned: an attempt), 'infra_error' (retries exhausted on an infrastructure failure: a
        failed try, not an attempt) or 'client_error' (a 400-type answer after the endpoint answered
        others, ``stop=True``: re-asking cannot help).
        ``first_try`` numbers the HTTP tries (header ``X-Try``) after those that earlier failed
        tries of this attempt already spent, so a resumed attempt is not the same try again.
        """
        key = self.endpoint.api_key()
        headers = {"Content-Type": "application/json", **self.endpoint.headers,
                   "X-Request-Id": req.request_id, "X-Replicate": str(req.replicate), "X-Attempt": str(attempt)}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = self.body(req, attempt)      # stored: the body of every try but for the try in ``user``
        started = _now()
        try_log: list[dict] = []
        t = _Try("connection")
        for k in range(1, self.endpoint.max_tries + 1):
            t = await self._send(self.body(req, attempt, first_try + k - 1), {**headers, "X-Try": str(first_try + k - 1)})
            self.counts[t.kind] += 1
            if t.kind == "ok":
                self.answered += 1
            if t.kind == "fatal" or (t.kind == "client" and (self.answered == 0 or names_model(
                    t.status, t.message, req.api_model))):
                raise self.rejected(t, req, key)
            self._breaker(t)
            if t.kind in ("ok", "client"):
                break
            wait = self._wait(t, k) if k < self.endpoint.max_tries else 0.0
            try_log.append({"try": first_try + k - 1, "kind": t.kind, "http_status": t.status, "message": t.message[:300],
                            "wait_s": round(wait, 3)})
            log.info("retry %d/%d for %s attempt %d: %s (HTTP %s), waiting %.2f s", k, self.endpoint.max_tries,
                     req.request_id, attempt, t.kind, t.status, wait)
            if wait:
                await asyncio.sleep(wait)
        payload = t.payload if isinstance(t.payload, dict) else None
        message = (payload or {}).get("choices", [{}])[0].get("message", {}) if t.kind == "ok" else {}
        usage = (payload or {}).get("usage") or {}
        rec = {
            "experiment": req.experiment, "model": req.model, "task": req.task, "param": req.param,
            "temperature": float(req.temperature), "replicate": int(req.replicate), "attempt": int(attempt),
            "request_id": req.request_id, "prompt_sha256": req.prompt_sha256,
            "base_url": self.endpoint.base_url, "endpoint_host": endpoint_id(self.endpoint),
            "endpoint_name": self.endpoint.name,
            "requested_model": req.api_model, "sub_provider": req.sub_provider,
            "request": body,
            "status": {"ok": "ok", "client": "client_error"}.get(t.kind, "infra_error" if t.kind in INFRA_KINDS
                                                                   else "api_error"),
            "stop": t.kind == "client",
            "http_status": t.status,
            "error": None if t.kind == "ok" else {"kind": t.kind, "code": t.status, "message": t.message},
            "tries": len(try_log) + (1 if t.kind in ("ok", "client") else 0),
            "try_log": try_log,
            "response": payload,
            "grounding": grounding_of(payload) if t.kind == "ok" else None,
            "content": message.get("content"),
            "reasoning": message.get("reasoning") or message.get("reasoning_content"),
            "finish_reason": ((payload or {}).get("choices") or [{}])[0].get("finish_reason") if t.kind == "ok" else None,
            "served_model": (payload or {}).get("model"),
            "provider": (payload or {}).get("provider"),
            "system_fingerprint": (payload or {}).get("system_fingerprint"),
            "usage": usage,
            "latency_s": round(t.latency_s, 6),
            "started_at": started, "finished_at": _now(),
            "client": CLIENT_VERSION,
        }
        return scrub(rec, key)
