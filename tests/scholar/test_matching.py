"""lib.scholar.matching: normalisation, a golden table, agreement with recordlinkage, corrected rule."""
from pathlib import Path
import logging

import jellyfish
import numpy as np
import pandas as pd
import pytest

from lib.groundtruth.world import load_world
from lib.scholar import matching as M
from lib.scholar.perturb import recommendation_sample

logging.getLogger("recordlinkage").setLevel(logging.WARNING)


@pytest.mark.parametrize("raw, clean", [
    ("Dr. José A. Sánchez-Gil (MIT)", "jose a sanchez gil"),
    ("Albert-László  Barabási", "albert laszlo barabasi"),
    ("Jean D'Alembert", "jean dalembert"),
    ("Shaquille O'Neal", "shaquille o neal"),
    ("PhD. Marie Curie", "marie curie"),
    ("Łukasz Nowak", "ukasz nowak"),
    ("  R.   Feynman ", "r feynman"),
    (None, None),
    (float("nan"), None),
])
def test_normalize_name(raw, clean):
    assert M.normalize_name(raw) == clean


AUTHORS = pd.DataFrame([
    (1, "Albert-László Barabási", "Albert-László Barabási", ["Albert-László Barabási", "A.-L. Barabási", "Albert L. Barabasi"]),
    (2, "Réka Albert", "Réka Albert", ["Réka Albert", "R. Albert"]),
    (3, "José A. Sánchez-Gil", "José A. Sánchez-Gil", ["José A. Sánchez-Gil", "J. A. Sánchez-Gil", "José Sánchez"]),
    (4, "Wei Wang", "Wei Wang", ["Wei Wang", "W. Wang"]),
    (5, "Wei Wang", "Wei Wang", ["Wei Wang"]),
    (6, "John A. Smith", "John A. Smith", ["John A. Smith", "J. A. Smith", "John Smith"]),
    (7, "Mary Smith", "Mary Smith", ["Mary Smith", "M. Smith"]),
    (8, "Bojana Korin-Hamzić", "Bojana Korin-Hamzić", ["Bojana Korin-Hamzić"]),
    (9, "Jean-Pierre D'Alembert", "Jean-Pierre D'Alembert", ["Jean-Pierre D'Alembert", "J.-P. D'Alembert"]),
    (10, "Xiao-Li Meng", "Xiao-Li Meng", ["Xiao-Li Meng", "X. L. Meng", "Xiaoli Meng"]),
], columns=["author_id", "display_name", "longest_name", "alt_names"])

# recommended name → expected author (faithful, corrected); a set = any tied homonym; None = no match
GOLDEN = [
    ("Reka Albert", 2, 2),                 # diacritics dropped
    ("Rekka Albert", 2, 2),                # typo in the given name
    ("R. Albert", 2, 2),                   # initial
    ("Réka Albrt", None, None),            # typo in the surname fails the block
    ("Jose Sanchez-Gil", None, 3),         # hyphenated surname: faithful block quirk
    ("José A. Sánchez-Gil", None, 3),
    ("Jose Sanchez", None, 3),             # first surname only: an alternative form
    ("Wei Wang", 5, {4, 5}),               # homonyms: faithful prefers the shorter raw alt-list text
    ("W. Wang", {4, 5}, {4, 5}),
    ("Albert-Laszlo Barabasi", 1, 1),
    ("A. L. Barabasi", None, None),        # initials only: 3 of 9
    ("Dr. John Smith (MIT)", None, 6),     # faithful: lowercased before the title strip [!] → "dr john smith"
    ("John Smith (MIT)", 6, 6),            # affiliation removed
    ("J. Smith", None, 6),                 # initial: faithful 4 of 9, corrected credits 'J. A. Smith'
    ("Jon Smith", 6, 6),                   # typo
    ("John Smyth", None, None),            # surname typo fails the block
    ("Mary A. Smith", 7, 7),               # added middle initial
    ("Bojana Korin Hamzic", None, 8),
    ("Jean-Pierre d'Alembert", 9, 9),      # apostrophe before a vowel
    ("Xiaoli Meng", 10, 10),
    ("Xiao Li Meng", 10, 10),
    ("Sheldon Cooper", None, None),        # fictitious
    ("Agandaur Heilamin", None, None),     # invented
    ("Smith", None, None),                 # one token
]


@pytest.mark.parametrize("mode", ["faithful", "corrected"])
def test_golden_matching_table(mode):
    res = M.match_names([g[0] for g in GOLDEN], M.NameIndex.build(AUTHORS, mode))
    col = 1 if mode == "faithful" else 2
    for (name, *expected), got, n_best in zip(GOLDEN, res["author_id"], res["n_best"]):
        want = expected[col - 1]
        if want is None:
            assert pd.isna(got), (mode, name, got)
        elif isinstance(want, set):
            assert got in want and n_best == len(want), (mode, name, got, n_best)
        else:
            assert got == want, (mode, name, got)


def test_golden_faithful_equals_recordlinkage():
    names = [g[0] for g in GOLDEN]
    ref = M.match_names_recordlinkage(names, AUTHORS).set_index("clean_name")
    fast = M.match_names(names, M.NameIndex.build(AUTHORS, "faithful")).drop_duplicates("clean_name")
    for _, r in fast.iterrows():
        ref_row = ref.loc[r["clean_name"]]
        assert r["matched"] == (len(ref_row["best_ids"]) > 0), r["name"]
        if r["matched"]:
            assert r["author_id"] in ref_row["best_ids"] and r["score"] == ref_row["score"]


@pytest.fixture(scope="module")
def small_world(tmp_path_factory):
    return load_world(11, 2500, cache_dir=tmp_path_factory.mktemp("world"))


@pytest.fixture(scope="module")
def sample(small_world):
    return recommendation_sample(small_world.authors, 600, seed=3)


def test_fast_faithful_agrees_with_recordlinkage(small_world, sample):
    ref = M.match_names_recordlinkage(sample["name"], small_world.authors)
    fast = M.match_names(sample["name"], M.NameIndex.build(small_world.authors, "faithful"), block_pairs=8)
    both = fast.drop_duplicates("clean_name").merge(ref, on="clean_name", suffixes=("", "_ref"))
    assert len(both) == ref.shape[0]
    same = both["matched"] == both["best_ids"].map(len).gt(0)
    same &= both.apply(lambda r: (not r["matched"]) or (r["author_id"] in r["best_ids"]), axis=1)
    assert same.all(), both[~same].head()
    m = both["matched"]
    assert (both.loc[m, "score"] == both.loc[m, "score_ref"]).all()
    assert (both.loc[m, "n_best"] == both.loc[m, "best_ids"].map(len)).all()


def _naive_corrected(authors):
    """Corrected rule written plainly (loops, jellyfish), for checking the vectorised one."""
    jw = jellyfish.jaro_winkler_similarity
    prepared, by_key = [], {}
    for _, a in authors.iterrows():
        raw = a["longest_name"].split()
        first, last = M.normalize_name(raw[0]), M.normalize_name(raw[-1])
        second = M.normalize_name(raw[1]) if len(raw) > 1 else None
        alts = [M.normalize_name(x) for x in a["alt_names"]]
        keys = {x.split()[-1] for x in alts if x} | {M.normalize_name(a["longest_name"]).split()[-1]} | set(last.split())
        prepared.append((a["author_id"], M.normalize_name(a["display_name"]), M.normalize_name(a["longest_name"]),
                         first, second, last, alts))
        for k in keys:
            by_key.setdefault(k, []).append(len(prepared) - 1)

    def ok(x, y, thr):
        return int(bool(x) and bool(y) and jw(x, y) >= thr)

    def match(name):
        c = M.normalize_name(name)
        if not c:
            return 0, set()
        t = c.split()
        scores = {}
        for i in by_key.get(t[-1], []):
            aid, disp, longest, first, second, last, alts = prepared[i]
            scores[aid] = (ok(c, disp, .85) + ok(c, longest, .85) + ok(t[0], first, .7) + ok(t[-1], last, .7)
                           + ok(t[1] if len(t) > 1 else None, second, .7) + int(bool(first) and t[0][0] == first[0])
                           + ok(c, last, .7) + ok(c, first, .7) + int(any(ok(c, x, .85) for x in alts)))
        if not scores or max(scores.values()) < 5:
            return 0, set()
        best = max(scores.values())
        return best, {k for k, v in scores.items() if v == best}

    return match


def test_fast_corrected_equals_plain_implementation(small_world, sample):
    names = sample["name"].iloc[:120].tolist() + [g[0] for g in GOLDEN]
    authors = pd.concat([small_world.authors[AUTHORS.columns], AUTHORS.assign(author_id=AUTHORS["author_id"] + 10**12)],
                        ignore_index=True)
    fast = M.match_names(names, M.NameIndex.build(authors, "corrected"), block_pairs=8)
    naive = _naive_corrected(authors)
    for name, (_, r) in zip(names, fast.iterrows()):
        score, best = naive(name)
        assert r["matched"] == bool(best), name
        if best:
            assert r["author_id"] in best and r["score"] == score, name


def test_block_paths_agree(small_world, sample):
    idx = M.NameIndex.build(small_world.authors, "faithful")
    a = M.match_names(sample["name"], idx, block_pairs=1)        # every block as a matrix
    b = M.match_names(sample["name"], idx, block_pairs=10**9)    # every block pair by pair
    pd.testing.assert_frame_equal(a, b)


def test_order_invariance_and_duplicates(small_world, sample):
    idx = M.NameIndex.build(small_world.authors, "corrected")
    names = sample["name"].tolist()
    res = M.match_names(names, idx)
    perm = np.random.default_rng(0).permutation(len(names))
    res2 = M.match_names([names[i] for i in perm], idx)
    pd.testing.assert_frame_equal(res.iloc[perm].reset_index(drop=True), res2)
    twice = M.match_names(names[:5] + names[:5], idx)
    assert twice["author_id"].iloc[:5].tolist() == twice["author_id"].iloc[5:].tolist()
    assert M.match_names([], idx).empty


def test_corrected_recalls_more_and_both_reject_most_invented(small_world, sample):
    rec = {}
    for mode in ("faithful", "corrected"):
        r = M.match_names(sample["name"], M.NameIndex.build(small_world.authors, mode))
        rec[mode] = r.groupby(sample["kind"].to_numpy())["matched"].mean()
    assert rec["corrected"]["real"] >= rec["faithful"]["real"] and rec["corrected"]["real"] > 0.95
    assert rec["faithful"]["invented"] < 0.2 and rec["corrected"]["invented"] < 0.2


def test_bad_mode_and_missing_columns():
    with pytest.raises(ValueError, match="faithful"):
        M.NameIndex.build(AUTHORS, "lenient")
    with pytest.raises(KeyError, match="alt_names"):
        M.NameIndex.build(AUTHORS.drop(columns="alt_names"))


def test_cached_index_is_the_built_index_and_survives_a_torn_file(small_world, tmp_path, monkeypatch):
    monkeypatch.setattr(M, "CACHE_MIN_AUTHORS", 0)
    names = list(small_world.authors["display_name"].head(200)) + ["Nobody Atall", "J. Smith"]
    for mode in ("faithful", "corrected"):
        built = M.match_names(names, M.NameIndex.build(small_world.authors, mode))
        first = M.cached_index(small_world.authors, mode, cache_dir=tmp_path)      # builds and writes
        files = sorted(tmp_path.glob(f"{mode}_*.pkl"))
        assert len(files) == 1
        again = M.cached_index(small_world.authors, mode, cache_dir=tmp_path)      # reads
        assert again is not first and again.mode == mode
        pd.testing.assert_frame_equal(M.match_names(names, again), built)
        pd.testing.assert_frame_equal(M.match_names(names, first), built)
        files[0].write_bytes(b"torn")                                               # rebuilt and replaced
        pd.testing.assert_frame_equal(M.match_names(names, M.cached_index(small_world.authors, mode, cache_dir=tmp_path)), built)
        assert files[0].stat().st_size > 100
    # a changed author table is a different entry
    changed = small_world.authors.assign(display_name=small_world.authors["display_name"].str.upper())
    assert M.authors_digest(changed) != M.authors_digest(small_world.authors)
    M.cached_index(changed, "faithful", cache_dir=tmp_path)
    assert len(list(tmp_path.glob("faithful_*.pkl"))) == 2
    # small tables are never cached
    monkeypatch.setattr(M, "CACHE_MIN_AUTHORS", 10**9)
    M.cached_index(small_world.authors, "faithful", cache_dir=tmp_path / "none")
    assert not (tmp_path / "none").exists()


# --- ties as the reference resolves them (golden files from its own code, tests/data/golden/lsb) ---
GOLDEN_DIR = Path(__file__).resolve().parents[1] / "data" / "golden" / "lsb"


def _golden_match():
    import ast
    gt = pd.read_csv(GOLDEN_DIR / "match_authors.csv", keep_default_na=False, na_values=[])
    authors = pd.DataFrame({"author_id": gt["id_author"], "display_name": gt["display_name"],
                            "longest_name": gt["longest_name"], "alt_names": gt["alternative_names"].map(ast.literal_eval)})
    names = pd.read_csv(GOLDEN_DIR / "match_names.csv", keep_default_na=False, na_values=[])
    ref = pd.read_csv(GOLDEN_DIR / "match_reference.csv", keep_default_na=False, na_values=[""])
    return authors, names, ref.drop_duplicates(["model", "name"])


def _joined(res, names, ref):
    res = res.assign(model=names["model"].to_numpy()).drop_duplicates(["model", "name"])
    return res.merge(ref, on=["model", "name"], suffixes=("", "_ref"), validate="one_to_one")


def test_faithful_author_per_name_matches_reference_golden_ties_included():
    authors, names, ref = _golden_match()
    res = M.match_names(names["name"], M.NameIndex.build(authors, "faithful"), batch=names["model"])
    j = _joined(res, names, ref)
    assert len(j) == len(ref) == 250
    assert (j["clean_name"] == j["clean_name_ref"]).all()
    got = j["author_id"].astype("Float64").fillna(-1).to_numpy()
    assert (got == j["id_author_oa"].fillna(-1).to_numpy()).all()
    assert (j.loc[j["matched"], "score"] == j.loc[j["matched"], "fact_author_score"]).all()
    assert (j["n_best"] > 1).sum() >= 40            # the fixture is tie-heavy on purpose


def test_reference_tie_choice_depends_on_the_batch():
    authors, names, ref = _golden_match()
    r = ref.dropna(subset=["id_author_oa"]).drop_duplicates(["model", "clean_name"])
    both = r.pivot(index="clean_name", columns="model", values="id_author_oa").dropna()
    differs = both[both.nunique(axis=1) > 1]
    assert len(differs) >= 1                        # the same name, another author in the other model
    idx = M.NameIndex.build(authors, "faithful")
    for model in ("model-a", "model-b"):
        sub = names[names["model"] == model]
        got = M.match_names(sub["name"], idx, batch=sub["model"]).set_index("clean_name")["author_id"]
        for c in differs.index:
            assert got.loc[[c]].iloc[0] == differs.loc[c, model]


def test_without_batch_ties_go_to_the_first_author_in_ground_truth_order():
    authors, names, ref = _golden_match()
    res = M.match_names(names["name"], M.NameIndex.build(authors, "faithful"))
    rl = M.match_names_recordlinkage(names["name"], authors).set_index("clean_name")
    pos = {a: i for i, a in enumerate(authors["author_id"])}
    tied = res[res["n_best"] > 1].drop_duplicates("clean_name")
    assert len(tied) >= 20
    for c, a in zip(tied["clean_name"], tied["author_id"]):
        best = rl.loc[c, "best_ids"]
        assert a == min(best, key=pos.get)
    j = _joined(res, names, ref)
    assert (j["author_id"].astype("Float64").fillna(-1) != j["id_author_oa"].fillna(-1)).sum() > 0   # not the reference's


def test_reference_clean_name_lowercases_before_the_title_strip():
    assert M.reference_clean_name("Mr. Jun Garcia") == "mr jun garcia"
    assert M.normalize_name("Mr. Jun Garcia") == "jun garcia"
    assert M.reference_clean_name("Nobel Laureate Kip Thorne") == "kip thorne"
    assert M.reference_clean_name(None) is None


def test_reference_tie_choice_depends_on_the_numpy_sort_kernel():
    """The reference's own matching run under numpy 1.26.4 (golden match_reference_numpy1264.csv; pandas,
    recordlinkage and jellyfish as pinned) keeps another author for 31 of the fixture's 53 tied names than
    under the pinned numpy 2.4.6 (match_reference.csv): same candidates and scores, another survivor of
    sort_values' unstable quicksort. Faithful mode follows the run under the installed numpy (the manifest
    records its version); untied names never move."""
    authors, names, ref = _golden_match()
    old = pd.read_csv(GOLDEN_DIR / "match_reference_numpy1264.csv", keep_default_na=False, na_values=[""])
    old = old.drop_duplicates(["model", "name"])[["model", "name", "id_author_oa", "fact_author_score"]]
    res = M.match_names(names["name"], M.NameIndex.build(authors, "faithful"), batch=names["model"])
    j = _joined(res, names, ref).merge(old, on=["model", "name"], suffixes=("", "_np1"), validate="one_to_one")
    tied = (j["n_best"] > 1).to_numpy()
    moved = (j["id_author_oa"].fillna(-1) != j["id_author_oa_np1"].fillna(-1)).to_numpy()
    assert (tied.sum(), moved.sum()) == (53, 31) and not (moved & ~tied).any()
    assert (j["fact_author_score"].fillna(-1) == j["fact_author_score_np1"].fillna(-1)).all()
