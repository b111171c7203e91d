"""LLMScholarBench's collection tables: the raw store turned into the tables the analysis reads.

The collection notebooks (01, 02) write, after collecting through :func:`lib.endpoints.open_endpoint`:
:func:`attempt_table` (one row per attempt, both label sets, provenance; built model by model
from the store by :func:`attempts_from_store`) and :func:`name_table` (one row per recommended
name with its match in the ground truth); :func:`write_parquet` stores them.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import pandas as pd

from lib.scholar import labels

#: provenance kept per attempt from the raw record (lib.llm.client's flat record)
RECORD_COLUMNS = ("request_id", "status", "http_status", "tries", "served_model", "provider", "system_fingerprint",
                  "base_url", "requested_model", "sub_provider", "finish_reason", "latency_s", "started_at",
                  "finished_at", "prompt_sha256")
MODEL_COLUMNS = ("grounded", "access", "size_class", "model_class", "model_family", "reasoning")


def attempt_table(records: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    """One row per stored attempt with both label sets, the chosen attempts and provenance.

    ``records``: :meth:`lib.llm.store.RawStore.records`; ``models``: :func:`lib.scholar.models.load_models`.
    Labels: :func:`lib.scholar.labels.label_attempts` in faithful mode (``label`` = the reference's
    label, ``valid_attempt`` its chosen attempt, reference §2.1–2.2) plus the paper's seven labels
    (``label_paper``) and the attempt they choose (``valid_attempt_paper``: the lowest ``valid``,
    else ``verbose``, paper label). ``run`` is the replicate index (it stands for the paper's
    twice-daily runs). Provenance: served model, provider, fingerprint, status, tries, latency,
    timestamps, token usage. Model attributes: access, size class, reasoning class, grounded (RAG).
    """
    if records.empty:
        raise ValueError("attempt_table: the raw store holds no attempt for this experiment")
    unknown = sorted(set(records["model"]) - set(models["key"]))
    if unknown:
        raise KeyError(f"attempt_table: records column model has keys {unknown} not in lib/resources/lsb_models.csv")
    lab = labels.label_attempts(records, mode="faithful")
    lab["valid_attempt_paper"] = labels.set_attempt_validity(lab, label_col="label_paper")["valid_attempt"]
    lab.insert(lab.columns.get_loc("replicate") + 1, "run", lab["replicate"])
    rec = records.reset_index(drop=True)
    for c in RECORD_COLUMNS:
        lab[c] = rec[c] if c in rec else None
    usage = rec["usage"] if "usage" in rec else pd.Series([{}] * len(rec))
    for c in ("prompt_tokens", "completion_tokens", "total_tokens"):
        lab[c] = usage.map(lambda u, c=c: (u or {}).get(c) if isinstance(u, dict) else None).astype("Int64")
    errors = rec["error"] if "error" in rec else pd.Series([None] * len(rec))
    lab["error_kind"] = errors.map(lambda e: e.get("kind") if isinstance(e, dict) else None)
    attrs = models.set_index("key")[list(MODEL_COLUMNS)]
    for c in MODEL_COLUMNS:
        lab[c] = lab["model"].map(attrs[c]).to_numpy()
    lab["size_class"] = lab["size_class"].astype(str)
    return lab


def attempts_from_store(models: pd.DataFrame, experiment: str, *, requests=None, store_root=None) -> pd.DataFrame:
    """:func:`attempt_table` of one experiment of the raw store, built model by model.

    The store keeps one shard per (experiment, model), and the chosen attempt is decided within a
    request, so labelling shard by shard is exact while only one model's raw records (full
    response bodies) are in memory at a time. ``requests`` (the plan, a list of
    :class:`lib.llm.client.Request`) keeps only the attempts of those requests, so a store that
    also holds an earlier, larger plan gives the same table. ``store_root`` defaults to
    ``lib.paths.RAW``.
    """
    from itertools import groupby

    from lib.llm.store import RawStore, attempt_key, request_key

    wanted = {r.key for r in requests} if requests is not None else None
    parts = []
    stream = RawStore(store_root).iter_records(experiment)
    for _, recs in groupby(stream, key=lambda r: r["model"]):
        # in request order, not the order the answers arrived in (a batch returns them shuffled), so
        # the table and every sum over it are the same bytes whatever the arrival order
        chunk = sorted((r for r in recs if wanted is None or request_key(r) in wanted), key=attempt_key)
        if chunk:
            parts.append(attempt_table(pd.DataFrame(chunk), models))
    if not parts:
        raise ValueError(f"raw store {RawStore(store_root).root}: no attempt of experiment {experiment!r}"
                         + (" for the requested plan" if wanted is not None else ""))
    return pd.concat(parts, ignore_index=True)


def name_table(attempts: pd.DataFrame, authors: pd.DataFrame, *,
               modes: Sequence[str] = ("faithful", "paper"), index_cache: Path | str | None = None,
               reference_ties: bool = True) -> pd.DataFrame:
    """One row per recommended name of the chosen attempts, with its ground-truth match.

    ``mode`` 'faithful': the reference's name rows (§2.2) matched with the faithful rule of
    :mod:`lib.scholar.matching`; 'paper': the paper labels' list items matched with the corrected
    rule. Columns: mode, request keys, run, attempt, label, name, years, doi, career_age, flag,
    clean_name, author_id (<NA> when unmatched), score, n_best (homonyms), matched.
    Faithful ties follow the reference's batch order (one model's names of one experiment;
    :func:`lib.scholar.matching.reference_choice`) unless ``reference_ties=False`` (the first tied
    author in ground-truth order). The ground-truth indexes of large author tables are cached on disk
    (:func:`lib.scholar.matching.cached_index`; ``index_cache`` overrides its folder).
    """
    from lib.scholar import matching

    out = []
    for mode in modes:
        if mode == "faithful":
            rows = labels.name_rows(attempts, mode="faithful")
            index = matching.cached_index(authors, "faithful", cache_dir=index_cache)
        elif mode == "paper":
            view = attempts.assign(valid_attempt=attempts["valid_attempt_paper"], label=attempts["label_paper"])
            rows = labels.name_rows(view, mode="paper")
            index = matching.cached_index(authors, "corrected", cache_dir=index_cache)
        else:
            raise ValueError(f"name_table: modes must be 'faithful' or 'paper', got {mode!r}")
        # faithful: ties resolved as the reference does, per batch = one model's names of one experiment
        batch = (rows["experiment"].astype(str) + "\x1f" + rows["model"].astype(str)
                 if mode == "faithful" and reference_ties else None)
        m = matching.match_names(rows["name"], index, batch=batch)
        rows = rows.assign(run=rows["replicate"], clean_name=m["clean_name"].to_numpy(),
                           author_id=m["author_id"].array, score=m["score"].to_numpy(),
                           n_best=m["n_best"].to_numpy(), matched=m["matched"].to_numpy())
        rows.insert(0, "mode", mode)
        out.append(rows)
    return pd.concat(out, ignore_index=True)


def _jsonable(v):
    return json.dumps(v, ensure_ascii=False, default=str) if isinstance(v, (list, dict, tuple)) else v


def storable(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as parquet stores it readably: list/dict cells (the label items) become JSON text, so
    the file reads back with any engine (``json.loads`` restores them); mixed-type object columns
    (e.g. career ages as text or numbers) become text."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            vals = out[c].map(_jsonable)
            kinds = {type(v) for v in vals if v is not None and not (isinstance(v, float) and v != v)}
            out[c] = vals.map(lambda v: v if v is None or isinstance(v, str) else str(v)) if len(kinds) > 1 else vals
    out.attrs = {}
    return out


def write_parquet(df: pd.DataFrame, path: Path | str) -> Path:
    """Write :func:`storable` ``df`` as parquet at ``path``, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    storable(df).to_parquet(tmp, index=False)
    tmp.replace(path)
    return path
