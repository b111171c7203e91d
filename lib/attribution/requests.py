"""Chat requests for the attribution runs: what the collection runner sends, one row per call.

The runner (:mod:`lib.attribution.runs`) crosses these rows with the models of Table 6, sends
``messages`` with the decoding settings through :mod:`lib.llm` and stores the replies; the
analysis then reads a responses table (see :mod:`lib.attribution.metrics`).
"""
from __future__ import annotations

import hashlib
import json

import pandas as pd

from lib.attribution import prompts as pr

#: decoding of the paper's runs (§5.1): T = 0.7, nucleus p = 0.95; providers cap output at 500 tokens
TEMPERATURE, TOP_P, MAX_TOKENS = 0.7, 0.95, 500


def build_requests(dataset_df: pd.DataFrame, *, prompt_type: pr.PromptType, with_evidence: bool,
                   retrieval: pd.DataFrame | None = None, generations: int = 3, family: pr.Family = "providers",
                   labeled: bool = True) -> pd.DataFrame:
    """One request per (quote, generation): the system + user messages and the request identity.

    ``dataset_df`` needs ``quote_id``, ``quote`` and ``author_clean``. With ``with_evidence`` the
    user prompt carries R(q) from ``retrieval`` (the output of
    :func:`lib.attribution.retrieval.neighbours`, required then); a quote without neighbours gets
    the reference's "No strong … neighbors" line. Columns: ``request_id`` (sha256 of the
    identity and messages, first 16 hex), ``custom_id`` (reference style
    ``qid=…|prompt=…|evidence=…|run=…``), ``quote_id, prompt_type, evidence, generation``
    (1-based, the reference's ``run``), ``messages`` (list of {role, content}), ``temperature,
    top_p, max_tokens``. The model is not part of the identity: the runner adds it.
    """
    missing = [c for c in ("quote_id", "quote", "author_clean") if c not in dataset_df]
    if missing:
        raise ValueError(f"build_requests: dataset table lacks column(s) {missing}")
    if prompt_type not in pr.PROMPT_TYPES:
        raise ValueError(f"prompt_type must be one of {pr.PROMPT_TYPES}, got {prompt_type!r}")
    if generations < 1:
        raise ValueError(f"generations must be >= 1, got {generations}")
    if with_evidence and retrieval is None:
        raise ValueError("build_requests: with_evidence=True needs the retrieval table (lib.attribution.retrieval.neighbours)")
    by_quote = {q: g for q, g in retrieval.groupby("quote_id", sort=False)} if with_evidence else {}
    system = pr.system_prompt(with_evidence=with_evidence, family=family)
    rows = []
    for qid, quote in zip(dataset_df["quote_id"], dataset_df["quote"]):
        context = pr.format_context(by_quote.get(qid), labeled=labeled) if with_evidence else None
        user = pr.user_prompt(quote, prompt_type, context=context, family=family)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        for g in range(1, generations + 1):
            ident = {"quote_id": qid, "prompt_type": prompt_type, "evidence": bool(with_evidence), "generation": g,
                     "messages": messages}
            rid = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
            rows.append({"request_id": rid,
                         "custom_id": f"qid={qid}|prompt={prompt_type}|evidence={int(with_evidence)}|run={g}",
                         "quote_id": qid, "prompt_type": prompt_type, "evidence": bool(with_evidence),
                         "generation": g, "messages": messages,
                         "temperature": TEMPERATURE, "top_p": TOP_P, "max_tokens": MAX_TOKENS})
    return pd.DataFrame(rows)
