"""lib.panel.core: the request fields the panel reads (identity in the body, headers, defaults), the
OpenAI response shape and its token counts, errors as JSON (never a dropped connection), faults, and
the same request with the same seed giving the same answer. Authority prompts need no world (and,
unlike AttriBench's, no costly per-seed solve, so this module stays fast)."""
import json

import pandas as pd
import pytest

from lib.llm.client import SEED_TAG
from lib.panel import FaultConfig, Panel
from lib.panel import core
from lib.panel.profiles import all_profiles
from tests.panel.test_panel import authority_prompt
from tests.panel.test_world import authors_table

SEED = 5
MODEL = "llama3.1:8b"
PROMPT = authority_prompt(boost=3)


def body(**extra) -> dict:
    return {"model": MODEL, "messages": [{"role": "user", "content": PROMPT}], **extra}


@pytest.fixture(scope="module")
def panel() -> Panel:
    return Panel(SEED, None)


def test_identity_from_the_body_user_or_a_tagged_seed():
    assert core._body_identity({"user": "lib.llm/r4/a2/t3"}) == {"x-replicate": "4", "x-attempt": "2", "x-try": "3"}
    assert core._body_identity({"user": "r1/a2"}) == {"x-replicate": "1", "x-attempt": "2"}
    assert core._body_identity({"user": "someone", "seed": 7}) == {}
    assert core._body_identity({"seed": SEED_TAG << 20 | 5 << 4 | 3}) == {"x-replicate": "5", "x-attempt": "3"}
    assert core._body_identity({"seed": True}) == {} and core._body_identity({"seed": -1}) == {}


def test_int_fields_prefer_headers_then_body_then_the_default():
    f = core._int_field
    assert f({"x-attempt": "3"}, {"attempt": 2}, ("x-attempt",), ("attempt",), 1) == 3
    assert f({"x-attempt": " "}, {"attempt": 2}, ("x-attempt",), ("attempt",), 1) == 2      # a blank header is absent
    assert f({}, {"seed": 9}, ("x-replicate",), ("replicate", "seed"), 0) == 9
    assert f({}, {"replicate": None}, ("x-replicate",), ("replicate",), 0) == 0
    with pytest.raises(ValueError):
        f({"x-try": "two"}, {}, ("x-try",), (), 1)


def test_the_response_has_the_openai_shape_and_counted_tokens(panel):
    status, headers, out = panel.complete(body(seed=1))
    assert status == 200 and headers == {}
    assert {"id", "object", "created", "model", "provider", "system_fingerprint", "choices", "usage"} <= set(out)
    assert out["object"] == "chat.completion" and out["model"] == MODEL and out["provider"] == all_profiles()[MODEL].provider
    assert out["system_fingerprint"] == f"{core.VERSION}-seed{SEED}" and out["id"].startswith("gen-")
    choice = out["choices"][0]
    assert choice["finish_reason"] == "stop" and choice["message"]["role"] == "assistant"
    content = choice["message"]["content"]
    prompt_tokens = len(json.dumps(body()["messages"], ensure_ascii=False)) // 4 + 1
    assert out["usage"] == {"prompt_tokens": prompt_tokens, "completion_tokens": len(content) // 4 + 1,
                            "total_tokens": prompt_tokens + len(content) // 4 + 1,
                            "completion_tokens_details": {"reasoning_tokens": 0}}


def test_same_request_same_answer_other_replicate_other_draw(panel):
    a, b = panel.complete(body(seed=3))[2], panel.complete(body(seed=3))[2]
    assert a["id"] == b["id"] and a["choices"] == b["choices"]
    assert Panel(SEED, None).complete(body(seed=3))[2]["choices"] == a["choices"]
    draws = [panel.complete(body(seed=r))[2] for r in range(12)]
    assert len({d["id"] for d in draws}) == 12                       # the replicate is part of the key
    assert len({d["choices"][0]["message"]["content"] for d in draws}) > 1
    assert panel.complete(body(seed=3), {"X-Replicate": "4"})[2]["id"] == panel.complete(body(seed=4))[2]["id"]
    assert panel.complete(body(seed=3, temperature=1.3))[2]["id"] != a["id"]


@pytest.mark.parametrize("request_body,status,fragment", [
    (["not", "a", "dict"], 400, "request body must be a JSON object"),
    ({"messages": [{"role": "user", "content": "hi"}]}, 400, "request needs 'model' and a non-empty 'messages' list"),
    ({"model": "gpt-5.1", "messages": []}, 400, "non-empty 'messages'"),
    (body(temperature="hot"), 400, "temperature, seed, replicate, attempt and retry must be numbers"),
    (body(temperature=float("nan")), 400, "temperature must be in [0, 2], got nan"),
    (body(temperature=-0.1), 400, "temperature must be in [0, 2], got -0.1"),
    (body(model="gpt-99"), 404, "unknown model 'gpt-99'"),
])
def test_bad_requests_are_json_errors(panel, request_body, status, fragment):
    got, _, out = panel.complete(request_body)
    assert got == status and fragment in out["error"]["message"]


def test_a_panel_bug_answers_500_and_a_missing_world_503(panel, monkeypatch):
    lsb = "Specifically, follow these criteria: senior scientists who have published in APS journals."
    status, _, out = panel.complete({"model": "gpt-5.1", "messages": [{"role": "user", "content": lsb}]})
    assert status == 503 and "without an authors table" in out["error"]["message"]

    def boom(*a, **k):
        raise ZeroDivisionError("boom")
    monkeypatch.setattr(Panel, "_answer", boom)
    status, _, out = panel.complete(body())
    assert status == 500 and out["error"] == {"message": "panel error: ZeroDivisionError: boom",
                                              "type": "server_error", "code": "panel_error"}


def test_unknown_tasks_get_a_clarifying_answer_and_long_answers_are_cut(panel):
    out = panel.complete({"model": "gpt-5.1", "messages": [{"role": "user", "content": "Hello?"}]})[2]
    assert out["choices"][0]["message"]["content"].startswith("I am not sure what is being asked")
    cut = panel.complete({"model": "gpt-5.1", "max_tokens": 3, "messages": [{"role": "user", "content": "Hello?"}]})[2]
    assert cut["choices"][0]["finish_reason"] == "length" and cut["choices"][0]["message"]["content"] == "I am not sur"      # 4 characters a token


def test_faults_error_bodies_and_truncated_json():
    always = Panel(SEED, None, faults=FaultConfig(rate_truncated=1.0))
    status, _, text = always.complete(body(seed=2))
    assert status == 200 and isinstance(text, str) and text.startswith('{"id": "gen-')
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert always.complete(body(seed=2))[2] == text         # the cut is drawn from the request's key
    limited = Panel(SEED, None, faults=FaultConfig(rate_429=1.0, retry_after_s=1.5))
    status, headers, out = limited.complete(body())
    assert status == 429 and headers["Retry-After"] == "1.5" and "error" in out
    err = Panel(SEED, None, faults=FaultConfig(rate_error_body=1.0)).complete(body())
    assert err[0] == 200 and err[2]["model"] == MODEL and "error" in err[2]


def test_from_world_builds_the_index_with_dois_and_coauthors():
    from lib.groundtruth.world import World

    a = authors_table()
    pubs = pd.DataFrame({"publication_id": [1], "doi": ["10.1/x"]})
    w = World(a, pubs, pd.DataFrame({"publication_id": [1], "author_id": [101]}),
              pd.DataFrame({"src": [100], "dst": [101]}), {})
    p = Panel.from_world(w, SEED)
    assert p.index.n == len(a) and p.index.dois(1) == (("10.1/x", ""),) and p.index.coauthors(0).tolist() == [1]
    assert p.scholar.index is p.index and p.scholar.seed == SEED and len(p.quotes) == 0
