"""Authority scoring: the five authority dimensions of a paper, their within-topic normalisation and the composite α.

Paper §3 Eq. 1 and §4.3 / Appendix A.6; reference ``authority_mappings.py`` and
``generate_conditions.py`` (spec A.2–A.3). The five dimensions are venue prestige, median and
maximum author h-index, citation count and affiliation prestige. Faithful mode follows the
reference code; ``corrected=True`` switches each documented quirk (⚠ in spec A.2–A.3) off.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from lib.authority import tiers

#: The five authority dimensions, in the paper's order of Eq. 1 / Table 1.
DIMENSIONS: tuple[str, ...] = ("venue", "median_h", "max_h", "citations", "affiliation")
#: Equal weights: the reference's pre-pilot default (``generate_conditions.py`` docstring, spec A.3).
UNIFORM_WEIGHTS: dict[str, float] = {d: 0.2 for d in DIMENSIONS}

_A_STAR = frozenset(tiers.A_STAR)
_A = frozenset(tiers.A_CONF)
_TOP_J = frozenset(tiers.TOP_JOURNALS)
_B = frozenset(tiers.B_CONF)
_MID_J = frozenset(tiers.MID_JOURNALS)
_C = frozenset(tiers.C_JOURNALS)
_WORKSHOP_PARENT = [re.compile(p, re.IGNORECASE) for p in tiers.WORKSHOP_PARENT_PATTERNS]
_YEAR_PREFIX = re.compile(r"^\d{4} ")


def venue_score(venue: str | None, *, corrected: bool = False) -> float:
    """Venue prestige v ∈ [0, 1] from the CORE-style tier tables (spec A.2, paper A.6).

    Definition: the first matching rule wins: empty 0.0; A* 1.0; A 0.75; top journal 0.75;
    B 0.5; mid journal 0.5; workshop of a top parent 0.5; other workshop (``Workshop``, a ``WS``
    token or ``@``) 0.375; C/general journal 0.25; preprint server 0.125; ``IEEE`` 0.25;
    ``ACM`` 0.375; ``International Conference/Congress/Journal`` 0.25; ``Findings`` 0.625;
    anything else 0.125.

    Interpretation: higher means a more prestigious venue; the paper's text (A.6) quotes
    0.85/0.65/0.45/0.15 for A/B/C/arXiv, which are the author-score tiers, not the code's venue
    scale (spec A.2 ⚠); the code's values are used here.

    Faithful vs corrected: faithfully ``bioRxiv``/``medRxiv`` in that casing hit the C list first
    (0.25, not 0.125); ``corrected=True`` checks preprint servers case-insensitively before the
    journal lists. Edge cases: None, NaN and whitespace-only venues score 0.0.
    """
    v = venue.strip() if isinstance(venue, str) else ""
    if not v:
        return 0.0
    if corrected and v.lower() in tiers.PREPRINT_SERVERS:
        return 0.125
    if v in _A_STAR:
        return 1.0
    if v in _A or v in _TOP_J:
        return 0.75
    if v in _B or v in _MID_J:
        return 0.5
    if any(p.search(v) for p in _WORKSHOP_PARENT):
        return 0.5
    if "Workshop" in v or "WS" in v.split() or "@" in v:
        return 0.375
    if v in _C or v == "Italian National Conference on Sensors":
        return 0.25
    if v.lower() in tiers.PREPRINT_SERVERS:
        return 0.125
    if "IEEE" in v:
        return 0.25
    if "ACM" in v:
        return 0.375
    if any(s in v for s in ("International Conference", "International Congress", "International Journal")):
        return 0.25
    if v == "Findings":
        return 0.625
    return 0.125


_ELITE = tuple(s.lower() for s in tiers.ELITE_AFF)
_STRONG = tuple(s.lower() for s in tiers.STRONG_AFF)
_ELITE_RE = [re.compile(r"\b" + re.escape(s) + r"\b") for s in _ELITE]
_STRONG_RE = [re.compile(r"\b" + re.escape(s) + r"\b") for s in _STRONG]


def affiliation_score(affiliation: str | None, *, corrected: bool = False) -> float:
    """Prestige of one affiliation string: elite 1.0, strong 0.66, any other non-empty 0.33, empty 0.0.

    Definition (spec A.2): after lower-casing, a reference entry matches if it is a substring of
    the affiliation or the affiliation is a substring of it; elite entries are tried first.

    Faithful vs corrected: the faithful two-way substring rule gives false positives (``mit`` in
    "Smith", ``intel`` in "...Intelligence", ``ucl`` in "nuclear"; spec A.2 ⚠).
    ``corrected=True`` requires the reference entry to occur as whole words in the affiliation.
    """
    a = (affiliation or "").strip().lower()
    if not a:
        return 0.0
    if corrected:
        if any(r.search(a) for r in _ELITE_RE):
            return 1.0
        if any(r.search(a) for r in _STRONG_RE):
            return 0.66
        return 0.33
    if any(ref in a or a in ref for ref in _ELITE):
        return 1.0
    if any(ref in a or a in ref for ref in _STRONG):
        return 0.66
    return 0.33


def paper_affiliation_score(affiliations: Iterable[str], *, corrected: bool = False) -> float:
    """Affiliation prestige a of a paper: the maximum over all listed affiliations of all authors (paper A.6)."""
    best = 0.0
    for aff in affiliations:
        best = max(best, affiliation_score(aff, corrected=corrected))
        if best >= 1.0:
            break
    return best


def author_score(max_h: float | None) -> float:
    """Author-identity tier of the 6-predictor ablation (paper Appendix D; spec A.9).

    Step function of the maximum author h-index: ≥70 → 1.00 (A*), 40–69 → 0.85 (A),
    20–39 → 0.65 (B), 5–19 → 0.45 (C), 0–4 → 0.15 (D); a missing h-index scores 0.15.
    """
    if max_h is None or (isinstance(max_h, float) and np.isnan(max_h)):
        return 0.15
    h = int(max_h)
    if h >= 70:
        return 1.00
    if h >= 40:
        return 0.85
    if h >= 20:
        return 0.65
    if h >= 5:
        return 0.45
    return 0.15


def raw_components(metadata: pd.DataFrame, authors: pd.DataFrame, *, corrected: bool = False,
                   key: Iterable[str] = ("paper_id",)) -> pd.DataFrame:
    """The five raw authority components per paper (spec A.3), before any normalisation.

    ``metadata`` has one row per paper (``key`` columns, ``venue``, ``citation_count``);
    ``authors`` one row per author (``key`` columns, ``h_index``, ``affiliations`` as a sequence
    of strings). Returns ``key`` + ``max_h``, ``median_h`` (h-indices with missing treated as 0,
    as the reference does), ``citations`` (missing → 0), ``venue`` and ``affiliation`` scores.
    A paper without authors gets max_h = median_h = 0 and affiliation 0.
    """
    key = list(key)
    h = authors.assign(h=pd.to_numeric(authors["h_index"], errors="coerce").fillna(0.0))
    hstats = h.groupby(key)["h"].agg(max_h="max", median_h="median")
    aff = authors.groupby(key)["affiliations"].agg(
        lambda s: paper_affiliation_score((a for lst in s for a in (lst if lst is not None else ())), corrected=corrected))
    out = metadata[key + ["venue", "citation_count"]].copy()
    out = out.merge(hstats, left_on=key, right_index=True, how="left")
    out = out.merge(aff.rename("affiliation"), left_on=key, right_index=True, how="left")
    out["max_h"] = out["max_h"].fillna(0.0)
    out["median_h"] = out["median_h"].fillna(0.0)
    out["affiliation"] = out["affiliation"].fillna(0.0)
    out["citations"] = pd.to_numeric(out["citation_count"], errors="coerce").fillna(0.0).astype(float)
    out["venue"] = [venue_score(v, corrected=corrected) for v in out["venue"]]
    return out[key + ["max_h", "median_h", "citations", "venue", "affiliation"]]


def normalize_within_topic(components: pd.DataFrame, *, by: str | list[str] = "topic",
                           corrected: bool = False) -> pd.DataFrame:
    """Min–max normalise the authority components within each topic (paper §4.3, A.6; spec A.3).

    Definition: x̂ = (x − min)/(max − min) over the papers of one topic (in one condition);
    if max = min every paper gets 0.5.

    Faithful vs corrected: the reference min–max scales only max_h, median_h and citations and
    uses venue and affiliation raw (already in [0, 1]); the paper's text says every dimension is
    min–max normalised within topic. ``corrected=True`` scales all five. Values are rounded to
    4 dp like the stored ``authority_components``.
    """
    cols = list(DIMENSIONS) if corrected else ["max_h", "median_h", "citations"]
    out = components.copy()
    g = out.groupby(by)
    for c in cols:
        lo, hi = g[c].transform("min"), g[c].transform("max")
        span = hi - lo
        out[c] = np.where(span > 0, (out[c] - lo) / span.where(span > 0, 1.0), 0.5)
    for c in DIMENSIONS:
        out[c] = out[c].astype(float).round(4)
    return out


def check_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """Validate a weight mapping over :data:`DIMENSIONS` (every dimension, non-negative)."""
    missing = [d for d in DIMENSIONS if d not in weights]
    extra = [k for k in weights if k not in DIMENSIONS]
    if missing or extra:
        raise ValueError(f"authority weights: expected keys {list(DIMENSIONS)}; missing {missing}, unknown {extra}")
    if any(float(weights[d]) < 0 for d in DIMENSIONS):
        raise ValueError(f"authority weights must be >= 0, got {dict(weights)}")
    return {d: float(weights[d]) for d in DIMENSIONS}


def composite(normalized: pd.DataFrame, weights: Mapping[str, float]) -> pd.Series:
    """Composite authority score α = Σ_d w_d · x̂_d (paper Eq. 1), rounded to 4 dp as the reference stores it.

    Interpretation: α ∈ [0, 1] when the weights sum to 1; higher means more authority within the
    paper's topic. The weights come from the pilot (:func:`lib.authority.pilot.fuse_weights`);
    before a pilot has been run the reference used equal weights (:data:`UNIFORM_WEIGHTS`).
    """
    w = check_weights(weights)
    return sum(w[d] * normalized[d].astype(float) for d in DIMENSIONS).round(4)


def authority_buckets(composites: pd.Series) -> pd.Series:
    """Authority buckets of one topic's papers (reference ``classify_papers``, spec A.3).

    Sort by composite, descending, ties kept in input order (stable sort); the first n//4 are
    ``high``, the last n//4 ``low``, the rest ``mid`` (12 / 26 / 12 for 50 papers). These buckets
    drive the flip and boost manipulations; they are not the citation tiers of the sampling design.
    """
    order = composites.sort_values(ascending=False, kind="stable").index
    n = len(order)
    q = n // 4
    out = pd.Series("mid", index=composites.index, dtype=object)
    out[order[:q]] = "high"
    if q:
        out[order[n - q:]] = "low"
    return out
