"""lib.attribution.tables.table2: the published columns come from lib/resources/at_published.csv."""
import pandas as pd
import pytest

from lib.attribution import published as at_pub
from lib.attribution import tables
from lib.attribution.balance import Balanced


def _balanced(kind: str) -> Balanced:
    """Two hand-made runs; run 1 is the selected one."""
    stats = pd.DataFrame({"run_id": [0, 1], "authors_per_group": [10, 12], "quotes_per_group": [30, 36],
                          "avg_fame": [5.0, 5.2], "fame_range": [0.01, 0.002], "rms_error": [0.3, 0.1]})
    return Balanced(kind=kind, run_stats=stats, best_run=1, matched=pd.DataFrame())


def test_table2_selected_run_and_run_means():
    t = tables.table2({"intersectional": _balanced("intersectional")})
    r = t.iloc[0]
    assert (r["runs"], r["selected_run"], r["authors_per_group"], r["quotes_per_group"]) == (2, 1, 12, 36)
    assert r["avg_fame_runs_mean"] == pytest.approx(5.1) and r["rms_error"] == pytest.approx(0.1)
    assert not [c for c in t.columns if c.startswith("paper_")]


def test_table2_paper_columns_are_the_csv_rows():
    t = tables.table2({("multirace", "faithful"): _balanced("multirace"),
                       ("intersectional", "faithful"): _balanced("intersectional")}, with_paper=True)
    assert [c for c in t.columns if c.startswith("paper_")] == [
        "paper_authors_per_group", "paper_quotes_per_group", "paper_avg_fame", "paper_fame_range"]
    csv = at_pub.published_values()
    csv = csv[csv["artifact"] == "at-tab2"]
    for _, r in t.iterrows():
        for _, p in csv[csv["row"] == r["dataset"]].iterrows():
            assert r[f"paper_{p['column']}"] == pytest.approx(p["published"])
    # the values the text quotes (§4.1, A.6), as a check on the CSV itself
    assert t.set_index("dataset").loc["multirace", ["paper_authors_per_group", "paper_quotes_per_group",
                                                     "paper_avg_fame", "paper_fame_range"]].tolist() == [
        831, 1914, 5.10, 0.0006]
    assert t["paper_authors_per_group"].dtype.kind == "i"


def test_published_rows_names_unknown_artifact():
    assert at_pub.published_rows("at-tab2")["intersectional"]["avg_fame"] == 5.03
    with pytest.raises(ValueError, match="at-tab99"):
        at_pub.published_rows("at-tab99")
