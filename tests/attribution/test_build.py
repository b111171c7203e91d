"""lib.attribution.build: the synthetic twin build, the release build from a folder of files, and save()."""
import pandas as pd
import pytest

from lib.attribution import build, dataset as ds


@pytest.fixture(scope="module")
def twin():
    # corrected search only: a 200-author universe can leave the faithful search without candidates
    return build.build_twin(200, 7, runs=2, n_matchings=10, modes=("corrected",))


def test_twin_build_has_both_datasets_and_their_subsets(twin):
    assert twin.source == "twin" and twin.synthetic
    assert set(twin.balanced) == {("intersectional", "corrected"), ("multirace", "corrected")}
    assert set(twin.datasets) == set(twin.subsets) == set(build.KINDS) and twin.both_datasets() is twin.datasets
    for kind in build.KINDS:
        df, sub = twin.datasets[kind], twin.subsets[kind]
        assert set(sub["quote_id"]) <= set(df["quote_id"]) and len(sub) < len(df)
        assert set(df["author_clean"]) <= set(twin.universe["author_clean"])
    assert len(twin.universe) == 200


def test_save_writes_one_parquet_per_table(twin, tmp_path):
    files = build.save(twin, tmp_path / "out")
    assert [f.name for f in files] == ["twin_universe.parquet", "twin_intersectional_with_quotes.parquet",
                                       "twin_multirace_with_quotes.parquet",
                                       "twin_intersectional_random_300matchings.parquet",
                                       "twin_multirace_random_300matchings.parquet"]
    assert pd.read_parquet(files[2]).equals(twin.datasets["multirace"].reset_index(drop=True))


def test_release_build_reads_what_is_there(twin, tmp_path):
    assert build.build_released(tmp_path) is None                               # no universe: no release build
    twin.universe[list(ds.UNIVERSE_COLUMNS)].to_csv(tmp_path / "universe_authors.csv", index=False)
    q = twin.datasets["multirace"].reset_index(drop=True)[list(ds.QUOTE_COLUMNS[1:])]
    q.insert(0, "", range(len(q)))
    q.to_csv(tmp_path / "multirace_with_quotes.csv", index=False)
    b = build.build_released(tmp_path, runs=2, seed=7, modes=("corrected",))
    assert b.source == "released" and not b.synthetic and b.quotes is None
    assert list(b.datasets) == ["multirace"] and not b.subsets and b.both_datasets() is None
    assert b.datasets["multirace"]["quote_id"].tolist() == q["quote_id"].tolist()
    assert set(b.balanced) == {("intersectional", "corrected"), ("multirace", "corrected")}
