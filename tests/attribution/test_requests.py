"""lib.attribution.requests: one chat request per (quote, generation), its identity and decoding (§5.1)."""
import pandas as pd
import pytest

from lib.attribution import prompts as pr
from lib.attribution.requests import build_requests

DATA = pd.DataFrame({"quote_id": ["q1", "q2"], "quote": ["To be or not to be.", "I think, therefore I am."],
                     "author_clean": ["william shakespeare", "rene descartes"]})
RETRIEVAL = pd.DataFrame({"quote_id": ["q1", "q1"], "rank": [1, 2], "author": ["William Shakespeare", "John Milton"],
                          "similarity": [0.99, 0.4], "quote": ["To be or not to be.", "Better to reign in Hell."]})


def test_quotes_times_generations_with_the_papers_decoding():
    req = build_requests(DATA, prompt_type="direct", with_evidence=False, generations=3)
    assert len(req) == 6 and req["request_id"].is_unique
    assert req["generation"].tolist() == [1, 2, 3, 1, 2, 3]
    assert req["custom_id"].iloc[4] == "qid=q2|prompt=direct|evidence=0|run=2"
    assert (req["temperature"] == 0.7).all() and (req["top_p"] == 0.95).all() and (req["max_tokens"] == 500).all()
    m = req["messages"].iloc[0]
    assert [x["role"] for x in m] == ["system", "user"]
    assert m[0]["content"] == pr.system_prompt() and m[1]["content"] == pr.user_prompt("To be or not to be.", "direct")
    # the identity is stable and depends on the prompt: same call, same ids; other prompt type, other ids
    assert build_requests(DATA, prompt_type="direct", with_evidence=False)["request_id"].equals(req["request_id"])
    other = build_requests(DATA, prompt_type="indirect", with_evidence=False)
    assert not set(other["request_id"]) & set(req["request_id"])


def test_evidence_requests_carry_r_of_q_and_a_quote_without_neighbours_gets_the_reference_line():
    req = build_requests(DATA, prompt_type="indirect", with_evidence=True, retrieval=RETRIEVAL, generations=1,
                         family="together")
    users = [m[1]["content"] for m in req["messages"]]
    assert "1. author: William Shakespeare | similarity: 0.9900" in users[0] and "2. author: John Milton" in users[0]
    assert users[1].endswith("Retrieved examples:\n" + pr.NO_NEIGHBOURS)
    assert req["messages"].iloc[0][0]["content"] == pr.SYSTEM_TOGETHER_RAG
    assert req["custom_id"].tolist() == ["qid=q1|prompt=indirect|evidence=1|run=1", "qid=q2|prompt=indirect|evidence=1|run=1"]


@pytest.mark.parametrize("kw, message", [
    ({"dataset_df": DATA.drop(columns="quote")}, r"dataset table lacks column\(s\) \['quote'\]"),
    ({"prompt_type": "overt"}, r"prompt_type must be one of"),
    ({"generations": 0}, r"generations must be >= 1, got 0"),
    ({"with_evidence": True}, r"with_evidence=True needs the retrieval table"),
])
def test_bad_input_is_a_clear_error(kw, message):
    args = {"dataset_df": DATA, "prompt_type": "direct", "with_evidence": False, **kw}
    with pytest.raises(ValueError, match=message):
        build_requests(**args)
