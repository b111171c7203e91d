"""lib.rawsource: a run never resumes answers of another source (stale panel answers, or synthetic
answers behind a real label)."""
from __future__ import annotations

import json

import pytest

from lib import config, rawsource


@pytest.fixture
def quick():
    return config.load_profile("quick")


def _store(raw):
    (raw / "baseline").mkdir(parents=True)
    (raw / "baseline" / "shard-0.jsonl").write_text('{"model": "m"}\n')


def test_first_run_records_the_source_and_the_same_panel_resumes(tmp_path, quick):
    raw = tmp_path / "raw"
    assert rawsource.check(quick, raw) is None
    have = json.loads((raw / rawsource.FILE).read_text())
    assert have["kind"] == "panel" and len(have["fingerprint"]) == 64
    _store(raw)
    assert rawsource.check(quick, raw) is None and (raw / "baseline" / "shard-0.jsonl").is_file()


def test_a_changed_panel_moves_its_old_answers_aside(tmp_path, quick):
    raw = tmp_path / "raw"
    rawsource.check(quick, raw)
    _store(raw)
    other = quick.model_copy(update={"seed": quick.seed + 1})      # another seed: other panel answers
    msg = rawsource.check(other, raw)
    assert msg and "another embedded panel" in msg and "moved to" in msg
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("raw.superseded-")]
    assert len(moved) == 1 and (moved[0] / "baseline" / "shard-0.jsonl").is_file()     # kept, not deleted
    assert sorted(p.name for p in raw.iterdir()) == [rawsource.FILE]
    assert json.loads((raw / rawsource.FILE).read_text()) == rawsource.source_of(other)


def test_panel_answers_never_stand_behind_a_real_endpoint(tmp_path, quick):
    raw = tmp_path / "raw"
    rawsource.check(quick, raw)
    _store(raw)
    real = quick.model_copy(update={"synthetic": "mixed", "name": "mine",
                                    "llm": quick.llm.model_copy(update={"base_url": "http://localhost:11434/v1"})})
    assert rawsource.source_of(real) == {"kind": "endpoint", "endpoints": {"default": "localhost:11434/v1"}}
    with pytest.raises(rawsource.RawSourceError, match="embedded synthetic panel.*real endpoint.*COMPANION_OUTPUTS"):
        rawsource.check(real, raw)
    assert (raw / "baseline" / "shard-0.jsonl").is_file()                                 # nothing moved
    # and real answers are never moved for a panel run either
    raw2 = tmp_path / "raw2"
    rawsource.check(real, raw2)
    _store(raw2)
    with pytest.raises(rawsource.RawSourceError, match="real endpoint.*embedded synthetic panel"):
        rawsource.check(quick, raw2)


def test_an_empty_store_takes_any_source(tmp_path, quick):
    raw = tmp_path / "raw"
    rawsource.check(quick, raw)
    release = quick.model_copy(update={"synthetic": False})
    assert rawsource.source_of(release) == {"kind": "release"}
    assert rawsource.check(release, raw) is None
    assert json.loads((raw / rawsource.FILE).read_text()) == {"kind": "release"}


def test_a_store_of_unrecorded_origin_is_not_resumed_by_the_panel(tmp_path, quick):
    raw = tmp_path / "raw"
    _store(raw)                                   # made before SOURCE.json existed
    assert "unrecorded origin" in rawsource.check(quick, raw)
    assert sorted(p.name for p in raw.iterdir()) == [rawsource.FILE]
    raw2 = tmp_path / "raw2"
    _store(raw2)                                  # a real endpoint keeps it: real answers are never moved
    real = quick.model_copy(update={"synthetic": "mixed",
                                    "llm": quick.llm.model_copy(update={"base_url": "http://localhost:11434/v1"})})
    assert rawsource.check(real, raw2) is None and (raw2 / "baseline" / "shard-0.jsonl").is_file()


def test_a_changed_base_url_never_resumes_the_other_endpoints_answers(tmp_path, quick):
    """Issue 26: llm.base_url changed on an existing outputs folder: refused, both endpoints named."""
    raw = tmp_path / "raw"

    def real(url):
        return quick.model_copy(update={"synthetic": "mixed", "name": "mine",
                                        "llm": quick.llm.model_copy(update={"base_url": url})})
    rawsource.check(real("http://localhost:11434/v1"), raw)
    _store(raw)
    assert rawsource.check(real("http://localhost:11434/v1"), raw) is None          # the same one resumes
    with pytest.raises(rawsource.RawSourceError, match="localhost:11434/v1.*localhost:4000/v1.*COMPANION_OUTPUTS"):
        rawsource.check(real("http://localhost:4000/v1"), raw)
    # a store recorded before endpoints were: adopted, then held to it
    (raw / rawsource.FILE).write_text('{"kind": "endpoint"}')
    assert rawsource.check(real("http://localhost:4000/v1"), raw) is None
    assert json.loads((raw / rawsource.FILE).read_text())["endpoints"] == {"default": "localhost:4000/v1"}
