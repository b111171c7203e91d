"""Latent behaviour parameters of every panel model, per panel seed.

Two kinds of parameters:

* calibrated ones come from the published aggregates (:mod:`lib.panel.calibration`, and the
  published per-model numbers of the authority and AttriBench papers quoted in
  :mod:`lib.panel.authority` / :mod:`lib.panel.attribution`);
* secondary ones that no publication pins down (how fast validity collapses with temperature,
  list lengths, verbosity, ...) are drawn from documented ranges with a generator seeded by
  sha256(panel seed, model), so each seed is a different but reproducible panel.

LLMScholarBench temperature curves (panel.md "Temperature"), with T* the calibrated temperature:

* per-attempt validity   q(T) = q0 · σ((T_c − T)/w),  q0 and T_c = T* + Δ chosen so that
  q(T*) = q* solves eventual_validity(q*) = v, v the published eventual validity (three attempts,
  an empty array ending a request early: see :func:`eventual_validity`);
* refusal language        logit ρ(T) = logit ρ* + b·(T − T*)
* factuality              logit f(T) = logit f* − a·(T − T*); f is the share of names that
  are real *and* matchable: real authors are drawn with f/(1 − typo share), a quarter of the
  name variants being surname typos
* core keep share         logit κ(T) = logit κ* − c·(T − T*),  κ*² = 2C/(1 + C) for the
  published consecutive-run Jaccard C (two runs keeping κ of an n-name core share κ²n names,
  Jaccard ≈ κ²/(2 − κ²); redraws are assumed disjoint, so this slightly understates C).
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, replace
from functools import lru_cache

import numpy as np

from lib.panel import calibration as cal

#: Shares of the malformed answer forms among invalid, non-refusal attempts (panel design).
INVALID_FORMS = {"placeholder": 0.3, "empty": 0.2, "nonsense": 0.2, "broken": 0.3}
from lib.panel.profiles import all_profiles

QMAX = 0.999


def seed_int(*parts) -> int:
    """A 64-bit integer from sha256 of the parts joined by '|'."""
    h = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "little")


def model_rng(seed: int, model: str, purpose: str) -> np.random.Generator:
    return np.random.default_rng(seed_int(seed, "latent", model, purpose))


@dataclass(frozen=True)
class LsbModelLatent:
    """Model-level LLMScholarBench parameters (task-level ones come from :func:`lsb_task`)."""

    T_star: float
    Tc_gap: float          # Δ = T_c − T* before capping q0 at QMAX
    width: float           # w of the validity sigmoid
    refusal_slope: float   # b
    fact_slope: float      # a
    keep_slope: float      # c
    gamma_nonwhite: float  # log-odds multiplier of non-White authors in recall
    par_gender_target: float  # published gender parity, calibrates γ_F in the world (lib.panel.composition)
    par_cit_target: float  # published citation-prominence parity, calibrates β in the world
    list_len_k: float      # mean list length of "K" tasks (epoch, field, twins, seniority)
    list_len_100: int      # typical length of a "top 100" list
    verbose_share: float   # share of valid answers with preamble / fences / notes
    malformed_share: float  # share of valid answers in a recoverable malformed form
    variant_rate: float    # share of real names rendered as a variant (typo, initials, ...)
    refusal_form_share: float  # share of invalid attempts that are refusal texts (baseline tasks)
    refusal_form_share_hard: float  # the same for fake twins and constrained prompts
    blended_hallucination: float  # share of hallucinations with a blended (absent) surname

    def as_dict(self) -> dict:
        return asdict(self)


def _z(values: dict[str, float], ref_keys: list[str]) -> dict[str, float]:
    ref = np.array([values[k] for k in ref_keys], dtype=float)
    mu, sd = float(np.nanmean(ref)), float(np.nanstd(ref)) or 1.0
    return {k: (float(v) - mu) / sd for k, v in values.items()}


@lru_cache(maxsize=64)
def lsb_models(seed: int) -> dict[str, LsbModelLatent]:
    targets = cal.model_targets()
    published = cal.lsb_models_with_published_rows()
    ze = _z(targets["div_e"].astype(float).to_dict(), published)
    out = {}
    for mid, prof in all_profiles().items():
        rng = model_rng(seed, mid, "lsb")
        row = targets.loc[mid]
        ge = np.log(2.0) * ze[mid]
        if prof.grounded:
            ge += cal.PRIORS["rag_ethnicity_skew_shift"]
        out[mid] = LsbModelLatent(
            T_star=float(prof.temperature),
            Tc_gap=float(rng.uniform(0.5, 2.5)),
            width=float(rng.uniform(0.12, 0.35)),
            refusal_slope=float(rng.uniform(-0.3, 1.2)),
            fact_slope=float(rng.uniform(0.1, 0.6)),
            keep_slope=float(rng.uniform(0.3, 1.2)),
            gamma_nonwhite=float(ge),
            par_gender_target=float(row["par_g"]),
            par_cit_target=float(row["par_cit"]),
            list_len_k=float(rng.uniform(8, 25)),
            list_len_100=int(rng.integers(30, 101)),
            verbose_share=float(rng.uniform(0.25, 0.6) if prof.reasoning else rng.uniform(0.05, 0.35)),
            malformed_share=float(rng.uniform(0.03, 0.12)),
            variant_rate=float(rng.uniform(0.05, 0.2)),
            refusal_form_share=float(rng.uniform(0.2, 0.5)),
            refusal_form_share_hard=float(rng.uniform(0.6, 0.9)),
            blended_hallucination=float(rng.uniform(0.6, 0.85)),
        )
    # a grounded configuration answers with its base model's list lengths, so that RAG's
    # effect on composition is the grounding's, not a second draw of lengths
    for mid, prof in all_profiles().items():
        if prof.grounded:
            base = out[prof.api_model]
            out[mid] = replace(out[mid], list_len_k=base.list_len_k, list_len_100=base.list_len_100)
    return out


def list_length(lat: LsbModelLatent, family: str, k: int = 100) -> int:
    """Entries of a list: k for a top-k of at most 20, else the model's typical "top 100"
    length; the model's K-task length for the other families (twins 0.6 of it)."""
    if family in ("top_k", "biased_top_k"):
        return k if k <= 20 else min(k, lat.list_len_100)
    n = lat.list_len_k * (0.6 if family == "twins" else 1.0)
    return max(3, int(round(n)))


@lru_cache(maxsize=1)
def _target_rows() -> dict[tuple[str, str], dict]:
    tab = cal.lsb_calibration_table()
    return {(r["model"], r["param"]): r for r in tab.to_dict(orient="records")}


def _task_targets(model: str, param: str) -> dict:
    row = _target_rows().get((model, param))
    if row is None:
        raise KeyError(f"calibration table: no row for model {model!r}, param {param!r}")
    return row


def _family_hard(param: str) -> bool:
    return param.startswith(("fictitious", "movie", "politic", "top_100_bias"))


def eventual_validity(q: float, rho: float, psi: float) -> float:
    """P(a request ends valid within three attempts) for per-attempt validity ``q``.

    The collector re-asks only while the LLMCaller check fails; an empty array passes it
    (reference §1.7), so an "empty" invalid attempt ends the request early. With ψ the share of
    invalid attempts that are full refusals (capped so refusal language stays at ρ), the re-ask
    probability is c = 1 − q − (1 − q)(1 − ψ)·s_empty, and the answer is q(1 + c + c²).
    """
    psi = min(psi, rho / max(1.0 - q, 1e-9))
    c = 1.0 - q - (1.0 - q) * (1.0 - psi) * INVALID_FORMS["empty"] / sum(INVALID_FORMS.values())
    return q * (1.0 + c + c * c)


def _solve_q(v: float, rho: float, psi: float) -> float:
    """Per-attempt validity whose eventual validity is the published ``v`` (bisection; ≤ 0.99)."""
    lo, hi = 0.0, 0.99
    if eventual_validity(hi, rho, psi) <= v:
        return hi
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if eventual_validity(mid, rho, psi) < v else (lo, mid)
    return (lo + hi) / 2


@lru_cache(maxsize=65536)
def lsb_task(seed: int, model: str, param: str, temperature: float) -> dict:
    """Every LLMScholarBench behaviour parameter of (model, task param) at a temperature.

    Unknown params (e.g. top_7, a 1980s epoch) borrow the nearest calibrated one:
    top_k → top_5 / top_100 by k, epoch → 2000s, twins → random_male.
    """
    lat = lsb_models(seed)[model]
    t = _task_targets(model, _calibrated_param(param))
    T, Ts = float(temperature), lat.T_star
    psi_base = lat.refusal_form_share_hard if _family_hard(param) else lat.refusal_form_share
    q_star = _solve_q(min(float(t["val"]), cal.HI), float(t["ref"]), psi_base)
    gap = lat.Tc_gap
    q0 = q_star / float(cal.sigmoid(gap / lat.width))
    if q0 > QMAX:
        q0 = QMAX
        gap = lat.width * float(cal.logit(q_star / QMAX))
    Tc = Ts + gap
    q = q0 * float(cal.sigmoid((Tc - T) / lat.width))
    rho = float(cal.sigmoid(cal.logit(t["ref"]) + lat.refusal_slope * (T - Ts)))
    fact = float(cal.sigmoid(cal.logit(t["f_auth"]) - lat.fact_slope * (T - Ts)))
    # a quarter of the name variants are typos in the surname, which no matcher links to the
    # world; the real-author share is raised so that the matchable share stays at f(T)
    typo_share = lat.variant_rate / 4.0
    real_share = min(fact / (1.0 - typo_share), 0.999)
    cons = float(t["cons"])
    kappa_star = float(np.sqrt(2 * cons / (1 + cons)))
    kappa = float(cal.sigmoid(cal.logit(kappa_star) - lat.keep_slope * (T - Ts)))
    task_acc = t["task_acc"]
    if task_acc == task_acc:  # not NaN: task accuracy falls with T like factuality
        task_acc = float(cal.sigmoid(cal.logit(task_acc) - 0.5 * lat.fact_slope * (T - Ts)))
    psi = psi_base
    # full refusals are a share ψ of invalid attempts; they always carry refusal language,
    # so the other attempts carry it with ρ' keeping the attempt-level rate at ρ.
    psi = min(psi, rho / max(1.0 - q, 1e-9))
    p_full = (1.0 - q) * psi
    rho_other = float(np.clip((rho - p_full) / max(1.0 - p_full, 1e-9), 0.0, 1.0))
    dup = float(t["dup"])
    return {
        "family": t["family"], "T": T, "T_star": Ts, "T_c": Tc, "width": lat.width, "q0": q0,
        "q_star": q_star, "q": q, "eventual_validity": eventual_validity(q, rho, psi),
        "refusal_rate": rho, "refusal_form_share": psi, "refusal_language_other": rho_other,
        "factuality": real_share * (1.0 - typo_share), "real_share": real_share,
        "hallucination_share": 1.0 - real_share, "typo_share": typo_share,
        "duplicate_rate": dup, "kappa_star": kappa_star, "kappa": kappa,
        "consistency_approx": kappa ** 2 / (2.0 - kappa ** 2),
        "task_accuracy": task_acc,
        # the calibration-table targets at T* (published means, or the derived rows of
        # grounded / non-LLMScholarBench models; see calibration.model_targets "source")
        "calibration_targets": {k: t[k] for k in ("ref", "val", "dup", "cons", "f_auth", "task_acc")},
    }


def _calibrated_param(param: str) -> str:
    if param in cal.ALL_PARAMS:
        return param
    if param.startswith("top_") and param[4:].isdigit():
        return "top_5" if int(param[4:]) <= 20 else "top_100"
    if param.endswith("0s") and param[:4].isdigit():
        return "2000s" if int(param[:4]) >= 1980 else "1950s"
    if param.startswith("twin"):
        return "random_male"
    if param.startswith("field_"):
        return "CM&MP"
    return "top_100"
