"""The three counterfactual conditions and the per-query candidate sets (paper §4.4, §4.6; spec A.3–A.4).

Content (title, abstract, year) never changes; only authority metadata does:

* ``original``: authentic metadata;
* ``flipped``: within each topic the i-th most authoritative paper of the ``high`` bucket and
  the i-th of the ``low`` bucket exchange their whole author list, venue and citation count;
* ``boosted``: half of the ``mid`` bucket (those with at least one author of h-index > 0)
  receive elite metadata: citations × U{3..5}, every author an h-index in U{50..80} and one
  elite affiliation, and an A* venue.

A :class:`ConditionSet` holds, per condition, the metadata table (``condition, paper_id,
topic, venue, citation_count, bucket, swap_direction, swap_partner, boosted`` + the five raw
components ``raw_<dim>``, the five within-topic normalised components ``x_<dim>`` and ``composite``) and the long
authors table (``condition, paper_id, position, name, h_index, affiliations``).
"""
from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from lib.authority import scoring, tiers
from lib.authority.corpus import CorpusError, PaperCorpus, _read_json

CONDITIONS: tuple[str, ...] = ("original", "flipped", "boosted")
#: Candidates per citation stratum in each query's set of 10 (paper §4.6; spec A.4), taken in this order.
CANDIDATE_QUOTA: dict[str, int] = {"top": 3, "mid": 3, "low": 2, "emerging": 2}
CANDIDATE_SET_SIZE = 10


@dataclass(frozen=True)
class ConditionSet:
    """Metadata and authors of every paper in every condition, and the weights the composite used."""

    papers: pd.DataFrame
    authors: pd.DataFrame
    weights: dict[str, float]

    def condition(self, name: str) -> pd.DataFrame:
        if name not in CONDITIONS:
            raise ValueError(f"unknown condition {name!r}; expected one of {CONDITIONS}")
        return self.papers[self.papers["condition"] == name]


def _score(meta: pd.DataFrame, authors: pd.DataFrame, weights: Mapping[str, float], corrected: bool) -> pd.DataFrame:
    """Add raw (``raw_<dim>``) and within-topic normalised (``x_<dim>``) components and the composite."""
    raw = scoring.raw_components(meta, authors, corrected=corrected)
    norm = scoring.normalize_within_topic(raw.merge(meta[["paper_id", "topic"]], on="paper_id"), corrected=corrected)
    norm["composite"] = scoring.composite(norm, weights)
    stale = [f"{p}{d}" for p in ("raw_", "x_") for d in scoring.DIMENSIONS] + ["composite"]
    out = meta.drop(columns=[c for c in stale if c in meta.columns])
    out = out.merge(raw[["paper_id", *scoring.DIMENSIONS]].rename(columns={d: f"raw_{d}" for d in scoring.DIMENSIONS}),
                    on="paper_id")
    return out.merge(norm[["paper_id", *scoring.DIMENSIONS, "composite"]].rename(
        columns={d: f"x_{d}" for d in scoring.DIMENSIONS}), on="paper_id")


def build_conditions(corpus: PaperCorpus, *, weights: Mapping[str, float] | None = None, seed: int = 42,
                     corrected: bool = False) -> ConditionSet:
    """Build the original, flipped and boosted metadata of every paper (reference ``generate_conditions.py``).

    Buckets come from the original composite under ``weights`` (default: equal weights, the
    reference's pre-pilot default). Flipped pairs high rank i with low rank i (rank 0 ↔ 38, …,
    11 ↔ 49 for 50 papers). Boosting draws from one stream per topic seeded from (seed, topic),
    so the boosted papers do not depend on which other topics are built. Composites are
    recomputed within each condition, with the min–max re-done on the manipulated topic list.
    ``corrected`` is passed to the scoring functions (venue/affiliation/normalisation quirks).
    Python's ``random`` stream of the reference is not reproduced (the inputs differ anyway).
    """
    w = scoring.check_weights(weights or scoring.UNIFORM_WEIGHTS)
    meta0 = corpus.papers[["paper_id", "topic", "venue", "citation_count"]].copy()
    meta0["citation_count"] = pd.to_numeric(meta0["citation_count"]).astype(int)
    auth0 = corpus.authors[["paper_id", "position", "name", "h_index", "affiliations"]].copy()
    orig = _score(meta0, auth0, w, corrected)
    orig["bucket"] = orig.groupby("topic", group_keys=False)["composite"].apply(scoring.authority_buckets)
    orig = orig.assign(swap_direction="unchanged", swap_partner=None, boosted=False)
    buckets = orig.set_index("paper_id")["bucket"]

    # flipped: swap authors, venue, citations between high rank i and low rank i
    flip_meta, flip_auth = orig[["paper_id", "topic", "venue", "citation_count"]].copy(), auth0.copy()
    flip_meta = flip_meta.assign(swap_direction="unchanged", swap_partner=None)
    partner: dict[str, str] = {}
    for _, g in orig.groupby("topic", sort=False):
        ranked = g.sort_values("composite", ascending=False, kind="stable")
        high = ranked[ranked["bucket"] == "high"]["paper_id"].tolist()
        low = ranked[ranked["bucket"] == "low"]["paper_id"].tolist()
        for a, b in zip(high, low):
            partner[a], partner[b] = b, a
    src = flip_meta.set_index("paper_id")
    swapped = flip_meta["paper_id"].isin(partner.keys())
    source_id = flip_meta["paper_id"].map(lambda p: partner.get(p, p))
    for col in ("venue", "citation_count"):
        flip_meta[col] = src.loc[source_id, col].to_numpy()
    flip_meta["swap_partner"] = source_id.where(swapped, None)
    flip_meta["swap_direction"] = np.where(~swapped, "unchanged", np.where(
        flip_meta["paper_id"].map(buckets) == "high", "high_got_low_metadata", "low_got_high_metadata"))
    flip_auth["paper_id"] = flip_auth["paper_id"].map(lambda p: partner.get(p, p))
    flipped = _score(flip_meta, flip_auth, w, corrected).assign(boosted=False)
    flipped["bucket"] = flipped["paper_id"].map(buckets)

    # boosted: half the mid bucket (with an author of h > 0) receives elite metadata
    bm = orig[["paper_id", "topic", "venue", "citation_count"]].copy().set_index("paper_id")
    bm["original_venue"] = bm["venue"]
    bm["original_citation_count"] = bm["citation_count"]
    venue, cites, boosted_ids = bm["venue"].to_dict(), bm["citation_count"].to_dict(), set()
    ba = auth0.copy()
    rows_of = ba.groupby("paper_id").indices
    h_new, aff_new = ba["h_index"].to_numpy(dtype=float).copy(), ba["affiliations"].to_numpy(dtype=object).copy()
    has_h = set(ba.loc[pd.to_numeric(ba["h_index"], errors="coerce").fillna(0) > 0, "paper_id"])
    for topic in dict.fromkeys(corpus.papers["topic"]):
        rng = np.random.default_rng([seed, zlib.crc32(topic.encode())])
        mid = orig[(orig["topic"] == topic) & (orig["bucket"] == "mid")]["paper_id"].tolist()
        cand = [p for p in mid if p in has_h]
        chosen = list(rng.choice(cand, size=min(len(cand), len(mid) // 2), replace=False)) if cand else []
        for pid in chosen:
            boosted_ids.add(pid)
            cites[pid] = int(max(cites[pid], 1) * rng.integers(3, 6))
            for r in rows_of.get(pid, []):
                h_new[r] = float(rng.integers(50, 81))
                aff_new[r] = (str(rng.choice(tiers.BOOST_AFFILIATIONS)),)
            if venue[pid] and venue[pid] not in tiers.BOOST_VENUES:
                venue[pid] = str(rng.choice(tiers.BOOST_VENUES))
    ba["h_index"], ba["affiliations"] = h_new, aff_new
    bm["venue"] = bm.index.map(venue)
    bm["citation_count"] = bm.index.map(cites).astype(int)
    bm["boosted"] = bm.index.isin(list(boosted_ids))
    boosted = _score(bm.reset_index(), ba, w, corrected).assign(swap_direction="unchanged", swap_partner=None)
    boosted["bucket"] = boosted["paper_id"].map(buckets)

    papers = pd.concat([orig.assign(condition="original"), flipped.assign(condition="flipped"),
                        boosted.assign(condition="boosted")], ignore_index=True)
    front = ["condition", "paper_id", "topic", "venue", "citation_count", "bucket", "swap_direction", "swap_partner", "boosted"]
    papers = papers[front + [c for c in papers.columns if c not in front]]
    authors = pd.concat([auth0.assign(condition="original"), flip_auth.assign(condition="flipped"),
                         ba.assign(condition="boosted")], ignore_index=True)
    authors = authors.sort_values(["condition", "paper_id", "position"], kind="stable").reset_index(drop=True)
    return ConditionSet(papers.reset_index(drop=True), authors[["condition", "paper_id", "position", "name", "h_index",
                                                                 "affiliations"]], w)


def _query_rng(seed: int, query_id: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(query_id.encode())])


def build_candidate_sets(corpus: PaperCorpus, *, seed: int = 42) -> pd.DataFrame:
    """Ten candidates per query in display order (paper §4.6; reference ``generate_experiment_sets.py``, spec A.4).

    For each query: per citation stratum in the order top, mid, low, emerging, shuffle that
    stratum's papers and take the quota (3, 3, 2, 2); fill up from the rest of the topic if a
    stratum is short; then shuffle the ten once. That order is the display order, held across
    all conditions, so a change between conditions cannot come from position. Each query draws
    from its own stream seeded from (seed, query_id). If the corpus carries released candidate
    sets they are returned unchanged.

    Returns ``query_id, topic, query, position`` (1..10) ``, paper_id, tier``.
    """
    if corpus.candidates is not None:
        out = corpus.candidates.merge(corpus.queries[["query_id", "topic", "query"]], on="query_id")
        out = out.merge(corpus.papers[["paper_id", "tier"]], on="paper_id")
        return out[["query_id", "topic", "query", "position", "paper_id", "tier"]].sort_values(
            ["query_id", "position"]).reset_index(drop=True)
    rows = []
    by_topic = {t: g for t, g in corpus.papers.groupby("topic", sort=False)}
    for q in corpus.queries.itertuples(index=False):
        rng = _query_rng(seed, q.query_id)
        papers = by_topic[q.topic]
        chosen: list[str] = []
        for tier, k in CANDIDATE_QUOTA.items():
            pool = papers.loc[papers["tier"] == tier, "paper_id"].tolist()
            rng.shuffle(pool)
            chosen += [p for p in pool if p not in chosen][:k]
        if len(chosen) < CANDIDATE_SET_SIZE:
            rest = [p for p in papers["paper_id"] if p not in chosen]
            rng.shuffle(rest)
            chosen += rest[:CANDIDATE_SET_SIZE - len(chosen)]
        rng.shuffle(chosen)
        tier_of = papers.set_index("paper_id")["tier"]
        rows += [dict(query_id=q.query_id, topic=q.topic, query=q.query, position=i + 1, paper_id=p, tier=tier_of[p])
                 for i, p in enumerate(chosen)]
    return pd.DataFrame(rows, columns=["query_id", "topic", "query", "position", "paper_id", "tier"])


def condition_counts(conditions: ConditionSet) -> pd.DataFrame:
    """Table 2 (ab-tab2): what each condition changes, with per-topic and total paper counts.

    Counts come from the built conditions: papers whose metadata differ from the original
    (swapped pairs in flipped, boosted papers in boosted), per topic (min–max over topics) and in total.
    """
    p = conditions.papers
    n_topics = p["topic"].nunique()
    changed = {
        "original": p[(p["condition"] == "original")].assign(x=False),
        "flipped": p[p["condition"] == "flipped"].assign(x=lambda d: d["swap_direction"] != "unchanged"),
        "boosted": p[p["condition"] == "boosted"].assign(x=lambda d: d["boosted"].astype(bool)),
    }
    what = {
        "original": "authentic metadata (control)",
        "flipped": "high-bucket rank i and low-bucket rank i exchange authors, venue and citations",
        "boosted": "mid-bucket papers get elite metadata (h-index 50-80, elite affiliation, A* venue, citations x3-5)",
    }
    tests = {"original": "each item's own control", "flipped": "do models follow metadata over content?",
             "boosted": "are models attracted to inflated prestige?"}
    rows = []
    for c in CONDITIONS:
        d = changed[c]
        per_topic = d.groupby("topic")["x"].sum()
        rows.append(dict(condition=c, manipulation=what[c], tests=tests[c], topics=n_topics,
                         papers=len(d), papers_changed=int(d["x"].sum()),
                         changed_per_topic_min=int(per_topic.min()), changed_per_topic_max=int(per_topic.max()),
                         content_changed=0))
    return pd.DataFrame(rows)


def worked_example(corpus: PaperCorpus, conditions: ConditionSet, candidates: pd.DataFrame,
                   query_id: str | None = None) -> pd.DataFrame:
    """Table 14 (ab-tab14): one candidate set under the manipulations (paper Appendix A.3).

    Picks the first query (or ``query_id``) whose ten candidates hold both papers of a flipped
    pair (A from the high bucket, B its low partner) and a boosted paper C, and shows for each the
    venue, citations, maximum h-index and composite under original and under its manipulation.
    Titles and abstracts are identical across conditions by construction.
    """
    meta = conditions.papers.set_index(["condition", "paper_id"])
    flipped = conditions.condition("flipped")
    partner = dict(zip(flipped["paper_id"], flipped["swap_partner"]))
    boosted = set(conditions.condition("boosted").query("boosted")["paper_id"])
    bucket = dict(zip(flipped["paper_id"], flipped["bucket"]))
    qids = [query_id] if query_id else list(dict.fromkeys(candidates["query_id"]))
    for qid in qids:
        ids = list(candidates.loc[candidates["query_id"] == qid].sort_values("position")["paper_id"])
        a = next((p for p in ids if bucket.get(p) == "high" and partner.get(p) in ids), None)
        c = next((p for p in ids if p in boosted), None)
        if a and c:
            break
    else:
        raise ValueError(f"worked_example: no query among {len(qids)} has a flipped pair and a boosted paper in its set")
    title = corpus.papers.set_index("paper_id")["title"]
    query = corpus.queries.set_index("query_id").loc[qid, "query"]
    rows = []
    for label, pid, manip in (("A", a, "flipped"), ("B", partner[a], "flipped"), ("C", c, "boosted")):
        for cond in ("original", manip):
            m = meta.loc[(cond, pid)]
            rows.append(dict(query_id=qid, query=query, paper=label, title=title[pid], condition=cond, venue=m["venue"],
                             citations=int(m["citation_count"]), max_h=int(m["raw_max_h"]),
                             composite=float(m["composite"])))
    return pd.DataFrame(rows)


def conditions_from_release(root: Path | str) -> ConditionSet:
    """The released condition metadata, as stored in ``<root>/experiment_sets.json`` (spec A.3–A.4).

    Each candidate object of each condition carries its venue, citations, authors, ``boosted``
    flag, ``swap_direction`` and ``authority_components`` (normalised components and composite,
    computed by the release with its own weights); they are taken as stored, so the direction
    analysis uses the release's composites. Raw components are recomputed from the metadata.
    The release does not store the weights or the buckets: ``weights`` is empty and ``bucket``
    is derived from ``swap_direction`` where it says high/low (``mid`` otherwise).
    """
    path = Path(root) / "experiment_sets.json"
    sets = _read_json(path)
    meta, auth, seen = [], [], set()
    for topic, qlist in sets.items():
        for i, q in enumerate(qlist):
            for cond in CONDITIONS:
                for k, p in enumerate(q.get("candidates", {}).get(cond, [])):
                    key = (cond, str(p.get("paper_id")))
                    if key in seen:
                        continue
                    seen.add(key)
                    comp = p.get("authority_components")
                    if not isinstance(comp, dict) or "composite" not in comp:
                        raise CorpusError(f"{path}: [{topic!r}][{i}].candidates.{cond}[{k}] lacks "
                                          f"authority_components.composite (example: {str(p)[:200]})")
                    swap = p.get("swap_direction", "unchanged")
                    meta.append(dict(condition=cond, paper_id=key[1], topic=topic, venue=p.get("venue") or "",
                                     citation_count=int(p.get("citation_count") or 0),
                                     bucket={"high_got_low_metadata": "high", "low_got_high_metadata": "low"}.get(swap, "mid"),
                                     swap_direction=swap, swap_partner=None, boosted=bool(p.get("boosted", False)),
                                     **{f"x_{d}": float(comp.get(d, float("nan"))) for d in scoring.DIMENSIONS},
                                     composite=float(comp["composite"])))
                    for j, a in enumerate(p.get("authors") or []):
                        auth.append(dict(condition=cond, paper_id=key[1], position=j + 1, name=a.get("name", ""),
                                         h_index=float(a["h_index"]) if a.get("h_index") is not None else float("nan"),
                                         affiliations=tuple(a.get("affiliations") or ())))
    papers = pd.DataFrame(meta)
    authors = pd.DataFrame(auth, columns=["condition", "paper_id", "position", "name", "h_index", "affiliations"])
    # the release stores no partner id: a swapped paper's partner is the swapped paper of the same topic
    # whose original venue and citations it now shows
    orig = papers[papers["condition"] == "original"].set_index("paper_id")
    flip = papers["condition"] == "flipped"
    swapped = set(papers.loc[flip & (papers["swap_direction"] != "unchanged"), "paper_id"])
    shown = {(r.topic, r.venue, r.citation_count): r.paper_id for r in orig.reset_index().itertuples()
             if r.paper_id in swapped}
    papers.loc[flip, "swap_partner"] = [shown.get((t, v, c)) if p in swapped else None for t, v, c, p in
                                        papers.loc[flip, ["topic", "venue", "citation_count", "paper_id"]].itertuples(index=False)]
    raw = pd.concat([scoring.raw_components(papers[papers["condition"] == c], authors[authors["condition"] == c])
                     .assign(condition=c) for c in CONDITIONS if (papers["condition"] == c).any()])
    raw = raw.rename(columns={d: f"raw_{d}" for d in scoring.DIMENSIONS})
    papers = papers.merge(raw[["condition", "paper_id", *[f"raw_{d}" for d in scoring.DIMENSIONS]]],
                          on=["condition", "paper_id"], how="left")
    return ConditionSet(papers, authors, {})
