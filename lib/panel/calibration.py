"""Calibration of the LLMScholarBench behaviour to the published aggregates.

Everything here is computed from the CSVs in ``lib/resources`` (values the LLMScholarBench
release prints, reference §3.3); nothing is typed in by hand except the few design priors in
:data:`PRIORS`, which say how the interventions the CSVs do not cover (grounding, constrained
prompts) move a model away from its baseline.

Rule (panel.md, "Calibration"): the target of metric x for model m on task parameter p is

    logit x_{m,p} = c_m + (logit x_p − mean_p' logit x_p')

with c_m solved so that the mean over the 18 baseline parameters equals x_m exactly, x_m the model's published baseline mean (``lsb_published_per_model_baseline.csv``) and x_p
the published per-parameter mean pooled over models (``lsb_published_per_task_baseline.csv``).
Centring the task offsets keeps the model mean near x_m while reproducing the task pattern
(twins of politicians draw refusals, top-100 draws duplicates, ...). Probabilities are clipped
to [0.002, 0.995] before the logit so 0.00 and 1.00 stay finite.

Models outside LLMScholarBench get the mean of the Figure 2 group rows of their access, size
and reasoning groups (``lsb_published_fig2_group_means.csv``). The grounded Gemini configs
start from their base model; validity comes from the temperature-calibration table
(``f_valid``) and factuality is scaled by the ratio of the grounded to the base factuality in
that table.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from lib import paths
from lib.panel.profiles import LSB, all_profiles

LO, HI = 0.002, 0.995

#: The 18 experiment-task parameters (reference §1.3) in release order, with their family.
BASELINE_PARAMS: dict[str, str] = {
    "top_5": "top_k", "top_100": "top_k",
    "1950s": "epoch", "2000s": "epoch",
    "PER": "field", "CM&MP": "field",
    "famous_male": "twins", "famous_female": "twins", "random_male": "twins", "random_female": "twins",
    "fictitious_male": "twins", "fictitious_female": "twins", "movie_male": "twins", "movie_female": "twins",
    "politic_male": "twins", "politic_female": "twins",
    "early_career": "seniority", "senior": "seniority",
}
#: The 12 constrained-prompt parameters (biased_top_k, the intervention of paper §5.3).
BIASED_PARAMS: tuple[str, ...] = (
    "top_100_bias_diverse", "top_100_bias_gender_equal", "top_100_bias_gender_female",
    "top_100_bias_gender_male", "top_100_bias_gender_neutral", "top_100_bias_ethnicity_equal",
    "top_100_bias_ethnicity_asian", "top_100_bias_ethnicity_black", "top_100_bias_ethnicity_latino",
    "top_100_bias_ethnicity_white", "top_100_bias_citations_high", "top_100_bias_citations_low",
)
ALL_PARAMS: tuple[str, ...] = tuple(BASELINE_PARAMS) + BIASED_PARAMS

#: Design priors for settings the published CSVs do not cover. Each is a shift on the logit
#: scale (or a ratio), chosen to give the direction panel.md asks for; they are panel
#: parameters, not paper findings, and truth() reports them.
PRIORS: dict[str, float] = {
    # grounded (RAG) Gemini vs its base model (panel.md "RAG"; directions of reference §3.3 deltas)
    "rag_consistency_logit": -0.8,      # consistency down
    "rag_refusal_logit": -0.5,          # fewer justificatory texts (RAG refusals .38 vs baseline .50)
    "rag_gender_skew_shift": -0.5,      # gender diversity down (toward the majority)
    "rag_ethnicity_skew_shift": -0.5,   # ethnicity diversity down
    # constrained prompts (biased_top_k) vs the model's top_100 target
    "cp_refusal_logit": 0.6,            # more refusals (CP .565 vs baseline .496 share)
    "cp_validity_logit": -0.9,          # lower validity (Gemini ΣTech falls 0.5–0.8 under CP)
    "cp_factuality_logit": -0.25,       # slightly lower factuality
    "cp_rare_group_factuality_logit": -0.8,  # extra drop for female-only, Black-only, low-citation
    "cp_compliance": 0.75,              # share of a constrained list drawn from the requested group
    # "diverse": log-odds of names that read as female up (gender diversity only); 1.5 gives the
    # recall's gender diversity the gain the old 0.7 on every not-male name gave (seed 20261130:
    # llama-3.1-8b Gini-Simpson 0.105 -> 0.189, was 0.192) without moving ethnicity
    "cp_diverse_gender_shift": 1.5,
}
RARE_GROUP_PARAMS = ("top_100_bias_gender_female", "top_100_bias_ethnicity_black", "top_100_bias_citations_low")

_BASE_METRICS = ("ref", "val", "dup", "cons", "f_auth")
_MODEL_METRICS = ("ref", "val", "dup", "cons", "f_auth", "f_field", "f_epoch", "f_sen",
                  "div_g", "div_e", "div_pub", "div_cit", "par_g", "par_e", "par_pub", "par_cit")


def logit(p):
    p = np.clip(np.asarray(p, dtype=float), LO, HI)
    return np.log(p / (1 - p))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def _num(v) -> float:
    """Parse a published cell: '.93' → 0.93, 'field .59' → 0.59, '.000 (→ score…)' → 0.0, '–' → nan."""
    s = str(v).strip()
    if s in ("", "–", "-", "nan"):
        return float("nan")
    for tok in s.replace("(", " ").split():
        try:
            return float(tok)
        except ValueError:
            continue
    return float("nan")


def _read(name: str) -> pd.DataFrame:
    path = paths.RESOURCES / name
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"panel calibration needs {path} (a copy of shared/data/{name})") from exc


@lru_cache(maxsize=1)
def published() -> dict[str, pd.DataFrame]:
    """The four published tables, numeric, indexed by model / param / group."""
    per_model = _read("lsb_published_per_model_baseline.csv").set_index("model")
    per_task = _read("lsb_published_per_task_baseline.csv").set_index("param")
    temp = _read("lsb_published_temperature_calibration.csv").set_index("model")
    fig2 = _read("lsb_published_fig2_group_means.csv")
    for col in _MODEL_METRICS:
        if col not in per_model.columns:
            raise ValueError(f"lsb_published_per_model_baseline.csv: missing column {col!r}")
    per_model = per_model.map(_num)
    f_task = per_task["f_task"]
    per_task = per_task.drop(columns=["f_task"]).map(_num)
    per_task["f_task"] = f_task.map(_num)
    temp = temp.map(_num)
    fig2 = fig2.set_index(["group", "kind"]).map(_num)
    missing = set(BASELINE_PARAMS) - set(per_task.index)
    if missing:
        raise ValueError(f"lsb_published_per_task_baseline.csv: missing params {sorted(missing)}")
    return {"per_model": per_model, "per_task": per_task, "temperature": temp, "fig2": fig2}


_SIZE_LABEL = {"S": "Small", "M": "Medium", "L": "Large", "XL": "Extra Large"}
_FIG2_TO_MODEL = {"refusals": "ref", "validity": "val", "duplicates": "dup", "consistency": "cons",
                  "factuality": "f_auth", "diversity_gender": "div_g", "parity_gender": "par_g"}


@lru_cache(maxsize=1)
def model_targets() -> pd.DataFrame:
    """Per-model targets at the calibrated temperature, one row per panel model.

    Columns: the 16 metric means of the per-model baseline table, ``T_star`` (the model's
    calibrated or paper temperature) and ``source`` (which rule produced the row).
    """
    pub = published()
    per_model, temp, fig2 = pub["per_model"], pub["temperature"], pub["fig2"]
    overall = per_model[list(_MODEL_METRICS)].mean()
    rows = {}
    for mid, prof in all_profiles().items():
        key = prof.key
        if key in per_model.index:
            row = per_model.loc[key, list(_MODEL_METRICS)].astype(float)
            source = "published per-model baseline"
        elif prof.grounded and key.replace("-grounded", "") in per_model.index:
            base_key = key.replace("-grounded", "")
            row = per_model.loc[base_key, list(_MODEL_METRICS)].astype(float).copy()
            row["val"] = temp.loc[key, "f_valid"]
            ratio = temp.loc[key, "mean"] / temp.loc[base_key, "mean"]
            row["f_auth"] = float(np.clip(row["f_auth"] * ratio, LO, HI))
            row["cons"] = float(sigmoid(logit(row["cons"]) + PRIORS["rag_consistency_logit"]))
            row["ref"] = float(sigmoid(logit(row["ref"]) + PRIORS["rag_refusal_logit"]))
            source = "base model + temperature calibration (f_valid, factuality ratio) + RAG priors"
        else:
            row = overall.copy()
            kinds = [("Access", "Open" if prof.access == "open" else "Proprietary"),
                     ("Size", _SIZE_LABEL.get(prof.size_class, "Medium")),
                     ("Reasoning", "Enabled" if prof.reasoning else "Disabled")]
            sub = fig2.loc[[k for k in kinds if k in fig2.index]]
            for fcol, mcol in _FIG2_TO_MODEL.items():
                row[mcol] = float(sub[fcol].mean())
            source = "mean of Figure 2 group rows (access, size, reasoning); other metrics: mean over models"
        row = row.copy()
        row["T_star"] = prof.temperature
        row["source"] = source
        rows[mid] = row
    out = pd.DataFrame(rows).T
    out.index.name = "model"
    return out


@lru_cache(maxsize=1)
def task_offsets() -> pd.DataFrame:
    """Centred logit offsets per task parameter for ref, val, dup, cons, f_auth, plus the
    published task factuality ``f_task`` (field/epoch/seniority params only)."""
    per_task = published()["per_task"].loc[list(BASELINE_PARAMS)]
    off = pd.DataFrame(index=per_task.index)
    for m in _BASE_METRICS:
        lg = logit(per_task[m].astype(float))
        off[m] = lg - lg.mean()
    off["f_task"] = per_task["f_task"]
    return off


def solve_shift(target, offsets: np.ndarray):
    """c with mean_p σ(c + offset_p) = target, by bisection; vectorised over an array of targets
    (each clipped to [LO, HI])."""
    t = np.clip(np.atleast_1d(np.asarray(target, dtype=float)), LO, HI)
    lo, hi = np.full(t.shape, -20.0), np.full(t.shape, 20.0)
    off = np.asarray(offsets, dtype=float)[None, :]
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        below = sigmoid(mid[:, None] + off).mean(axis=1) < t
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    c = 0.5 * (lo + hi)
    return float(c[0]) if np.ndim(target) == 0 else c


@lru_cache(maxsize=1)
def _task_fact_offsets() -> dict[str, float]:
    """Centred logit offset of each field/epoch/seniority param's published task factuality
    within its family (early-career .15 vs senior .80, PER .48 vs CM&MP .59, ...)."""
    per_task = published()["per_task"]
    out = {}
    for family in ("field", "epoch", "seniority"):
        params = [p for p, f in BASELINE_PARAMS.items() if f == family]
        lg = logit(per_task.loc[params, "f_task"].to_numpy(float))
        out.update({p: float(v) for p, v in zip(params, lg - lg.mean())})
    return out


def _task_factuality_target(model_row: dict, param: str, family: str) -> float:
    """Task accuracy (share of real names that satisfy the task's restriction).

    field/epoch drop unmatched names (reference §2.8), so the measured value is the accuracy
    itself; seniority counts unmatched names as 0, so accuracy = f_sen / f_auth. The per-param
    pattern enters as the centred logit offset of :func:`_task_fact_offsets`.
    """
    col = {"field": "f_field", "epoch": "f_epoch", "seniority": "f_sen"}[family]
    base = float(model_row[col])
    if family == "seniority":
        base = base / max(float(model_row["f_auth"]), LO)
    return float(sigmoid(logit(base) + _task_fact_offsets()[param]))


@lru_cache(maxsize=1)
def lsb_calibration_table() -> pd.DataFrame:
    """The transparent calibration table: one row per (model, task parameter).

    Columns: model, param, family, ref, val, dup, cons, f_auth (targets at the model's
    calibrated temperature), task_acc (NaN for top_k / twins / biased), T_star, source.
    """
    targets = model_targets()
    off = task_offsets()
    offd = {m: off[m].to_dict() for m in _BASE_METRICS}
    shifts = {m: solve_shift(targets[m].to_numpy(float), off[m].to_numpy(float)) for m in _BASE_METRICS}
    records = []
    for k, (mid, mrow) in enumerate(zip(targets.index, targets.to_dict(orient="records"))):
        for param in ALL_PARAMS:
            family = BASELINE_PARAMS.get(param, "biased_top_k")
            src_param = param if param in BASELINE_PARAMS else "top_100"
            rec = {"model": mid, "param": param, "family": family, "T_star": float(mrow["T_star"]),
                   "source": mrow["source"]}
            for m in _BASE_METRICS:
                rec[m] = float(sigmoid(shifts[m][k] + offd[m][src_param]))
            if family == "biased_top_k":
                rec["ref"] = float(sigmoid(logit(rec["ref"]) + PRIORS["cp_refusal_logit"]))
                rec["val"] = float(sigmoid(logit(rec["val"]) + PRIORS["cp_validity_logit"]))
                shift = PRIORS["cp_factuality_logit"] + (
                    PRIORS["cp_rare_group_factuality_logit"] if param in RARE_GROUP_PARAMS else 0.0)
                rec["f_auth"] = float(sigmoid(logit(rec["f_auth"]) + shift))
            rec["task_acc"] = (_task_factuality_target(mrow, param, family)
                               if family in ("field", "epoch", "seniority") else float("nan"))
            records.append(rec)
    return pd.DataFrame.from_records(records)


def lsb_models_with_published_rows() -> list[str]:
    """Ids of the panel models whose LLMScholarBench row is published (22 non-grounded)."""
    per_model = published()["per_model"]
    return [mid for mid, p in all_profiles().items() if LSB in p.papers and p.key in per_model.index]
