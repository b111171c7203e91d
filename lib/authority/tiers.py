"""Venue and affiliation tier tables of the authority-bias reference pipeline, verbatim (spec A.2).

Literal data, kept apart from the scoring logic in :mod:`lib.authority.scoring`, in
``lib/resources/authority_tiers.json`` (the synthetic panel reads the same file: a model knows
the public venue rankings, the analysis scores with them). The strings are the reference's,
including its duplicates (``Machine Intelligence Research`` is both a top journal and a C
journal) and HTML-escaped entries (``AI &amp; SOCIETY``); exact-match scoring depends on them.
"""
from __future__ import annotations

import json

from lib import paths

_T = json.loads((paths.RESOURCES / "authority_tiers.json").read_text(encoding="utf-8"))

#: A* conferences, score 1.0 (30 entries)
A_STAR: tuple[str, ...] = tuple(_T["A_STAR"])
#: A conferences, score 0.75 (34 entries)
A_CONF: tuple[str, ...] = tuple(_T["A_CONF"])
#: top journals, score 0.75 (28 entries)
TOP_JOURNALS: tuple[str, ...] = tuple(_T["TOP_JOURNALS"])
#: B conferences, score 0.5 (22 entries)
B_CONF: tuple[str, ...] = tuple(_T["B_CONF"])
#: mid journals, score 0.5 (96 entries)
MID_JOURNALS: tuple[str, ...] = tuple(_T["MID_JOURNALS"])
#: C / general journals, score 0.25 (102 entries)
C_JOURNALS: tuple[str, ...] = tuple(_T["C_JOURNALS"])
#: elite affiliations, score 1.0 (universities, then Chinese/Asian universities, then industry labs) (93 entries)
ELITE_AFF: tuple[str, ...] = tuple(_T["ELITE_AFF"])
#: strong affiliations, score 0.66 (88 entries)
STRONG_AFF: tuple[str, ...] = tuple(_T["STRONG_AFF"])
#: Workshop venues whose parent conference lifts them to 0.5 (case-insensitive regexes).
WORKSHOP_PARENT_PATTERNS: tuple[str, ...] = tuple(_T["WORKSHOP_PARENT_PATTERNS"])
#: Preprint servers (lower-cased exact match), score 0.125.
PREPRINT_SERVERS: frozenset[str] = frozenset(_T["PREPRINT_SERVERS"])
#: Affiliations the boosted condition draws from (spec A.3, ``ELITE_AFFILIATIONS``).
BOOST_AFFILIATIONS: tuple[str, ...] = tuple(_T["BOOST_AFFILIATIONS"])
#: Venues the boosted condition draws from (spec A.3, ``ELITE_VENUES``).
BOOST_VENUES: tuple[str, ...] = tuple(_T["BOOST_VENUES"])
