"""lib.groundtruth.release: the release's ground-truth tables → companion schema.

A small synthetic world is written in the exact release layout (reference §4.1–4.3: the
``final_dataset.tar.gz`` members, the derived tables, the coauthorship edge list and the PCA
model), imported back and compared with the world it came from; missing and malformed files
must be reported with their path.
"""
import io
import json
import re
import tarfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lib.groundtruth import release as rl
from lib.groundtruth.loaders import load_tables
from lib.groundtruth.world import build_world

_LONG_ETHNICITY = {"Black": "Black or African American", "Hispanic": "Hispanic or Latino"}
_TOPICS = {"Condensed Matter Physics": 1001, "Education": 1002}
TARBALL_CSVS = ("authors_demographics.csv", "authors_stats.csv", "authors_aps_stats.csv", "authors_mapping.csv",
                "publications.csv", "publications_mapping.csv", "authorships.csv", "publications_topic.csv",
                "topics.csv")


def release_tables(world) -> dict[str, pd.DataFrame]:
    """The world as the release's CSV tables, with the reference's column sets and quirks."""
    a = world.authors.sort_values("author_id")
    demo = pd.DataFrame({
        "id_author": a["author_id"], "display_name": a["display_name"], "created_date": "2023-01-01",
        "updated_date": "2024-01-01", "orcid": "", "gender_nq": "Unknown",
        "alternative_names": a["alt_names"].map(lambda x: str(list(x))), "longest_name": a["longest_name"],
        "last_name": a["longest_name"].str.split().str[-1], "first_name": a["longest_name"].str.split().str[0],
        "ethnicity_dx": a["perceived_ethnicity"].map(lambda e: _LONG_ETHNICITY.get(e, e)), "ethnicity_ec": "",
        "ethnicity": a["perceived_ethnicity"].map(lambda e: _LONG_ETHNICITY.get(e, e)),
        "gender": a["perceived_gender"]})
    stats = pd.DataFrame({
        "id_author": a["author_id"], "name": a["display_name"], "created_date": "2023-01-01",
        "updated_date": "2024-01-01", "orcid": "", "works_count": a["works_count"],
        "cited_by_count": a["cited_by_count"], "h_index": a["h_index"], "i10_index": a["i10_index"],
        "two_year_mean_citedness": 1.5, "min_year": a["career_start"], "max_year": a["career_end"],
        "career_age": a["career_age"], "e_index": 0.5, "citations_per_paper_age": a["citations_per_paper_age"],
        "rr1_rank_publications": a["works_count"].rank(method="min", ascending=False).astype(int),
        "rr1_rank_publications_percentile": 50.0,
        "rr2_rank_citations": a["cited_by_count"].rank(method="min", ascending=False).astype(int),
        "rr2_rank_citations_percentile": 50.0})
    aps = pd.DataFrame({
        "id_author": a["author_id"], "aps_works_count": a["aps_works_count"],
        "aps_cited_by_count": a["aps_cited_by_count"], "aps_h_index": a["h_index"], "aps_i10_index": a["i10_index"],
        "aps_e_index": 0.0,
        "aps_years_of_activity": [f"[{s}, {e}]" for s, e in zip(a["career_start"], a["career_end"])],
        "aps_career_age": a["career_age"], "aps_citations_per_paper_age": 0.1})
    mapping = pd.DataFrame({"id_author_oa": np.r_[a["author_id"], a["author_id"][:5]],
                            "id_author_aps": np.arange(len(a) + 5) + 900_000})
    p = world.publications.sort_values("publication_id")
    pubs = pd.DataFrame({"id_publication": p["publication_id"], "doi": p["doi"], "title": "t",
                         "publication_date": [f"{y}-03-01" for y in p["year"]], "language": "en",
                         "cited_by_count": p["cited_by_count"]})
    pmap = pd.DataFrame({"oa_id": p["publication_id"], "aps_id": np.arange(len(p)), "id_journal": 1})
    ships = world.authorships.assign(id_institution=7).rename(columns={"publication_id": "id_publication",
                                                                       "author_id": "id_author"})
    ships = pd.concat([ships, ships.iloc[:3].assign(id_institution=8)])  # one row per institution
    topic_of = {s: _TOPICS.get(s, 2000 + i) for i, s in enumerate(sorted(p["subfield"].unique()))}
    ptopic = pd.DataFrame({"id_publication": p["publication_id"], "id_topic": p["subfield"].map(topic_of)})
    topics = pd.DataFrame({"id_topic": list(topic_of.values()), "domain_name": "Physical Sciences",
                           "field_name": "Physics and Astronomy", "subfield_name": list(topic_of)})
    e = world.coauthorships
    co = pd.concat([e[["src", "dst"]], e[["dst", "src"]].set_axis(["src", "dst"], axis=1),
                    e[["src", "dst"]].iloc[:4], pd.DataFrame({"src": [e["src"].iloc[0]], "dst": [e["src"].iloc[0]]})])
    return {"authors_demographics.csv": demo, "authors_stats.csv": stats, "authors_aps_stats.csv": aps,
            "authors_mapping.csv": mapping, "publications.csv": pubs, "publications_mapping.csv": pmap,
            "authorships.csv": ships, "publications_topic.csv": ptopic, "topics.csv": topics,
            "coauthorships.csv": co}


def pca_model_bytes(world) -> bytes:
    """``pca_cosine_similarity_model.h5`` in the reference's HDF5 layout (§4.3 item 4)."""
    import h5py

    from lib.scholar.metrics import similarity_embedding

    z = similarity_embedding(world.authors)
    buf = io.BytesIO()
    with h5py.File(buf, "w") as h:
        h["ids"] = z.index.to_numpy()
        h["embedding_"] = z.to_numpy()
        h["explained_variance_ratio_"] = np.full(z.shape[1], 1.0 / z.shape[1])
        h["pca/components_"] = np.eye(z.shape[1])
        h["pca/mean_"] = np.zeros(z.shape[1])
        h.attrs["meta_json"] = json.dumps({"feature_cols": ["works_count"], "n_components_": z.shape[1],
                                           "rbf_sigma_": None, "embedding_l2_normalized_": True})
    return buf.getvalue()


def _csv(df) -> bytes:
    return df.to_csv(index=False).encode()


def _tar(path: Path, members: dict[str, bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def write_release(world, root: Path, layout: str, *, tables=None, raw: dict[str, bytes] | None = None) -> Path:
    """The release in one of three layouts; returns the path to hand to the importer.

    reference: GTBuilder/APS/data/final_dataset.tar.gz (final_dataset/<table>.csv) with the edge list
               and the PCA model next to it in results/augmented_aps/ (reference §4.1, §5, §7);
    folder:    every file unpacked under release/final_dataset/;
    tarball:   one final_dataset.tar.gz holding every file, given as the path itself.
    ``raw`` replaces a file's bytes (malformed-file tests).
    """
    files = {n: _csv(df) for n, df in (tables or release_tables(world)).items()}
    files[rl.PCA_MODEL] = pca_model_bytes(world)
    files.update(raw or {})
    files = {n: b for n, b in files.items() if b is not None}
    if layout == "reference":
        _tar(root / "GTBuilder/APS/data/final_dataset.tar.gz",
             {f"final_dataset/{n}": b for n, b in files.items() if n in TARBALL_CSVS})
        side = root / "results/augmented_aps"
        side.mkdir(parents=True)
        for n in set(files) - set(TARBALL_CSVS):
            (side / n).write_bytes(files[n])
        return root
    if layout == "folder":
        d = root / "release" / "final_dataset"
        d.mkdir(parents=True)
        for n, b in files.items():
            (d / n).write_bytes(b)
        return root
    return _tar(root / "final_dataset.tar.gz", {f"final_dataset/{n}": b for n, b in files.items()})


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
    w = rl.load_release(write_release(world, tmp_path, "folder", tables=t))
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
    assert any("coauthorships.csv" in m for m in rl.check_ground_truth(src))
    assert rl.check_ground_truth(src, derive_coauthorships=True) == []
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
    msgs = rl.check_ground_truth(tmp_path / "nowhere")
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
    msgs = rl.check_ground_truth(src)
    assert [_file_of(m) for m in msgs] == ["authors_mapping.csv", "authors_aps_stats.csv"]
    assert all("APS Data Sets for Research" in m and str(src) in m for m in msgs)


def test_missing_column_and_unreadable_file_named_with_path(world, tmp_path):
    t = release_tables(world)
    t["authorships.csv"] = t["authorships.csv"].drop(columns="id_author")
    src = write_release(world, tmp_path, "folder", tables=t, raw={"topics.csv": b"\xff\xfe\x00bad"})
    msgs = rl.check_ground_truth(src)
    assert len(msgs) == 2
    ships = next(m for m in msgs if "authorships.csv" in m)
    assert "missing column(s) ['id_author']" in ships and str(src / "release/final_dataset/authorships.csv") in ships
    topics = next(m for m in msgs if "topics.csv" in m)
    assert "unreadable" in topics and str(src / "release/final_dataset/topics.csv") in topics


def test_corrupt_tarball_is_reported(tmp_path):
    bad = tmp_path / "final_dataset.tar.gz"
    bad.write_bytes(b"not a gzip file")
    msgs = rl.check_ground_truth(bad)
    assert "unreadable archive" in msgs[0] and str(bad) in msgs[0]
    assert len(msgs) == 10


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
    text = _csv(release_tables(world)["publications_topic.csv"]) + b"5,6,7,8\n"
    src = write_release(world, tmp_path, "folder", raw={"publications_topic.csv": text})
    with pytest.raises(rl.ReleaseError, match=r"publications_topic\.csv.*cannot be read as a UTF-8 CSV"):
        rl.load_release(src)


def test_broken_pca_model(world, tmp_path):
    src = write_release(world, tmp_path, "folder", raw={rl.PCA_MODEL: b"garbage"})
    assert rl.check_ground_truth(src) == []  # optional file
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
