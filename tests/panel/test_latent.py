"""lib.panel.latent: the eventual-validity rule and its inverse by hand, a model's task parameters
at and away from its calibrated temperature recomputed from the calibration row, the secondary
parameters' ranges, and determinism under the panel seed."""
import hashlib
import math

import numpy as np
import pytest

from lib.panel import calibration as cal
from lib.panel import latent
from lib.panel.profiles import all_profiles

SEED = 11
LLAMA = "meta-llama/llama-3.1-8b-instruct"


def sig(x):
    return 1 / (1 + math.exp(-x))


def logit(p):
    return math.log(p / (1 - p))


def test_seed_int_is_the_first_eight_sha256_bytes_little_endian():
    digest = hashlib.sha256(b"7|latent|m|lsb").digest()
    assert latent.seed_int(7, "latent", "m", "lsb") == int.from_bytes(digest[:8], "little")
    assert latent.seed_int(7, "a") != latent.seed_int(7, "b") and 0 <= latent.seed_int("x") < 2 ** 64


def test_eventual_validity_by_hand():
    # ψ capped at ρ/(1 − q) = 0.2; re-ask c = 1 − q − (1 − q)(1 − ψ)·0.2 (empty arrays end early) = 0.42
    assert latent.eventual_validity(0.5, 0.1, 0.5) == pytest.approx(0.5 * (1 + 0.42 + 0.42 ** 2))
    assert latent.eventual_validity(0.5, 0.0, 0.0) == pytest.approx(0.5 * (1 + 0.4 + 0.16))
    # every invalid attempt a refusal: no early end, the plain three-attempt 1 − (1 − q)^3
    assert latent.eventual_validity(0.5, 1.0, 1.0) == pytest.approx(1 - 0.5 ** 3)
    for v in (0.3, 0.7, 0.95):
        q = latent._solve_q(v, 0.1, 0.4)
        assert latent.eventual_validity(q, 0.1, 0.4) == pytest.approx(v, abs=1e-9)
    assert latent._solve_q(0.9999, 0.1, 0.4) == 0.99          # unreachable: capped


@pytest.mark.parametrize("param,calibrated", [
    ("top_5", "top_5"), ("top_7", "top_5"), ("top_20", "top_5"), ("top_50", "top_100"), ("1980s", "2000s"),
    ("1970s", "1950s"), ("twin_unknown", "random_male"), ("field_AMO", "CM&MP"), ("whatever", "top_100"),
    ("top_100_bias_gender_female", "top_100_bias_gender_female")])
def test_unknown_params_borrow_the_nearest_calibrated_one(param, calibrated):
    assert latent._calibrated_param(param) == calibrated


def test_task_parameters_at_the_calibrated_temperature_are_the_targets():
    lat = latent.lsb_models(SEED)[LLAMA]
    row = cal.lsb_calibration_table().set_index(["model", "param"]).loc[(LLAMA, "top_5")]
    t = latent.lsb_task(SEED, LLAMA, "top_5", lat.T_star)
    assert t["eventual_validity"] == pytest.approx(min(row["val"], cal.HI), abs=1e-9)
    assert t["q"] == pytest.approx(t["q_star"]) and t["q0"] * sig(lat.Tc_gap / lat.width) == pytest.approx(t["q_star"])
    assert t["refusal_rate"] == pytest.approx(row["ref"]) and t["factuality"] == pytest.approx(row["f_auth"])
    assert t["kappa"] == pytest.approx(math.sqrt(2 * row["cons"] / (1 + row["cons"])))
    assert t["consistency_approx"] == pytest.approx(row["cons"])     # κ²/(2 − κ²) with κ² = 2C/(1 + C) is C
    assert t["typo_share"] == lat.variant_rate / 4 and t["hallucination_share"] == pytest.approx(1 - t["real_share"])
    # refusal language over attempts: full refusals (1 − q)ψ carry it, the others with ρ'
    p_full = (1 - t["q"]) * t["refusal_form_share"]
    assert p_full + (1 - p_full) * t["refusal_language_other"] == pytest.approx(t["refusal_rate"])


def test_task_parameters_move_with_temperature_by_the_model_slopes():
    lat = latent.lsb_models(SEED)[LLAMA]
    row = cal.lsb_calibration_table().set_index(["model", "param"]).loc[(LLAMA, "senior")]
    dT = 0.5
    at, hot = latent.lsb_task(SEED, LLAMA, "senior", lat.T_star), latent.lsb_task(SEED, LLAMA, "senior", lat.T_star + dT)
    assert hot["q"] == pytest.approx(at["q0"] * sig((at["T_c"] - lat.T_star - dT) / lat.width))
    assert hot["refusal_rate"] == pytest.approx(sig(logit(row["ref"]) + lat.refusal_slope * dT))
    fact = sig(logit(row["f_auth"]) - lat.fact_slope * dT)
    assert hot["real_share"] == pytest.approx(min(fact / (1 - lat.variant_rate / 4), 0.999))
    assert hot["kappa"] == pytest.approx(sig(logit(at["kappa_star"]) - lat.keep_slope * dT))
    assert hot["task_accuracy"] == pytest.approx(sig(logit(row["task_acc"]) - 0.5 * lat.fact_slope * dT))
    assert hot["q"] < at["q"] and hot["kappa"] < at["kappa"]


def test_secondary_parameters_are_in_their_ranges_and_fixed_by_the_seed():
    models = latent.lsb_models(SEED)
    assert set(models) == set(all_profiles())
    for mid, lat in models.items():
        assert 0.5 <= lat.Tc_gap <= 2.5 and 0.12 <= lat.width <= 0.35 and -0.3 <= lat.refusal_slope <= 1.2, mid
        assert 8 <= lat.list_len_k <= 25 and 30 <= lat.list_len_100 <= 100 and 0.6 <= lat.blended_hallucination <= 0.85
        assert lat.T_star == all_profiles()[mid].temperature
    latent.lsb_models.cache_clear()
    assert latent.lsb_models(SEED) == models                 # recomputed, not only cached
    other = latent.lsb_models(SEED + 1)
    assert other[LLAMA].T_star == models[LLAMA].T_star and other[LLAMA].Tc_gap != models[LLAMA].Tc_gap
    assert other[LLAMA].par_gender_target == models[LLAMA].par_gender_target   # published, not drawn
    assert other[LLAMA].gamma_nonwhite == models[LLAMA].gamma_nonwhite
    assert np.isfinite(models[LLAMA].as_dict()["par_cit_target"])


def test_unknown_model_or_row_is_named():
    with pytest.raises(KeyError, match="no row for model 'nobody', param 'top_5'"):
        latent._task_targets("nobody", "top_5")
