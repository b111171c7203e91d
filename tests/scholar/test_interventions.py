"""lib.scholar.interventions on hand-made attempt and name tables with known values."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from lib import stats
from lib.scholar import interventions as iv

MODELS = {"m-open": ("open", "S", "non-reasoning"), "m-prop": ("proprietary", "M", "reasoning")}


def _attempt(model, temp, rep, attempt, valid, refusal, task="top_k", param="top_5", grounded=False,
             out="text", msg=None):
    acc, size, cls = MODELS[model]
    return {"model": model, "task": task, "param": param, "temperature": temp, "replicate": rep,
            "attempt": attempt, "valid_attempt": valid, "is_refusal": refusal, "valid_attempt_paper": valid,
            "is_refusal_corrected": refusal, "grounded": grounded, "access": acc, "size_class": size,
            "model_class": cls, "result_original_output": out, "result_original_message": msg}


@pytest.fixture
def attempts():
    rows = [
        # m-open, T=0: rep 0 valid at attempt 1; rep 1 fails once (refusal) then valid
        _attempt("m-open", 0.0, 0, 1, True, 0),
        _attempt("m-open", 0.0, 1, 1, False, 1),
        _attempt("m-open", 0.0, 1, 2, True, 0),
        # m-open, T=1: rep 0 three failed attempts (2 refusals, 1 no text = -1); rep 1 valid
        _attempt("m-open", 1.0, 0, 1, False, 1),
        _attempt("m-open", 1.0, 0, 2, False, 1),
        _attempt("m-open", 1.0, 0, 3, False, -1, out=None),
        _attempt("m-open", 1.0, 1, 1, True, 0),
        # m-prop, T=0 and T=1: one replicate each, valid
        _attempt("m-prop", 0.0, 0, 1, True, 0),
        _attempt("m-prop", 1.0, 0, 1, True, 1),
        # filtered out by the temperature query
        _attempt("m-open", 0.0, 0, 1, True, 1, task="biased_top_k", param="top_100_bias_diverse"),
        _attempt("m-prop", 0.0, 0, 1, True, 1, grounded=True),
    ]
    return pd.DataFrame(rows)


def _names(model, temp, rep, attempt, pairs, task="top_k", param="top_5"):
    return [{"mode": "faithful", "model": model, "task": task, "param": param, "temperature": temp,
             "replicate": rep, "attempt": attempt, "clean_name": n, "author_id": a} for n, a in pairs]


@pytest.fixture
def names():
    rows = (_names("m-open", 0.0, 0, 1, [("a", 1), ("b", 2), ("b", 2), ("c", None)])      # dup 1/4, fact 2/3
            + _names("m-open", 0.0, 1, 2, [("a", 1), ("b", 2), ("d", 4)])                # dup 0, fact 1
            + _names("m-open", 1.0, 1, 1, [("x", None), ("y", None)])                    # dup 0, fact 0
            + _names("m-prop", 0.0, 0, 1, [("a", 1)])
            + _names("m-prop", 1.0, 0, 1, [("a", 1), ("z", None)])
            + _names("m-open", 0.0, 0, 1, [("q", 9)], task="biased_top_k", param="top_100_bias_diverse"))
    df = pd.DataFrame(rows)
    df["author_id"] = df["author_id"].astype("Int64")
    return pd.concat([df, df.assign(mode="paper", clean_name="p")], ignore_index=True)


def _val(pa, metric, **keys):
    d = pa[pa["metric_name"] == metric]
    for k, v in keys.items():
        d = d[d[k] == v]
    return d["metric_value"].tolist()


def test_temperature_filter_drops_constrained_and_grounded(attempts):
    kept = iv.temperature_filter(attempts)
    assert len(kept) == 9
    assert (kept["task"] != "biased_top_k").all() and not kept["grounded"].any()


def test_technical_per_attempt_known_values(attempts, names):
    pa = iv.technical_per_attempt(iv.temperature_filter(attempts), names)
    # refusals: one row per attempt, -1 counts 0
    assert _val(pa, "refusal_pct", model="m-open", temperature=1.0) == [1.0, 1.0, 0.0, 0.0]
    assert len(_val(pa, "refusal_pct")) == 9
    # validity: one row per request
    assert sorted(_val(pa, "validity_pct", model="m-open")) == [0.0, 1.0, 1.0, 1.0]
    assert len(_val(pa, "validity_pct")) == 6
    assert _val(pa, "duplicates", model="m-open", temperature=0.0, replicate=0) == [pytest.approx(0.25)]
    assert _val(pa, "factuality_author", model="m-open", temperature=0.0, replicate=0) == [pytest.approx(2 / 3)]
    assert _val(pa, "factuality_author", model="m-open", temperature=1.0) == [0.0]
    # consistency: m-open T=0 has two replicates: J({a,b,c},{a,b,d}) = 2/4; single replicates give a NaN row
    assert _val(pa, "consistency", model="m-open", temperature=0.0) == [pytest.approx(0.5)]
    assert len(_val(pa, "consistency")) == 4 and np.isnan(_val(pa, "consistency", model="m-prop")).all()
    assert np.isnan(pa.loc[pa["metric_name"] == "consistency", "replicate"]).all()
    # the biased_top_k names were dropped with their attempts; group columns attached
    assert not (pa["task"] == "biased_top_k").any()
    assert set(pa.loc[pa["model"] == "m-prop", "access"]) == {"proprietary"}


def test_technical_per_attempt_paper_mode_reads_paper_names(attempts, names):
    pa = iv.technical_per_attempt(iv.temperature_filter(attempts), names, mode="paper")
    # every paper-mode name is "p": a single distinct name per attempt
    assert _val(pa, "duplicates", model="m-open", temperature=0.0, replicate=0) == [pytest.approx(0.75)]
    with pytest.raises(ValueError, match="mode must be"):
        iv.technical_per_attempt(attempts, names, mode="nope")


def test_technical_per_attempt_names_missing_column(attempts, names):
    with pytest.raises(KeyError, match=r"names.*author_id"):
        iv.technical_per_attempt(attempts, names.drop(columns="author_id"))


def test_temperature_curves_wilson_and_t(attempts, names):
    pa = iv.technical_per_attempt(iv.temperature_filter(attempts), names)
    cur = iv.temperature_curves(pa)
    assert set(cur["group_kind"]) == set(iv.GROUP_COLUMNS)
    r = cur[(cur["group_kind"] == "access") & (cur["group"] == "open") & (cur["temperature"] == 1.0)
            & (cur["metric_name"] == "refusal_pct")].iloc[0]
    assert r["n"] == 4 and r["mean"] == pytest.approx(0.5)
    lo, hi = stats.wilson_ci(2, 4)
    assert (r["ci_low"], r["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    f = cur[(cur["group_kind"] == "access") & (cur["group"] == "open") & (cur["temperature"] == 0.0)
            & (cur["metric_name"] == "factuality_author")].iloc[0]
    v = np.array([2 / 3, 1.0])
    half = st.t.ppf(0.975, 1) * v.std(ddof=1) / np.sqrt(2)
    assert f["mean"] == pytest.approx(v.mean()) and f["ci_high"] == pytest.approx(v.mean() + half)
    # per model: one value -> NaN t bounds
    per_model = iv.temperature_curves(pa, groups=("model",))
    one = per_model[(per_model["group"] == "m-prop") & (per_model["metric_name"] == "factuality_author")
                    & (per_model["temperature"] == 1.0)].iloc[0]
    assert one["mean"] == pytest.approx(0.5) and np.isnan(one["ci_low"])


def test_configuration_labels(attempts):
    t = iv.configuration(attempts, source="temperature")
    assert t.isna().sum() == 2 and set(t.dropna()) == {"Temperature"}
    c = attempts.assign(grounded=[False] * 9 + [True, True])
    lab = iv.configuration(c, source="interventions")
    assert lab.iloc[0] == "Baseline" and lab.iloc[-1] == "RAG" and lab.iloc[-2] is None  # CP + RAG dropped
    lab2 = iv.configuration(attempts, source="interventions")
    assert lab2.iloc[-2] == "Constrained prompting"
    with pytest.raises(ValueError, match="source must be"):
        iv.configuration(attempts, source="x")


def _fake_assign(texts):
    name = ["Unethical request" if "unethical" in t else "Contradictory request" for t in texts]
    return pd.DataFrame({"cluster_name": name, "cluster_sim": [len(t) / 100 for t in texts]})


def test_refusal_table_flags_texts_and_reasons(attempts):
    att = attempts.copy()
    att.loc[1, "result_original_output"] = None
    att.loc[1, "result_original_message"] = "that is unethical"
    tab = iv.refusal_table({"temperature": att, "interventions": att}, _fake_assign)
    temp = tab[tab["configuration"] == "Temperature"]
    assert len(temp) == 9
    # the -1 attempt has no text and is not a refusal; the message stands in for a missing output
    assert temp["refused"].sum() == 4
    assert "Unethical request" in set(temp["cluster_name"])
    assert tab.loc[~tab["refused"], "cluster_name"].isna().all()
    assert set(tab["configuration"]) == {"Temperature", "Baseline", "Constrained prompting", "RAG"}


def _table():
    rows = ([("Baseline", "open", "top_k", True, "Contradictory request")] * 3
            + [("Baseline", "proprietary", "twins-fake", True, "Unethical request")]
            + [("Baseline", "open", "top_k", False, None)] * 4
            + [("Constrained prompting", "open", "biased_top_k", True, "Unethical request")] * 2)
    return pd.DataFrame(rows, columns=["configuration", "access", "task_label", "refused", "cluster_name"])


def test_reason_shares_over_attempts():
    s = iv.reason_shares(_table())
    b = s[s["configuration"] == "Baseline"].set_index("reason")
    assert b.loc["Contradictory request", "share"] == pytest.approx(3 / 8)
    assert b.loc["Unethical request", "share"] == pytest.approx(1 / 8)
    assert b["share"].sum() == pytest.approx(4 / 8)  # the refusal rate
    assert b["note"].iloc[0] == "N=8"
    # every configuration and reason gets a row; absent configurations have share 0
    assert len(s) == 4 * 4
    assert s.loc[s["configuration"] == "RAG", "share"].sum() == 0


def test_reason_shares_by_group_sum_to_one():
    s = iv.reason_shares(_table(), by="access")
    b = s[s["configuration"] == "Baseline"]
    assert b["share"].sum() == pytest.approx(1.0)
    assert b.set_index(["access", "reason"]).loc[("open", "Contradictory request"), "share"] == pytest.approx(0.75)
    assert b["note"].iloc[0] == "N_r=4"
    with pytest.raises(KeyError, match="task"):
        iv.reason_shares(_table(), by="task")


def test_reason_examples_sorted_deduplicated_cut():
    tab = pd.DataFrame({
        "configuration": "Baseline", "model": "m", "task": "top_k", "refused": True,
        "cluster_name": ["Contradictory request"] * 4 + ["Unethical request"],
        "cluster_sim": [0.2, 0.9, 0.8, 0.5, 0.4],
        "text": ["low one", "The same first twenty chars A", "the same first twenty chars B", "x" * 50, "bad"]})
    ex = iv.reason_examples(tab, per_reason=2, chars=10)
    c = ex[ex["reason"] == "Contradictory request"]
    assert c["cluster_sim"].tolist() == [0.9, 0.5]  # 0.8 shares its first 20 characters with 0.9
    assert c["text"].iloc[0] == "the same f…" and c["text"].iloc[1] == "x" * 10 + "…"
    assert ex[ex["reason"] == "Unethical request"]["text"].tolist() == ["bad"]


def test_task_label_splits_twins():
    lab = iv.task_label(pd.Series(["twins", "twins", "top_k"]), pd.Series(["famous_male", "politic_female", "top_5"]))
    assert lab.tolist() == ["twins-real", "twins-fake", "top_k"]


def test_refusal_rows_keep_their_attempt(attempts, names):
    pa = iv.technical_per_attempt(iv.temperature_filter(attempts), names)
    r = pa[pa["metric_name"] == "refusal_pct"]
    assert sorted(r.loc[(r["model"] == "m-open") & (r["temperature"] == 1.0), "attempt"]) == [1, 1, 2, 3]
    assert pa.loc[pa["metric_name"] != "refusal_pct", "attempt"].isna().all()


def test_temperature_curves_metric_filter(attempts, names):
    pa = iv.technical_per_attempt(iv.temperature_filter(attempts), names)
    cur = iv.temperature_curves(pa, metrics=["validity_pct", "consistency"])
    assert set(cur["metric_name"]) == {"validity_pct", "consistency"}
    assert set(cur.loc[cur["metric_name"] == "consistency", "temperature"]) == {0.0}


def test_nine_panel_curves_keep_the_temperature(attempts, names, tiny_world):
    """Fig. 3's table: every metric of aggregate.per_attempt_table, per temperature; the social
    ones hand-computed on the conftest world (q_gender: Female .25, Male .5, Unknown .25)."""
    from lib.scholar import aggregate as ag
    from lib.scholar.benchmark import GroundTruthContext

    pa = ag.per_attempt_table(iv.temperature_filter(attempts), names, GroundTruthContext.from_world(tiny_world))
    assert pa.loc[pa["metric_name"] == "parity_gender", "temperature"].notna().all()
    cur = iv.temperature_curves(pa, metrics=ag.HEADLINE_METRICS)
    assert set(cur["metric_name"]) == set(ag.HEADLINE_METRICS)
    par = cur[(cur["group_kind"] == "access") & (cur["metric_name"] == "parity_gender")]
    got = {(r.group, r.temperature): (r.n, r.mean) for r in par.itertuples()}
    # open T=0: {F, M} → TV .25 and {F, M, M} → TV .25; proprietary T=0 and T=1: {F} → TV .75;
    # open T=1: no factual author → faithful parity 0.5
    assert got == {("open", 0.0): (2, pytest.approx(0.75)), ("open", 1.0): (1, pytest.approx(0.5)),
                   ("proprietary", 0.0): (1, pytest.approx(0.25)), ("proprietary", 1.0): (1, pytest.approx(0.25))}
    con = cur[(cur["group"] == "open") & (cur["metric_name"] == "connectedness")].set_index("temperature")
    # T=0: {1, 2} one component → 1; {1, 2, 4} components 2 + 1 → 1 − H(2/3, 1/3)/ln 3; T=1: no value
    h = -(2 / 3 * np.log(2 / 3) + 1 / 3 * np.log(1 / 3)) / np.log(3)
    assert con.at[0.0, "n"] == 2 and con.at[0.0, "mean"] == pytest.approx((1 + 1 - h) / 2)
    assert 1.0 not in con.index or con.at[1.0, "n"] == 0
    # the technical values are those of technical_per_attempt
    tech = iv.temperature_curves(iv.technical_per_attempt(iv.temperature_filter(attempts), names))
    both = cur.merge(tech, on=["group_kind", "group", "temperature", "metric_name"], suffixes=("", "_tech"))
    assert len(both) == len(tech) and np.allclose(both["mean"], both["mean_tech"])


def test_consistency_rows_match_reference_golden():
    """Consistency per configuration as the reference's aggregate_consistency (golden consistency_*.csv):
    a configuration with one named run keeps a NaN row, a run whose names are all missing or empty is
    no run, a configuration without any named run has no row; runs in date/time order."""
    from pathlib import Path
    gold = Path(__file__).resolve().parents[1] / "data" / "golden" / "lsb"
    rows = pd.read_csv(gold / "consistency_rows.csv", keep_default_na=False, na_values=[""])
    ref = pd.read_csv(gold / "consistency_reference.csv")
    rows = rows.rename(columns={"task_name": "task", "task_param": "param"})
    conf = ["model", "task", "param", "temperature"]
    runs = rows[[*conf, "date", "time"]].drop_duplicates().sort_values([*conf, "date", "time"])
    runs["replicate"] = runs.groupby(conf).cumcount()
    rows = rows.merge(runs, on=[*conf, "date", "time"])
    names = rows.assign(author_id=pd.NA, attempt=rows["task_attempt"])
    att = names[[*iv.ATTEMPT_KEYS, "attempt"]].drop_duplicates().assign(
        valid_attempt=True, is_refusal=0, access="open", size_class="S", model_class="reasoning")
    pa = iv.technical_per_attempt(att, names)
    got = pa[pa["metric_name"] == "consistency"].set_index(conf)["metric_value"].sort_index()
    want = ref.rename(columns={"task_name": "task", "task_param": "param"}).set_index(conf)["metric_value"].sort_index()
    assert list(got.index) == list(want.index)
    assert got.isna().sum() == want.isna().sum() == 3
    assert got.to_numpy() == pytest.approx(want.to_numpy(), nan_ok=True, abs=1e-15)


def test_the_label_mode_chooses_ground_truth_mode_and_refusal_flag():
    assert (iv.context_mode("faithful"), iv.refusal_column("faithful")) == ("faithful", "is_refusal")
    assert (iv.context_mode("paper"), iv.refusal_column("paper")) == ("corrected", "is_refusal_corrected")
    with pytest.raises(ValueError, match="mode must be 'faithful' or 'paper', got 'corrected'"):
        iv.context_mode("corrected")


def test_reason_shares_by_group_stacks_the_group_columns():
    t = _table().assign(size_class="S", model_class="reasoning")
    s = iv.reason_shares_by_group(t)
    assert list(dict.fromkeys(s["group_kind"])) == list(iv.GROUP_COLUMNS)
    access = s[s["group_kind"] == "access"].drop(columns="group_kind").rename(columns={"group": "access"})
    pd.testing.assert_frame_equal(access.reset_index(drop=True), iv.reason_shares(t, by="access"), check_like=True)
    b = s[(s["group_kind"] == "size_class") & (s["configuration"] == "Baseline")].set_index("reason")
    assert b.loc["Contradictory request", "share"] == pytest.approx(3 / 4) and set(b["group"]) == {"S"}
