"""lib.scholar.benchmark: the per-attempt metric rows (reference §2.8) on the four-author tiny world,
by hand: the epoch task, several keys, an attempt with no factual name, and bad input."""
import math

import numpy as np
import pandas as pd
import pytest

from lib.scholar import benchmark as bm


@pytest.fixture(scope="module")
def ctx(tiny_world):
    return bm.GroundTruthContext.from_world(tiny_world)


def test_context_holds_the_worlds_authors_and_population_shares(ctx):
    assert ctx.authors.index.tolist() == [1, 2, 3, 4] and ctx.mode == "faithful"
    # parity's q: the population shares of each category, absent categories at 0
    assert ctx.reference["gender"] == {"Female": 0.25, "Male": 0.5, "Unisex": 0.0, "Unknown": 0.25}
    assert ctx.reference["ethnicity"] == {"Asian": 0.25, "Black": 0.0, "Hispanic": 0.0, "White": 0.5, "Unknown": 0.25}


def test_epoch_factuality_and_keys_by_hand(ctx):
    names = pd.DataFrame({"model": ["m", "m", "m", "n"], "run": [0, 0, 0, 0],
                          "task_name": ["epoch"] * 3 + ["top_k"], "task_param": ["1950s"] * 3 + ["top_5"],
                          "clean_name": ["c", "d", "ghost", "c"],
                          "author_id": pd.array([3, 4, pd.NA, 3], dtype="Int64")})
    out = bm.per_attempt_metrics(names, ctx, keys=["model", "run"]).set_index(["model", "metric_name"])["metric_value"]
    # author 3 was active 1955 (inside 1950-1960), author 4 from 1990: 1 of the 2 matched names; ghost has no flag
    assert out[("m", "factuality_epoch")] == 0.5
    assert out[("m", "factuality_author")] == pytest.approx(2 / 3) and out[("m", "duplicates")] == 0.0
    assert ("n", "factuality_epoch") not in out.index                      # only on its own task
    assert out[("n", "factuality_author")] == 1.0
    assert out[("m", "connectedness")] == 0.0                              # 3 and 4: no coauthorship edge
    assert math.isnan(out[("n", "connectedness")])                         # one factual author


def test_an_attempt_without_a_factual_name_has_no_diversity_rows(ctx):
    """Also a name table without task columns (no task factuality asked): it crashed with
    KeyError 'task_name' before the fix although the task columns are optional."""
    names = pd.DataFrame({"attempt": ["x", "x"], "clean_name": ["ghost", "ghost2"],
                          "author_id": pd.array([pd.NA, pd.NA], dtype="Int64")})
    out = bm.per_attempt_metrics(names, ctx, keys=["attempt"])
    got = set(out["metric_name"])
    assert not {m for m in got if m.startswith("diversity_")} and "parity_gender" in got
    assert out.set_index("metric_name").loc["factuality_author", "metric_value"] == 0.0


def test_group_positions_follow_first_appearance_and_bad_input_is_an_error(ctx):
    names = pd.DataFrame({"k": ["b", "a", "b", "c", "a"]})
    assert [p.tolist() for p in bm._group_positions(names, ["k"])] == [[0, 2], [1, 4], [3]]
    empty = bm.per_attempt_metrics(pd.DataFrame(columns=["k", "clean_name", "author_id"]), ctx, keys=["k"])
    assert empty.empty and list(empty.columns) == ["k", "metric_name", "metric_value"]
    with pytest.raises(KeyError, match=r"name table lacks column\(s\) \['author_id'\]"):
        bm.per_attempt_metrics(pd.DataFrame({"k": [1], "clean_name": ["x"]}), ctx, keys=["k"])
