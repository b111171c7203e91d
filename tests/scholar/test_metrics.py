"""lib.scholar.metrics: hand-computed cases for the nine metrics, their edge cases and properties."""
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from lib.scholar import metrics as m
from lib.scholar.quirks import as_markdown, as_table

LN = math.log
GENDER = ("Female", "Male", "Unisex")
Q = {"Female": 0.2, "Male": 0.6, "Unisex": 0.05, "Unknown": 0.15}


def test_refusal_and_validity():
    assert m.refusal([1, 0, -1, 1]) == 0.5  # undetermined (-1) counts as 0
    assert math.isnan(m.refusal([]))
    assert m.validity([False, True, False, False, True], ["a", "a", "b", "b", "c"]) == pytest.approx(2 / 3)
    assert math.isnan(m.validity([], []))


def test_duplicates():
    assert m.duplicates(["a", "b", "c"]) == 0.0
    assert m.duplicates(["a", "a", "b", "b"]) == 0.5
    assert m.duplicates(["a", "a", "b", None]) == 0.5                       # faithful: 1 − 2/4
    assert m.duplicates(["a", "a", "b", None], mode="corrected") == pytest.approx(1 - 2 / 3)
    assert math.isnan(m.duplicates([]))
    assert m.duplicates(["a"]) == 0.0


def test_consistency_consecutive_and_all_pairs():
    runs = [{"a", "b"}, {"b", "c"}, {"c"}]
    assert m.consistency(runs) == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert m.consistency(runs, pairs="all") == pytest.approx((1 / 3 + 1 / 2 + 0) / 3)
    assert math.isnan(m.consistency([{"a"}]))
    assert m.consistency([set(), set()]) == 1.0                               # Jaccard(∅, ∅) = 1
    assert m.consistency([{"a", None, ""}, {"a"}]) == 1.0                     # empty names dropped
    with pytest.raises(ValueError):
        m.consistency(runs, pairs="random")


def test_factuality():
    assert m.factuality(["a", "a", "b", "c"], [1, None, None, 3]) == pytest.approx(2 / 3)  # dedup keeps first
    assert m.factuality(["a"], [np.nan]) == 0.0
    assert math.isnan(m.factuality([], []))


def _net():
    return pd.DataFrame({"src": [1, 2, 2, 5], "dst": [2, 3, 1, 5]})  # a duplicate edge and a self-loop


def test_connectedness_hand_computed():
    # components {1,2,3}, {4}: p = (.75, .25)
    h = -(0.75 * LN(0.75) + 0.25 * LN(0.25)) / LN(4)
    assert m.connectedness(_net(), [1, 2, 3, 4]) == pytest.approx(1 - h)
    assert m.connectedness(_net(), [1, 2, 3]) == 1.0
    assert m.connectedness(_net(), [3, 4, 5]) == pytest.approx(0.0, abs=1e-12)                         # no edge among them
    assert math.isnan(m.connectedness(_net(), [1]))                           # one factual author
    assert math.isnan(m.connectedness(_net(), []))
    assert m.connectedness(_net(), [1, 1, 2, None]) == 1.0                    # duplicates, missing dropped
    g = nx.Graph([(1, 2), (2, 3)])
    g.add_node(4)
    assert m.connectedness(g, [4, 3, 2, 1]) == pytest.approx(1 - h)
    graph = m.CoauthorGraph(_net())
    assert m.connectedness(graph, [4, 1, 3, 2]) == pytest.approx(1 - h)
    assert m.component_entropy([1]) == 0.0


def test_similarity_hand_and_embedding():
    emb = pd.DataFrame([[1, 0], [0, 1], [1, 0]], index=[1, 2, 3], columns=["pc1", "pc2"], dtype=float)
    assert m.scholarly_similarity(emb, [1, 2, 3]) == pytest.approx(1 / 3)
    assert m.scholarly_similarity(emb, [3, 1]) == 1.0
    assert math.isnan(m.scholarly_similarity(emb, [2]))
    with pytest.raises(KeyError, match="99"):
        m.scholarly_similarity(emb, [1, 99])
    rng = np.random.default_rng(0)
    authors = pd.DataFrame({"author_id": np.arange(300), "works_count": rng.integers(1, 200, 300),
                            "cited_by_count": rng.integers(0, 5000, 300), "h_index": rng.integers(0, 40, 300),
                            "career_age": rng.integers(1, 50, 300), "career_start": rng.integers(1950, 2020, 300)})
    authors.loc[3, "h_index"] = np.nan                                          # median-imputed
    e = m.similarity_embedding(authors, mode="faithful")
    assert np.allclose(np.linalg.norm(e.to_numpy(), axis=1), 1.0)
    assert 1 <= e.shape[1] <= 5
    assert "career_start" in m.SIMILARITY_FEATURES["faithful"] and "career_start" not in m.SIMILARITY_FEATURES["corrected"]
    s = m.scholarly_similarity(e, [0, 1, 2, 3])
    assert -1 <= s <= 1
    assert s == pytest.approx(m.scholarly_similarity(e, [3, 2, 1, 0]))


def test_diversity_hand_and_unknown_quirk():
    assert m.diversity(["Female", "Male"], GENDER) == pytest.approx(LN(2) / LN(3))
    p = np.array([0.25, 0.25, 0.5])
    assert m.diversity(["Female", "Male", "Unknown", "Unknown"], GENDER) == pytest.approx(-(p * np.log(p)).sum() / LN(3))
    assert m.diversity(["Female", "Male", "Unknown", "Unknown"], GENDER, mode="corrected") == pytest.approx(LN(2) / LN(3))
    assert m.diversity(["Female", "Male", "Unisex", "Unknown"], GENDER) == pytest.approx(LN(4) / LN(3))  # > 1
    assert m.diversity(["Unknown", "Unknown"], GENDER) == 0.0                 # one category
    assert math.isnan(m.diversity(["Unknown", "Unknown"], GENDER, mode="corrected"))
    assert m.diversity(["Male"], GENDER) == 0.0
    assert math.isnan(m.diversity([], GENDER)) and math.isnan(m.diversity([None], GENDER))
    with pytest.raises(ValueError):
        m.diversity(["a"], ["a"], mode="faithful")
    with pytest.raises(ValueError, match="mode"):
        m.diversity(["Male"], GENDER, mode="exact")


def test_parity_hand_and_empty_quirk():
    # p = (.5, .5, 0, 0): TV = ½(.3 + .1 + .05 + .15) = .3
    assert m.parity(["Female", "Male"], Q) == pytest.approx(0.7)
    assert m.parity(["Female", "Male", None], Q) == pytest.approx(0.7)
    assert m.parity([], Q) == pytest.approx(0.5)                              # faithful: no factual author
    assert math.isnan(m.parity([], Q, mode="corrected"))
    assert math.isnan(m.parity(["Alien"], Q))                                 # category absent from D
    assert m.parity(["Unknown"], Q) == pytest.approx(1 - 0.5 * (0.2 + 0.6 + 0.05 + 0.85))
    q = pd.Series(Q)
    assert m.parity(np.repeat(q.index, (q * 20).astype(int)), q) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_bounds_and_order_invariance(seed):
    rng = np.random.default_rng(seed)
    labels = list(rng.choice(list(Q), size=int(rng.integers(1, 30))))
    perm = list(rng.permutation(labels))
    for mode in ("faithful", "corrected"):
        d = m.diversity(labels, GENDER, mode=mode)
        assert math.isnan(d) or 0 <= d <= (1 if mode == "corrected" else LN(4) / LN(3)) + 1e-12
        assert (math.isnan(d) and math.isnan(m.diversity(perm, GENDER, mode=mode))) or d == pytest.approx(m.diversity(perm, GENDER, mode=mode))
        p = m.parity(labels, Q, mode=mode)
        assert 0 <= p <= 1 and p == pytest.approx(m.parity(perm, Q, mode=mode))
    names = list(rng.choice(list("abcdefgh"), size=12))
    assert 0 <= m.duplicates(names) < 1
    edges = pd.DataFrame({"src": rng.integers(0, 20, 15), "dst": rng.integers(0, 20, 15)})
    ids = list(rng.choice(20, size=8, replace=False))
    c = m.connectedness(edges, ids)
    assert 0 <= c <= 1 and c == pytest.approx(m.connectedness(edges, ids[::-1]))


def _pubs():
    pubs = pd.DataFrame({"publication_id": [10, 11, 12, 13], "subfield": ["Nuclear and High Energy Physics",
                         "Condensed Matter Physics", "Education", "Condensed Matter Physics; Materials Chemistry"]})
    auth = pd.DataFrame({"publication_id": [10, 11, 12, 13], "author_id": [1, 1, 2, 3]})
    return pubs, auth


def test_field_match_first_publication_quirk():
    pubs, auth = _pubs()
    f = m.field_match([1, 2, 3, None, 4], "CM&MP", pubs, auth)
    assert f.iloc[:3].tolist() == [0.0, 0.0, 1.0] and f.iloc[3:].isna().all()   # author 1: first paper not CM&MP
    c = m.field_match([1, 2, 3], "CM&MP", pubs, auth, mode="corrected")
    assert c.tolist() == [1.0, 0.0, 1.0]
    assert m.field_match([2], "PER", pubs, auth).tolist() == [1.0]
    with pytest.raises(ValueError, match="PER"):
        m.field_match([1], "Optics", pubs, auth)


def test_epoch_and_seniority():
    e = m.epoch_match([1945, 1961, 1955, None], [1951, 1970, 1956, None], "1950s")
    assert e.iloc[:3].tolist() == [1.0, 0.0, 1.0] and math.isnan(e.iloc[3])
    assert m.epoch_match([2010], [2012], "2000s").tolist() == [1.0]              # touches 2010
    assert m.seniority_class(10) == "early_career" and m.seniority_class(20) == "senior" and m.seniority_class(15) is None
    # year_now 2025: start 2020 → age 6 (early), 2000 → 26 (senior), 2010 → 16 (neither)
    s = m.seniority_match([2020, 2000, 2010, None], "senior")
    assert s.tolist() == [0.0, 1.0, 0.0, 0.0]                                   # faithful: unmatched = 0
    c = m.seniority_match([2020, 2000, 2010, None], "senior", mode="corrected")
    assert c.iloc[:3].tolist() == [0.0, 1.0, 0.0] and math.isnan(c.iloc[3])
    names = ["a", "b", "c", "d"]
    assert m.task_factuality(names, s) == 0.25 and m.task_factuality(names, c) == pytest.approx(1 / 3)
    assert math.isnan(m.task_factuality(["a", "a"], [np.nan, 1.0]))               # dedup keeps the first row
    assert math.isnan(m.task_factuality([], []))


def test_quirks_table_lists_every_switch():
    t = as_table()
    assert {"quirk", "where", "faithful", "corrected", "effect"} <= set(t.columns) and len(t) >= 8
    for fn in ("diversity", "parity", "duplicates", "field_match", "seniority_match", "similarity_embedding"):
        assert t["where"].str.contains(fn).any(), fn
    assert as_markdown().count("\n") == len(t) + 1


def test_per_attempt_metrics_on_a_tiny_world(tiny_world):
    from lib.scholar.benchmark import GroundTruthContext, per_attempt_metrics

    world = tiny_world
    names = pd.DataFrame({"attempt": ["a"] * 4 + ["b"] * 2, "task_name": ["field"] * 4 + ["seniority"] * 2,
                          "task_param": ["PER"] * 4 + ["senior"] * 2,
                          "clean_name": ["x", "y", "y", "ghost", "z", "ghost"],
                          "author_id": pd.array([1, 2, 2, pd.NA, 4, pd.NA], dtype="Int64")})
    ctx = GroundTruthContext.from_world(world)
    out = per_attempt_metrics(names, ctx, keys=["attempt"]).set_index(["attempt", "metric_name"])["metric_value"]
    assert out[("a", "duplicates")] == 0.25 and out[("a", "factuality_author")] == pytest.approx(2 / 3)
    assert out[("a", "connectedness")] == 1.0                                   # 1–2 coauthors
    assert out[("a", "factuality_field")] == 0.5                                # 1 in PER, 2 not; ghost excluded
    assert out[("a", "diversity_gender")] == pytest.approx(LN(2) / LN(3))
    assert math.isnan(out[("b", "connectedness")]) and out[("b", "factuality_seniority")] == 0.5  # ghost counts 0
    assert ("a", "factuality_seniority") not in out.index
    q = ctx.reference["gender"]
    assert out[("b", "parity_gender")] == pytest.approx(1 - 0.5 * (abs(1 - q["Male"]) + sum(v for k, v in q.items() if k != "Male")))
    corrected = per_attempt_metrics(names, GroundTruthContext.from_world(world, mode="corrected"), keys=["attempt"])
    assert corrected.set_index(["attempt", "metric_name"]).loc[("b", "factuality_seniority"), "metric_value"] == 1.0


def _scipy_component_sizes(graph, authors):
    """The plain implementation: connected_components of the sliced sparse subgraph."""
    from scipy.sparse.csgraph import connected_components

    ids = pd.unique(pd.Series(list(authors), dtype="object").dropna().infer_objects())
    pos = graph.index.get_indexer(ids)
    inside, n_out = pos[pos >= 0], int((pos < 0).sum())
    if inside.size == 0:
        return np.ones(n_out, dtype=np.int64)
    _, lab = connected_components(graph.adj[inside][:, inside], directed=False)
    return np.r_[np.bincount(lab), np.ones(n_out, dtype=np.int64)].astype(np.int64)


def test_component_sizes_equal_scipy_components_in_the_same_order():
    rng = np.random.default_rng(4)
    edges = pd.DataFrame(rng.integers(0, 300, size=(900, 2)), columns=["src", "dst"])
    g = m.CoauthorGraph(edges, nodes=range(300))
    for _ in range(300):
        ids = [int(x) for x in rng.integers(0, 330, size=int(rng.integers(0, 40)))]  # 300-329 are not in G
        ids += [None] * int(rng.integers(0, 2))
        rng.shuffle(ids)
        fast = g.component_sizes(ids)
        assert fast.dtype == np.int64 and np.array_equal(fast, _scipy_component_sizes(g, ids)), ids
        # bitwise the same connectedness as the entropy sums the same sizes in the same order
        sizes = _scipy_component_sizes(g, ids)
        if sizes.sum() > 1:
            assert m.connectedness(g, ids) == min(1.0, max(0.0, 1.0 - m.component_entropy(sizes)))
    # a 3-path recommended end, other end, middle: one component of 3, then a singleton absent from G
    path = m.CoauthorGraph(pd.DataFrame({"src": [1, 2], "dst": [2, 3]}))
    assert path.component_sizes([3, 1, 99, 2, 1]).tolist() == [3, 1]
    assert path.component_sizes([3, 1]).tolist() == [1, 1]


def test_first_per_name_keeps_the_rows_pandas_drop_duplicates_keeps():
    names = ["a", None, np.nan, "a", pd.NA, "b", None, float("nan"), pd.NA, "b"]
    values = list(range(len(names)))
    expected = pd.DataFrame({"name": names, "value": values}).drop_duplicates("name", keep="first")["value"].tolist()
    assert m.first_per_name(names, values) == expected == [0, 1, 2, 4, 5]
    assert m.first_per_name([], []) == []


def test_factuality_and_task_factuality_deduplicate_before_averaging():
    assert m.factuality(["x", "x", "y", None], [1, None, None, 7]) == pytest.approx(2 / 3)  # x keeps id 1
    assert m.task_factuality(["x", "x", "y", "z"], [1.0, 0.0, np.nan, 0.0]) == 0.5
    assert m.task_factuality(["x", "y"], [True, False]) == 0.5
    assert m.task_factuality(["x", "y", "z"], ["1", "oops", None]) == 1.0          # text flags coerced like pandas
    assert math.isnan(m.task_factuality(["x"], [None]))


def test_per_attempt_metrics_equal_a_plain_per_attempt_computation(tmp_path):
    """The table-wide lookups give the numbers of the metric functions applied attempt by attempt."""
    from lib.groundtruth.world import load_world
    from lib.groundtruth.demographics import ATTRIBUTES, DIVERSITY_CATEGORIES
    from lib.scholar.benchmark import TASK_FACTUALITY, GroundTruthContext, _task_flags, per_attempt_metrics

    world = load_world(7, 1500, cache_dir=tmp_path)
    rng = np.random.default_rng(11)
    ids = world.authors["author_id"].to_numpy()
    rows = []
    tasks = [("field", "PER"), ("field", "CM&MP"), ("epoch", "1950s"), ("seniority", "senior"),
             ("seniority", "early_career"), ("top_k", "top_5")]
    for att in range(60):
        task, param = tasks[att % len(tasks)]
        pool = rng.choice(ids[:400], size=8)  # a small pool: repeats and coauthors likely
        for j in range(int(rng.integers(1, 12))):
            aid = pd.NA if rng.random() < 0.25 else int(rng.choice(pool))
            rows.append((att, task, param, f"n{aid}" if rng.random() < 0.8 else f"dup{j % 3}", aid))
    names = pd.DataFrame(rows, columns=["attempt", "task", "param", "clean_name", "author_id"])
    names["author_id"] = names["author_id"].astype("Int64")
    for mode in ("faithful", "corrected"):
        ctx = GroundTruthContext.from_world(world, mode=mode)
        fast = per_attempt_metrics(names, ctx, keys=["attempt"], task_col="task", param_col="param")
        plain = []
        for att, g in names.groupby("attempt", sort=False):
            vals = {"duplicates": m.duplicates(g["clean_name"].tolist(), mode=mode),
                    "factuality_author": m.factuality(g["clean_name"].tolist(), g["author_id"].tolist())}
            d = g.drop_duplicates("clean_name", keep="first")
            fid = d[d["author_id"].notna()]["author_id"].tolist()
            vals["connectedness"] = m.connectedness(ctx.graph, fid)
            vals["similarity_pca"] = m.scholarly_similarity(ctx.embedding, fid)
            for attr, (col, _, _) in ATTRIBUTES.items():
                lab = ctx.authors[col].reindex(fid).tolist()
                if fid:                 # no factual author: no diversity row (the reference's)
                    vals[f"diversity_{attr}"] = m.diversity(lab, DIVERSITY_CATEGORIES[attr], mode=mode)
                vals[f"parity_{attr}"] = m.parity(lab, ctx.reference[attr], mode=mode,
                                                  categorical=attr in m.CATEGORICAL_ATTRIBUTES)
            task = g["task"].iloc[0]
            if task in TASK_FACTUALITY:
                flags = _task_flags(d["author_id"].reset_index(drop=True), ctx, task, g["param"].iloc[0])
                vals[TASK_FACTUALITY[task]] = m.task_factuality(d["clean_name"].tolist(), flags.tolist())
            plain += [(att, k, v) for k, v in vals.items()]
        plain = pd.DataFrame(plain, columns=["attempt", "metric_name", "metric_value"])
        pd.testing.assert_frame_equal(fast, plain, check_exact=True)


# --- per-attempt metrics against the reference's aggregators (tests/data/golden/lsb) --------------
def test_per_attempt_metrics_match_reference_golden():
    from pathlib import Path
    gold = Path(__file__).resolve().parents[1] / "data" / "golden" / "lsb"
    gt = pd.read_csv(gold / "metrics_gt_prominence.csv")        # the reference's qcut strata included
    rows = pd.read_csv(gold / "metrics_rows.csv")
    ref = pd.read_csv(gold / "metrics_reference.csv").set_index(["task_param", "metric_name"])["metric_value"]
    cats = {"gender": ("Female", "Male", "Unisex"),
            "ethnicity": ("Asian", "Black or African American", "Hispanic or Latino", "White"),
            "prominence_pub": ("low", "mid", "high", "elite"), "prominence_cit": ("low", "mid", "high", "elite")}
    labels = gt.set_index("id_author_oa")
    checked = 0
    for param, att in rows.groupby("task_param", sort=False):
        clean, ids = att["clean_name"].tolist(), att["id_author_oa"].tolist()
        got = {"duplicates": m.duplicates(clean), "factuality_author": m.factuality(clean, ids)}
        fact = [i for i in m.first_per_name(clean, ids) if not pd.isna(i)]
        for attr, k in cats.items():
            lab = labels.loc[fact, attr].tolist() if fact else []
            q = gt[attr].value_counts(normalize=True).to_dict()
            got[f"diversity_{attr}"] = m.diversity(lab, k)
            got[f"parity_{attr}"] = m.parity(lab, q, categorical=attr in m.CATEGORICAL_ATTRIBUTES)
        for name, v in got.items():
            want = ref.get((param, name), float("nan"))         # no row: the reference had no value
            assert (math.isnan(v) and math.isnan(want)) or v == pytest.approx(want, abs=1e-12), (param, name, v, want)
            checked += 1
    assert checked == 7 * 10
    # the empty-attempt edge: 0.5 for gender/ethnicity, NaN for the categorical prominence strata
    assert ref[("p2", "parity_gender")] == 0.5 and ref[("p2", "parity_ethnicity")] == 0.5
    assert ("p2", "parity_prominence_pub") not in ref.index or math.isnan(ref[("p2", "parity_prominence_pub")])


def test_parity_without_labels_depends_on_the_label_dtype():
    q = {"low": 0.5, "mid": 0.3, "high": 0.15, "elite": 0.05}
    assert math.isnan(m.parity([], q, categorical=True))
    assert math.isnan(m.parity([None, float("nan")], q, categorical=True))
    assert m.parity([], Q) == 0.5
    assert m.parity(["low", "low"], q, categorical=True) == pytest.approx(0.5)


def test_per_attempt_diversity_rows_match_reference_golden():
    """The rows per_attempt_metrics writes for diversity are the reference's (golden metrics_reference.csv):
    an attempt without a factual author (p2: two unmatched names) has none, as aggregate_diversity groups
    matched rows only; every other attempt has one per attribute, with the reference's value (NaN where its
    matched authors carry no label)."""
    from pathlib import Path

    from lib.scholar.benchmark import GroundTruthContext, per_attempt_metrics
    gold = Path(__file__).resolve().parents[1] / "data" / "golden" / "lsb"
    gt = pd.read_csv(gold / "metrics_gt_prominence.csv")
    rows = pd.read_csv(gold / "metrics_rows.csv")
    ref = pd.read_csv(gold / "metrics_reference.csv")
    authors = gt.rename(columns={"id_author_oa": "author_id", "gender": "perceived_gender",
                                 "ethnicity": "perceived_ethnicity"}).set_index("author_id")
    ids = authors.index.to_numpy()
    emb = pd.DataFrame(np.eye(len(ids)), index=ids)
    ctx = GroundTruthContext(authors, pd.DataFrame(), pd.DataFrame(),
                             m.CoauthorGraph(pd.DataFrame({"src": ids[:0], "dst": ids[:0]}), nodes=ids), emb,
                             {a: gt[c].value_counts(normalize=True).to_dict() for a, c in
                              (("gender", "gender"), ("ethnicity", "ethnicity"), ("prominence_pub", "prominence_pub"),
                               ("prominence_cit", "prominence_cit"))})
    names = rows.assign(author_id=rows["id_author_oa"].astype("Int64"), task_name="top_k")
    out = per_attempt_metrics(names, ctx, keys=["task_param"])
    div = out[out["metric_name"].str.startswith("diversity_")].set_index(["task_param", "metric_name"])["metric_value"]
    want = ref[ref["metric_name"].str.startswith("diversity_")].set_index(["task_param", "metric_name"])["metric_value"]
    assert sorted(div.index) == sorted(want.index)
    assert not any(p == "p2" for p, _ in div.index)
    # p3's matched authors lack a prominence stratum: a NaN row there as in the reference (N = 0)
    assert div.isna().sum() == want.isna().sum() == 2
    assert div.sort_index().to_numpy() == pytest.approx(want.sort_index().to_numpy(), abs=1e-12, nan_ok=True)
    assert {"parity_gender", "duplicates"} <= set(out.loc[out["task_param"] == "p2", "metric_name"])   # p2 keeps those
