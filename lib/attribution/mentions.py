"""Author-mention detection in model outputs: correct / wrong / none (paper §5.1, reference B.4).

The paper identifies M(q), the authors named in output Y(q), with regex heuristics:
``correct`` if the ground-truth author a(q) is named (full name, reversed name, a known alias,
or a distinctive last name), ``wrong`` if not but some person-like name appears, ``none`` if no
name appears at all. The "some person-like name" test is the reference's capitalised-bigram
regex on the raw output; ⚠ it also fires on "New York" or "The Bible", and therefore defines
what counts as a wrong author. ``strict_names=True`` (corrected) discards leading function
words before requiring two capitalised tokens ("The Bible" no longer counts; "New York" still does).

Matching a name is a word-bounded search on the normalised text. Normalised text consists of
``\\w`` runs separated by single spaces, so a word-bounded token sequence is exactly a contiguous
run of tokens: :class:`AuthorMatcher` looks names up as token n-grams in a dict (fast for
thousands of authors and millions of outputs) and gives the same answers as the reference's
alternation regexes (tests compare the two on a golden table).
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Literal

import pandas as pd

Outcome = Literal["correct", "wrong", "none"]

LAST_NAME_STOPWORDS = frozenset("""
poet writer author artist musician singer rapper actor actress producer director professor doctor dr mr mrs ms
miss sir lord lady jr sr love truth still wisdom better bond legacy foster pride battle early silver virtue bonds
innocent seven cope fields quick page flash rather hope gates sign good black young french great deep books holiday
prior chance block white rock""".split())
#: canonical (normalised) name -> accepted aliases; active only when the canonical name is in the universe
ALIASES: dict[str, tuple[str, ...]] = {
    "martin luther king jr": ("dr king", "mlk", "mlk jr", "king jr"),
    "malcolm x": ("malcolm little",),
    "w e b dubois": ("web dubois", "w e b du bois"),
    "j r r tolkien": ("jrr tolkien",),
    "t i": ("ti", "t.i."),
}
NON_PERSON_AUTHORS = frozenset({"the sound of serendipity"})
NO_ANSWER_PHRASES = (
    "don't know", "do not know", "cannot identify", "can't identify", "unable to determine",
    "not enough information", "insufficient information", "cannot say", "can't say", "unknown author", "anonymous",
)
_NAME_TOKEN = r"(?:[A-Z][a-z]+|[A-Z]\.)(?:[-'][A-Z][a-z]+)?"
#: reference ``mentions_any_name``: two or more consecutive capitalised tokens or initials
NAME_LIKE = re.compile(rf"\b{_NAME_TOKEN}(?:\s+{_NAME_TOKEN})+\b")
_FUNCTION_WORDS = frozenset("""The A An In On At For From By With And But Or Of To As If When While This That These
Those It He She We They You I His Her Its Our Their My Your Some Many""".split())
_LEAD = re.compile(r"^[\s\-\u2013\u2014\u2022\u00b7*]+")
_AKA = re.compile(r"\s*\b(?:a\.k\.a\.|aka\b).*$", re.IGNORECASE)
_ENCLOSED = re.compile(r"\([^)]*\)|\u00ab[^\u00bb]*\u00bb|\"[^\"]*\"|'[^']*'")
_SPACED_DASH = re.compile(r"\s+[-\u2013\u2014]\s+.*$")


def normalize_for_match(text: str) -> str:
    """NFKD, drop combining marks (é→e), lowercase, non-``\\w\\s`` → space, collapse whitespace."""
    s = unicodedata.normalize("NFKD", str(text))
    s = "".join(ch for ch in s if not unicodedata.combining(ch)).lower()
    s = re.sub(r"[^\w\s]", " ", s)
    return re.sub(r"\s+", " ", s).strip()


def canonicalize_author(name: str) -> str:
    """The ground-truth author string as the reference matches it (reference B.4).

    Strips leading whitespace/dashes/bullets, cuts at ``aka``/``a.k.a.``, removes ``( … )``,
    ``« … »``, ``"…"`` and ``'…'``, cuts at a spaced dash, collapses whitespace and strips a
    trailing dash. Case is kept; :func:`normalize_for_match` lowercases later.
    """
    s = _LEAD.sub("", str(name))
    s = _AKA.sub("", s)
    s = _ENCLOSED.sub(" ", s)
    s = _SPACED_DASH.sub("", s)
    s = re.sub(r"\s+", " ", s).strip()
    return s.rstrip("-\u2013\u2014").strip()


def last_name(normalized: str) -> str | None:
    """Last token of a normalised name of ≥ 2 tokens, if ≥ 4 characters and not a stopword."""
    toks = normalized.split()
    if len(toks) < 2:
        return None
    last = toks[-1]
    return last if len(last) >= 4 and last not in LAST_NAME_STOPWORDS else None


def mentions_any_name(raw_output: str, *, strict_names: bool = False) -> bool:
    """Reference heuristic: does the raw output contain a person-like capitalised bigram?

    ⚠ Faithful: any run of ≥ 2 capitalised tokens/initials counts ("New York", "The Bible").
    ``strict_names=True`` (corrected): leading function words ("The", "In", …) are dropped from
    each run before requiring two tokens.
    """
    text = str(raw_output)
    if not strict_names:
        return NAME_LIKE.search(text) is not None
    for m in NAME_LIKE.finditer(text):
        toks = m.group(0).split()
        while toks and toks[0] in _FUNCTION_WORDS:
            toks.pop(0)
        if len(toks) >= 2:
            return True
    return False


def no_answer(raw_output: str) -> bool:
    """Reference ``check_no_answer`` (reported only): an empty output or a refusal phrase."""
    s = str(raw_output).strip().lower()
    return not s or any(p in s for p in NO_ANSWER_PHRASES)


class AuthorMatcher:
    """Classify outputs against a universe of ground-truth authors (reference ``AuthorMatcher``).

    ``authors``: the author strings of the run's dataset (``author_clean``); they are
    canonicalised and normalised, non-person authors removed. ``strict_names`` switches the
    person-like-name heuristic (see module docstring).
    """

    def __init__(self, authors: Iterable[str], *, strict_names: bool = False):
        self.strict_names = strict_names
        self.canonical: dict[str, str] = {}          # raw author string -> normalised canonical name
        for a in authors:
            if a is None or (isinstance(a, float) and a != a):
                continue
            norm = normalize_for_match(canonicalize_author(a))
            if norm and norm not in NON_PERSON_AUTHORS:
                self.canonical[a] = norm
        names = sorted(set(self.canonical.values()))
        self.universe = frozenset(names)
        self.aliases = {c: tuple(normalize_for_match(x) for x in al) for c, al in ALIASES.items() if c in self.universe}
        # n-gram tables, one per search stage; a longer string wins at the same start position
        self._alias = {tuple(a.split()): c for c, al in self.aliases.items() for a in al}
        self._full = {tuple(n.split()): n for n in names}
        self._reversed = {tuple(reversed(n.split())): n for n in names if len(n.split()) >= 2}
        claims: dict[str, str] = {}
        for n in names:
            ln = last_name(n)
            if ln is not None:
                held = claims.get(ln)
                if held is None or (len(n), n) > (len(held), held):
                    claims[ln] = n  # the longest full name claims a shared last name
        self._last = {(ln,): n for ln, n in claims.items()}
        self._tables = [self._alias, self._full, self._reversed, self._last]
        self._maxlen = [max((len(k) for k in t), default=0) for t in self._tables]

    @staticmethod
    def _first_hit(tokens: list[str], table: dict[tuple[str, ...], str], maxlen: int) -> str | None:
        """Leftmost occurrence of any key, longest key first at a position (= regex alternation
        sorted by length, searched left to right)."""
        if not table:
            return None
        for i in range(len(tokens)):
            for n in range(min(maxlen, len(tokens) - i), 0, -1):
                hit = table.get(tuple(tokens[i:i + n]))
                if hit is not None:
                    return hit
        return None

    @staticmethod
    def _contains(tokens: list[str], name_tokens: list[str]) -> bool:
        n = len(name_tokens)
        return n > 0 and any(tokens[i:i + n] == name_tokens for i in range(len(tokens) - n + 1))

    def identified(self, output: str, author: str) -> bool:
        """Is the ground-truth ``author`` named in ``output``? (full, reversed, alias, last name)"""
        target = self.canonical.get(author)
        if target is None:
            target = normalize_for_match(canonicalize_author(author))
        if not target:
            return False
        toks = normalize_for_match(output).split()
        name = target.split()
        if self._contains(toks, name):
            return True
        if len(name) >= 2 and self._contains(toks, name[::-1]):
            return True
        if any(self._contains(toks, a.split()) for a in self.aliases.get(target, ())):
            return True
        ln = last_name(target)
        return ln is not None and ln in toks

    def mentioned_author(self, output: str) -> str | None:
        """The first universe author named in ``output`` (alias, full, reversed, last-name stage)."""
        toks = normalize_for_match(output).split()
        for table, maxlen in zip(self._tables, self._maxlen):
            hit = self._first_hit(toks, table, maxlen)
            if hit is not None:
                return hit
        return None

    def mentioned_any(self, output: str) -> bool:
        """A universe author is named, or the person-like-name heuristic fires on the raw text."""
        return self.mentioned_author(output) is not None or mentions_any_name(output, strict_names=self.strict_names)

    def classify(self, output: str, author: str) -> Outcome:
        """``correct`` = identified; ``wrong`` = not identified but a name is mentioned; else ``none``."""
        if self.identified(output, author):
            return "correct"
        return "wrong" if self.mentioned_any(output) else "none"


def classify_frame(df: pd.DataFrame, matcher: AuthorMatcher, *, text: str = "text",
                   author: str = "author_clean") -> pd.DataFrame:
    """Per-row outcome columns for a table of outputs (a chunk in, the same rows out).

    Adds ``outcome`` (correct/wrong/none), ``correct`` and ``mentioned_any`` (0/1 ints),
    ``mentioned_author`` (normalised universe name or empty) and ``no_answer`` (reported only).
    Missing texts (failed requests) count as empty outputs: outcome ``none``.
    """
    out = df.copy()
    texts = out[text].fillna("").astype(str)
    ids = [matcher.identified(t, a) for t, a in zip(texts, out[author])]
    mentioned = [matcher.mentioned_author(t) for t in texts]
    any_ = [m is not None or mentions_any_name(t, strict_names=matcher.strict_names) for t, m in zip(texts, mentioned)]
    out["correct"] = pd.array(ids, dtype="int64")
    out["mentioned_any"] = pd.array(any_, dtype="int64")
    out["outcome"] = ["correct" if c else ("wrong" if m else "none") for c, m in zip(ids, any_)]
    out["mentioned_author"] = [m or "" for m in mentioned]
    out["no_answer"] = [no_answer(t) for t in texts]
    return out
