"""lib.dryrun: the totals of outputs/dry_run.json per notebook x provider (hand-computed), an
unknown price as null with the priced lower bound beside it, and a plan of no collecting notebook.
The whole --dry-run of the quick design: tests/test_pipeline.py."""
import json
import math

import pandas as pd
import pytest

from lib import config, dryrun
from lib.llm import cost


def _row(nb, provider, model, requests, prompt, completion, cost_usd, cost_max):
    return {"notebook": nb, "stage": "s", "provider": provider, "model": model, "requests": requests,
            "prompt_tokens": prompt, "completion_tokens": completion, "price_in": 1.0, "price_out": 2.0,
            "cost_usd": cost_usd, "cost_usd_max": cost_max, "max_attempts": 3, "completion_assumption": "a"}


@pytest.fixture(scope="module")
def quick():
    return config.load_profile("quick")


def test_write_totals_per_notebook_and_provider_and_nulls_for_unknown_prices(quick, isolated_outputs):
    df = pd.DataFrame([_row("01_x", "openai", "a", 10, 100, 50, 0.25, 0.75),
                       _row("01_x", "openai", "b", 5, 40, 10, 0.125, 0.375),
                       _row("02_y", "together", "c", 2, 8, 4, math.nan, math.nan)], columns=cost.PLAN_COLUMNS)
    csv_path, json_path = dryrun.write(df, quick)
    assert pd.read_csv(csv_path)["model"].tolist() == ["a", "b", "c"]
    doc = json.loads(json_path.read_text())
    assert doc["profile"] == "quick" and len(doc["rows"]) == 3 and doc["rows"][2]["cost_usd"] is None
    t1, t2 = doc["totals"]
    assert t1 == {"notebook": "01_x", "provider": "openai", "requests": 15, "prompt_tokens": 140,
                  "completion_tokens": 60, "cost_usd": 0.375, "cost_usd_max": 1.125, "cost_usd_priced": 0.375,
                  "unpriced_models": []}
    assert (t2["cost_usd"], t2["cost_usd_max"], t2["cost_usd_priced"], t2["unpriced_models"]) == (None, None, 0.0, ["c"])
    # one unknown price makes the total unknown; the priced sums are a lower bound
    assert doc["total"] == {"requests": 17, "cost_usd": None, "cost_usd_max": None, "cost_usd_priced": 0.375,
                            "cost_usd_max_priced": 1.125, "unpriced_models": ["c"]}


def test_a_plan_of_analysis_notebooks_only_is_empty_with_the_plan_columns(quick):
    df = dryrun.plan(quick, ["03_infrastructure_benchmark", "04_interventions"])
    assert df.empty and list(df.columns) == cost.PLAN_COLUMNS


def test_run_names_the_notebooks_that_send_nothing(isolated_outputs, capsys):
    assert dryrun.run("quick", only=["03"]) == 0
    out = capsys.readouterr().out
    assert "03_infrastructure_benchmark: analyses only (no requests)" in out and "nothing is sent" in out
    assert json.loads((isolated_outputs / "dry_run.json").read_text())["total"]["requests"] == 0
    with pytest.raises(SystemExit, match="--only '09': expected one of 01, 02"):
        dryrun.run("quick", only=["09"])
