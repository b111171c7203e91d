"""The LLMScholarBench command line (lib.scholar.cli): bad arguments, the dry listing, a collection.

main(argv) runs in-process with capsys; one test runs ``python -m lib.scholar.cli`` as a user
would. The collection goes to a tiny OpenAI-shaped server on 127.0.0.1 (a thread, module-scoped).
"""
import json
import math
import runpy
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lib.llm.store import RawStore
from lib.scholar import prompts
from lib.scholar.cli import main
from lib.scholar.models import load_models
from lib.scholar.plan import build_requests

PLAN = ["--experiment", "x", "--models", "llama-3.1-8b", "--families", "top_k"]
ANSWER = '[{"Name": "Albert Einstein"}, {"Name": "Lise Meitner"}]'


@pytest.fixture(scope="module")
def server():
    """Answers every chat completion with a valid list of names; counts the requests."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body["model"])
            out = json.dumps({"model": body["model"], "choices": [{"message": {"content": ANSWER}}],
                              "usage": {"prompt_tokens": 5, "completion_tokens": 5}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1", seen
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("argv,named", [
    ([], "the following arguments are required: command"),
    (["collect", "--models", "llama-3.1-8b", "--dry-run"], "the following arguments are required: --experiment"),
    (["collect", *PLAN[:2], "--models", "llama-3.1-8b,nope", "--dry-run"], "--models: unknown keys ['nope']"),
    (["collect", *PLAN, "--replicates", "two", "--dry-run"], "argument --replicates: invalid int value: 'two'"),
    (["collect", *PLAN, "--model-id", "name", "--dry-run"], "argument --model-id: invalid choice: 'name'"),
    (["export", *PLAN], "the following arguments are required: --out"),
    (["collect", *PLAN], "--base-url is required unless --dry-run")])
def test_a_bad_argument_is_named(argv, named, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and named in capsys.readouterr().err


def test_the_dry_listing_prints_the_planned_requests_and_sends_nothing(tmp_path, capsys):
    store = tmp_path / "raw"
    assert main(["collect", *PLAN, "--replicates", "3", "--output-tokens", "50", "--dry-run",
                 "--store", str(store)]) == 0
    out = capsys.readouterr().out
    models = load_models()
    reqs = build_requests(models[models["key"] == "llama-3.1-8b"], experiment="x", families=["top_k"], replicates=3)
    n = len(reqs)
    prompt = sum(math.ceil(len(m["content"]) / 4) + 4 for r in reqs for m in r.messages)
    assert n == 3 * len(prompts.task_params(["top_k"])) and n > 0
    row = next(line for line in out.splitlines() if line.strip().startswith("llama-3.1-8b"))
    assert row.split()[1:4] == [str(n), str(prompt), str(50 * n)]     # requests, prompt and completion tokens
    assert "command line | provider openrouter" in out and "TOTAL" in out
    assert not store.exists()                                           # nothing collected, no store opened


def test_collect_stores_every_answer_labelled_and_a_re_run_sends_nothing(server, tmp_path, capsys):
    url, seen = server
    before = len(seen)
    argv = ["collect", *PLAN, "--base-url", url, "--store", str(tmp_path), "--max-concurrency", "2"]
    assert main(argv) == 0
    n = len(seen) - before
    recs = list(RawStore(tmp_path).iter_records("x"))
    assert n > 0 and len(recs) == n and all(r["validation"]["is_valid"] for r in recs)   # the LLMCaller check
    assert {r["requested_model"] for r in recs} == {load_models().set_index("key").loc["llama-3.1-8b", "api_model"]}
    assert f"{n} requests (0 already complete), {n} attempts written, {n} valid" in capsys.readouterr().out
    assert main(argv) == 0 and len(seen) - before == n
    assert f"{n} requests ({n} already complete), 0 attempts written" in capsys.readouterr().out


def test_collect_cli_names_a_bad_url_and_an_unusable_store(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["collect", "--experiment", "x", "--models", "llama-3.1-8b", "--families", "top_k", "--base-url", "not a url"])
    assert exc.value.code == 2 and "endpoint.base_url must be an http(s) URL" in capsys.readouterr().err
    a_file = tmp_path / "store"
    a_file.write_text("x")
    assert main(["collect", "--experiment", "x", "--models", "llama-3.1-8b", "--families", "top_k",
                 "--base-url", "http://127.0.0.1:9/v1", "--store", str(a_file)]) == 1
    assert f"raw store {a_file}: a file is in the way" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:'lib.scholar.cli' found in sys.modules:RuntimeWarning")   # imported above
def test_cli_dry_run_prints_the_plan(monkeypatch, capsys):
    """As ``python -m lib.scholar.cli`` runs it (its __main__ block), in this process: a new interpreter
    took 9 s of imports on a loaded machine."""
    monkeypatch.setattr(sys, "argv", ["python -m lib.scholar.cli", "collect", "--dry-run", "--experiment", "x",
                                      "--models", "llama-3.1-8b,qwen3-8b", "--replicates", "2"])
    with pytest.raises(SystemExit) as exc:
        runpy.run_module("lib.scholar.cli", run_name="__main__")
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert "llama-3.1-8b" in out and " 60 " in out and "total" in out
