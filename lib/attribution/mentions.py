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

import functools
import re
import unicodedata
from collections.abc import Iterable
from typing import Literal

import numpy as np
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
# the reference's own patterns (faithful canonicalisation)
_LEAD_REF = re.compile(r"^[\s\-\u2013\u2014\u2022]+")
_AKA_REF = re.compile(r"\baka\b|\ba\.k\.a\.\b", re.IGNORECASE)
_SPACED_DASH_REF = re.compile(r"\s[-\u2013\u2014]\s")
_ENCLOSED_REF = tuple(re.compile(p) for p in (r"\([^)]*\)", "\u00ab[^\u00bb]*\u00bb", r'"[^"]*"', r"'[^']*'"))


_NON_WORD = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1 << 18)
def _normalize(s: str) -> str:
    if not s.isascii():                  # NFKD and combining marks change nothing in ASCII text
        s = "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))
    return _SPACES.sub(" ", _NON_WORD.sub(" ", s.lower())).strip()


def normalize_for_match(text: str) -> str:
    """NFKD, drop combining marks (é→e), lowercase, non-``\\w\\s`` → space, collapse whitespace.
    Cached: millions of model replies repeat the same few thousand texts."""
    return _normalize(str(text))


@functools.lru_cache(maxsize=1 << 18)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_normalize(text).split())


def canonicalize_author(name: str, *, mode: str = "faithful") -> str:
    """The ground-truth author string as the reference matches it (reference B.4).

    Strips leading whitespace/dashes/bullets, cuts at ``aka``/``a.k.a.``, removes ``( … )``,
    ``« … »``, ``"…"`` and ``'…'``, cuts at a spaced dash, collapses whitespace and strips a
    trailing dash. Case is kept; :func:`normalize_for_match` lowercases later.
    ``mode="faithful"``: the reference's patterns, ⚠ including ``\\ba\\.k\\.a\\.\\b``, which needs a
    word character right after the last dot, so "Prince a.k.a. The Artist" is *not* cut;
    enclosed parts are deleted without a space. ``mode="corrected"``: "a.k.a." before a space
    cuts too, enclosed parts become a space, "·" and "*" also count as leading bullets.
    """
    if mode == "faithful":
        s = _LEAD_REF.sub("", str(name))
        s = _AKA_REF.split(s)[0]
        for rx in _ENCLOSED_REF:                 # one after the other, as the reference
            s = rx.sub("", s)
        s = _SPACED_DASH_REF.split(s)[0]
        s = re.sub(r"\s+", " ", s).strip()
        return re.sub(r"[-\u2013\u2014]\s*$", "", s).strip()
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
    s = str(raw_output)
    low = s.lower()
    return not s or any(p in low for p in NO_ANSWER_PHRASES)


Mode = Literal["faithful", "corrected"]


def _raw_last_name(canonical: str) -> tuple[str, ...] | None:
    """Reference ``extract_last_name``: the *raw* last token of a canonical name of ≥ 2 raw tokens,
    normalised (so "O'Neal" → ('o', 'neal'), "Saint-Exupéry" → ('saint', 'exupery')), if ≥ 4
    characters and not a stopword."""
    parts = canonical.split()
    if len(parts) <= 1:
        return None
    ln = normalize_for_match(parts[-1])
    return tuple(ln.split()) if len(ln) >= 4 and ln not in LAST_NAME_STOPWORDS else None


class AuthorMatcher:
    """Classify outputs against a universe of ground-truth authors (reference ``AuthorMatcher``).

    ``authors``: the author strings of the universe, in order; they are canonicalised and
    normalised, non-person authors removed. ``strict_names`` switches the person-like-name
    heuristic (see module docstring).

    ``mode="faithful"`` is the reference's matcher decision for decision: the universe order
    matters (it is the run file's first-appearance order), :meth:`mentioned_author` returns the
    canonical (un-normalised) name, a normalised name shared by several canonical strings maps
    to the last of them, the reversed form to the first, and a last name is the normalised last
    *raw* token (possibly two tokens: "O'Neal" → "o neal"), claimed by the author with the
    longest canonical string, the first in order among equal lengths; at one position the
    last-name alternatives are tried in that claim order, not by length.
    ``mode="corrected"``: decisions independent of the order (a shared last name goes to the
    longest, then alphabetically larger, normalised name), the last name is the last normalised
    token, and names are returned normalised.
    """

    def __init__(self, authors: Iterable[str], *, strict_names: bool = False, mode: Mode = "faithful"):
        if mode not in ("faithful", "corrected"):
            raise ValueError(f"AuthorMatcher: mode must be 'faithful' or 'corrected', got {mode!r}")
        self.strict_names, self.mode = strict_names, mode
        self.canonical: dict[str, str] = {}          # raw author string -> normalised canonical name
        display: dict[str, str] = {}                 # canonical string -> normalised (first-appearance order)
        for a in authors:
            if a is None or (isinstance(a, float) and a != a):
                continue
            canon = canonicalize_author(a, mode=mode)
            norm = normalize_for_match(canon)
            if norm and norm not in NON_PERSON_AUTHORS:
                self.canonical[a] = norm
                display.setdefault(canon, norm)
        if mode == "faithful":
            norm_to = {}
            for canon, norm in display.items():
                norm_to[norm] = canon                # later canonical strings overwrite (dict comprehension)
            names = list(norm_to)
            out = norm_to
        else:
            names = sorted(set(self.canonical.values()))
            out = {n: n for n in names}
        self.universe = frozenset(names)
        self.aliases = {c: tuple(normalize_for_match(x) for x in al) for c, al in ALIASES.items() if c in self.universe}
        # n-gram tables, one per search stage; a longer string wins at the same start position
        self._alias = {tuple(a.split()): out[c] for c, al in self.aliases.items() for a in al}
        self._full = {tuple(n.split()): out[n] for n in names}
        self._reversed: dict[tuple[str, ...], str] = {}
        for n in names:
            if len(n.split()) >= 2:
                self._reversed.setdefault(tuple(reversed(n.split())), out[n])
        self._last_rank: dict[tuple[str, ...], int] | None = None
        if mode == "faithful":
            cands = [(canon, _raw_last_name(canon)) for canon in display]
            cands = sorted([c for c in cands if c[1]], key=lambda c: len(c[0]), reverse=True)  # stable
            last: dict[tuple[str, ...], str] = {}
            for canon, ln in cands:
                last.setdefault(ln, canon)
            self._last_rank = {k: i for i, k in enumerate(last)}
            self._last = last
        else:
            claims: dict[str, str] = {}
            for n in names:
                ln = last_name(n)
                if ln is not None:
                    held = claims.get(ln)
                    if held is None or (len(n), n) > (len(held), held):
                        claims[ln] = n  # the longest full name claims a shared last name
            self._last = {(ln,): n for ln, n in claims.items()}
        self._tables = [self._alias, self._full, self._reversed, self._last]
        self._targets: dict[str, tuple] = {}
        self._mentioned: dict[str, str | None] = {}
        self._maxlen = [max((len(k) for k in t), default=0) for t in self._tables]

    @staticmethod
    def _first_hit(tokens: list[str], table: dict[tuple[str, ...], str], maxlen: int,
                   rank: dict[tuple[str, ...], int] | None = None) -> str | None:
        """Leftmost occurrence of any key; at one position the longest key (= regex alternation
        sorted by length, searched left to right), or the lowest ``rank`` when given (= an
        alternation in that order)."""
        if not table:
            return None
        for i in range(len(tokens)):
            hits = []
            for n in range(min(maxlen, len(tokens) - i), 0, -1):
                key = tuple(tokens[i:i + n])
                if key in table:
                    if rank is None:
                        return table[key]
                    hits.append(key)
            if hits:
                return table[min(hits, key=rank.__getitem__)]
        return None

    def _target(self, author: str) -> tuple:
        """What :meth:`identified` looks for, per author (cached), each as " tok tok " (a contiguous
        token run of a normalised text is a substring of " text "): the name, the reversed name
        (≥ 2 tokens), the aliases and the last name (tokens, faithful; one token, corrected)."""
        hit = self._targets.get(author)
        if hit is None:
            canon = canonicalize_author(author, mode=self.mode)
            target = self.canonical.get(author) or normalize_for_match(canon)
            name = tuple(target.split())
            ln = (_raw_last_name(canon) if self.mode == "faithful" else last_name(target)) if target else None
            pad = lambda toks: f" {' '.join(toks)} "                                       # noqa: E731
            hit = (pad(name) if name else None, pad(name[::-1]) if len(name) >= 2 else None,
                   tuple(pad(a.split()) for a in self.aliases.get(target, ()) if a.split()),
                   None if ln is None else pad(ln if self.mode == "faithful" else (ln,)))
            self._targets[author] = hit
        return hit

    def identified(self, output: str, author: str) -> bool:
        """Is the ground-truth ``author`` named in ``output``? (full, reversed, alias, last name)"""
        name, rev, aliases, ln = self._target(author)
        if name is None:
            return False
        text = f" {_normalize(str(output))} "
        return (name in text or (rev is not None and rev in text) or any(a in text for a in aliases)
                or (ln is not None and ln in text))

    def mentioned_author(self, output: str) -> str | None:
        """The first universe author named in ``output`` (alias, full, reversed, last-name stage)."""
        output = str(output)
        if output in self._mentioned:
            return self._mentioned[output]
        if len(self._mentioned) >= 1 << 17:      # bounded: a matcher may see millions of replies
            self._mentioned.clear()
        hit = self._mentioned[output] = self._mentioned_author(output)
        return hit

    def _mentioned_author(self, output: str) -> str | None:
        toks = _tokens(output)
        for k, (table, maxlen) in enumerate(zip(self._tables, self._maxlen)):
            hit = self._first_hit(toks, table, maxlen, self._last_rank if k == 3 else None)
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


@functools.lru_cache(maxsize=16)
def _shared_matcher(authors: tuple, mode: Mode) -> AuthorMatcher:
    return AuthorMatcher(authors, mode=mode)


def matcher_for(authors: Iterable[str], *, strict_names: bool = False, mode: Mode = "faithful") -> AuthorMatcher:
    """``AuthorMatcher(authors, strict_names=..., mode=...)``, sharing the name tables and the
    per-text memo with earlier calls of the same universe and mode (the chunks and quirk modes
    of a paper run score the same universes again and again; ``strict_names`` only changes the
    capitalised-bigram test)."""
    import copy
    m = copy.copy(_shared_matcher(tuple(authors), mode))
    m.strict_names = strict_names
    return m


def classify_frame(df: pd.DataFrame, matcher: AuthorMatcher, *, text: str = "text",
                   author: str = "author_clean") -> pd.DataFrame:
    """Per-row outcome columns for a table of outputs (a chunk in, the same rows out).

    Adds ``outcome`` (correct/wrong/none), ``correct`` and ``mentioned_any`` (0/1 ints),
    ``mentioned_author`` (normalised universe name or empty) and ``no_answer`` (reported only).
    Missing texts (failed requests) count as empty outputs: outcome ``none``.
    """
    out = df.copy()
    texts = out[text].fillna("").astype(str)
    # each distinct text (and text-author pair) is classified once: replies repeat across rows
    tcode, uniq = pd.factorize(texts, use_na_sentinel=False)
    acode, authors = pd.factorize(out[author], use_na_sentinel=False)
    pcode, pairs = pd.factorize(tcode.astype("int64") * max(len(authors), 1) + acode, use_na_sentinel=False)
    uniq = list(uniq)
    mentioned_u = [matcher.mentioned_author(t) for t in uniq]
    any_u = np.array([m is not None or mentions_any_name(t, strict_names=matcher.strict_names)
                      for t, m in zip(uniq, mentioned_u)], dtype=bool)
    n_a = max(len(authors), 1)
    authors = list(authors)
    ids_u = np.array([matcher.identified(uniq[p // n_a], authors[p % n_a]) for p in pairs.tolist()], dtype=bool)
    ids, any_ = ids_u[pcode], any_u[tcode]
    out["correct"] = pd.array(ids.astype("int64"), dtype="int64")
    out["mentioned_any"] = pd.array(any_.astype("int64"), dtype="int64")
    out["outcome"] = np.where(ids, "correct", np.where(any_, "wrong", "none")).astype(object)
    out["mentioned_author"] = np.array([m or "" for m in mentioned_u], dtype=object)[tcode]
    out["no_answer"] = np.array([no_answer(t) for t in uniq], dtype=bool)[tcode]
    return out
