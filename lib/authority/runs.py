"""Sending the pilot and main-experiment request tables to the models, and reading the answers back.

Paper §4.5–4.6 and Appendices A.4, E (models, one stateless single-turn request per cell);
reference ``run_experiment.py``, ``run_1n_experiment.py`` and ``extension_closed_weight`` (spec
A.5, A.6, A.9). The request tables of :mod:`lib.authority.prompts` are model independent; here
they are crossed with the models and sent through the shared collection stack
(:func:`lib.llm.collect.collect` into the raw store, :data:`lib.paths.RAW` by default), so the
same code talks to the embedded synthetic panel or to real OpenAI-compatible endpoints. Nothing
here knows the panel: the endpoint comes from the caller (``lib.endpoints.open_endpoint``).

Identity in the raw store: experiment ``authority_pilot`` / ``authority_main``, model, task
``authority``, param = ``<request_id>@<first 12 hex of the prompt's sha256>``, the model's
temperature and the replicate. The prompt hash in the param makes a changed prompt (e.g. main
conditions rebuilt under other pilot weights) a new request instead of a conflict.

One answer per request: the answers are free text, so the LLMScholarBench JSON validity check
that drives the collector's re-asks does not apply. Each request gets one attempt; only an
attempt that failed at the API (retries exhausted) is re-asked on a later run, up to
``max_attempts`` in total. The reference instead drops a failed call (``None`` → cell not
recorded; spec A.5), which is what remains after the attempts run out. Resume: a request with
an answered attempt in the store is never sent again.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd

from lib.authority.models import MODELS_BY_ID, AuthorityModel, load_models, prices, providers_by_id
from lib.llm.client import Endpoint, Request
from lib.llm.collect import collect
from lib.llm.kernel import CollectionSummary, any_answer
from lib.llm.store import RawStore, request_key

EXPERIMENTS = {"pilot": "authority_pilot", "main": "authority_main"}
TASK = "authority"


def _models(models: Sequence[AuthorityModel | str]) -> list[AuthorityModel]:
    out = []
    for m in models:
        if isinstance(m, AuthorityModel):
            out.append(m)
        elif m in MODELS_BY_ID:
            out.append(MODELS_BY_ID[m])
        else:
            raise ValueError(f"unknown authority model {m!r}; expected one of {list(MODELS_BY_ID)} "
                             "or an AuthorityModel(id, cohort, temperature)")
    return out


def request_param(request_id: str, prompt_sha256: str) -> str:
    """The raw-store ``param`` of one request-table row: ``<request_id>@<12 hex of the prompt hash>``."""
    return f"{request_id}@{prompt_sha256[:12]}"


def to_requests(table: pd.DataFrame, models: Sequence[AuthorityModel | str], *, experiment: str,
                replicates: int = 1, seed: int | None = None, max_tokens: int | None = None,
                api_ids: Mapping[str, str] | None = None, providers: Mapping[str, str] | None = None) -> list[Request]:
    """Cross a request table (:func:`~lib.authority.prompts.build_main_requests` or ``build_pilot_requests``)
    with ``models`` into collection requests, model-major (the reference's loop order, spec A.5).

    ``replicates`` > 1 repeats every prompt as independent samples (replicate index in the
    identity). ``seed`` None sends no seed, as the reference sets no decoding options.
    ``api_ids`` maps a model id to the name a real endpoint knows it by (e.g. ``{"gpt-5.4":
    "openai/gpt-5.4"}`` on OpenRouter); the store keeps the paper's id as ``model``. Each request
    carries the model's provider (:func:`lib.authority.models.routing`; ``providers`` overrides it).
    """
    need = ("request_id", "messages", "prompt_sha256")
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise ValueError(f"request table lacks column(s) {missing}; build it with lib.authority.prompts")
    if replicates < 1:
        raise ValueError(f"replicates must be >= 1, got {replicates}")
    rows = list(zip(table["request_id"], table["messages"], table["prompt_sha256"]))
    route = {**providers_by_id(), **{m.id: m.provider for m in _models(models) if m.provider}, **(providers or {})}
    out = []
    for m in _models(models):
        for rid, msgs, sha in rows:
            param = request_param(rid, sha)
            msgs = tuple(dict(x) for x in msgs)
            for rep in range(replicates):
                out.append(Request(experiment=experiment, model=m.id, api_model=(api_ids or {}).get(m.id, m.id),
                                   task=TASK, param=param,
                                   temperature=m.temperature, replicate=rep, messages=msgs, seed=seed,
                                   max_tokens=max_tokens, provider=route.get(m.id) or m.provider))
    return out


@dataclass
class RunSummary:
    """What one :func:`run_collection` did: requests planned, already answered, sent, and the collector's summaries."""

    requests: int
    already_answered: int
    sent: int
    given_up: int
    passes: list[CollectionSummary]

    def line(self) -> str:
        secs = sum(p.seconds for p in self.passes)
        return (f"{self.requests} requests: {self.already_answered} already answered, {self.sent} sent, "
                f"{self.given_up} given up after failed attempts ({secs:.1f} s)")


def _stored_attempts(store_root: Path | str | None, experiment: str) -> dict[tuple, dict[int, str]]:
    """request key -> {attempt: status} of what the store holds for ``experiment`` (status ``stop`` for an
    attempt the client marked non-retryable, e.g. HTTP 400/404)."""
    out: dict[tuple, dict[int, str]] = {}
    for rec in RawStore(store_root).iter_records(experiment):
        status = "stop" if rec.get("stop") and rec.get("status") != "ok" else rec.get("status")
        out.setdefault(request_key(rec), {})[int(rec["attempt"])] = status
    return out


def run_collection(requests: Sequence[Request], endpoint: Endpoint, *, store_root: Path | str | None = None,
                   max_attempts: int = 3) -> RunSummary:
    """Send every request that has no answered attempt in the store yet (see module docstring).

    A request whose stored attempts all failed at the API gets its next attempt, until
    ``max_attempts`` attempts exist; then, or after a non-retryable client error (HTTP 400-type:
    the request itself is wrong), it is given up: no cell, as in the reference.
    """
    requests = list(requests)
    experiments = {r.experiment for r in requests}
    stored: dict[tuple, dict[int, str]] = {}
    for e in experiments:
        stored.update(_stored_attempts(store_root, e))
    by_next: dict[int, list[Request]] = {}
    answered = given_up = 0
    for r in requests:
        done = stored.get(request_key(r), {})
        if any(s == "ok" for s in done.values()):
            answered += 1
        elif len(done) >= max_attempts or "stop" in done.values():
            given_up += 1
        else:
            by_next.setdefault(len(done) + 1, []).append(r)
    passes = []
    for n, group in sorted(by_next.items()):
        # max_attempts = n: the collector runs exactly one more attempt for each of these requests
        passes.append(collect(group, endpoint, store_root=store_root, max_attempts=n, write_index=False,
                              prices=prices(), completion_tokens=expected_completion, validate=any_answer))
    if passes:
        RawStore(store_root).write_index()
    return RunSummary(len(requests), answered, sum(len(g) for g in by_next.values()), given_up, passes)


RAW_ANSWER_COLUMNS = ("request_id", "model", "replicate", "response", "latency_s")


def read_answers(table: pd.DataFrame, models: Sequence[AuthorityModel | str], *, experiment: str,
                 store_root: Path | str | None = None, replicates: int = 1) -> pd.DataFrame:
    """The raw answers of ``table`` × ``models`` from the store, as :func:`lib.authority.responses.label_responses`
    expects them: ``request_id`` (the request table's), ``model``, ``replicate``, ``response`` (the answer
    text), ``latency_s``.

    Per request the first answered attempt counts; requests without one are absent (an
    unrecorded cell, spec A.5). Answers to other prompts under the same request id (an earlier
    condition set) are ignored through the prompt hash in the param.
    """
    want = {request_param(r, s): r for r, s in zip(table["request_id"], table["prompt_sha256"])}
    ids = {m.id for m in _models(models)}
    best: dict[tuple, tuple[int, dict]] = {}
    for rec in RawStore(store_root).iter_records(experiment):
        if rec.get("status") != "ok" or rec.get("model") not in ids or rec.get("param") not in want:
            continue
        if int(rec["replicate"]) >= replicates:
            continue
        k = (rec["model"], rec["param"], int(rec["replicate"]))
        a = int(rec["attempt"])
        if k not in best or a < best[k][0]:
            best[k] = (a, rec)
    rows = [dict(request_id=want[param], model=model, replicate=rep, response=rec.get("content") or "",
                 latency_s=float(rec.get("latency_s") or 0.0))
            for (model, param, rep), (_, rec) in best.items()]
    df = pd.DataFrame(rows, columns=list(RAW_ANSWER_COLUMNS))
    return df.sort_values(["model", "request_id", "replicate"], kind="stable").reset_index(drop=True)


def collect_table(table: pd.DataFrame, models: Sequence[AuthorityModel | str], endpoint: Endpoint, *,
                  experiment: str, store_root: Path | str | None = None, replicates: int = 1,
                  max_attempts: int = 3, seed: int | None = None,
                  api_ids: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, RunSummary]:
    """Collect a request table for ``models`` (resuming) and return its raw answers and the run summary."""
    reqs = to_requests(table, models, experiment=experiment, replicates=replicates, seed=seed, api_ids=api_ids)
    summary = run_collection(reqs, endpoint, store_root=store_root, max_attempts=max_attempts)
    return read_answers(table, models, experiment=experiment, store_root=store_root, replicates=replicates), summary


def parse_answers(raw: pd.DataFrame, *, parse_mode: str = "faithful", n_candidates: int = 10) -> pd.DataFrame:
    """``raw`` answers plus ``choice`` (1..n_candidates, Int64, <NA> when unparsed) under ``parse_mode``
    (:func:`lib.authority.parsing.parse_choice`: ``faithful`` = the paper's first-integer rule,
    ``corrected`` = the stricter parser); the input of :func:`lib.authority.pilot.pilot_rows`."""
    from lib.authority.parsing import parse_choice

    return raw.assign(choice=pd.array([parse_choice(t, mode=parse_mode, n_candidates=n_candidates)
                                       for t in raw["response"]], dtype="Int64"))


#: Assumed completion tokens per answer (the dry run states it): the reference caps nothing; an answer
#: names one paper number with a short reason (~150 tokens); models whose answer carries its <think>
#: block (model table column think_in_content, deepseek-r1) ~600.
ANSWER_TOKENS, THINKING_ANSWER_TOKENS = 150, 600
ASSUMPTION = (f"paper number + short reason ~{ANSWER_TOKENS} tokens; models answering with their <think> block "
              f"~{THINKING_ANSWER_TOKENS}; no max_tokens (as the reference)")


@lru_cache(maxsize=1)
def _thinking() -> frozenset:
    return frozenset(load_models().query("think_in_content")["id"])


def expected_completion(request) -> int:
    """Assumed completion tokens of one answer of ``request`` (:data:`ASSUMPTION`)."""
    return THINKING_ANSWER_TOKENS if request.model in _thinking() else ANSWER_TOKENS
