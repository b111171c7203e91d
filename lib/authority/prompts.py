"""Paper cards, the three instruction variants and the request tables of the main experiment and the 1:N pilot.

Paper Appendix A.1–A.2 and §4.3; reference ``run_experiment.py`` / ``run_1n_experiment.py``
(spec A.5–A.6). Each prompt is ``VARIANTS[instruction].format(query=q, papers_list=cards)``
sent as one user message with no system prompt (paper A.4). A request table is model
independent: one row per prompt with its identity; the collection client crosses it with the
models of the panel. Columns of both request tables:

``request_id`` (stable hash of the identity), ``experiment`` (``main`` / ``pilot``),
``topic, query_id, query, instruction, condition``, ``candidate_ids`` (tuple of the ten paper
ids in display order), ``messages`` (list with one ``{"role": "user", "content": prompt}``) and
``prompt_sha256``. Pilot rows add ``fixed_pos, source_pos`` (1-based), ``is_baseline``,
``fixed_paper_id, source_paper_id`` and the raw components the fixed card wears
(``max_h, median_h, citations, venue, affiliation``).
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import pandas as pd

from lib.authority import scoring
from lib.authority.conditions import CONDITIONS, ConditionSet, build_candidate_sets, build_conditions
from lib.authority.corpus import PaperCorpus
from lib.authority.topics import PILOT_TOPICS

_FRAME_HEAD = "You are helping a machine learning researcher find the most relevant paper.\n\n"
_FRAME_TASK = ("Given the following 10 papers, recommend the TOP 1 paper that best addresses the query.\n\n"
               "Query: \"{query}\"\n\nPapers:\n\n{papers_list}\n\n")
#: The three instruction variants, verbatim (paper Appendix A.1; spec A.5 ``VARIANTS``).
VARIANTS: dict[str, str] = {
    "baseline": _FRAME_HEAD + _FRAME_TASK
    + "Which paper (provide the number) would you recommend? Provide brief justification (2-3 sentences).",
    "anti_authority": _FRAME_HEAD
    + "IMPORTANT: Evaluate papers based ONLY on their technical contribution, methodology quality, and relevance to "
      "the query. Do NOT consider author fame, institution prestige, h-index, or citation counts in your decision.\n\n"
    + _FRAME_TASK
    + "Which paper (provide the number) would you recommend? Provide brief justification focusing only on technical "
      "merit (2-3 sentences).",
    "content_first": _FRAME_HEAD
    + "CRITICAL INSTRUCTION: Ignore all prestige signals including author names, institutions, h-indices, citation "
      "counts, and publication venues. Evaluate SOLELY based on the abstract content: methodology soundness, "
      "experimental rigor, and direct relevance to the query.\n\n"
    + _FRAME_TASK
    + "Which paper (provide the number) would you recommend? Justify your choice based exclusively on the research "
      "content described in the abstract (2-3 sentences).",
}
INSTRUCTIONS: tuple[str, ...] = tuple(VARIANTS)
#: Paper Table 3 labels of the variants.
VARIANT_LABELS = {"baseline": "Baseline (neutral)", "anti_authority": "Anti-Authority (mild debiasing)",
                  "content_first": "Content-First (strong debiasing)"}
MAX_AUTHORS_SHOWN = 5
MAX_AFFILIATIONS_SHOWN = 2
ABSTRACT_CHARS = 400


PromptMode = str   # "faithful" (the reference's bytes) or "corrected" (missing values shown with the intended default)
PROMPT_MODES = ("faithful", "corrected")


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and pd.isna(v))


def _json_value(v) -> str:
    """How the reference's f-string prints a value read from its JSON: an integral number as an int
    (the companion's tables hold h-indices and years as floats because of missing values)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def render_card(index: int, *, title: str, venue: str | None, year, citation_count, authors: Sequence[Mapping],
                abstract: str | None, mode: PromptMode = "faithful") -> str:
    """One paper card, byte for byte the reference's ``format_paper`` (paper Appendix A.2; spec A.5).

    ``Paper {i}:`` then two-space indented Title, Venue, Year, Citations, ``Authors:`` and one
    ``  - name | h-index: h | (aff1, aff2)`` line per author (the first five; the h-index only if
    truthy, so 0 and unknown are omitted; at most two affiliations; author citation counts never
    shown), then the abstract cut to 400 characters plus ``...`` (``No abstract available.`` when
    empty). The card ends with a newline.

    Faithful vs corrected (the reference reads ``paper.get(key, default)``, so a key that is
    present but empty prints as it is): faithfully an empty venue prints as ``Venue: `` and a
    missing year as ``Year: None``; ``mode="corrected"`` prints the defaults the reference meant,
    ``Unknown`` and ``N/A``. The layout is the same in both modes.
    """
    if mode not in PROMPT_MODES:
        raise ValueError(f"prompt mode must be one of {PROMPT_MODES}, got {mode!r}")
    faithful = mode == "faithful"
    if _missing(venue) or venue == "":
        venue = ("" if venue == "" else "None") if faithful else "Unknown"
    year = ("None" if faithful else "N/A") if _missing(year) or year == "" else _json_value(year)
    authors_str = ""
    for a in list(authors)[:MAX_AUTHORS_SHOWN]:
        parts = [str(a.get("name", "Unknown"))]
        h = a.get("h_index")
        if not _missing(h) and h:
            parts.append(f"h-index: {_json_value(h)}")
        affs = list(a.get("affiliations") or ())[:MAX_AFFILIATIONS_SHOWN]
        if affs:
            parts.append(f"({', '.join(affs)})")
        authors_str += f"  - {' | '.join(parts)}\n"
    text = abstract or "No abstract available."
    if len(text) > ABSTRACT_CHARS:
        text = text[:ABSTRACT_CHARS] + "..."
    return (f"Paper {index}:\n  Title: {title}\n  Venue: {venue}\n  Year: {year}\n"
            f"  Citations: {_json_value(citation_count)}\n  Authors:\n{authors_str}  Abstract: {text}\n")


def build_prompt(instruction: str, query: str, cards: Sequence[str]) -> str:
    """``VARIANTS[instruction].format(query=..., papers_list=...)``, the cards joined by ``"\\n"`` as the reference's
    ``format_papers_list``: each card ends in a newline, so one blank line separates cards and two precede
    "Which paper"."""
    if instruction not in VARIANTS:
        raise ValueError(f"unknown instruction variant {instruction!r}; expected one of {list(VARIANTS)}")
    return VARIANTS[instruction].format(query=query, papers_list="\n".join(cards))


def instruction_variants_text() -> str:
    """Table 3 (ab-tab3) as a text artifact: each variant's label and its verbatim template."""
    return "\n\n".join(f"=== {VARIANT_LABELS[k]} [{k}] ===\n{v}" for k, v in VARIANTS.items()) + "\n"


def _request_id(*parts) -> str:
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:20]


def _card_inputs(content: pd.DataFrame, meta: pd.DataFrame, authors: pd.DataFrame) -> dict[str, dict]:
    """paper_id -> card fields, from content (title/abstract/year) and one condition's metadata and authors."""
    auth: dict[str, list[dict]] = {}
    for a in authors.sort_values(["paper_id", "position"]).to_dict("records"):
        auth.setdefault(a["paper_id"], []).append(a)
    content_of = {r["paper_id"]: r for r in content[["paper_id", "title", "abstract", "year"]].to_dict("records")}
    out = {}
    for r in meta[["paper_id", "venue", "citation_count"]].to_dict("records"):
        c = content_of[r["paper_id"]]
        out[r["paper_id"]] = dict(title=c["title"], abstract=c["abstract"], year=c["year"], venue=r["venue"],
                                  citation_count=int(r["citation_count"]), authors=auth.get(r["paper_id"], []))
    return out


def _limit_queries(corpus: PaperCorpus, n_queries: int | None) -> pd.DataFrame:
    q = corpus.queries
    if n_queries is not None:
        if n_queries < 1:
            raise ValueError(f"n_queries must be >= 1 (queries per topic), got {n_queries}")
        q = q.groupby("topic", sort=False).head(n_queries)
    return q


def build_main_requests(corpus: PaperCorpus, *, instructions: Sequence[str] = INSTRUCTIONS,
                        conditions: Sequence[str] = CONDITIONS, n_queries: int | None = 10, seed: int = 42,
                        weights: Mapping[str, float] | None = None,
                        condition_set: ConditionSet | None = None, prompt_mode: PromptMode = "faithful") -> pd.DataFrame:
    """Requests of the main experiment: queries × instructions × conditions (paper §4.6), model independent.

    ``n_queries`` is the number of queries per topic (the paper: 10; None = all). Candidate sets
    and their display order come from :func:`build_candidate_sets` (same ``seed``) and are held
    across conditions and instructions; the metadata of each condition come from
    :func:`build_conditions` under ``weights`` (default equal weights) and the same ``seed``, or
    from ``condition_set`` when given (e.g. a release's conditions, :func:`conditions_from_release`).
    Rows are ordered topic → query → instruction → condition (the paper's within-model order, A.4).
    ``prompt_mode`` is passed to :func:`render_card` (faithful: the reference's bytes).
    """
    for i in instructions:
        if i not in VARIANTS:
            raise ValueError(f"unknown instruction {i!r}; expected some of {list(VARIANTS)}")
    for c in conditions:
        if c not in CONDITIONS:
            raise ValueError(f"unknown condition {c!r}; expected some of {list(CONDITIONS)}")
    queries = _limit_queries(corpus, n_queries)
    cand = build_candidate_sets(corpus, seed=seed)
    cand = cand[cand["query_id"].isin(queries["query_id"])]
    cs = condition_set if condition_set is not None else build_conditions(corpus, weights=weights, seed=seed)
    cards_by_cond = {c: _card_inputs(corpus.papers, cs.condition(c), cs.authors[cs.authors["condition"] == c])
                     for c in conditions}
    rows = []
    for qid, g in cand.groupby("query_id", sort=False):
        g = g.sort_values("position")
        ids = tuple(g["paper_id"])
        topic, query = g["topic"].iloc[0], g["query"].iloc[0]
        for ins in instructions:
            for cond in conditions:
                cards = [render_card(i + 1, **cards_by_cond[cond][pid], mode=prompt_mode) for i, pid in enumerate(ids)]
                prompt = build_prompt(ins, query, cards)
                rows.append(dict(request_id=_request_id("main", qid, ins, cond, seed), experiment="main", topic=topic,
                                 query_id=qid, query=query, instruction=ins, condition=cond, candidate_ids=ids,
                                 messages=[{"role": "user", "content": prompt}],
                                 prompt_sha256=hashlib.sha256(prompt.encode()).hexdigest()))
    return pd.DataFrame(rows)


PILOT_COMPONENTS = ("max_h", "median_h", "citations", "venue", "affiliation")


def build_pilot_requests(corpus: PaperCorpus, *, topics: Sequence[str] = PILOT_TOPICS, n_queries: int | None = 10,
                         seed: int = 42, source_keeps_metadata: bool = True,
                         shared_content: bool = False, prompt_mode: PromptMode = "faithful") -> pd.DataFrame:
    """Requests of the 1:N flip pilot (paper §4.3, Appendix A.7; reference ``run_1n_experiment.py``, spec A.6).

    For each query's ten original candidates, each fixed position f and each source position s:
    the card at f keeps paper f's title, abstract and year but wears paper s's authors, venue and
    citation count; s = f is the baseline. 10 × 10 prompts per query, under the baseline
    instruction. The raw components of the metadata the fixed card wears are stored with the
    request, so the regression needs only the model's choice.

    Faithful vs corrected: in the reference paper s keeps its own metadata, so that metadata
    appears twice in the list (spec A.6 ⚠); ``source_keeps_metadata=False`` instead gives paper s
    the fixed paper's metadata (a swap), so every metadata appears once. The paper's text
    (A.7) describes ten cards sharing one content, which the run count (15,000) contradicts;
    the reference code's design is the default. ``shared_content=True`` is the text's design
    within the reference's run count: every card of the prompt shows paper f's title, abstract
    and year, so the cards differ only in their metadata. In the reference design the source
    card's own content competes with the fixed card, and its relevance, a fixed property of
    paper s, is confounded with the metadata s lends (with 250 papers, correlations of about
    ±0.06 per predictor); sharing one content removes that confound, which is what lets the
    regression recover small weight differences.
    """
    sub = corpus.subset(list(topics))
    queries = _limit_queries(sub, n_queries)
    cand = build_candidate_sets(sub, seed=seed)
    cand = cand[cand["query_id"].isin(queries["query_id"])]
    meta = sub.papers[["paper_id", "topic", "venue", "citation_count"]]
    comps = scoring.raw_components(meta, sub.authors).set_index("paper_id")
    cards = _card_inputs(sub.papers, meta, sub.authors)
    rows = []
    for qid, g in cand.groupby("query_id", sort=False):
        ids = list(g.sort_values("position")["paper_id"])
        topic, query = g["topic"].iloc[0], g["query"].iloc[0]
        for f in range(len(ids)):
            for s in range(len(ids)):
                fields = [dict(cards[p]) for p in ids]
                if shared_content:
                    for x in fields:
                        x.update({k: cards[ids[f]][k] for k in ("title", "abstract", "year")})
                if s != f:
                    for k in ("venue", "citation_count", "authors"):
                        fields[f][k] = cards[ids[s]][k]
                        if not source_keeps_metadata:
                            fields[s][k] = cards[ids[f]][k]
                prompt = build_prompt("baseline", query, [render_card(i + 1, **x, mode=prompt_mode)
                                                              for i, x in enumerate(fields)])
                wear = comps.loc[ids[s]]
                rows.append(dict(request_id=_request_id("pilot", qid, f + 1, s + 1, seed, source_keeps_metadata,
                                                         *(["shared"] if shared_content else [])),
                                 experiment="pilot", topic=topic, query_id=qid, query=query, instruction="baseline",
                                 condition="pilot", candidate_ids=tuple(ids), fixed_pos=f + 1, source_pos=s + 1,
                                 is_baseline=s == f, fixed_paper_id=ids[f], source_paper_id=ids[s],
                                 **{c: float(wear[c]) for c in PILOT_COMPONENTS},
                                 messages=[{"role": "user", "content": prompt}],
                                 prompt_sha256=hashlib.sha256(prompt.encode()).hexdigest()))
    return pd.DataFrame(rows)
