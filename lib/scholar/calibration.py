"""Temperature calibration: per-request factuality, the selection rule, Fig. A.2 and Table A.1.

LLMScholarBench §3.2 ("Initial calibration") and Appendix A.3: every model answers every task
prompt at T ∈ {0, .25, .5, .75, 1, 1.5, 2}, three independent runs per prompt (one for Gemini),
and one temperature per model is kept, "maximising mean factual accuracy while maintaining high
response validity". The rule is the release's (reference §2.12,
``Auditor/notebooks/benchmark_interventions/2_temperature.ipynb``):

1. per request (model, T, task, param, run) the *representative attempt* is the valid attempt
   with the lowest number, else the last attempt; f_valid(m, T) = share of requests whose
   representative attempt is labelled valid or verbose;
2. per request, factuality = share of the recommended names that exist in the ground truth;
   mean and sd across requests per (m, T, task family); then the means and the sds are each
   averaged over the five experiment families (top_k, field, epoch, seniority, twins);
   f_score = mean / sd (sd 0 → 1e-100);
3. score = f_score × f_valid; the highest score wins, ties go to the lower temperature.

All functions take tables (one chunk of rows in, a table out). Inputs: the labelled attempts of
:func:`lib.scholar.labels.label_attempts` and the name rows of :func:`lib.scholar.labels.name_rows` with
a boolean ``matched`` column (:func:`lib.scholar.matching.match_names`).
"""
from __future__ import annotations

from typing import Literal, Sequence

import numpy as np
import pandas as pd

from lib import artifacts

Mode = Literal["faithful", "corrected"]
REQUEST_KEYS = ("experiment", "model", "task", "param", "temperature", "replicate")
#: the Auditor's experiment tasks (reference §1.3); biased_top_k is the constrained-prompt intervention
EXPERIMENT_TASKS = ("top_k", "field", "epoch", "seniority", "twins")
#: labels counted as valid (reference §2.1 ``EXPERIMENT_OUTPUT_VALID_FLAGS``)
VALID_LABELS = ("valid", "verbose")
#: what Fig. A.2's caption calls "consistency": valid, verbose and skipped-item responses
CAPTION_VALID_LABELS = ("valid", "verbose", "skipped-item")
STD_FLOOR = 1e-100
TEMPERATURE_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)


def _check_mode(mode: str) -> None:
    if mode not in ("faithful", "corrected"):
        raise ValueError(f"calibration: mode must be 'faithful' or 'corrected', got {mode!r}")


def _need(df: pd.DataFrame, cols: Sequence[str], what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise KeyError(f"{what}: missing columns {missing}; expected at least {list(cols)}")


def representative_attempts(labelled: pd.DataFrame, *, label_col: str = "label") -> pd.DataFrame:
    """One row per request: its chosen attempt (``valid_attempt``), else its last attempt.

    Reference §2.12 step 1 ("the valid attempt with the lowest number, else the last attempt");
    the valid attempt is the one :func:`lib.scholar.labels.set_attempt_validity` marked (lowest
    ``valid``, else lowest ``verbose``). ``label_col`` names the label reported for that attempt.
    """
    _need(labelled, [*REQUEST_KEYS, "attempt", "valid_attempt", label_col], "labelled attempts")
    keys = list(REQUEST_KEYS)
    order = labelled.assign(_v=labelled["valid_attempt"].astype(bool)).sort_values(
        ["_v", "attempt"], ascending=[False, False], kind="stable")
    # valid attempts first (there is at most one), then the highest attempt number
    rep = order.groupby(keys, sort=False, dropna=False).head(1).drop(columns="_v")
    return rep.sort_values(keys, kind="stable").reset_index(drop=True)


def request_factuality(names: pd.DataFrame, *, mode: Mode = "faithful") -> pd.DataFrame:
    """Per request: the share of recommended names that exist in the ground truth.

    Definition (reference §2.12 step 2, ``get_factuality_authors_either_OA_APS``): for request
    i with recommended names U_i (the chosen attempt's name rows) and matched names Û_i,
    fact_i = |Û_i| / |U_i|. Interpretation: 1 = every name is a real scholar of D.

    - ``mode="faithful"`` [!] reproduces the release: the intended de-duplication is overwritten,
      so a repeated name counts each time, and a request none of whose names matches drops out
      (its share is missing, not 0), which raises the mean and lowers the sd.
    - ``mode="corrected"``: names de-duplicated (paper eq. (5), :func:`lib.scholar.metrics.factuality`)
      and zero shares kept.

    ``names`` needs the request keys, ``name`` and a boolean ``matched``. Requests without name
    rows (no valid attempt) have no factuality. Returns request keys + ``n_names``, ``n_matched``,
    ``factuality``.
    """
    _check_mode(mode)
    _need(names, [*REQUEST_KEYS, "name", "matched"], "name rows")
    keys = list(REQUEST_KEYS)
    rows = names[names["name"].notna()]
    if mode == "faithful":
        g = rows.groupby(keys, sort=True, dropna=False)["matched"]
        out = pd.DataFrame({"n_names": g.size(), "n_matched": g.sum().astype(int)}).reset_index()
        out["factuality"] = out["n_matched"] / out["n_names"]
        out = out[out["n_matched"] > 0]
    else:   # paper eq. (5): distinct names, as lib.scholar.metrics.factuality (first row of a name kept)
        uniq = rows.drop_duplicates([*keys, "name"], keep="first")
        g = uniq.groupby(keys, sort=True, dropna=False)["matched"]
        out = pd.DataFrame({"n_names": g.size(), "n_matched": g.sum().astype(int)}).reset_index()
        out["factuality"] = out["n_matched"] / out["n_names"]
    return out.reset_index(drop=True)


def label_view(labelled: pd.DataFrame, names: pd.DataFrame, label_mode: str) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """What the rule reads under ``label_mode``: (attempts, name rows, label column). ``faithful``: the
    reference's labels, its chosen attempt and name rows; ``paper``: the paper's seven labels, the
    attempt they choose (``valid_attempt_paper``) and the name rows of the paper's matching rule."""
    if label_mode == "faithful":
        return labelled, names[names["mode"] == "faithful"], "label"
    if label_mode == "paper":
        return (labelled.assign(valid_attempt=labelled["valid_attempt_paper"]), names[names["mode"] == "paper"],
                "label_paper")
    raise ValueError(f"01_calibration: parameter label_mode must be 'faithful' or 'paper', got {label_mode!r}")


def temperature_scores(labelled: pd.DataFrame, names: pd.DataFrame, *, label_col: str = "label",
                       valid_labels: Sequence[str] = VALID_LABELS, tasks: Sequence[str] = EXPERIMENT_TASKS,
                       mode: Mode = "faithful") -> pd.DataFrame:
    """The §2.12 score per (model, temperature).

    Columns: model, temperature, n_requests, f_valid (share of requests whose representative
    attempt has a label in ``valid_labels``), fact_mean and fact_std (per-family mean and sd of
    :func:`request_factuality` across requests, ddof=1, each averaged over the families that
    have a value), f_score = fact_mean / fact_std (sd 0 → 1e-100, so a perfectly stable
    factuality wins outright, as in the release), score = f_score × f_valid.

    Only the experiment ``tasks`` count (reference §2.12: the 18 params without biased_top_k).
    ``valid_labels=CAPTION_VALID_LABELS`` follows the wording of Fig. A.2's caption (valid,
    verbose and skipped-item), which differs from the code. ``mode`` is passed to
    :func:`request_factuality`. A family with one request has no sd (NaN, skipped in the
    average); a (model, T) without any factual request has NaN scores (it never wins).
    """
    _need(labelled, [*REQUEST_KEYS, "attempt", "valid_attempt", label_col], "labelled attempts")
    lab = labelled[labelled["task"].isin(tasks)]
    rep = representative_attempts(lab, label_col=label_col)
    rep["is_valid"] = rep[label_col].isin(valid_labels)
    val = rep.groupby(["model", "temperature"]).agg(n_requests=("is_valid", "size"), f_valid=("is_valid", "mean"))
    fact = request_factuality(names[names["task"].isin(tasks)], mode=mode)
    per_task = fact.groupby(["model", "temperature", "task"])["factuality"].agg(["mean", "std"])
    per_mt = per_task.groupby(["model", "temperature"]).agg(fact_mean=("mean", "mean"), fact_std=("std", "mean"))
    out = val.join(per_mt, how="left").reset_index()
    sd = out["fact_std"].where(out["fact_std"] != 0, STD_FLOOR)
    out["f_score"] = out["fact_mean"] / sd
    out["score"] = out["f_score"] * out["f_valid"]
    return out.sort_values(["model", "temperature"], kind="stable").reset_index(drop=True)


def select_temperatures(scores: pd.DataFrame) -> pd.DataFrame:
    """The selected temperature per model: highest ``score``; ties → the lower temperature.

    Reference §2.12 step 3 (sort by model, score descending, temperature ascending; first row).
    A NaN score ranks below every number; a model with no score at all gets its lowest
    temperature, flagged ``scored=False``. Returns model, temperature, score, f_valid,
    fact_mean, fact_std, scored.
    """
    _need(scores, ["model", "temperature", "score"], "temperature scores")
    s = scores.assign(_na=scores["score"].isna())
    s = s.sort_values(["model", "_na", "score", "temperature"], ascending=[True, True, False, True],
                      kind="stable")
    best = s.groupby("model", sort=False).head(1).copy()
    best["scored"] = ~best["_na"]
    cols = [c for c in ("model", "temperature", "score", "f_valid", "fact_mean", "fact_std", "scored") if c in best]
    return best[cols].sort_values("model", kind="stable").reset_index(drop=True)


def label_shares(labelled: pd.DataFrame, *, label_col: str = "label",
                 tasks: Sequence[str] = EXPERIMENT_TASKS) -> pd.DataFrame:
    """Share of requests per response label of their representative attempt, per (model, T).

    The bars of Fig. A.2 (they sum to 1 per model and temperature). Wide table: model,
    temperature, one column per label present.
    """
    rep = representative_attempts(labelled[labelled["task"].isin(tasks)], label_col=label_col)
    tab = pd.crosstab([rep["model"], rep["temperature"]], rep[label_col], normalize="index")
    return tab.reset_index().rename_axis(columns=None)


#: stacking order and colours of Fig. A.2 (valid at the bottom; failures on top)
LABEL_ORDER = ("valid", "verbose", "skipped-item", "truncated-dict", "fixed", "skipped", "empty", "refused",
               "provider_error", "rate_limit", "server_error", "API error", "invalid")
LABEL_COLORS = {"valid": "#2ca02c", "verbose": "#98df8a", "skipped-item": "#bcbd22", "truncated-dict": "#dbdb8d",
                "fixed": "#17becf", "skipped": "#bcbd22", "empty": "#7f7f7f", "refused": "#9467bd",
                "provider_error": "#ff7f0e", "rate_limit": "#ffbb78", "server_error": "#d62728",
                "API error": "#ff7f0e", "invalid": "#c49c94"}


def model_notes(selected: pd.DataFrame, partial: dict[str, float] | None = None) -> dict[str, str]:
    """model -> why its numbers are not like the others': 'not scored' (no temperature had a score,
    so no temperature was selected) and/or 'partial: answered N %' (the collection's coverage)."""
    notes: dict[str, list[str]] = {}
    if "scored" in selected:
        for m in selected.loc[~selected["scored"].astype(bool), "model"]:
            notes.setdefault(m, []).append("not scored")
    for m, share in (partial or {}).items():
        notes.setdefault(m, []).append(f"partial: answered {share:.0%}")
    return {m: "; ".join(v) for m, v in notes.items()}


def figure_a2(shares: pd.DataFrame, scores: pd.DataFrame, selected: pd.DataFrame, *, models: Sequence[str],
              synthetic: bool, ncols: int = 6, partial: dict[str, float] | None = None):
    """LLMScholarBench Fig. A.2: per model, stacked response labels across temperatures, the
    factuality mean ± sd (white points, error bars) and the selected temperature outlined in black.

    ``shares`` from :func:`label_shares`, ``scores`` from :func:`temperature_scores`, ``selected``
    from :func:`select_temperatures`; ``models`` fixes the panel order. Temperatures are placed
    as equally spaced categories, as in the paper. A model without a score gets no outline (no
    temperature was selected) and, like a partial one (``partial``: model -> answered share), says so
    in its panel title (:func:`model_notes`).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    temps = sorted(set(shares["temperature"]) | set(scores["temperature"]))
    labels = [c for c in LABEL_ORDER if c in shares.columns] + sorted(
        c for c in shares.columns if c not in LABEL_ORDER and c not in ("model", "temperature"))
    nrows = int(np.ceil(len(models) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols, 2.2 * nrows + 0.9), sharex=True, sharey=True,
                             squeeze=False)
    x = np.arange(len(temps))
    notes = model_notes(selected, partial)
    scored = selected[selected["scored"].astype(bool)] if "scored" in selected else selected
    chosen = dict(zip(scored["model"], scored["temperature"]))
    for ax, m in zip(axes.flat, models):
        sh = shares[shares["model"] == m].set_index("temperature").reindex(temps).fillna(0.0)
        bottom = np.zeros(len(temps))
        for lab in labels:
            v = sh[lab].to_numpy(dtype=float)
            if v.any():
                ax.bar(x, v, bottom=bottom, width=0.8, color=LABEL_COLORS.get(lab, "#cccccc"), linewidth=0)
            bottom += v
        sc = scores[scores["model"] == m].set_index("temperature").reindex(temps)
        ax.errorbar(x, sc["fact_mean"], yerr=sc["fact_std"], fmt="o", color="white", mec="black", mew=0.6,
                    ecolor="black", elinewidth=0.8, capsize=2, ms=4, zorder=5)
        if m in chosen and chosen[m] in temps:
            i = temps.index(chosen[m])
            ax.add_patch(Rectangle((i - 0.4, 0), 0.8, max(bottom[i], 1e-9), fill=False, edgecolor="black",
                                   linewidth=1.8, zorder=6))
        if m in notes:
            ax.set_title(f"{m}\n({notes[m]})", fontsize=8, color="#b00000")
        else:
            ax.set_title(m, fontsize=8)
        ax.set_ylim(0, 1.08)
        ax.set_xticks(x)
        ax.set_xticklabels([f"{t:g}" for t in temps], fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
    for ax in list(axes.flat)[len(models):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("fraction of responses", fontsize=8)
    for ax in axes[-1, :]:
        ax.set_xlabel("temperature", fontsize=8)
    handles = [Patch(color=LABEL_COLORS.get(lab, "#cccccc"), label=lab) for lab in labels]
    handles.append(plt.Line2D([], [], marker="o", color="black", mfc="white", ls="-", label="factuality (mean ± sd)"))
    handles.append(Patch(fill=False, edgecolor="black", linewidth=1.8, label="selected temperature"))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 8), fontsize=8, frameon=False)
    title = "Temperature sensitivity of response validity and factuality"
    fig.suptitle(title + artifacts.TITLE_NOTES.get(artifacts.data_label(synthetic), ""), fontsize=10)
    # fixed margins: tight_layout over 24 axes costs seconds
    fig.subplots_adjust(left=0.05, right=0.99, top=1 - 0.75 / fig.get_figheight(),
                        bottom=0.9 / fig.get_figheight(), wspace=0.08, hspace=0.35)
    return fig


def table_a1(models: pd.DataFrame, selected: pd.DataFrame, partial: dict[str, float] | None = None) -> pd.DataFrame:
    """LLMScholarBench Table A.1: the 24 model configurations with the selected temperature.

    From :func:`lib.scholar.models.load_models` (size class, API, pinned sub-provider, context,
    quantisation, reasoning, RAG, the paper's temperature) plus the temperature this run's
    calibration selected (``selected`` from :func:`select_temperatures`). Parameter counts are
    not in the release's configuration, so they are not listed. A model without a score has no
    selected temperature (empty, not its lowest one); ``Note`` says 'not scored' and, for a model
    that answered too few requests (``partial``: model -> answered share), 'partial' (:func:`model_notes`).
    """
    _need(selected, ["model", "temperature"], "selected temperatures")
    sel = dict(zip(selected["model"], selected["temperature"].where(
        selected["scored"].astype(bool), np.nan) if "scored" in selected else selected["temperature"]))
    notes = model_notes(selected, partial)
    missing = sorted(set(models["key"]) - set(sel))
    if missing:
        raise KeyError(f"selected temperatures: no row for models {missing}")
    size = [f"P ({s})" if a == "proprietary" else str(s) for s, a in zip(models["size_class"], models["access"])]
    ctx = models["context_tokens"].map(
        lambda v: "–" if v != v else (f"{v / 1e6:.2f}M" if v >= 1e6 else f"{v / 1e3:.1f}K"))
    return pd.DataFrame({
        "Model": models["key"].to_numpy(),
        "Size": size,
        "API": models["provider"].map({"openrouter": "OpenRouter", "gemini": "Vertex AI"}).to_numpy(),
        "Sub-provider": models["sub_provider"].map(lambda s: s.split("/")[0] if isinstance(s, str) else "–").to_numpy(),
        "Context": ctx.to_numpy(),
        "Quant.": models["quantization"].fillna("–").to_numpy(),
        "Reason.": models["reasoning"].map({True: "✓", False: "✕"}).to_numpy(),
        "RAG": models["grounded"].map({True: "✓", False: "✕"}).to_numpy(),
        "Temper. (paper)": models["temperature"].to_numpy(),
        "Temper. (selected)": models["key"].map(sel).to_numpy(),
        "Note": models["key"].map(notes).fillna("").to_numpy(),
    })
