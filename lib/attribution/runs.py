"""The attribution runs: AttriBench prompts → shared client → raw store → responses table (paper §5.1).

Design of the paper's evaluation: every quote is sent to every model under three prompts
(direct, indirect, indirect overt), without and with retrieved evidence R(q), three stochastic
generations each, at temperature T = 0.7 and nucleus p = 0.95 (§5.1; reference B.3).

How a row of :func:`lib.attribution.requests.build_requests` becomes a
:class:`lib.llm.client.Request` (the raw store's identity):

=============  ==============================================================================
experiment     ``attribench_<prompt_type>`` plus ``_evidence`` when R(q) is in the prompt
               (:func:`experiment_name`)
model          the model id of paper Table 6 (``gpt-5.1``, ``moonshotai/Kimi-K2.5`` ...)
api_model      the id sent; the same unless ``api_models`` maps it (a real endpoint's names)
task           ``<dataset>@<fingerprint>``: the dataset name and 8 hex of the sha256 of the
               queried quotes and their retrieved evidence (:func:`fingerprint`), so a changed
               dataset or corpus (another twin, the released files, another sample) gets new
               requests instead of clashing with the prompts already stored
param          the quote_id
temperature    0.7
replicate      generation − 1 (generations are 1-based like the reference's ``run``)
=============  ==============================================================================

Collection goes through :func:`lib.llm.collect.collect`, so the store, resume and fault
handling are the shared ones. Two attribution-specific choices:

* The shared collector re-asks answers that fail the LLMScholarBench JSON validation; a quote
  attribution reply is prose and never "valid" in that sense, so every request is sent with
  ``max_attempts=1`` and only requests whose stored attempts are all infrastructure failures
  (API errors after the client's own retries) are re-asked, up to ``max_attempts``.
* Every request carries ``top_p`` = 0.95 (:func:`run` sets it on requests that have none), so
  the stored ``request`` body is the one sent; :func:`responses` reports it from there.

Not sent: the reasoning switches of §5.1 (reasoning disabled, GPT-OSS-120B at "low") and the
providers' batch APIs; the shared client speaks plain chat completions. The analysis never
talks to the panel: it reads the store back with :func:`responses`.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import numpy as np
import pandas as pd

from lib.attribution import models as at_models
from lib.attribution import prompts as pr
from lib.attribution.models import routing, table6
from lib.attribution.requests import TOP_P, build_requests
from lib.llm.client import Endpoint, Request
from lib.llm.collect import collect
from lib.llm.kernel import CollectionSummary, any_answer
from lib.llm.store import RawStore, request_key

EXPERIMENT_PREFIX = "attribench"
#: the conditions of the paper's design: (prompt_type, evidence)
CONDITIONS: tuple[tuple[str, bool], ...] = tuple((p, e) for e in (False, True) for p in pr.PROMPT_TYPES)
RESPONSE_COLUMNS = ("dataset", "quote_id", "model", "prompt_type", "evidence", "generation", "text",
                    "status", "attempts", "top_p", "request_id")


def paper_models(table: pd.DataFrame | None = None) -> list[str]:
    """The model ids of ``table`` (:func:`lib.attribution.models.for_profile`; None: the eleven of
    paper Table 6, A.8), in the table's order."""
    return table6(table)["version"].tolist()


def experiment_name(prompt_type: str, evidence: bool) -> str:
    """``attribench_direct``, ``attribench_indirect_overt_evidence`` ... (one store folder each)."""
    if prompt_type not in pr.PROMPT_TYPES:
        raise ValueError(f"prompt_type must be one of {pr.PROMPT_TYPES}, got {prompt_type!r}")
    return f"{EXPERIMENT_PREFIX}_{prompt_type}" + ("_evidence" if evidence else "")


def parse_experiment(name: str) -> tuple[str, bool]:
    """Inverse of :func:`experiment_name`: (prompt_type, evidence)."""
    rest = name.removeprefix(f"{EXPERIMENT_PREFIX}_")
    evidence = rest.endswith("_evidence")
    prompt_type = rest.removesuffix("_evidence")
    if rest == name or prompt_type not in pr.PROMPT_TYPES:
        raise ValueError(f"{name!r} is not an AttriBench experiment name (expected {EXPERIMENT_PREFIX}_<prompt>[_evidence])")
    return prompt_type, evidence


def fingerprint(*tables: pd.DataFrame | None) -> str:
    """8 hex of the sha256 over what shapes the prompts: the queried quotes (quote_id, quote,
    author_clean) and the retrieved evidence (quote_id, rank, neighbour_quote_id, author,
    similarity to the 4 decimals the prompt shows). ``None`` tables are skipped."""
    h = hashlib.sha256()
    for df in tables:
        if df is None:
            continue
        df = df.assign(similarity=df["similarity"].round(4)) if "similarity" in df else df
        cols = [c for c in ("quote_id", "rank", "neighbour_quote_id", "quote", "author_clean", "author", "similarity")
                if c in df]
        h.update(df[cols].sort_values(cols[:2]).to_csv(index=False).encode("utf-8"))
    return h.hexdigest()[:8]


@dataclass(frozen=True)
class RunSpec:
    """One dataset's part of a run: which quotes are asked (``targets``) and which corpus R(q)
    is retrieved from (``retrieval`` = :func:`lib.attribution.retrieval.neighbours` of targets
    within that corpus; needed for the evidence conditions)."""

    dataset: str
    targets: pd.DataFrame
    retrieval: pd.DataFrame | None = None
    corpus_fingerprint: str = ""     # overrides the computed :func:`fingerprint`

    @property
    def task(self) -> str:
        return f"{self.dataset}@{self.corpus_fingerprint or fingerprint(self.targets, self.retrieval)}"


def build_specs(datasets: Mapping[str, pd.DataFrame], *, n_matchings: int, seed: int, with_evidence: bool = True,
                k: int = 5, cache_dir: Path | None = None, embedder=None) -> list[RunSpec]:
    """One :class:`RunSpec` per dataset: the targets of :func:`select_targets` and, with
    ``with_evidence``, their top-``k`` neighbours R(q) retrieved from the targets themselves
    (as the paper's runs: the retrieval corpus is the run's CSV, the query's own row included;
    :func:`lib.attribution.retrieval.neighbours`). ``cache_dir``/``embedder`` go to the retrieval."""
    from lib.attribution import retrieval

    specs = []
    for kind, df in datasets.items():
        targets = select_targets(df, "multirace" if "multirace" in kind else "intersectional", n_matchings, seed)
        nb = retrieval.neighbours(targets, k=k, cache_dir=cache_dir, embedder=embedder) if with_evidence else None
        specs.append(RunSpec(kind, targets, nb))
    return specs


#: output cap of the Together runners (reference B.3); the provider runners cap at 500 (requests.MAX_TOKENS)
MAX_TOKENS_TOGETHER = 128


def runner_family(model: str, table: pd.DataFrame | None = None) -> pr.Family:
    """The release's runner family of a model of ``table`` (its ``family`` column; None: Table 6):
    ``together`` for the models served by Together AI (their own system prompt and templates, 128
    output tokens), ``providers`` for GPT-5.1, Claude and Gemini (and any model not in the table)."""
    t = table6(table).set_index("version")
    return "together" if model in t.index and t.loc[model, "family"] == "together" else "providers"


def select_targets(dataset: pd.DataFrame, kind: str, n_matchings: int, seed: int) -> pd.DataFrame:
    """The quotes a run asks about: the whole dataset (``n_matchings`` = 0, the paper's design),
    else ``n_matchings`` random matchings with one quote per author (the ``*_random_300matchings``
    construction, :func:`lib.attribution.twin.random_matchings`), or, for tables without
    ``match_idx`` (the released files), ``n_matchings`` random quotes per subgroup."""
    if n_matchings < 0:
        raise ValueError(f"select_targets: n_matchings must be >= 0, got {n_matchings}")
    if n_matchings == 0:
        return dataset.reset_index(drop=True)
    if "match_idx" in dataset:
        from lib.attribution.twin import random_matchings
        return random_matchings(dataset, n_matchings, seed)
    from lib.attribution.tables import balanced_quote_subset
    return balanced_quote_subset(dataset, kind, per_group=n_matchings, seed=seed).drop(columns="subgroup")


class PlanRequests:
    """The requests of one :func:`plan` call, made on demand (re-iterable, with a length): a paper
    run has millions, so they are never all in memory. The prompts of each (dataset, condition,
    runner family) are built once and kept (one tuple per quote and generation); the
    :class:`Request` objects are made as they are iterated. Iteration order is :func:`plan`'s
    (spec × condition × model × quote × generation); :meth:`chunks` groups them by run file."""

    def __init__(self, specs: Iterable[RunSpec], models: Sequence[str], *,
                 conditions: Sequence[tuple[str, bool]] = CONDITIONS, generations: int = 3,
                 family: pr.Family | str = "reference", api_models: Mapping[str, str] | None = None,
                 seed: int | None = None, models_by_condition: Mapping[tuple[str, bool], Sequence[str]] | None = None,
                 table: pd.DataFrame | None = None):
        if not models:
            raise ValueError("plan: no models given (see paper_models())")
        if family not in ("reference", *pr.SYSTEM):
            raise ValueError(f"plan: family must be 'reference' or one of {tuple(pr.SYSTEM)}, got {family!r}")
        self.specs, self.conditions, self.generations = list(specs), list(conditions), generations
        self.family, self.api_models, self.seed = family, dict(api_models or {}), seed
        self.models = {c: list((models_by_condition or {}).get(c, models)) for c in self.conditions}
        for spec in self.specs:
            for prompt_type, evidence in self.conditions:
                if evidence and spec.retrieval is None:
                    raise ValueError(f"plan: dataset {spec.dataset!r} has no retrieval table but the condition "
                                     f"({prompt_type}, evidence) needs R(q)")
        self._tasks = [spec.task for spec in self.specs]
        # the model table the runner families and providers come from (a profile's own models included)
        self.table = table
        r6 = routing(table)
        self.route = dict(zip(r6["model"], r6["provider"]))
        self._rows: dict[tuple, list[tuple]] = {}

    def _built(self, i: int, prompt_type: str, evidence: bool, fam: str) -> list[tuple]:
        key = (i, prompt_type, evidence, fam)
        rows = self._rows.get(key)
        if rows is None:
            spec = self.specs[i]
            df = build_requests(spec.targets, prompt_type=prompt_type, with_evidence=evidence,
                                retrieval=spec.retrieval, generations=self.generations, family=fam)
            msgs: dict[int, tuple] = {}
            rows = self._rows[key] = [(str(r.quote_id), float(r.temperature), int(r.generation) - 1,
                                       msgs.setdefault(id(r.messages), tuple(r.messages)), int(r.max_tokens),
                                       float(r.top_p)) for r in df.itertuples(index=False)]
        return rows

    def _requests(self, i: int, condition: tuple[str, bool], model: str) -> Iterator[Request]:
        prompt_type, evidence = condition
        fam = runner_family(model, self.table) if self.family == "reference" else self.family
        cap = MAX_TOKENS_TOGETHER if fam == "together" else None
        exp, api, task = experiment_name(prompt_type, evidence), self.api_models.get(model, model), self._tasks[i]
        for param, temp, rep, messages, max_tokens, top_p in self._built(i, prompt_type, evidence, fam):
            yield Request(experiment=exp, model=model, api_model=api, task=task, param=param, temperature=temp,
                          replicate=rep, messages=messages, seed=self.seed, max_tokens=cap or max_tokens, top_p=top_p,
                          provider=self.route.get(model))

    def __iter__(self) -> Iterator[Request]:
        for i in range(len(self.specs)):
            for c in self.conditions:
                for model in self.models[c]:
                    yield from self._requests(i, c, model)

    def __len__(self) -> int:
        return sum(len(spec.targets) * self.generations * len(self.models[c]) for spec in self.specs
                   for c in self.conditions)

    def chunks(self) -> Iterator[tuple[tuple[str, bool], list[Request]]]:
        """((model, evidence), requests) per run file of the release (one model, one evidence
        setting, every dataset and prompt), in :func:`plan` order within the chunk."""
        for evidence in dict.fromkeys(e for _, e in self.conditions):
            conds = [c for c in self.conditions if c[1] == evidence]
            for model in dict.fromkeys(m for c in conds for m in self.models[c]):
                yield (model, evidence), [r for i in range(len(self.specs)) for c in conds if model in self.models[c]
                                          for r in self._requests(i, c, model)]


def plan(specs: Iterable[RunSpec], models: Sequence[str], *, conditions: Sequence[tuple[str, bool]] = CONDITIONS,
         generations: int = 3, family: pr.Family | str = "reference", api_models: Mapping[str, str] | None = None,
         seed: int | None = None, models_by_condition: Mapping[tuple[str, bool], Sequence[str]] | None = None,
         table: pd.DataFrame | None = None) -> list[Request]:
    """The request plan: every spec × condition × model × quote × generation.

    ``family="reference"`` (faithful) gives each model its release runner's prompts and output
    cap (:func:`runner_family`: Together models 128 tokens and the Together system prompt, the
    others 500 and the providers' prompts of Table 1); ``"providers"`` or ``"together"`` use one
    family for all. ``models_by_condition`` overrides ``models`` for some conditions (the
    paper's † models ran RAG on the 300-matching subsets: give them their own spec). Requests
    carry T = 0.7 and ``seed`` (None: the paper sent none; generations are kept apart by the
    replicate the client sends). ``api_models`` maps a model id to the name the endpoint expects;
    ``table`` is the model table the families come from (:func:`runner_family`). Each request
    carries its model's provider (:func:`lib.attribution.models.routing`).
    A list; :class:`PlanRequests` takes the same arguments and makes them on demand.
    """
    return list(PlanRequests(specs, models, conditions=conditions, generations=generations, family=family,
                             api_models=api_models, seed=seed, models_by_condition=models_by_condition,
                             table=table))


class PaperRequests:
    """The paper plan's requests: the main :class:`PlanRequests` and the † part, one after the
    other (re-iterable, with a length); :meth:`chunks` yields ((block, model, evidence), requests)
    per run file, block 0 = main, 1 = the † models' RAG runs on the subsets."""

    def __init__(self, parts: Sequence[PlanRequests]):
        self.parts = list(parts)

    def __iter__(self) -> Iterator[Request]:
        for p in self.parts:
            yield from p

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    def chunks(self) -> Iterator[tuple[tuple[int, str, bool], list[Request]]]:
        for block, p in enumerate(self.parts):
            for (model, evidence), reqs in p.chunks():
                yield (block, model, evidence), reqs


@dataclass(frozen=True)
class PaperPlan:
    """The paper's request plan (§5.1, Table 6): requests (made on demand, :class:`PaperRequests`),
    the specs they came from, the models, the † models (RAG on the 300-matching subsets) and the
    quotes the endpoint must know."""

    requests: PaperRequests
    specs: list[RunSpec]
    models: list[str]
    dagger: list[str]
    quotes: pd.DataFrame

    def line(self) -> str:
        return (f"{len(self.requests):,} requests: {dict((s.dataset, len(s.targets)) for s in self.specs)} quotes, "
                f"{len(self.models)} models")


def paper_plan(source, *, seed: int, n_matchings: int, generations: int, family: pr.Family | str = "reference",
               api_models: Mapping[str, str] | None = None, rag_subset_models: Sequence[str] = (),
               table: pd.DataFrame | None = None) -> PaperPlan:
    """Every model on every condition of ``source``'s datasets (a :mod:`lib.attribution.inputs`
    source with ``datasets`` and ``subsets``), as the paper ran them: the † models of
    ``rag_subset_models`` ran the evidence conditions on the 300-matching subsets instead (only
    when every quote is asked, ``n_matchings == 0``, and the source has both subsets). ``table``:
    the models (:func:`lib.attribution.models.for_profile`; None: Table 6)."""
    models = paper_models(table)
    specs = build_specs(source.datasets, n_matchings=n_matchings, seed=seed)
    dagger = [m for m in rag_subset_models if n_matchings == 0 and len(source.subsets) == 2]
    rag = [c for c in CONDITIONS if c[1]]
    parts = [PlanRequests(specs, models, generations=generations, family=family, api_models=api_models,
                          models_by_condition={c: [m for m in models if m not in dagger] for c in rag}, table=table)]
    if dagger:
        parts.append(PlanRequests(build_specs(source.subsets, n_matchings=0, seed=seed), dagger, conditions=rag,
                                  generations=generations, family=family, api_models=api_models, table=table))
    quotes = pd.concat(list(source.datasets.values()), ignore_index=True).drop_duplicates("quote_id")
    return PaperPlan(PaperRequests(parts), specs, models, dagger, quotes)


def _unanswered(requests: Sequence[Request], store_root: Path | str | None) -> list[Request]:
    """Requests without a stored attempt that got an answer (status ok) or a non-retryable stop."""
    with RawStore(store_root) as store:
        return [r for r in requests
                if not any(a["status"] == "ok" or a["stop"] for a in store.attempts(r).values())]


class _WithTopP:
    """``requests`` with ``top_p`` set where unset, made as iterated (a plan of millions stays lazy)."""

    def __init__(self, requests: Iterable[Request], top_p: float):
        self.requests, self.top_p = requests, top_p

    def __iter__(self) -> Iterator[Request]:
        return (r if r.top_p is not None else replace(r, top_p=self.top_p) for r in self.requests)

    def __len__(self) -> int:
        return len(self.requests)


def run(requests: Sequence[Request], endpoint: Endpoint, *, store_root: Path | str | None = None, max_attempts: int = 3,
        top_p: float | None = TOP_P, transport: httpx.AsyncBaseTransport | None = None,
        write_index: bool = True) -> CollectionSummary:
    """Collect ``requests`` into the raw store (default ``lib.paths.RAW``); resume-safe.

    Pass 1 sends every request that has no stored attempt (one attempt each). Passes 2..
    ``max_attempts`` re-ask only requests whose attempts are all API errors, one more attempt
    per pass. Requests already answered are skipped, so a second call sends nothing. ``top_p``
    is set on every request without one (None: left unset, not sent); ``transport`` replaces the
    client's HTTP transport (tests). Returns the summed :class:`CollectionSummary`
    (answers are free text: any non-empty reply ends a request, :func:`lib.llm.kernel.any_answer`). The store's
    parquet index is rebuilt once at the end (``write_index``), not after every pass.
    """
    if max_attempts < 1:
        raise ValueError(f"run: max_attempts must be >= 1, got {max_attempts}")
    if top_p is not None:
        requests = _WithTopP(requests, float(top_p))
    total = CollectionSummary(requests=len(requests))
    for attempt in range(1, max_attempts + 1):
        todo = requests if attempt == 1 else _unanswered(requests, store_root)
        if not todo:
            break
        # free-text answers: any non-empty reply ends a request (the LLMScholarBench list check does not apply)
        s = collect(todo, endpoint, store_root=store_root, max_attempts=attempt, transport=transport,
                    write_index=False, prices=at_models.prices(), validate=any_answer)
        if attempt == 1:
            total.already_complete = s.already_complete
        total.attempts_written += s.attempts_written
        total.api_error_attempts += s.api_error_attempts
        total.stopped_requests += s.stopped_requests
        total.tries.update(s.tries)
        total.seconds += s.seconds
        total.valid_requests += s.valid_requests
        # completeness: each pass answers requests the earlier ones did not; what the last pass left
        # failed stays open, and the rest ended without an answer (empty reply, stop, API errors)
        total.answered += s.answered
        total.failed, total.quarantined = s.failed, s.quarantined
        total.ended_invalid = total.requests - total.answered - total.failed
        if s.api_error_attempts == 0 and s.already_complete == 0:
            break                      # everything sent in this pass was answered
    if write_index and total.attempts_written:
        RawStore(store_root).write_index(read=False)
    return total


def _found(requests: Iterable[Request], store: RawStore, *, model: str | None = None) -> tuple[dict, dict]:
    """(request key -> request, request key -> [(attempt, status, content, top_p)]) of ``requests``
    from the store's shards of their experiments (and ``model``); only what the table needs is kept."""
    wanted = {request_key(r): r for r in requests}
    found: dict[tuple, list[tuple]] = {}
    for exp in sorted({r.experiment for r in wanted.values()}):
        for rec in store.iter_records(exp, model=model):
            k = request_key(rec)
            if k in wanted:
                found.setdefault(k, []).append((int(rec["attempt"]), rec.get("status"), rec.get("content"),
                                                (rec.get("request") or {}).get("top_p")))
    return wanted, found


def _table(wanted: dict, found: dict, include_failures: bool) -> pd.DataFrame:
    rows = []
    for k, r in wanted.items():
        recs = sorted(found.get(k, []), key=lambda x: x[0])
        ok = next((x for x in recs if x[1] == "ok"), None)
        status = "ok" if ok is not None else (recs[-1][1] if recs else "missing")
        if ok is None and not include_failures:
            continue
        prompt_type, evidence = parse_experiment(r.experiment)
        rows.append({"dataset": r.task.split("@", 1)[0], "quote_id": r.param, "model": r.model,
                     "prompt_type": prompt_type, "evidence": evidence, "generation": int(r.replicate) + 1,
                     "text": ok[2] if ok is not None else None, "status": status, "attempts": len(recs),
                     "top_p": (ok or (recs[-1] if recs else (None,) * 4))[3], "request_id": r.request_id})
    out = pd.DataFrame(rows, columns=list(RESPONSE_COLUMNS))
    out["evidence"] = out["evidence"].astype(bool)
    out["generation"] = out["generation"].astype("int64")
    return out


def responses(requests: Sequence[Request], *, store_root: Path | str | None = None,
              include_failures: bool = False) -> pd.DataFrame:
    """The responses table of the planned ``requests``, read back from the raw store.

    One row per request: ``dataset`` (the task without its fingerprint), ``quote_id, model,
    prompt_type, evidence, generation`` (replicate + 1), ``text`` (the first answered attempt's
    content), ``status`` (ok / api_error / client_error / missing), ``attempts``, ``top_p`` (as
    sent: the stored request body's; None when not sent or nothing is stored) and ``request_id``. Requests without an answer are dropped unless ``include_failures``
    (then ``text`` is None, which the scorer counts as "no author named", as the reference's
    empty outputs). Records of other plans in the same store are ignored. For a paper-size plan
    use :func:`iter_responses` (one run file at a time).
    """
    return _table(*_found(requests, RawStore(store_root)), include_failures)


def iter_responses(requests: "PaperRequests | PlanRequests", *, store_root: Path | str | None = None,
                   include_failures: bool = False) -> Iterator[tuple[tuple, pd.DataFrame]]:
    """:func:`responses` chunk by chunk: (chunk key, table) per run file of ``requests.chunks()``
    (one model and evidence setting, every dataset and prompt), reading only that model's shards."""
    store = RawStore(store_root)
    for key, reqs in requests.chunks():
        yield key, _table(*_found(reqs, store, model=reqs[0].model if reqs else None), include_failures)


def score_store(requests: "PaperRequests | PlanRequests", datasets: Mapping[str, pd.DataFrame], path: Path | str, *,
                store_root: Path | str | None = None, score=None) -> pd.DataFrame:
    """Score a run from the raw store, one run file at a time, into ``path`` (parquet) and return it.

    Each chunk of :func:`iter_responses` is scored under every mode
    (:func:`lib.attribution.quirks.score_modes`: the faithful table plus each quirk switch's
    outcome columns) and appended to ``path`` without its answer texts, so the millions of replies
    of a paper run are never in memory together. The table read back is put in the order
    whole-table scoring gives (:func:`lib.attribution.metrics.score_datasets` of :func:`responses`:
    dataset, plan part, condition, model, quote, generation), so both are equal row for row
    (tests/attribution/test_runs.py). ``score``: the scorer of ``score_modes`` (default
    :func:`lib.attribution.metrics.score_datasets`).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq
    from tqdm.auto import tqdm

    from lib.attribution import quirks

    path = Path(path)
    tmp = path.with_name(f".{path.name}.part")
    writer, schema, n = None, None, 0
    kw = {"score": score} if score is not None else {}
    chunks = list(requests.parts) if isinstance(requests, PaperRequests) else [requests]
    try:
        for (block, *_), resp in tqdm(((k if isinstance(requests, PaperRequests) else (0, *k), r)
                                       for k, r in iter_responses(requests, store_root=store_root)),
                                      desc="scoring", unit="run file", mininterval=1.0):
            if resp.empty:
                continue
            sc = quirks.score_modes(resp, dict(datasets), **kw).drop(columns="text")
            sc["_block"] = block
            table = pa.Table.from_pandas(sc, preserve_index=False)
            if writer is None:
                schema = table.schema
                writer = pq.ParquetWriter(tmp, schema)
            writer.write_table(table.cast(schema))
            n += len(sc)
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        return pd.DataFrame()
    out = pq.read_table(tmp).to_pandas()
    # whole-table order: datasets in the given order, then plan part, condition, model (stable within)
    cond = {c: i for i, c in enumerate(CONDITIONS)}
    model_order = {m: i for i, m in enumerate(dict.fromkeys(m for p in chunks for c in p.conditions for m in p.models[c]))}
    order = pd.DataFrame({
        "d": out["dataset"].map({d: i for i, d in enumerate(datasets)}).to_numpy(),
        "b": out["_block"].to_numpy(),
        "c": [cond[x] for x in zip(out["prompt_type"], out["evidence"])],
        "m": out["model"].map(model_order).to_numpy()})
    out = out.iloc[np.lexsort((order["m"], order["c"], order["b"], order["d"]))].drop(columns="_block")
    out = out.reset_index(drop=True)
    out.to_parquet(path, index=False)
    tmp.unlink(missing_ok=True)
    return out


def status_counts(requests: Sequence[Request], *, store_root: Path | str | None = None) -> pd.DataFrame:
    """Per (model, prompt_type, evidence): planned requests, answered ones and failures."""
    r = responses(requests, store_root=store_root, include_failures=True)
    g = r.groupby(["model", "prompt_type", "evidence"], sort=False)["status"]
    return g.agg(planned="size", answered=lambda s: int((s == "ok").sum())).reset_index().assign(
        failed=lambda d: d["planned"] - d["answered"])


#: the dry run's completion assumption: every answer runs to its output cap (an upper bound)
ASSUMPTION = (f"each answer's max_tokens cap (an upper bound): {MAX_TOKENS_TOGETHER} for the Together runners, "
              "500 for the provider runners")


def notebook_plans(cfg, notebook: str, params: Mapping) -> list:
    """The collection ``notebook`` (06) would make under ``cfg`` and its parameters ``params``: the twin
    (or the released files) built as the notebook builds it, then :func:`paper_plan`; nothing is
    sent. [] when the models are not asked (a real-data profile without an endpoint)."""
    from lib.attribution import build
    from lib.attribution import inputs as at_inputs
    from lib.llm.cost import PlannedCollection

    if not at_inputs.run_models(cfg):
        return []
    runs, lam = params.get("balancing_runs", 100), params.get("balance_lambda", 1.0)
    # the notebook's datasets are the first mode's (faithful) balancing: the corrected one changes no request
    tw = build.build_twin(params["twin_authors"], cfg.seed, runs=runs, lam=lam, n_matchings=params["n_matchings"],
                          modes=("faithful",))
    src = at_inputs.Sources(tw, at_inputs.released(cfg, params.get("use_released_data", True), runs=runs, lam=lam)).asked
    pp = paper_plan(src, seed=cfg.seed, n_matchings=params["run_matchings"], generations=params["generations"],
                    family=params.get("prompt_family", "reference"), api_models=params.get("api_models") or {},
                    rag_subset_models=params.get("rag_subset_models") or (), table=at_models.for_profile(cfg))
    return [PlannedCollection(notebook, "attribution runs", pp.requests, lambda r: r.max_tokens, ASSUMPTION,
                              cfg.llm.max_attempts, prices=at_models.prices())]
