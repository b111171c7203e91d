"""Name matching: link recommended names to ground-truth authors (LLMScholarBench Appendix B.3).

The paper's rule, as the reference code runs it (reference §2.5, ``factuality/author.py``):

1. Normalise both sides with :func:`normalize_name` (reference §2.3).
2. Recommended side: display = the normalised name; first / second / last = its first, second and
   last whitespace tokens (second is None for a one-token name, and equals the surname for a
   two-token name); first_initial = first character of first.
   Ground-truth side: display = normalised display name, longest = normalised longest name;
   first / second / last = the normalised first, second and last *raw* tokens of the longest name;
   first_initial; alternative_names = the raw stringified Python list, **not normalised** [!].
3. Block on exact equality of the last names.
4. Nine Jaro–Winkler comparisons, each 1 when the similarity is ≥ its threshold (missing → 0):
   display↔display ≥ .85, display↔longest ≥ .85, first↔first ≥ .70, last↔last ≥ .70,
   second↔second ≥ .70, first_initial↔first_initial ≥ .70, display↔GT last ≥ .70,
   display↔GT first ≥ .70, display↔alternative_names ≥ .70.
5. A candidate matches when at least 5 of 9 comparisons pass; each name keeps its best-scoring
   candidate. Ties: the reference keeps the first row of an unstable sort over its whole batch
   (one model's names); faithful with ``batch`` rebuilds that (:func:`reference_choice`),
   otherwise (and in corrected mode) the first tied author in ground-truth order.
   Homonyms count as factual (Appendix B.3).

Quirks of the faithful rule [!]:
- a ground-truth surname written with a hyphen ("Sánchez-Gil") is normalised *after* splitting,
  to "sanchez gil", which never equals a single recommended token: such authors fail the block;
- the alternative names enter as the raw text of a Python list ("['José Sánchez', 'J. Sánchez']"),
  so comparison 9 measures the similarity to that whole string, case and brackets included.

``mode="corrected"`` fixes both: an author is a candidate when the recommended last token equals
the last token of any of their normalised name forms or any part of their normalised surname;
comparison 4/7 use the full normalised surname; comparison 9 is the best Jaro–Winkler
similarity to any normalised alternative name, at the full-name threshold .85.

Speed: the rule is evaluated exactly (the best candidates and their scores are those of
recordlinkage), but vectorised. Each distinct normalised name is matched once; candidate pairs
come from a sorted block index. The comparisons run in three tiers: the name parts (3–8), the
full names (1–2), the alternative names (9). Exact lookups come first: where the normalised name
equals a candidate's normalised display or longest name, that candidate's full score bounds the
best score from below, and a pair only goes to the next tier if what the remaining comparisons
can add still lets it reach max(5, that bound) — the pruned pairs can neither match nor tie the
best. Large blocks are scored as (distinct recommended values × distinct ground-truth values)
matrices with ``rapidfuzz.process.cdist`` and gathered; small blocks pair by pair with
``process.cpdist`` on distinct (value, value) pairs.
rapidfuzz's ``score_cutoff`` drops scores equal to the cutoff (and, through its early-exit bound,
some scores a hair above it: JW = 0.8500000000000001 with a cutoff of 0.85 − 1e-9), so the cutoff
sits 0.01 below each threshold and the exact ≥ test follows.
"""
from __future__ import annotations

import hashlib
import math
import os
import pickle
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

Mode = Literal["faithful", "corrected"]
FULL_THRESHOLD = 0.85
PART_THRESHOLD = 0.70
MIN_MATCHES = 5  # FACTUALITY_AUTHOR_THRESHOLD: at least 5 of 9
_EPS = 0.01  # cutoff margin: rapidfuzz's early exit drops scores at (and just above) the cutoff
_JW = JaroWinkler.normalized_similarity
_TITLE = re.compile(r"^(Dr\.|Mr\.|Mrs\.|Ms\.|PhD\.)\s*")
_PAREN = re.compile(r"\s*\([^)]*\)")
_APOS_VOWEL = re.compile(r"'(?=[aeiouAEIOU])")
_NON_ALNUM_RUN = re.compile(r"[^a-zA-Z0-9]+")


def normalize_name(name) -> str | None:
    """Normalise a person's name as the reference ``clean_name`` (reference §2.3).

    Steps: drop a leading Dr./Mr./Mrs./Ms./PhD. and its whitespace; drop parenthesised text;
    Unicode NFD and drop combining marks; delete an apostrophe followed by a vowel
    (D'Alembert → dalembert, but O'Neil → "o neil"); replace every character outside
    [a-zA-Z0-9 whitespace] with a space; collapse whitespace, strip, lowercase.
    None/NaN → None. Letters without a decomposition (ø, ł, ß) become spaces, as in the reference.
    """
    if name is None or (isinstance(name, float) and math.isnan(name)):
        return None
    s = str(name)
    if s.startswith(("Dr.", "Mr.", "Mrs.", "Ms.", "PhD.")):
        s = _TITLE.sub("", s)
    if "(" in s:
        s = _PAREN.sub("", s)
    if not s.isascii():
        s = "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))
    if "'" in s:
        s = _APOS_VOWEL.sub("", s)
    # steps 5–6 in one pass: every run of characters outside [a-zA-Z0-9] (whitespace included)
    # becomes one space
    return _NON_ALNUM_RUN.sub(" ", s).strip().lower()


_NOBEL_PREFIXES = ("nobel prize winner ", "nobel laureate ",
                   *(f"nobel prize in physics {y} winner: " for y in range(2018, 2023)))


def reference_clean_name(name) -> str | None:
    """The recommended side's normalisation in the reference pipeline (``batch_valid_answers``):
    ``clean_name(replace(name, Nobel prefixes))``. Its ``replace`` lowercases the whole name
    first, so the case-sensitive title strip of :func:`normalize_name` no longer fires
    ("Mr. Jun Garcia" → "mr jun garcia", "PhD. X" → "phd x") [!]."""
    if not isinstance(name, str):
        return normalize_name(name)
    for prefix in _NOBEL_PREFIXES:
        name = name.lower().replace(prefix, "")
    return normalize_name(name)


def _is_list(a) -> bool:
    return isinstance(a, (list, tuple, np.ndarray))


def _normalize_many(values, norm=None) -> pd.Series:
    """normalize_name (or ``norm``) over a column, computed once per distinct value."""
    s = pd.Series(values, dtype="object")
    uniq = pd.unique(s.dropna())
    return s.map(dict(zip(uniq, map(norm or normalize_name, uniq))))


def recommended_fields(clean_names) -> pd.DataFrame:
    """The recommended side of the linkage: display, first, second, last, first_initial."""
    d = [s if isinstance(s, str) else None for s in clean_names]
    toks = [s.split() if s else [] for s in d]
    first = [t[0] if t else None for t in toks]
    return pd.DataFrame({
        "display_name": pd.Series(d, dtype="object"),
        "first_name": pd.Series(first, dtype="object"),
        "second_name": pd.Series([t[1] if len(t) > 1 else None for t in toks], dtype="object"),
        "last_name": pd.Series([t[-1] if t else None for t in toks], dtype="object"),
        "first_initial": pd.Series([f[0] if f else None for f in first], dtype="object"),
    })


def ground_truth_fields(authors: pd.DataFrame) -> pd.DataFrame:
    """The ground-truth side, as the reference builds it from ``authors_demographics.csv``.

    Needs columns author_id, display_name, longest_name, alt_names (list of str). The longest
    name's raw tokens are split first and normalised one by one [!]; alternative_names is the raw
    ``str(list)``.
    """
    missing = [c for c in ("author_id", "display_name", "longest_name", "alt_names") if c not in authors.columns]
    if missing:
        raise KeyError(f"name matching: authors table lacks column(s) {missing}")
    raw = authors["longest_name"].map(lambda s: s.split() if isinstance(s, str) else [])
    first = _normalize_many(raw.map(lambda t: t[0] if t else None))
    return pd.DataFrame({
        "author_id": authors["author_id"].to_numpy(),
        "display_name": _normalize_many(authors["display_name"]).to_numpy(),
        "longest_name": _normalize_many(authors["longest_name"]).to_numpy(),
        "first_name": first.to_numpy(),
        "second_name": _normalize_many(raw.map(lambda t: t[1] if len(t) > 1 else None)).to_numpy(),
        "last_name": _normalize_many(raw.map(lambda t: t[-1] if t else None)).to_numpy(),
        "first_initial": first.map(lambda f: f[0] if isinstance(f, str) and f else None).to_numpy(),
        "alternative_names": authors["alt_names"].map(lambda a: str(list(a)) if _is_list(a) else None).to_numpy(),
    })


class _Strings:
    """A column of strings as integer codes into its unique values (−1 = missing or empty).

    ``full`` is the column itself with missing/empty as None, for pairwise gathers.
    """

    def __init__(self, values):
        full = np.array([x if isinstance(x, str) and x else None for x in values], dtype=object)
        codes, uniques = pd.factorize(full, use_na_sentinel=True)
        self.codes = codes.astype(np.int64)
        self.values = np.asarray(uniques, dtype=object)
        self.full = full
        self._index = None


def _initial_ord(first: np.ndarray) -> np.ndarray:
    return np.array([ord(f[0]) if isinstance(f, str) and f else -1 for f in first], dtype=np.int64)


@dataclass
class NameIndex:
    """Prepared ground-truth side for fast matching (build once per ground truth and mode)."""

    mode: Mode
    author_ids: np.ndarray
    fields: dict  # field name -> _Strings, one entry per author
    initial: np.ndarray  # ord of the first initial, −1 if missing
    block_keys: dict  # block key -> (start, end) into block_authors
    block_authors: np.ndarray
    alt_ptr: np.ndarray | None = None  # corrected: CSR of normalised alternative names per author
    alt: _Strings | None = None

    def lookup(self, field: str, values: np.ndarray) -> np.ndarray:
        """Code of each value among this field's distinct ground-truth values (−1 if absent)."""
        f = self.fields[field]
        if getattr(f, "_index", None) is None:
            f._index = pd.Index(f.values)  # hash table built once per index, reused by every call
        return np.asarray(f._index.get_indexer(pd.Series(values, dtype="object")), dtype=np.int64)

    @classmethod
    def build(cls, authors: pd.DataFrame, mode: Mode = "faithful") -> "NameIndex":
        if mode not in ("faithful", "corrected"):
            raise ValueError(f"name matching: mode must be 'faithful' or 'corrected', got {mode!r}")
        gt = ground_truth_fields(authors)
        n = len(gt)
        fields = {c: _Strings(gt[c]) for c in ("display_name", "longest_name", "first_name", "second_name", "last_name")}
        alt_ptr = alt = None
        if mode == "faithful":
            fields["alternative_names"] = _Strings(gt["alternative_names"])
            keys = pd.Series(gt["last_name"], dtype="object")
            owner = np.arange(n)
        else:
            alts = authors["alt_names"].map(lambda a: [x for x in a if isinstance(x, str)] if _is_list(a) else [])
            flat = pd.Series([x for a in alts for x in a], dtype="object")
            lens = alts.map(len).to_numpy()
            norm = _normalize_many(flat)
            owner_flat = np.repeat(np.arange(n), lens)
            al = pd.DataFrame({"owner": owner_flat, "alt": norm.to_numpy()}).dropna()
            al = al[al["alt"] != ""].drop_duplicates()
            alt_ptr = np.r_[0, np.cumsum(np.bincount(al["owner"].to_numpy(), minlength=n))]
            alt = _Strings(al["alt"].to_numpy())
            # block keys: the last token of every normalised form, and every part of the surname
            k1 = pd.DataFrame({"key": al["alt"].str.split().str[-1].to_numpy(), "owner": al["owner"].to_numpy()})
            lg = pd.Series(gt["longest_name"], dtype="object")
            k2 = pd.DataFrame({"key": lg.str.split().str[-1], "owner": np.arange(n)})
            sur = pd.Series(gt["last_name"], dtype="object").str.split()
            k3 = pd.DataFrame({"key": sur, "owner": np.arange(n)}).explode("key")
            kr = pd.concat([k1, k2, k3], ignore_index=True).dropna().drop_duplicates()
            keys, owner = kr["key"], kr["owner"].to_numpy(dtype=np.int64)
        ok = keys.map(lambda k: isinstance(k, str) and k != "").to_numpy()
        keys, owner = keys[ok], owner[ok]
        codes, uk = pd.factorize(keys)
        order = np.argsort(codes, kind="stable")
        owner = owner[order]
        start = np.searchsorted(codes[order], np.arange(len(uk)), side="left")
        end = np.r_[start[1:], len(owner)]
        block_keys = dict(zip(list(uk), zip(start.tolist(), end.tolist())))
        return cls(mode, gt["author_id"].to_numpy(), fields, _initial_ord(gt["first_name"].to_numpy()),
                   block_keys, owner, alt_ptr, alt)


#: Author tables at least this large get their :class:`NameIndex` cached on disk
#: (:func:`cached_index`); smaller ones are built faster than they are hashed and read back.
CACHE_MIN_AUTHORS = 20_000
_SOURCE_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def authors_digest(authors: pd.DataFrame) -> str:
    """Content hash of what :meth:`NameIndex.build` reads from an authors table (author_id,
    display_name, longest_name and every alternative name, in row order)."""
    h = hashlib.sha256()
    h.update(pd.util.hash_pandas_object(authors[["author_id", "display_name", "longest_name"]], index=False)
             .to_numpy().tobytes())
    alts = authors["alt_names"].map(lambda a: "L:" + "\x1f".join(map(str, a)) if _is_list(a) else f"V:{a!r}")
    h.update(pd.util.hash_pandas_object(alts, index=False).to_numpy().tobytes())
    return h.hexdigest()


def cached_index(authors: pd.DataFrame, mode: Mode = "faithful", *, cache_dir: Path | str | None = None) -> NameIndex:
    """:meth:`NameIndex.build`, kept on disk for large ground truths.

    Building normalises every name form of every author (about a minute for the paper
    profile's 480 000 authors) and notebooks 01 and 02 both need the two modes' indexes of the
    same world, so the index is pickled under ``cache_dir`` (default ``lib.paths.CACHE /
    "name_index"``), keyed by the mode, :func:`authors_digest` and the source of this module (a
    change of the matching code rebuilds it). Tables below :data:`CACHE_MIN_AUTHORS` are built
    directly. An unreadable cache file is rebuilt and replaced. The cached index is the built
    one, so matches are identical.
    """
    if len(authors) < CACHE_MIN_AUTHORS:
        return NameIndex.build(authors, mode)
    if cache_dir is None:
        from lib import paths

        cache_dir = paths.CACHE / "name_index"
    key = hashlib.sha256(f"{_SOURCE_DIGEST}|{mode}|{authors_digest(authors)}".encode()).hexdigest()[:24]
    path = Path(cache_dir) / f"{mode}_{key}.pkl"
    if path.is_file():
        try:
            with open(path, "rb") as fh:
                index = pickle.load(fh)
            if isinstance(index, NameIndex) and index.mode == mode:
                return index
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError):
            pass  # a torn or stale file: rebuild below
    index = NameIndex.build(authors, mode)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(index, fh, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(path)
    return index


def _pass(a, b, thr, *, complete=False):
    """Pairwise JW(a_i, b_i) ≥ thr for aligned object arrays; None on either side → False
    (``complete=True``: the caller guarantees there is no None)."""
    out = np.zeros(len(a), dtype=bool)
    if len(a) == 0:
        return out
    if complete:
        return process.cpdist(a, b, scorer=_JW, score_cutoff=thr - _EPS, dtype=np.float64) >= thr
    ok = ~(pd.isna(a) | pd.isna(b))
    if ok.any():
        s = process.cpdist(a[ok], b[ok], scorer=_JW, score_cutoff=thr - _EPS, dtype=np.float64)
        out[ok] = s >= thr
    return out


def _pass_codes(q_codes, q_vals, g_codes, g_vals, thr):
    """Pairwise passes for coded strings, each distinct (query value, GT value) scored once."""
    out = np.zeros(len(q_codes), dtype=np.int8)
    ok = (q_codes >= 0) & (g_codes >= 0)
    if not ok.any():
        return out
    combo = q_codes[ok] * (len(g_vals) + 1) + g_codes[ok]
    u, inv = np.unique(combo, return_inverse=True)
    qa, ga = np.divmod(u, len(g_vals) + 1)
    hit = _pass(q_vals[qa], g_vals[ga], thr, complete=True)
    out[ok] = hit[inv]
    return out


class _Uniq:
    """Distinct codes of one field inside a block, computed once per block and field."""

    def __init__(self):
        self._c = {}

    def get(self, key, codes):
        if key not in self._c:
            u, inv = np.unique(codes, return_inverse=True)
            self._c[key] = (u, inv)
        return self._c[key]


def _matrix(qu, gu, q_vals, g_vals, thr):
    """(queries × authors) int8 matrix of JW passes from the distinct values of each side
    (``qu``/``gu`` = (distinct codes, inverse) pairs); code −1 (missing) never passes."""
    uq, qi = qu
    ug, gi = gu
    q0, g0 = int(uq[0] < 0), int(ug[0] < 0)  # np.unique sorts, so a missing code comes first
    m = np.zeros((len(uq), len(ug)), dtype=np.int8)
    if len(uq) > q0 and len(ug) > g0:
        s = process.cdist(q_vals[uq[q0:]], g_vals[ug[g0:]], scorer=_JW, score_cutoff=thr - _EPS, dtype=np.float64)
        m[q0:, g0:] = s >= thr
    return m.take(gi, axis=1).take(qi, axis=0)


class _Queries:
    """Recommended-side fields of the distinct normalised names, as strings and codes."""

    def __init__(self, clean: np.ndarray, mode: Mode):
        toks = [s.split() for s in clean]
        self.n = len(toks)
        self.codes = {
            "display_name": _Strings(clean),
            "first_name": _Strings([t[0] if t else None for t in toks]),
            "second_name": _Strings([t[1] if len(t) > 1 else None for t in toks]),
            "last_name": _Strings([t[-1] if t else None for t in toks]),
        }
        self.s = {c: self.codes[c].full for c in self.codes}
        self.initial = _initial_ord(self.s["first_name"])
        # faithful comparison 7 (display ↔ GT last) only sees the query: the GT last is the block key
        self.c7 = _pass(self.s["display_name"], self.s["last_name"], PART_THRESHOLD).astype(np.int8) \
            if mode == "faithful" else None


# The nine comparisons in three tiers: cheap (3–8: short, repetitive name parts), full-name
# (1–2) and alternative names (9). Later tiers only run where they can still change the result.
_CHEAP = [("first_name", "first_name", PART_THRESHOLD), ("second_name", "second_name", PART_THRESHOLD),
          ("display_name", "first_name", PART_THRESHOLD)]
_CHEAP_CORRECTED = [("last_name", "last_name", PART_THRESHOLD), ("display_name", "last_name", PART_THRESHOLD)]
_FULL = [("display_name", "display_name", FULL_THRESHOLD), ("display_name", "longest_name", FULL_THRESHOLD)]


def _block_scores(qs: _Queries, qidx, idx: NameIndex, aidx, spec):
    """Sum of the comparisons in ``spec`` for one block as a (queries × authors) int8 matrix."""
    F, Q = idx.fields, qs.codes
    sc = np.zeros((len(qidx), len(aidx)), dtype=np.int8)
    cq, cg = _Uniq(), _Uniq()
    for qf, gf, thr in spec:
        sc += _matrix(cq.get(qf, Q[qf].codes[qidx]), cg.get(gf, F[gf].codes[aidx]), Q[qf].values, F[gf].values, thr)
    return sc


def _cheap_block(qs: _Queries, qidx, idx: NameIndex, aidx):
    """Comparisons 3–8 for one block as a (queries × authors) matrix."""
    qi_ = qs.initial[qidx]
    sc = ((qi_[:, None] == idx.initial[aidx][None, :]) & (qi_[:, None] >= 0)).astype(np.int8)
    sc += _block_scores(qs, qidx, idx, aidx, _CHEAP + (_CHEAP_CORRECTED if idx.mode == "corrected" else []))
    if idx.mode == "faithful":
        sc += (1 + qs.c7[qidx])[:, None].astype(np.int8)
    return sc


def _block_exact(qs: _Queries, qidx, idx: NameIndex, aidx):
    """Comparisons 3–8 of one large block as a matrix, and its exact-lookup pairs (rows, cols):
    where the normalised name equals a candidate's normalised display or longest name."""
    F = idx.fields
    cheap = _cheap_block(qs, qidx, idx, aidx)
    qd, ql = qs.gt_display[qidx][:, None], qs.gt_longest[qidx][:, None]
    exact = ((F["display_name"].codes[aidx][None, :] == qd) & (qd >= 0)) | \
            ((F["longest_name"].codes[aidx][None, :] == ql) & (ql >= 0))
    r, c = np.nonzero(exact)
    return cheap, r, c


def _block_survivors(qs: _Queries, qidx, idx: NameIndex, aidx, cheap, lb):
    """Candidate pairs of one large block that can still be a best match, with their partial score.

    Queries with an exact lookup have a lower bound ``lb`` of their best score (the exact
    candidate's full score): only the candidates whose comparisons 3–8 leave room to reach it go
    on to the full-name comparisons, pairwise. Queries without one get comparisons 1–2 as
    (distinct × distinct) matrices. Returns (query idx, author idx, score, comparisons 1–2 done).
    """
    has = lb[qidx] > 0
    out = []
    if has.any():
        sub = cheap[has]
        thr = np.maximum(np.maximum(MIN_MATCHES, lb[qidx[has]]), sub.max(axis=1))
        r, c = np.nonzero(sub + 3 >= thr[:, None])
        out.append((qidx[has][r], aidx[c], sub[r, c].astype(np.int64), np.zeros(len(r), dtype=bool)))
    if (~has).any():
        qn = qidx[~has]
        sub = cheap[~has] + _block_scores(qs, qn, idx, aidx, _FULL)
        r, c = np.nonzero(sub + 1 >= np.maximum(MIN_MATCHES, sub.max(axis=1))[:, None])
        out.append((qn[r], aidx[c], sub[r, c].astype(np.int64), np.ones(len(r), dtype=bool)))
    return [np.concatenate(x) for x in zip(*out)]


def _tier_pairs(qs: _Queries, q, idx: NameIndex, a, spec):
    F, Q = idx.fields, qs.codes
    sc = np.zeros(len(q), dtype=np.int64)
    for qf, gf, thr in spec:
        sc += _pass_codes(Q[qf].codes[q], Q[qf].values, F[gf].codes[a], F[gf].values, thr)
    return sc


def _cheap_pairs(qs: _Queries, q, idx: NameIndex, a):
    """Comparisons 3–8 for aligned (query, author) pairs."""
    sc = ((qs.initial[q] == idx.initial[a]) & (qs.initial[q] >= 0)).astype(np.int64)
    sc += _tier_pairs(qs, q, idx, a, _CHEAP + (_CHEAP_CORRECTED if idx.mode == "corrected" else []))
    if idx.mode == "faithful":
        sc += 1 + qs.c7[q]
    return sc


def _alt_pairs(qs: _Queries, q, idx: NameIndex, a):
    """Comparison 9 for aligned pairs: raw list text ≥ .70 (faithful) or any normalised
    alternative name ≥ .85 (corrected)."""
    if idx.mode == "faithful":
        F = idx.fields["alternative_names"]
        return _pass(qs.s["display_name"][q], F.full[a], PART_THRESHOLD).astype(np.int64)
    lo, hi = idx.alt_ptr[a], idx.alt_ptr[a + 1]
    lens = hi - lo
    hit = np.zeros(len(q), dtype=np.int64)
    if lens.sum():
        rows = np.repeat(lo, lens) + (np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens))
        owner = np.repeat(np.arange(len(q)), lens)
        qd = qs.codes["display_name"]
        p = _pass_codes(qd.codes[q][owner], qd.values, idx.alt.codes[rows], idx.alt.values, FULL_THRESHOLD)
        hit[owner[p.astype(bool)]] = 1
    return hit


def _prune(q, score, headroom, lower=None):
    """Keep the pairs whose score + headroom (what the remaining comparisons can add) reaches
    max(5, the query's best score so far, a known lower bound of its best); the others can
    neither match nor tie the best."""
    best = np.zeros(int(q.max()) + 1 if len(q) else 0, dtype=np.int64)
    np.maximum.at(best, q, score)
    if lower is not None:
        best = np.maximum(best, lower[: len(best)])
    return score + headroom >= np.maximum(MIN_MATCHES, best[q])


def _exact_lower_bound(qs: _Queries, q, idx: NameIndex, a, partial, n_queries):
    """Full scores of the exact-lookup pairs (normalised name = candidate's display or longest
    name), as a per-query lower bound of the best score (0 where there is no exact hit)."""
    F = idx.fields
    qd, ql = qs.gt_display[q], qs.gt_longest[q]
    exact = ((F["display_name"].codes[a] == qd) & (qd >= 0)) | ((F["longest_name"].codes[a] == ql) & (ql >= 0))
    lb = np.zeros(n_queries, dtype=np.int64)
    if exact.any():
        qe, ae = q[exact], a[exact]
        full = partial[exact] + _tier_pairs(qs, qe, idx, ae, _FULL) + _alt_pairs(qs, qe, idx, ae)
        np.maximum.at(lb, qe, full)
    return lb


def reference_choice(clean_names, index: NameIndex) -> dict:
    """The author the reference keeps for each name of one batch, ties included [!].

    The reference (``text.find_matching_texts`` in ``factuality/author.py``) matches one model's
    names at a time: the batch's distinct normalised names, sorted (``_assign_ids``), are
    blocked against the ground-truth table in file order by recordlinkage, i.e. a pandas inner
    merge on the last name of (name position, key) with (author position, key); every pair
    with ≥ 5 of 9 is kept in that order, sorted with ``sort_values(['total_matches'],
    ascending=False)`` (pandas' default quicksort: unstable) and the first row per name is kept.
    Among tied best candidates the survivor therefore depends on every valid pair of the batch.
    The same frame (same rows, order and float64 scores) is rebuilt here and sorted with the
    same call, so the same permutation comes out (for the same numpy/CPU sort kernel).

    Returns {clean name: author position in the index} for the names that match.
    """
    uniq = sorted({c for c in clean_names if isinstance(c, str) and c})
    if not uniq or index.mode != "faithful":
        return {}
    qs = _Queries(np.array(uniq, dtype=object), index.mode)
    left = pd.DataFrame({"k": pd.Series(qs.s["last_name"], dtype="object"), "index_x": np.arange(len(uniq))})
    right = pd.DataFrame({"k": pd.Series(index.fields["last_name"].full, dtype="object"),
                          "index_y": np.arange(len(index.author_ids))})
    pairs = left.dropna(subset=["k"]).merge(right.dropna(subset=["k"]), how="inner", on="k")
    q, a = pairs["index_x"].to_numpy(np.int64), pairs["index_y"].to_numpy(np.int64)
    total = (_cheap_pairs(qs, q, index, a) + _tier_pairs(qs, q, index, a, _FULL) + _alt_pairs(qs, q, index, a))
    ok = total >= MIN_MATCHES
    valid = pd.DataFrame({"level_0": q[ok], "level_1": a[ok], "total_matches": total[ok].astype(np.float64)})
    valid = valid.sort_values(["total_matches"], ascending=[False])       # quicksort, as the reference
    valid = valid.drop_duplicates(subset="level_0", keep="first")
    return {uniq[i]: int(j) for i, j in zip(valid["level_0"], valid["level_1"])}


def match_names(names, index: NameIndex, *, clean: bool = True, block_pairs: int = 512, batch=None) -> pd.DataFrame:
    """Match recommended names against the ground truth with the paper's rule.

    Parameters: ``names``, the recommended names (raw, or already normalised with ``clean=False``;
    a faithful index normalises them as the reference pipeline does, :func:`reference_clean_name`);
    ``index``, a :class:`NameIndex` built for the mode wanted (faithful or corrected);
    ``block_pairs``, the block size (queries × authors) from which a block is scored as a matrix;
    ``batch``, one key per name (faithful: the reference's batch, one model's names of one
    experiment): with it, a faithful index picks among tied best candidates as the reference does
    (:func:`reference_choice`, per batch); without it, or with a corrected index, the tied
    candidate first in ground-truth order (deterministic, independent of the batch).

    Returns one row per input name (same order): name, clean_name, author_id (<NA> when no
    candidate reaches 5 of 9), score (best total of passed comparisons among candidates that can
    reach 5, else 0), n_best (how many candidates share the best score: homonyms), matched.
    """
    names = pd.Series(list(names), dtype="object")
    norm = reference_clean_name if index.mode == "faithful" else normalize_name
    cleaned = (_normalize_many(names, norm) if clean else names).astype("object")
    out = _match_unique(names, cleaned, index, block_pairs)
    if batch is None or index.mode != "faithful":
        return out
    batch = pd.Series(list(batch), dtype="object")
    if len(batch) != len(names):
        raise ValueError(f"match_names: batch has {len(batch)} keys for {len(names)} names")
    tied = out["n_best"].to_numpy() > 1
    for key in pd.unique(batch[tied]):
        rows = (batch == key).to_numpy()
        choice = reference_choice(cleaned[rows], index)
        sel = rows & tied
        pos = out.loc[sel, "clean_name"].map(choice)
        out.loc[sel, "author_id"] = pd.array(index.author_ids[pos.to_numpy(np.int64)], dtype="Int64")
    return out


def _match_unique(names, cleaned, index: NameIndex, block_pairs: int) -> pd.DataFrame:
    """match_names without the batch: each distinct name matched once, ties to the first author."""
    uniq = np.array([u for u in pd.unique(cleaned.dropna()) if u], dtype=object)
    qs = _Queries(uniq, index.mode)
    qs.gt_display = index.lookup("display_name", qs.s["display_name"])
    qs.gt_longest = index.lookup("longest_name", qs.s["display_name"])
    # block of each query: (start, end) into index.block_authors, or none
    spans = [index.block_keys.get(k) for k in qs.s["last_name"]]
    inb = np.array([sp is not None for sp in spans], dtype=bool)
    start = np.array([sp[0] if sp else 0 for sp in spans], dtype=np.int64)
    size = np.array([sp[1] - sp[0] if sp else 0 for sp in spans], dtype=np.int64)
    qn = np.bincount(start[inb], minlength=len(index.block_authors) + 1)  # queries per block (by start)
    big = inb & (qn[start] * size >= block_pairs)
    sq, sa, ss = [], [], []  # pairs still in the race, with their score over comparisons 1–8
    full_done = []  # whether comparisons 1–2 are already in the score (matrix-scored blocks)
    big_q = np.flatnonzero(big)
    order = big_q[np.argsort(start[big_q], kind="stable")]
    cuts = np.flatnonzero(np.r_[True, np.diff(start[order]) != 0, True]) if order.size else np.zeros(1, dtype=np.int64)
    blocks, eq, ea, ec = [], [], [], []
    for i, j in zip(cuts[:-1], cuts[1:]):
        qidx = order[i:j]
        s0 = start[qidx[0]]
        aidx = index.block_authors[s0:s0 + size[qidx[0]]]
        if index.mode == "corrected":
            aidx = np.unique(aidx)
        cheap, r, c = _block_exact(qs, qidx, index, aidx)
        blocks.append((qidx, aidx, cheap))
        eq.append(qidx[r])
        ea.append(aidx[c])
        ec.append(cheap[r, c].astype(np.int64))
    # exact lookups of all large blocks at once: their full scores bound each query's best
    lb = np.zeros(len(uniq), dtype=np.int64)
    if blocks:
        qe, ae, ce = np.concatenate(eq), np.concatenate(ea), np.concatenate(ec)
        np.maximum.at(lb, qe, ce + _tier_pairs(qs, qe, index, ae, _FULL) + _alt_pairs(qs, qe, index, ae))
    for qidx, aidx, cheap in blocks:
        q, a, sc, done = _block_survivors(qs, qidx, index, aidx, cheap, lb)
        sq.append(q)
        sa.append(a)
        ss.append(sc)
        full_done.append(done)
    small = np.flatnonzero(inb & ~big)
    small_q = small_a = None
    if small.size:
        lens = size[small]
        small_q = np.repeat(small, lens)
        offs = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        small_a = index.block_authors[np.repeat(start[small], lens) + offs]
    if small_q is not None:
        q, a = small_q, small_a
        sc = _cheap_pairs(qs, q, index, a)
        keep = _prune(q, sc, 3, _exact_lower_bound(qs, q, index, a, sc, len(uniq)))
        sq.append(q[keep])
        sa.append(a[keep])
        ss.append(sc[keep])
        full_done.append(np.zeros(int(keep.sum()), dtype=bool))
    best_author = np.full(len(uniq), -1, dtype=np.int64)
    best_score = np.zeros(len(uniq), dtype=np.int64)
    n_best = np.zeros(len(uniq), dtype=np.int64)
    if sq:
        q, a, sc = np.concatenate(sq), np.concatenate(sa), np.concatenate(ss)
        done = np.concatenate(full_done)
        keep = _prune(q, sc, np.where(done, 1, 3))
        q, a, sc, done = q[keep], a[keep], sc[keep], done[keep]
        sc[~done] += _tier_pairs(qs, q[~done], index, a[~done], _FULL)
        keep = _prune(q, sc, 1)
        q, a, sc = q[keep], a[keep], sc[keep]
        sc = sc + _alt_pairs(qs, q, index, a)
        # best per query: the first maximum in ground-truth order
        order = np.lexsort((a, -sc, q))
        q, a, sc = q[order], a[order], sc[order]
        head = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
        grp = np.cumsum(head) - 1
        best_score[q[head]] = sc[head]
        best_author[q[head]] = a[head]
        n_best[q[head]] = np.bincount(grp, weights=(sc == sc[head][grp])).astype(np.int64)
    ok = best_score >= MIN_MATCHES
    res_id = pd.array(np.where(ok, index.author_ids[np.maximum(best_author, 0)], 0), dtype="Int64")
    res_id[~ok] = pd.NA
    res = pd.DataFrame({"clean_name": uniq, "author_id": res_id, "score": np.where(ok, best_score, 0),
                        "n_best": np.where(ok, n_best, 0), "matched": ok})
    out = pd.DataFrame({"name": names, "clean_name": cleaned})
    out = out.merge(res, on="clean_name", how="left")
    out["score"] = out["score"].fillna(0).astype(np.int64)
    out["n_best"] = out["n_best"].fillna(0).astype(np.int64)
    out["matched"] = out["matched"].astype("boolean").fillna(False).astype(bool)
    return out


def match_names_recordlinkage(names, authors: pd.DataFrame) -> pd.DataFrame:
    """The faithful rule run through ``recordlinkage`` exactly as the reference (slow; for checks).

    Returns one row per distinct normalised name: clean_name, author_id (<NA> if no match), score,
    best_ids (the set of ground-truth ids sharing the best score ≥ 5; empty if none).
    """
    import recordlinkage as rl

    cleaned = pd.unique(pd.Series(list(names), dtype="object").map(reference_clean_name).dropna())
    cleaned = [c for c in cleaned if c]
    dfA = recommended_fields(cleaned)
    dfA.index = pd.RangeIndex(len(dfA), name="qid")
    dfB = ground_truth_fields(authors).set_index("author_id")
    indexer = rl.Index()
    indexer.block(left_on="last_name", right_on="last_name")
    pairs = indexer.index(dfA, dfB)
    comp = rl.Compare(n_jobs=1)
    spec = [
        ("display_name", "display_name", FULL_THRESHOLD),
        ("display_name", "longest_name", FULL_THRESHOLD),
        ("first_name", "first_name", PART_THRESHOLD),
        ("last_name", "last_name", PART_THRESHOLD),
        ("second_name", "second_name", PART_THRESHOLD),
        ("first_initial", "first_initial", PART_THRESHOLD),
        ("display_name", "last_name", PART_THRESHOLD),
        ("display_name", "first_name", PART_THRESHOLD),
        ("display_name", "alternative_names", PART_THRESHOLD),
    ]
    for i, (l, r, thr) in enumerate(spec):
        comp.string(l, r, method="jarowinkler", threshold=thr, missing_value=0, label=f"c{i}")
    feats = comp.compute(pairs, dfA, dfB) if len(pairs) else pd.DataFrame(columns=[f"c{i}" for i in range(9)])
    total = feats.sum(axis=1) if len(feats) else pd.Series(dtype=float)
    out = pd.DataFrame({"clean_name": cleaned, "author_id": pd.array([pd.NA] * len(cleaned), dtype="Int64"),
                        "score": 0, "best_ids": [frozenset()] * len(cleaned)})
    if len(total):
        t = total.rename("total").reset_index()
        t.columns = ["qid", "author_id", "total"]
        top = t.groupby("qid")["total"].transform("max")
        best = t[(t["total"] == top) & (t["total"] >= MIN_MATCHES)]
        first = best.groupby("qid")["author_id"].first()
        sets = best.groupby("qid")["author_id"].agg(frozenset)
        mx = t.groupby("qid")["total"].max()
        out.loc[mx.index, "score"] = mx.astype(int).to_numpy()
        out.loc[first.index, "author_id"] = first.astype("Int64").to_numpy()
        out.loc[sets.index, "best_ids"] = pd.Series(sets.to_numpy(), index=sets.index)
    return out
