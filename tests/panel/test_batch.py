"""The panel's Batch API (lib.panel.batch) driven by the official openai SDK, a client no one here wrote.

Each line must get the answer the chat endpoint gives the same request (same body; the replicate
and attempt headers come from the custom id), errors and faults must land in the error file in
OpenAI's line format, and an invalid input file must fail the batch naming the line.
"""
import json
import shutil
import threading
import time

import pandas as pd
import pytest

openai = pytest.importorskip("openai")

from lib import paths
from lib.panel import FaultConfig, Panel
from lib.panel.server import make_server


def _serve(faults=None):
    quotes = pd.read_csv(paths.RESOURCES / "attribench_intersectional_sample.csv")
    panel = Panel(5, quotes=quotes, faults=faults or FaultConfig())
    server, stopping = make_server(panel)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"

    def stop():
        stopping.set()
        server.shutdown()
        server.server_close()
        shutil.rmtree(server.RequestHandlerClass.batches.root, ignore_errors=True)
    return panel, server.RequestHandlerClass.batches, url, stop, quotes


@pytest.fixture
def panel_api():
    panel, service, url, stop, quotes = _serve()
    yield panel, service, url, quotes
    stop()


def _lines(quotes, n=12):
    out = []
    for i, q in enumerate(quotes["quote"][:n]):
        body = {"model": "gpt-5.1", "messages": [{"role": "user", "content": f"Please identify the author of the "
                                                  f"following quote. Be concise.\n\"{q}\""}],
                "temperature": 0.7, "top_p": 0.95, "seed": 100 + i, "stream": False}
        out.append({"custom_id": f"req{i:04d}-r{i % 3}-a{1 + i % 2}", "method": "POST",
                    "url": "/v1/chat/completions", "body": body})
    return out


def _wait(client, batch_id, timeout=20.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        b = client.batches.retrieve(batch_id)
        if b.status in ("completed", "failed", "expired", "cancelled"):
            return b
        time.sleep(0.02)
    raise AssertionError(f"batch {batch_id} did not finish")


def test_openai_sdk_files_and_batches_round_trip_with_the_chat_endpoint_answers(panel_api, tmp_path):
    panel, service, url, quotes = panel_api
    lines = _lines(quotes)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    client = openai.OpenAI(base_url=url, api_key="unused-by-the-panel")
    f = client.files.create(file=open(src, "rb"), purpose="batch")
    assert f.purpose == "batch" and f.bytes == src.stat().st_size and f.filename == "in.jsonl"
    assert client.files.retrieve(f.id).id == f.id
    assert client.files.content(f.id).read() == src.read_bytes()        # the upload is stored byte for byte
    b = client.batches.create(input_file_id=f.id, endpoint="/v1/chat/completions", completion_window="24h",
                              metadata={"run": "t"})
    assert b.status in ("validating", "in_progress", "completed") and b.metadata == {"run": "t"}
    b = _wait(client, b.id)
    assert b.status == "completed" and b.request_counts.total == len(lines) == b.request_counts.completed
    assert b.error_file_id is None
    out = [json.loads(x) for x in client.files.content(b.output_file_id).text.splitlines()]
    assert [o["custom_id"] for o in out] == [x["custom_id"] for x in lines]
    for x, o in zip(lines, out):
        rep, att = x["custom_id"].split("-r")[1].split("-a")
        status, _, chat = panel.complete(x["body"], {"X-Replicate": rep, "X-Attempt": att})
        assert o["response"]["status_code"] == status == 200 and o["error"] is None
        got = o["response"]["body"]
        assert got["choices"] == chat["choices"] and got["usage"] == chat["usage"] and got["id"] == chat["id"]
    assert any(b2.id == b.id for b2 in client.batches.list())


def test_error_statuses_go_to_the_error_file_and_bad_input_fails_the_batch(panel_api, tmp_path):
    panel, service, url, quotes = panel_api
    lines = _lines(quotes, 4)
    lines[1]["body"]["model"] = "no-such-model"
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    client = openai.OpenAI(base_url=url, api_key="x")
    b = _wait(client, client.batches.create(input_file_id=client.files.create(file=open(src, "rb"), purpose="batch").id,
                                            endpoint="/v1/chat/completions", completion_window="24h").id)
    assert b.status == "completed" and (b.request_counts.completed, b.request_counts.failed) == (3, 1)
    err = [json.loads(x) for x in client.files.content(b.error_file_id).text.splitlines()]
    assert err[0]["custom_id"] == lines[1]["custom_id"] and err[0]["response"]["status_code"] == 404
    # a duplicated custom id on line 3 fails validation: no output, the error names the line
    bad = lines[:2] + [dict(lines[0])]
    src.write_text("".join(json.dumps(x) + "\n" for x in bad))
    b = _wait(client, client.batches.create(input_file_id=client.files.create(file=open(src, "rb"), purpose="batch").id,
                                            endpoint="/v1/chat/completions", completion_window="24h").id)
    assert b.status == "failed" and b.output_file_id is None
    assert b.errors.data[0].line == 3 and b.errors.data[0].code == "duplicate_custom_id"
    with pytest.raises(openai.BadRequestError):
        client.files.create(file=open(src, "rb"), purpose="fine-tune")


def test_batch_faults_failed_lines_expiry_and_429_on_create(tmp_path):
    panel, service, url, stop, quotes = _serve(FaultConfig(rate_batch_line=0.5, rate_batch_expired=1.0,
                                                           rate_batch_429=1.0, retry_after_s=0.01))
    try:
        lines = _lines(quotes, 30)
        src = tmp_path / "in.jsonl"
        src.write_text("".join(json.dumps(x) + "\n" for x in lines))
        client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
        fid = client.files.create(file=open(src, "rb"), purpose="batch").id
        with pytest.raises(openai.RateLimitError) as exc:
            client.batches.create(input_file_id=fid, endpoint="/v1/chat/completions", completion_window="24h")
        assert exc.value.response.headers["retry-after"] == "0.01" and service.created == 0
        panel.faults = FaultConfig(rate_batch_line=0.5, rate_batch_expired=1.0)
        b = _wait(client, client.batches.create(input_file_id=fid, endpoint="/v1/chat/completions",
                                                completion_window="24h").id)
        assert b.status == "expired" and b.expired_at
        out = [json.loads(x) for x in client.files.content(b.output_file_id).text.splitlines()] if b.output_file_id else []
        err = [json.loads(x) for x in client.files.content(b.error_file_id).text.splitlines()]
        codes = [e["error"]["code"] for e in err]
        assert len(out) + len(err) == len(lines) == b.request_counts.total
        assert "batch_expired" in codes and "request_timeout" in codes
        # expired lines come after every line that ran; answered lines equal the chat endpoint's
        first_expired = codes.index("batch_expired")
        assert set(codes[first_expired:]) == {"batch_expired"}
        for o in out:
            x = next(x for x in lines if x["custom_id"] == o["custom_id"])
            rep, att = x["custom_id"].split("-r")[1].split("-a")
            assert o["response"]["body"]["choices"] == panel.complete(x["body"], {"X-Replicate": rep,
                                                                                  "X-Attempt": att})[2]["choices"]
    finally:
        stop()


FEAR = "The only thing we have to fear is fear itself."


def test_the_standalone_panel_answers_unknown_quotes_on_an_empty_registry_on_both_paths(tmp_path):
    """Issue 26: ``python -m lib.panel serve`` (no quote table: an empty QuoteRegistry) died on
    ``_famous_cum`` for a quote it did not know: an empty chat reply, a batch failed whole."""
    import os
    import subprocess
    import sys

    import httpx

    env = {**os.environ, "COMPANION_OUTPUTS": str(tmp_path / "out"), "COMPANION_CACHE": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "lib.panel", "serve", "--port", "0", "--seed", "5", "--no-world"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=paths.ROOT)
    try:
        url = proc.stdout.readline().strip()
        prompt = f"Please identify the author of the following quote. Be concise and answer in maximum 1 sentence.\n\"{FEAR}\""
        contents = []
        for model in ("gpt-5.1", "claude-sonnet-4-6", "openai/gpt-oss-120b"):
            body = {"model": model, "messages": [{"role": "user", "content": prompt}], "temperature": 0.7,
                    "user": "lib.llm/r0/a1/t1"}
            for rep in range(6):
                r = httpx.post(url + "/chat/completions", json={**body, "user": f"lib.llm/r{rep}/a1/t1"}, timeout=30)
                assert r.status_code == 200, r.text
                contents.append(r.json()["choices"][0]["message"]["content"])
        assert all(c.strip() for c in contents)
        from openai import OpenAI

        client = OpenAI(base_url=url, api_key="none")
        lines = [{"custom_id": f"{i:04d}-r{i}-a1", "method": "POST", "url": "/v1/chat/completions",
                  "body": {"model": "gpt-5.1", "messages": [{"role": "user", "content": prompt}], "temperature": 0.7}}
                 for i in range(8)]
        src = tmp_path / "in.jsonl"
        src.write_text("".join(json.dumps(x) + "\n" for x in lines))
        f = client.files.create(file=open(src, "rb"), purpose="batch")
        b = _wait(client, client.batches.create(input_file_id=f.id, endpoint="/v1/chat/completions",
                                                completion_window="24h").id)
        assert b.status == "completed" and b.request_counts.completed == 8, b
        out = [json.loads(x) for x in client.files.content(b.output_file_id).text.splitlines()]
        assert all(x["response"]["status_code"] == 200 and x["response"]["body"]["choices"][0]["message"]["content"]
                   for x in out)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_panel_bug_is_a_json_error_not_a_dropped_connection(monkeypatch):
    from lib.panel import core

    panel = Panel(5)

    def boom(*a, **k):
        raise AttributeError("'QuoteRegistry' object has no attribute '_famous_cum'")
    monkeypatch.setattr(core.Panel, "_answer", boom)
    status, _, payload = panel.complete({"model": "gpt-5.1", "messages": [{"role": "user", "content": FEAR}]})
    assert status == 500 and payload["error"]["code"] == "panel_error" and "_famous_cum" in payload["error"]["message"]
