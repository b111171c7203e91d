"""Reading the recommended paper number out of a free-text answer (paper Appendix A.5; spec A.5).

Faithful: lower-case the answer, ``re.findall(r'(?:paper\\s*)?(\\d+)')`` and take the first
integer in 1..10. It picks up stray small numbers that come before the choice ("2-3
sentences", "h-index 5", a reasoning trace), and skips numbers above 10 such as years.

Corrected: drop ``<think>`` blocks, then look for the choice in order of explicitness; the
first rule that yields a number in 1..10 wins:

1. a recommendation verb followed closely by a paper reference ("I recommend Paper 4",
   "my top recommendation is **Paper 7**", "recommended paper: [3]");
2. an answer label ("Answer: 6", "Recommendation: Paper 2", "Top 1: 9");
3. the first explicit paper reference ("Paper 7", "paper number 4", "paper #3", "Paper Seven");
4. a bracketed or hashed number standing alone ("[3]", "(3)", "#3");
5. an answer that opens with a bare number ("7", "7.", "**7**").

Numbers that belong to a unit or a metadata field ("2-3 sentences", "h-index: 5",
"5 citations", "2023", "0.5") never count. No rule matching gives None (refusals, empty
answers, "none of the above").
"""
from __future__ import annotations

import re
from typing import Literal

PARSE_MODES = ("faithful", "corrected")
_FAITHFUL = re.compile(r"(?:paper\s*)?(\d+)")
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
          "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
          "ninth": 9, "tenth": 10}
_NUM = r"(\d+|" + "|".join(_WORDS) + r")"
_PAPER_REF = r"paper\s*(?:number\s*|no\.?\s*|#\s*)?[\[\(]?\**\s*" + _NUM + r"\b(?![.,]\d)"
_RULES = (
    re.compile(r"recommend(?:ed|ation|s)?\b[^.\n]{0,60}?" + _PAPER_REF),
    re.compile(r"(?:answer|recommendation|choice|selection|top\s*1|final\s+pick)\s*(?:is)?\s*[:\-]\s*\**\s*"
               r"(?:paper\s*(?:number\s*|no\.?\s*|#\s*)?)?[\[\(]?\**\s*" + _NUM + r"\b(?![.,]\d)"),
    re.compile(r"\b" + _PAPER_REF),
    re.compile(r"(?:^|[\s(])(?:\[(\d+)\]|\((\d+)\)|#(\d+))(?![\d.,])"),
    re.compile(r"^\W{0,4}(\d+)\b(?![.,]\d)(?!\s*(?:-|–|to)\s*\d)"),
)


def _to_int(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    return _WORDS.get(token)


def parse_choice(text: str | None, *, mode: Literal["faithful", "corrected"] = "faithful",
                 n_candidates: int = 10) -> int | None:
    """The recommended paper number (1..n_candidates) in ``text``, or None when there is none.

    ``mode="faithful"`` is the paper's rule (first integer in range, Appendix A.5 ⚠);
    ``mode="corrected"`` is the stricter parser of the module docstring. Empty or missing text
    gives None in both modes.
    """
    if mode not in PARSE_MODES:
        raise ValueError(f"parse mode must be one of {PARSE_MODES}, got {mode!r}")
    if not text:
        return None
    low = text.lower()
    if mode == "faithful":
        for tok in _FAITHFUL.findall(low):
            v = int(tok)
            if 1 <= v <= n_candidates:
                return v
        return None
    low = _THINK.sub(" ", low).strip()
    for rule in _RULES:
        for m in rule.finditer(low):
            tok = next(g for g in m.groups() if g)
            v = _to_int(tok)
            if v is not None and 1 <= v <= n_candidates:
                return v
    return None
