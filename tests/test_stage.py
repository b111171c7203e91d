"""lib.stage: a notebook reads and writes only the intermediate files its declaration names, writes
them atomically, and the after-run checks list undeclared and missing files."""
import pandas as pd
import pytest

from lib import paths, registry, stage
from lib.stage import Stage, UndeclaredFile


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "DATA", tmp_path)
    return tmp_path


def test_a_declared_parquet_and_csv_are_written_atomically_and_read_back_by_a_declared_reader(data):
    df = pd.DataFrame({"model": ["a", "b"], "n": [1, 2]})
    path = Stage("02_collection").write(df, "attempts.parquet")
    assert path == data / "02_collection" / "attempts.parquet"
    assert [p.name for p in path.parent.iterdir()] == ["attempts.parquet"]   # no temporary file left
    pd.testing.assert_frame_equal(Stage("03_infrastructure_benchmark").read("02_collection/attempts.parquet"), df)
    counts = df.set_index("model")
    Stage("02_collection").write(counts, "label_counts.csv", index=True)
    assert (data / "02_collection" / "label_counts.csv").read_text() == "model,n\na,1\nb,2\n"
    Stage("02_collection").write(df, "provenance.csv")
    assert (data / "02_collection" / "provenance.csv").read_text() == "model,n\na,1\nb,2\n"


def test_an_undeclared_write_or_read_names_the_notebook_the_file_and_the_declared_ones(data):
    with pytest.raises(UndeclaredFile, match=r"^03_infrastructure_benchmark: writes 'x\.parquet', which its "
                                             r"declaration .* declared writes \['attribute_distribution\.parquet'"):
        Stage("03_infrastructure_benchmark").write(pd.DataFrame(), "x.parquet")
    with pytest.raises(UndeclaredFile, match="writes '../01_calibration/attempts.parquet'"):
        Stage("03_infrastructure_benchmark").write(pd.DataFrame(), "../01_calibration/attempts.parquet")
    with pytest.raises(UndeclaredFile, match=r"^03_infrastructure_benchmark: reads '01_calibration/names\.parquet'.*"
                                             r"declared reads \['02_collection/attempts\.parquet', "
                                             r"'02_collection/names\.parquet'\]$"):
        Stage("03_infrastructure_benchmark").read("01_calibration/names.parquet")
    assert not (data / "03_infrastructure_benchmark").exists()
    with pytest.raises(ValueError, match="no notebook '03_benchmark' is declared"):
        Stage("03_benchmark")


def test_a_missing_upstream_file_says_which_notebook_to_run(data):
    with pytest.raises(FileNotFoundError, match=r"02_collection/names\.parquet: 04_interventions reads "
                                                r"02_collection/names\.parquet; run notebook 02 first$"):
        Stage("04_interventions").read("02_collection/names.parquet")


def test_a_failed_write_keeps_the_previous_file(data):
    st = Stage("03_infrastructure_benchmark")
    st.write(pd.DataFrame({"x": [1]}), "by_model.parquet")
    with pytest.raises(Exception):
        st.write(pd.DataFrame({"x": [object()]}), "by_model.parquet")   # pyarrow cannot store it
    assert pd.read_parquet(data / "03_infrastructure_benchmark" / "by_model.parquet")["x"].tolist() == [1]
    assert stage.undeclared("03_infrastructure_benchmark") == []          # the hidden temporary file aside


def test_after_a_run_undeclared_and_missing_files_are_listed(data):
    assert stage.missing_writes("02_collection") == list(registry.notebooks()["02_collection"].writes)
    d = data / "02_collection"
    d.mkdir()
    for f in ("attempts.parquet", "names.parquet", "label_counts.csv", "extra.parquet"):
        (d / f).write_bytes(b"")
    assert stage.undeclared("02_collection") == ["extra.parquet"]
    assert stage.missing_writes("02_collection") == ["label_counts_paper.csv", "provenance.csv"]
    # patterns (one file per source) and files only some runs leave (may_write)
    d6 = data / "06_attribution_fairness"
    d6.mkdir()
    for f in ("twin_universe.parquet", "twin_direct_with_quotes.parquet", "scored.parquet", "scored.csv"):
        (d6 / f).write_bytes(b"")
    assert stage.undeclared("06_attribution_fairness") == ["scored.csv"]
    assert stage.missing_writes("06_attribution_fairness") == ["*_random_300matchings.parquet"]
    Stage("06_attribution_fairness").write(pd.DataFrame({"a": [1]}), "released_x_random_300matchings.parquet")
    assert stage.missing_writes("06_attribution_fairness") == []


def test_every_declared_read_is_a_file_its_upstream_declares_it_writes():
    nbs = registry.notebooks()
    unmatched = [(name, ref) for name, nb in nbs.items() for ref in nb.reads
                 if ref.split("/", 1)[1] not in nbs[ref.split("/", 1)[0]].writes]
    assert unmatched == []
    assert all(nb.writes for nb in nbs.values())
