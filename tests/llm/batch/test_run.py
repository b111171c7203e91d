"""The batch strategy (lib.llm.batch) against the embedded panel's Batch API on 127.0.0.1.

Checked against the per-request path on the same requests: the same answers, bodies, usage and
labels land in the store. Interrupting a run at random points and starting it again loses,
duplicates and resubmits nothing; offline output files (vllm run-batch's format) import as the
same attempts, with malformed lines reported by number.
"""
import json
import random
import shutil

import pytest

from lib.config import BatchSettings
from lib.llm.batch import api as batch_api
from lib.llm.batch import files as batch_files
from lib.llm.batch import journal as batch_journal
from lib.llm.batch import offline
from lib.llm.client import Endpoint
from lib.llm.collect import collect
from lib.llm.kernel import IncompleteCollectionError
from lib.llm.store import RawStore
from lib.scholar import cli
from lib.scholar.labels import llmcaller_validate
from lib.scholar.models import load_models
from lib.scholar.plan import build_requests
from lib.panel import FaultConfig, Panel
from lib.panel.server import make_server

import threading


class Served:
    """A panel server on a thread, with its batch service visible (batches created, create calls)."""

    def __init__(self, world, faults=None):
        self.panel = Panel.from_world(world, 11, faults=faults or FaultConfig())
        self.server, self.stopping = make_server(self.panel)
        self.batches = self.server.RequestHandlerClass.batches
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.batches.root, ignore_errors=True)


@pytest.fixture(scope="module")
def tiny_world(tmp_path_factory):
    """A small synthetic world (the panel's scholar answers need its name tables)."""
    from lib.groundtruth.world import load_world
    return load_world(3, 400, cache_dir=tmp_path_factory.mktemp("world"))


@pytest.fixture
def served(tiny_world):
    s = Served(tiny_world)
    yield s
    s.close()


def _requests(replicates=2):
    models = load_models()
    models = models[models["key"].isin(["llama-3.1-8b", "gemini-2.5-pro"])]
    return build_requests(models, experiment="bt", families=["top_k", "twins"], replicates=replicates, seed=5,
                          model_id="key")


def _endpoint(url, max_tries=4, **batch):
    return Endpoint(base_url=url, model_id="key", mode="batch", max_tries=max_tries, backoff_base_s=0.001,
                    backoff_max_s=0.01, retry_after_cap_s=0.01,
                    batch={"poll_initial_s": 0.005, "poll_max_s": 0.02, **batch})


def _content(root):
    return {tuple(r[k] for k in ("model", "param", "replicate", "attempt")):
            (r["status"], r["content"], r["validation"]["is_valid"], json.dumps(r["request"], sort_keys=True))
            for r in RawStore(root).iter_records()}


def _lines(root):
    return sum(1 for p in RawStore(root).shards() for _ in open(p))


def test_batch_round_trip_equals_the_per_request_path(served, tmp_path):
    reqs = _requests()
    s = collect(reqs, _endpoint(served.url, max_requests_per_file=7), store_root=tmp_path / "b", validate=llmcaller_validate)
    r = collect(reqs, Endpoint(base_url=served.url, model_id="key"), store_root=tmp_path / "r", validate=llmcaller_validate)
    batch, single = _content(tmp_path / "b"), _content(tmp_path / "r")
    assert batch == single                                   # answers, bodies sent, labels, re-asks
    assert any(k[3] > 1 for k in batch)                      # validation re-asks happened (rounds 2, 3)
    assert s.attempts_written == r.attempts_written == len(batch)
    assert s.valid_requests == r.valid_requests
    rec = next(RawStore(tmp_path / "b").iter_records())
    assert rec["batch_id"].startswith("batch_") and rec["custom_id"] == batch_files.custom_id(
        next(q for q in reqs if q.request_id == rec["request_id"]), rec["attempt"])
    assert rec["usage"]["total_tokens"] > 0
    idx = RawStore(tmp_path / "b").index()
    assert idx["batch_id"].notna().all() and len(idx) == len(batch)
    # files were split by the request limit: 36 first attempts in files of at most 7
    created = served.batches.created
    assert created >= 6
    again = collect(reqs, _endpoint(served.url), store_root=tmp_path / "b", validate=llmcaller_validate)
    assert again.attempts_written == 0 and served.batches.created == created   # sends nothing


class Kill(Exception):
    pass


def test_a_kill_at_10_random_points_resumes_with_nothing_lost_duplicated_or_resubmitted(tiny_world, tmp_path,
                                                                                       monkeypatch):
    reqs = _requests()
    faults = FaultConfig(rate_batch_line=0.2)
    calls = []
    monkeypatch.setattr(batch_journal, "checkpoint", lambda name: calls.append(name))
    base = Served(tiny_world, faults)
    try:
        collect(reqs, _endpoint(base.url, max_requests_per_file=9), store_root=tmp_path / "base", validate=llmcaller_validate)
        expected = _content(tmp_path / "base")
    finally:
        base.close()
    assert {"file_written", "upload", "uploaded", "create", "created", "poll", "download", "store_line",
            "stored"} <= set(calls)
    # a point is the k-th pass through a named checkpoint; polls repeat with timing, but every batch
    # is polled at least once, so only the first (number of batches) polls are certain to happen
    counts = {name: calls.count(name) for name in set(calls)}
    counts["poll"] = calls.count("created")
    points = sorted((name, k) for name, c in counts.items() for k in range(1, c + 1))
    for i, (name, n) in enumerate(random.Random(3).sample(points, 10)):
        seen = {}

        def checkpoint(point, name=name, n=n):
            seen[point] = seen.get(point, 0) + 1
            if point == name and seen[point] == n:
                raise Kill(point)

        monkeypatch.setattr(batch_journal, "checkpoint", checkpoint)
        s = Served(tiny_world, faults)
        root = tmp_path / f"k{i}"
        try:
            with pytest.raises(Kill):
                collect(reqs, _endpoint(s.url, max_requests_per_file=9), store_root=root, validate=llmcaller_validate)
            monkeypatch.setattr(batch_journal, "checkpoint", lambda name: None)
            collect(reqs, _endpoint(s.url, max_requests_per_file=9), store_root=root, validate=llmcaller_validate)
            got = _content(root)
            assert got == expected, f"kill at {name} (point {n}): the resumed store differs"
            assert _lines(root) == len(expected), f"kill at {name}: duplicated lines"
            # every batch the provider created is journaled and stored once (none orphaned, none paid twice) ...
            journal = batch_journal.Journal(root)
            created = [e["batch_id"] for e in journal.events if e["event"] == "created"]
            stored = [e["batch_id"] for e in journal.events if e["event"] == "stored"]
            assert sorted(created) == sorted(set(created)) == sorted(s.batches.batches) == sorted(stored), name
            # ... and no line ran twice: each run of a custom id is a journaled failed try or the stored attempt
            recs = {r["custom_id"] for r in RawStore(root).iter_records() if r["status"] != "api_error"}
            for cid, n_runs in s.batches._seen.items():
                assert n_runs == len(journal.fails.get(cid, [])) + (cid in recs), f"kill at {name}: {cid} resubmitted"
        finally:
            s.close()


def test_line_faults_expired_batches_and_429_on_create_end_as_the_fault_free_run(tiny_world, tmp_path):
    reqs = _requests()
    clean = Served(tiny_world)
    try:
        collect(reqs, _endpoint(clean.url, max_requests_per_file=12), store_root=tmp_path / "clean", validate=llmcaller_validate)
    finally:
        clean.close()
    expected = _content(tmp_path / "clean")
    for name, faults in {"lines": FaultConfig(rate_batch_line=0.3), "expired": FaultConfig(rate_batch_expired=0.4),
                         "429": FaultConfig(rate_batch_429=0.5, retry_after_s=0.001)}.items():
        s = Served(tiny_world, faults)
        root = tmp_path / name
        try:
            summary = collect(reqs, _endpoint(s.url, max_tries=10, max_requests_per_file=12), store_root=root, validate=llmcaller_validate)
            recs = list(RawStore(root).iter_records())
            if name == "429":
                assert s.batches.create_calls > s.batches.created      # refused creates were retried
            else:
                kind = {"lines": "timeout", "expired": "batch_expired"}[name]
                assert summary.tries[kind] > 0
                retried = [r for r in recs if r["try_log"]]
                assert retried and all(t["kind"] == kind for r in retried for t in r["try_log"])
                assert all(r["tries"] == len(r["try_log"]) + 1 for r in recs if r["status"] == "ok")
            assert _content(root) == expected, name   # the failures never reach the answers
        finally:
            s.close()


def test_lines_out_of_tries_stay_open_and_the_run_fails_then_resumes(tiny_world, tmp_path):
    """Lines that fail every try (an outage) are failed tries, never attempts: the completeness
    check fails the run, and a run against a healthy endpoint then answers every request."""
    reqs = _requests(replicates=1)[:6]
    s = Served(tiny_world, FaultConfig(rate_batch_line=1.0))
    try:
        with pytest.raises(IncompleteCollectionError, match="6 of 6 requests") as exc:
            collect(reqs, _endpoint(s.url), store_root=tmp_path, max_attempts=2, validate=llmcaller_validate)
        assert exc.value.summary.failed == 6 and exc.value.summary.attempts_written == 0
        assert list(RawStore(tmp_path).iter_records()) == []              # nothing stored as an answer
        s.panel.faults = FaultConfig()                                    # the outage is over
        summary = collect(reqs, _endpoint(s.url), store_root=tmp_path, max_attempts=2, validate=llmcaller_validate)
    finally:
        s.close()
    assert summary.failed == 0 and summary.answered + summary.ended_invalid == 6
    assert all(r["status"] != "api_error" for r in RawStore(tmp_path).iter_records())


def test_the_in_process_panel_transport_serves_the_batch_api_too(tiny_world, tmp_path):
    from dataclasses import replace

    from lib.endpoints import IN_PROCESS_URL, PanelTransport

    reqs = _requests(replicates=1)[:8]
    panel = Panel.from_world(tiny_world, 11)
    ep = replace(_endpoint(IN_PROCESS_URL, max_requests_per_file=3), transport=PanelTransport(panel))
    collect(reqs, ep, store_root=tmp_path / "b", validate=llmcaller_validate)
    collect(reqs, replace(ep, mode="requests"), store_root=tmp_path / "r", validate=llmcaller_validate)
    assert _content(tmp_path / "b") == _content(tmp_path / "r")


def test_profile_llm_mode_is_validated_and_reaches_the_endpoint(tmp_path):
    from lib import config

    p = tmp_path / "p.yaml"
    p.write_text("name: t\nsynthetic: true\nseed: 1\nworld: {n_authors: 10}\npromises: []\n"
                 "llm: {mode: batches}\n")
    with pytest.raises(config.ProfileError, match=r"llm\.mode"):
        config.load_profile(p)
    p.write_text("name: t\nsynthetic: true\nseed: 1\nworld: {n_authors: 10}\npromises: []\n"
                 "llm: {mode: batch, batch: {max_requests_per_file: 10}}\n")
    ep = Endpoint.from_profile(config.load_profile(p).llm, base_url="http://127.0.0.1:9/v1")
    assert ep.mode == "batch" and BatchSettings.from_dict(ep.batch).max_requests_per_file == 10


def test_a_collection_under_min_requests_takes_the_per_request_path(served, tmp_path):
    reqs = _requests(replicates=1)[:4]
    summary = collect(reqs, _endpoint(served.url, min_requests=5), store_root=tmp_path, max_attempts=1, validate=llmcaller_validate)
    assert summary.attempts_written == 4 and not (tmp_path / "batches").exists()   # no batch journal
    assert all(r.get("batch_id") is None and r["latency_s"] is not None for r in RawStore(tmp_path).iter_records())
    with pytest.raises(ValueError, match=r"key 'llm\.batch\.min_requests': Input should be greater than or equal to 0 "
                                         r"\(got -1\)"):
        BatchSettings.from_dict({"min_requests": -1})
    with pytest.raises(ValueError, match=r"key 'llm\.batch\.keep_file': unknown key \(did you mean 'keep_files'\?\)"):
        BatchSettings.from_dict({"keep_file": True})            # a typo is named, not ignored
    assert BatchSettings.from_dict({"keep_files": True, "poll_factor": 2}).poll_factor == 2.0


def test_stored_batches_leave_no_files_at_the_provider(tiny_world, tmp_path):
    """Once stored, a batch's input, output and error files are deleted at the provider and the
    deletions journaled; a re-run sends nothing; keep_files keeps them."""
    s = Served(tiny_world, FaultConfig(rate_batch_line=0.2))      # failed lines: error files too
    try:
        reqs = _requests()
        collect(reqs, _endpoint(s.url, max_requests_per_file=7), store_root=tmp_path / "b", validate=llmcaller_validate)
        assert s.batches.files == {}
        journal = batch_journal.Journal(tmp_path / "b")
        created = [e for e in journal.events if e["event"] == "created"]
        stored = [e for e in journal.events if e["event"] == "stored"]
        assert created and {e["file_id"] for e in created} | {e["error_file_id"] for e in stored if e["error_file_id"]} \
            <= journal.deleted() and journal.undeleted() == [] and journal.uploaded() == {}
        assert any(e["error_file_id"] for e in stored)
        n = s.batches.created
        again = collect(reqs, _endpoint(s.url), store_root=tmp_path / "b", validate=llmcaller_validate)
        assert again.attempts_written == 0 and s.batches.created == n
        collect(reqs, _endpoint(s.url, keep_files=True), store_root=tmp_path / "k", validate=llmcaller_validate)
        assert len(s.batches.files) >= 2 * (s.batches.created - n)        # inputs and outputs kept
    finally:
        s.close()


def test_a_full_disk_under_the_panel_batch_folder_is_answered_not_dropped(served, monkeypatch):
    """An OSError while the panel stores an upload (ENOSPC) comes back as HTTP 507 naming the
    folder and the error, so the collector's BatchError says why instead of 'ReadError'."""
    import errno

    import httpx

    import lib.panel.server as srv

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(srv.tempfile, "NamedTemporaryFile", full)
    r = httpx.post(served.url + "/files", data={"purpose": "batch"}, files={"file": ("x.jsonl", b"{}\n")})
    assert r.status_code == 507
    msg = r.json()["error"]["message"]
    assert "No space left on device" in msg and str(served.batches.root) in msg


@pytest.mark.parametrize("point,n", [("poll", 1), ("store_line", 5), ("created", 2)])
def test_a_killed_batch_run_resumes_on_a_restarted_panel_without_paying_twice(tiny_world, tmp_path, monkeypatch,
                                                                           point, n):
    """Issue 26: SIGKILL mid-run, and the rerun's panel (a new process: its batch store is gone) answered
    HTTP 404 batch_not_found to every rerun. A batch that vanished at the provider has its never-stored
    lines submitted again; the stored ones are never sent again."""
    reqs = _requests()
    base = Served(tiny_world)
    try:
        collect(reqs, _endpoint(base.url, max_requests_per_file=9), store_root=tmp_path / "base", validate=llmcaller_validate)
    finally:
        base.close()
    expected = _content(tmp_path / "base")
    seen = {}

    def checkpoint(name):
        seen[name] = seen.get(name, 0) + 1
        if name == point and seen[name] == n:
            raise Kill(name)
    monkeypatch.setattr(batch_journal, "checkpoint", checkpoint)
    first, root = Served(tiny_world), tmp_path / "k"
    try:
        with pytest.raises(Kill):
            collect(reqs, _endpoint(first.url, max_requests_per_file=9), store_root=root, validate=llmcaller_validate)
    finally:
        first.close()            # the panel process is gone, and its batches with it
    monkeypatch.setattr(batch_journal, "checkpoint", lambda name: None)
    stored_before = {r["custom_id"] for r in RawStore(root).iter_records()}
    assert batch_journal.Journal(root).open_batches(), "the kill must leave a journaled batch open"
    second = Served(tiny_world)
    try:
        collect(reqs, _endpoint(second.url, max_requests_per_file=9), store_root=root, validate=llmcaller_validate)
        assert _content(root) == expected and _lines(root) == len(expected)
        assert not stored_before & set(second.batches._seen), "a stored line was sent again"
        journal = batch_journal.Journal(root)
        assert not journal.open_batches() and any(e["event"] == "vanished" for e in journal.events)
    finally:
        second.close()


def test_a_batch_whose_lines_are_all_refused_fails_without_storing_them(served, tmp_path):
    """Issue 26: every line 4xx (a model the server does not serve) was stored as client_error and the
    run reported 0 failed; now it stops with the status, the body and the hint, storing nothing."""
    from dataclasses import replace

    from lib.llm.client import RejectedError

    reqs = [replace(r, api_model="no-such-model") for r in _requests(replicates=1)[:6]]
    with pytest.raises(RejectedError, match=r"HTTP 404.*no-such-model.*Hint: model not served"):
        collect(reqs, _endpoint(served.url, max_requests_per_file=9), store_root=tmp_path, validate=llmcaller_validate)
    assert not list(RawStore(tmp_path).iter_records())
