"""LLMScholarBench release importer: layout, record shapes, identity, idempotence, resume,
malformed files, labels versus the reference's rules, and the missing-input messages.

Fixtures: tests/data/release_lsb/clean (every record shape of reference §1.6, in the release's
layouts) and tests/data/release_lsb/malformed (files the importer must report, not crash on).
"""
import os
import json

import pytest

from lib import paths
from lib.scholar import release
from lib.scholar.labels import label_attempts
from lib.scholar.release import AttemptFile, check_release, import_release, parse_path
from lib.llm.store import RawStore

FIX = paths.TEST_DATA / "release_lsb"
CLEAN, MALFORMED = FIX / "clean", FIX / "malformed"
CLEAN_FILES = sorted(p for p in CLEAN.rglob("attempt*.json"))

T25 = "data-temperature/temperature_0.25/config_llama-3.1-8b/"
T50 = "data-temperature/temperature_0.50/config_gemini-2.5-flash/"
OR = "data-openrouter/config_gpt-oss-20b/run_20251220_090000/"
GP = "data-gemini/temperature_0.75/config_gemini-2.5-pro/run_20260105_095900/"
GR = "data-gemini/temperature_1.00/config_gemini-2.5-pro-grounded/run_20260105_100000/"


@pytest.fixture(scope="module")
def clean_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    report = import_release(CLEAN, store_root=root, progress=False)
    recs = {r["release_path"]: r for r in RawStore(root).iter_records()}
    return root, report, recs


# ---- layout ---------------------------------------------------------------------------------
def test_parse_path_reads_every_layout_field(tmp_path):
    p = CLEAN / T25 / "run_20251104_143005/top_k_top_5/attempt2_20251104_143140.json"
    af = parse_path(p, CLEAN)
    assert isinstance(af, AttemptFile)
    assert (af.dataset, af.folder_temperature, af.model, af.run_date, af.run_hour, af.task, af.param, af.attempt,
            af.attempt_ts) == (("data-temperature",), 0.25, "llama-3.1-8b", "2025-11-04", "14:00", "top_k", "top_5",
                               2, "2025-11-04T14:31:40")
    assert af.experiment() == "temperature"
    # '&' in a parameter, biased_top_k before top_k, the Auditor's '-it' suffix removal
    q = tmp_path / "config_gemma-3-12b-it/run_20251220_090000/biased_top_k_top_100_bias_citations_low/attempt3_20251220_090001.json"
    af = parse_path(q, tmp_path)
    assert (af.model, af.model_dir, af.task, af.param, af.experiment()) == (
        "gemma-3-12b", "config_gemma-3-12b-it", "biased_top_k", "top_100_bias_citations_low", "baseline")
    assert parse_path(CLEAN / T50 / "run_20251009_120030/field_CM&MP/attempt1_20251009_120105.json", CLEAN).param == "CM&MP"
    # without a dataset folder: a temperature folder means the sweep; a grounded model outside it means RAG
    assert parse_path(tmp_path / "temperature_2.00/config_qwen3-8b/run_20251009_000000/epoch_2000s/attempt1_20251009_000001.json",
                      tmp_path).experiment() == "temperature"
    assert parse_path(tmp_path / "config_gemini-2.5-flash-grounded/run_20260101_230000/epoch_2000s/attempt1_20260101_230001.json",
                      tmp_path).experiment() == "rag"


@pytest.mark.parametrize("rel, reason", [
    ("config_m/attempt1_20251009_101512.json", "outside the layout"),
    ("config_m/run_20251009_101500/top_k_top_7/attempt1_20251009_101512.json", "unknown category_variable"),
    ("config_m/run_20251009_101500/top_k_top_5/attempt0_20251009_101512.json", "outside 1..3"),
    ("config_m/run_2025_1015/top_k_top_5/attempt1_20251009_101512.json", "outside the layout"),
    ("config_m/run_20251009_101500/top_k_top_5/summary.json", "not an attempt file"),
])
def test_parse_path_says_why_a_file_is_outside_the_layout(tmp_path, rel, reason):
    got = parse_path(tmp_path / rel, tmp_path)
    assert isinstance(got, str) and reason in got


# ---- round trip -----------------------------------------------------------------------------
def test_every_attempt_file_round_trips_verbatim(clean_store):
    _, report, recs = clean_store
    assert report.attempt_files == len(CLEAN_FILES) == report.written == 18
    assert report.malformed == [] and report.duplicates == []
    for p in CLEAN_FILES:
        rel = str(p.relative_to(CLEAN))
        rec = recs[rel]
        assert rec["release_record"] == json.loads(p.read_text(encoding="utf-8")), rel
        assert rec["validation"] == rec["release_record"]["validation_result"]
        assert (rec["task"], rec["param"], rec["attempt"]) == (rec["release_record"]["category"],
                                                               rec["release_record"]["variable"],
                                                               rec["release_record"]["attempt"])


def test_counts_per_experiment_model_and_shape(clean_store):
    _, report, _ = clean_store
    assert dict(report.per_experiment) == {"temperature": 9, "baseline": 4, "rag": 5}
    assert dict(report.per_model) == {"llama-3.1-8b": 8, "gemini-2.5-flash": 1, "gpt-oss-20b": 3,
                                      "gemini-2.5-pro": 1, "gemini-2.5-pro-grounded": 5}
    assert dict(report.per_shape) == {"openrouter_ok": 7, "processing_error": 1, "infra_failure": 1,
                                      "error_response": 2, "gemini_ok": 4, "gemini_failure": 3}
    assert set(report.per_shape) == set(release.SHAPES)
    assert report.side_files == 19          # summaries, runner logs, llm_setup.json, global run logs
    text = report.summary()
    for piece in ("per experiment (attempt files in the store): baseline 4, rag 5, temperature 9", "per record shape (attempt files in the store):", "gemini_failure 3"):
        assert piece in text


def test_request_identity_run_hour_replicate_and_temperature(clean_store):
    _, _, recs = clean_store
    runs = {r["run_dir"]: (r["replicate"], r["run_date"], r["run_hour"]) for r in recs.values() if r["model"] == "llama-3.1-8b"}
    assert runs == {"run_20251009_101500": (0, "2025-10-09", "10:00"), "run_20251104_143005": (1, "2025-11-04", "14:00"),
                    "run_20251105_090000": (2, "2025-11-05", "09:00")}
    a = recs[OR + "twins_movie_male/attempt2_20251220_090305.json"]
    # no temperature folder, no temperature key: the model's calibrated temperature (gpt-oss-20b: 0.0)
    assert (a["experiment"], a["temperature"], a["temperature_source"], a["replicate"]) == ("baseline", 0.0, "calibrated", 0)
    b = recs[T25 + "run_20251009_101500/top_k_top_5/attempt1_20251009_101512.json"]
    assert (b["temperature"], b["temperature_source"], b["grounded"]) == (0.25, "folder", False)
    g = recs[GR + "twins_famous_female/attempt1_20260105_100041.json"]
    assert (g["experiment"], g["temperature"], g["grounded"]) == ("rag", 1.0, True)
    # one request id per (experiment, model, task, param, temperature, replicate), shared by its attempts
    ids = {(r["model"], r["task"], r["param"], r["replicate"]): r["request_id"] for r in recs.values()}
    same = [r["request_id"] for r in recs.values() if r["model"] == "llama-3.1-8b" and r["param"] == "1950s"]
    assert len(set(same)) == 1 and len(set(ids.values())) == len(ids)


def test_normalised_fields_per_shape(clean_store):
    _, _, recs = clean_store
    ok = recs[T25 + "run_20251009_101500/top_k_top_5/attempt1_20251009_101512.json"]
    assert (ok["release_shape"], ok["status"], ok["served_model"], ok["provider"], ok["created"]) == (
        "openrouter_ok", "ok", "meta-llama/llama-3.1-8b-instruct", "InferenceNet", 1760004912)
    assert ok["content"].startswith('[{"Name": "Albert Einstein"}') and ok["usage"]["total_tokens"] == 552
    assert ok["created_at"] == "2025-10-09T10:15:12+00:00"
    rsn = recs[OR + "biased_top_k_top_100_bias_gender_female/attempt1_20251220_090130.json"]
    assert rsn["reasoning"].startswith("The user asks")
    infra = recs[T25 + "run_20251104_143005/top_k_top_5/attempt1_20251104_143020.json"]
    assert (infra["release_shape"], infra["status"], infra["error"]["kind"], infra["error"]["message"], infra["tries"],
            len(infra["try_log"])) == ("infra_failure", "api_error", "exception", "Request timed out.", 5, 5)
    err = recs[T25 + "run_20251104_143005/top_k_top_5/attempt2_20251104_143140.json"]
    assert (err["release_shape"], err["status"], err["error"]["kind"], err["http_status"], err["provider"]) == (
        "error_response", "api_error", "body_error", 502, "InferenceNet")
    proc = recs[T25 + "run_20251104_143005/top_k_top_5/attempt3_20251104_143205.json"]
    assert (proc["release_shape"], proc["status"], proc["processing_error"]["error_type"]) == ("processing_error", "ok", "TypeError")
    gem = recs[T50 + "run_20251009_120030/field_CM&MP/attempt1_20251009_120105.json"]
    assert (gem["release_shape"], gem["status"], gem["provider"], gem["finish_reason"]) == ("gemini_ok", "ok", "gemini", "STOP")
    assert gem["usage"] == {"prompt_tokens": 498, "completion_tokens": 61, "total_tokens": 1405, "thoughts_tokens": 846}
    assert gem["response"]["choices"][0]["message"]["content"] == gem["content"] == gem["release_record"]["full_api_response"]["response"]
    grd = recs[GR + "twins_famous_female/attempt1_20260105_100041.json"]
    assert grd["usage"] == {"prompt_tokens": 471, "completion_tokens": 88, "total_tokens": 1903,
                            "tool_use_prompt_tokens": 512, "thoughts_tokens": 832}
    assert grd["answer_parts"] == [grd["content"]]
    fail = recs[GR + "epoch_2000s/attempt3_20260105_100422.json"]
    assert (fail["release_shape"], fail["status"], fail["response"], fail["error"]["message"]) == (
        "gemini_failure", "api_error", None, "500 Internal error encountered. internal_server_error")


def test_store_index_reads_imported_records(clean_store):
    root, _, _ = clean_store
    idx = RawStore(root).index()
    assert len(idx) == 18
    assert (idx["status"] == "api_error").sum() == 6         # infra, two error responses, three Gemini failures
    assert idx.loc[idx["model"] == "gemini-2.5-flash", "completion_tokens"].tolist() == [61]


# ---- idempotent and resumable ---------------------------------------------------------------
def test_second_import_adds_nothing(clean_store):
    root, _, _ = clean_store
    before = {p: p.read_bytes() for p in RawStore(root).shards()}
    again = import_release(CLEAN, store_root=root, progress=False)
    assert (again.written, again.already_stored, again.duplicates, again.malformed) == (0, 18, [], [])
    assert {p: p.read_bytes() for p in RawStore(root).shards()} == before


def test_interrupted_import_resumes_to_the_same_store(tmp_path, monkeypatch):
    calls = {"n": 0}
    real_append = RawStore.append

    def flaky_append(self, rec):
        if calls["n"] == 5:
            raise KeyboardInterrupt
        calls["n"] += 1
        real_append(self, rec)

    monkeypatch.setattr(RawStore, "append", flaky_append)
    with pytest.raises(KeyboardInterrupt):
        import_release(CLEAN, store_root=tmp_path / "s", progress=False)
    monkeypatch.setattr(RawStore, "append", real_append)
    shard = RawStore(tmp_path / "s").shards()[0]
    with open(shard, "ab") as f:                  # and a torn last line, as a killed writer leaves
        f.write(b'{"experiment": "temperature", "model": "llama-3.1-8b", "ta')
    resumed = import_release(CLEAN, store_root=tmp_path / "s", progress=False)
    assert (resumed.written, resumed.already_stored) == (13, 5)
    fresh = import_release(CLEAN, store_root=tmp_path / "fresh", progress=False)
    key = lambda r: (r["experiment"], r["model"], r["task"], r["param"], r["replicate"], r["attempt"], r["release_path"])
    assert sorted(map(key, RawStore(tmp_path / "s").iter_records())) == sorted(map(key, RawStore(tmp_path / "fresh").iter_records()))
    assert fresh.written == 18


def test_experiment_override_puts_everything_in_one_experiment(tmp_path):
    rep = import_release(CLEAN, store_root=tmp_path, experiment_from_layout=False, experiment="lsb", progress=False)
    assert dict(rep.per_experiment) == {"lsb": 18}
    assert {r["experiment"] for r in RawStore(tmp_path).iter_records()} == {"lsb"}


# ---- malformed files -----------------------------------------------------------------------
def test_malformed_files_are_reported_with_path_and_reason(tmp_path):
    rep = import_release(MALFORMED, store_root=tmp_path, progress=False)
    got = dict(rep.malformed)
    run = "config_llama-3.1-8b/run_20251009_101500/"
    expected = {
        "config_llama-3.1-8b/attempt1_20251009_101512.json": "file outside the layout",
        run + "notes.json": "not an attempt file",
        run + "astronomy_stars/attempt1_20251009_101514.json": "unknown category_variable folder 'astronomy_stars'",
        run + "top_k_top_5/attempt4_20251009_101700.json": "attempt number 4",
        run + "top_k_top_5/attempt1_20251009_101512.json": "invalid JSON",
        run + "top_k_top_100/attempt1_20251009_101513.json": "missing keys ['validation_result']",
        run + "epoch_2000s/attempt1_20251009_101519.json": "top level is a JSON list",
        run + "epoch_2000s/attempt2_20251009_101520.json": "file name says attempt2",
        run + "field_PER/attempt1_20251009_101521.json": "unrecognised record shape",
        "config_mystery-model/run_20251009_101500/top_k_top_5/attempt1_20251009_101512.json": "no temperature",
    }
    assert set(got) == set(expected)
    for path, reason in expected.items():
        assert reason in got[path], (path, got[path])
    # two run directories in the same hour are one request: the second attempt 1 is a duplicate
    assert [p for p, _ in rep.duplicates] == ["config_llama-3.1-8b/run_20251009_104500/epoch_1950s/attempt1_20251009_104512.json"]
    assert rep.written == 1 and "malformed (10):" in rep.summary()
    (only,) = list(RawStore(tmp_path).iter_records())
    assert (only["experiment"], only["replicate"], only["temperature_source"]) == ("baseline", 0, "record")


# ---- labels as the reference would give them (reference §2.1-2.2) ----------------------------
REFERENCE_LABELS = {
    # OpenRouter success, LLMCaller-valid
    T25 + "run_20251009_101500/top_k_top_5/attempt1_20251009_101512.json": "valid",
    # OpenRouter success, invalid JSON: single quotes -> "Expecting property name" -> invalid, no repair
    T25 + "run_20251009_101500/epoch_1950s/attempt1_20251009_101530.json": "invalid",
    # OpenRouter success, invalid JSON: trailing comma -> "Expecting value" -> repaired -> verbose [!]
    T25 + "run_20251009_101500/epoch_1950s/attempt2_20251009_101545.json": "verbose",
    T25 + "run_20251009_101500/epoch_1950s/attempt3_20251009_101601.json": "valid",
    # infrastructure failure: no choices -> provider_error
    T25 + "run_20251104_143005/top_k_top_5/attempt1_20251104_143020.json": "provider_error",
    # error response (502): no choices -> provider_error; with 'rate_limit_exceeded' in the message -> rate_limit
    T25 + "run_20251104_143005/top_k_top_5/attempt2_20251104_143140.json": "provider_error",
    OR + "twins_movie_male/attempt1_20251220_090210.json": "rate_limit",
    # processing error: "Processing error occurred" is repairable -> the content is repaired -> verbose
    T25 + "run_20251104_143005/top_k_top_5/attempt3_20251104_143205.json": "verbose",
    T25 + "run_20251105_090000/top_k_top_5/attempt1_20251105_090011.json": "valid",
    OR + "biased_top_k_top_100_bias_gender_female/attempt1_20251220_090130.json": "valid",
    OR + "twins_movie_male/attempt2_20251220_090305.json": "valid",
    # Gemini success (Vertex; fenced JSON passes the greedy LLMCaller check) and grounded (REST)
    T50 + "run_20251009_120030/field_CM&MP/attempt1_20251009_120105.json": "valid",
    GP + "top_k_top_100/attempt1_20260105_100012.json": "valid",
    GR + "twins_famous_female/attempt1_20260105_100041.json": "valid",
    # grounded, three parts, the saved text (part 0) fails with "Extra data" -> repaired -> verbose
    GR + "twins_random_female/attempt1_20260105_100052.json": "verbose",
    # Gemini final failure: rule 1 (no full_api_response)
    GR + "seniority_senior/attempt3_20260105_100400.json": "rate_limit",
}
# Rule 1 of reference §2.1 (a record without full_api_response): 'server_error' / 'invalid'
REFERENCE_LABELS_RULE1 = {
    GR + "epoch_2000s/attempt3_20260105_100422.json": "server_error",
    GR + "seniority_early_career/attempt3_20260105_100433.json": "invalid",
}


@pytest.fixture(scope="module")
def labelled(clean_store):
    _, _, recs = clean_store
    paths_ = list(recs)
    out = label_attempts([recs[p] for p in paths_])
    out["release_path"] = paths_
    return out.set_index("release_path")


def test_every_clean_file_has_an_expected_reference_label():
    assert set(REFERENCE_LABELS) | set(REFERENCE_LABELS_RULE1) == {str(p.relative_to(CLEAN)) for p in CLEAN_FILES}


@pytest.mark.parametrize("rel", sorted(REFERENCE_LABELS))
def test_labels_match_the_reference(labelled, rel):
    assert labelled.loc[rel, "label"] == REFERENCE_LABELS[rel]


@pytest.mark.parametrize("rel", sorted(REFERENCE_LABELS_RULE1))
def test_gemini_final_failure_labels_follow_rule_1(labelled, rel):
    assert labelled.loc[rel, "label"] == REFERENCE_LABELS_RULE1[rel]


def test_grounded_repair_reads_the_part_the_reference_reads(labelled):
    rel = GR + "twins_random_female/attempt1_20260105_100052.json"
    assert [n["name"] for n in labelled.loc[rel, "names_reference"]] == ["Zoltán Toroczkai"]


def test_chosen_attempt_per_request(labelled):
    chosen = labelled[labelled["valid_attempt"]].index
    # epoch/1950s: attempt 3 ('valid') beats attempt 2 ('verbose'); run 2 of top_5: only attempt 3 qualifies
    assert T25 + "run_20251009_101500/epoch_1950s/attempt3_20251009_101601.json" in chosen
    assert T25 + "run_20251009_101500/epoch_1950s/attempt2_20251009_101545.json" not in chosen
    assert T25 + "run_20251104_143005/top_k_top_5/attempt3_20251104_143205.json" in chosen
    assert len(chosen) == 10         # one per request that has a valid or verbose attempt


def test_refusal_text_is_the_reasoning_trace_for_reasoning_models(labelled):
    rel = OR + "biased_top_k_top_100_bias_gender_female/attempt1_20251220_090130.json"
    assert labelled.loc[rel, "result_original_output"].startswith("The user asks")


# ---- missing input (issue 8 item 5) ---------------------------------------------------------
def test_check_release_names_what_is_missing_and_where_to_get_it(tmp_path):
    missing = tmp_path / "nowhere"
    (msg,) = check_release(missing)
    assert str(missing) in msg and "10.5281/zenodo.20417107" in msg and "does not exist" in msg
    assert "python -m lib.scholar.release import" in msg
    empty = tmp_path / "empty"
    (empty / "temperature_0.00").mkdir(parents=True)
    (msg,) = check_release(empty)
    assert "no config_<model> folder" in msg and "10.5281/zenodo.20417107" in msg and " first; " not in msg
    (empty / "llmscholarbench_data.zip").write_bytes(b"PK")
    (msg,) = check_release(empty)
    assert "unpack llmscholarbench_data.zip in" in msg
    a_file = tmp_path / "release.zip"
    a_file.write_bytes(b"PK")
    assert "is a file" in check_release(a_file)[0]
    assert check_release(CLEAN) == [] and check_release(MALFORMED) == []
    assert release.DEFAULT_DIR == paths.DOWNLOADS / "llmscholarbench"
    assert str(release.DEFAULT_DIR) in check_release(None)[0] or check_release(None) == []


def test_import_without_the_release_stops_with_the_message(tmp_path):
    with pytest.raises(FileNotFoundError, match="zenodo.20417107"):
        import_release(tmp_path / "absent", store_root=tmp_path / "s", progress=False)
    assert not (tmp_path / "s").exists()


def test_cli_check_and_import(tmp_path, capsys):
    assert release.main(["check", str(tmp_path / "absent")]) == 1
    assert "zenodo.20417107" in capsys.readouterr().err
    assert release.main(["check", str(CLEAN)]) == 0
    assert release.main(["import", str(CLEAN), "--store", str(tmp_path / "s"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "18 records written" in out and "per model" in out
    assert release.main(["import", str(tmp_path / "absent"), "--store", str(tmp_path / "s2")]) == 1


# ---- the tiny synthetic release of tests/release_fixture.py -----------------------------------------
def test_tiny_release_writer_round_trips_through_the_importer(tmp_path):
    import release_fixture as rf

    names = ["Albert Einstein", "Lise Meitner", "Richard Feynman", "Emmy Noether", "Paul Dirac"]
    n = rf.write_lsb_release(tmp_path / "rel", names, seed=3)
    assert check_release(tmp_path / "rel") == []
    rep = import_release(tmp_path / "rel", store_root=tmp_path / "s", progress=False)
    assert (rep.attempt_files, rep.written, rep.malformed, rep.duplicates) == (n, n, [], [])
    sweep_models = [m for m, _, _ in rf.LSB_MODELS if not m.endswith("-grounded")]
    recs = list(RawStore(tmp_path / "s").iter_records())
    by_exp = {e: {r["model"] for r in recs if r["experiment"] == e} for e in ("temperature", "baseline", "rag")}
    assert by_exp == {"temperature": set(sweep_models), "baseline": set(sweep_models),
                      "rag": {"gemini-2.5-flash-grounded"}}
    assert {r["temperature"] for r in recs if r["experiment"] == "temperature"} == set(rf.SWEEP_TEMPERATURES)
    assert {r["replicate"] for r in recs if r["experiment"] == "baseline"} == {0, 1}     # two runs
    lab = label_attempts(recs)
    assert set(lab["label"]) == {"valid", "invalid"} and lab["valid_attempt"].sum() == len(
        {(r["experiment"], r["model"], r["task"], r["param"], r["temperature"], r["replicate"]) for r in recs})
    named = {i["Name"] for r in recs if r["content"] and r["content"].startswith("[") for i in json.loads(r["content"])}
    assert named <= set(names)


def test_a_release_without_its_gemini_part_is_named_at_check_time(tmp_path):
    import shutil

    part = tmp_path / "rel"
    shutil.copytree(CLEAN, part)
    shutil.rmtree(part / "data-gemini")
    (msg,) = check_release(part)
    assert "no data-gemini/" in msg and "rag experiment" in msg and "zenodo.20417107" in msg
    with pytest.raises(FileNotFoundError, match="no data-gemini/"):
        import_release(part, store_root=tmp_path / "s", progress=False)
    assert release.main(["check", str(part)]) == 1
    (part / "data-gemini").mkdir()                        # present but empty: unpacked incompletely
    (msg,) = check_release(part)
    assert "data-gemini/ holds no config_<model> folder" in msg


def test_cli_import_exits_non_zero_on_malformed_files_and_unusable_stores(tmp_path, capsys):
    assert release.main(["import", str(MALFORMED), "--store", str(tmp_path / "s"), "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "malformed" in captured.out and "malformed attempt files were not imported" in captured.err
    a_file = tmp_path / "store-file"
    a_file.write_text("x")
    assert release.main(["import", str(CLEAN), "--store", str(a_file), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"raw store {a_file}: a file is in the way" in err and "Traceback" not in err


def test_import_into_a_read_only_store_says_so_without_a_traceback(tmp_path, capsys, monkeypatch):
    """Issue 26: ``import --store`` on a read-only folder ended in a traceback on .writer.lock."""
    import errno

    from lib.llm import store as st

    real_open = os.open

    def read_only(path, flags, *a):
        if str(path).endswith(".writer.lock") or flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *a)
    (tmp_path / "ro").mkdir()
    monkeypatch.setattr(st.os, "open", read_only)
    assert release.main(["import", str(CLEAN), "--store", str(tmp_path / "ro"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "not writable (Read-only file system" in err and ".writer.lock" in err and "Traceback" not in err
