"""lib.groundtruth.release: the release's ground-truth tables → companion schema.

A small synthetic world is written in the exact release layout (reference §4.1–4.3: the
``final_dataset.tar.gz`` members, the derived tables, the coauthorship edge list and the PCA
model), imported back and compared with the world it came from; missing and malformed files
must be reported with their path.
"""
import json
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from lib.groundtruth import release as rl
from lib.groundtruth.loaders import load_tables
from lib.groundtruth.world import build_world
from release_fixture import TARBALL_CSVS, release_csv, release_tables, write_release

@pytest.fixture(scope="module")
def world():
    return build_world(11, 120)


@pytest.fixture(scope="module")
def imported(world, tmp_path_factory):
    src = write_release(world, tmp_path_factory.mktemp("rel"), "reference")
    return src, rl.load_release(src)


# ---- round trip ------------------------------------------------------------------------------
def test_import_recovers_the_world(world, imported):
    _, w = imported
    assert not w.synthetic and w.meta["release_doi"] == "10.5281/zenodo.20417107"
    a = w.authors.set_index("author_id").sort_index()
    o = world.authors.set_index("author_id").sort_index()
    assert a.index.equals(o.index)
    for c in ("display_name", "longest_name", "perceived_gender", "perceived_ethnicity", "works_count",
              "cited_by_count", "h_index", "i10_index", "career_start", "career_end", "career_age",
              "aps_works_count", "aps_cited_by_count", "prominence_pub", "prominence_cit"):
        assert a[c].astype(object).tolist() == o[c].astype(object).tolist(), c
    assert a["alt_names"].tolist() == o["alt_names"].map(list).tolist()
    assert a["last_name"].tolist() == o["longest_name"].str.split().str[-1].tolist()  # first/last token (§4.3)
    assert a["n_aps_ids"].sum() == len(o) + 5
    assert "aps_years_of_activity" not in a.columns  # the reference's "[min, max]" list is not a feature
    p = w.publications.set_index("publication_id").sort_index()
    q = world.publications.set_index("publication_id").sort_index()
    assert p["year"].tolist() == q["year"].tolist()
    assert p["doi"].tolist() == q["doi"].str.lower().tolist()
    assert p["subfield"].tolist() == q["subfield"].tolist()
    assert set(p["field"]) == {"Physics and Astronomy"}
    key = ["publication_id", "author_id"]
    assert w.authorships.sort_values(key).values.tolist() == world.authorships.sort_values(key).values.tolist()
    pairs = world.coauthorships[["src", "dst"]].sort_values(["src", "dst"]).values.tolist()
    assert w.coauthorships.values.tolist() == pairs  # reversed, duplicated and self-loop rows dropped
    assert w.meta["coauthorships"] == "release" and w.meta["pca_model"].endswith(rl.PCA_MODEL)
    assert w.meta["authors_without_stats"] == 0


@pytest.mark.parametrize("layout", ["folder", "tarball"])
def test_other_layouts_give_the_same_world(world, imported, tmp_path, layout):
    w = rl.load_release(write_release(world, tmp_path, layout))
    for t in ("authors", "publications", "authorships", "coauthorships"):
        pd.testing.assert_frame_equal(getattr(w, t), getattr(imported[1], t))
    assert (".tar.gz (member final_dataset/" in w.meta["files"]["authors_stats.csv"]) == (layout == "tarball")


def test_import_writes_tables_load_tables_reads_back_identically(imported, tmp_path):
    src, w = imported
    dest = tmp_path / "gt"
    rl.import_release(src, dest)
    back = load_tables(dest)
    for t in ("authors", "publications", "authorships", "coauthorships"):
        pd.testing.assert_frame_equal(getattr(back, t), getattr(w, t), check_exact=True)
    assert json.loads((dest / "meta.json").read_text())["release_doi"] == rl.DOI


def test_authors_missing_from_stats_have_no_prominence(world, tmp_path):
    t = release_tables(world)
    gone = t["authors_stats.csv"]["id_author"].iloc[:2].tolist()
    t["authors_stats.csv"] = t["authors_stats.csv"].iloc[2:]
    t["authors_demographics.csv"].loc[t["authors_demographics.csv"].index[0], "ethnicity"] = "American Indian"
    src = write_release(world, tmp_path, "folder", tables=t)
    with pytest.raises(rl.ReleaseError, match=r"authors_stats.csv: .*118 data rows, expected 120"):
        rl.load_release(src)                        # not the whole release file: refused unless accepted
    with pytest.warns(UserWarning, match="accepted as modified"):
        w = rl.load_release(src, accept_modified=True)
    assert "118 data rows, expected 120" in w.meta["accepted_modifications"][0]
    a = w.authors.set_index("author_id")
    assert a.loc[gone, "prominence_pub"].isna().all() and (a.loc[gone, "works_count"] == 0).all()
    assert w.meta["authors_without_stats"] == 2 and w.meta["ethnicity_recoded_unknown"] == 1
    assert a.loc[gone[0], "perceived_ethnicity"] == "Unknown"


def test_topics_join_every_subfield_of_a_paper(world, tmp_path):
    t = release_tables(world)
    pid = t["publications.csv"]["id_publication"].iloc[0]
    t["publications_topic.csv"] = pd.concat([t["publications_topic.csv"],
                                             pd.DataFrame({"id_publication": [pid, pid], "id_topic": [1002, 1001]})])
    t["topics.csv"] = t["topics.csv"].drop(columns="field_name")
    w = rl.load_release(write_release(world, tmp_path, "folder", tables=t))
    p = w.publications.set_index("publication_id")
    own = world.publications.set_index("publication_id").loc[pid, "subfield"]
    assert p.loc[pid, "subfield"] == "; ".join(sorted({own, "Condensed Matter Physics", "Education"}))
    assert p["field"].isna().all()


def test_derived_coauthorships_when_asked(world, tmp_path):
    src = write_release(world, tmp_path, "folder", raw={"coauthorships.csv": None})
    assert any("coauthorships.csv" in m for m in rl.check_release(src))
    assert rl.check_release(src, derive_coauthorships=True) == []
    w = rl.load_release(src, derive_coauthorships=True)
    assert w.meta["coauthorships"] == "derived from authorships.csv"
    pd.testing.assert_frame_equal(w.coauthorships, world.coauthorships)


# ---- usable by the metrics -------------------------------------------------------------------
def test_metrics_context_on_the_imported_world(world, imported):
    from lib.scholar.benchmark import GroundTruthContext, per_attempt_metrics

    _, w = imported
    ids = world.authors["author_id"].tolist()
    names = pd.DataFrame({"attempt": [1] * 6 + [2] * 4 + [3] * 5,
                          "task_name": ["field"] * 6 + ["epoch"] * 4 + ["top_k"] * 5,
                          "task_param": ["CM&MP"] * 6 + ["2000s"] * 4 + ["top_5"] * 5,
                          "author_id": pd.array([*ids[:5], None, *ids[10:14], *ids[20:25]], dtype="Int64")})
    names["clean_name"] = [f"n{i}" for i in range(len(names))]
    ctx = GroundTruthContext.from_world(w)
    got = per_attempt_metrics(names, ctx, keys=["attempt"])
    want = per_attempt_metrics(names, GroundTruthContext.from_world(world), keys=["attempt"])
    assert len(got) > 30 and got["metric_value"].notna().sum() > 25
    pd.testing.assert_frame_equal(got, want, check_exact=False, atol=1e-9)
    # the reference's stored embedding can stand in for the re-fitted one
    emb = rl.load_pca_embedding(imported[0])
    assert emb.shape == ctx.embedding.shape and np.allclose(np.linalg.norm(emb, axis=1), 1)
    alt = per_attempt_metrics(names, replace(ctx, embedding=emb), keys=["attempt"])
    pd.testing.assert_frame_equal(alt, got, check_exact=False, atol=1e-9)


# ---- missing files -----------------------------------------------------------------------------
def _file_of(msg: str) -> str:
    return re.match(r"ground truth ([\w.]+)[,:]", msg).group(1)


def test_missing_folder_lists_every_file_with_source(tmp_path):
    msgs = rl.check_release(tmp_path / "nowhere")
    required = [f.name for f in rl.RELEASE_FILES]
    assert len(msgs) == len(required) == 9
    for name, msg in zip(required, msgs):
        assert name in msg and f"{tmp_path / 'nowhere'} does not exist" in msg and "expected columns" in msg
    aps = {_file_of(m) for m in msgs if "journals.aps.org/datasets" in m}
    assert aps == {"authors_mapping.csv", "authors_aps_stats.csv"}
    for m in msgs:
        if "journals.aps.org/datasets" in m:
            assert "American Physical Society" in m and "licen" in m and "not redistributed" in m
        else:
            assert "10.5281/zenodo.20417107" in m
    assert "id_author_aps" in msgs[required.index("authors_mapping.csv")]
    with pytest.raises(FileNotFoundError, match="authors_aps_stats.csv"):
        rl.load_release(tmp_path / "nowhere")


def test_missing_aps_part_only(world, tmp_path):
    src = write_release(world, tmp_path, "reference",
                        raw={"authors_aps_stats.csv": None, "authors_mapping.csv": None})
    msgs = rl.check_release(src)
    assert [_file_of(m) for m in msgs] == ["authors_mapping.csv", "authors_aps_stats.csv"]
    assert all("APS Data Sets for Research" in m and str(src) in m for m in msgs)


def test_missing_column_and_unreadable_file_named_with_path(world, tmp_path):
    t = release_tables(world)
    t["authorships.csv"] = t["authorships.csv"].drop(columns="id_author")
    src = write_release(world, tmp_path, "folder", tables=t, raw={"topics.csv": b"\xff\xfe\x00bad"})
    msgs = rl.check_release(src)
    assert len(msgs) == 2
    ships = next(m for m in msgs if "authorships.csv" in m)
    assert "missing column(s) ['id_author']" in ships and str(src / "release/final_dataset/authorships.csv") in ships
    topics = next(m for m in msgs if "topics.csv" in m)
    assert "unreadable" in topics and str(src / "release/final_dataset/topics.csv") in topics


def test_corrupt_tarball_is_reported(tmp_path):
    bad = tmp_path / "final_dataset.tar.gz"
    bad.write_bytes(b"not a gzip file")
    msgs = rl.check_release(bad)
    assert "corrupt or truncated archive" in msgs[0] and str(bad) in msgs[0]
    assert len(msgs) == 10


@pytest.mark.parametrize("keep", [0.5, "trailer"])
def test_a_truncated_tarball_is_reported_as_a_corrupt_archive(world, tmp_path, keep):
    whole = write_release(world, tmp_path, "tarball").read_bytes()
    cut = tmp_path / "cut" / "final_dataset.tar.gz"
    cut.parent.mkdir()
    cut.write_bytes(whole[: int(len(whole) * keep) if keep != "trailer" else len(whole) - 6])
    msgs = rl.check_release(cut)
    assert msgs and f"{cut}: corrupt or truncated archive" in msgs[0] and "re-download it" in msgs[0]
    assert all("corrupt archive" in m for m in msgs[1:]), "a table 'not found' must point at the corrupt archive"
    with pytest.raises(FileNotFoundError, match="corrupt or truncated archive"):
        rl.load_release(cut)


# ---- malformed files: reported with path, column and row, never a crash ------------------------
def _edit(table, col, row, value):
    def f(t):
        df = t[table].copy()
        df[col] = df[col].astype(object)
        df.iloc[row, df.columns.get_loc(col)] = value
        t[table] = df
    return f


@pytest.mark.parametrize("change, file, words", [
    (_edit("publications.csv", "publication_date", 2, "yesterday"), "publications.csv",
     ["'publication_date'", "'yesterday'", "line 4", "YYYY-MM-DD"]),
    (_edit("authorships.csv", "id_author", 1, "abc"), "authorships.csv", ["'id_author'", "'abc'", "line 3"]),
    (_edit("authors_demographics.csv", "alternative_names", 0, "['A. B',"), "authors_demographics.csv",
     ["'alternative_names'", "list literal", "line 2"]),
    (_edit("authors_demographics.csv", "gender", 3, "Woman"), "authors_demographics.csv",
     ["'gender'", "'Woman'", "Female", "line 5"]),
    (_edit("authors_stats.csv", "works_count", 4, "many"), "authors_stats.csv", ["'works_count'", "integer", "'many'"]),
    (_edit("authors_aps_stats.csv", "aps_cited_by_count", 0, "2.5"), "authors_aps_stats.csv",
     ["'aps_cited_by_count'", "integer"]),
    (lambda t: t.update({"topics.csv": pd.concat([t["topics.csv"], t["topics.csv"].iloc[:1]])}), "topics.csv",
     ["'id_topic'", "duplicated"]),
    (_edit("authorships.csv", "id_author", 0, 99), "authorships.csv",
     ["'id_author'", "an id listed in authors_demographics.csv", "got 99", "line 2"]),
    (_edit("authorships.csv", "id_publication", 1, 5), "authorships.csv",
     ["an id listed in publications.csv", "line 3"]),
    (_edit("coauthorships.csv", "dst", 0, 77), "coauthorships.csv", ["'dst'", "got 77", "line 2"]),
])
def test_malformed_values_name_path_column_and_row(world, tmp_path, change, file, words):
    t = release_tables(world)
    change(t)
    src = write_release(world, tmp_path, "reference", tables=t)
    with pytest.raises(rl.ReleaseError) as err:
        rl.load_release(src)
    msg = str(err.value)
    where = "final_dataset.tar.gz (member final_dataset/" + file if file in TARBALL_CSVS else file
    assert where in msg, msg
    for w in words:
        assert w in msg, (w, msg)


def test_ragged_csv_is_reported_with_its_path(world, tmp_path):
    text = release_csv(release_tables(world)["publications_topic.csv"]) + b"5,6,7,8\n"
    src = write_release(world, tmp_path, "folder", raw={"publications_topic.csv": text})
    with pytest.raises(rl.ReleaseError, match=r"publications_topic\.csv.*cannot be read as a UTF-8 CSV"):
        rl.load_release(src)


def test_broken_pca_model(world, tmp_path):
    src = write_release(world, tmp_path, "folder", raw={rl.PCA_MODEL: b"garbage"})
    assert rl.check_release(src) == []  # optional file
    with pytest.raises(rl.ReleaseError, match=r"pca_cosine_similarity_model\.h5.*not an HDF5 file"):
        rl.load_pca_embedding(src)


def test_openalex_prefixed_ids_are_accepted(world, tmp_path):
    t = release_tables(world)
    t["authorships.csv"]["id_author"] = "https://openalex.org/A" + t["authorships.csv"]["id_author"].astype(str)
    t["coauthorships.csv"]["src"] = "A" + t["coauthorships.csv"]["src"].astype(str)
    w = rl.load_release(write_release(world, tmp_path, "folder", tables=t))
    assert w.authorships["author_id"].dtype == "int64" and len(w.coauthorships) == len(world.coauthorships)


# ---- shell ---------------------------------------------------------------------------------------
def test_cli_check_and_import(imported, tmp_path, capsys):
    src, w = imported
    assert rl.main(["check", str(tmp_path / "none")]) == 1
    assert "journals.aps.org/datasets" in capsys.readouterr().err
    assert rl.main(["check", str(src)]) == 0
    assert rl.main(["import", str(src), str(tmp_path / "out")]) == 0
    assert f"{len(w.authors)} authors" in capsys.readouterr().out
    assert len(load_tables(tmp_path / "out").authors) == len(w.authors)


@pytest.mark.parametrize("layout", ["folder", "reference", "tarball"])
def test_a_truncated_authors_stats_is_reported_by_check_and_import(world, tmp_path, capsys, layout):
    """Issue 28: authors_stats.csv cut to 71 of its 120 rows, in each layout of the release."""
    t = release_tables(world)
    t["authors_stats.csv"] = t["authors_stats.csv"].iloc[:71]
    src = write_release(world, tmp_path / "rel", layout, tables=t)
    (msg,) = rl.check_release(src)
    assert "authors_stats.csv" in msg and "71 data rows, expected 120" in msg and "49 of its authors absent" in msg
    assert "authors_demographics.csv" in msg and "accept_modified_releases" in msg
    assert rl.main(["check", str(src)]) == 1
    err = capsys.readouterr().err
    assert "71 data rows, expected 120" in err
    assert rl.main(["import", str(src), str(tmp_path / "out")]) == 1
    assert "71 data rows, expected 120" in capsys.readouterr().err and not (tmp_path / "out" / "meta.json").exists()
    assert rl.check_release(src, accept_modified=True) == []
    with pytest.warns(UserWarning, match="accepted as modified"):
        assert rl.main(["import", "--accept-modified", str(src), str(tmp_path / "out")]) == 0
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert "71 data rows, expected 120" in meta["accepted_modifications"][0]
    assert rl.accepted_modifications(src) == [msg]


def test_an_import_destination_that_is_a_file_is_refused_before_reading(tmp_path, capsys):
    dest = tmp_path / "dest"
    dest.write_text("x")
    assert rl.main(["import", str(tmp_path / "no-release"), str(dest)]) == 1
    err = capsys.readouterr().err
    assert f"ground-truth import destination: {dest} is a file; expected a folder" in err and "Traceback" not in err
    with pytest.raises(FileExistsError, match=r"cannot be created: .*dest is a file"):
        rl.import_release(tmp_path / "no-release", dest / "sub")


def test_derived_indicator_quirks_warn_and_load(world, tmp_path):
    """A non-number in an indicator the release's scripts derived (e_index) is a warning naming the
    rows, read as missing; the release still loads (issue 13: the paper's own files must load)."""
    t = release_tables(world)
    _edit("authors_stats.csv", "e_index", 2, "n/a")(t)
    src = write_release(world, tmp_path, "reference", tables=t)
    with pytest.warns(UserWarning, match=r"'e_index' \(derived\): 1 value\(s\) not a number.*data row 3 \('n/a'\)"):
        w = rl.load_release(src)
    assert len(w.authors) == len(world.authors)
