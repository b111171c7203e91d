"""The paper-number parser: the paper's first-integer rule (faithful) and the stricter corrected parser."""
import pytest

from lib.authority.parsing import parse_choice

CASES = [
    # text, faithful (paper A.5), corrected
    ("Paper 7", 7, 7),
    ("[3] is the best match because it directly addresses the query.", 3, 3),
    ("I would recommend paper number 4 because it was published in 2023 and cited widely.", 4, 4),
    ("Based on the 2-3 sentences requested, Paper 7 is best.", 2, 7),                 # stray number first
    ("With authors of h-index 5, I recommend **Paper 8**: it tackles the problem.", 5, 8),
    ("<think>Paper 2 looks good but paper 9 is better</think>\n**Recommendation: Paper 9**", 2, 9),
    ("Considering papers 1-3 are older, my choice is Paper 5.", 1, 5),
    ("Top venue (score 0.5) ... I recommend Paper 10.", 5, 10),
    ("7. This paper directly addresses the query.", 7, 7),
    ("My top recommendation is Paper Seven, since its method is sound.", None, 7),
    ("Answer: 6", 6, 6),
    ("Paper 12 does not exist; I choose paper 3.", 3, 3),                              # > 10 skipped
    ("Published in 2024 with 350 citations, paper 6 wins.", 6, 6),                    # years and counts > 10 skipped
    ("I cannot recommend a paper without more information.", None, None),            # refusal
    ("None of these papers address the query.", None, None),                         # no number
    ("", None, None),
    (None, None, None),
]


@pytest.mark.parametrize("text, faithful, corrected", CASES)
def test_parse_choice(text, faithful, corrected):
    assert parse_choice(text) == faithful
    assert parse_choice(text, mode="corrected") == corrected


def test_parse_mode_validated():
    with pytest.raises(ValueError, match="parse mode must be one of"):
        parse_choice("Paper 1", mode="strict")


def test_candidate_count_bounds_the_range():
    assert parse_choice("Paper 7", n_candidates=5) is None
    assert parse_choice("Paper 7, or else Paper 2", n_candidates=5, mode="corrected") == 2
