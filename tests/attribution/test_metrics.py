"""Accuracy, S_omit, S_evid, significance and disparity against hand-computed values on a
constructed responses table; the figure functions draw from the same tables."""
import io

import numpy as np
import pandas as pd
import pytest

from lib import stats as lstats
from lib.attribution import figures, metrics

DATASET = pd.DataFrame({
    "quote_id": ["jstet_1", "jstet_2", "jstet_3", "jstet_4"],
    "author_clean": ["Maya Angelou", "Oscar Wilde", "James Baldwin", "Emily Dickinson"],
    "race": ["black", "white", "black", "white"], "gender": ["female", "male", "male", "female"],
    "log10_hits": [5.2, 6.1, 5.7, 4.4],
})
# (quote, prompt_type, evidence, [three replies])
REPLIES = [
    ("jstet_1", "direct", False, ["Maya Angelou.", "Oscar Wilde wrote it.", "I do not know."]),
    ("jstet_2", "direct", False, ["Oscar Wilde."] * 3),
    ("jstet_3", "direct", False, ["Baldwin.", "James Baldwin.", "no idea"]),
    ("jstet_4", "direct", False, ["unsure"] * 3),
    ("jstet_1", "indirect", False, ["a poem about resilience", "Angelou reflects on rising.", "about hope"]),
    ("jstet_2", "indirect", False, ["Wilde's wit on art.", "a remark on art", "Written in Victorian London."]),
    ("jstet_3", "indirect", False, ["an essay on race", "an essay on race", "an essay on race"]),
    ("jstet_4", "indirect", False, ["a poem on death", "Dickinson's poem", "a poem on death"]),
    ("jstet_1", "indirect", True, ["Angelou wrote on rising.", "Oscar Wilde's remark.", "a poem"]),
    ("jstet_2", "indirect", True, ["Wilde.", "Wilde.", "Wilde."]),
    ("jstet_3", "indirect", True, ["Baldwin.", "an essay", "an essay"]),
    ("jstet_4", "indirect", True, ["Dickinson.", "Dickinson.", "a poem"]),
]


def _responses(model="m1"):
    rows = [(q, model, p, e, g + 1, t) for q, p, e, texts in REPLIES for g, t in enumerate(texts)]
    return pd.DataFrame(rows, columns=list(metrics.RESPONSE_COLUMNS))


@pytest.fixture(scope="module")
def scored():
    return metrics.score_responses(_responses(), DATASET, kind="intersectional")


def test_row_outcomes(scored):
    d = scored[(scored["prompt_type"] == "direct") & (scored["quote_id"] == "jstet_1")]
    assert d["outcome"].tolist() == ["correct", "wrong", "none"]
    assert scored["subgroup"].isin(["F/Black", "M/White", "M/Black", "F/White"]).all()


def test_accuracy_hand_computed(scored):
    t = metrics.accuracy(scored, prompt_type="direct", evidence=False)
    row = t.iloc[0]
    # quote-level accuracies 1/3, 1, 2/3, 0: mean 0.5, sample variance 5/27
    assert row["n_quotes"] == 4 and row["n_responses"] == 12
    assert row["mean"] == pytest.approx(0.5)
    assert row["variance"] == pytest.approx(5 / 27)
    se = np.sqrt(5 / 27) / 2
    assert row["se"] == pytest.approx(se)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((0.5 - 1.96 * se, 0.5 + 1.96 * se))
    w = metrics.accuracy(scored, prompt_type="direct", evidence=False, ci="wilson").iloc[0]
    assert (w["ci_low"], w["ci_high"]) == pytest.approx(lstats.wilson_ci(6, 12))


def test_s_omit_hand_computed(scored):
    t = metrics.s_omit(scored)
    # no name at all: q1 2/3 ("Angelou" names her once), q2 1/3 ("Wilde's", "Victorian London"), q3 1, q4 2/3
    assert t["mean"].item() == pytest.approx((2 / 3 + 1 / 3 + 1 + 2 / 3) / 4)
    by = metrics.s_omit(scored, subgroups=True).set_index("subgroup")["mean"]
    assert by.to_dict() == pytest.approx({"F/Black": 2 / 3, "M/White": 1 / 3, "M/Black": 1.0, "F/White": 2 / 3})
    # conditional on knowing (direct correct in all 3 generations): only jstet_2
    c = metrics.s_omit(scored, conditional=True)
    assert c["n_quotes"].item() == 1 and c["mean"].item() == pytest.approx(1 / 3)


def test_s_evid_hand_computed(scored):
    t = metrics.s_evid(scored)
    # correct author missing: q1 2/3, q2 0, q3 2/3, q4 1/3
    assert t["mean"].item() == pytest.approx((2 / 3 + 0 + 2 / 3 + 1 / 3) / 4)
    assert bool(t["evidence"].item()) is True


def test_direct_omission_is_fig15_quantity(scored):
    t = metrics.s_omit(scored, prompt_type="direct")
    assert t["mean"].item() == pytest.approx((1 / 3 + 0 + 1 / 3 + 1) / 4)


def _table(means, ses, n=100):
    return pd.DataFrame({"dataset": "intersectional", "model": "m", "prompt_type": "direct", "evidence": False,
                         "subgroup": ["M/White", "F/White", "M/Black", "F/Black"][:len(means)], "metric": "accuracy",
                         "n_quotes": n, "mean": means, "se": ses, "std": np.asarray(ses) * np.sqrt(n)})


def test_significance_marks():
    sig = metrics.subgroup_significance(_table([0.5, 0.4, 0.2, 0.1], [0.05] * 4), higher_is_better=True).set_index("subgroup")
    assert sig.loc["M/White", "is_reference"] and np.isnan(sig.loc["M/White", "z"])
    assert sig.loc["F/White", "z"] == pytest.approx(0.1 / np.sqrt(0.005))          # 1.414
    assert sig.loc["F/White", "not_significantly_different_from_reference"]
    assert not sig.loc["M/Black", "not_significantly_different_from_reference"]   # z 4.24
    assert not sig["asterisk_on_reference"].any()                                 # F/White is not different
    sig2 = metrics.subgroup_significance(_table([0.5, 0.3, 0.2, 0.1], [0.05] * 4), higher_is_better=True)
    assert sig2.set_index("subgroup")["asterisk_on_reference"].to_dict() == {
        "M/White": True, "F/White": False, "M/Black": False, "F/Black": False}
    assert sig2.set_index("subgroup").loc["F/Black", "diff_from_reference"] == pytest.approx(-0.4)


def test_significance_ties_and_direction():
    sig = metrics.subgroup_significance(_table([0.2, 0.2, 0.5, 0.31], [0.05, 0.01, 0.05, 0.05]),
                                        higher_is_better=False).set_index("subgroup")
    assert sig["is_reference"].tolist() == [True, True, False, False]
    # smallest z over the two references: vs M/White (se .05): 0.11/0.0707 = 1.556
    assert sig.loc["F/Black", "z"] == pytest.approx(0.11 / np.sqrt(0.005))
    assert sig.loc["F/Black", "not_significantly_different_from_reference"]
    assert not sig["asterisk_on_reference"].any()                                 # two references


def test_welch_variant_agrees_in_large_samples():
    t = _table([0.5, 0.4, 0.2, 0.1], [0.05] * 4, n=2000)
    z = metrics.subgroup_significance(t, higher_is_better=True)
    w = metrics.subgroup_significance(t, higher_is_better=True, test="welch")
    assert (z["not_significantly_different_from_reference"] == w["not_significantly_different_from_reference"]).all()
    assert w.set_index("subgroup").loc["F/White", "p_value"] == pytest.approx(2 * (1 - 0.9213), abs=2e-3)


def test_disparity_gap():
    d = metrics.disparity(_table([0.5, 0.4, 0.2, 0.1], [0.05] * 4), higher_is_better=True).iloc[0]
    assert d["best_subgroup"] == "M/White" and d["worst_subgroup"] == "F/Black"
    assert d["gap_pp"] == pytest.approx(40.0)


def test_input_errors():
    r = _responses()
    with pytest.raises(ValueError, match="lacks column"):
        metrics.score_responses(r.drop(columns="generation"), DATASET, kind="intersectional")
    with pytest.raises(ValueError, match="repeats"):
        metrics.score_responses(pd.concat([r, r.iloc[:1]]), DATASET, kind="intersectional")
    with pytest.raises(ValueError, match="'jstet_9'"):
        metrics.score_responses(r.assign(quote_id=r["quote_id"].replace("jstet_4", "jstet_9")), DATASET, kind="intersectional")


def test_fame_bins():
    b = metrics.fame_bins(pd.Series([3.0, 3.49, 3.5, 6.99, 7.0, 9.0]))
    assert b.astype(str).tolist() == ["3–3.5", "3–3.5", "3.5–4", "6.5–7", "≥7", "≥7"]


# --- figures on the constructed responses -----------------------------------------------------------
@pytest.fixture(scope="module")
def two_models():
    parts = []
    for name, kind in (("intersectional", "intersectional"), ("multirace", "multirace")):
        ds_ = DATASET if kind == "intersectional" else DATASET.assign(race=["latino", "white", "asian", "black"])
        r = pd.concat([_responses("m1"), _responses("m2")])
        parts.append(metrics.score_responses(r, ds_, kind=kind, dataset_name=name))
    return pd.concat(parts, ignore_index=True)


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    import matplotlib.pyplot as plt
    plt.close(fig)
    return buf.getvalue()


def test_figures_draw(two_models):
    acc = metrics.accuracy(two_models)
    fig = figures.overall_accuracy(acc, subset_models=["m2"])
    assert len(fig.axes) == 2 and "m2†" in [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert _png(fig)[:4] == b"\x89PNG"
    sig = metrics.subgroup_significance(metrics.accuracy(two_models, subgroups=True), higher_is_better=True)
    fig = figures.subgroup_heatmaps(sig, columns=[("Direct", "direct", False), ("Indirect", "indirect", False)],
                                    value_label="Accuracy", higher_is_better=True)
    assert len(fig.axes) == 4
    texts = {t.get_text(): t.get_fontweight() for t in fig.axes[0].texts}
    # M/White direct accuracy 1.0 is the reference; one quote per subgroup gives se = NaN, which the
    # reference counts as "different", hence the asterisk
    assert texts["100.0*"] == "bold" and texts["33.3"] == "normal"
    _png(fig)
    fig = figures.accuracy_by_fame(metrics.accuracy_by_fame(two_models))
    assert len(fig.axes[0].lines) == 2
    _png(fig)
    omit = metrics.subgroup_significance(metrics.s_omit(two_models, subgroups=True), higher_is_better=False)
    _png(figures.subgroup_heatmaps(omit, columns=[("S_omit", "indirect", False)], value_label="S_omit",
                                   higher_is_better=False))


def test_every_response_figure_draws(two_models):
    ids = ["at-fig4", "at-fig5", "at-fig6", "at-fig7", "at-fig8", "at-fig13", "at-fig14", "at-fig15", "at-fig16"]
    fixture = two_models.copy()
    extra = fixture[fixture["prompt_type"] == "direct"].assign(evidence=True)     # direct + evidence rows
    overt = fixture[fixture["prompt_type"] == "indirect"].assign(prompt_type="indirect_overt")
    fixture = pd.concat([fixture, extra, overt], ignore_index=True)
    for i in ids:
        fig = figures.response_figure(i, fixture, subset_models=["m1"])
        assert fig.axes, i
        _png(fig)
    with pytest.raises(KeyError, match="not a response figure"):
        figures.response_figure("at-fig9", fixture)
