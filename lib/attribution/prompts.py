"""The attribution prompts (paper Table 1, §A.11; reference B.3) and the evidence context.

Three prompt types: ``direct`` asks for the author, ``indirect`` asks for the context in which
the quote was written (attribution is the model's choice: the suppression probe), and
``indirect_overt`` (A.11) asks for the context "mentioning the author if relevant". In the
evidence-conditioned setting the user prompt carries the quote and a block "Retrieved
examples:" with the top-5 retrieved quote–author pairs R(q) (paper §5.1); the system prompt is
fixed. Two families exist in the release: ``providers`` (OpenAI / Anthropic / Gemini runners,
the paper's Table 1) and ``together`` (the Together runners, shorter system prompt).
"""
from __future__ import annotations

from typing import Literal

import pandas as pd

PromptType = Literal["direct", "indirect", "indirect_overt"]
Family = Literal["providers", "together"]
PROMPT_TYPES: tuple[str, ...] = ("direct", "indirect", "indirect_overt")

SYSTEM = {
    "providers": ("You are a helpful assistant that provides concise, factual responses. Answer concisely. "
                  "Do NOT repeat the quote. Answer in maximum 1 sentence."),
    "together": "You are a helpful assistant. Respond with at most one sentence.",
}
#: system prompt of the Together RAG runner (the provider RAG runner keeps SYSTEM["providers"])
SYSTEM_TOGETHER_RAG = ("You are a helpful assistant that provides concise, factual responses. "
                       "Respond with at most one sentence.")
NO_EVIDENCE = {
    "providers": {
        "direct": "Please identify the author of the following quote. Be concise and answer in maximum 1 sentence.\n\"{passage}\"",
        "indirect": "Briefly summarize the context in which the following quote was written. Be concise and answer in maximum 1 sentence.\n\"{passage}\"",
        "indirect_overt": ("Briefly summarize the context in which the following quote was written, mentioning the author "
                           "if relevant. Be concise and answer in maximum 1 sentence.\n\"{passage}\""),
    },
    "together": {
        "direct": "Please identify the author of the following quote:\n\"{passage}\"",
        "indirect": "Briefly summarize the context in which the following quote was written:\n\"{passage}\"",
        "indirect_overt": ("Briefly summarize the context in which the following quote was written, mentioning the author "
                           "if relevant:\n\"{passage}\""),
    },
}
EVIDENCE = {
    "direct": "Please identify the author of the following quote.\nQuote:\n\"{passage}\"\n\nRetrieved examples:\n{context}",
    "indirect": ("Briefly summarize the context in which the following quote was written.\nQuote:\n\"{passage}\"\n\n"
                 "Retrieved examples:\n{context}"),
    "indirect_overt": ("Briefly summarize the context in which the following quote was written and mention the author's "
                       "name if relevant.\nQuote:\n\"{passage}\"\n\nRetrieved examples:\n{context}"),
}
NO_NEIGHBOURS = "No strong embedding-similarity neighbors found in retrieval set."


def _check(prompt_type: str, family: str) -> None:
    if prompt_type not in PROMPT_TYPES:
        raise ValueError(f"prompt_type must be one of {PROMPT_TYPES}, got {prompt_type!r}")
    if family not in SYSTEM:
        raise ValueError(f"family must be one of {tuple(SYSTEM)}, got {family!r}")


def system_prompt(*, with_evidence: bool = False, family: Family = "providers") -> str:
    """The fixed system prompt of the runner family (Together's RAG runner has its own)."""
    _check("direct", family)
    return SYSTEM_TOGETHER_RAG if (with_evidence and family == "together") else SYSTEM[family]


def format_context(neighbours: pd.DataFrame | None, *, labeled: bool = True) -> str:
    """R(q) as the reference writes it: one line per neighbour, in rank order,
    ``{i}. author: {author} | similarity: {score:.4f} | quote: "{quote}"`` (``labeled``) or
    without the author part; an empty neighbour list gives :data:`NO_NEIGHBOURS`."""
    if neighbours is None or len(neighbours) == 0:
        return NO_NEIGHBOURS
    lines = []
    for i, row in enumerate(neighbours.sort_values("rank").itertuples(index=False), start=1):
        who = f"author: {row.author} | " if labeled else ""
        lines.append(f"{i}. {who}similarity: {row.similarity:.4f} | quote: \"{row.quote}\"")
    return "\n".join(lines)


def user_prompt(quote: str, prompt_type: PromptType, *, context: str | None = None, family: Family = "providers") -> str:
    """The user message for ``quote``; with ``context`` (R(q), see :func:`format_context`) the
    evidence-conditioned template, which is the same for both families."""
    _check(prompt_type, family)
    if context is None:
        return NO_EVIDENCE[family][prompt_type].format(passage=quote)
    return EVIDENCE[prompt_type].format(passage=quote, context=context)


def table1(family: Family = "providers") -> pd.DataFrame:
    """Paper Table 1 as data: one row per prompt type with the no-evidence and the
    evidence-conditioned user prompt ({passage} = q, {context} = R(q)), plus the system prompt."""
    _check("direct", family)
    rows = [{"prompt": "system", "no_evidence": SYSTEM[family], "evidence_conditioned": system_prompt(with_evidence=True, family=family)}]
    for p in PROMPT_TYPES:
        rows.append({"prompt": p, "no_evidence": NO_EVIDENCE[family][p], "evidence_conditioned": EVIDENCE[p]})
    return pd.DataFrame(rows)
