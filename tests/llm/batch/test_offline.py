"""lib.llm.batch.offline through the LLMScholarBench command line: export input files, import a
vllm run-batch output file, export again (only what is not stored)."""
import json

from lib.llm.batch import offline
from lib.llm.store import RawStore
from lib.scholar import cli


def _vllm_line(cid, content, model="m"):
    return {"id": f"vllm-{cid[:6]}", "custom_id": cid, "response": {"status_code": 200, "request_id": f"vllm-batch-{cid[:4]}",
            "body": {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": content,
                                                          "reasoning_content": None, "tool_calls": []},
                                  "logprobs": None, "finish_reason": "stop", "stop_reason": None}],
                     "usage": {"prompt_tokens": 10, "total_tokens": 15, "completion_tokens": 5,
                               "prompt_tokens_details": None}, "prompt_logprobs": None}}, "error": None}


def test_export_then_import_a_vllm_output_file_reports_malformed_lines_by_number(tmp_path, capsys):
    out, store = tmp_path / "in", tmp_path / "raw"
    code = cli.main(["export", "--experiment", "vx", "--models", "llama-3.1-8b",
                    "--families", "top_k", "--replicates", "5", "--seed", "1", "--out", str(out), "--store", str(store),
                    "--max-requests-per-file", "4"])
    assert code == 0
    files = sorted(out.glob("input-*[0-9a-f].jsonl"))
    inputs = [json.loads(l) for f in files for l in open(f)]
    assert len(files) >= 2 and all(len(open(f).readlines()) <= 4 for f in files)
    good = '[{"Name": "Albert Einstein"}, {"Name": "Lise Meitner"}]'
    lines = [json.dumps(_vllm_line(x["custom_id"], good)) for x in inputs]
    lines[1] = lines[1][:40]                                                     # line 2: torn
    lines.insert(3, json.dumps({"id": "x", "custom_id": "nope-r0-a1", "response": None, "error": "boom"}))  # line 4
    lines[5] = json.dumps({"id": "vllm-e", "custom_id": inputs[4]["custom_id"],   # line 6: a vLLM error line
                           "response": {"status_code": 400, "request_id": "vllm-batch-e", "body": None},
                           "error": "The model `m` does not exist."})
    result = out / "results.jsonl"
    result.write_text("\n".join(lines) + "\n")
    code = cli.main(["import", str(result), "--store", str(store), "--base-url", "vllm:test"])
    printed = capsys.readouterr().out
    assert code == 1
    assert f"{result}: line 2:" in printed and f"{result}: line 4: custom_id 'nope-r0-a1'" in printed
    recs = {r["custom_id"]: r for r in RawStore(store).iter_records()}
    assert len(recs) == len(inputs) - 1                                          # the torn line is not stored
    ok = recs[inputs[0]["custom_id"]]
    assert ok["request"] == inputs[0]["body"] and ok["content"] == good and ok["validation"]["is_valid"]
    assert ok["usage"]["total_tokens"] == 15 and ok["base_url"] == "vllm:test" and ok["served_model"] == "m"
    bad = recs[inputs[4]["custom_id"]]
    assert bad["status"] == "client_error" and bad["stop"] and bad["content"] is None
    # importing again stores nothing new; the next export holds only the torn line's request
    assert offline.import_output(result, store_root=store).stored == 0
    again = tmp_path / "again"
    cli.main(["export", "--experiment", "vx", "--models", "llama-3.1-8b", "--families", "top_k",
             "--replicates", "5", "--seed", "1", "--out", str(again), "--store", str(store)])
    assert [json.loads(l)["custom_id"] for f in again.glob("input-*[0-9a-f].jsonl") for l in open(f)] == \
        [inputs[1]["custom_id"]]
