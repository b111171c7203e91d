"""Spend before sending (lib.llm.cost): token estimates, prices and plan tables by hand.

Costs are tokens x USD per million tokens / 1e6; a model without a known price costs NaN (never 0)
and makes totals lower bounds; the embedded panel is free unless the profile prices a model.
"""
import io
import math

import pandas as pd
import pytest

from lib.llm import cost
from lib.llm.client import Request


def _req(model, i, content="a" * 40, provider=None):
    return Request(experiment="spend", model=model, api_model=model, task="authority", param=f"p{i}", temperature=1.0,
                   replicate=0, messages=({"role": "system", "content": content}, {"role": "user", "content": content}),
                   provider=provider)


PRICES = pd.DataFrame({"model": ["m1", "m2"], "price_in": [1.0, float("nan")],
                                         "price_out": [2.0, float("nan")]})


def test_plan_table_matches_a_hand_count():
    # each message: ceil(40/4) + 4 = 14 tokens, two per request: 28; 3 requests of m1, 2 of m2
    reqs = [_req("m1", i) for i in range(3)] + [_req("m2", i) for i in range(2)]
    pc = cost.PlannedCollection("01_x", "stage", reqs, 100, "100 per answer", max_attempts=3, prices=PRICES)
    df = cost.plan_table(pc, provider="api.example.org").set_index("model")
    assert df.loc["m1", "requests"] == 3 and df.loc["m1", "prompt_tokens"] == 84
    assert df.loc["m1", "completion_tokens"] == 300
    assert df.loc["m1", "cost_usd"] == pytest.approx((84 * 1.0 + 300 * 2.0) / 1e6)
    assert df.loc["m1", "cost_usd_max"] == pytest.approx(3 * (84 + 600) / 1e6)
    assert math.isnan(df.loc["m2", "cost_usd"])                     # unknown price: NaN, never 0
    assert set(df["provider"]) == {"api.example.org"}
    text = cost.format_plan(df.reset_index())
    assert "01_x | provider api.example.org" in text and "no known price" in text and "m2" in text
    assert "TOTAL" in text and ">=0.0007" in text                  # an unknown price: the total is a lower bound


def test_price_override_and_the_panel_is_free():
    reqs = [_req("m1", 0), _req("m2", 0)]
    pc = cost.PlannedCollection("01_x", "s", reqs, 100, "", max_attempts=1, prices=PRICES)
    over = {"m2": {"input": 0.5, "output": 1.0}}
    df = cost.plan_table(pc, over, provider="api.example.org").set_index("model")
    assert df.loc["m2", "cost_usd"] == pytest.approx((28 * 0.5 + 100 * 1.0) / 1e6)
    panel = cost.plan_table(pc, over, provider=cost.PANEL).set_index("model")
    assert panel.loc["m1", "cost_usd"] == 0.0                       # table prices do not apply to the panel
    assert panel.loc["m2", "cost_usd"] == pytest.approx((28 * 0.5 + 100) / 1e6)   # an explicit price does
    # a routed profile labels each request by its provider (a function of the request), priced as a real one
    routed = cost.plan_table(cost.PlannedCollection("x", "s", [_req("m1", 0, provider="openai")], 10, "",
                                                    prices=PRICES), provider=lambda r: r.provider)
    assert list(routed["provider"]) == ["openai"] and routed["cost_usd"].iloc[0] > 0
    # one endpoint (here the panel) takes every request whatever its model table's provider
    single = cost.plan_table(cost.PlannedCollection("x", "s", [_req("m1", 0, provider="openai")], 10, "",
                                                    prices=PRICES), provider=cost.PANEL)
    assert list(single["provider"]) == [cost.PANEL] and single["cost_usd"].iloc[0] == 0.0


def test_read_prices_names_file_row_and_column(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("id,price_in_usd_per_mtok,price_out_usd_per_mtok,price_source\na,1,2,x\nb,-1,2,x\n")
    with pytest.raises(ValueError, match=r"m\.csv row 3 \(b\): column price_in_usd_per_mtok expects"):
        cost.read_prices(p, "id")


def test_token_estimates_and_usd_by_hand():
    assert [cost.estimate_tokens("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]
    msgs = [{"role": "system", "content": "x" * 10}, {"role": "user", "content": "y" * 3}]
    assert cost.message_tokens(msgs) == (3 + 4) + (1 + 4)
    assert cost.usd(1_000, 500, (2.0, 8.0)) == pytest.approx((1_000 * 2.0 + 500 * 8.0) / 1e6)
    assert math.isnan(cost.usd(1, 1, (math.nan, 1.0)))


def test_endpoint_provider_and_prices_of_a_table_with_overrides():
    assert cost.endpoint_provider("https://openrouter.ai/api/v1") == "openrouter.ai"
    assert cost.endpoint_provider("http://127.0.0.1:4000/v1") == "127.0.0.1:4000"
    assert cost.endpoint_provider(None) == cost.endpoint_provider("https://x.org", panel=True) == cost.PANEL
    table = cost.price_map(PRICES, {"m3": {"input": 0.5, "output": 1.5}})
    assert table["m1"] == (1.0, 2.0) and math.isnan(table["m2"][0]) and table["m3"] == (0.5, 1.5)
    assert cost.price_map(PRICES, panel=True) == {"m1": (0.0, 0.0), "m2": (0.0, 0.0)}
    assert cost.price_of(table, "m9", panel=True) == (0.0, 0.0)               # the panel is free
    assert all(math.isnan(x) for x in cost.price_of(table, "m9"))             # elsewhere unknown, not free


def test_a_planned_collection_with_a_completion_per_request():
    reqs = [_req("m1", 0), _req("m1", 1)]
    pc = cost.PlannedCollection("nb", "s", reqs, lambda r: 10 * (int(r.param[1:]) + 1), "10 per index", prices=PRICES)
    assert [pc.expected_completion(r) for r in reqs] == [10, 20]
    row = cost.plan_table(pc, provider="h").iloc[0]
    # 2 requests x 28 prompt tokens at $1, 30 completion tokens at $2 per Mtok; max 3 attempts each
    assert (row["prompt_tokens"], row["completion_tokens"]) == (56, 30)
    assert row["cost_usd"] == pytest.approx((56 + 60) / 1e6) and row["cost_usd_max"] == pytest.approx(3 * 116 / 1e6)
    assert row["completion_assumption"] == "10 per index" and list(cost.plan_table(pc, provider="h")) == \
        cost.PLAN_COLUMNS


def test_format_plan_marks_unknown_totals_and_says_when_nothing_is_sent():
    assert cost.format_plan(pd.DataFrame(columns=cost.PLAN_COLUMNS)) == \
        "nothing to send: no notebook of this profile collects"
    only_unknown = cost.plan_table(cost.PlannedCollection("nb", "s", [_req("m2", 0)], 5, "five", prices=PRICES),
                                   provider="h")
    text = cost.format_plan(only_unknown)
    assert "n/a" in text and ">=0" not in text and "no known price" in text and "completion tokens, nb s: five" in text


def test_read_prices_missing_columns_and_empty_cells(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("id,price_in_usd_per_mtok,price_source\na,1,x\n")
    with pytest.raises(ValueError, match=r"m\.csv: missing columns \['price_out_usd_per_mtok'\]"):
        cost.read_prices(p, "id")
    p.write_text("id,price_in_usd_per_mtok,price_out_usd_per_mtok,price_source\na,0.5,,list\nb,x,1,y\n")
    with pytest.raises(ValueError, match=r"row 3 \(b\): column price_in_usd_per_mtok expects .* got 'x'"):
        cost.read_prices(p, "id")
    p.write_text("id,price_in_usd_per_mtok,price_out_usd_per_mtok,price_source\na,0.5,,list\n")
    df = cost.read_prices(p, "id")
    assert df["price_in"].tolist() == [0.5] and math.isnan(df["price_out"][0]) and df["price_source"][0] == "list"


def test_dry_run_labels_by_host_or_by_the_model_tables_provider():
    reqs = [_req("m1", 0, provider="openrouter"), _req("m2", 1)]
    out = io.StringIO()
    table = cost.dry_run(reqs, PRICES, output_tokens=10, max_attempts=2, file=out)
    assert table["provider"].tolist() == ["openrouter", "unrouted"] and "command line | provider openrouter" in \
        out.getvalue()
    assert table["cost_usd"].iloc[0] == pytest.approx((28 * 1.0 + 10 * 2.0) / 1e6)
    host = cost.dry_run(reqs, PRICES, base_url="https://api.example.org/v1", file=io.StringIO())
    assert set(host["provider"]) == {"api.example.org"}
