"""The dispatcher: batch, per request or routed, chosen once from the endpoint and the plan's size.

Recording strategies stand in for the two real ones (they store nothing), so each test sees which
strategy ran, how often the choice was made and the options object it was handed; one test runs
the real strategies against the embedded panel in-process and finds the batch journal only where
the batch path ran.
"""
import dataclasses

import pytest

from lib.llm import collect as dispatcher
from lib.llm.client import Endpoint, Request
from lib.llm.kernel import CollectionSummary, CollectOptions, any_answer
from lib.llm.providers import RoutedEndpoint


class Recorder:
    """A strategy that records its calls (``collect`` from the dispatcher, ``run`` from the routed layer)."""

    def __init__(self, name):
        self.name, self.calls = name, []

    def collect(self, requests, endpoint, options):
        self.calls.append(("collect", requests, endpoint, options))
        return CollectionSummary(requests=len(requests))

    async def run(self, requests, store, endpoint, options, *, ledger=None, bars=None, provider=None):
        self.calls.append(("run", requests, endpoint, options, provider))
        return CollectionSummary(requests=len(requests))


@pytest.fixture
def fakes(monkeypatch):
    """The two strategies replaced by recorders, and every choice counted."""
    per, batch, choices = Recorder("perrequest"), Recorder("batch"), []
    monkeypatch.setattr(dispatcher, "perrequest", per)
    monkeypatch.setattr(dispatcher, "batch_run", batch)
    choose = dispatcher.strategy

    def counted(endpoint, n):
        chosen = choose(endpoint, n)
        choices.append((endpoint.name, n, chosen.name))
        return chosen
    monkeypatch.setattr(dispatcher, "strategy", counted)
    return per, batch, choices


def reqs(n, provider=None) -> list[Request]:
    return [Request(experiment="d", model=f"m{i % 2}", api_model=f"m{i % 2}", task="free", param=f"p{i}",
                    temperature=0.0, replicate=0, messages=({"role": "user", "content": f"q{i}"},), provider=provider)
            for i in range(n)]


EP = Endpoint(base_url="http://api.example.org/v1")


def fields(options: CollectOptions) -> dict:
    """An options object's values (CollectOptions compares by identity: the dispatcher hands on a copy)."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


@pytest.mark.parametrize("mode,min_requests,n,chosen", [
    ("requests", 0, 5, "perrequest"), ("batch", 0, 5, "batch"), ("batch", 5, 5, "batch"),
    ("batch", 6, 5, "perrequest"), ("batch", 0, 0, "batch")])
def test_the_endpoint_mode_and_min_requests_choose_once(fakes, mode, min_requests, n, chosen):
    per, batch, choices = fakes
    opts = CollectOptions(max_attempts=2, progress=False)
    ep = dataclasses.replace(EP, mode=mode, batch={"min_requests": min_requests})
    plan = reqs(n)
    dispatcher.collect(plan, ep, opts)
    assert choices == [(None, n, chosen)]
    ran, idle = (per, batch) if chosen == "perrequest" else (batch, per)
    assert idle.calls == [] and len(ran.calls) == 1
    kind, requests, endpoint, options = ran.calls[0]
    assert (kind, requests, endpoint) == ("collect", plan, ep)
    assert fields(options) == fields(opts)                          # handed on unchanged


def test_keyword_fields_override_the_options_and_a_generator_is_listed_once(fakes, tmp_path):
    per, _, _ = fakes
    opts = CollectOptions(max_attempts=2, progress=False)
    dispatcher.collect((r for r in reqs(3)), EP, opts, store_root=tmp_path, validate=any_answer)
    _, requests, _, options = per.calls[0]
    assert isinstance(requests, list) and len(requests) == 3
    assert fields(options) == {**fields(opts), "store_root": tmp_path}
    assert opts.store_root is None                                  # the caller's object is not changed
    dispatcher.collect(reqs(1), EP)                                 # no options: the defaults
    assert per.calls[1][3].max_attempts == CollectOptions().max_attempts


def test_a_routed_endpoint_chooses_once_per_provider_share(fakes, tmp_path):
    per, batch, choices = fakes
    routed = RoutedEndpoint({"fast": dataclasses.replace(EP, name="fast"),
                             "bulk": dataclasses.replace(EP, name="bulk", base_url="http://bulk.example.org/v1",
                                                         mode="batch")},
                            max_failed_fraction=1.0)               # the recorders store nothing
    plan = reqs(3, provider="fast") + reqs(4, provider="bulk")
    opts = CollectOptions(store_root=tmp_path, progress=False, write_index=False)
    summary = dispatcher.collect(plan, routed, opts)
    assert sorted(choices) == [("bulk", 4, "batch"), ("fast", 3, "perrequest")]
    assert [c[0] for c in per.calls + batch.calls] == ["run", "run"]       # the routed layer's entry
    (_, fast, ep_fast, o_fast, name_fast), (_, bulk, ep_bulk, o_bulk, name_bulk) = per.calls[0], batch.calls[0]
    assert (name_fast, name_bulk) == ("fast", "bulk") and (ep_fast.name, ep_bulk.name) == ("fast", "bulk")
    assert fast == plan[:3] and bulk == plan[3:] and o_fast is o_bulk
    assert fields(o_fast) == fields(opts)                           # one options object for every provider
    assert summary.requests == 7 and set(summary.providers) == {"fast", "bulk"}


def test_the_real_strategies_on_the_in_process_panel(tmp_path):
    """Batch and per-request store the same answers; only the batch path keeps a journal."""
    import json

    from lib.endpoints import IN_PROCESS_URL, PanelTransport
    from lib.llm.store import RawStore
    from lib.panel import Panel

    plan = [dataclasses.replace(r, model="gpt-4o-mini", api_model="gpt-4o-mini") for r in reqs(4)]
    ep = Endpoint(base_url=IN_PROCESS_URL, model_id="key", transport=PanelTransport(Panel(1)),
                  batch={"poll_initial_s": 0.005, "poll_max_s": 0.02})
    opts = CollectOptions(progress=False, write_index=False, max_attempts=1)
    by = {}
    for mode in ("requests", "batch"):
        root = tmp_path / mode
        s = dispatcher.collect(plan, dataclasses.replace(ep, mode=mode), opts, store_root=root)
        assert s.answered == 4
        by[mode] = {r["param"]: (r["content"], json.dumps(r["request"], sort_keys=True))
                    for r in RawStore(root).iter_records()}
    assert by["requests"] == by["batch"] and len(by["batch"]) == 4
    assert (tmp_path / "batch" / "batches" / "journal.ndjson").is_file()
    assert not (tmp_path / "requests" / "batches").exists()


@pytest.mark.parametrize("mode", ["requests", "batch"])
def test_a_request_planned_twice_is_refused_on_either_path_before_anything_is_sent(tmp_path, mode):
    """Before the fix the batch path uploaded a file the provider refused (a custom_id twice) five rounds
    running and ended 'incomplete at the infrastructure'; the per-request path paid twice."""
    from lib.endpoints import IN_PROCESS_URL, PanelTransport
    from lib.llm.kernel import DuplicateRequestError
    from lib.panel import Panel

    sent = []

    class Counting(PanelTransport):
        async def handle_async_request(self, request):
            sent.append(request.url.path)
            return await super().handle_async_request(request)
    r = dataclasses.replace(reqs(1)[0], model="gpt-4o-mini", api_model="gpt-4o-mini")
    ep = Endpoint(base_url=IN_PROCESS_URL, model_id="key", mode=mode, transport=Counting(Panel(1)),
                  batch={"poll_initial_s": 0.005, "poll_max_s": 0.02})
    with pytest.raises(DuplicateRequestError, match=r"\('d', 'gpt-4o-mini', 'free', 'p0', 0\.0, 0\) x2"):
        dispatcher.collect([r, dataclasses.replace(r, param="p1"), r], ep, store_root=tmp_path, progress=False)
    assert sent == []                                               # nothing uploaded, nothing asked
