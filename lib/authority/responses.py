"""The labelled responses table of the main experiment: its columns, and how raw answers become it.

One row per (model, instruction, condition, query) cell, the unit of every table ab-tab5 …
ab-tab23. Columns (:data:`RESPONSE_COLUMNS`):

==========================  =====================================================================
``request_id``              identity of the prompt (from :func:`build_main_requests`)
``query_id, topic``         the query and its topic
``model``                   the model that answered
``instruction``             ``baseline`` / ``anti_authority`` / ``content_first``
``condition``               ``original`` / ``flipped`` / ``boosted``
``choice``                  recommended candidate position 1..10 (Int64; <NA> when unparsed)
``parsed``                  choice is not missing
``chosen_paper_id``         paper at that position (content identity; same across conditions)
``chosen_tier``             citation stratum of the chosen paper (top/mid/low/emerging/fill)
``chosen_bucket``           authority bucket of the chosen paper (high/mid/low, original composite)
``chosen_boosted``          the chosen paper carries boosted metadata in this condition
``chosen_composite``        composite authority α of the chosen paper *in this condition*
``chosen_x_<dim>``          its five within-topic normalised components in this condition
``chosen_max_h``            raw maximum author h-index shown for it in this condition
``chosen_citations``        raw citation count shown for it in this condition
``n_boosted_candidates``    boosted papers among the ten candidates of this cell
``justification``           the full answer text (the justification is read from it)
``latency_s``               wall-clock seconds of the call
==========================  =====================================================================
"""
from __future__ import annotations

import pandas as pd

from lib.authority.conditions import ConditionSet
from lib.authority.corpus import PaperCorpus
from lib.authority.parsing import parse_choice
from lib.authority.scoring import DIMENSIONS

RESPONSE_COLUMNS: tuple[str, ...] = (
    "request_id", "query_id", "topic", "model", "instruction", "condition", "choice", "parsed", "chosen_paper_id",
    "chosen_tier", "chosen_bucket", "chosen_boosted", "chosen_composite", *[f"chosen_x_{d}" for d in DIMENSIONS],
    "chosen_max_h", "chosen_citations", "n_boosted_candidates", "justification", "latency_s",
)
#: Columns a raw answer table must carry before labelling.
RAW_COLUMNS = ("request_id", "model", "response", "latency_s")


def check_responses(df: pd.DataFrame, *, needed: tuple[str, ...] | list[str] = RESPONSE_COLUMNS, table: str = "responses") -> None:
    """Raise a ValueError naming the table and the missing columns of the responses contract."""
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"{table}: missing column(s) {missing}; the responses table is documented in "
                         f"lib/authority/responses.py (RESPONSE_COLUMNS)")


def label_responses(raw: pd.DataFrame, requests: pd.DataFrame, corpus: PaperCorpus, conditions: ConditionSet, *,
                    parse_mode: str = "faithful") -> pd.DataFrame:
    """Turn raw answers into the responses table (parse the choice, attach the chosen paper's authority).

    ``raw`` has :data:`RAW_COLUMNS` (one row per model × request); ``requests`` is the table
    of :func:`lib.authority.prompts.build_main_requests`; ``conditions`` must be the condition set
    the requests were built from (same weights and seed). ``parse_mode`` is ``faithful`` (paper
    A.5) or ``corrected`` (:mod:`lib.authority.parsing`).
    """
    check_responses(raw, needed=RAW_COLUMNS, table="raw answers")
    check_responses(requests, needed=("request_id", "query_id", "topic", "instruction", "condition", "candidate_ids"),
                    table="requests")
    df = raw[list(RAW_COLUMNS)].merge(
        requests[["request_id", "query_id", "topic", "instruction", "condition", "candidate_ids"]], on="request_id",
        how="left", validate="many_to_one")
    unknown = df["query_id"].isna()
    if unknown.any():
        raise ValueError(f"raw answers: request_id {df.loc[unknown, 'request_id'].iloc[0]!r} is not in the requests table")
    df["choice"] = pd.array([parse_choice(t, mode=parse_mode, n_candidates=len(c))
                             for t, c in zip(df["response"], df["candidate_ids"])], dtype="Int64")
    df["parsed"] = df["choice"].notna()
    df["chosen_paper_id"] = [c[int(k) - 1] if pd.notna(k) else None for k, c in zip(df["choice"], df["candidate_ids"])]
    meta = conditions.papers
    boosted_ids = set(meta.loc[(meta["condition"] == "boosted") & meta["boosted"].astype(bool), "paper_id"])
    df["n_boosted_candidates"] = [sum(p in boosted_ids for p in c) if cond == "boosted" else 0
                                  for c, cond in zip(df["candidate_ids"], df["condition"])]
    pick = meta[["condition", "paper_id", "bucket", "boosted", "composite", *[f"x_{d}" for d in DIMENSIONS],
                 "raw_max_h", "raw_citations"]].rename(columns={
        "paper_id": "chosen_paper_id", "bucket": "chosen_bucket", "boosted": "chosen_boosted",
        "composite": "chosen_composite", **{f"x_{d}": f"chosen_x_{d}" for d in DIMENSIONS},
        "raw_max_h": "chosen_max_h", "raw_citations": "chosen_citations"})
    df = df.merge(pick, on=["condition", "chosen_paper_id"], how="left")
    df = df.merge(corpus.papers[["paper_id", "tier"]].rename(columns={"paper_id": "chosen_paper_id", "tier": "chosen_tier"}),
                  on="chosen_paper_id", how="left")
    df = df.rename(columns={"response": "justification"})
    return df[list(RESPONSE_COLUMNS)]


def attach_request_ids(raw: pd.DataFrame, requests: pd.DataFrame) -> pd.DataFrame:
    """Give released answers (keyed by query, instruction, condition) the ``request_id`` of the matching request.

    For raw tables from :func:`lib.authority.corpus.load_released_responses`; rows without a
    matching request raise a ValueError naming the first one.
    """
    keys = ["query_id", "instruction", "condition"]
    check_responses(raw, needed=keys, table="raw answers")
    out = raw.drop(columns=["request_id"], errors="ignore").merge(requests[[*keys, "request_id"]], on=keys, how="left")
    miss = out["request_id"].isna()
    if miss.any():
        raise ValueError(f"raw answers: no request for {out.loc[miss, keys].iloc[0].to_dict()}")
    return out
