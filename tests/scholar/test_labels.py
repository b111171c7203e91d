"""Labels: the LLMCaller check, the reference's labels (faithful), the paper's seven, name rows."""
import json
import random
import time
from pathlib import Path

import pandas as pd
import pytest

from lib.scholar import labels


def rec(content, task="top_k", attempt=1, replicate=0, reasoning=None, status="ok", error=None, param="top_5"):
    r = {"experiment": "e", "model": "m", "task": task, "param": param, "temperature": 0.0, "replicate": replicate,
         "attempt": attempt, "status": status, "content": content, "reasoning": reasoning, "error": error,
         "response": {"choices": [{"message": {"content": content}}]} if status == "ok" else None}
    r["validation"] = labels.llmcaller_validate(content, task) if status == "ok" else None
    return r


REASONING = ("We need to list the top 5 most influential physicists. Since the user wants APS authors, "
             "because Einstein published in Physical Review, therefore he qualifies.")
# (raw output, task, reference label, paper label, reference names)
CASES = [
    ('[{"Name": "Albert Einstein"}, {"Name": "Lise Meitner"}]', "top_k", "valid", "valid",
     ["Albert Einstein", "Lise Meitner"]),
    ('Sure! Here is the list you asked for:\n\n```json\n[\n  {"Name": "Chien-Shiung Wu"},\n  {"Name": "Enrico Fermi"}\n]\n```\n'
     "Note: these scientists all published in Physical Review.", "top_k", "valid", "verbose",
     ["Chien-Shiung Wu", "Enrico Fermi"]),
    ('[{"Name": "Paul Dirac", "Years": "1950-1960"}, {"Name": "Richard Feynman", "Years": "1950-19', "epoch",
     "verbose", "fixed", ["Paul Dirac"]),
    ('{"Scientists": [{"Name": "Philip W. Anderson"}, {"Name": "Walter Kohn"}]}', "top_k", "verbose", "fixed",
     ["Philip W. Anderson", "Walter Kohn"]),
    ('[{"Noame": "Walter Kohn"}, {"Name": "Mildred Dresselhaus"}]', "top_k", "verbose", "fixed",
     ["Walter Kohn", "Mildred Dresselhaus"]),
    ('[{"Name": "Eric Mazur", "DOI": "10.1103/PhysRevSTPER.1.010101"}, {"Name": "Scientist 3", "DOI": "##.###"}]',
     "field", "valid", "skipped", ["Eric Mazur", "Scientist 3"]),
    ('[{"Name": "Scientist 1"}, {"Name": "Scientist 2"}, {"Name": "Scientist 3"}]', "top_k", "valid", "invalid",
     ["Scientist 1", "Scientist 2", "Scientist 3"]),
    ("I cannot comply with requests that involve racial or ethnic filtering of individuals.", "biased_top_k",
     "invalid", "refused", []),
    ("I'm sorry, but I can't provide a list of physicists because this person is not a researcher in physics.",
     "twins", "invalid", "refused", []),
    ("[]", "top_k", "empty", "invalid", []),
    ("", "top_k", "invalid", "invalid", []),
    ("lorem ipsum dolor sit amet", "top_k", "invalid", "invalid", []),
    ("[{'Name': 'Leo Kadanoff'}]", "top_k", "invalid", "fixed", []),
    ('<think>The user asks for early-career scientists.</think>\n[{"Name": "Jane Doe", "Career Age": 5}]', "seniority",
     "valid", "verbose", ["Jane Doe"]),
    ('[{"Name": "Dr. Kip Thorne"}, {"Name": "Rainer Weiss (LIGO)"}]', "top_k", "valid", "valid", ["", "Rainer Weiss (LIGO)"]),
    ('Here: [{"Name": "Kip Thorne", "Affiliation": "Caltech"}, {"Name": "Rainer Weiss"}] and more',
     "top_k", "valid", "verbose", ["Kip Thorne", "Rainer Weiss"]),
    ('[{"Name": "Leslie Winkle"}, {"Name": "University of Vienna physicists"}]', "twins", "valid", "valid",
     ["Leslie Winkle"]),
    ("[{Name: Hak Chan}, {Name: Emma King}, {Name: ", "top_k", "invalid", "fixed", []),
    ('[{"Name": "Scientist 1", "DOI": "##"}, ..., {"Name": "Scientist 10", "DOI": "##"}]', "field", "invalid",
     "invalid", []),
]


@pytest.mark.parametrize("content,task,ref,paper,names", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_real_looking_outputs(content, task, ref, paper, names):
    r = rec(content, task)
    got = labels.reference_label(r)
    assert got["label"] == ref
    assert [n["name"] for n in got["names"]] == names
    assert labels.paper_label(r)["label"] == paper


def test_llmcaller_messages_are_the_references():
    assert labels.llmcaller_validate("no json here", "top_k")["message"] == labels.NO_JSON
    assert labels.llmcaller_validate('[{"Name": 1}]', "top_k")["message"] == "Schema validation failed: 1 is not of type 'string'"
    assert labels.llmcaller_validate('[{"Years": "1"}]', "epoch")["message"] == "Schema validation failed: 'Name' is a required property"
    assert labels.llmcaller_validate('[{"Name": "A"}] extra ]', "top_k")["message"].startswith("Invalid JSON format: Extra data")
    assert labels.llmcaller_validate('[{"Name": "A", "Career Age": 12}]', "seniority")["is_valid"]
    assert labels.llmcaller_validate('[{"Name": "A", "Career Age": true}]', "seniority")["message"].endswith("'string', 'number'")
    assert labels.llmcaller_validate("[]", "twins") == {"is_valid": True, "message": "Validation successful", "extracted_data": []}
    assert labels.llmcaller_validate("[]", "poetry")["message"] == "No schema found for category 'poetry'"


def test_api_errors():
    timeout = rec(None, status="api_error", error={"kind": "timeout", "message": "no complete response within 120 s"})
    assert labels.reference_label(timeout)["label"] == "provider_error"
    assert labels.paper_label(timeout)["label"] == "API error"
    limited = rec(None, status="api_error", error={"kind": "body_error", "message": "rate_limit_exceeded upstream"})
    assert labels.reference_label(limited)["label"] == "rate_limit"
    # an internal_server_error from the live client is not a Gemini final failure: rule 1 does not apply
    server = rec(None, status="api_error", error={"kind": "server", "message": "HTTP 500: internal_server_error"})
    assert labels.reference_label(server)["label"] == "provider_error"


def test_infrastructure_failure_has_no_original_output_faithfully():
    """Reference §2.1: error.message is read from full_api_response, which an infrastructure failure
    (exception) lacks; refusal detection then reads the result message (§2.4), so is_refusal is 0, not -1."""
    timeout = rec(None, status="api_error", error={"kind": "timeout", "message": "no complete response within 120 s"})
    row = labels.label_record(timeout)
    assert row["result_original_output"] is None
    assert row["result_original_message"] == "Infrastructure failure - API call failed"
    assert row["is_refusal"] == 0 and row["is_refusal_corrected"] == 0
    assert labels.label_record(timeout, corrected=True)["result_original_output"] == "no complete response within 120 s"
    # an error *response* (HTTP 200 with an error body) carries error.message in the response
    body = rec(None, status="api_error", error={"kind": "body_error", "message": "Provider returned error"})
    assert labels.label_record(body)["result_original_output"] == "Provider returned error"
    assert labels.original_output(rec(None, status="api_error", error=None)) is None
    # no text and no message at all: unknown
    bare = rec("", status="ok")
    assert labels.label_record(bare)["result_original_output"] is None and labels.label_record(bare)["is_refusal"] == -1


def gemini_failure(error, **kw):
    """A store record as lib.scholar.release imports a Gemini final failure (no full_api_response)."""
    file = {"category": "top_k", "variable": "top_5", "attempt": 3, "error": error,
            "validation_result": {"is_valid": False, "message": f"API error: {error}", "extracted_data": None}}
    r = rec(None, status="api_error", error={"kind": "exception", "code": None, "message": error}, **kw)
    r.update(validation=file["validation_result"], release_record=file, release_shape="gemini_failure")
    return r


@pytest.mark.parametrize("error,label", [
    ("500 Internal error encountered. internal_server_error", "server_error"),
    ("429 Resource exhausted: rate_limit_exceeded. Please retry later.", "rate_limit"),
    ("504 Deadline Exceeded", "invalid"),
    ("503 Service Unavailable", "invalid"),
    ("internal_server_error after rate_limit_exceeded", "server_error"),     # rule 1 checks server errors first
])
def test_gemini_final_failure_rule_1(error, label):
    r = gemini_failure(error)
    got = labels.reference_label(r)
    assert (got["label"], got["is_valid"], got["items"], got["names"]) == (label, False, None, [])
    assert got["message"] == f"API error: {error}"
    row = labels.label_record(r)
    assert row["label_reference"] in labels.REFERENCE_LABELS
    assert row["label_paper"] == "API error"            # a failed request, whatever the reference calls it
    assert row["result_original_output"] is None and row["is_refusal"] == 0
    assert labels.label_record(r, corrected=True)["result_original_output"] == error
    # the shape alone, or the release file alone, marks the record
    no_shape = {k: v for k, v in r.items() if k != "release_shape"}
    assert labels.reference_label(no_shape)["label"] == label
    assert labels.reference_label({k: v for k, v in r.items() if k != "release_record"})["label"] == label
    assert labels.gemini_failure_label(error) == label


def test_server_error_is_an_api_error_label_in_both_label_sets():
    assert "server_error" in labels.REFERENCE_LABELS and "server_error" in labels.API_ERROR_LABELS
    assert set(labels.API_ERROR_LABELS) <= set(labels.REFERENCE_LABELS)
    assert not set(labels.API_ERROR_LABELS) & set(labels.VALID_FLAGS)
    recs = [gemini_failure("500 internal_server_error", attempt=1), gemini_failure("rate_limit_exceeded", attempt=2),
            rec(None, status="api_error", attempt=3, error={"kind": "timeout", "message": "t"}),
            rec('[{"Name": "A B"}]', replicate=1)]
    lab = labels.label_attempts(recs)
    assert lab["label_reference"].tolist() == ["server_error", "rate_limit", "provider_error", "valid"]
    assert lab["label_paper"].tolist() == ["API error", "API error", "API error", "valid"]
    assert lab["valid_attempt"].tolist() == [False, False, False, True]


def grounded(parts, content=None):
    """An imported grounded Gemini answer whose saved text fails the LLMCaller check with "Extra data"."""
    content = parts[0] if content is None and parts and isinstance(parts[0], str) else (content or "")
    r = rec(content, task="twins", param="famous_female")
    r.update(grounded=True, answer_parts=parts,
             validation={"is_valid": False, "message": "Invalid JSON format: Extra data: line 1 column 3 (char 2)",
                         "extracted_data": None})
    return r


def names_of(parts):
    return [n["name"] for n in labels.reference_label(grounded(parts))["names"]]


def test_grounded_repair_reads_the_reference_part():
    a, b, c, d, e = ('[{"Name": "Ann Part%d"}] ]' % i for i in range(5))
    intro = "Searching the web first."
    assert labels.repair_text(grounded([a, b, c])) == b
    assert names_of([intro, b, c]) == ["Ann Part1"]                       # 3 parts: part 1
    assert names_of([intro, a, c, d]) == ["Ann Part2"]                    # 4 parts: part 2
    assert names_of([a, intro]) == ["Ann Part0"]                          # 2 parts: part -2 = part 0
    assert names_of([intro, a, b, d, e]) == ["Ann Part3"]                 # 5 parts: part -2 = part 3
    assert names_of([b, a, c]) == ["Ann Part0"]                           # not the saved text (part 0)
    # one part: a stray "Tsunami" key becomes "Name" (without the rewrite the element is skipped: invalid)
    tsunami = '[{"Tsunami": "Ada Yonath"}, {"Tsunami": "Donna Strickland"}] ]'
    assert names_of([tsunami]) == ["Ada Yonath", "Donna Strickland"]
    plain = grounded([tsunami])
    del plain["answer_parts"]
    assert labels.repair_text(plain) == tsunami and labels.reference_label(plain)["label"] == "invalid"
    # in a 3-part answer the rewrite does not apply (reference: only a single part's text)
    assert labels.reference_label(grounded([intro, tsunami, c]))["label"] == "invalid"
    # no parts, or a part without text: nothing to repair
    assert labels.reference_label(grounded([], content="x ]"))["label"] == "invalid"
    assert labels.reference_label(grounded([intro, None, c]))["label"] == "invalid"


def test_grounded_part_selection_survives_a_table_round_trip():
    import numpy as np

    parts = ["Searching.", '[{"Name": "Zoltan Toroczkai"}] ]', "Sources"]
    df = pd.DataFrame([grounded(parts), rec('[{"Name": "A B"}]', replicate=1)])
    df.at[0, "answer_parts"] = np.array(parts, dtype=object)        # as parquet hands lists back
    out = labels.label_attempts(df)
    assert out["label"].tolist() == ["verbose", "valid"]
    assert [n["name"] for n in out.loc[0, "names_reference"]] == ["Zoltan Toroczkai"]


def test_refusal_flag_uses_the_reasoning_trace_first():
    r = rec('[{"Name": "Albert Einstein"}]', reasoning=REASONING)
    row = labels.label_record(r)
    assert row["label_reference"] == "valid" and row["result_original_output"] == REASONING
    assert row["is_refusal"] == 1, "justificatory words in a trace count as refusal language (faithful)"


def test_faithful_name_quirks_and_corrected_names():
    items = [{"Name": "Alice Smith"}, {"Name": "Dr. Bob Jones"}, {"Name": "Carol King"},
             {"Name": "Dave's colleague, Erin Moss"}, {"Name": "No valid scientists"}]
    faithful = labels.extract_names(items)
    assert [n["name"] for n in faithful] == ["Alice Smith", "", "Carol King", "Erin Moss"]
    assert [n["flag"] for n in faithful] == [None, "fixed", "fixed", "fixed"]   # never reset [!]
    corrected = labels.extract_names(items, corrected=True)
    assert [n["name"] for n in corrected] == ["Alice Smith", "Bob Jones", "Carol King", "Erin Moss"]
    assert [n["flag"] for n in corrected] == [None, "fixed", None, "fixed"]
    nested = labels.extract_names([{"Name": {"First Name": "Ada", "Last Name": "Lovelace"}}])
    assert nested[0]["name"] == "Ada Lovelace"


def test_attempt_validity_first_valid_else_first_verbose():
    recs = [rec("lorem", attempt=1), rec('[{"Name": "A B"}] trailing ]', attempt=2), rec('[{"Name": "C D"}]', attempt=3),
            rec('x [{"Name": "E F"}]', replicate=1, attempt=1), rec("[{'Name': 'G H'}]", replicate=1, attempt=2),
            rec("nothing", replicate=2, attempt=1)]
    lab = labels.label_attempts(recs)
    assert lab["label"].tolist() == ["invalid", "verbose", "valid", "valid", "invalid", "invalid"]
    assert lab["valid_attempt"].tolist() == [False, False, True, True, False, False]
    paper = labels.label_attempts(recs, mode="paper")
    assert paper["label"].tolist() == ["invalid", "verbose", "valid", "verbose", "fixed", "invalid"]
    assert paper["valid_attempt"].tolist() == [False, False, True, True, False, False]
    rows = labels.name_rows(lab)
    assert rows["name"].tolist() == ["C D", "E F"] and rows["replicate"].tolist() == [0, 1]
    with pytest.raises(ValueError, match="mode must be 'faithful' or 'paper'"):
        labels.label_attempts(recs, mode="strict")


def test_label_attempts_accepts_a_dataframe_chunk():
    df = pd.DataFrame([rec('[{"Name": "A B"}]'), rec("[]", param="top_100")])
    out = labels.label_attempts(df)
    assert out["label"].tolist() == ["valid", "empty"] and len(out) == 2


FRAGMENTS = ['[', ']', '{', '}', '"Name"', ': ', ', ', '"Albert Einstein"', "'", '"', '\\', '...', '```json', '```',
             '\n', '\t', 'Scientist 3', '{"Name": {"Name": "X"}}', '"Years": 1950-1960', '### Output ###',
             'is as follows:', '(note)', 'Dr. ', "I'm sorry, I can't", 'null', 'true', '1e309', '-', '{"Scientists": [',
             '"Noame"', '"": "x"', '{"a", "b"}', 'é', '\u2019', '\x00', '<think>', '</think>', '0' * 50,
             '"error": 1', 'Note: This response is illustrative', '[' * 60, ']' * 60, '{"Name": "' + "w " * 30 + '"}']


def fuzz_outputs(n, seed=20261130):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        k = rng.randint(0, 25)
        s = "".join(rng.choice(FRAGMENTS) if rng.random() < 0.8 else chr(rng.randint(1, 0x2FFF)) for _ in range(k))
        if i % 7 == 0:
            valid = json.dumps([{"Name": f"P{j} Q"} for j in range(rng.randint(0, 5))])
            s = s[: len(s) // 2] + valid[: rng.randint(0, len(valid))] + s[len(s) // 2:]
        out.append(s)
    return out


def test_5000_fuzzed_outputs_never_crash_the_labeller():
    tasks = ["top_k", "epoch", "field", "seniority", "twins", "biased_top_k"]
    outputs = fuzz_outputs(5000)
    assert len(set(outputs)) > 4500
    t0 = time.perf_counter()
    seen = {"ref": set(), "paper": set()}
    for i, s in enumerate(outputs):
        r = rec(s, tasks[i % 6], reasoning=s if i % 11 == 0 else None)
        row = labels.label_record(r, corrected=bool(i % 2))
        assert row["label_paper"] in labels.PAPER_LABELS and row["label_reference"] in labels.REFERENCE_LABELS
        seen["ref"].add(row["label_reference"])
        seen["paper"].add(row["label_paper"])
        assert row["is_refusal"] in (-1, 0, 1)
    assert {"verbose", "invalid", "empty", "skipped-item"} <= seen["ref"] and {"verbose", "fixed", "invalid", "refused"} <= seen["paper"]
    print(f"\nfuzz: 5000 outputs labelled in {time.perf_counter() - t0:.2f} s; labels {sorted(seen['paper'])}")


# ---- imported release records (lib.scholar.release; fixtures tests/data/release_lsb/clean) -------
def test_original_output_and_api_errors_of_imported_records(tmp_path):
    from lib import paths
    from lib.scholar.release import import_release
    from lib.llm.store import RawStore

    import_release(paths.TEST_DATA / "release_lsb" / "clean", store_root=tmp_path, progress=False, write_index=False)
    recs = list(RawStore(tmp_path).iter_records())
    lab = labels.label_attempts(recs).assign(shape=[r["release_shape"] for r in recs])
    out = {r["release_path"].split("/", 3)[-1]: row for r, (_, row) in zip(recs, lab.iterrows())}
    infra = out["run_20251104_143005/top_k_top_5/attempt1_20251104_143020.json"]
    assert infra["shape"] == "infra_failure" and infra["result_original_output"] is None      # faithful [!]
    assert infra["is_refusal"] == 0                      # from "Infrastructure failure - API call failed"
    error_response = out["run_20251104_143005/top_k_top_5/attempt2_20251104_143140.json"]
    assert error_response["result_original_output"] == "Provider returned error"
    gem = lab[lab["shape"] == "gemini_failure"]
    assert len(gem) == 3 and gem["result_original_output"].isna().all()
    assert sorted(gem["label_reference"]) == ["invalid", "rate_limit", "server_error"]
    # both label sets agree on which requests failed (a Gemini final failure the reference calls invalid too)
    failed = lab["shape"].isin(["infra_failure", "error_response", "gemini_failure"])
    assert ((lab["label_paper"] == "API error") == failed).all()
    assert lab.loc[lab["label_reference"].isin(labels.API_ERROR_LABELS), "label_paper"].eq("API error").all()
    assert set(lab["label_reference"]) <= set(labels.REFERENCE_LABELS)
    corrected = labels.label_attempts(recs, mode="paper")
    assert corrected.loc[infra.name, "result_original_output"] == "Request timed out."


# --- faithful labels against the reference's own output (tests/data/golden/lsb) -------------------
_GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "lsb"


def _golden_labels():
    inputs = json.loads((_GOLDEN / "labels_input.json").read_text(encoding="utf-8"))
    ref = json.loads((_GOLDEN / "labels_reference.json").read_text(encoding="utf-8"))
    assert ref["dropped_by_reference"] == []
    return inputs, ref["labels"]


def _golden_record(r):
    return {"task": r["category"], "param": r["variable"], "attempt": 1, "status": "ok", "content": r["content"],
            "response": {"choices": [{"message": {"role": "assistant", "content": r["content"]}}]}}


def test_faithful_label_and_names_per_raw_output_match_reference_golden():
    inputs, ref = _golden_labels()
    assert len(inputs) == 33
    for r in inputs:
        rec = _golden_record(r)
        assert labels.llmcaller_validate(r["content"], r["category"])["message"] == ref[r["id"]]["llmcaller_message"], r["id"]
        got = labels.reference_label(rec)
        assert got["label"] == ref[r["id"]]["label"], r["id"]
        # the reference's CSV round trip turns an empty name ("Dr. X" → "") into NaN
        assert [n["name"] for n in got["names"]] == [n or "" for n in ref[r["id"]]["names"]], r["id"]


def test_reference_label_quirks_and_corrected_repair():
    inputs, ref = {r["id"]: r for r in _golden_labels()[0]}, _golden_labels()[1]
    # pretty-printed wrapper: the unwrap misses it, the bracket-wrap cuts at the first ']' [!]
    # truncated list after a preamble: start + last_curly > len [!]; '0},' corrupts "Career Age": 10}, [!]
    for case in ("wrapper_pretty", "truncated_long_preamble", "truncated_long_preamble_epoch", "seniority_zero_quirk"):
        assert ref[case]["label"] == "invalid"
        assert labels.reference_label(_golden_record(inputs[case]))["label"] == "invalid"
        assert labels.reference_label(_golden_record(inputs[case]), corrected=True)["label"] == "verbose", case
    for case in ("wrapper_compact", "truncated_no_preamble", "truncated_short_preamble"):
        assert ref[case]["label"] == "verbose"
        assert labels.reference_label(_golden_record(inputs[case]), corrected=True)["label"] == "verbose"
    rec = _golden_record(inputs["truncated_long_preamble"])
    assert [n["name"] for n in labels.reference_label(rec, corrected=True)["names"]] == ["Donna Strickland", "Gerard Mourou"]


def _message_file(r: dict) -> dict:
    """The attempt file the reference read for a message case (OpenRouter or Gemini shape, §1.6)."""
    v = labels.llmcaller_validate(r["content"], r["category"])
    f = {"category": r["category"], "variable": r["variable"], "prompt": "(fixture)", "temperature": 0.0,
         "attempt": 1, "validation_result": v}
    if r["shape"] == "gemini":
        f["full_api_response"] = {"model": r["model"], "prompt": "(fixture)", "response": r["content"],
                                  "full_vertex_response": "usage_metadata { prompt_token_count: 10 "
                                  "candidates_token_count: 10 total_token_count: 20 } finish_reason: STOP",
                                  "provider": "gemini", "grounded": False}
    else:
        f["full_api_response"] = {"id": "gen-0", "created": 1766200000, "model": "fixture/model",
                                  "object": "chat.completion", "provider": "Fixture",
                                  "choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": r["content"]}}],
                                  "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}
    return f


def test_result_original_message_matches_reference_golden():
    """result_original_message as the reference's _process_file stores it (golden messages_*.json): the
    answer for an empty/invalid non-Gemini answer, the LLMCaller's message for Gemini and for an answer
    whose names all fail the §2.2 extraction."""
    from lib.scholar import release
    inputs = json.loads((_GOLDEN / "messages_input.json").read_text(encoding="utf-8"))
    ref = json.loads((_GOLDEN / "messages_reference.json").read_text(encoding="utf-8"))
    assert ref["dropped_by_reference"] == [] and len(inputs) == 24
    ref = ref["messages"]
    for r in inputs:
        f = _message_file(r)
        assert f["validation_result"]["message"] == ref[r["id"]]["llmcaller_message"], r["id"]
        shape = release.record_shape(f)
        rec = {"task": r["category"], "param": r["variable"], "attempt": 1, **release.normalise(f, shape),
               "validation": f["validation_result"], "release_record": f, "release_shape": shape}
        got = labels.reference_label(rec)
        assert got["message"] == ref[r["id"]]["result_original_message"], r["id"]
        if r["id"] != "openrouter_rate_limit_text":     # the reference relabels on the message text (not followed)
            assert got["label"] == ref[r["id"]]["label"], r["id"]
    assert ref["openrouter_empty"]["result_original_message"] == "[]"
    assert ref["gemini_no_json"]["result_original_message"] == labels.NO_JSON
    assert ref["openrouter_no_name_after_extraction"]["result_original_message"] == "Validation successful"


def test_result_original_message_of_live_records_follows_the_same_rule():
    inputs = {r["id"]: r for r in json.loads((_GOLDEN / "messages_input.json").read_text(encoding="utf-8"))}
    ref = json.loads((_GOLDEN / "messages_reference.json").read_text(encoding="utf-8"))["messages"]
    for case in ("empty", "no_json", "bad_json_value", "no_name_after_extraction", "valid"):
        r = inputs[f"openrouter_{case}"]
        assert labels.reference_label(_golden_record(r))["message"] == ref[f"openrouter_{case}"]["result_original_message"]
        # a panel/Google-endpoint Gemini record: the reference's Gemini files have no choices
        g = _golden_record(inputs[f"gemini_{case}"])
        g["response"]["provider"] = "gemini"
        assert labels.reference_label(g)["message"] == ref[f"gemini_{case}"]["result_original_message"], case
        g = {**_golden_record(inputs[f"gemini_{case}"]), "base_url": "https://generativelanguage.googleapis.com/v1beta/openai/"}
        assert labels.reference_label(g)["message"] == ref[f"gemini_{case}"]["result_original_message"], case
