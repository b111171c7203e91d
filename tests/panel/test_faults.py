"""lib.panel.faults: the configuration's checks, its CLI string, the draw order and the error bodies."""
import numpy as np
import pytest

from lib.panel.faults import BATCH_KINDS, KINDS, FaultConfig, error_payload


class FixedRng:
    """A generator whose uniform draw is known, so the bucket a draw lands in is hand-checkable."""

    def __init__(self, u: float):
        self.u = u

    def random(self) -> float:
        return self.u


def test_draw_walks_the_kinds_in_order_through_cumulative_rates():
    cfg = FaultConfig(rate_429=0.125, rate_500=0.25, rate_stall=0.0625, rate_truncated=0.125)   # exact in binary
    # cumulative edges: 429 [0, .125), 500 [.125, .375), stall [.375, .4375), truncated [.4375, .5625), none above
    assert [cfg.draw(FixedRng(u)) for u in (0.0, 0.124, 0.125, 0.374, 0.375, 0.437, 0.4375, 0.562, 0.5625, 0.99)] == [
        "429", "429", "500", "500", "stall", "stall", "truncated", "truncated", None, None]


def test_a_fault_free_config_draws_nothing_and_uses_no_random_number():
    rng = np.random.default_rng(3)
    assert FaultConfig().draw(rng) is None
    assert rng.random() == np.random.default_rng(3).random()     # the stream did not advance


def test_batch_rates_do_not_count_in_the_per_try_sum():
    cfg = FaultConfig(rate_429=0.6, rate_500=0.4, rate_batch_line=0.9, rate_batch_expired=0.9)
    assert sum(cfg.rates().values()) == pytest.approx(1.0)
    assert cfg.batch_rates() == {"batch_line": 0.9, "batch_expired": 0.9, "batch_429": 0.0}
    assert set(cfg.rates()) == set(KINDS) and set(cfg.batch_rates()) == set(BATCH_KINDS)


@pytest.mark.parametrize("kw", [{"rate_429": -0.1}, {"rate_500": 1.5}, {"rate_429": 0.6, "rate_503": 0.5},
                                {"rate_batch_line": 1.01}])
def test_bad_rates_are_refused(kw):
    with pytest.raises(ValueError, match="panel faults: .*rates must"):
        FaultConfig(**kw)


def test_parse_reads_rates_and_delays_and_spec_writes_them_back():
    cfg = FaultConfig.parse("429=0.02, 500=0.01,,stall=0.005,stall_s=5,batch_429=0.5")
    assert (cfg.rate_429, cfg.rate_500, cfg.rate_stall, cfg.stall_s, cfg.rate_batch_429) == (0.02, 0.01, 0.005, 5.0, 0.5)
    assert cfg.retry_after_s == 1.0                              # the default stays
    assert cfg.spec() == "429=0.02,500=0.01,stall=0.005,batch_429=0.5,retry_after_s=1.0,stall_s=5.0"
    assert FaultConfig.parse(cfg.spec()) == cfg
    assert FaultConfig.parse("") == FaultConfig.parse(None) == FaultConfig()
    assert FaultConfig().spec() == ""


@pytest.mark.parametrize("spec, fragment", [
    ("429=0.1,timeout=0.2", "unknown fault 'timeout'"),
    ("429=lots", "429='lots' in '429=lots' is not a number"),
    ("500=nan", "must be a finite number"),
    ("stall_s=inf", "must be a finite number"),
    ("stall_s=-1", "retry_after_s and stall_s must be >= 0"),
])
def test_parse_errors_name_the_part_and_what_was_expected(spec, fragment):
    with pytest.raises(ValueError, match="panel faults: ") as exc:
        FaultConfig.parse(spec)
    assert fragment in str(exc.value)


def test_as_dict_holds_every_field():
    d = FaultConfig(rate_502=0.25, stall_s=2.0).as_dict()
    assert d["rate_502"] == 0.25 and d["stall_s"] == 2.0 and len(d) == len(KINDS) + len(BATCH_KINDS) + 2


def test_error_payloads_look_like_the_providers_errors():
    assert error_payload("429", "openai")[:2] == (429, {})
    assert error_payload("429", "openai")[2]["error"]["type"] == "rate_limit_exceeded"
    for kind, message in (("500", "internal_server_error"), ("502", "Bad gateway"), ("503", "Service unavailable")):
        status, headers, body = error_payload(kind, "x")
        assert status == int(kind) and body["error"]["code"] == int(kind) and message in body["error"]["message"]
    status, _, body = error_payload("error_body", "DeepInfra")
    assert status == 200 and body["choices"] == [] and body["error"]["metadata"] == {"provider_name": "DeepInfra"}
    with pytest.raises(ValueError, match="'stall' is not an error fault"):
        error_payload("stall", "x")
