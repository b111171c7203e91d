"""The panel's truth: every latent parameter and the expected rates they imply (panel.md "truth").

Tests (never the analysis packages) compare the pipeline's estimates with these numbers.
Structure of :func:`truth` (JSON-serialisable):

``panel``          version, seed, n_authors, n_quotes, synthetic=True
``request_fields`` how a collector passes replicate, attempt, infrastructure try, grounding
``faults``         the configured fault rates
``calibration``    ``priors`` (design shifts for RAG / constrained prompts), ``model_targets``
                   (per-model published targets used), ``refusal_family_mix`` per task group,
                   ``authority_fit`` (the authority parameters fitted to the published rates) and
                   ``attribution_suppression_gaps`` (expected S_omit / S_evid gaps) and
                   ``attribution_targets`` (each quantity of panel_attribution_targets.csv that
                   names a model or the model mean: its target and the panel's expected value on
                   the datasets' fame-balanced reference populations)
``models``         per model id:
   ``attributes``  the published attributes (as in GET /v1/models)
   ``lsb``         ``latent`` (model-level parameters incl. the calibrated β),
                   ``tasks`` {param: parameters and expected rates at the model's temperature:
                   q (per attempt), eventual_validity q(1+c+c²) (c: re-ask probability), refusal_rate, hallucination_share,
                   duplicate_rate, kappa, consistency_approx, task_accuracy, calibration_targets},
                   ``temperature_curves`` {param: {T: the same rates}} over the calibration grid
   ``authority``   susceptibility (per instruction), τ, weights, noise, mention rates per
                   instruction, stray/no-number rates; concrete prompts: choice probabilities
                   :func:`lib.panel.authority.choice_probabilities`, expected flip / boost rate of a
                   (original, manipulated) pair :func:`lib.panel.authority.flip_probability`
   ``attribution`` α, β, γ, ψ, ω, evidence parameters and ``expected``
                   {prompt: {no_evidence|evidence: {group: {correct, wrong, none, n_quotes}}}},
                   averaged over the registered quotes (or the shipped AttriBench sample)
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lib import paths
from lib.panel import attribution, authority, calibration, latent
from lib.panel.core import VERSION, Panel
from lib.panel.profiles import all_profiles
from lib.panel.scholar import FAMILY_MIX, task_group

TEMPERATURE_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)   # reference §1.4
_RATE_KEYS = ("q", "eventual_validity", "refusal_rate", "hallucination_share", "duplicate_rate", "kappa",
              "consistency_approx", "task_accuracy")

REQUEST_FIELDS = {
    "replicate": "header X-Replicate, else body 'replicate', else the OpenAI 'seed' field, else 0",
    "attempt": "header X-Attempt, else body 'attempt', else 1 (validation attempt, 1..3)",
    "infrastructure_try": "header X-Try (or X-Retry), else body 'retry', else 1; changes only the fault draw",
    "grounding": "model id suffix '-grounded' (e.g. gemini-2.5-pro-grounded), or body 'grounded': true, or a "
                 "'googleSearch' tool; only gemini-2.5-flash and gemini-2.5-pro have grounded configurations",
    "temperature": "body 'temperature' in [0, 2]; default: the model's paper temperature",
}


def _clean(x):
    """JSON-safe: NaN → None, numpy scalars → Python."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def _attribution_expected(params: dict, quotes: pd.DataFrame) -> dict:
    q = quotes.copy()
    q["group"] = q["race"].astype(str).str.lower() + "_" + q["gender"].astype(str).str.lower()
    out: dict = {}
    for family in ("direct", "indirect", "indirect_overt"):
        out[family] = {}
        for evidence in (False, True):
            rows = [attribution.outcome_probabilities(params, family, evidence, float(f), r, g)
                    for f, r, g in zip(q["log10_hits"], q["race"], q["gender"])]
            df = pd.DataFrame(rows)
            df["group"] = q["group"].to_numpy()
            df["race"] = q["race"].astype(str).str.lower().to_numpy()
            per = {}
            for col in ("group", "race"):
                for g, sub in df.groupby(col):
                    per[g] = {k: float(sub[k].mean()) for k in ("knows", "correct", "wrong", "none")} | {"n_quotes": len(sub)}
            per["all"] = {k: float(df[k].mean()) for k in ("knows", "correct", "wrong", "none")} | {"n_quotes": len(df)}
            out[family]["evidence" if evidence else "no_evidence"] = per
    return out


def truth(seed: int, *, authors: pd.DataFrame | None = None, quotes=None, panel: Panel | None = None,
          n_authors: int | None = None, temperatures=TEMPERATURE_GRID) -> dict:
    """Every latent parameter per model and task, and the expected rates (see module docstring).

    The world-dependent parameter (the prominence exponent β) needs the authors: pass the
    ``panel`` the pipeline talks to, or ``authors``, or ``n_authors`` to load the synthetic world
    of that size for ``seed`` (:func:`lib.groundtruth.world.load_world`). Without any of them
    β is reported as None; everything else is world-independent.
    """
    if panel is None:
        if authors is None and n_authors:
            from lib.groundtruth.world import load_world
            return truth(seed, panel=Panel.from_world(load_world(seed, n_authors), seed, quotes=quotes),
                         temperatures=temperatures)
        panel = Panel(seed, authors, quotes=quotes)
    seed = panel.seed
    lsb_lat = latent.lsb_models(seed)
    auth = authority.model_params(seed)
    attr = attribution.model_params(seed)
    if len(panel.quotes):
        quote_table = panel.quotes.df
    else:
        quote_table = pd.read_csv(paths.RESOURCES / "attribench_intersectional_sample.csv")
    targets = calibration.model_targets()
    models = {}
    for mid, prof in all_profiles().items():
        lat = lsb_lat[mid].as_dict()
        lat["beta"] = panel.scholar.beta(mid) if panel.scholar is not None else None
        lat["gamma_female"] = panel.scholar.gamma_female(mid) if panel.scholar is not None else None
        tasks, curves = {}, {}
        for param in calibration.ALL_PARAMS:
            at = latent.lsb_task(seed, mid, param, round(float(prof.temperature), 4))
            tasks[param] = {**at, "refusal_family_mix": FAMILY_MIX[task_group(param)]}
            curves[param] = {f"{T:g}": {k: latent.lsb_task(seed, mid, param, float(T))[k] for k in _RATE_KEYS}
                             for T in temperatures}
        models[mid] = {
            "attributes": prof.attributes(),
            "lsb": {"latent": lat, "tasks": tasks, "temperature_curves": curves},
            "authority": auth[mid],
            "attribution": {**attr[mid], "expected": _attribution_expected(attr[mid], quote_table)},
        }
    return _clean({
        "panel": {"version": VERSION, "seed": seed, "synthetic": True,
                  "n_authors": panel.index.n if panel.index is not None else 0, "n_quotes": len(panel.quotes),
                  "attribution_expected_over": "registered quotes" if len(panel.quotes) else
                  "lib/resources/attribench_intersectional_sample.csv"},
        "request_fields": REQUEST_FIELDS,
        "faults": panel.faults.as_dict(),
        "calibration": {"priors": calibration.PRIORS,
                        # authority bias: the fitted τ, s per instruction and topic factors
                        # (lib/panel/authority_fit.py; targets lib/resources/panel_authority_targets.csv)
                        "authority_fit": authority.fitted(),
                        # AttriBench: the six printed suppression gaps the panel's slopes imply,
                        # averaged over the paper's models on a fame-balanced grid
                        "attribution_suppression_gaps": attribution.suppression_gaps(
                            {m: p for m, p in attr.items() if p["in_paper"]}),
                        "attribution_targets": attribution.target_table(attr).to_dict(orient="records"),
                        "model_targets": targets.drop(columns=["source"]).astype(float).to_dict(orient="index"),
                        "model_target_source": targets["source"].to_dict(),
                        "refusal_family_mix": FAMILY_MIX},
        "models": models,
    })


def parameter_table(seed: int, panel: Panel | None = None) -> pd.DataFrame:
    """The calibration at a glance: one row per model (model → parameter).

    Columns: the published (or derived) targets the model was calibrated to (``target_*``:
    val, ref, dup, cons, f_auth, par_g, par_cit, with the rule in ``source``), the temperature T*, and
    the latent parameters they imply, averaged over the 18 baseline task parameters at T*
    (``q`` per attempt, ``eventual_validity``, ``refusal_rate``, ``kappa``, ``real_share``,
    ``factuality``, ``duplicate_rate``), plus the model-level T_c − T*, width w, γ_E and,
    when the panel has a world, β and γ_F (both solved in that world).
    """
    targets = calibration.model_targets()
    lsb_lat = latent.lsb_models(seed)
    rows = []
    for mid, prof in all_profiles().items():
        T = round(float(prof.temperature), 4)
        tasks = pd.DataFrame([latent.lsb_task(seed, mid, p, T) for p in calibration.BASELINE_PARAMS])
        lat = lsb_lat[mid]
        row = {"model": mid, "source": targets.loc[mid, "source"], "T_star": T}
        row.update({f"target_{k}": float(targets.loc[mid, k]) for k in ("val", "ref", "dup", "cons", "f_auth", "par_g", "par_cit")})
        row.update({k: float(tasks[k].mean()) for k in ("q", "eventual_validity", "refusal_rate", "kappa", "real_share",
                                                        "factuality", "duplicate_rate")})
        world = panel is not None and panel.scholar is not None
        row.update({"Tc_minus_Tstar": lat.Tc_gap, "width": lat.width, "gamma_nonwhite": lat.gamma_nonwhite,
                    "gamma_female": panel.scholar.gamma_female(mid) if world else float("nan"),
                    "beta": panel.scholar.beta(mid) if world else float("nan")})
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")
