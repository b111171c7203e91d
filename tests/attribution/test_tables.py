"""lib.attribution.tables.table2 (Tier A, from the released datasets) and table2_rebalance (Tier B,
a re-run of Algorithm 1 with its spread); the published columns come from lib/resources/at_published.csv."""
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


def test_rebalance_selected_run_and_spread_over_runs():
    t = tables.table2_rebalance({"intersectional": _balanced("intersectional")})
    r = t.iloc[0]
    assert (r["runs"], r["selected_run"], r["authors_per_group"], r["quotes_per_group"]) == (2, 1, 12, 36)
    assert r["avg_fame_runs_mean"] == pytest.approx(5.1) and r["rms_error"] == pytest.approx(0.1)
    assert (r["quotes_per_group_runs_min"], r["quotes_per_group_runs_max"]) == (30, 36)
    assert (r["fame_range_runs_min"], r["fame_range_runs_max"]) == (0.002, 0.01)
    assert not [c for c in t.columns if c.startswith("paper_")]


def _released(kind: str) -> pd.DataFrame:
    """A quote-level file in the release's columns: 2 authors per group, hand-set fame and quotes."""
    groups = {"intersectional": [("black", "female"), ("black", "male"), ("white", "male"), ("white", "female")],
              "multirace": [("latino", "male"), ("black", "female"), ("white", "male"), ("asian", "female")]}[kind]
    rows = []
    for g, (race, gender) in enumerate(groups):
        for a, (fame, quotes) in enumerate([(4.0 + g * 0.001, 3), (6.0, 1)]):
            rows += [{"author_clean": f"{race} {gender} {a}", "race": race, "gender": gender,
                      "log10_hits": fame, "to_sample": quotes}] * quotes
    return pd.DataFrame(rows)


def test_tier_a_table2_reads_the_selected_run_off_the_released_datasets():
    t = tables.table2({"multirace": _released("multirace"), "intersectional": _released("intersectional")})
    assert t["dataset"].tolist() == ["intersectional", "multirace"]          # the paper's order
    r = t.set_index("dataset").loc["intersectional"]
    # by hand: 2 authors and 4 quotes per group; group means 5 + g/2000 -> mean 5.00075, range 0.0015
    assert (r["authors_per_group"], r["quotes_per_group"]) == (2, 4)
    assert r["avg_fame"] == pytest.approx(5.00075, abs=1e-12) and r["fame_range"] == pytest.approx(0.0015, abs=1e-12)
    assert "rms_error" not in t and tables.table2({}) is None       # no matching in a released file; no file: missing


def test_table2_paper_columns_are_the_csv_rows():
    t = tables.table2_rebalance({("multirace", "faithful"): _balanced("multirace"),
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
    a = tables.table2({"multirace": _released("multirace")}, with_paper=True).iloc[0]
    assert (a["paper_authors_per_group"], a["paper_quotes_per_group"], a["paper_avg_fame"]) == (831, 1914, 5.10)


def test_published_rows_names_unknown_artifact():
    assert at_pub.published_rows("at-tab2")["intersectional"]["avg_fame"] == 5.03
    with pytest.raises(ValueError, match="at-tab99"):
        at_pub.published_rows("at-tab99")


def test_table3_population_faithful_whole_universe_corrected_balancing_pool():
    """Quirk table3_population: the paper's Table 3 is over every universe author (A.2's gaps);
    corrected keeps the log10_hits >= 3 pool that Algorithm 1 draws from. Hand-computed means."""
    rows = [("white", "male", 6.0), ("white", "male", 2.0), ("white", "female", 5.0), ("black", "female", 4.0),
            ("black", "female", 2.5), ("black", "male", 5.5), ("asian", "male", 3.5), ("latino", "female", 4.5)]
    u = pd.DataFrame(rows, columns=["race", "gender", "log10_hits"]).assign(author_clean=lambda d: d.index.astype(str))
    f = tables.table3(u).set_index(["partition", "subgroup"])
    c = tables.table3(u, mode="corrected").set_index(["partition", "subgroup"])
    assert f.loc[("multirace", "White"), "mean_log10_hits"] == pytest.approx((6 + 2 + 5) / 3)
    assert c.loc[("multirace", "White"), "mean_log10_hits"] == pytest.approx(5.5)
    assert f.loc[("intersectional", "F/Black"), ["n_authors", "mean_log10_hits"]].tolist() == [2, 3.25]
    assert c.loc[("intersectional", "F/Black"), ["n_authors", "mean_log10_hits"]].tolist() == [1, 4.0]
    # the filter changes which group is on top, as on the real universe (issue 28)
    assert f.loc["intersectional", "gap_to_top"].idxmin() == "M/Black"
    assert c.loc["intersectional", "gap_to_top"].idxmin() == "M/White"
    with pytest.raises(ValueError, match="mode"):
        tables.table3(u, mode="paper")


def test_tier_a_table2_on_the_real_release_is_the_papers_table():
    """Where this machine has the two released full datasets (python -m lib.attribution.download),
    Table 2 read off them equals the paper's printed numbers to the printed digits."""
    from lib.attribution import build, download
    from lib.attribution import dataset as ds

    full = [f for f in download.FILES if f.name.endswith("_with_quotes.csv")]
    have = download.available()
    if not all(f.name in have for f in full):
        pytest.skip("the released full datasets are not in downloads/attribench")
    problems = [m for f in full for m in download.identity_problems(have[f.name].read_bytes(), f)[0]]
    if problems:
        pytest.skip(f"downloads/attribench holds modified copies: {problems[0]}")
    t = tables.table2({k: ds.load_quotes(have[f"{k}_with_quotes.csv"]) for k in build.KINDS}).set_index("dataset")
    printed = {"intersectional": (742, 1991, 5.03, 0.0017), "multirace": (831, 1914, 5.10, 0.0006)}
    for kind, (authors, quotes, fame, spread) in printed.items():
        r = t.loc[kind]
        assert (r["authors_per_group"], r["quotes_per_group"]) == (authors, quotes)
        assert round(r["avg_fame"], 2) == fame and round(r["fame_range"], 4) == spread
