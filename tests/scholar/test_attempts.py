"""lib.scholar.attempts: the attempt table (both label sets, the chosen attempt, provenance) on
hand-made raw records, and its parquet round trip."""
import json

import pandas as pd
import pytest

from lib.scholar import attempts, labels, models

MODEL = "llama-3.1-8b"


def rec(content, replicate, attempt, *, usage=None, error=None):
    return {"experiment": "e", "model": MODEL, "task": "top_k", "param": "top_5", "temperature": 0.0,
            "replicate": replicate, "attempt": attempt, "status": "ok", "content": content, "reasoning": None,
            "error": error, "response": {"choices": [{"message": {"content": content}}]},
            "validation": labels.llmcaller_validate(content, "top_k"), "request_id": f"r{replicate}",
            "tries": attempt, "usage": usage}


@pytest.fixture(scope="module")
def table():
    recs = pd.DataFrame([
        rec('[{"Name": "A B"}] trailing ]', 0, 1, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),
        rec('[{"Name": "C D"}]', 0, 2),
        rec('x [{"Name": "E F"}]', 1, 1, error={"kind": "none"}),      # the reference: valid; the paper: verbose
        rec('[{"Name": "G H"}]', 1, 2),
    ])
    return attempts.attempt_table(recs, models.load_models())


def test_the_chosen_attempt_of_each_label_set(table):
    assert table["label"].tolist() == ["verbose", "valid", "valid", "valid"]
    assert table["label_paper"].tolist() == ["verbose", "valid", "verbose", "valid"]
    # faithful: the first valid attempt (replicate 1: attempt 1); paper: the lowest valid, else verbose (attempt 2)
    assert table["valid_attempt"].tolist() == [False, True, True, False]
    assert table["valid_attempt_paper"].tolist() == [False, True, False, True]
    assert table["run"].tolist() == table["replicate"].tolist() == [0, 0, 1, 1]


def test_provenance_usage_and_model_attributes(table):
    assert table["request_id"].tolist() == ["r0", "r0", "r1", "r1"] and table["served_model"].isna().all()
    assert table["prompt_tokens"].tolist()[0] == 10 and table["total_tokens"].isna().tolist() == [False, True, True, True]
    assert table["error_kind"].tolist() == [None, None, "none", None]
    assert set(table["access"]) == {"open"} and set(table["size_class"]) == {"S"} and not table["grounded"].any()


def test_unknown_model_and_empty_store_are_clear_errors():
    recs = pd.DataFrame([rec("[]", 0, 1)]).assign(model="gpt-9")
    with pytest.raises(KeyError, match=r"model has keys \['gpt-9'\] not in lib/resources/lsb_models.csv"):
        attempts.attempt_table(recs, models.load_models())
    with pytest.raises(ValueError, match="the raw store holds no attempt"):
        attempts.attempt_table(pd.DataFrame(), models.load_models())


def test_write_parquet_stores_lists_as_json_and_mixed_columns_as_text(tmp_path):
    df = pd.DataFrame({"items": [[{"name": "A"}], []], "career_age": ["5", 7], "n": [1, 2]})
    path = attempts.write_parquet(df, tmp_path / "sub" / "t.parquet")
    back = pd.read_parquet(path)
    assert [json.loads(x) for x in back["items"]] == [[{"name": "A"}], []]
    assert back["career_age"].tolist() == ["5", "7"] and back["n"].tolist() == [1, 2]
    assert not list((tmp_path / "sub").glob(".*.tmp"))               # written atomically, no temporary left


def _store(root, recs):
    from lib.llm.store import RawStore

    with RawStore(root) as store:
        for r in recs:
            store.append(r)
    return root


def test_the_table_from_the_store_is_the_same_whatever_order_the_answers_arrived_in(tmp_path):
    recs = [rec('[{"Name": "A B"}]', r, a) | {"param": p, "request_id": f"{p}{r}"}
            for p in ("top_5", "top_10") for r in (0, 1, 2) for a in (1, 2)]
    arrived = [recs[i] for i in (7, 2, 11, 0, 5, 9, 1, 10, 3, 6, 8, 4)]   # as a batch returns them
    in_order = attempts.attempts_from_store(models.load_models(), "e", store_root=_store(tmp_path / "a", recs))
    shuffled = attempts.attempts_from_store(models.load_models(), "e", store_root=_store(tmp_path / "b", arrived))
    pd.testing.assert_frame_equal(shuffled, in_order)
    assert in_order[["param", "replicate", "attempt"]].values.tolist()[:3] == [["top_10", 0, 1], ["top_10", 0, 2], ["top_10", 1, 1]]
