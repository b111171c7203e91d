"""lib.llm.providers (issue 16): requests routed by their paper's model table to three local fake
providers (the embedded panel on three ports, each with its own key variable holding a canary);
each request reaches its provider, and one provider's key never reaches another provider, the raw
store, the logs, or what the pipeline writes into a notebook."""
import asyncio
import logging
import time
import uuid

import pandas as pd
import pytest

from lib import config, endpoints, pipeline
from lib.attribution import models as at_models
from lib.groundtruth.world import load_world
from lib.authority import models as ab_models
from lib.authority import runs as ab_runs
from lib.llm import client as llm_client
from lib.llm.client import Request
from lib.llm.collect import collect
from lib.llm.kernel import any_answer
from lib.scholar.plan import build_requests
from lib.llm.providers import MissingKeyError, RoutedEndpoint, RoutingError
from lib.panel import Panel, serve_in_thread
from lib.scholar import models as lsb_models

NAMES = ("openrouter", "google", "together")
#: deliberately not *_API_KEY: only the profile's provider entries make them secrets
VARS = {n: f"CANARY_{n.upper()}_KEYVAR" for n in NAMES}


class _Recorder:
    """Wraps a panel's ``complete``: records (Authorization header, model, body) of every request."""

    def __init__(self, panel):
        self.seen, self.arrivals, self._complete = [], [], panel.complete
        panel.complete = self

    def __call__(self, body, headers=None):
        h = {str(k).lower(): v for k, v in (headers or {}).items()}
        self.seen.append((h.get("authorization"), body.get("model"), body))
        self.arrivals.append(time.monotonic())
        return self._complete(body, headers)


@pytest.fixture(scope="module")
def fake_providers(tmp_path_factory):
    """Three panels on three ports of 127.0.0.1: name -> (base_url, recorder)."""
    world = load_world(5, 300, cache_dir=tmp_path_factory.mktemp("cache"))
    out, stops = {}, []
    for name in NAMES:
        panel = Panel.from_world(world, 5)
        rec = _Recorder(panel)
        url, stop = serve_in_thread(panel)
        out[name], _ = (url, rec), stops.append(stop)
    yield out
    for stop in stops:
        stop()


def _profile_text(urls: dict[str, str], extra: str = "") -> str:
    prov = "".join(f"    {n}: {{base_url: '{u}', api_key_env: {VARS[n]}, max_concurrency: 4, "
                   f"requests_per_minute: 6000, request_timeout_s: 10}}\n" for n, u in urls.items())
    return (f"name: routed\nsynthetic: mixed\nseed: 5\nworld: {{n_authors: 10}}\n"
            f"llm:\n  routes: {{gemini: google}}\n  providers:\n{prov}{extra}")


@pytest.fixture
def canaries(monkeypatch):
    keys = {n: f"canary-{n}-{uuid.uuid4().hex}" for n in NAMES}
    for n, k in keys.items():
        monkeypatch.setenv(VARS[n], k)
    return keys


def _requests() -> list[Request]:
    """Requests of two papers' builders spanning the three providers (plus gemini -> google)."""
    lsb = lsb_models.load_models().set_index("key").loc[["llama-3.1-8b", "gemini-2.5-flash-grounded"]].reset_index()
    reqs = build_requests(lsb, experiment="routing", params=["top_5"], replicates=2, seed=5, model_id="api_model")
    route = at_models.routing().set_index("model")
    for g in range(3):
        reqs.append(Request(experiment="routing_at", model="deepseek-ai/DeepSeek-V3.1",
                            api_model=route.loc["deepseek-ai/DeepSeek-V3.1", "provider_model"], task="attribution",
                            param="q1", temperature=0.7, replicate=g,
                            messages=({"role": "user", "content": "Who said: 'Imagination is more important'?"},),
                            provider=route.loc["deepseek-ai/DeepSeek-V3.1", "provider"]))
    return reqs


def test_each_request_reaches_its_provider_and_no_key_crosses(tmp_path, fake_providers, canaries, caplog):
    urls = {n: u for n, (u, _) in fake_providers.items()}
    p = tmp_path / "routed.yaml"
    p.write_text(_profile_text(urls))
    cfg = config.load_profile(p)
    reqs = _requests()
    assert {r.provider for r in reqs} == {"openrouter", "gemini", "together"}
    for _, rec in fake_providers.values():
        rec.seen.clear()
    caplog.set_level(logging.DEBUG)
    with endpoints.open_endpoint(cfg) as ep:
        assert isinstance(ep, RoutedEndpoint) and set(ep.providers) == set(NAMES)
        summary = collect(reqs, ep, store_root=tmp_path / "raw", validate=any_answer)
    assert summary.answered == len(reqs) and summary.failed == 0
    assert {n: s.requests for n, s in summary.providers.items()} == {"openrouter": 2, "google": 2, "together": 3}
    expected_models = {"openrouter": {"meta-llama/llama-3.1-8b-instruct"}, "google": {"gemini-2.5-flash"},
                       "together": {"deepseek-ai/DeepSeek-V3.1"}}
    for name, (_, rec) in fake_providers.items():
        assert {m for _, m, _ in rec.seen} == expected_models[name]
        assert {a for a, _, _ in rec.seen} == {f"Bearer {canaries[name]}"}       # its own key, on every request
        bodies = " ".join(str(b) for _, _, b in rec.seen)
        assert not any(canaries[o] in bodies for o in NAMES)
    # the grounded Gemini configuration asks Google's endpoint for the google_search tool
    google_bodies = [b for _, _, b in fake_providers["google"][1].seen]
    assert all(b["tools"] == [{"google_search": {}}] and "plugins" not in b for b in google_bodies)
    # no key in the raw store (every file, index included) nor in the logs
    stored = [f.read_text(errors="replace") for f in (tmp_path / "raw").rglob("*") if f.is_file()
              and f.suffix != ".parquet"] + [f.read_bytes().decode("latin-1") for f in (tmp_path / "raw").rglob("*.parquet")]
    assert stored and not any(k in text for k in canaries.values() for text in stored)
    assert not any(k in caplog.text for k in canaries.values())
    # a second run sends nothing (the store resumes for every provider)
    n_before = sum(len(rec.seen) for _, rec in fake_providers.values())
    with endpoints.open_endpoint(cfg) as ep:
        again = collect(reqs, ep, store_root=tmp_path / "raw", validate=any_answer)
    assert again.already_complete == len(reqs)
    assert sum(len(rec.seen) for _, rec in fake_providers.values()) == n_before


def test_the_pipeline_scrubs_every_providers_key_and_writes_none_into_notebook_parameters(tmp_path, fake_providers,
                                                                                         canaries):
    urls = {n: u for n, (u, _) in fake_providers.items()}
    p = tmp_path / "routed.yaml"
    p.write_text(_profile_text(urls))
    cfg = config.load_profile(p)
    secrets = config.secret_values(cfg)
    assert set(canaries.values()) <= set(secrets)
    for nb in config.NOTEBOOK_NAMES:       # what papermill injects into each notebook's parameters cell
        assert not any(k in str(cfg.notebook_params(nb)) for k in canaries.values())
    executed = tmp_path / "executed.ipynb"
    executed.write_text("".join(f'"output": "Authorization: Bearer {k}"\n' for k in canaries.values()))
    assert pipeline.scrub_file(executed, secrets) == len(NAMES)
    assert not any(k in executed.read_text() for k in canaries.values())


def test_a_missing_key_is_named_before_anything_is_sent(tmp_path, fake_providers, canaries, monkeypatch):
    urls = {n: u for n, (u, _) in fake_providers.items()}
    p = tmp_path / "routed.yaml"
    p.write_text(_profile_text(urls))
    cfg = config.load_profile(p)
    monkeypatch.delenv(VARS["together"])
    for _, rec in fake_providers.values():
        rec.seen.clear()
    with endpoints.open_endpoint(cfg) as ep, pytest.raises(MissingKeyError) as exc:
        collect(_requests(), ep, store_root=tmp_path / "raw", validate=any_answer)
    msg = str(exc.value)
    assert "provider 'together'" in msg and VARS["together"] in msg and "llm.providers.together.api_key_env" in msg
    assert "openrouter" not in msg and "nothing was sent" in msg
    assert all(rec.seen == [] for _, rec in fake_providers.values())
    assert not (tmp_path / "raw").exists() or not any((tmp_path / "raw").rglob("*.jsonl"))
    # a collection that needs only the providers whose keys are set goes ahead
    with endpoints.open_endpoint(cfg) as ep:
        s = collect([r for r in _requests() if r.provider != "together"], ep, store_root=tmp_path / "raw",
                    validate=any_answer)
    assert s.answered == 4 and set(s.providers) == {"openrouter", "google"}


def test_an_unrouted_or_unknown_provider_is_refused_naming_the_model(fake_providers, canaries):
    ep = RoutedEndpoint({n: llm_client.Endpoint(base_url=u, name=n) for n, (u, _) in fake_providers.items()},
                        {"gemini": "google"})
    r = _requests()[0]
    assert ep.provider_of(r) == "openrouter"
    with pytest.raises(RoutingError, match=r"model 'x' is routed to provider 'anthropic'.*llm.providers.anthropic"):
        ep.split([Request("e", "x", "x", "t", "p", 1.0, 0, (), provider="anthropic")])
    with pytest.raises(RoutingError, match=r"model 'x' names no provider"):
        ep.split([Request("e", "x", "x", "t", "p", 1.0, 0, ())])
    single = RoutedEndpoint({"only": llm_client.Endpoint(base_url="http://127.0.0.1:9/v1", name="only")})
    assert single.provider_of(Request("e", "x", "x", "t", "p", 1.0, 0, ())) == "only"


def test_each_papers_routing_table_names_the_papers_providers():
    lsb = lsb_models.routing()
    assert list(lsb.columns) == ["model", "provider", "provider_model", "sub_provider"]
    assert set(lsb["provider"]) == {"openrouter", "gemini"}
    row = lsb.set_index("model").loc["llama-3.1-8b"]
    assert (row["provider_model"], row["sub_provider"]) == ("meta-llama/llama-3.1-8b-instruct", "deepinfra/bf16")
    assert lsb.set_index("model").loc["gemini-2.5-pro-grounded", "provider_model"] == "gemini-2.5-pro"
    ab = ab_models.routing().set_index("model")["provider"].to_dict()
    assert ab["llama3.1:8b"] == "ollama" and ab["gpt-5.4"] == "openai" and ab["claude-sonnet-4-6"] == "anthropic"
    assert ab["gemini-3-flash-preview"] == "google"
    at = at_models.routing().set_index("model")["provider"].to_dict()
    assert set(at.values()) == {"openai", "anthropic", "google", "together"} and at["gpt-5.1"] == "openai"
    # the builders carry the routing into each request
    table = pd.DataFrame({"request_id": ["r1"], "messages": [[{"role": "user", "content": "hi"}]],
                          "prompt_sha256": ["0" * 64]})
    reqs = ab_runs.to_requests(table, ["llama3.1:8b", "gpt-5.4"], experiment="e")
    assert [(r.model, r.provider) for r in reqs] == [("llama3.1:8b", "ollama"), ("gpt-5.4", "openai")]
    lsb_reqs = build_requests(lsb_models.load_models().head(1), experiment="e", params=["top_5"])
    assert lsb_reqs[0].provider == "openrouter"


def test_the_grounding_option_follows_the_provider_the_request_goes_to():
    req = Request("rag", "gemini-2.5-flash-grounded", "gemini-2.5-flash", "top_k", "top_5", 1.0, 0,
                  ({"role": "user", "content": "x"},), grounded=True, provider="gemini")
    bodies = {}
    for name, url in (("openrouter", "https://openrouter.ai/api/v1"),
                      ("google", "https://generativelanguage.googleapis.com/v1beta/openai/")):
        bodies[name] = llm_client.ChatClient(llm_client.Endpoint(base_url=url, name=name)).body(req, 1)
    assert bodies["openrouter"]["plugins"] == [{"id": "web"}] and "tools" not in bodies["openrouter"]
    assert bodies["google"]["tools"] == [{"google_search": {}}] and "plugins" not in bodies["google"]
    plain = llm_client.ChatClient(llm_client.Endpoint(base_url="https://openrouter.ai/api/v1")).body(
        Request("rag", "gemini-2.5-flash", "gemini-2.5-flash", "top_k", "top_5", 1.0, 0, ()), 1)
    assert "plugins" not in plain and "tools" not in plain
    # what Gemini returns as grounding metadata is kept (field names of the Gemini API's GroundingMetadata)
    meta = {"webSearchQueries": ["physicists"], "groundingChunks": [{"web": {"uri": "https://x", "title": "x"}}]}
    payload = {"choices": [{"message": {"content": "[]"}, "groundingMetadata": meta}]}
    assert llm_client.grounding_of(payload) == {"groundingMetadata": meta}


def test_the_rate_limiter_spreads_requests_over_the_minute():
    now = [0.0]
    lim = llm_client.RateLimiter(120, burst=2, clock=lambda: now[0])     # 2 per second, bursts of 2

    async def take(n):
        times = []
        orig = asyncio.sleep

        async def fake_sleep(s):
            now[0] += s
            await orig(0)
        asyncio.sleep = fake_sleep
        try:
            for _ in range(n):
                await lim.acquire()
                times.append(now[0])
        finally:
            asyncio.sleep = orig
        return times

    times = asyncio.run(take(6))
    # two at once (the burst), then one every 0.5 s
    assert times == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.5, 2.0])


def test_the_client_holds_a_provider_to_its_rate_limit(fake_providers, canaries):
    url, rec = fake_providers["together"]

    def arrivals(rpm, n=8):
        ep = llm_client.Endpoint(base_url=url, api_key_env=VARS["together"], requests_per_minute=rpm, max_concurrency=8)
        reqs = [Request("rl", "deepseek-ai/DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.1", "attribution", "q", 0.7, i,
                        ({"role": "user", "content": "Who said it?"},)) for i in range(n)]

        async def go():
            async with llm_client.ChatClient(ep) as c:
                await asyncio.gather(*(c.attempt(r, 1) for r in reqs))
        rec.arrivals.clear()
        asyncio.run(go())
        t = sorted(rec.arrivals)
        return [round(x - t[0], 3) for x in t]

    # 240/min = 4/s in bursts of 4: four at once, then one every 0.25 s, the last sent 1 s after the
    # first. Arrival times carry the scheduling jitter of a loaded machine (a late first arrival
    # shortens the span), so the bounds leave a quarter of it: a client without the limit sends all 8 at once.
    limited, free = arrivals(240), arrivals(None)
    assert limited[-1] >= 0.75 and (limited[-1] - limited[3]) / 4 >= 0.15
    assert sum(b - a < 0.1 for a, b in zip(free, free[1:])) >= 5        # unlimited: they arrive together


def test_a_provider_with_batch_true_takes_the_batch_path_while_the_others_send_requests(tmp_path, fake_providers,
                                                                                       canaries):
    urls = {n: u for n, (u, _) in fake_providers.items()}
    text = _profile_text(urls, "  batch: {poll_initial_s: 0.05, poll_max_s: 0.2}\n").replace(
        "request_timeout_s: 10}\n", "request_timeout_s: 10, batch: true}\n", 1)        # openrouter batches
    p = tmp_path / "routed.yaml"
    p.write_text(text)
    cfg = config.load_profile(p)
    assert cfg.llm.providers["openrouter"].batch and not cfg.llm.providers["google"].batch
    with endpoints.open_endpoint(cfg) as ep:
        summary = collect(_requests(), ep, store_root=tmp_path / "raw", validate=any_answer)
    assert summary.answered == 7 and summary.failed == 0
    from lib.llm.store import RawStore

    recs = {r["model"]: r for e in ("routing", "routing_at") for r in RawStore(tmp_path / "raw").iter_records(e)}
    assert recs["llama-3.1-8b"].get("batch_id") and recs["llama-3.1-8b"]["client"].endswith("+batch")
    assert not recs["gemini-2.5-flash-grounded"].get("batch_id") and not recs["deepseek-ai/DeepSeek-V3.1"].get("batch_id")
    assert (tmp_path / "raw" / "batches" / "openrouter" / "journal.ndjson").is_file()
    every = " ".join(f.read_bytes().decode("latin-1") for f in (tmp_path / "raw").rglob("*") if f.is_file())
    assert not any(k in every for k in canaries.values())
