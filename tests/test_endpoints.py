"""lib.endpoints: the embedded panel behind open_endpoint, the real-endpoint branch, and recovery of
the panel's refusal and eventual-validity rates by a small collection through it (tests only:
the analysis never reads the panel's truth)."""
import dataclasses
import json
import os
import socket
import urllib.error
import urllib.request

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from lib import config, endpoints
from lib.groundtruth.world import load_world
from lib.scholar import labels
from lib.llm.collect import collect
from lib.llm.kernel import IncompleteCollectionError
from lib.scholar.labels import llmcaller_validate
from lib.scholar.plan import build_requests
from lib.llm.store import RawStore
from lib.scholar import attempts as lsb_attempts
from lib.scholar import models as lsb_models
from lib.stats import wilson_ci

SEED, N_AUTHORS = 7, 3000
KEY_VAR = "LSB_BACKEND_TEST_KEY"
SENTINEL = "sentinel-key-value-never-to-be-read"


def _profile(tmp_path, base_url="null", api_key_env=KEY_VAR, panel_transport="http"):
    p = tmp_path / "p.yaml"
    p.write_text(f"name: t\nsynthetic: true\nseed: {SEED}\nworld: {{n_authors: {N_AUTHORS}}}\n"
                 f"llm: {{base_url: {base_url}, api_key_env: {api_key_env}, max_concurrency: 8, "
                 f"request_timeout_s: 20, panel_transport: {panel_transport}}}\npromises: []\n")
    return config.load_profile(p)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return load_world(SEED, N_AUTHORS, cache_dir=tmp_path_factory.mktemp("cache"))


class _SpyEnviron(dict):
    """os.environ stand-in that records which variables were read."""

    def __init__(self, base):
        super().__init__(base)
        self.read = set()

    def get(self, k, default=None):
        self.read.add(k)
        return super().get(k, default)

    def __getitem__(self, k):
        self.read.add(k)
        return super().__getitem__(k)


def _port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex((host, port)) == 0


def test_open_endpoint_serves_the_panel_on_localhost_and_stops_it(tmp_path, world, monkeypatch):
    cfg = _profile(tmp_path)
    spy = _SpyEnviron(os.environ)
    spy[KEY_VAR] = SENTINEL
    monkeypatch.setattr(os, "environ", spy)
    with endpoints.open_endpoint(cfg, world=world) as ep:
        host, port = ep.base_url.split("//")[1].split("/")[0].split(":")
        assert host == "127.0.0.1"
        with urllib.request.urlopen(ep.base_url + "/models", timeout=5) as r:
            listing = json.loads(r.read())
        assert "gemini-2.5-pro-grounded" in {m["id"] for m in listing["data"]}
        assert ep.api_key_env is None and ep.api_key() is None and ep.model_id == "key"
        reqs = build_requests(lsb_models.load_models().head(2), experiment="t", params=["top_5"], model_id="key")
        summary = collect(reqs, ep, store_root=tmp_path / "raw", validate=llmcaller_validate)
        assert summary.attempts_written >= 2
    assert KEY_VAR not in spy.read, "the panel endpoint read the profile's API key variable"
    stored = "".join(p.read_text() for p in (tmp_path / "raw").glob("*/*.jsonl"))
    assert stored and SENTINEL not in stored
    assert not _port_open(host, int(port)), "the panel still listens after open_endpoint exited"
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(ep.base_url + "/models", timeout=2)


def test_open_endpoint_stops_the_panel_when_the_block_raises(tmp_path, world):
    cfg = _profile(tmp_path)
    with pytest.raises(RuntimeError, match="boom"):
        with endpoints.open_endpoint(cfg, world=world) as ep:
            port = int(ep.base_url.rsplit(":", 1)[1].split("/")[0])
            raise RuntimeError("boom")
    assert not _port_open("127.0.0.1", port)


def test_open_endpoint_without_a_world_serves_a_panel_that_refuses_scholar_prompts(tmp_path):
    cfg = _profile(tmp_path)
    with endpoints.open_endpoint(cfg, with_world=False) as ep:
        body = json.dumps({"model": "gemini-2.5-pro", "messages": [{"role": "user", "content": "x"}]}).encode()
        with urllib.request.urlopen(urllib.request.Request(ep.base_url + "/chat/completions", data=body), timeout=5) as r:
            assert r.status == 200          # non-LLMScholarBench prompts need no ground truth
        reqs = build_requests(lsb_models.load_models().head(1), experiment="t", params=["top_5"], model_id="key")
        # 503 (the panel has no authors table) is an infrastructure failure: a failed try, and the
        # completeness check fails the collection instead of storing it as the model's answer
        with pytest.raises(IncompleteCollectionError, match="503|failed at the infrastructure") as exc:
            collect(reqs, dataclasses.replace(ep, max_tries=1), store_root=tmp_path / "raw", validate=llmcaller_validate)
    summary = exc.value.summary
    assert summary.failed == summary.failed_tries == len(reqs) >= 1 and summary.attempts_written == 0
    (ft,) = RawStore(tmp_path / "raw").iter_records(failed_tries=True)
    assert ft["http_status"] == 503 and "without an authors table" in ft["error"]["message"]


def test_open_endpoint_returns_the_profile_endpoint_for_a_real_base_url(tmp_path):
    cfg = _profile(tmp_path, base_url="https://openrouter.ai/api/v1", api_key_env="OPENROUTER_API_KEY")
    with endpoints.open_endpoint(cfg) as ep:
        assert ep.base_url == "https://openrouter.ai/api/v1"
        assert ep.api_key_env == "OPENROUTER_API_KEY"
        assert ep.model_id == "api_model" and ep.pin_provider


# ---- recovery of the panel's truth ----------------------------------------------------------
PARAMS = ["top_5", "1950s", "PER", "early_career", "famous_female", "fictitious_male"]
REPLICATES = 10


@pytest.fixture(scope="module")
def recovery(tmp_path_factory, world):
    tmp = tmp_path_factory.mktemp("recovery")
    cfg = _profile(tmp)
    models = lsb_models.load_models()
    reqs = build_requests(models, experiment="recovery", params=PARAMS, replicates=REPLICATES, model_id="key")
    with endpoints.open_endpoint(cfg, world=world) as ep:
        collect(reqs, ep, store_root=tmp / "raw", validate=llmcaller_validate)
    records = RawStore(tmp / "raw").records("recovery")
    lab = labels.label_attempts(records)
    from lib.panel import Panel, resolve, truth

    tr = truth(SEED, panel=Panel.from_world(world, SEED))
    rows = []
    for m in models["key"]:
        tasks = tr["models"][resolve(m).id]["lsb"]["tasks"]
        # the truth's eventual validity accounts for empty arrays ending a request (reference §1.7)
        rows.append({"model": m, "refusal_truth": np.mean([tasks[p]["refusal_rate"] for p in PARAMS]),
                     "eventual_truth": np.mean([tasks[p]["eventual_validity"] for p in PARAMS])})
    return lab, pd.DataFrame(rows).set_index("model"), (records, tmp / "raw", reqs)


def _misses(successes: pd.Series, n: int, expected: pd.Series, alpha: float) -> list[str]:
    out = []
    for m, k in successes.items():
        lo, hi = wilson_ci(int(k), n, alpha=alpha)
        if not lo <= expected[m] <= hi:
            out.append(f"{m}: {k}/{n} vs truth {expected[m]:.3f}")
    return out


def _check(successes: pd.Series, n: int, expected: pd.Series) -> None:
    # 24 models × 95 % intervals: a few misses are expected by chance, allow up to the binomial
    # 99.9 % quantile; no model may miss the Bonferroni-corrected interval
    allowed = int(stats.binom.ppf(0.999, len(successes), 0.05))
    misses = _misses(successes, n, expected, 0.05)
    assert len(misses) <= allowed, misses
    assert _misses(successes, n, expected, 0.05 / len(successes)) == []


def test_collection_recovers_the_panel_refusal_rate_per_model(recovery):
    lab, truth_tab, _ = recovery
    first = lab[lab["attempt"] == 1]      # every request has an attempt 1: an unbiased sample
    refusals = first.groupby("model")["is_refusal"].apply(lambda s: int((s == 1).sum()))
    assert (first.groupby("model").size() == len(PARAMS) * REPLICATES).all()
    _check(refusals, len(PARAMS) * REPLICATES, truth_tab["refusal_truth"])


def test_collection_recovers_the_panel_eventual_validity_per_model(recovery):
    lab, truth_tab, _ = recovery
    per_request = lab.groupby(["model", "task", "param", "replicate"])["valid_attempt"].any()
    valid = per_request.groupby("model").sum().astype(int)
    _check(valid, len(PARAMS) * REPLICATES, truth_tab["eventual_truth"])


# ---- collection tables ----------------------------------------------------------------------
def test_attempt_and_name_tables_round_trip_through_parquet(recovery, world, tmp_path):
    lab, _, (records, root, reqs) = recovery
    models = lsb_models.load_models()
    att = lsb_attempts.attempt_table(records, models)
    assert len(att) == len(records) == len(lab)
    assert (att["label"] == lab["label"]).all() and (att["valid_attempt"] == lab["valid_attempt"]).all()
    assert (att["run"] == att["replicate"]).all()
    # at most one chosen attempt per request under each label set, and only valid/verbose ones
    req = ["model", "task", "param", "temperature", "replicate"]
    assert att.groupby(req)["valid_attempt_paper"].sum().max() == 1
    assert set(att.loc[att["valid_attempt_paper"], "label_paper"]) <= {"valid", "verbose"}
    assert att["served_model"].notna().all() and (att["status"] == "ok").all()
    assert (att["total_tokens"] > 0).all()
    assert att.loc[att["model"] == "gemini-2.5-pro-grounded", "grounded"].all()
    assert set(att["access"]) == {"open", "proprietary"}
    with pytest.raises(KeyError, match="not-a-model"):
        lsb_attempts.attempt_table(records.assign(model="not-a-model"), models)
    # model by model from the store gives the same table; a plan keeps only its own requests
    streamed = lsb_attempts.attempts_from_store(models, "recovery", store_root=root)
    key = ["model", "task", "param", "replicate", "attempt"]
    cols = ["label", "label_paper", "valid_attempt", "valid_attempt_paper"]
    pd.testing.assert_frame_equal(streamed.sort_values(key).reset_index(drop=True)[cols],
                                  att.sort_values(key).reset_index(drop=True)[cols])
    part = lsb_attempts.attempts_from_store(models, "recovery", store_root=root, requests=reqs[:50])
    assert set(part["request_id"]) == {r.request_id for r in reqs[:50]}
    with pytest.raises(ValueError, match="no attempt of experiment 'nope'"):
        lsb_attempts.attempts_from_store(models, "nope", store_root=root)

    names = lsb_attempts.name_table(att, world.authors)
    assert set(names["mode"]) == {"faithful", "paper"}
    faithful = names[names["mode"] == "faithful"]
    assert len(faithful) == len(labels.name_rows(att))
    assert faithful["matched"].mean() > 0.5          # the panel recalls mostly real authors
    assert names.loc[names["matched"], "author_id"].isin(world.authors["author_id"]).all()
    assert names.loc[~names["matched"], "author_id"].isna().all()

    lsb_attempts.write_parquet(att, tmp_path / "a.parquet")
    back = pd.read_parquet(tmp_path / "a.parquet")
    assert len(back) == len(att) and list(back.columns) == list(att.columns)
    i = int(np.flatnonzero(att["valid_attempt"].to_numpy())[0])
    expected = json.loads(json.dumps(att["names_reference"].iloc[i], default=str))
    assert json.loads(back["names_reference"].iloc[i]) == expected


def test_collection_recovers_the_panel_factuality_per_task(recovery, world):
    """Hallucination: the share of recommended names found in D, per task averaged over models,
    against the panel's expected factuality. A model's replicates share one core list (κ), so the
    model is the sampling unit: the mean per-model difference is checked with its 99 % t-interval,
    widened by ±3 points for the matcher's known errors (benchmarks/matching.py: some perturbed
    real names missed, some invented names that reuse a common first and last name found; at
    world seeds 7-12 the mean difference is −0.01 to −0.07, within 2.8 standard errors plus 3
    points). A broken matcher or panel moves it by far more."""
    from lib.panel import Panel, resolve, truth

    _, _, (records, _, _) = recovery
    att = lsb_attempts.attempt_table(records, lsb_models.load_models())
    names = lsb_attempts.name_table(att, world.authors)
    faithful = names[names["mode"] == "faithful"].drop_duplicates(
        ["model", "param", "replicate", "attempt", "clean_name"])
    tr = truth(SEED, panel=Panel.from_world(world, SEED))
    for param in ["top_5", "1950s", "PER"]:
        sub = faithful[faithful["param"] == param]
        per_model = sub.groupby("model")["matched"].mean()
        expected = pd.Series({m: tr["models"][resolve(m).id]["lsb"]["tasks"][param]["factuality"]
                              for m in per_model.index})
        hallucinated = np.mean([tr["models"][resolve(m).id]["lsb"]["tasks"][param]["hallucination_share"]
                                for m in per_model.index])
        diff = per_model - expected
        se = diff.std() / np.sqrt(len(diff))
        assert se < 0.03, (param, se)      # the interval stays narrow enough to test anything
        assert abs(diff.mean()) < stats.t.ppf(0.995, len(diff) - 1) * se + 0.03, (param, diff.mean(), se)
        assert hallucinated > 0.005, "the panel must hallucinate for this check to mean anything"


def _stored(root):
    keep = ("model", "task", "param", "replicate", "attempt", "status", "content", "validation")
    return sorted(json.dumps({k: r.get(k) for k in keep}, sort_keys=True)
                  for r in RawStore(root).iter_records("t"))


def test_the_three_panel_transports_give_identical_answers(tmp_path, world, monkeypatch):
    """The default serves the panel from a child process; a kernel thread and no socket at all
    (in_process) store exactly the same attempts."""
    cfg = _profile(tmp_path)
    reqs = build_requests(lsb_models.load_models().head(4), experiment="t", params=["top_5", "famous_female", "1950s"],
                          replicates=3, model_id="key")
    with endpoints.open_endpoint(cfg, world=world) as ep:
        with urllib.request.urlopen(ep.base_url.removesuffix("/v1") + "/health", timeout=5) as r:
            server_pid = json.loads(r.read())["pid"]
        assert server_pid != os.getpid(), "the default panel runs inside the notebook's process"
        http = collect(reqs, ep, store_root=tmp_path / "http", validate=llmcaller_validate)
    with endpoints.open_endpoint(_profile(tmp_path, panel_transport="http_thread"), world=world) as ep:
        with urllib.request.urlopen(ep.base_url.removesuffix("/v1") + "/health", timeout=5) as r:
            assert json.loads(r.read())["pid"] == os.getpid()
        thread = collect(reqs, ep, store_root=tmp_path / "thread", validate=llmcaller_validate)
    served = []
    monkeypatch.setattr("lib.panel.serve_in_thread", lambda *a, **k: served.append(a))
    monkeypatch.setattr(endpoints, "_panel_process", lambda *a, **k: served.append(a))
    with endpoints.open_endpoint(cfg, world=world, in_process=True) as ep:
        assert ep.base_url == endpoints.IN_PROCESS_URL and isinstance(ep.transport, endpoints.PanelTransport)
        inproc = collect(reqs, ep, store_root=tmp_path / "inproc", validate=llmcaller_validate)
    assert not served, "the in-process endpoint started an HTTP server"
    with endpoints.open_endpoint(_profile(tmp_path, panel_transport="in_process"), world=world) as ep:   # the profile key
        assert isinstance(ep.transport, endpoints.PanelTransport)
    assert not served
    assert http.attempts_written == thread.attempts_written == inproc.attempts_written >= len(reqs)
    assert _stored(tmp_path / "http") == _stored(tmp_path / "thread") == _stored(tmp_path / "inproc")
    # the transport is not a profile key, and an endpoint built from a profile has none
    with pytest.raises(ValueError, match="unknown endpoint key 'transport'"):
        endpoints.Endpoint.from_dict({"base_url": "http://x/v1", "transport": object()})


def test_a_world_never_saved_reaches_the_panel_process_through_a_temporary_copy(tmp_path, world):
    """A world built in memory (no folder) is written for the child; a changed table is served as changed."""
    edited = dataclasses.replace(world, authors=world.authors.assign(display_name="Ada Lovelace"), source=None)
    cfg = _profile(tmp_path)
    reqs = build_requests(lsb_models.load_models().head(1), experiment="t", params=["top_5"], model_id="key")
    with endpoints.open_endpoint(cfg, world=edited) as ep:
        collect(reqs, ep, store_root=tmp_path / "raw", validate=llmcaller_validate)
    content = " ".join(str(r.get("content")) for r in RawStore(tmp_path / "raw").iter_records("t"))
    assert "Ada Lovelace" in content


def test_the_panel_process_reports_a_failed_start_with_its_log(tmp_path, world, monkeypatch):
    cfg = _profile(tmp_path)
    broken = dataclasses.replace(world, source=tmp_path / "no_such_world")
    with pytest.raises(RuntimeError, match=r"(?s)exited with code [1-9].*no_such_world"):
        with endpoints.open_endpoint(cfg, world=broken):
            pass


def test_a_panel_server_stops_when_its_parent_process_is_gone(tmp_path):
    import subprocess
    import sys
    import time

    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    server = subprocess.Popen([sys.executable, "-m", "lib.panel", "serve", "--seed", "1", "--no-world",
                               "--parent-pid", str(parent.pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert server.stdout.readline().decode().startswith("http://127.0.0.1:")
        time.sleep(1.5)
        assert server.poll() is None, "the server stopped while its parent was alive"
        parent.kill()
        parent.wait()
        assert server.wait(timeout=15) == 0
        assert b"parent process" in server.stderr.read()
    finally:
        for p in (parent, server):
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.mark.parametrize("in_process", [True, False], ids=["in_process", "process"])
def test_panel_faults_reach_the_client_retry_loop(tmp_path, world, in_process):
    from lib.panel.faults import FaultConfig

    cfg = _profile(tmp_path)
    reqs = build_requests(lsb_models.load_models().head(2), experiment="t", params=["top_5"], replicates=20,
                          model_id="key")
    with endpoints.open_endpoint(cfg, world=world, in_process=in_process, faults=FaultConfig.parse("500=0.3")) as ep:
        ep = dataclasses.replace(ep, backoff_base_s=0.0, backoff_max_s=0.0)
        summary = collect(reqs, ep, store_root=tmp_path / "raw", validate=llmcaller_validate)
    assert summary.tries["server"] > 0 and summary.tries["ok"] >= len(reqs) - summary.api_error_attempts


def test_open_endpoint_routes_a_profile_with_providers_and_keeps_the_single_url_form(tmp_path, monkeypatch):
    """issue 16: llm.providers -> a routed endpoint (one Endpoint per provider, nothing started, no
    key read); llm.base_url -> the one Endpoint as before; the panel profile is unchanged (above)."""
    from lib.llm.providers import RoutedEndpoint

    p = tmp_path / "routed.yaml"
    p.write_text(f"name: t\nsynthetic: mixed\nseed: {SEED}\nworld: {{n_authors: 10}}\nllm:\n  providers:\n"
                 f"    a: {{base_url: 'http://127.0.0.1:9/v1', api_key_env: {KEY_VAR}, max_concurrency: 3}}\n"
                 f"    b: {{base_url: 'https://openrouter.ai/api/v1', requests_per_minute: 60, batch: true}}\n")
    spy = _SpyEnviron(os.environ)
    monkeypatch.setattr(os, "environ", spy)
    with endpoints.open_endpoint(config.load_profile(p)) as ep:
        assert isinstance(ep, RoutedEndpoint) and ep.model_id == "api_model"
        a, b = ep.providers["a"], ep.providers["b"]
        assert (a.base_url, a.api_key_env, a.max_concurrency, a.mode) == ("http://127.0.0.1:9/v1", KEY_VAR, 3, "requests")
        assert (b.pin_provider, b.requests_per_minute, b.mode, b.api_key_env) == (True, 60, "batch", None)
    assert KEY_VAR not in spy.read
    with endpoints.open_endpoint(_profile(tmp_path, base_url="'http://127.0.0.1:9/v1'")) as ep:
        assert not isinstance(ep, RoutedEndpoint) and ep.base_url == "http://127.0.0.1:9/v1"
