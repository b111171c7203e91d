"""Labels: the LLMCaller check, the reference's labels (faithful), the paper's seven, name rows."""
import json
import random
import time

import pandas as pd
import pytest

from lib.llm import labels


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
    row = labels.label_record(timeout)
    assert row["result_original_output"] == "no complete response within 120 s" and row["is_refusal"] == 0


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
        assert row["label_paper"] in labels.PAPER_LABELS
        seen["ref"].add(row["label_reference"])
        seen["paper"].add(row["label_paper"])
        assert row["is_refusal"] in (-1, 0, 1)
    assert {"verbose", "invalid", "empty", "skipped-item"} <= seen["ref"] and {"verbose", "fixed", "invalid", "refused"} <= seen["paper"]
    print(f"\nfuzz: 5000 outputs labelled in {time.perf_counter() - t0:.2f} s; labels {sorted(seen['paper'])}")
