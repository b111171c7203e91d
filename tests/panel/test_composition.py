"""lib.panel.composition: the expected list parity against hand-computed cases, the γ_F solve on
both sides of the peak, the affine map into a world's reach, and the panel's own baseline lists
scoring the calibrated gender parity (distinct factual authors, as eq. (11) counts them)."""
import numpy as np
import pandas as pd
import pytest

from lib.panel import calibration as cal
from lib.panel import composition, latent, prompts
from lib.panel.composition import GenderSkew, ListParity, reachable_targets
from lib.panel.scholar import ScholarBehaviour
from lib.panel.world import AuthorIndex
from tests.panel.test_panel import golden, make_authors  # noqa: F401  (golden is a fixture)

SEED = 5
Q = np.array([0.2, 0.6, 0.1, 0.1])


def test_one_author_lists_score_the_share_of_their_category():
    # one author in category c: TV = 1 − q_c, so E[parity] = Σ_c p_c q_c
    lists = ListParity([1], [1.0], seed=0, lists_per_prompt=40_000)
    p = np.array([0.1, 0.5, 0.3, 0.1])
    assert lists.expected(p, Q) == pytest.approx(float(p @ Q), abs=0.006)


def test_a_single_category_scores_its_share_at_any_length():
    lists = ListParity([3, 17, 60], [0.7, 0.9, 0.5], seed=1)
    assert lists.expected(np.array([0.0, 1.0, 0.0, 0.0]), Q) == pytest.approx(0.6, abs=1e-12)


def test_two_author_lists_by_hand():
    # n = 2, p = (½, ½, 0, 0), q = (½, ½, 0, 0): both in one category (prob ½) → parity ½, split → 1
    lists = ListParity([2], [1.0], seed=2, lists_per_prompt=40_000)
    half = np.array([0.5, 0.5, 0.0, 0.0])
    assert lists.expected(half, half) == pytest.approx(0.75, abs=0.006)


def test_lists_without_a_factual_author_are_left_out():
    lists = ListParity([5, 5], [0.0, 1.0], seed=3, lists_per_prompt=50)
    assert lists.n.size == 50 and (lists.n == 5).all()
    assert np.isnan(ListParity([4], [0.0], seed=3).expected(Q, Q))


@pytest.fixture(scope="module")
def index():
    a = make_authors(1500, seed=4)
    rng = np.random.default_rng(0)
    u = rng.random(len(a))
    a["perceived_gender"] = np.where(u < 0.12, "Unknown", np.where(u < 0.2, "Unisex", a["true_gender"]))
    return AuthorIndex(a)


def test_gender_sums_give_the_recall_shares_of_the_weights(index):
    beta, gf, ge = 0.8, -1.3, 0.4
    w = np.exp(index.log_weights(beta, gf, ge))
    direct = np.bincount(index.gender_code, weights=w, minlength=len(index.gender_categories)) / w.sum()
    np.testing.assert_allclose(composition.gender_shares(index.gender_sums(beta, ge), gf), direct, rtol=1e-10)
    assert list(index.gender_categories) == ["Female", "Male", "Unisex", "Unknown"]
    assert index.gender_reference.sum() == pytest.approx(1.0)


def test_the_solve_lands_on_the_target_below_the_peak(index):
    skew = GenderSkew(index, 0.8, 0.0, ListParity([5, 12, 40], [0.9, 0.8, 0.7], seed=4))
    assert skew.floor < skew.peak
    for target in (skew.floor + 0.01, 0.5 * (skew.floor + skew.peak), skew.peak - 0.01):
        g = skew.solve(target)
        assert skew.parity(g) == pytest.approx(target, abs=0.004)
        assert g <= skew.grid[int(np.argmax(skew.values))] + 1e-9        # the side of fewer women
    assert skew.solve(skew.peak + 0.1) == skew.grid[int(np.argmax(skew.values))]
    assert skew.solve(skew.floor - 0.1) == composition.GAMMA_RANGE[0]


def test_reachable_published_values_are_kept():
    a, s = reachable_targets({"m1": 0.6, "m2": 0.7}, {"m1": 0.5, "m2": 0.5}, {"m1": 0.8, "m2": 0.8})
    assert (a, s) == (0.0, 1.0)


def test_unreachable_values_are_mapped_with_the_largest_slope_that_fits():
    pub = {"m1": 0.54, "m2": 0.62, "m3": 0.70}
    floors = {"m1": 0.634, "m2": 0.634, "m3": 0.634}
    peaks = {"m1": 0.80, "m2": 0.74, "m3": 0.76}
    a, s = reachable_targets(pub, floors, peaks, margin=0.005)
    t = {k: a + s * v for k, v in pub.items()}
    assert all(floors[k] + 0.005 - 1e-6 <= t[k] <= peaks[k] - 0.005 + 1e-6 for k in pub)
    # by hand: m1 at its floor bound and m3 at its peak bound, s = (0.755 − 0.639)/(0.70 − 0.54)
    assert s == pytest.approx((0.755 - 0.639) / 0.16, abs=1e-6)
    assert a == pytest.approx(0.639 - 0.54 * s, abs=1e-6)
    assert t["m1"] < t["m2"] < t["m3"]


@pytest.fixture(scope="module")
def behaviour(index):
    return ScholarBehaviour(index, SEED)


def test_published_order_of_parity_is_the_calibrated_order(behaviour):
    lsb = latent.lsb_models(SEED)
    a, s = behaviour.parity_map()
    assert 0 < s <= 1
    models = cal.lsb_models_with_published_rows()
    got = {m: behaviour._skew(m).parity(behaviour.gamma_female(m)) for m in models}
    for m in models:
        target = a + s * lsb[m].par_gender_target
        assert got[m] == pytest.approx(target, abs=0.006), m


def test_grounded_configs_keep_their_base_lengths_and_shift_its_skew(behaviour):
    lsb = latent.lsb_models(SEED)
    for base in ("gemini-2.5-flash", "gemini-2.5-pro"):
        g = f"{base}-grounded"
        assert (lsb[g].list_len_k, lsb[g].list_len_100) == (lsb[base].list_len_k, lsb[base].list_len_100)
        assert behaviour.gamma_female(g) - behaviour.gamma_female(base) == cal.PRIORS["rag_gender_skew_shift"]


def test_the_diverse_prompt_changes_gender_not_the_citation_profile_or_ethnicity(behaviour):
    model = "meta-llama/llama-3.1-8b-instruct"
    lat = latent.lsb_models(SEED)[model]
    base = behaviour._log_w(model)
    diverse = behaviour._log_w(model, cal.PRIORS["cp_diverse_gender_shift"])
    ix = behaviour.index
    assert ix.cit_parity(diverse) == pytest.approx(lat.par_cit_target, abs=2e-3)
    assert ix.cit_parity(base) == pytest.approx(lat.par_cit_target, abs=2e-3)
    share = lambda lw, mask: np.exp(lw - lw.max())[mask].sum() / np.exp(lw - lw.max()).sum()  # noqa: E731
    assert share(diverse, ix.female_name) > 1.5 * share(base, ix.female_name)    # odds × e^1.5 ≈ 4.5, less the renormalisation
    # only the names that read as female move: the ethnicity mix of the recall stays put
    for code in np.unique(ix.eth):
        assert share(diverse, ix.eth == code) == pytest.approx(share(base, ix.eth == code), abs=0.01), code


def _list_parity(behaviour, model, task, params, core):
    """eq. (11) on the distinct real authors of one drawn list, on the world's perceived labels."""
    entries, _ = behaviour.entries(model, task, params, np.random.default_rng([core, 1]), np.random.default_rng([core, 2]))
    ix = behaviour.index
    real = sorted({e[1] for e in entries if e[0] == "real"})
    if not real:
        return np.nan
    counts = np.bincount(ix.gender_code[real], minlength=len(ix.gender_categories)) / len(real)
    return 1.0 - 0.5 * np.abs(counts - ix.gender_reference).sum()


def test_the_panels_own_lists_score_the_calibrated_parity(behaviour, golden):
    """The emulator is a model of the lists; the lists themselves (task pools, twins'
    neighbourhoods, duplicates) must land near its value and keep the models' order."""
    lsb = latent.lsb_models(SEED)
    a, s = behaviour.parity_map()
    low, high = "meta-llama/llama-3.3-70b-instruct", "deepseek/deepseek-r1-0528"   # published 0.54, 0.70
    measured = {}
    for model in (low, high):
        values = []
        for param in cal.BASELINE_PARAMS:
            task = prompts.parse(golden[param])
            params = latent.lsb_task(SEED, model, param, round(lsb[model].T_star, 4))
            values += [_list_parity(behaviour, model, task, params, core) for core in range(25)]
        measured[model] = float(np.nanmean(values))
        assert measured[model] == pytest.approx(a + s * lsb[model].par_gender_target, abs=0.03), model
    assert measured[high] - measured[low] > 0.5 * s * (0.70 - 0.54)
