"""Paper corpus: the synthetic design, determinism, validation errors and the released-data loader."""
import json

import pandas as pd
import pytest

from lib.authority.corpus import (MAX_H_TIER_SHARES, CorpusError, PaperCorpus, load_released, load_released_responses,
                                  synthetic_corpus, topics_table)
from lib.authority.scoring import author_score
from lib.authority.topics import PILOT_TOPICS, TOPICS


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(42)


def test_design_25_topics_50_papers_stratified(corpus):
    p = corpus.papers
    assert len(TOPICS) == 25 and p["topic"].nunique() == 25 and len(p) == 1250
    per = p.groupby(["topic", "tier"]).size().unstack()
    assert (per["top"] == 15).all() and (per["mid"] == 15).all() and (per["low"] == 10).all() and (per["emerging"] == 10).all()
    assert p.loc[p["tier"] == "emerging", "year"].between(2024, 2026).all()
    assert p.loc[p["tier"] != "emerging", "year"].between(2018, 2023).all()
    # strata are ordered by citations, as a citation-stratified sample should be
    med = p.groupby("tier")["citation_count"].median()
    assert med["top"] > med["mid"] > med["low"]
    assert set(PILOT_TOPICS) <= set(TOPICS)


def test_ten_distinct_queries_per_topic(corpus):
    q = corpus.queries
    assert len(q) == 250 and (q.groupby("topic").size() == 10).all() and q["query"].is_unique
    assert q["query_id"].iloc[0] == "knowledge_distillation_q1"
    assert q["query"].str.endswith("?").all()


def test_deterministic_and_subset_stable(corpus):
    again = synthetic_corpus(42, topics=["Sentiment Analysis"])
    full = corpus.papers[corpus.papers["topic"] == "Sentiment Analysis"].reset_index(drop=True)
    pd.testing.assert_frame_equal(again.papers, full)
    assert not synthetic_corpus(43, topics=["Sentiment Analysis"]).papers.equals(again.papers)


def test_abstracts_are_long_enough_to_be_truncated(corpus):
    assert (corpus.papers["abstract"].str.len() > 250).all()
    assert (corpus.papers["abstract"].str.len() > 400).mean() > 0.2


def test_validation_names_table_column_and_row(corpus):
    bad = corpus.papers.copy()
    bad.loc[3, "citation_count"] = -1
    with pytest.raises(CorpusError, match=r"papers\.citation_count.*row 3"):
        PaperCorpus(bad, corpus.authors, corpus.queries)
    with pytest.raises(CorpusError, match=r"lacks column\(s\) \['tier'\]"):
        PaperCorpus(corpus.papers.drop(columns="tier"), corpus.authors, corpus.queries)
    a = corpus.authors.copy()
    a.loc[0, "affiliations"] = "Stanford"
    with pytest.raises(CorpusError, match=r"authors\.affiliations must be a tuple"):
        PaperCorpus(corpus.papers, a, corpus.queries)


def test_topics_table(corpus):
    t = topics_table(corpus)
    assert len(t) == 25 and (t["papers"] == 50).all() and (t["queries"] == 10).all()
    assert t.loc[0, "example_query"] == corpus.queries.loc[0, "query"]


def _paper(pid, tier="top", h=10):
    return {"paper_id": pid, "title": f"Title {pid}", "abstract": "A" * 50, "year": 2020, "venue": "arXiv",
            "citation_count": 5, "tier": tier, "authors": [{"name": "A B", "h_index": h, "affiliations": ["MIT"]}]}


def test_load_released_json(tmp_path):
    papers = {"Topic X": [_paper(f"p{i}") for i in range(10)]}
    (tmp_path / "scholar_papers.json").write_text(json.dumps(papers))
    sets = {"Topic X": [{"query_id": "topic_x_q1", "topic": "Topic X", "query": "What?",
                         "candidates": {"original": [{"paper_id": f"p{i}"} for i in range(10)]}}]}
    (tmp_path / "experiment_sets.json").write_text(json.dumps(sets))
    c = load_released(tmp_path)
    assert not c.synthetic and len(c.papers) == 10 and len(c.authors) == 10 and len(c.candidates) == 10
    assert c.authors.loc[0, "affiliations"] == ("MIT",)
    res = tmp_path / "results"
    res.mkdir()
    rows = [{"model": "m", "variant": "baseline", "condition": "original", "topic": "Topic X", "query_id": "topic_x_q1",
             "response": "Paper 3", "elapsed_seconds": 1.5, "recommended": 3}]
    (res / "results_1.json").write_text(json.dumps(rows))
    (res / "1n_pilot_x.json").write_text("not json")          # pilot files are skipped like the reference
    r = load_released_responses(tmp_path)
    assert r.loc[0, "instruction"] == "baseline" and r.loc[0, "latency_s"] == 1.5


def test_load_released_errors_name_file_and_key(tmp_path):
    broken = {"Topic X": [dict(_paper("p1"), authors=[{"h_index": 3}])]}
    (tmp_path / "scholar_papers.json").write_text(json.dumps(broken))
    with pytest.raises(CorpusError, match=r"scholar_papers\.json.*authors\[0\] lacks key 'name'"):
        load_released(tmp_path)
    with pytest.raises(CorpusError, match="file not found"):
        load_released(tmp_path / "nowhere")


def test_derived_paper_fields_warn_not_reject(corpus):
    """The citation stratum and the year are bibliographic/derived: an odd value is a warning with the
    row, and the corpus loads (issue 13)."""
    odd = corpus.papers.copy()
    odd.loc[2, "tier"] = "unknown"
    odd.loc[5, "year"] = 1850
    with pytest.warns(UserWarning) as rec:
        c = PaperCorpus(odd, corpus.authors, corpus.queries)
    msgs = " | ".join(str(w.message) for w in rec)
    assert "papers.tier" in msgs and "row 2" in msgs and "papers.year" in msgs and "row 5" in msgs
    assert len(c.papers) == len(corpus.papers)


@pytest.mark.parametrize("seed", [42, 20261130])
def test_max_h_falls_into_the_author_score_tiers_as_in_the_release(seed):
    """Appendix D: the release's papers split A* 9.4 %, A 14.1 %, B 21.8 %, C 40.6 %, D 14.1 % by
    the author_score tier of their max h-index; the synthetic corpus follows within 5 points
    (B, 20-39, is the widest: 26 % at seed 20261130)."""
    c = synthetic_corpus(seed)
    h = pd.to_numeric(c.authors["h_index"], errors="coerce").fillna(0.0)
    max_h = h.groupby(c.authors["paper_id"]).max().reindex(c.papers["paper_id"]).fillna(0.0)
    label = {1.0: "A*", 0.85: "A", 0.65: "B", 0.45: "C", 0.15: "D"}
    shares = max_h.map(author_score).map(label).value_counts(normalize=True)
    assert set(shares.index) == set(MAX_H_TIER_SHARES)
    assert all(abs(shares[t] - s) <= 0.05 for t, s in MAX_H_TIER_SHARES.items()), shares.round(3).to_dict()
