"""The AttriBench quirks table and its measurement (table at-quirks) on the golden run files."""
import pandas as pd
import pytest

from lib.attribution import metrics, quirks
from tests.attribution.test_golden import GOLDEN


@pytest.fixture(scope="module")
def run():
    data = pd.read_csv(GOLDEN / "mentions" / "dataset.csv")
    parts = []
    for m in ("model-a", "model-b"):
        raw = pd.read_csv(GOLDEN / "mentions" / f"raw_outputs_{m}.csv")
        for ev in (False, True):
            parts.append(raw.rename(columns={"run": "generation", "llm_output": "text"}).assign(evidence=ev))
    resp = pd.concat(parts, ignore_index=True)[list(metrics.RESPONSE_COLUMNS)].assign(dataset="intersectional")
    return resp, {"intersectional": data}


def test_table_shape_and_ids():
    t = quirks.as_table()
    assert list(t.columns) == ["quirk", "where", "faithful", "corrected", "effect"]
    assert len({q["id"] for q in quirks.QUIRKS}) == len(quirks.QUIRKS)


def test_measure_reports_each_switch_and_headlines(run):
    resp, datasets = run
    t = quirks.measure(resp, datasets)
    q = t[t["row"] == "quirk"].set_index("quirk")
    assert set(q.index) == {"universe", "ties", "bigram", "test", "ci", "conditional"}
    # "The Bible" / "New York" replies count as a wrong author in faithful mode only: S_omit moves
    assert q.loc["bigram", "number"].startswith("S_omit") and q.loc["bigram", "difference"] > 0
    # the effect is the largest change, recomputed by hand for the bigram switch
    base = quirks.published_numbers(metrics.score_datasets(resp, datasets))
    alt = quirks.published_numbers(metrics.score_datasets(resp, datasets, strict_names=True))
    m = base.merge(alt, on=["number", "dataset", "model", "prompt_type", "evidence", "subgroup"])
    assert (m["value_y"] - m["value_x"]).abs().max() == pytest.approx(abs(q.loc["bigram", "difference"]))
    h = t[t["row"] == "headline"]
    assert set(h["number"]) == {"accuracy", "S_omit", "S_evid"} and len(h) == 2 * (2 + 1 + 1)
    assert (h["difference"] == h["corrected"] - h["faithful"]).all()


def test_measure_reports_the_table3_population_with_both_values(run):
    resp, datasets = run
    u = pd.DataFrame({"author_clean": list("abcdef"), "race": ["white", "white", "black", "black", "asian", "latino"],
                      "gender": ["male", "male", "female", "male", "female", "male"],
                      "log10_hits": [6.0, 2.0, 4.0, 5.0, 3.5, 4.5]})
    q = quirks.measure_scored(quirks.score_modes(resp, datasets), universe=u)
    row = q[q["quirk"] == "table3_population"].iloc[0]
    # M/White: (6 + 2) / 2 = 4.0 over the universe, 6.0 in the log10_hits >= 3 pool (White likewise)
    assert (row["faithful"], row["corrected"], row["difference"]) == (4.0, 6.0, 2.0)
    assert row["where"] in ("multirace/White", "intersectional/M/White")
