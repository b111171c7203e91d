"""lib.authority.prompts: the instruction variants as printed in the paper (A.1), the paper card
(A.2; the reference's ``format_paper``) and the request tables of the main experiment and the pilot."""
import re

import pytest

from lib import paths
from lib.authority import prompts
from lib.authority.corpus import synthetic_corpus

TOPIC = "Question Answering"
#: the paper texts beside the repository (a clone: ../shared; a worktree: ../../shared)
PAPERS_DIR = next((d for d in (paths.ROOT.parent / "shared" / "papers", paths.ROOT.parent.parent / "shared" / "papers")
                   if d.is_dir()), paths.ROOT.parent / "shared" / "papers")


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(5, topics=[TOPIC])


def _flat(s: str) -> str:
    return re.sub(r"\s+", " ", s)


@pytest.mark.skipif(not PAPERS_DIR.is_dir(), reason="the paper texts (shared/papers) are not beside the repository")
def test_variants_are_the_papers_appendix_a1_templates():
    paper = _flat((PAPERS_DIR / "authority_bias.txt").read_text())
    for name, template in prompts.VARIANTS.items():
        assert _flat(template) in paper, name
    assert prompts.INSTRUCTIONS == ("baseline", "anti_authority", "content_first")


def test_card_by_hand_and_its_faithful_quirks():
    authors = [{"name": f"A{i}", "h_index": h, "affiliations": affs}
               for i, (h, affs) in enumerate([(12.0, ["MIT", "Google", "CMU"]), (0, []), (None, ["ETH Zurich"]),
                                              (3, []), (4, []), (5, ["dropped: sixth author"])], start=1)]
    card = prompts.render_card(3, title="T", venue="NeurIPS", year=2021.0, citation_count=7, authors=authors,
                               abstract="x" * 401)
    assert card == ("Paper 3:\n  Title: T\n  Venue: NeurIPS\n  Year: 2021\n  Citations: 7\n  Authors:\n"
                    "  - A1 | h-index: 12 | (MIT, Google)\n  - A2\n  - A3 | (ETH Zurich)\n  - A4 | h-index: 3\n"
                    "  - A5 | h-index: 4\n  Abstract: " + "x" * 400 + "...\n")
    faithful = prompts.render_card(1, title="T", venue="", year=None, citation_count=0, authors=[], abstract="")
    assert "  Venue: \n  Year: None\n" in faithful and faithful.endswith("  Abstract: No abstract available.\n")
    corrected = prompts.render_card(1, title="T", venue="", year=None, citation_count=0, authors=[], abstract="",
                                    mode="corrected")
    assert "  Venue: Unknown\n  Year: N/A\n" in corrected
    with pytest.raises(ValueError, match=r"prompt mode must be one of \('faithful', 'corrected'\), got 'strict'"):
        prompts.render_card(1, title="T", venue="", year=None, citation_count=0, authors=[], abstract="", mode="strict")


def test_build_prompt_fills_the_template_and_rejects_unknown_fields():
    got = prompts.build_prompt("baseline", "q?", ["Paper 1:\n  c1\n", "Paper 2:\n  c2\n"])
    assert 'Query: "q?"\n\nPapers:\n\nPaper 1:\n  c1\n\nPaper 2:\n  c2\n\n\nWhich paper' in got
    with pytest.raises(ValueError, match=r"unknown instruction variant 'neutral'; expected one of \['baseline'"):
        prompts.build_prompt("neutral", "q", [])


def test_main_requests_cross_queries_instructions_and_conditions(corpus):
    req = prompts.build_main_requests(corpus, n_queries=2, seed=5)
    assert len(req) == 2 * 3 * 3 and req["request_id"].is_unique             # 2 queries x 3 variants x 3 conditions
    assert req[["instruction", "condition"]].iloc[:3].values.tolist() == [["baseline", "original"],
                                                                          ["baseline", "flipped"],
                                                                          ["baseline", "boosted"]]
    assert req.groupby("query_id")["candidate_ids"].nunique().eq(1).all()  # one display order per query
    assert all(len(c) == 10 for c in req["candidate_ids"]) and (req["experiment"] == "main").all()
    msg = req["messages"].iloc[0]
    assert len(msg) == 1 and msg[0]["role"] == "user" and msg[0]["content"].count("\nPaper ") == 10
    with pytest.raises(ValueError, match=r"unknown condition 'swapped'"):
        prompts.build_main_requests(corpus, conditions=["swapped"])
    with pytest.raises(ValueError, match=r"n_queries must be >= 1"):
        prompts.build_main_requests(corpus, n_queries=0)


def test_pilot_requests_are_ten_by_ten_per_query(corpus):
    pil = prompts.build_pilot_requests(corpus, topics=[TOPIC], n_queries=1, seed=5)
    assert len(pil) == 100 and pil["is_baseline"].sum() == 10 and pil["request_id"].is_unique
    row = pil[(pil["fixed_pos"] == 2) & (pil["source_pos"] == 7)].iloc[0]
    assert row["fixed_paper_id"] == row["candidate_ids"][1] and row["source_paper_id"] == row["candidate_ids"][6]
    # the fixed card (Paper 2) wears paper 7's venue; faithfully paper 7 keeps its own too
    cards = row["messages"][0]["content"].split("\nPaper ")
    venue = [line for line in cards[7].splitlines() if line.startswith("  Venue:")][0]
    assert venue in cards[2] and venue in cards[7]
