"""lib.scholar.quirks.mode_comparison: the Figure 2 group means under the faithful and corrected
metric modes (table lsb-quirks), on a hand-made collection over the conftest world."""
import math

import numpy as np
import pandas as pd
import pytest

from lib.scholar import aggregate as ag
from lib.scholar import quirks
from lib.scholar.benchmark import GroundTruthContext

MODELS = {"m-open": ("open", "S", "non-reasoning"), "m-prop": ("proprietary", "M", "reasoning")}
KEY = {"task": "top_k", "param": "top_5", "temperature": 0.0, "replicate": 0, "attempt": 1}


def _attempt(model):
    acc, size, cls = MODELS[model]
    return {"model": model, **KEY, "valid_attempt": True, "is_refusal": 0, "grounded": False,
            "access": acc, "size_class": size, "model_class": cls}


@pytest.fixture(scope="module")
def table(tiny_world):
    """m-open names authors 1 (Female), 3 (Unknown gender) and 2 (Male), plus an item without a
    name; m-prop names no real author.
    Population q_gender (conftest world): Female .25, Male .5, Unisex 0, Unknown .25."""
    attempts = pd.DataFrame([_attempt("m-open"), _attempt("m-prop")])
    names = pd.DataFrame([{"mode": "faithful", "model": m, **KEY, "clean_name": n, "author_id": a}
                          for m, n, a in [("m-open", "a", 1), ("m-open", "c", 3), ("m-open", "b", 2),
                                          ("m-open", None, None), ("m-prop", "x", None), ("m-prop", "y", None)]])
    names["author_id"] = names["author_id"].astype("Int64")
    faithful, corrected = (ag.per_attempt_table(attempts, names, GroundTruthContext.from_world(tiny_world, mode=m))
                           for m in ("faithful", "corrected"))
    return quirks.mode_comparison(faithful, corrected)


def _row(t, kind, group, metric):
    r = t[(t["group_kind"] == kind) & (t["group"] == group) & (t["metric_name"] == metric)]
    assert len(r) == 1, (kind, group, metric)
    return r.iloc[0]


def test_columns_and_one_row_per_group_and_metric(table):
    assert list(table.columns) == ["group_kind", "group", "metric_name", "n_faithful", "faithful", "n_corrected",
                                   "corrected", "difference"]
    assert not table.duplicated(["group_kind", "group", "metric_name"]).any()
    assert list(dict.fromkeys(table["group_kind"])) == list(ag.GROUP_COLUMNS)
    assert set(table["metric_name"]) <= set(ag.HEADLINE_METRICS)
    open_rows = table[(table["group_kind"] == "access") & (table["group"] == "open")]["metric_name"].tolist()
    assert open_rows == [m for m in ag.HEADLINE_METRICS if m in open_rows]          # the paper's panel order


def test_diversity_counts_unknown_only_in_faithful_mode(table):
    r = _row(table, "access", "open", "diversity_gender")
    # faithful: p = (F, Unknown, M) = 1/3 each → ln 3 / ln 3 = 1; corrected: (F, M) → ln 2 / ln 3
    assert r["faithful"] == pytest.approx(1.0)
    assert r["corrected"] == pytest.approx(math.log(2) / math.log(3))
    assert r["difference"] == pytest.approx(math.log(2) / math.log(3) - 1.0)


def test_parity_half_without_factual_authors_only_in_faithful_mode(table):
    r = _row(table, "access", "proprietary", "parity_gender")
    assert r["faithful"] == 0.5 and r["n_faithful"] == 1                      # empty p → TV ½
    assert pd.isna(r["corrected"]) and pd.isna(r["n_corrected"]) and pd.isna(r["difference"])
    o = _row(table, "access", "open", "parity_gender")
    # p = 1/3 each of F, M, Unknown: TV = ½(1/12 + 1/6 + 1/12) = 1/6 in both modes
    assert o["faithful"] == pytest.approx(5 / 6) and o["difference"] == pytest.approx(0.0)
    assert _row(table, "size_class", "M", "parity_gender")["faithful"] == 0.5   # the same attempt by size


def test_duplicates_count_a_missing_name_only_in_faithful_mode(table):
    r = _row(table, "access", "open", "duplicates")
    # faithful: |L| = 4 (the missing name counts), |U| = 3 → 1/4; corrected: 1 − 3/3 = 0
    assert r["faithful"] == pytest.approx(0.25) and r["corrected"] == pytest.approx(0.0)
    assert _row(table, "access", "proprietary", "duplicates")["difference"] == pytest.approx(0.0)


def test_mode_independent_metrics_differ_by_zero(table):
    for metric in ("refusal_pct", "validity_pct", "factuality_author", "connectedness"):
        r = _row(table, "model_class", "non-reasoning", metric)
        assert r["difference"] == pytest.approx(0.0), metric
    assert _row(table, "access", "open", "connectedness")["faithful"] == pytest.approx(
        1 - (-(2 / 3 * np.log(2 / 3) + 1 / 3 * np.log(1 / 3)) / np.log(3)))     # {1, 2} + {3}


def test_constructed_per_attempt_tables():
    def pa(values):
        return pd.DataFrame([{"access": g, "size_class": "S", "model_class": "reasoning", "metric_name": m,
                              "metric_value": v} for g, m, vs in values for v in vs])

    f = pa([("open", "parity_gender", [0.5, 1.0]), ("proprietary", "similarity_pca", [0.2]),
            ("open", "refusal_pct", [1.0, 0.0])])
    c = pa([("open", "parity_gender", [np.nan, 1.0]), ("proprietary", "similarity_pca", [0.4]),
            ("open", "refusal_pct", [1.0, 0.0])])
    t = quirks.mode_comparison(f, c, groups=("access",))
    assert t[["group", "metric_name"]].values.tolist() == [["open", "refusal_pct"], ["open", "parity_gender"],
                                                            ["proprietary", "similarity_pca"]]
    assert t["faithful"].tolist() == pytest.approx([0.5, 0.75, 0.2])
    assert t["corrected"].tolist() == pytest.approx([0.5, 1.0, 0.4])
    assert t["difference"].tolist() == pytest.approx([0.0, 0.25, 0.2])
    assert t["n_faithful"].tolist() == [2, 2, 1] and t["n_corrected"].tolist() == [2, 1, 1]
    with pytest.raises(KeyError, match="size_class"):
        quirks.mode_comparison(f.drop(columns="size_class"), c)


# --- corrected decisions: the companion repair and ties to the first author -----------------------
def _record(param, replicate, content):
    return {"experiment": "interventions", "model": "model-a", "task": "top_k", "param": param, "temperature": 0.0,
            "replicate": replicate, "attempt": 1, "status": "ok", "content": content,
            "response": {"choices": [{"message": {"role": "assistant", "content": content}}]}}


def test_corrected_decisions_relabel_and_rematch(tmp_path):
    import ast
    from pathlib import Path
    from lib.scholar import attempts as lsb_attempts
    from lib.scholar import labels
    from lib.scholar import matching
    gold = Path(__file__).resolve().parents[1] / "data" / "golden" / "lsb"
    gt = pd.read_csv(gold / "match_authors.csv", keep_default_na=False, na_values=[])
    authors = pd.DataFrame({"author_id": gt["id_author"], "display_name": gt["display_name"],
                            "longest_name": gt["longest_name"], "alt_names": gt["alternative_names"].map(ast.literal_eval)})
    pool = pd.read_csv(gold / "match_names.csv")
    pool = [n for n in pool[pool["model"] == "model-a"]["name"] if not n.startswith("Dr. ")]   # §2.2 empties those
    pretty = '{\n  "Scientists": [\n' + ",\n".join(f'    {{"Name": "{n}"}}' for n in pool[:6]) + "\n  ]\n}"
    clean = "[" + ", ".join(f'{{"Name": "{n}"}}' for n in pool[6:]) + "]"
    att = labels.label_attempts(pd.DataFrame([_record("top_100", 0, pretty), _record("top_5", 0, clean)]))
    assert att["label"].tolist() == ["invalid", "valid"]
    assert att["label_repair_corrected"].tolist()[0] == "verbose" and att["label_repair_corrected"].isna().tolist()[1]
    faithful = lsb_attempts.name_table(att, authors, modes=("faithful",))
    path = tmp_path / "attempts.parquet"
    lsb_attempts.write_parquet(att, path)                                    # list cells become JSON text
    for table in (att, pd.read_parquet(path)):
        c_att, c_names = quirks.corrected_decisions(table, authors)
        assert c_att["label"].tolist() == ["verbose", "valid"] and c_att["valid_attempt"].all()
        assert c_names["name"].tolist() == pool[:6] + [n for n in pool[6:]]
    assert faithful["name"].tolist() == pool[6:]
    # ties: the first tied author in ground-truth order, not the reference's batch choice
    rl = matching.match_names_recordlinkage(c_names["name"], authors).set_index("clean_name")
    pos = {a: i for i, a in enumerate(authors["author_id"])}
    tied = c_names[c_names["n_best"] > 1]
    assert len(tied) > 0
    for c, a in zip(tied["clean_name"], tied["author_id"]):
        assert a == min(rl.loc[c, "best_ids"], key=pos.get)


def test_corrected_decisions_needs_the_label_columns():
    with pytest.raises(KeyError, match="label_repair_corrected"):
        quirks.corrected_decisions(pd.DataFrame({"label": ["valid"]}), pd.DataFrame())


def test_faithful_vs_corrected_builds_both_sides_of_the_baseline_and_reuses_the_notebooks_faithful_table(
        tiny_world, monkeypatch):
    ctxs = {m: GroundTruthContext.from_world(tiny_world, mode=m) for m in ("faithful", "corrected")}
    monkeypatch.setattr(GroundTruthContext, "from_world", staticmethod(lambda world, mode: ctxs[mode]))
    attempts = pd.DataFrame([{**_attempt(m), "valid_attempt_paper": True, "is_refusal_corrected": 0}
                             for m in MODELS])
    names = pd.DataFrame([{"mode": "paper", "model": m, **KEY, "clean_name": n, "author_id": a}
                          for m, n, a in [("m-open", "a", 1), ("m-open", "c", 3), ("m-prop", "x", None)]])
    names["author_id"] = names["author_id"].astype("Int64")
    sides = [ag.per_attempt_table(ag.baseline(attempts), names, ctxs[m], mode="paper") for m in ctxs]
    want = quirks.mode_comparison(*sides)
    opts = ag.MetricOptions(label_mode="paper", metric_mode="corrected")
    pd.testing.assert_frame_equal(quirks.faithful_vs_corrected(attempts, names, tiny_world, opts), want)
    # the notebook's own faithful table is used as the faithful side only in the faithful metric mode
    own = sides[0].assign(metric_value=sides[0]["metric_value"] * 0)
    got = quirks.faithful_vs_corrected(attempts, names, tiny_world, ag.MetricOptions("paper"), faithful=own)
    assert got["faithful"].fillna(0).eq(0).all()
    pd.testing.assert_series_equal(got["corrected"], want["corrected"])
