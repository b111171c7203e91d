"""lib.scholar.constrained: before/after tables, RAG pairs and quadrant coordinates on tiny
hand-made per-attempt tables with known values."""
import numpy as np
import pandas as pd
import pytest

from lib.scholar import constrained as cp


def _rows(model, task, param, metric, values, grounded=False, size="S"):
    return pd.DataFrame({"model": model, "base_model": model.replace("-grounded", ""), "grounded": grounded,
                         "size_class": size, "task": task, "param": param, "temperature": 0.5,
                         "replicate": range(len(values)), "metric_name": metric, "metric_value": values})


@pytest.fixture
def long():
    return pd.concat([
        _rows("m1", "top_k", "top_100", "factuality_author", [0.8, 1.0]),
        _rows("m1", "top_k", "top_5", "factuality_author", [0.0, 0.0]),          # not the paired prompt
        _rows("m1", "biased_top_k", "top_100_bias_gender_female", "factuality_author", [0.2, 0.4]),
        _rows("m1", "biased_top_k", "top_100_bias_gender_equal", "factuality_author", [0.6, 0.6]),
        _rows("m2", "top_k", "top_100", "factuality_author", [0.5, 0.7]),
        _rows("m2", "biased_top_k", "top_100_bias_gender_female", "factuality_author", [0.1, 0.3]),
        _rows("m3", "top_k", "top_100", "factuality_author", [0.0, 0.0]),        # no constrained runs: unpaired
    ], ignore_index=True)


def test_before_after_pooled(long):
    t = cp.before_after(long, cp.VARIANTS["gender"], metrics=["factuality_author"])
    fem = t[t["variant"] == "Only female"].set_index("phase")
    # B pools the top_100 attempts of m1 and m2 only (m3 has no constrained run; top_5 excluded)
    assert fem.loc["B", "mean"] == pytest.approx(np.mean([0.8, 1.0, 0.5, 0.7]))
    assert fem.loc["A", "mean"] == pytest.approx(np.mean([0.2, 0.4, 0.1, 0.3]))
    assert fem.loc["A", "n"] == 4 and fem.loc["B", "x"] == 0.0 and fem.loc["A", "x"] == 1.0
    assert set(t["variant"]) == {"Only female", "Equal"}          # uncollected variants: no rows
    assert (t["before_param"] == "top_100").all()


def test_before_after_by_model_pairs_within_model(long):
    t = cp.before_after(long, cp.VARIANTS["gender"], by=("model",), metrics=["factuality_author"])
    eq = t[t["variant"] == "Equal"]
    assert set(eq["model"]) == {"m1"}                                # m2 has no equal-prompt run
    assert eq.set_index("phase").loc["B", "mean"] == pytest.approx(0.9)
    m2 = t[(t["model"] == "m2") & (t["phase"] == "B")]
    assert m2["mean"].tolist() == pytest.approx([0.6])


def test_before_falls_back_to_collected_top_k(long):
    d = long[long["param"] != "top_100"]
    t = cp.before_after(d, cp.VARIANTS["gender"], metrics=["factuality_author"])
    assert (t["before_param"] == "top_5").all()
    assert t[(t["phase"] == "B")]["mean"].iloc[0] == pytest.approx(0.0)


def test_before_after_empty_has_columns(long):
    t = cp.before_after(long, cp.VARIANTS["ethnicity"], by=("model",))
    assert t.empty and {"model", "variant", "phase", "x", "mean", "ci_low"} <= set(t.columns)


def test_tradeoffs_stacks_families(long):
    t = cp.tradeoffs(long)
    assert set(t["family"]) == {"gender"} and set(t["metric_name"]) == {"factuality_author"}


def test_rag_before_after_per_task():
    d = pd.concat([
        _rows("gemini-2.5-flash", "top_k", "top_5", "validity_pct", [1.0, 1.0, 1.0, 0.0]),
        _rows("gemini-2.5-flash-grounded", "top_k", "top_5", "validity_pct", [0.0, 1.0], grounded=True),
        _rows("gemini-2.5-flash", "twins", "movie_male", "validity_pct", [1.0, 1.0]),   # no grounded twin task
        _rows("llama-3.1-8b", "top_k", "top_5", "validity_pct", [0.0, 0.0]),            # no grounded config
    ], ignore_index=True)
    t = cp.rag_before_after(d).set_index("phase")
    assert list(t["task_label"]) == ["top_k", "top_k"] and set(t["base_model"]) == {"gemini-2.5-flash"}
    assert t.loc["B", "mean"] == pytest.approx(0.75) and t.loc["A", "mean"] == pytest.approx(0.5)
    assert t.loc["A", "ci_low"] < 0.5 < t.loc["A", "ci_high"]                      # Wilson interval


def test_quadrant_points_sums_and_medians():
    tech = {"validity_pct": 1.0, "duplicates": 0.2, "factuality_author": 0.5}
    soc = {"parity_gender": 0.6, "parity_ethnicity": 0.4}
    rows = []
    for model, shift in (("llama-a", 0.0), ("gemma-b", 0.1), ("qwen3-c", 0.2)):
        for k, v in {**tech, **soc}.items():
            rows.append(_rows(model, "top_k", "top_5", k, [v - shift, v + shift]))
    q = cp.quadrant_points(pd.concat(rows, ignore_index=True)).set_index("model")
    # 1 + (1 - 0.2) + 0.5 = 2.3 (mean over a symmetric pair), social 1.0
    assert q["technical"].tolist() == pytest.approx([2.3] * 3)
    assert q["social"].tolist() == pytest.approx([1.0] * 3)
    assert q.loc["llama-a", "n_technical"] == 3 and q.loc["gemma-b", "family"] == "gemma"
    assert q["median_technical"].iloc[0] == pytest.approx(2.3)


def test_configuration_tables_split_and_strip():
    d = pd.concat([
        _rows("m1", "top_k", "top_5", "validity_pct", [1.0]),
        _rows("m1", "biased_top_k", "top_100_bias_diverse", "validity_pct", [0.0]),
        _rows("g-grounded", "top_k", "top_5", "validity_pct", [1.0], grounded=True),
    ], ignore_index=True)
    sweep = _rows("m1", "top_k", "top_5", "validity_pct", [0.5]).assign(temperature=2.0)
    t = cp.configuration_tables(d, sweep)
    assert len(t["baseline"]) == 1 and len(t["constrained"]) == 1 and t["RAG"]["model"].tolist() == ["g"]
    assert t["temperature"]["temperature"].tolist() == [2.0]


def test_metric_table_on_a_tiny_world():
    from lib.groundtruth.world import World
    from lib.scholar.benchmark import GroundTruthContext

    authors = pd.DataFrame({
        "author_id": [1, 2], "works_count": [10, 3], "cited_by_count": [100, 5], "h_index": [5, 1],
        "career_age": [10, 3], "career_start": [2015, 2020], "career_end": [2020, 2020],
        "perceived_gender": ["Female", "Male"], "perceived_ethnicity": ["Asian", "White"],
        "prominence_pub": ["mid", "low"], "prominence_cit": ["mid", "low"]})
    world = World(authors, pd.DataFrame({"publication_id": [10], "subfield": ["Education"]}),
                  pd.DataFrame({"publication_id": [10], "author_id": [1]}), pd.DataFrame({"src": [1], "dst": [2]}))
    key = {"model": "gemini-2.5-flash-grounded", "task": "top_k", "param": "top_5", "temperature": 0.5}
    attempts = pd.DataFrame([{**key, "replicate": 0, "attempt": 1, "valid_attempt": False, "is_refusal": 1},
                             {**key, "replicate": 0, "attempt": 2, "valid_attempt": True, "is_refusal": 0}])
    attempts = attempts.assign(grounded=True, access="proprietary", size_class="S", model_class="reasoning")
    names = pd.DataFrame({**key, "replicate": 0, "mode": ["faithful"] * 3 + ["paper"],
                          "clean_name": ["a", "b", "ghost", "a"],
                          "author_id": pd.array([1, 2, pd.NA, 1], dtype="Int64")})
    long = cp.metric_table(attempts, names, GroundTruthContext.from_world(world))
    v = long.groupby("metric_name")["metric_value"]
    assert v.mean()["refusal_pct"] == 0.5 and v.size()["refusal_pct"] == 2          # every attempt
    assert v.mean()["validity_pct"] == 1.0 and v.size()["validity_pct"] == 1       # per request
    assert v.mean()["factuality_author"] == pytest.approx(2 / 3)                   # faithful names only
    assert v.mean()["connectedness"] == 1.0 and "parity_gender" in v.mean()
    assert long["base_model"].unique().tolist() == ["gemini-2.5-flash"] and long["grounded"].all()


def test_per_model_gives_the_four_families_in_figure_order_with_their_metrics(long):
    t = cp.per_model(long)
    assert list(t) == ["gender", "ethnicity", "citations", "general"] == list(cp.BY_MODEL_FIGURES)
    pd.testing.assert_frame_equal(t["gender"], cp.before_after(long, cp.VARIANTS["gender"], by=("model",),
                                                               metrics=cp.by_model_metrics("gender")))
    assert set(t["gender"]["model"]) == {"m1", "m2"} and t["ethnicity"].empty
    s = cp.per_model_summary(t)
    assert s.loc["gender"].tolist() == [2, 2] and s.loc["ethnicity"].tolist() == [0, 0]


def test_means_table_pivots_rounded_means_and_keeps_an_empty_table(long):
    t = cp.before_after(long, cp.VARIANTS["gender"], metrics=["factuality_author"])
    m = cp.means_table(t, "metric_name", ["variant", "phase"])
    assert m.loc["factuality_author", ("Only female", "A")] == 0.25          # mean of .2 .4 .1 .3
    assert m.loc["factuality_author", ("Only female", "B")] == 0.75
    empty = cp.before_after(long, cp.VARIANTS["ethnicity"])
    assert cp.means_table(empty, "metric_name", "phase") is empty
