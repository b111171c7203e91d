"""The 1:N flip pilot analysis: logistic regression, VIF, McFadden R², dominance analysis and weight fusion.

Paper §4.3 Eq. 3 and Appendix A.7 (Table 1 = ab-tab1, Table 16 = ab-tab16), Appendix D
(Table 20 = ab-tab20); reference ``analyse_1n_results.py`` (spec A.7) and
``extension_author_score`` (spec A.9).

Input: a pilot table with one row per parsed pilot run: ``y`` (1 if the fixed paper was
recommended) and the raw components the fixed card wore (``max_h, median_h, citations, venue,
affiliation``); :func:`pilot_rows` builds it from the pilot requests and the models' choices.

Faithful vs corrected, per the reference's quirks (spec A.7 ⚠):

* fitting: ``method="gd"`` (faithful, the default in every profile) is the reference's batch
  gradient descent (zero start, step 0.01, at most 5,000 iterations, stopping after the step whose
  gradient has max|grad| < 1e-6; McFadden R² from the unrounded weights, coefficients reported to
  6 dp), which is usually not converged; ``method="mle"`` (corrected) is the exact
  maximum-likelihood fit (statsmodels), the optimum the descent approaches;
* dominance: ``averaging="subsets"`` is the reference's simple mean of a predictor's
  contribution over all subsets without it (every subset weighs the same);
  ``averaging="general"`` is Budescu's general dominance (mean within each subset size, then
  across sizes), whose values sum to the full model's McFadden R².
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.special import expit

from lib.authority.prompts import PILOT_COMPONENTS
from lib.authority.scoring import author_score

#: Predictors of Eq. 3, in the reference's column order.
PILOT_PREDICTORS: tuple[str, ...] = PILOT_COMPONENTS
FitMethod = Literal["gd", "mle"]
Averaging = Literal["subsets", "general"]


def pilot_rows(requests: pd.DataFrame, choices: pd.DataFrame, *, choice_col: str = "choice") -> pd.DataFrame:
    """Join pilot requests with the models' choices into regression rows (spec A.6–A.7).

    ``choices`` needs ``request_id``, ``model`` and ``choice`` (1-based position or missing).
    Returns one row per parsed run with the request identity, ``model``, the wearing components
    and ``y`` = 1 if the choice is the fixed position. Unparsed runs (missing choice) are
    dropped, as the reference keeps only ``parse_success`` rows.
    """
    for col in ("request_id", "model", choice_col):
        if col not in choices.columns:
            raise ValueError(f"pilot choices table lacks column {col!r}; expected request_id, model, {choice_col}")
    keep = ["request_id", "topic", "query_id", "fixed_pos", "source_pos", "is_baseline", "fixed_paper_id",
            "source_paper_id", *PILOT_PREDICTORS]
    missing = [c for c in keep if c not in requests.columns]
    if missing:
        raise ValueError(f"pilot requests table lacks columns {missing} (build it with build_pilot_requests)")
    df = choices[["request_id", "model", choice_col]].merge(requests[keep], on="request_id", how="inner")
    df = df[df[choice_col].notna()].copy()
    df["y"] = (df[choice_col].astype(int) == df["fixed_pos"].astype(int)).astype(int)
    return df.reset_index(drop=True)


def zscore(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column z-scores with the population std (ddof=0); a zero std is replaced by 1 (spec A.7 step 2)."""
    X = np.asarray(X, dtype=float)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd == 0, 1.0, sd)
    return (X - mu) / sd, mu, sd


def _sigmoid(z: np.ndarray) -> np.ndarray:
    # σ(clip(z, −500, 500)) as the reference; expit is overflow-safe and equal inside the clip range
    return expit(np.clip(z, -500, 500))


def loglik(y: np.ndarray, p: np.ndarray) -> float:
    """Bernoulli log-likelihood with probabilities clipped to [1e-10, 1 − 1e-10] (spec A.7 step 4)."""
    p = np.clip(p, 1e-10, 1 - 1e-10)
    return float(np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))


def mcfadden_r2(y: np.ndarray, p: np.ndarray) -> float:
    """McFadden's pseudo-R² = 1 − LL_model / LL_null (McFadden 1974; paper A.7).

    LL_null is the intercept-only log-likelihood at the base rate ȳ, shared by every sub-model.
    0 means the predictors add nothing over the base rate; the paper reports 0.033 for its pilot.
    Edge case: ȳ ∈ {0, 1} makes LL_null 0 and the ratio undefined (returns nan).
    """
    y = np.asarray(y, dtype=float)
    ybar = y.mean()
    if ybar <= 0 or ybar >= 1:
        return float("nan")
    ll0 = loglik(y, np.full_like(y, ybar))
    return 1.0 - loglik(y, p) / ll0


@dataclass(frozen=True)
class LogitFit:
    """A fitted logistic regression on z-scored predictors."""

    predictors: tuple[str, ...]
    coef: dict[str, float]
    intercept: float
    mcfadden_r2: float
    n: int
    positive_rate: float
    converged: bool
    method: str


def fit_logit(X: np.ndarray, y: np.ndarray, predictors: Sequence[str], *, method: FitMethod = "gd",
              standardize: bool = True) -> LogitFit:
    """Logistic regression P(rec = 1) = σ(β0 + Σ β_k z_k) on z-scored predictors (paper Eq. 3).

    Standardisation (ddof = 0) makes |β_k| comparable across signals. ``method="gd"``: the
    reference's gradient descent (spec A.7 step 3); ``method="mle"``: statsmodels Logit, exact
    MLE. ``converged`` is False when GD hits its iteration cap or the MLE reports no convergence.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"fit_logit: X has shape {X.shape} but y has {y.shape[0]} rows")
    if y.size == 0 or y.min() == y.max():
        raise ValueError(f"fit_logit: y must contain both 0 and 1 (n={y.size}, positives={int(y.sum())})")
    Z = zscore(X)[0] if standardize else X
    if method == "gd":
        A = np.hstack([Z, np.ones((Z.shape[0], 1))])
        At = np.ascontiguousarray(A.T) / len(y)  # contiguous transpose: the loop's cost is two mat-vecs
        w = np.zeros(A.shape[1])
        converged = False
        for _ in range(5000):
            r = A @ w                  # in place: the same arithmetic as σ(clip(Aw)) − y, a third faster
            r.clip(-500, 500, out=r)
            expit(r, out=r)
            r -= y
            grad = At @ r
            w -= 0.01 * grad           # the reference steps first, then tests the gradient it stepped with
            if np.abs(grad).max() < 1e-6:
                converged = True
                break
        p = _sigmoid(A @ w)            # R² from the unrounded weights, the coefficients reported to 6 dp
        w = np.round(w, 6)
        coef, b0 = w[:-1], float(w[-1])
    elif method == "mle":
        # a predictor that takes one value (e.g. every candidate of a small pilot at an elite
        # affiliation) carries no information and makes the information matrix singular: it is
        # left out and gets β = 0, where gradient descent on its zero z-scores leaves it too
        vary = np.ptp(Z, axis=0) > 0
        A = sm.add_constant(Z[:, vary], has_constant="add")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sm.Logit(y, A).fit(disp=0, maxiter=200)
        coef = np.zeros(Z.shape[1])
        coef[vary] = np.asarray(res.params[1:])
        b0 = float(res.params[0])
        converged = bool(res.mle_retvals.get("converged", True))
        p = res.predict(A)
    else:
        raise ValueError(f"fit method must be 'gd' or 'mle', got {method!r}")
    return LogitFit(tuple(predictors), {k: float(c) for k, c in zip(predictors, coef)}, b0, mcfadden_r2(y, p),
                    int(len(y)), float(y.mean()), converged, method)


def vif(X: np.ndarray, predictors: Sequence[str]) -> dict[str, float]:
    """Variance inflation factors of the z-scored predictors (spec A.7 step 5; paper A.7).

    VIF_k = 1 / max(1 − R²_k, 1e-10), R²_k from an OLS of predictor k on the others plus an
    intercept. 1 means no collinearity; the paper flags values above 5 (O'Brien 2007).
    """
    Z = zscore(np.asarray(X, dtype=float))[0]
    out = {}
    for k, name in enumerate(predictors):
        others = np.delete(Z, k, axis=1)
        A = np.hstack([others, np.ones((Z.shape[0], 1))])
        beta, *_ = np.linalg.lstsq(A, Z[:, k], rcond=None)
        resid = Z[:, k] - A @ beta
        tss = np.sum((Z[:, k] - Z[:, k].mean()) ** 2)
        r2 = 1 - np.sum(resid ** 2) / tss if tss > 0 else 0.0
        out[name] = float(1.0 / max(1.0 - r2, 1e-10))
    return out


@dataclass(frozen=True)
class Dominance:
    """Dominance analysis on McFadden R² over all subsets of predictors."""

    dominance: dict[str, float]          # the averaged contribution per predictor (mode below)
    conditional: pd.DataFrame            # predictor × subset size: mean contribution at that size
    complete: pd.DataFrame               # row completely dominates column (True/False)
    subset_r2: dict[frozenset, float]    # R² of every subset (the empty set is 0)
    full_r2: float
    averaging: str


def dominance_analysis(X: np.ndarray, y: np.ndarray, predictors: Sequence[str], *, method: FitMethod = "gd",
                       averaging: Averaging = "subsets", subset_r2: Mapping[frozenset, float] | None = None) -> Dominance:
    """Dominance analysis of McFadden R² (Budescu 1993; Azen & Budescu 2003; paper §4.3, A.7).

    Every non-empty subset S of the k predictors is fitted once (2^k − 1 fits; 31 for the
    five authority dimensions), with R²(∅) = 0. The contribution of predictor j to S (j ∉ S)
    is R²(S ∪ {j}) − R²(S).

    * ``averaging="subsets"`` (faithful, spec A.7 step 6 ⚠): D_j is the simple mean of j's
      2^(k−1) contributions, so the many middle-size subsets weigh more.
    * ``averaging="general"`` (corrected): general dominance, the mean over subset sizes of the
      conditional dominance (the mean contribution at each size); Σ_j D_j = R²(full model).

    Conditional dominance (per size) and complete dominance (j beats i in every subset
    without both) are returned in both modes. z-scoring is done per fit on the subset's columns.
    ``subset_r2`` (e.g. another Dominance's ``subset_r2`` of the same data and method) skips the fits.
    """
    if averaging not in ("subsets", "general"):
        raise ValueError(f"averaging must be 'subsets' or 'general', got {averaging!r}")
    X = np.asarray(X, dtype=float)
    names = list(predictors)
    k = len(names)
    r2: dict[frozenset, float] = {frozenset(): 0.0}
    subsets = [S for size in range(1, k + 1) for S in itertools.combinations(range(k), size)]
    if subset_r2 is not None:
        missing = [S for S in subsets if frozenset(names[i] for i in S) not in subset_r2]
        if missing:
            raise ValueError(f"dominance_analysis: subset_r2 lacks the subsets {missing[:3]} of {names}")
        r2.update({frozenset(names[i] for i in S): float(subset_r2[frozenset(names[i] for i in S)]) for S in subsets})
    else:
        for S in subsets:
            r2[frozenset(names[i] for i in S)] = fit_logit(X[:, list(S)], y, [names[i] for i in S], method=method).mcfadden_r2
    contrib: dict[str, dict[int, list[float]]] = {n: {s: [] for s in range(k)} for n in names}
    for S, v in r2.items():
        if len(S) == k:
            continue
        for j in names:
            if j not in S:
                contrib[j][len(S)].append(r2[S | {j}] - v)
    cond = pd.DataFrame({j: {s: float(np.mean(c)) for s, c in contrib[j].items()} for j in names}).T
    cond.columns = [f"size_{s}" for s in cond.columns]
    if averaging == "subsets":   # the reference reports each D_j rounded to 6 dp, and fuses the rounded values
        dom = {j: round(float(np.mean([x for c in contrib[j].values() for x in c])), 6) for j in names}
    else:
        dom = {j: float(cond.loc[j].mean()) for j in names}
    comp = pd.DataFrame(False, index=names, columns=names)
    for a, b in itertools.permutations(names, 2):
        rest = [n for n in names if n not in (a, b)]
        comp.loc[a, b] = all(r2[frozenset(T) | {a}] >= r2[frozenset(T) | {b}]
                             for size in range(len(rest) + 1) for T in itertools.combinations(rest, size))
    return Dominance(dom, cond, comp, r2, r2[frozenset(names)], averaging)


def fuse_weights(coef: Mapping[str, float], dominance: Mapping[str, float], *, rounding: bool = True) -> dict[str, float]:
    """Fused authority weights (paper §4.3, A.7: Table 1; spec A.7 step 7).

    w_coef_k = |β_k| / Σ|β|, w_dom_k = |D_k| / Σ|D| (uniform if a sum is 0); avg_k =
    (w_coef_k + w_dom_k) / 2; final_k = avg_k / Σ avg. Faithfully each step is rounded to 4 dp
    as the reference does (``rounding=False`` keeps full precision). The weights sum to 1 up to
    rounding and order the dimensions by their combined importance.
    """
    keys = list(coef)
    if set(keys) != set(dominance):
        raise ValueError(f"fuse_weights: coefficient keys {sorted(coef)} differ from dominance keys {sorted(dominance)}")
    r = (lambda v: round(v, 4)) if rounding else (lambda v: v)

    def shares(d: Mapping[str, float]) -> dict[str, float]:
        tot = sum(abs(d[k]) for k in keys)
        return {k: r(abs(d[k]) / tot) if tot > 0 else r(1 / len(keys)) for k in keys}

    wc, wd = shares(coef), shares(dominance)
    avg = {k: r((wc[k] + wd[k]) / 2) for k in keys}
    tot = sum(avg.values())
    return {k: r(avg[k] / tot) for k in keys}


@dataclass(frozen=True)
class PilotResult:
    """Everything Table 16 (ab-tab16) and Table 1 (ab-tab1) report, for one fit method."""

    fit: LogitFit
    vif: dict[str, float]
    dominance: Dominance
    weights: dict[str, float]
    descriptives: dict[str, float]

    def table16(self) -> pd.DataFrame:
        """ab-tab16: per predictor β_std, VIF, dominance R² contribution, coefficient and dominance shares, fused weight."""
        names = list(self.fit.predictors)
        tc = sum(abs(self.fit.coef[k]) for k in names)
        td = sum(abs(self.dominance.dominance[k]) for k in names)
        return pd.DataFrame({
            "predictor": names,
            "beta_std": [self.fit.coef[k] for k in names],
            "vif": [self.vif[k] for k in names],
            "dominance_r2": [self.dominance.dominance[k] for k in names],
            "coef_share": [abs(self.fit.coef[k]) / tc if tc else np.nan for k in names],
            "dominance_share": [abs(self.dominance.dominance[k]) / td if td else np.nan for k in names],
            "fused_weight": [self.weights[k] for k in names],
        }).assign(mcfadden_r2=self.fit.mcfadden_r2, n=self.fit.n, method=self.fit.method)

    def table1(self) -> pd.DataFrame:
        """ab-tab1: the fused weights, largest first (the authority score's w_d of Eq. 1)."""
        w = pd.Series(self.weights).sort_values(ascending=False)
        return pd.DataFrame({"dimension": w.index, "weight": w.values, "rank": range(1, len(w) + 1)})


def analyse_pilot(rows: pd.DataFrame, *, predictors: Sequence[str] = PILOT_PREDICTORS, method: FitMethod = "gd",
                  averaging: Averaging = "subsets") -> PilotResult:
    """Run the pilot analysis of spec A.7 on a table from :func:`pilot_rows`: fit, VIF, dominance, fusion, descriptives.

    Faithful defaults (``method="gd"``, ``averaging="subsets"``); the corrected analysis is
    ``method="mle", averaging="general"``. Rows with a missing predictor are skipped.
    """
    missing = [c for c in [*predictors, "y"] if c not in rows.columns]
    if missing:
        raise ValueError(f"pilot rows lack columns {missing}; build them with pilot_rows()")
    df = rows.dropna(subset=list(predictors))
    X, y = df[list(predictors)].to_numpy(float), df["y"].to_numpy(float)
    fit = fit_logit(X, y, predictors, method=method)
    dom = dominance_analysis(X, y, predictors, method=method, averaging=averaging)
    desc = {"runs": len(df), "positives": int(y.sum()), "positive_rate": float(y.mean()), "random_chance": 0.1}
    if "is_baseline" in df.columns:
        b = df["is_baseline"].astype(bool)
        desc.update(baseline_runs=int(b.sum()), swap_runs=int((~b).sum()),
                    baseline_rec_rate=float(df.loc[b, "y"].mean()) if b.any() else np.nan,
                    swap_rec_rate=float(df.loc[~b, "y"].mean()) if (~b).any() else np.nan)
    return PilotResult(fit, vif(X, predictors), dom, fuse_weights(fit.coef, dom.dominance), desc)


def weight_rank_stability(rows: pd.DataFrame, *, by: str = "model", predictors: Sequence[str] = PILOT_PREDICTORS,
                          method: FitMethod = "mle") -> pd.DataFrame:
    """Refit per group (e.g. per pilot model) and report each group's rank order of |β| (paper A.7: "stable across
    single-model subsets"). One row per group: ``group, n``, then the rank of each predictor (1 = largest |β|)."""
    out = []
    for g, d in rows.groupby(by):
        fit = fit_logit(d[list(predictors)].to_numpy(float), d["y"].to_numpy(float), predictors, method=method)
        ranks = pd.Series({k: abs(v) for k, v in fit.coef.items()}).rank(ascending=False, method="min").astype(int)
        out.append({by: g, "n": fit.n, **{f"rank_{k}": int(ranks[k]) for k in predictors}})
    return pd.DataFrame(out)


def author_score_ablation(rows: pd.DataFrame, *, method: FitMethod = "gd", averaging: Averaging = "subsets") -> pd.DataFrame:
    """ab-tab20: the 6-predictor pilot regression with ``author_score`` (paper Appendix D; spec A.9).

    ``author_score`` is the tier of the worn max h-index (:func:`lib.authority.scoring.author_score`).
    Both fits run on the same rows. Returns one row per predictor with β, VIF and dominance for
    the 5- and 6-predictor fits, and the fit-level McFadden R², ΔR² and the reference's verdict
    (KEEP_5_COMPONENT / ADD_AS_ABLATION / RERUN_REQUIRED) as columns.
    """
    df = rows.dropna(subset=list(PILOT_PREDICTORS)).copy()
    df["author_score"] = df["max_h"].map(author_score)
    five = analyse_pilot(df, predictors=PILOT_PREDICTORS, method=method, averaging=averaging)
    six_p = (*PILOT_PREDICTORS, "author_score")
    six = analyse_pilot(df, predictors=six_p, method=method, averaging=averaging)
    t = pd.DataFrame({"predictor": list(six_p)})
    t["beta_5"] = t["predictor"].map(five.fit.coef)
    t["beta_6"] = t["predictor"].map(six.fit.coef)
    t["vif_5"] = t["predictor"].map(five.vif)
    t["vif_6"] = t["predictor"].map(six.vif)
    t["dominance_5"] = t["predictor"].map(five.dominance.dominance)
    t["dominance_6"] = t["predictor"].map(six.dominance.dominance)
    d_r2 = six.fit.mcfadden_r2 - five.fit.mcfadden_r2
    b_auth = abs(six.fit.coef["author_score"])
    median_other = float(np.median([abs(six.fit.coef[k]) for k in PILOT_PREDICTORS]))
    if six.vif["author_score"] >= 5 or six.vif["max_h"] >= 5:
        verdict = "KEEP_5_COMPONENT" if d_r2 < 0.002 else "ADD_AS_ABLATION"
    elif d_r2 >= 0.01 and b_auth >= median_other:
        verdict = "RERUN_REQUIRED"
    elif d_r2 >= 0.002 or b_auth > 0.001:
        verdict = "ADD_AS_ABLATION"
    else:
        verdict = "KEEP_5_COMPONENT"
    return t.assign(mcfadden_r2_5=five.fit.mcfadden_r2, mcfadden_r2_6=six.fit.mcfadden_r2, delta_r2=d_r2, verdict=verdict)
