"""The paper corpus of the authority-bias study: the embedded synthetic default and the released-dataset loader.

A :class:`PaperCorpus` is three tables (plus, for a released dataset, its candidate sets):

* ``papers``: one row per paper: ``paper_id, topic, title, abstract, year, venue,
  citation_count, tier`` (``tier`` is the citation stratum of the sampling design:
  ``top/mid/low/emerging/fill``; paper §4.2, spec A.1);
* ``authors``: one row per author of a paper, in byline order: ``paper_id, position, name,
  h_index`` (float, NaN when unknown) and ``affiliations`` (a tuple of strings);
* ``queries``: ``query_id, topic, query_index`` (1-based) and ``query``;
* ``candidates`` (released data only): ``query_id, position`` (1..10, display order),
  ``paper_id``.

The synthetic corpus mirrors the paper's design (25 topics × 50 papers: 15 top, 15 mid, 10
low, 10 emerging from 2024–2026; 10 queries per topic) with invented titles, abstracts,
authors and metadata; it is not the paper's data. The loader reads the reference pipeline's
JSON files (``scholar_papers.json``, ``experiment_sets.json``, ``results/*.json``; spec A.1,
A.4, A.5) and validates them, naming the file, the key and an example row on error.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from lib.authority import tiers
from lib.authority.topics import QUERY_FRAMES, TOPIC_VOCABULARY, TOPICS, topic_slug

#: Papers per citation stratum in each topic (paper §4.2).
TIER_QUOTA: dict[str, int] = {"top": 15, "mid": 15, "low": 10, "emerging": 10}
PAPER_COLUMNS = ("paper_id", "topic", "title", "abstract", "year", "venue", "citation_count", "tier")
AUTHOR_COLUMNS = ("paper_id", "position", "name", "h_index", "affiliations")
QUERY_COLUMNS = ("query_id", "topic", "query_index", "query")
CITATION_TIERS = ("top", "mid", "low", "emerging", "fill")


class CorpusError(ValueError):
    """A corpus file or table that does not meet the schema; the message names source, key and row."""


@dataclass(frozen=True)
class PaperCorpus:
    """Papers, authors and queries of one corpus; ``candidates`` only when a release fixes them."""

    papers: pd.DataFrame
    authors: pd.DataFrame
    queries: pd.DataFrame
    candidates: pd.DataFrame | None = None
    synthetic: bool = True
    source: str = "synthetic"

    def __post_init__(self) -> None:
        validate_corpus(self)

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys(self.papers["topic"]))

    def subset(self, topics: list[str] | tuple[str, ...]) -> "PaperCorpus":
        """The same corpus restricted to ``topics`` (unknown topic names raise)."""
        unknown = [t for t in topics if t not in set(self.papers["topic"])]
        if unknown:
            raise CorpusError(f"{self.source}: unknown topics {unknown}; available {self.topics}")
        keep = self.papers["topic"].isin(topics)
        ids = set(self.papers.loc[keep, "paper_id"])
        q = self.queries[self.queries["topic"].isin(topics)]
        cand = None if self.candidates is None else self.candidates[self.candidates["query_id"].isin(q["query_id"])]
        return PaperCorpus(self.papers[keep].reset_index(drop=True),
                           self.authors[self.authors["paper_id"].isin(ids)].reset_index(drop=True),
                           q.reset_index(drop=True), cand, self.synthetic, self.source)


def _require(df: pd.DataFrame, cols, source: str, table: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise CorpusError(f"{source}: table {table!r} lacks column(s) {missing}; expected {list(cols)}")


def _example(df: pd.DataFrame, mask) -> str:
    row = df[mask].iloc[0]
    return f"row {row.name}: {row.to_dict()}"


def validate_corpus(corpus: PaperCorpus) -> None:
    """Check the three tables of a corpus; every error names the source, table, column and an example row."""
    src, p, a, q = corpus.source, corpus.papers, corpus.authors, corpus.queries
    _require(p, PAPER_COLUMNS, src, "papers")
    _require(a, AUTHOR_COLUMNS, src, "authors")
    _require(q, QUERY_COLUMNS, src, "queries")
    if p.empty:
        raise CorpusError(f"{src}: table 'papers' is empty")
    dup = p["paper_id"].duplicated()
    if dup.any():
        raise CorpusError(f"{src}: papers.paper_id must be unique; duplicate at {_example(p, dup)}")
    for col in ("title", "topic"):
        bad = p[col].isna() | (p[col].astype(str).str.strip() == "")
        if bad.any():
            raise CorpusError(f"{src}: papers.{col} must be a non-empty string; {_example(p, bad)}")
    # tier (citation stratum) and year are derived/bibliographic: warned, not rejected (the release loads as used)
    bad = ~p["tier"].isin(CITATION_TIERS)
    if bad.any():
        warnings.warn(f"{src}: papers.tier not one of {CITATION_TIERS} in {int(bad.sum())} row(s), kept as released; "
                      f"{_example(p, bad)}", stacklevel=2)
    cites = pd.to_numeric(p["citation_count"], errors="coerce")
    bad = cites.isna() | (cites < 0)
    if bad.any():
        raise CorpusError(f"{src}: papers.citation_count must be a number >= 0; {_example(p, bad)}")
    years = pd.to_numeric(p["year"], errors="coerce")
    bad = years.notna() & ((years < 1900) | (years > 2100))
    if bad.any():
        warnings.warn(f"{src}: papers.year outside 1900..2100 in {int(bad.sum())} row(s), kept as released; "
                      f"{_example(p, bad)}", stacklevel=2)
    bad = ~a["paper_id"].isin(set(p["paper_id"]))
    if bad.any():
        raise CorpusError(f"{src}: authors.paper_id must name a paper; {_example(a, bad)}")
    h = pd.to_numeric(a["h_index"], errors="coerce")
    bad = h.notna() & (h < 0)
    if bad.any():
        raise CorpusError(f"{src}: authors.h_index must be >= 0 or missing; {_example(a, bad)}")
    bad = ~a["affiliations"].map(lambda x: isinstance(x, tuple) and all(isinstance(s, str) for s in x))
    if bad.any():
        raise CorpusError(f"{src}: authors.affiliations must be a tuple of strings; {_example(a, bad)}")
    dup = q["query_id"].duplicated()
    if dup.any():
        raise CorpusError(f"{src}: queries.query_id must be unique; duplicate at {_example(q, dup)}")
    bad = ~q["topic"].isin(set(p["topic"]))
    if bad.any():
        raise CorpusError(f"{src}: queries.topic must be a topic of the papers table; {_example(q, bad)}")
    if corpus.candidates is not None:
        c = corpus.candidates
        _require(c, ("query_id", "position", "paper_id"), src, "candidates")
        bad = ~c["paper_id"].isin(set(p["paper_id"]))
        if bad.any():
            raise CorpusError(f"{src}: candidates.paper_id must name a paper; {_example(c, bad)}")


# --------------------------------------------------------------------------------------------
# The embedded synthetic corpus
# --------------------------------------------------------------------------------------------

_FIRST = ("Wei", "Maria", "James", "Aisha", "Hiroshi", "Elena", "Carlos", "Priya", "Lukas", "Fatima", "Daniel",
          "Mei", "Olumide", "Sofia", "Arjun", "Chloe", "Mohammed", "Ingrid", "Tomás", "Yuna", "Kwame", "Anna",
          "Ravi", "Laura", "Jun", "Amara", "Pavel", "Nadia", "Samuel", "Leila", "Kenji", "Grace", "Mateo", "Zara",
          "Ethan", "Ling", "Omar", "Hannah", "Diego", "Yusuf")
_LAST = ("Zhang", "Garcia", "Smith", "Okafor", "Tanaka", "Petrova", "Silva", "Sharma", "Müller", "Haddad", "Kim",
         "Chen", "Adeyemi", "Rossi", "Patel", "Dubois", "Rahman", "Larsen", "Novak", "Park", "Mensah", "Kowalski",
         "Iyer", "Martin", "Liu", "Nwosu", "Ivanov", "Karimi", "Cohen", "Moreau", "Sato", "Wilson", "Fernández",
         "Ali", "Brown", "Wang", "Hassan", "Schmidt", "López", "Yilmaz")
_OTHER_AFFILIATIONS = ("Georgia State University", "University of Leeds", "Universidad de Chile", "University of Lagos",
                       "Aalto University", "University of Porto", "Kyungpook National University", "University of Bergen",
                       "Indian Institute of Technology Patna", "Universidade Federal de Minas Gerais", "University of Nairobi",
                       "Koç University", "University of Ljubljana", "Tampere University", "University of Canterbury",
                       "Shenzhen University", "University of Tehran", "Charles University", "University of Cape Town",
                       "National Research Council of Italy")
# Venue pools by prestige band (names from the reference tier tables, so scoring exercises them).
_VENUE_BANDS = {
    "a_star": tiers.A_STAR[:12],
    "a": tiers.A_CONF[:12] + tiers.TOP_JOURNALS[:10],
    "b": tiers.B_CONF[:8] + tiers.MID_JOURNALS[:16],
    "c": tiers.C_JOURNALS[:14],
    "preprint": ("arXiv.org",),
}
# P(venue band) per citation stratum: top papers sit mostly at top venues, emerging ones on arXiv.
_VENUE_MIX = {
    "top": (0.55, 0.25, 0.08, 0.02, 0.10),
    "mid": (0.22, 0.28, 0.25, 0.10, 0.15),
    "low": (0.05, 0.12, 0.33, 0.25, 0.25),
    "emerging": (0.18, 0.15, 0.15, 0.12, 0.40),
}
# (median h-index of an author, P(elite), P(strong)) per stratum. Set, with 2-8 authors a paper
# and the lost lookups below, so that the papers' max h-index falls into the paper's author_score
# tiers as in the release (:data:`MAX_H_TIER_SHARES`): Semantic Scholar h-indices are lower than
# a researcher's reputation suggests, and a boosted card's 50-80 tops most real author lists.
_AUTHOR_MIX = {"top": (18.0, 0.45, 0.25), "mid": (8.0, 0.28, 0.27), "low": (4.0, 0.12, 0.25), "emerging": (5.0, 0.25, 0.25)}
_AUTHORS_PER_PAPER = (2, 8)
#: Share of papers whose author lookup failed: every author's h-index is unknown (read as 0).
_LOST_LOOKUP = 0.10
#: Share of the release's 1,250 papers per author_score tier of the max h-index (paper Appendix D,
#: line 500: A* >= 70, A 40-69, B 20-39, C 5-19, D 0-4); the synthetic corpus follows it.
MAX_H_TIER_SHARES = {"A*": 0.094, "A": 0.141, "B": 0.218, "C": 0.406, "D": 0.141}
_YEARS = {"top": (2018, 2022), "mid": (2018, 2023), "low": (2018, 2023), "emerging": (2024, 2026)}
# Range of the gain (points) an abstract reports, per stratum: the content of highly cited papers
# is stronger on average, so a reader that weighs content alone still prefers them (paper Table 9:
# top-tier papers keep 32.5 % of picks under flipped, above their 30 % share).
_GAINS = {"top": (2.6, 6.1), "mid": (1.5, 5.0), "low": (1.5, 4.8), "emerging": (1.0, 4.7)}
# Within a stratum the reported gain moves with the venue band, U-shaped: A* papers report the
# strongest results, preprints (most of the emerging work) large gains over older baselines, and the
# A/B/C-venue middle incremental ones. The boosted condition inflates the composite's mid bucket,
# mostly A- and B-venue papers, so those are weaker content than their candidate sets' mean: before
# the boost they are picked below chance (the paper's §5.5 and Appendix G imply about 0.72x: Gemma 2
# picks them at 24.9 % after a 14.0 % boost rate of which 74.3 % moves toward higher authority), and
# a boost lifts them to about chance (27.1 % vs 25.6 %; per model 0.92-1.43x). With gains rising
# with the venue instead, they stayed at 1.1x chance before the boost and 1.3x after.
_GAIN_BY_VENUE = {"a_star": 1.5, "a": -0.5, "b": -1.0, "c": -0.5, "preprint": 0.5}
_TITLE_FRAMES = ("{name}: {method} for {aspect}", "Revisiting {aspect} with {method}", "Towards {adj} {aspect}",
                 "{adj_cap} {method} for {aspect}", "On {aspect}: a {study} study", "{name}: {adj} {method} for {aspect}",
                 "Learning to improve {aspect} via {method}", "When does {method} help {aspect}?")
_ADJ = ("scalable", "robust", "efficient", "principled", "simple", "unified", "adaptive", "data-efficient", "reliable", "lightweight")
_STUDY = ("systematic", "empirical", "large-scale", "controlled", "comparative")
_ABSTRACT_OPENERS = (
    "{Aspect} remains a central challenge for {topic}, and existing methods degrade when data or compute are limited.",
    "Progress on {aspect} has been uneven, because current {topic} systems rely on assumptions that rarely hold in practice.",
    "Despite rapid progress in {topic}, {aspect} is still poorly understood.",
)
_ABSTRACT_METHODS = (
    "We propose {name}, a {adj} approach based on {method} that {verb}.",
    "In this paper we introduce {name}, which combines {method} with {method2} and {verb}.",
    "We study {method} as a way to address this problem and present {name}, a method that {verb}.",
)
_VERBS = ("requires no additional labelled data", "adds negligible inference cost", "adapts to the target setting at test time",
          "comes with a simple theoretical justification", "scales to models with billions of parameters",
          "is compatible with existing training pipelines")
_ABSTRACT_RESULTS = (
    "Experiments on {k} benchmarks show consistent gains of {g} points over strong baselines, with the largest improvements in the hardest settings.",
    "Across {k} datasets, {name} improves on prior work by {g} points while using {r}x less compute.",
    "An extensive evaluation on {k} tasks shows improvements of up to {g} points and better calibration.",
)
_ABSTRACT_CLOSERS = (
    "Ablations identify which components matter, and we release code and trained models to support future work.",
    "We further analyse failure cases and discuss the limits of the approach.",
    "Our analysis also clarifies when simpler baselines are sufficient, offering practical guidance for practitioners.",
)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _topic_phrase(topic: str) -> str:
    """Lower-case a topic name for running text, keeping acronyms ("LLM Alignment" -> "LLM alignment")."""
    return " ".join(w if w.isupper() else w.lower() for w in topic.split())


def _acronym(rng: np.random.Generator) -> str:
    letters = "".join(rng.choice(list("ABCDEFGHIJKLMNOPRSTUVW"), size=int(rng.integers(3, 6))))
    return letters + str(rng.choice(["", "", "Net", "Former", "-2", "+"]))


def _synthetic_topic(topic: str, rng: np.random.Generator) -> tuple[list[dict], list[dict]]:
    aspects, methods = TOPIC_VOCABULARY[topic]
    slug, tp = topic_slug(topic), _topic_phrase(topic)
    papers, authors = [], []
    i = 0
    for tier, n in TIER_QUOTA.items():
        for _ in range(n):
            i += 1
            pid = f"{slug}-p{i:02d}"
            band = str(rng.choice(list(_VENUE_BANDS), p=_VENUE_MIX[tier]))
            aspect, method, method2 = aspects[int(rng.integers(len(aspects)))], *rng.choice(methods, 2, replace=False)
            name, adj = _acronym(rng), str(rng.choice(_ADJ))
            title = str(rng.choice(_TITLE_FRAMES)).format(name=name, method=method, aspect=aspect, adj=adj,
                                                          adj_cap=_cap(adj), study=rng.choice(_STUDY))
            fill = dict(Aspect=_cap(aspect), aspect=aspect, topic=tp, name=name, adj=adj, method=method, method2=method2,
                        verb=rng.choice(_VERBS), k=int(rng.integers(3, 12)),
                        g=round(float(rng.uniform(*_GAINS[tier])) + _GAIN_BY_VENUE[band], 1),
                        r=int(rng.integers(2, 9)))
            abstract = " ".join(str(rng.choice(part)).format(**fill) for part in
                                (_ABSTRACT_OPENERS, _ABSTRACT_METHODS, _ABSTRACT_RESULTS, _ABSTRACT_CLOSERS))
            lo, hi = _YEARS[tier]
            year = int(rng.integers(lo, hi + 1))
            # Top citations are heavy-tailed, so a topic's most cited paper sets the min-max scale in every
            # condition (a boosted card's x3-5 stays below it), while a boosted mid paper out-cites a
            # typical top paper about half the time (paper Table 17, citations only: 51.4 %).
            if tier == "top":
                cites = int(rng.lognormal(np.log(800), 1.3)) + 150
            elif tier == "mid":
                cites = int(rng.integers(100, 1000))
            elif tier == "low":
                cites = int(rng.integers(0, 40))
            else:  # emerging: young papers, few citations, more for the oldest
                cites = int(rng.poisson(4 + 12 * (2026 - year)))
            venue = str(rng.choice(_VENUE_BANDS[band]))
            papers.append(dict(paper_id=pid, topic=topic, title=title, abstract=abstract, year=year, venue=venue,
                               citation_count=cites, tier=tier))
            med_h, p_elite, p_strong = _AUTHOR_MIX[tier]
            lost = rng.random() < _LOST_LOOKUP
            for pos in range(int(rng.integers(_AUTHORS_PER_PAPER[0], _AUTHORS_PER_PAPER[1] + 1))):
                h = float(np.clip(np.round(rng.lognormal(np.log(med_h), 0.9)), 0, 190))
                if lost or rng.random() < 0.03:
                    h = float("nan")  # unknown h-index, as for some Semantic Scholar authors
                affs = []
                for _k in range(int(rng.choice([0, 1, 1, 1, 2], p=[0.05, 0.3, 0.3, 0.2, 0.15]))):
                    u = rng.random()
                    pool = tiers.BOOST_AFFILIATIONS if u < p_elite else (
                        ("Fudan University", "Technical University of Munich", "University of Melbourne", "Seoul National University",
                         "Imperial College London", "Alibaba Group", "Nanyang Technological University", "Boston University")
                        if u < p_elite + p_strong else _OTHER_AFFILIATIONS)
                    affs.append(str(rng.choice(pool)))
                authors.append(dict(paper_id=pid, position=pos + 1,
                                    name=f"{rng.choice(_FIRST)} {rng.choice(_LAST)}", h_index=h,
                                    affiliations=tuple(dict.fromkeys(affs))))
    return papers, authors


def synthetic_queries(topics: list[str] | tuple[str, ...] = TOPICS) -> pd.DataFrame:
    """Ten natural-language queries per topic (paper §4.6): query k asks about aspect k in frame k."""
    rows = []
    for topic in topics:
        aspects, _ = TOPIC_VOCABULARY[topic]
        for k, (frame, aspect) in enumerate(zip(QUERY_FRAMES, aspects)):
            rows.append(dict(query_id=f"{topic_slug(topic)}_q{k + 1}", topic=topic, query_index=k + 1,
                             query=frame.format(topic=_topic_phrase(topic), aspect=aspect)))
    return pd.DataFrame(rows, columns=list(QUERY_COLUMNS))


def synthetic_corpus(seed: int = 42, *, topics: list[str] | tuple[str, ...] = TOPICS) -> PaperCorpus:
    """The embedded synthetic corpus: each topic × 50 papers (15 top, 15 mid, 10 low, 10 emerging) and 10 queries.

    Deterministic in ``seed``; each topic draws from its own stream (seeded from ``seed`` and
    the topic's position in :data:`TOPICS`), so a subset of topics gives the same papers as the
    full corpus. Metadata follow the strata plausibly: top papers are older, highly cited, at
    A*/A venues with senior authors at elite institutions; emerging papers are 2024–2026 with
    few citations and many preprints. All of it is invented.
    """
    unknown = [t for t in topics if t not in TOPIC_VOCABULARY]
    if unknown:
        raise CorpusError(f"synthetic corpus: unknown topics {unknown}; available {list(TOPICS)}")
    papers, authors = [], []
    for topic in topics:
        rng = np.random.default_rng([seed, TOPICS.index(topic)])
        p, a = _synthetic_topic(topic, rng)
        papers += p
        authors += a
    return PaperCorpus(pd.DataFrame(papers, columns=list(PAPER_COLUMNS)),
                       pd.DataFrame(authors, columns=list(AUTHOR_COLUMNS)),
                       synthetic_queries(topics), None, True, f"synthetic corpus (seed {seed})")


# --------------------------------------------------------------------------------------------
# The released dataset (reference pipeline JSON files)
# --------------------------------------------------------------------------------------------

def _read_json(path: Path):
    if not path.is_file():
        raise CorpusError(f"{path}: file not found")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CorpusError(f"{path}: not valid JSON ({e})") from None


def _need(obj: dict, key: str, path: Path, where: str):
    if not isinstance(obj, dict) or key not in obj:
        raise CorpusError(f"{path}: {where} lacks key {key!r} (example: {str(obj)[:200]})")
    return obj[key]


def _paper_rows(paper: dict, topic: str, path: Path, where: str) -> tuple[dict, list[dict]]:
    pid = _need(paper, "paper_id", path, where)
    row = dict(paper_id=str(pid), topic=topic, title=_need(paper, "title", path, where),
               abstract=paper.get("abstract") or "", year=paper.get("year"), venue=paper.get("venue") or "",
               citation_count=paper.get("citation_count") or 0, tier=paper.get("tier", "fill"))
    auth = []
    for k, a in enumerate(_need(paper, "authors", path, where)):
        affs = a.get("affiliations") or []
        if not isinstance(affs, list):
            raise CorpusError(f"{path}: {where}.authors[{k}].affiliations must be a list (example: {a})")
        auth.append(dict(paper_id=str(pid), position=k + 1, name=_need(a, "name", path, f"{where}.authors[{k}]"),
                         h_index=float(a["h_index"]) if a.get("h_index") is not None else float("nan"),
                         affiliations=tuple(str(x) for x in affs)))
    return row, auth


#: Where the authority-bias release is published (paper footnote 1) and the code that wrote its files.
RELEASE_URL = "https://huggingface.co/datasets/uthmanjinadu/authority-bias-paper-recommendation"
CODE_URL = "https://github.com/jinaduuthman/Authority-Bias-In-Conversational-Search-Engine"
#: What :func:`load_released`, ``conditions_from_release`` and :func:`load_released_responses` read.
RELEASED_FILES = {
    "scholar_papers.json": "the 1,250 papers with authors and metadata (spec A.1)",
    "experiment_sets.json": "the 250 queries with their candidate sets under the three conditions (spec A.4)",
    "results/*.json": "the main-experiment responses (17,898 parsed runs; spec A.5)",
}
#: Optional: the 1:N pilot's runs (Tables 1, 16, 20 are rebuilt from them when present).
RELEASED_PILOT = "results/1n_pilot/1n_pilot_*.json"


def check_release(root: Path | str) -> list[str]:
    """Messages naming each file of the authority-bias release missing under ``root`` ([]: complete).

    Fast (reads no file): ``scholar_papers.json``, ``experiment_sets.json`` and at least one
    ``results/*.json`` that is not a ``1n_pilot`` file. Each message says what the file holds
    and where to get it (the dataset on Hugging Face, the layout of the code's ``data/`` folder).
    """
    root = Path(root)
    where = (f"download the authority-bias release ({RELEASE_URL}; the layout of the data/ folder that "
             f"{CODE_URL} writes) into {root}")
    if not root.is_dir():
        return [f"authority-bias release: {root / name} is missing (folder {root} does not exist): {what}; {where}"
                for name, what in RELEASED_FILES.items()]
    if not (root / "scholar_papers.json").is_file() and (root / "data" / "scholar_papers.json").is_file():
        return [f"authority-bias release: {root} holds the release one level down; set authority_dataset_dir "
                f"to {root / 'data'}"]
    out = []
    for name, what in RELEASED_FILES.items():
        if name == "results/*.json":
            if not any(p.is_file() and not p.name.startswith("1n_pilot") for p in (root / "results").glob("*.json")):
                out.append(f"authority-bias release: {root / name} is missing (no result file besides 1n_pilot "
                           f"ones): {what}; {where}")
        elif not (root / name).is_file():
            out.append(f"authority-bias release: {root / name} is missing: {what}; {where}")
    return out


def load_released(root: Path | str) -> PaperCorpus:
    """Load a released authority-bias dataset laid out as the reference pipeline writes it.

    Reads ``<root>/scholar_papers.json`` (``{topic: [paper]}``, spec A.1) and, if present,
    ``<root>/experiment_sets.json`` (``{topic: [{query_id, topic, query, candidates: {original:
    [10 papers], ...}}]}``, spec A.4) for the queries and the fixed candidate sets. Without
    experiment_sets.json the queries table is empty and candidate sets must be sampled.
    Every error names the file, the key and an example entry.
    """
    root = Path(root)
    path = root / "scholar_papers.json"
    data = _read_json(path)
    if not isinstance(data, dict):
        raise CorpusError(f"{path}: expected an object {{topic: [paper, ...]}}, got {type(data).__name__}")
    papers, authors = [], []
    for topic, plist in data.items():
        if not isinstance(plist, list):
            raise CorpusError(f"{path}: topic {topic!r} must map to a list of papers")
        for i, paper in enumerate(plist):
            r, a = _paper_rows(paper, topic, path, f"[{topic!r}][{i}]")
            papers.append(r)
            authors += a
    queries, cands = [], None
    sets_path = root / "experiment_sets.json"
    if sets_path.is_file():
        sets = _read_json(sets_path)
        cand_rows = []
        for topic, qlist in sets.items():
            for i, q in enumerate(qlist):
                where = f"[{topic!r}][{i}]"
                qid = _need(q, "query_id", sets_path, where)
                queries.append(dict(query_id=qid, topic=topic, query_index=i + 1, query=_need(q, "query", sets_path, where)))
                orig = _need(_need(q, "candidates", sets_path, where), "original", sets_path, where + ".candidates")
                for pos, paper in enumerate(orig):
                    cand_rows.append(dict(query_id=qid, position=pos + 1,
                                          paper_id=str(_need(paper, "paper_id", sets_path, f"{where}.candidates.original[{pos}]"))))
        cands = pd.DataFrame(cand_rows, columns=["query_id", "position", "paper_id"])
    return PaperCorpus(pd.DataFrame(papers, columns=list(PAPER_COLUMNS)), pd.DataFrame(authors, columns=list(AUTHOR_COLUMNS)),
                       pd.DataFrame(queries, columns=list(QUERY_COLUMNS)), cands, False, str(root))


#: Columns of a raw response table (what a collection run or a release gives, before labelling).
RAW_RESPONSE_COLUMNS = ("model", "instruction", "condition", "topic", "query_id", "response", "latency_s")


def load_released_responses(root: Path | str) -> pd.DataFrame:
    """Read the reference's result files ``<root>/results/*.json`` (lists of rows, spec A.5) as a raw response table.

    Files whose names start with ``1n_pilot`` are skipped like the reference does; later files
    overwrite earlier ones on the key (model, variant, query_id, condition). Returns
    :data:`RAW_RESPONSE_COLUMNS` plus the release's own ``recommended`` (its parsed choice).
    """
    root = Path(root) / "results"
    files = sorted(p for p in root.glob("*.json") if not p.name.startswith("1n_pilot"))
    if not files:
        raise CorpusError(f"{root}: no results_*.json files found")
    rows: dict[tuple, dict] = {}
    for f in files:
        data = _read_json(f)
        if isinstance(data, dict) and "results" in data:
            data = data["results"]
        if not isinstance(data, list):
            raise CorpusError(f"{f}: expected a list of result rows or {{metadata, results}}")
        for i, r in enumerate(data):
            where = f"row {i}"
            row = dict(model=_need(r, "model", f, where), instruction=_need(r, "variant", f, where),
                       condition=_need(r, "condition", f, where), topic=_need(r, "topic", f, where),
                       query_id=_need(r, "query_id", f, where), response=r.get("response") or "",
                       latency_s=r.get("elapsed_seconds"), recommended=r.get("recommended"))
            rows[(row["model"], row["instruction"], row["query_id"], row["condition"])] = row
    return pd.DataFrame(list(rows.values()))


#: The release's names of the pilot's raw components (spec A.6) -> the regression's (Eq. 3).
_PILOT_META = {"max_h": "max_h", "median_h": "median_h", "citations": "citations", "venue_score": "venue",
               "affiliation_score": "affiliation"}


def load_released_pilot(root: Path | str) -> pd.DataFrame | None:
    """The 1:N pilot's parsed runs from ``<root>/results/1n_pilot/1n_pilot_*.json`` (spec A.6), as regression rows.

    Each file is ``{metadata, results: [row]}`` with ``recommended_fixed_paper`` and the raw
    components the fixed card wore (``fixed_paper_wearing_meta``). Like the reference's analysis
    (spec A.7), only ``parse_success`` rows are kept. Returns the columns of
    :func:`lib.authority.pilot.pilot_rows` (topic, query, model, fixed_pos, source_pos,
    is_baseline, fixed_paper_id, source_paper_id, the five components, ``y``), or None when the
    release has no pilot file. Errors name the file, the row and the missing key.
    """
    folder = Path(root) / "results" / "1n_pilot"
    files = sorted(folder.glob("1n_pilot_*.json")) if folder.is_dir() else []
    if not files:
        return None
    out = []
    for f in files:
        data = _read_json(f)
        rows = _need(data, "results", f, "the file") if isinstance(data, dict) else data
        if not isinstance(rows, list):
            raise CorpusError(f"{f}: expected {{metadata, results: [row, ...]}}, got {type(rows).__name__}")
        for i, r in enumerate(rows):
            where = f"results[{i}]"
            if not _need(r, "parse_success", f, where):
                continue
            wear = _need(r, "fixed_paper_wearing_meta", f, where)
            comps = {ours: float(_need(wear, theirs, f, where + ".fixed_paper_wearing_meta"))
                     for theirs, ours in _PILOT_META.items()}
            out.append(dict(topic=_need(r, "topic", f, where), query=_need(r, "query", f, where),
                            model=_need(r, "model", f, where),
                            fixed_pos=int(_need(r, "fixed_paper_idx", f, where)) + 1,
                            source_pos=int(_need(r, "source_paper_idx", f, where)) + 1,
                            is_baseline=bool(_need(r, "is_baseline", f, where)),
                            fixed_paper_id=str(r.get("fixed_paper_id", "")), source_paper_id=str(r.get("source_paper_id", "")),
                            **comps, y=int(bool(_need(r, "recommended_fixed_paper", f, where)))))
    return pd.DataFrame(out)


def topics_table(corpus: PaperCorpus) -> pd.DataFrame:
    """Table 18 (ab-tab18): the topics, their paper and query counts, and the first query of each as the example."""
    q = corpus.queries.sort_values(["topic", "query_index"])
    first = q.groupby("topic", sort=False)["query"].first()
    n_q = q.groupby("topic").size()
    n_p = corpus.papers.groupby("topic").size()
    topics = corpus.topics
    return pd.DataFrame({"topic": topics, "papers": [int(n_p.get(t, 0)) for t in topics],
                         "queries": [int(n_q.get(t, 0)) for t in topics],
                         "example_query": [first.get(t, "") for t in topics]})
