"""lib.authority.responses: raw answers become the labelled responses table (the chosen paper and
its authority in the answered condition), and released answers get their request ids."""
import pandas as pd
import pytest

from lib.authority import responses as rs
from lib.authority.conditions import build_conditions
from lib.authority.corpus import synthetic_corpus
from lib.authority.prompts import build_main_requests

TOPIC = "Sentiment Analysis"


@pytest.fixture(scope="module")
def world():
    corpus = synthetic_corpus(3, topics=[TOPIC])
    conds = build_conditions(corpus, seed=3)
    req = build_main_requests(corpus, n_queries=1, seed=3, condition_set=conds)
    return corpus, conds, req


def _raw(req, picks: dict[str, str]) -> pd.DataFrame:
    rows = req.set_index(["instruction", "condition"])["request_id"]
    return pd.DataFrame([{"request_id": rows[k], "model": "m", "response": text, "latency_s": 1.5}
                         for k, text in picks.items()])


def test_the_chosen_paper_and_its_authority_in_the_answered_condition(world):
    corpus, conds, req = world
    raw = _raw(req, {("baseline", "original"): "I recommend Paper 3: it fits best.",
                     ("baseline", "boosted"): "Paper 3 again.",
                     ("content_first", "flipped"): "None of them; all 12 are weak."})     # 12 is out of range
    out = rs.label_responses(raw, req, corpus, conds)
    assert list(out.columns) == list(rs.RESPONSE_COLUMNS) and len(out) == 3
    assert out["choice"].tolist()[:2] == [3, 3] and pd.isna(out["choice"].iloc[2])
    assert out["parsed"].tolist() == [True, True, False]
    ids = req["candidate_ids"].iloc[0]
    assert out["chosen_paper_id"].tolist()[:2] == [ids[2], ids[2]] and out["chosen_paper_id"].iloc[2] is None
    meta = conds.papers.set_index(["condition", "paper_id"])
    for i, cond in ((0, "original"), (1, "boosted")):
        assert out["chosen_composite"].iloc[i] == meta.loc[(cond, ids[2]), "composite"]
        assert out["chosen_max_h"].iloc[i] == meta.loc[(cond, ids[2]), "raw_max_h"]
    assert out["chosen_tier"].iloc[0] == corpus.papers.set_index("paper_id").loc[ids[2], "tier"]
    boosted = set(meta.loc["boosted"].index[meta.loc["boosted", "boosted"].astype(bool)])
    assert out["n_boosted_candidates"].tolist() == [0, sum(p in boosted for p in ids), 0]
    assert out["justification"].iloc[0] == "I recommend Paper 3: it fits best." and out["latency_s"].iloc[0] == 1.5


def test_bad_tables_name_the_table_and_the_missing_columns(world):
    corpus, conds, req = world
    with pytest.raises(ValueError, match=r"raw answers: missing column\(s\) \['latency_s'\]; the responses table"):
        rs.label_responses(pd.DataFrame({"request_id": ["x"], "model": ["m"], "response": ["1"]}), req, corpus, conds)
    with pytest.raises(ValueError, match=r"raw answers: request_id 'nope' is not in the requests table"):
        rs.label_responses(pd.DataFrame({"request_id": ["nope"], "model": ["m"], "response": ["1"], "latency_s": [0]}),
                           req, corpus, conds)
    with pytest.raises(ValueError, match=r"responses: missing column\(s\) \['choice'"):
        rs.check_responses(pd.DataFrame({"request_id": []}), needed=["request_id", "choice"])


def test_released_answers_get_the_matching_request_id(world):
    _, _, req = world
    first = req.iloc[4]
    raw = pd.DataFrame({"query_id": [first["query_id"]], "instruction": [first["instruction"]],
                        "condition": [first["condition"]], "request_id": ["stale"], "response": ["Paper 1"]})
    assert rs.attach_request_ids(raw, req)["request_id"].tolist() == [first["request_id"]]
    with pytest.raises(ValueError, match=r"raw answers: no request for \{'query_id': 'q9'"):
        rs.attach_request_ids(raw.assign(query_id="q9"), req)
