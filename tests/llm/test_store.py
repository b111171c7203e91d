"""Raw store: append-only shards, attempt identity, partial lines, resume, parquet index."""
import json
import os

import pytest

from lib.llm.store import RawStore, StoreLockedError, attempt_key, request_key, shard_name


def rec(model="m", task="top_k", param="top_5", temperature=0.5, replicate=0, attempt=1, valid=False, stop=False,
        experiment="exp", **extra):
    return {"experiment": experiment, "model": model, "task": task, "param": param, "temperature": temperature,
            "replicate": replicate, "attempt": attempt, "status": "ok", "stop": stop, "prompt_sha256": "abc",
            "validation": {"is_valid": valid, "message": "x", "extracted_data": None},
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}, "content": f"c{attempt}",
            **extra}


def test_layout_and_roundtrip(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec())
        s.append(rec(model="org/model:free", replicate=1))
    assert (tmp_path / "exp" / "m.jsonl").exists()
    assert (tmp_path / "exp" / f"{shard_name('org/model:free')}.jsonl").exists()
    got = list(RawStore(tmp_path).iter_records())
    assert [r["model"] for r in got] == ["m", "org/model:free"]
    assert all(line.endswith("\n") for p in tmp_path.glob("*/*.jsonl") for line in p.read_text().splitlines(True))


def test_identity_includes_replicate_and_attempt_and_refuses_duplicates(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec(replicate=0))
        s.append(rec(replicate=1))           # same prompt, another replicate: a new request
        s.append(rec(replicate=1, attempt=2))
        with pytest.raises(ValueError, match=r"attempt \('exp', 'm', 'top_k', 'top_5', 0.5, 1, 2\) is already stored"):
            s.append(rec(replicate=1, attempt=2))
    assert len(list(RawStore(tmp_path).iter_records())) == 3
    assert request_key(rec(temperature=0.1 + 0.2)) == request_key(rec(temperature=0.3))


def test_record_missing_keys_is_refused(tmp_path):
    r = rec()
    del r["replicate"]
    with RawStore(tmp_path) as s, pytest.raises(ValueError, match=r"lacks key fields \['replicate'\]"):
        s.append(r)


def test_partial_last_line_is_ignored_by_readers_and_cut_by_the_next_writer(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec(attempt=1))
        s.append(rec(attempt=2))
    shard = tmp_path / "exp" / "m.jsonl"
    whole = shard.read_bytes()
    line3 = (json.dumps(rec(attempt=3)) + "\n").encode()
    shard.write_bytes(whole + line3[:17])                    # a writer killed mid-record
    assert [r["attempt"] for r in RawStore(tmp_path).iter_records()] == [1, 2]
    s = RawStore(tmp_path)
    with s:
        assert s.partial_lines_dropped == 1 and shard.read_bytes() == whole
        assert s.next_attempt(rec(), 3) == 3
        s.append(rec(attempt=3))
    assert [r["attempt"] for r in RawStore(tmp_path).iter_records()] == [1, 2, 3]


def test_a_shard_that_is_only_a_partial_line_is_emptied(tmp_path):
    (tmp_path / "exp").mkdir(parents=True)
    (tmp_path / "exp" / "m.jsonl").write_bytes(b'{"experiment": "exp", "mo')
    with RawStore(tmp_path) as s:
        assert s.partial_lines_dropped == 1 and s.next_attempt(rec(), 3) == 1
    assert (tmp_path / "exp" / "m.jsonl").read_bytes() == b""


def test_resume_rules(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec(param="a", attempt=1))
        s.append(rec(param="b", attempt=1))
        s.append(rec(param="b", attempt=2, valid=True))
        s.append(rec(param="c", attempt=1, stop=True))
        for a in (1, 2, 3):
            s.append(rec(param="d", attempt=a))
    with RawStore(tmp_path) as s:
        assert s.next_attempt(rec(param="a"), 3) == 2          # continue after an invalid attempt
        assert s.next_attempt(rec(param="b"), 3) is None       # a valid attempt ends the request
        assert s.next_attempt(rec(param="c"), 3) is None       # a 400-type stop ends it
        assert s.next_attempt(rec(param="d"), 3) is None       # all attempts used
        assert s.next_attempt(rec(param="e"), 3) == 1
        assert s.next_attempt(rec(param="a", replicate=5), 3) == 1


def test_duplicate_lines_on_disk_are_ignored_first_wins(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec(content="first"))
    shard = tmp_path / "exp" / "m.jsonl"
    with open(shard, "a") as f:
        f.write(json.dumps(rec(content="second")) + "\n")
    got = list(RawStore(tmp_path).iter_records())
    assert len(got) == 1 and got[0]["content"] == "first"
    with RawStore(tmp_path) as s:
        assert s.duplicates_ignored == 1
    assert len(RawStore(tmp_path).index()) == 1


def test_single_writer_lock(tmp_path):
    with RawStore(tmp_path):
        with pytest.raises(StoreLockedError, match="another collector is writing"):
            RawStore(tmp_path).open()
    with RawStore(tmp_path):                                  # released on close
        pass


def test_append_requires_an_open_writer(tmp_path):
    with pytest.raises(RuntimeError, match="open it for writing first"):
        RawStore(tmp_path).append(rec())


def test_index_is_typed_located_and_rebuilt_when_shards_change(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec(attempt=1, served_model="m-1", tries=2, http_status=200, latency_s=0.5))
        s.append(rec(attempt=2, valid=True))
    idx = RawStore(tmp_path).index()
    assert (tmp_path / "index.parquet").exists()
    assert idx["attempt"].tolist() == [1, 2] and idx["valid"].tolist() == [False, True]
    assert idx["shard"].tolist() == ["exp/m.jsonl"] * 2 and idx["line"].tolist() == [0, 1]
    assert idx.loc[0, "served_model"] == "m-1" and idx.loc[0, "tries"] == 2 and idx["total_tokens"].tolist() == [15, 15]
    assert str(idx["tries"].dtype) == "Int64" and idx["temperature"].dtype == float
    with RawStore(tmp_path) as s:
        s.append(rec(replicate=3))
    assert len(RawStore(tmp_path).index()) == 3              # stale index rebuilt
    os.utime(tmp_path / "index.parquet")
    assert len(RawStore(tmp_path).index()) == 3


def test_records_frame_and_experiment_filter(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec(experiment="a"))
        s.append(rec(experiment="b"))
    assert RawStore(tmp_path).records("a")["experiment"].tolist() == ["a"]
    assert attempt_key(rec()) == ("exp", "m", "top_k", "top_5", 0.5, 0, 1)


def test_malformed_lines_are_named_quarantined_and_the_run_goes_on(tmp_path, caplog):
    from lib.llm.store import QUARANTINE_NAME

    with RawStore(tmp_path) as s:
        s.append(rec(attempt=1))
        s.append(rec(replicate=1))
    shard = tmp_path / "exp" / "m.jsonl"
    with open(shard, "a") as f:
        f.write(json.dumps(rec(attempt="zero")) + "\n")      # wrong field type
        f.write(json.dumps([1, 2, 3]) + "\n")                # a JSON list
        f.write("{not json}\n")
    f_good = json.dumps(rec(replicate=2)) + "\n"
    with open(shard, "a") as f:
        f.write(f_good)
    # readers skip them, naming the shard and the line
    assert [r["replicate"] for r in RawStore(tmp_path).iter_records()] == [0, 1, 2]
    assert f"{shard} line 3: field 'attempt' must be an integer >= 1, got 'zero'" in caplog.text
    assert f"{shard} line 4: expected a JSON object, got a JSON list" in caplog.text
    # a writer moves them aside with the reason and goes on with what is valid
    with RawStore(tmp_path) as s:
        assert [(q["line"], q["reason"][:12]) for q in s.quarantined] == [(3, "field 'attem"), (4, "expected a J"),
                                                                          (5, "not valid JS")]
        assert set(s.attempts(rec(replicate=2))) == {1}      # the valid line after the bad ones is kept
        s.append(rec(replicate=3))
    moved = [json.loads(x) for x in (tmp_path / QUARANTINE_NAME).read_text().splitlines()]
    assert [m["shard"] for m in moved] == ["exp/m.jsonl"] * 3 and json.loads(moved[0]["text"])["attempt"] == "zero"
    assert len(shard.read_text().splitlines()) == 4 and len(RawStore(tmp_path).index()) == 4
    with RawStore(tmp_path) as s:
        assert s.quarantined == []                          # nothing left to move


def test_failed_tries_are_kept_but_are_not_attempts(tmp_path):
    with RawStore(tmp_path) as s:
        s.append(rec(status="infra_error", error={"kind": "connection"}, tries=5))
        s.append(rec(status="api_error", error={"kind": "timeout"}, tries=2))     # a legacy record: same rule
        assert s.next_attempt(rec(), 3) == 1 and s.tries_spent(rec(), 1) == 7
        s.append(rec())                                     # attempt 1 proper: no duplicate-key refusal
    store = RawStore(tmp_path)
    assert len(list(store.iter_records())) == 1 and len(list(store.iter_records(failed_tries=True))) == 2
    assert len(store.index()) == 1


def test_a_store_that_is_a_file_or_read_only_gets_a_message(tmp_path, monkeypatch):
    from lib.llm.store import StoreError

    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(StoreError, match=r"raw store .*file: a file is in the way"):
        RawStore(f).open()
    with pytest.raises(StoreError, match="a file is in the way"):
        RawStore(f / "sub").open()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if os.access(ro, os.W_OK):       # root ignores permissions: make the file system refuse instead
            real_open = os.open
            monkeypatch.setattr(os, "open", lambda p, *a, **k: (_ for _ in ()).throw(PermissionError(13, "denied"))
                                if str(p).startswith(str(ro)) else real_open(p, *a, **k))
        with pytest.raises(StoreError, match=r"ro: not writable"):
            RawStore(ro).open()
    finally:
        ro.chmod(0o700)


def test_index_is_the_same_whether_a_shard_is_read_by_columns_or_line_by_line(tmp_path, monkeypatch):
    """write_index reads a clean shard with pyarrow's JSON reader and any other line by line: both
    give the same rows (duplicates and failed tries left out, nested fields, missing values)."""
    import pandas as pd
    import pyarrow.json as pj

    with RawStore(tmp_path) as s:
        s.append(rec())
        s.append(rec(replicate=1, http_status=200, tries=2, latency_s=0.25, batch_id="batch_1", custom_id="x-r1-a1"))
        s.append(rec(replicate=2, status="api_error", error={"kind": "server", "code": 503, "message": "down"}))
        s.append(rec(replicate=3, status="client_error", stop=True, valid=None, usage=None))
        s.append(rec(model="n", attempt=2, valid=True))
    shard = tmp_path / "exp" / "m.jsonl"
    with open(shard, "a") as f:                    # a duplicate line, as a killed writer's rerun may leave
        f.write(shard.read_text().splitlines(True)[0])
    line_by_line = []
    monkeypatch.setattr(RawStore, "_read_lines", lambda self, path: line_by_line.append(path) or iter(()))
    fast = RawStore(tmp_path).write_index()
    assert line_by_line == []                      # both shards were read by columns
    monkeypatch.undo()
    assert sorted(fast["replicate"]) == [0, 0, 1, 3]     # the failed try (503) is no attempt, the duplicate dropped

    def broken(*a, **k):
        raise ValueError("pyarrow cannot read this")
    monkeypatch.setattr(pj, "read_json", broken)
    slow = RawStore(tmp_path).write_index()
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.loc[fast["replicate"] == 1, "tries"].tolist() == [2] and fast["valid"].tolist().count(True) == 1


def test_a_writer_told_to_wait_takes_the_lock_when_the_other_writer_closes(tmp_path, monkeypatch):
    """The runner's side-by-side notebooks (COMPANION_STORE_WAIT_S) take turns on one store."""
    import threading
    import time

    monkeypatch.setenv("COMPANION_NOTEBOOK", "05_authority_pilot_regression")
    first = RawStore(tmp_path)
    first.open()
    assert "notebook 05_authority_pilot_regression" in (tmp_path / ".writer.lock").read_text()
    with pytest.raises(StoreLockedError, match=r"is writing to .*\(pid \d+ notebook 05_authority.*after waiting 0.3 s"):
        RawStore(tmp_path, wait_s=0.3).open()
    threading.Timer(0.5, first.close).start()
    monkeypatch.setenv("COMPANION_STORE_WAIT_S", "30")
    t0 = time.monotonic()
    with RawStore(tmp_path) as second:                       # waits for first.close()
        assert 0.4 < time.monotonic() - t0 < 10 and second._lock_fd is not None
    assert RawStore(tmp_path, wait_s=0).wait_s == 0
