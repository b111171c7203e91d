"""The synthetic AttriBench twin and the dataset tables built from it (Tables 2–6, A.7 proxies)."""
import numpy as np
import pandas as pd
import pytest

from lib.attribution import balance, dataset, models, robustness, tables, twin


@pytest.fixture(scope="module")
def universe():
    return twin.make_universe(3000, seed=11)


@pytest.fixture(scope="module")
def quotes(universe):
    return twin.make_quotes(universe, seed=11)


@pytest.fixture(scope="module")
def built(universe, quotes):
    out = {}
    for kind in ("intersectional", "multirace"):
        res = balance.balance(universe, kind, runs=5, seed=2)
        out[kind] = (res, twin.with_quotes(res.matched, universe, quotes, seed=2))
    return out


def test_universe_shape_and_skew(universe):
    assert universe["author_clean"].is_unique
    share = universe["race"].value_counts(normalize=True)
    assert share["white"] == pytest.approx(0.82, abs=0.03)
    assert universe["gender"].eq("male").mean() == pytest.approx(0.64, abs=0.03)
    assert (universe["log10_hits"] >= 3).all()
    assert universe["log10_hits"].to_numpy() == pytest.approx(np.log10(universe["google_hits"].to_numpy()))
    assert universe["count"].between(1, 10).all() and universe["count"].eq(10).any() and universe["count"].eq(1).any()
    r = np.corrcoef(universe["log10_hits"], universe["log10_dolma"])[0, 1]
    assert 0.75 < r < 0.97
    m = universe.groupby(["race", "gender"])["log10_hits"].mean()
    assert 0.15 < m[("white", "male")] - m[("black", "female")] < 0.85         # Table 3: about half a point (se ~0.1 here)
    assert dataset.validate_universe(universe[list(dataset.UNIVERSE_COLUMNS)]) is not None


def test_twin_is_seeded(universe):
    pd.testing.assert_frame_equal(twin.make_universe(3000, seed=11), universe)
    assert not twin.make_universe(3000, seed=12)["author_clean"].equals(universe["author_clean"])


def test_quotes(universe, quotes):
    assert quotes["quote_id"].is_unique and quotes["quote"].is_unique
    assert quotes.groupby("author_clean").size().reindex(universe["author_clean"]).to_numpy().tolist() == universe["count"].tolist()
    assert quotes["quote_words"].between(5, 30).all()


def test_with_quotes_matches_the_released_schema(built):
    for kind, (res, df) in built.items():
        validated = dataset.validate_quotes(df[[c for c in dataset.QUOTE_COLUMNS if c]], f"twin {kind}")
        assert len(validated) == res.best_stats["quotes_per_group"] * 4
        sizes = df.assign(g=dataset.subgroup_labels(df, kind)).groupby("g").size()
        assert sizes.nunique() == 1
        assert df.groupby("author_clean").size().eq(df.groupby("author_clean")["to_sample"].first()).all()
    sub = twin.random_matchings(built["intersectional"][1], 20, seed=1)
    assert len(sub) == 80 and sub["author_clean"].is_unique and sub["match_idx"].nunique() == 20


def test_tables(universe, built):
    t2 = tables.table2({k: v[1] for k, v in built.items()}, with_paper=True)
    assert t2["dataset"].tolist() == ["intersectional", "multirace"] and t2["paper_avg_fame"].tolist() == [5.03, 5.10]
    # Tier A read off the datasets = the criteria the balancer reported for the run they came from
    for kind, (bal, _) in built.items():
        got, want = t2.set_index("dataset").loc[kind], bal.best_stats
        for c in ("authors_per_group", "quotes_per_group"):
            assert got[c] == want[c]
        assert got["avg_fame"] == pytest.approx(want["avg_fame"], abs=1e-12)
        assert got["fame_range"] == pytest.approx(want["fame_range"], abs=1e-12)
    t3 = tables.table3(universe)
    assert t3["partition"].value_counts().to_dict() == {"multirace": 4, "intersectional": 4}
    assert t3.groupby("partition")["gap_to_top"].min().eq(0).all()
    t4 = tables.table4({k: v[1] for k, v in built.items()})
    assert tables.table4(None) is None
    assert t4["gender_wikidata_pct"].between(0, 100).all() and len(t4) == 8
    assert (t4["gender_wikidata_pct"].mean() > t4["race_wikidata_pct"].mean())
    t5 = tables.table5(built["intersectional"][1], "intersectional", seed=1)
    assert t5["n_quotes"].nunique() == 1 and len(t5) == 4
    t6 = models.table6()
    assert len(t6) == 11 and t6["rag_subset"].sum() == 2


def test_table5_needs_cooccurrence(built):
    with pytest.raises(ValueError, match="cooccurrence_hits"):
        tables.table5(built["intersectional"][1].drop(columns="cooccurrence_hits"))


def test_proxies(built):
    a = robustness.authors_with_proxies(built["intersectional"][1], "intersectional")
    corr = robustness.proxy_correlations(a).set_index("subgroup")
    assert corr.loc["all", "pearson_r"] > 0.6 and len(corr) == 5
    tab, summ = robustness.decile_agreement(a)
    assert tab.shape == (10, 10) and np.allclose(tab.sum(axis=1), 1)
    assert summ["within1_pct"] >= summ["same_decile_pct"] > 10


def test_real_sample_table_stats():
    s = balance.dataset_stats(dataset.load_sample(), "intersectional")
    assert s["authors_per_group"] >= 1 and 3 < s["avg_fame"] < 8


def test_build_released_and_save(tmp_path, universe):
    from lib.attribution import build
    assert build.build_released(tmp_path, runs=2) is None                      # nothing downloaded
    universe[list(dataset.UNIVERSE_COLUMNS)].to_csv(tmp_path / "universe_authors.csv", index=False)
    (tmp_path / "intersectional_with_quotes_random_300matchings.csv").write_text(
        dataset.SAMPLE_CSV.read_text(encoding="utf-8"), encoding="utf-8")
    rel = build.build_released(tmp_path, runs=3, seed=1)
    assert rel.source == "released" and not rel.synthetic
    assert set(rel.balanced) == {(k, m) for k in build.KINDS for m in ("faithful", "corrected")}
    assert len(rel.subsets["intersectional"]) == 35 and rel.datasets == {}
    t2 = tables.table2_rebalance(rel.balanced, with_paper=True)
    assert t2[["dataset", "mode"]].drop_duplicates().shape[0] == 4
    assert t2.loc[t2["dataset"] == "multirace", "paper_fame_range"].eq(0.0006).all()
    files = build.save(rel, tmp_path / "out")
    assert [f.name for f in files] == ["released_universe.parquet", "released_intersectional_random_300matchings.parquet"]
    assert dataset.group_order("intersectional") == ["M/White", "F/White", "M/Black", "F/Black"]
    assert dataset.group_order("multirace") == ["White", "Black", "Asian", "Latino"]
