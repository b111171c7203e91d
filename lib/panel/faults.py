"""Fault injection: the infrastructure failures the collectors must survive (panel.md "Faults").

Each chat request draws at most one fault from its own fault generator, seeded by the request
key plus the *infrastructure try* index (header ``X-Try`` / ``X-Retry`` or body ``retry``,
default 1). The content generator does not see the try index, so a retried request that gets
through returns the same answer it would have returned without the fault.

Kinds (rates are probabilities per HTTP try, drawn in this order from one uniform):

* ``429``: HTTP 429 with ``Retry-After`` and an OpenAI error body (``rate_limit_exceeded``);
* ``500``, ``502``, ``503``: server errors with an error body;
* ``stall``: the normal answer, delivered only after ``stall_s`` seconds (past the client
  timeout); in process the header ``X-Panel-Stall-Seconds`` carries the delay;
* ``error_body``: HTTP 200 whose body is an OpenRouter-style ``error`` object, no choices;
* ``truncated``: HTTP 200 whose JSON text is cut mid-token.

Batch-level kinds (:mod:`lib.panel.batch`; drawn apart from the chat kinds above, so they do
not count in the per-try sum): ``batch_line`` (per line and line try: the line lands in the
error file with ``request_timeout`` instead of an answer), ``batch_expired`` (per batch: it
expires after a random share of its lines, the rest land in the error file with
``batch_expired``) and ``batch_429`` (per ``POST /v1/batches`` call: HTTP 429 with
``Retry-After``, no batch created).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

KINDS = ("429", "500", "502", "503", "stall", "error_body", "truncated")
BATCH_KINDS = ("batch_line", "batch_expired", "batch_429")


@dataclass(frozen=True)
class FaultConfig:
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_502: float = 0.0
    rate_503: float = 0.0
    rate_stall: float = 0.0
    rate_error_body: float = 0.0
    rate_truncated: float = 0.0
    retry_after_s: float = 1.0
    stall_s: float = 30.0
    rate_batch_line: float = 0.0
    rate_batch_expired: float = 0.0
    rate_batch_429: float = 0.0

    def __post_init__(self):
        rates = self.rates()
        bad = {k: v for k, v in rates.items() if not 0.0 <= v <= 1.0}
        if bad or sum(rates.values()) > 1.0:
            raise ValueError(f"panel faults: rates must be in [0, 1] and sum to ≤ 1, got {rates}")
        batch = self.batch_rates()
        if any(not 0.0 <= v <= 1.0 for v in batch.values()):
            raise ValueError(f"panel faults: batch rates must each be in [0, 1], got {batch}")

    def batch_rates(self) -> dict[str, float]:
        return {k: float(getattr(self, f"rate_{k}")) for k in BATCH_KINDS}

    def rates(self) -> dict[str, float]:
        return {k: float(getattr(self, f"rate_{k}")) for k in KINDS}

    def as_dict(self) -> dict:
        return asdict(self)

    def spec(self) -> str:
        """The CLI string :meth:`parse` reads back into this configuration (``""`` when fault-free)."""
        rates = {**self.rates(), **self.batch_rates()}
        if not any(rates.values()):
            return ""
        parts = [f"{k}={v!r}" for k, v in rates.items() if v]
        return ",".join(parts + [f"retry_after_s={self.retry_after_s!r}", f"stall_s={self.stall_s!r}"])

    @classmethod
    def parse(cls, spec: str | None) -> "FaultConfig":
        """From a CLI string such as ``"429=0.02,500=0.01,stall=0.005,stall_s=5"``."""
        if not spec:
            return cls()
        kw: dict[str, float] = {}
        for part in spec.split(","):
            if not part.strip():
                continue
            name, _, value = part.partition("=")
            name = name.strip()
            field = name if name in ("retry_after_s", "stall_s") else f"rate_{name}"
            if field not in cls.__dataclass_fields__:
                raise ValueError(f"panel faults: unknown fault {name!r} in {spec!r} "
                                 f"(expected one of {', '.join(KINDS + BATCH_KINDS)}, retry_after_s, stall_s)")
            try:
                kw[field] = float(value)
            except ValueError:
                raise ValueError(f"panel faults: {name}={value!r} in {spec!r} is not a number "
                                 f"(expected NAME=NUMBER, e.g. 429=0.02 or stall_s=5)") from None
            if kw[field] != kw[field] or kw[field] in (float("inf"), float("-inf")):
                raise ValueError(f"panel faults: {name}={value!r} in {spec!r} must be a finite number")
        if kw.get("retry_after_s", 0.0) < 0 or kw.get("stall_s", 0.0) < 0:
            raise ValueError(f"panel faults: retry_after_s and stall_s must be >= 0 seconds, got {spec!r}")
        return cls(**kw)

    def draw(self, rng: np.random.Generator) -> str | None:
        rates = self.rates()
        if not any(rates.values()):
            return None
        u = rng.random()
        acc = 0.0
        for k in KINDS:
            acc += rates[k]
            if u < acc:
                return k
        return None


def error_payload(kind: str, provider: str) -> tuple[int, dict, dict]:
    """(status, headers, body) of an error fault (not stall / truncated)."""
    if kind == "429":
        return 429, {}, {"error": {"message": "Rate limit exceeded: rate_limit_exceeded, retry later",
                                   "type": "rate_limit_exceeded", "code": 429}}
    if kind in ("500", "502", "503"):
        msg = {"500": "internal_server_error", "502": "Bad gateway: upstream provider unavailable",
               "503": "Service unavailable: model overloaded"}[kind]
        return int(kind), {}, {"error": {"message": msg, "type": "server_error", "code": int(kind)}}
    if kind == "error_body":
        return 200, {}, {"object": "chat.completion", "choices": [],
                         "error": {"code": 502, "message": "Provider returned error",
                                   "metadata": {"provider_name": provider}}}
    raise ValueError(f"panel faults: {kind!r} is not an error fault")
