"""Conditions (flip pairing, boosting), candidate sets, prompts and the request tables."""
import numpy as np
import pytest

from lib.authority import tiers
from lib.authority.conditions import build_candidate_sets, build_conditions, condition_counts, worked_example
from lib.authority.corpus import synthetic_corpus
from lib.authority.prompts import (VARIANTS, build_main_requests, build_pilot_requests, instruction_variants_text,
                                   render_card)

TOPICS = ["Knowledge Distillation", "Sentiment Analysis"]


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(42, topics=TOPICS)


@pytest.fixture(scope="module")
def conds(corpus):
    return build_conditions(corpus, seed=42)


def test_flip_pairs_swap_metadata_and_composites(corpus, conds):
    o = conds.condition("original").set_index("paper_id")
    f = conds.condition("flipped").set_index("paper_id")
    swapped = f[f["swap_direction"] != "unchanged"]
    assert len(swapped) == 24 * len(TOPICS)
    for pid, row in swapped.iterrows():
        b = row["swap_partner"]
        assert {o.loc[pid, "bucket"], o.loc[b, "bucket"]} == {"high", "low"}
        assert row["venue"] == o.loc[b, "venue"] and row["citation_count"] == o.loc[b, "citation_count"]
        # the topic's min and max are unchanged by a swap, so composites swap exactly
        assert row["composite"] == pytest.approx(o.loc[b, "composite"])
    unchanged = f[f["swap_direction"] == "unchanged"].index
    assert (f.loc[unchanged, "venue"] == o.loc[unchanged, "venue"]).all()
    # rank i of high pairs with rank i of low
    t = o[o["topic"] == TOPICS[0]].sort_values("composite", ascending=False, kind="stable")
    assert f.loc[t.index[0], "swap_partner"] == t.index[38] and f.loc[t.index[11], "swap_partner"] == t.index[49]
    fa = conds.authors[conds.authors["condition"] == "flipped"]
    oa = conds.authors[conds.authors["condition"] == "original"]
    a_id = swapped.index[0]
    assert list(fa.loc[fa["paper_id"] == a_id, "name"]) == list(oa.loc[oa["paper_id"] == swapped.loc[a_id, "swap_partner"], "name"])


def test_boosted_half_of_mid_get_elite_metadata(conds):
    b = conds.condition("boosted")
    o = conds.condition("original").set_index("paper_id")
    boosted = b[b["boosted"]]
    assert (boosted.groupby("topic").size() == 13).all()
    assert (boosted["bucket"] == "mid").all()
    assert boosted["venue"].isin(tiers.BOOST_VENUES).all()
    ratio = boosted["citation_count"].to_numpy() / np.maximum(o.loc[boosted["paper_id"], "citation_count"].to_numpy(), 1)
    assert set(np.round(ratio).astype(int)) <= {3, 4, 5}
    ba = conds.authors[(conds.authors["condition"] == "boosted") & conds.authors["paper_id"].isin(boosted["paper_id"])]
    assert ba["h_index"].between(50, 80).all()
    assert ba["affiliations"].map(lambda a: len(a) == 1 and a[0] in tiers.BOOST_AFFILIATIONS).all()
    assert (boosted["composite"].to_numpy() > o.loc[boosted["paper_id"], "composite"].to_numpy()).mean() > 0.9


def test_condition_counts_table(conds):
    t = condition_counts(conds).set_index("condition")
    assert t.loc["flipped", "papers_changed"] == 48 and t.loc["boosted", "papers_changed"] == 26
    assert t.loc["original", "papers_changed"] == 0 and (t["content_changed"] == 0).all()


def test_conditions_deterministic_and_weight_dependent(corpus, conds):
    again = build_conditions(corpus, seed=42)
    assert again.papers.equals(conds.papers)
    venue_only = build_conditions(corpus, seed=42, weights={"venue": 1, "median_h": 0, "max_h": 0, "citations": 0,
                                                            "affiliation": 0})
    assert not venue_only.papers["bucket"].equals(conds.papers["bucket"])


def test_candidate_sets_quota_and_seeded_order(corpus):
    c = build_candidate_sets(corpus, seed=42)
    assert (c.groupby("query_id").size() == 10).all()
    quota = c.groupby(["query_id", "tier"]).size().unstack()
    assert (quota["top"] == 3).all() and (quota["mid"] == 3).all() and (quota["low"] == 2).all() and (quota["emerging"] == 2).all()
    assert c.equals(build_candidate_sets(corpus, seed=42))
    assert not c["paper_id"].equals(build_candidate_sets(corpus, seed=1)["paper_id"])
    # the order is not sorted by tier: display order is shuffled once per query
    assert c.groupby("query_id")["tier"].apply(lambda s: list(s) != sorted(s)).any()


def test_worked_example_swaps_composites(corpus, conds):
    ex = worked_example(corpus, conds, build_candidate_sets(corpus, seed=42)).set_index(["paper", "condition"])
    assert ex.loc[("A", "flipped"), "composite"] == pytest.approx(ex.loc[("B", "original"), "composite"])
    assert ex.loc[("A", "original"), "composite"] > ex.loc[("A", "flipped"), "composite"]
    assert ex.loc[("C", "boosted"), "composite"] > ex.loc[("C", "original"), "composite"]


def test_render_card_format():
    authors = [{"name": f"N{i}", "h_index": h, "affiliations": ("U1", "U2", "U3")}
               for i, h in enumerate([5.0, 0, None, 7, 8, 9])]
    card = render_card(3, title="T", venue="", year=None, citation_count=12, authors=authors, abstract="x" * 450)
    assert card.endswith("\n")                                        # every card ends in a newline
    lines = card.split("\n")[:-1]
    # faithful: a present-but-empty venue prints empty, a missing year as Python's None (paper.get(key, default))
    assert lines[:6] == ["Paper 3:", "  Title: T", "  Venue: ", "  Year: None", "  Citations: 12", "  Authors:"]
    assert lines[6] == "  - N0 | h-index: 5 | (U1, U2)"            # two affiliations at most; 5.0 prints as 5
    assert lines[7] == "  - N1 | (U1, U2)"                           # h-index 0 is not shown
    assert lines[8] == "  - N2 | (U1, U2)"                           # unknown h-index is not shown
    assert sum(l.startswith("  - ") for l in lines) == 5               # first five authors only
    assert lines[-1] == "  Abstract: " + "x" * 400 + "..."
    corrected = render_card(3, title="T", venue="", year=None, citation_count=12, authors=authors, abstract="",
                            mode="corrected").split("\n")
    assert corrected[2:4] == ["  Venue: Unknown", "  Year: N/A"]
    assert render_card(1, title="T", venue="V", year=2020.0, citation_count=0, authors=[], abstract="").endswith(
        "  Year: 2020\n  Citations: 0\n  Authors:\n  Abstract: No abstract available.\n")
    with pytest.raises(ValueError, match="prompt mode"):
        render_card(1, title="T", venue="V", year=2020, citation_count=0, authors=[], abstract="", mode="x")


def test_instruction_variants_verbatim():
    assert set(VARIANTS) == {"baseline", "anti_authority", "content_first"}
    for v in VARIANTS.values():
        assert v.startswith("You are helping a machine learning researcher find the most relevant paper.\n\n")
        assert "Given the following 10 papers, recommend the TOP 1 paper that best addresses the query." in v
        assert 'Query: "{query}"\n\nPapers:\n\n{papers_list}\n\n' in v
    assert VARIANTS["baseline"].endswith("Provide brief justification (2-3 sentences).")
    assert "Do NOT consider author fame, institution prestige, h-index, or citation counts in your decision." in VARIANTS["anti_authority"]
    assert "and publication venues. Evaluate SOLELY based on the abstract content" in VARIANTS["content_first"]
    assert VARIANTS["content_first"].endswith("research content described in the abstract (2-3 sentences).")
    assert instruction_variants_text().count("===") == 6


def test_main_requests_identity_and_order_held(corpus):
    r = build_main_requests(corpus, n_queries=2, seed=42)
    assert len(r) == 2 * 2 * 3 * 3 and r["request_id"].is_unique
    assert r.groupby("query_id")["candidate_ids"].nunique().eq(1).all()   # same order in every condition/instruction
    msg = r.loc[0, "messages"]
    assert len(msg) == 1 and msg[0]["role"] == "user" and "Paper 10:" in msg[0]["content"]
    o = r[(r["condition"] == "original") & (r["instruction"] == "baseline")].iloc[0]
    f = r[(r["condition"] == "flipped") & (r["instruction"] == "baseline")].iloc[0]
    titles = lambda m: [l for l in m[0]["content"].split("\n") if l.startswith("  Title:")]  # noqa: E731
    assert titles(o["messages"]) == titles(f["messages"])                  # content identical across conditions
    again = build_main_requests(corpus, n_queries=2, seed=42)
    assert list(again["prompt_sha256"]) == list(r["prompt_sha256"])
    with pytest.raises(ValueError, match="unknown condition"):
        build_main_requests(corpus, conditions=["swapped"])


def test_pilot_requests_one_content_wears_each_metadata(corpus):
    r = build_pilot_requests(corpus, topics=["Sentiment Analysis"], n_queries=1, seed=42)
    assert len(r) == 100 and r["is_baseline"].sum() == 10 and r["request_id"].is_unique
    row = r[(r["fixed_pos"] == 2) & (r["source_pos"] == 5)].iloc[0]
    cards = row["messages"][0]["content"].split("\n\nPaper ")
    card2, card5 = cards[2], cards[5]   # cards[0] is the instruction head
    base = r[(r["fixed_pos"] == 2) & (r["is_baseline"])].iloc[0]["messages"][0]["content"].split("\n\nPaper ")
    title = lambda c: [l for l in c.split("\n") if "Title:" in l][0]  # noqa: E731
    venue = lambda c: [l for l in c.split("\n") if "Venue:" in l][0]  # noqa: E731
    assert title(card2) == title(base[2]) and venue(card2) == venue(card5)   # content of 2, metadata of 5
    assert venue(card5) == venue(base[5])                                     # ⚠ source keeps its own metadata
    swap = build_pilot_requests(corpus, topics=["Sentiment Analysis"], n_queries=1, seed=42, source_keeps_metadata=False)
    srow = swap[(swap["fixed_pos"] == 2) & (swap["source_pos"] == 5)].iloc[0]["messages"][0]["content"].split("\n\nPaper ")
    assert venue(srow[5]) == venue(base[2])


def test_conditions_from_release_and_request_ids(tmp_path):
    import json

    import pandas as pd

    from lib.authority.conditions import conditions_from_release
    from lib.authority.corpus import CorpusError
    from lib.authority.responses import attach_request_ids

    def paper(pid, cond, comp, cites=3, **kw):
        return dict(paper_id=pid, venue="arXiv", citation_count=cites, condition=cond,
                    authors=[{"name": "A B", "h_index": 7, "affiliations": ["MIT"]}],
                    authority_components={"max_h": .1, "median_h": .2, "citations": .3, "venue": .125,
                                          "affiliation": 1.0, "composite": comp}, **kw)
    sets = {"T": [{"query_id": "t_q1", "topic": "T", "query": "Q?", "candidates": {
        "original": [paper("p1", "original", 0.9, cites=500), paper("p2", "original", 0.1, cites=2)],
        "flipped": [paper("p1", "flipped", 0.1, cites=2, swap_direction="high_got_low_metadata"),
                    paper("p2", "flipped", 0.9, cites=500, swap_direction="low_got_high_metadata")],
        "boosted": [paper("p1", "boosted", 0.9), paper("p2", "boosted", 0.7, boosted=True)]}}]}
    (tmp_path / "experiment_sets.json").write_text(json.dumps(sets))
    cs = conditions_from_release(tmp_path)
    p = cs.papers.set_index(["condition", "paper_id"])
    assert p.loc[("flipped", "p2"), "composite"] == 0.9 and p.loc[("flipped", "p2"), "bucket"] == "low"
    assert bool(p.loc[("boosted", "p2"), "boosted"]) and p.loc[("original", "p1"), "raw_max_h"] == 7.0
    assert p.loc[("flipped", "p1"), "swap_partner"] == "p2" and p.loc[("flipped", "p2"), "swap_partner"] == "p1"
    sets["T"][0]["candidates"]["original"][0].pop("authority_components")
    (tmp_path / "experiment_sets.json").write_text(json.dumps(sets))
    with pytest.raises(CorpusError, match=r"candidates\.original\[0\] lacks authority_components"):
        conditions_from_release(tmp_path)
    req = pd.DataFrame({"query_id": ["t_q1"] * 2, "instruction": ["baseline"] * 2, "condition": ["original", "flipped"],
                        "request_id": ["r1", "r2"]})
    raw = pd.DataFrame({"query_id": ["t_q1"], "instruction": ["baseline"], "condition": ["flipped"], "response": ["1"]})
    assert attach_request_ids(raw, req)["request_id"].tolist() == ["r2"]
    with pytest.raises(ValueError, match="no request for"):
        attach_request_ids(raw.assign(condition="boosted"), req)
