"""The batch journal: events appended and replayed, a torn last line after a kill, idempotent failed tries.

Each test writes a journal as a batch run does (upload, create, store, delete), opens it again as
the next run would, and checks the views the run resumes from.
"""
import json

from lib.llm.batch import journal as jn
from lib.llm.batch.journal import BatchError, BatchGone, Journal
from lib.llm.store import RawStore


def a_run(root, provider=None) -> Journal:
    """Two input files uploaded and created; the first batch stored (and its files deleted), the second open."""
    j = Journal(root, provider)
    j.event("uploaded", file="a.jsonl", sha256="sa", file_id="f-a")
    j.event("creating", file_id="f-a", file="a.jsonl", n=2)
    j.event("created", batch_id="b-a", file_id="f-a", file="a.jsonl", n=2)
    j.event("uploaded", file="b.jsonl", sha256="sb", file_id="f-b")
    j.event("creating", file_id="f-b", file="b.jsonl", n=1)
    j.event("created", batch_id="b-b", file_id="f-b", file="b.jsonl", n=1)
    j.event("stored", batch_id="b-a", output_file_id="o-a", error_file_id=None)
    j.event("uploaded", file="c.jsonl", sha256="sc", file_id="f-c")
    j.event("creating", file_id="f-c", file="c.jsonl", n=4)          # killed before the provider answered
    return j


def test_events_replay_into_the_views_a_resumed_run_starts_from(tmp_path):
    j = a_run(tmp_path)
    j.close()
    again = Journal(tmp_path)
    assert [e["event"] for e in again.events] == [e["event"] for e in j.events] and again.events == j.events
    assert [e["batch_id"] for e in again.open_batches()] == ["b-b"]
    assert [e["file_id"] for e in again.unconfirmed_creates()] == ["f-c"]
    assert again.uploaded() == {"sa": "f-a", "sb": "f-b", "sc": "f-c"}       # an identical file is not re-sent
    assert again.undeleted() == ["f-a", "o-a"]                             # the stored batch's input and output
    again.event("deleted", file_id="f-a")
    again.event("vanished", batch_id="b-b", file_id="f-b")
    assert again.undeleted() == ["o-a"] and again.open_batches() == [] and "sa" not in again.uploaded()
    again.close()
    # the files are not shards of the raw store (*.ndjson, not *.jsonl) and each event is one JSON line
    assert RawStore(tmp_path).shards() == []
    lines = (tmp_path / "batches" / "journal.ndjson").read_text().splitlines()
    assert len(lines) == 11 and all(json.loads(x)["at"].endswith("+00:00") for x in lines)


def test_a_torn_last_line_is_skipped_and_the_next_event_starts_a_fresh_line(tmp_path):
    a_run(tmp_path).close()
    path = tmp_path / "batches" / "journal.ndjson"
    with open(path, "ab") as f:
        f.write(b'{"event": "created", "batch_id": "b-c", "fi')              # killed mid-write
    j = Journal(tmp_path)
    assert len(j.events) == 9 and j.unconfirmed_creates()[0]["file_id"] == "f-c"   # the torn create is not seen
    j.event("created", batch_id="b-c", file_id="f-c", file="c.jsonl", n=4)
    j.close()
    again = Journal(tmp_path)
    assert len(again.events) == 10 and again.unconfirmed_creates() == []
    assert [e["batch_id"] for e in again.open_batches()] == ["b-b", "b-c"]
    assert path.read_bytes().count(b"\n") == 11                             # the torn line stays, on its own line


def test_failed_tries_are_recorded_once_per_batch_across_runs(tmp_path):
    j = Journal(tmp_path, "openai")
    t = {"custom_id": "c1", "batch_id": "b-a", "kind": "server", "http_status": 500}
    j.fail(t)
    j.fail(dict(t))                                     # the same line of the same batch: a resumed store
    j.fail({**t, "batch_id": "b-b"})                    # the same line failing in the next batch: a new try
    j.close()
    again = Journal(tmp_path, "openai")                 # a routed collection: one journal per provider
    assert [x["batch_id"] for x in again.fails["c1"]] == ["b-a", "b-b"]
    again.fail(t)
    again.close()
    tries = (tmp_path / "batches" / "openai" / "tries.ndjson").read_text().splitlines()
    assert len(tries) == 2 and Journal(tmp_path).fails == {}               # the unrouted journal is another


def test_errors_and_checkpoints():
    assert issubclass(BatchGone, BatchError) and issubclass(BatchError, RuntimeError)
    assert jn.checkpoint("poll") is None                # a named point tests replace to interrupt a run
    assert jn.now()[:2] == "20" and jn.now().endswith("+00:00")
