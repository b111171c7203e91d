"""The panel: one OpenAI-compatible chat-completions function shared by the HTTP server,
the benchmarks and in-process callers.

Determinism (panel.md "Interface"): each request gets one content generator seeded by sha256
of (panel seed, model, sha256(messages), replicate, attempt, temperature), plus a *core*
generator without replicate and attempt (the stable core list of LLMScholarBench, so runs are
consistent) and a fault generator that adds the infrastructure try index.

Request fields the panel reads (everything else in the OpenAI body is accepted and ignored):

* ``model``: a panel model id or alias (``GET /v1/models``); grounding by the ``-grounded``
  suffix, ``"grounded": true`` or a ``googleSearch`` tool (:func:`profiles.resolve`);
* ``messages``: the user messages are the prompt (system text does not change the answer but
  is part of the prompt hash);
* ``temperature``: default the model's paper temperature; must be in [0, 2];
* ``max_tokens`` / ``max_completion_tokens``: a longer answer is cut (≈ 4 characters per
  token) with ``finish_reason: "length"``;
* replicate, attempt and infrastructure try: first the body's ``user`` as lib.llm sends it
  (``lib.llm/r<replicate>/a<attempt>[/t<try>]``), else a tagged body ``seed`` (``SEED_TAG << 20 | replicate << 4 |
  attempt``, lib.llm's: LiteLLM forwards ``seed`` but drops ``user``), else the headers ``X-Replicate`` / ``X-Attempt`` / ``X-Try`` (or
  ``X-Retry``), else body ``replicate`` (or the OpenAI ``seed``) / ``attempt`` / ``retry``, else 0 / 1 / 1
  (the try only draws faults).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pandas as pd

from lib.panel import attribution, authority, calibration, latent, prompts, profiles
from lib.llm.client import SEED_TAG        # the wire format of lib.llm's identity-carrying seed
from lib.panel.faults import FaultConfig, error_payload
from lib.panel.latent import seed_int
from lib.panel.profiles import ModelProfile, all_profiles, resolve
from lib.panel.scholar import ScholarBehaviour
from lib.panel.world import AuthorIndex

VERSION = "panel/1"


def _error(status: int, message: str, code: str, etype: str = "invalid_request_error") -> tuple[int, dict, dict]:
    return status, {}, {"error": {"message": message, "type": etype, "code": code}}


#: the body's ``user`` as lib.llm's client sends it (lib.llm.client.identity_user): replicate, attempt, try
USER_IDENTITY = re.compile(r"(?:^|/)r(\d+)/a(\d+)(?:/t(\d+))?$")


def _body_identity(body: dict) -> dict[str, str]:
    """Replicate, attempt and try as the header names they stand for, from what gateways forward
    (they drop X- headers): the body's ``user`` (``lib.llm/r<rep>/a<att>[/t<try>]``), else a
    tagged ``seed`` (``SEED_TAG << 20 | rep << 4 | att``, as lib.llm sends it; LiteLLM forwards
    ``seed`` but not ``user``); {} when neither carries them."""
    m = USER_IDENTITY.search(str(body.get("user") or ""))
    if m:
        out = {"x-replicate": m.group(1), "x-attempt": m.group(2)}
        if m.group(3):
            out["x-try"] = m.group(3)
        return out
    seed = body.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 and seed >> 20 == SEED_TAG:
        return {"x-replicate": str(seed >> 4 & 0xFFFF), "x-attempt": str(seed & 0xF)}
    return {}


def _int_field(headers: dict, body: dict, header_names: tuple[str, ...], body_names: tuple[str, ...], default: int) -> int:
    for h in header_names:
        if h in headers and str(headers[h]).strip() != "":
            return int(str(headers[h]).strip())
    for b in body_names:
        if body.get(b) is not None:
            return int(body[b])
    return default


def set_own_models(tables) -> None:
    """Serve a profile's own models (paper -> rows of its resource file; :func:`lib.panel.profiles.set_own_models`)
    and drop every cache built on the model list, so their latent parameters are derived anew (the
    papers' models keep theirs: the costly AttriBench slopes are cached apart, keyed by those models)."""
    profiles.set_own_models(tables)
    for fn in (latent.lsb_models, latent.lsb_task, latent._target_rows, calibration.model_targets,
               calibration.lsb_calibration_table, authority.model_params, authority._pilot_params,
               attribution.model_params):
        fn.cache_clear()


class Panel:
    """The synthetic LLM panel. ``Panel(seed, authors=df, quotes=df_or_path, faults=FaultConfig())``.

    ``authors`` is the world's authors table (needed for LLMScholarBench prompts; the other two
    tasks work without it); ``publications``/``authorships`` give real DOIs and
    ``coauthorships`` connected twins lists. ``quotes`` is the AttriBench quote universe.
    ``own_models`` (paper -> rows of its resource file) serves a profile's own models too (for this
    process: :func:`set_own_models`); None leaves the served list as it is.
    """

    def __init__(self, seed: int, authors: pd.DataFrame | None = None, *, quotes=None,
                 publications: pd.DataFrame | None = None, authorships: pd.DataFrame | None = None,
                 coauthorships: pd.DataFrame | None = None, faults: FaultConfig | None = None,
                 own_models=None):
        if own_models is not None:
            set_own_models(own_models)
        self.seed = int(seed)
        self.faults = faults or FaultConfig()
        self.index = (AuthorIndex(authors, publications=publications, authorships=authorships,
                                  coauthorships=coauthorships) if authors is not None else None)
        self.scholar = ScholarBehaviour(self.index, self.seed) if self.index is not None else None
        self.quotes = attribution.QuoteRegistry()
        if quotes is not None:
            self.register_quotes(quotes)
        self._tasks: OrderedDict[str, prompts.Task] = OrderedDict()
        self._choice_probs: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.RLock()

    @classmethod
    def from_world(cls, world, seed: int, **kw) -> "Panel":
        """A panel over a :class:`lib.groundtruth.world.World` (authors, publications, ...)."""
        return cls(seed, world.authors, publications=world.publications, authorships=world.authorships,
                   coauthorships=world.coauthorships, **kw)

    def register_quotes(self, quotes) -> None:
        """Add AttriBench quotes: a DataFrame (quote, author|author_clean, race, gender, log10_hits) or a path."""
        if isinstance(quotes, (str, Path)):
            quotes = attribution.QuoteRegistry.from_path(quotes).df
        self.quotes.register(quotes)

    # ---- listing -----------------------------------------------------------------------------------
    def models(self) -> dict:
        """The OpenAI ``GET /v1/models`` body, each entry carrying the published attributes."""
        data = [{"id": p.id, "object": "model", "created": 0, "owned_by": p.provider,
                 **{"attributes": p.attributes()}} for p in all_profiles().values()]
        return {"object": "list", "data": data}

    # ---- completions -----------------------------------------------------------------------------------
    def _task(self, prompt_hash: str, text: str) -> prompts.Task:
        t = self._tasks.get(prompt_hash)
        if t is None:
            t = prompts.parse(text)
            self._tasks[prompt_hash] = t
            if len(self._tasks) > 4096:
                self._tasks.popitem(last=False)
        return t

    def complete(self, body: dict, headers: dict | None = None) -> tuple[int, dict, dict | str]:
        """One chat completion: (HTTP status, response headers, body dict — or text when truncated).
        A well-formed request always gets an answer or a JSON error: a panel bug answers HTTP 500
        ``panel_error`` (naming the exception) instead of dropping the connection or failing a batch."""
        try:
            status, hdrs, payload, _ = self.complete_with_meta(body, headers)
        except Exception as exc:     # the HTTP server, the batch service and the in-process transport all answer
            return _error(500, f"panel error: {type(exc).__name__}: {exc}", "panel_error", "server_error")
        return status, hdrs, payload

    def complete_with_meta(self, body: dict, headers: dict | None = None):
        """As :meth:`complete`, plus what the panel intended (for tests; never sent over HTTP)."""
        headers = {str(k).lower(): v for k, v in (headers or {}).items()}
        if not isinstance(body, dict):
            return (*_error(400, "request body must be a JSON object", "invalid_body"), {})
        headers.update(_body_identity(body))        # the body's identity first: it survives gateways
        messages = body.get("messages")
        if not body.get("model") or not isinstance(messages, list) or not messages:
            return (*_error(400, "request needs 'model' and a non-empty 'messages' list", "invalid_body"), {})
        try:
            profile = resolve(body["model"], body)
        except KeyError as exc:
            return (*_error(404, str(exc.args[0]), "model_not_found"), {})
        try:
            temperature = float(body.get("temperature") if body.get("temperature") is not None else profile.temperature)
            replicate = _int_field(headers, body, ("x-replicate",), ("replicate", "seed"), 0)
            attempt = _int_field(headers, body, ("x-attempt",), ("attempt",), 1)
            retry = _int_field(headers, body, ("x-try", "x-retry"), ("retry",), 1)
        except (TypeError, ValueError):
            return (*_error(400, "temperature, seed, replicate, attempt and retry must be numbers", "invalid_value"), {})
        if not (0.0 <= temperature <= 2.0) or math.isnan(temperature):
            return (*_error(400, f"temperature must be in [0, 2], got {temperature}", "invalid_value"), {})
        T = round(temperature, 4)
        prompt_hash = hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
        key = (self.seed, profile.id, prompt_hash, replicate, attempt, T)
        key_hash = hashlib.sha256("|".join(map(str, key)).encode()).hexdigest()
        fault = self.faults.draw(np.random.default_rng(seed_int(*key, "fault", retry)))
        if fault in ("429", "500", "502", "503", "error_body"):
            status, hdrs, payload = error_payload(fault, profile.provider)
            if fault == "429":
                hdrs["Retry-After"] = f"{self.faults.retry_after_s:g}"
            if fault == "error_body":
                payload = {"id": f"gen-{key_hash[:24]}", "model": body["model"], **payload}
            return status, hdrs, payload, {"fault": fault}
        text = prompts.message_text(messages)
        run_rng = np.random.default_rng(seed_int(*key))
        with self._lock:   # the caches are shared by the server's threads
            task = self._task(prompt_hash, text)
            try:
                out = self._answer(profile, task, T, prompt_hash, run_rng)
            except RuntimeError as exc:
                return (*_error(503, str(exc), "panel_unavailable", "server_error"), {})
        content, finish = out["content"], "stop"
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        if isinstance(limit, int) and limit > 0 and len(content) // 4 + 1 > limit:
            content, finish = content[: 4 * limit], "length"   # ~4 characters per token
        message = {"role": "assistant", "content": content}
        if out.get("reasoning"):
            message["reasoning"] = out["reasoning"]
        prompt_tokens = len(json.dumps(messages, ensure_ascii=False)) // 4 + 1
        completion_tokens = len(content) // 4 + 1
        reasoning_tokens = len(out.get("reasoning") or "") // 4
        payload = {
            "id": f"gen-{key_hash[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": body["model"], "provider": profile.provider, "system_fingerprint": f"{VERSION}-seed{self.seed}",
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens + reasoning_tokens,
                      "total_tokens": prompt_tokens + completion_tokens + reasoning_tokens,
                      "completion_tokens_details": {"reasoning_tokens": reasoning_tokens}},
        }
        meta = {**out["meta"], "fault": fault, "replicate": replicate, "attempt": attempt, "temperature": T}
        if fault == "stall":
            return 200, {"X-Panel-Stall-Seconds": f"{self.faults.stall_s:g}"}, payload, meta
        if fault == "truncated":
            text_body = json.dumps(payload, ensure_ascii=False)
            cut_rng = np.random.default_rng(seed_int(*key, "cut", retry))
            cut = int(cut_rng.integers(max(2, len(text_body) // 4), len(text_body) - 1))
            return 200, {}, text_body[:cut], meta
        return 200, {}, payload, meta

    def _answer(self, profile: ModelProfile, task: prompts.Task, T: float, prompt_hash: str, run_rng) -> dict:
        if task.kind == "lsb":
            if self.scholar is None:
                raise RuntimeError("the panel was started without an authors table; LLMScholarBench prompts "
                                   "need one (Panel(seed, authors=...) or the CLI's world)")
            core_rng = np.random.default_rng(seed_int(self.seed, profile.id, prompt_hash, T, "core"))
            return self.scholar.answer(profile, task, T, core_rng, run_rng)
        if task.kind == "authority":
            key = (profile.id, prompt_hash)
            probs = self._choice_probs.get(key)
            if probs is None:
                probs = self._choice_probs[key] = authority.choice_probabilities(self.seed, profile.id, task)
                if len(self._choice_probs) > 4096:
                    self._choice_probs.pop(next(iter(self._choice_probs)))
            return authority.answer(self.seed, profile, task, run_rng, probs)
        if task.kind == "attribution":
            return attribution.answer(self.seed, profile.id, task, self.quotes, run_rng)
        return {"content": "I am not sure what is being asked; could you rephrase the request?",
                "reasoning": None, "meta": {"task": "unknown"}}
