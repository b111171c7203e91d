"""lib.llm.batch.files: input files split by the provider's limits, and their plans."""
import json
from pathlib import Path

from lib.config import BatchSettings
from lib.llm.batch import files as batch_files
from lib.llm.client import ChatClient, Endpoint
from tests.llm.batch.test_run import _requests


def test_input_files_split_by_requests_and_bytes(tmp_path):
    reqs = _requests(replicates=1)
    body = ChatClient(Endpoint(base_url="http://x.invalid/v1")).body
    lines = [(batch_files.custom_id(r, 1), body(r, 1), {"n": i}) for i, r in enumerate(reqs)]
    files = batch_files.write_inputs(lines, tmp_path / "a", BatchSettings(max_requests_per_file=5))
    assert [f["n"] for f in files] == [5] * (len(reqs) // 5) + ([len(reqs) % 5] if len(reqs) % 5 else [])
    one = len(json.dumps({"custom_id": lines[0][0], "method": "POST", "url": batch_files.CHAT_URL, "body": lines[0][1]},
                         separators=(",", ":"))) + 1
    files = batch_files.write_inputs(lines, tmp_path / "b", BatchSettings(max_bytes_per_file=int(one * 2.5)))
    assert all(f["bytes"] <= one * 2.5 for f in files) and sum(f["n"] for f in files) == len(reqs)
    first = json.loads(open(files[0]["path"]).readline())
    assert first == {"custom_id": lines[0][0], "method": "POST", "url": "/v1/chat/completions", "body": lines[0][1]}
    assert batch_files.read_plan([tmp_path / "b"])[lines[3][0]] == {"n": 3}


def test_plan_lines_are_compact_utf8_and_old_plans_still_read(tmp_path):
    ident = {"model": "m", "param": "Émilie du Châtelet", "temperature": 0.7, "replicate": 2}
    f = batch_files.write_inputs([("c1-r2-a1", {"model": "m", "messages": []}, ident)], tmp_path / "new", BatchSettings())[0]
    assert Path(f["plan"]).read_bytes() == ('{"custom_id":"c1-r2-a1","model":"m","param":"Émilie du Châtelet",'
                                            '"temperature":0.7,"replicate":2}\n').encode()
    old = tmp_path / "old" / "input-00001-abc.requests.jsonl"      # as json.dumps(ensure_ascii=False) wrote them
    old.parent.mkdir()
    old.write_text(json.dumps({"custom_id": "c0-r0-a1", **ident}, ensure_ascii=False) + "\n"
                   + json.dumps({"custom_id": "c1-r0-a2", "param": "Noether"}) + "\n", encoding="utf-8")
    assert batch_files.read_plan([tmp_path / "old", f["plan"]]) == {"c0-r0-a1": ident, "c1-r0-a2": {"param": "Noether"},
                                                           "c1-r2-a1": ident}
