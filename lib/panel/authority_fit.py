"""Fitting the authority-bias panel to the paper's published rates (issue 17; panel.md "Calibration").

The published per-model rates (``lib/resources/panel_authority_targets.csv``: Table 7 flip and
boost rates, Table 12 / 21 mild-instruction changes, Table 11 strong-instruction level, Table 19
topic flip rates; each row with the line of ``shared/papers/authority_bias.txt`` it was read
from, or a note starting with "derived" saying how it follows from printed numbers) become
per-model, per-instruction flip and boost targets f_{m,v}, b_{m,v} and a boosted-pick lift L_m
(Appendix G). Given a prompt set (the
main experiment's prompts as text, labelled with query id, condition and instruction; the panel
reads them with its own parser, so nothing of the analysis is imported), the fit solves

* s_{m,v} (susceptibility per instruction) so that the *expected observed* flip rate, the
  mean over queries of 1 − Σ_j P_orig,j · P_flip,j with P the parse-folded choice distribution
  (:func:`lib.panel.authority.observed_from_choice`), equals f_{m,v};
* τ_{m,v} (choice temperature) so that the expected boost rate equals b_{m,v}: boosts are mostly
  sampling noise (lift 1.06×, §5.5), flips mostly authority;
* C_m (credibility ceiling, :func:`lib.panel.authority.credited`) so that the expected
  boosted-pick rate over chance equals L_m, within :data:`CEILING_RANGE` (s and τ re-solved at
  each C); the gpt-4o-mini ablation, without a printed lift, takes its cohort's mean C;
* a factor t_k per topic (dividing the content terms) so that the pooled flip rate of topic k equals its Table 19
  value (topics the text does not print share the remaining mean); for the two topics whose boost
  rate Table 19's caption prints, also a noise factor n_k (multiplying τ, ≤ TOPIC_NOISE_MAX) so
  that their pooled boost rate reaches it (t_k re-solved for the flip rate at each n_k).

Everything is exact enumeration over the prompts (no sampling). The prompts are those the paper
profile sends: its conditions are built from the composite weights its own 1:N pilot derives
(notebook 05's ab-tab1), not from the paper's Table 1 weights, and which papers are boosted or
swapped depends on them (fitted on Table 1's conditions instead, the regenerated boosted-pick lifts
came out 0.1–0.2 above the fitted ones). The fit stores those weights as ``condition_weights``.
They are a fixed point: the reference pilot's prompts are main-experiment prompts to the panel, so
its answers, and the weights, move with the fit (three refits after a corpus change bring them
within 0.005).
``python -m lib.panel.authority_fit PROMPTS.parquet --seed S [--condition-weights JSON]`` refits
and writes ``lib/resources/panel_authority_fit.json`` (PROMPTS: query_id, condition, text, or the
paper run's ``main_requests.parquet``); ``tests/panel/test_calibration.py`` builds the prompt set
with :mod:`lib.authority` from the stored weights and holds the stored fit against the published
values. A change to the pilot's panel or to the corpus moves the derived weights: take the new
ab-tab1 of a paper-profile run and refit.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from tqdm.auto import tqdm

from lib import paths
from lib.panel import authority as au
from lib.panel import prompts

TARGETS_FILE = "panel_authority_targets.csv"
FIT_FILE = "panel_authority_fit.json"
CONDITIONS = ("original", "flipped", "boosted")
#: Lowest choice temperature the fit may use (the 1:N pilot has its own, PILOT_TAU).
TAU_FLOOR = 0.02
#: Range of the credibility ceiling C_m (:func:`lib.panel.authority.credited`): at the low end a
#: model credits little beyond the lower quartile of the boosted papers' own metadata (Σw·a 0.28;
#: a typical mid-tier card shows 0.38), so a boost moves few picks; lower ceilings leave llama
#: 3.1's 63 % flip rate out of reach of the susceptibility bound :data:`S_MAX`. At the high end (above a
#: boosted card's 1.09) a model reads authority linearly.
CEILING_RANGE = (0.3, 1.5)
VARIANTS = ("none", "mild", "strong")
#: Largest topic noise factor (τ multiplier) the fit may use: a boost rate above the topic's flip
#: rate (GANs, 29.8 % vs 28.4 %) is out of the panel's reach, as a swap changes more cards than a
#: boost; near this bound a topic's picks are mostly sampling noise.
TOPIC_NOISE_MAX = 30.0
_INSTRUCTION = {"baseline": "none", "anti_authority": "mild", "content_first": "strong",
                "none": "none", "mild": "mild", "strong": "strong"}


@lru_cache(maxsize=1)
def targets() -> pd.DataFrame:
    """The published (or derived) calibration targets, percent as printed."""
    path = paths.RESOURCES / TARGETS_FILE
    t = pd.read_csv(path, dtype={"printed": str}, keep_default_na=False)
    need = ["name", "quantity", "value", "printed", "line", "note"]
    if list(t.columns) != need:
        raise ValueError(f"{path}: columns {list(t.columns)}, expected {need}")
    bad = t[(t["printed"] == "") & ~t["note"].str.startswith("derived")]
    if len(bad):
        raise ValueError(f"{path}: row {bad.index[0] + 2} has no printed value and no 'derived' note")
    t["value"] = t["value"].astype(float)
    return t


def _t(name: str, quantity: str) -> float | None:
    t = targets()
    v = t[(t["name"] == name) & (t["quantity"] == quantity)]["value"]
    return float(v.iloc[0]) if len(v) else None


def model_flip_targets(models) -> dict[str, dict[str, float]]:
    """Per model: flip rate per instruction variant and boost rate, as fractions.

    With F the overall flip rate (mean over the three variants), δ the mild change and ρ the
    common strong/baseline ratio (from the aggregate 31.4 / 44.3 of Table 11): baseline
    b = (3F − δ)/(2 + ρ), mild b + δ, strong ρ·b. Open models without a printed δ share the
    open cohort's pooled −5.7pp (less mistral's +2.0) in proportion to F. gpt-4o-mini's baseline
    is printed (45.2 %), so its strong rate is 3F − b − (b + δ). The boost rate B_m per
    instruction v is B_m·β_v, β_v the pooled boost rate under v over its mean (21.8 / 22.3 / 21.0 %:
    instructions barely move boosts, §5.7).
    """
    rho = _t("all", "strong_flip_rate") / _t("all", "baseline_flip_rate")
    # the pooled boost rate per instruction relative to its mean (§5.7: barely moved)
    pooled = {v: _t("all", f"{v}_boost_rate") for v in VARIANTS}
    beta = {v: b / float(np.mean(list(pooled.values()))) for v, b in pooled.items()}
    open_ids = [m for m in models if au.cohort(m) == "open"]
    printed_open = {m: _t(m, "mild_delta_pp") for m in open_ids if _t(m, "mild_delta_pp") is not None}
    rest = [m for m in open_ids if m not in printed_open]
    pool = _t("open", "mild_delta_pp") * len(open_ids) - sum(printed_open.values())
    rest_f = sum(_t(m, "flip_rate") for m in rest) or 1.0
    out = {}
    for m in models:
        F, B = _t(m, "flip_rate"), _t(m, "boost_rate")
        if F is None or B is None:
            continue
        d = _t(m, "mild_delta_pp")
        if d is None:
            d = pool * F / rest_f if m in rest else 0.0
        b = _t(m, "baseline_flip_rate")
        if b is not None:
            rates = {"none": b, "mild": b + d, "strong": 3 * F - 2 * b - d}
        else:
            b = (3 * F - d) / (2 + rho)
            rates = {"none": b, "mild": b + d, "strong": rho * b}
        out[m] = {**{v: r / 100 for v, r in rates.items()}, "boost": B / 100,
                  **{f"boost_{v}": B / 100 * beta[v] for v in VARIANTS}}
    return out


def boost_pick_lift_targets(models) -> dict[str, float]:
    """Per model: how much more often than chance the boosted paper is picked (Appendix G)."""
    return {m: v for m in models if (v := _t(m, "boost_pick_lift")) is not None}


def topic_boost_targets(topics) -> dict[str, float]:
    """The topics whose boost rate Table 19's caption prints (Explainable AI, GANs), as fractions."""
    return {k: v / 100 for k in topics if (v := _t(k, "topic_boost_rate")) is not None}


def topic_targets(topics) -> dict[str, float]:
    other = _t("other topics", "topic_flip_rate")
    return {k: (_t(k, "topic_flip_rate") or other) / 100 for k in topics}


class PromptArrays:
    """Per (query, condition): the model-independent authority sums A and relevance r of the ten
    cards, in display order, plus the query's topic; per model the perception noise ε."""

    def __init__(self, seed: int, rows: pd.DataFrame):
        need = {"query_id", "condition", "text"}
        if need - set(rows.columns):
            raise ValueError(f"authority_fit: the prompt table lacks {sorted(need - set(rows.columns))}")
        rows = rows.drop_duplicates(["query_id", "condition"]).copy()
        self.seed = seed
        self.queries = sorted(rows["query_id"].unique())
        self.tasks: dict[tuple[str, str], prompts.Task] = {}
        for q, c, text in zip(rows["query_id"], rows["condition"], rows["text"]):
            self.tasks[(q, c)] = prompts.parse(text)
        missing = [(q, c) for q in self.queries for c in CONDITIONS if (q, c) not in self.tasks]
        if missing:
            raise ValueError(f"authority_fit: no prompt for {missing[0]} (each query needs all three conditions)")
        n = max(len(t.detail["cards"]) for t in self.tasks.values())
        self.n = n
        self.topic = np.array([au.topic_of(self.tasks[(q, "original")]) for q in self.queries])
        self.A = {c: np.zeros((len(self.queries), n)) for c in CONDITIONS}
        self.r = {c: np.full((len(self.queries), n), -np.inf) for c in CONDITIONS}
        for c in CONDITIONS:
            for i, q in enumerate(self.queries):
                t = self.tasks[(q, c)]
                a, r = au.card_terms(seed, t)
                self.A[c][i, :len(a)], self.r[c][i, :len(r)] = a, r
        #: 1 where the boosted prompt's card differs from the original one (the inflated paper:
        #: same content, other metadata), per query and display position
        self.boosted = np.zeros((len(self.queries), n))
        for i, q in enumerate(self.queries):
            pairs = zip(self.tasks[(q, "original")].detail["cards"], self.tasks[(q, "boosted")].detail["cards"])
            for j, (a, b) in enumerate(pairs):
                self.boosted[i, j] = float(a != b)
        self._eps: dict[tuple[str, str], dict[str, np.ndarray]] = {}
        self._content_terms: dict[tuple[str, str, str], np.ndarray] = {}
        self._credit: dict[tuple[str, float], np.ndarray] = {}

    def eps(self, model: str, variant: str = "none") -> dict[str, np.ndarray]:
        """The model's reading ε per condition under instruction ``variant`` (the prompts are
        baseline ones; a mild or strong prompt differs only in its instruction, which ε reads)."""
        if (model, variant) not in self._eps:
            out = {}
            for c in CONDITIONS:
                e = np.zeros((len(self.queries), self.n))
                for i, q in enumerate(self.queries):
                    t = dataclasses.replace(self.tasks[(q, c)], param=variant)
                    v = au.card_noise(self.seed, model, t)
                    e[i, :len(v)] = v
                out[c] = e
            self._eps[(model, variant)] = out
        return self._eps[(model, variant)]

    def _content(self, model: str, variant: str, cond: str) -> np.ndarray:
        # r + ε, fixed per (model, variant, condition): the root searches call observed() ~10^5 times
        key = (model, variant, cond)
        if key not in self._content_terms:
            self._content_terms[key] = self.r[cond] + self.eps(model, variant)[cond]
        return self._content_terms[key]

    def _credited(self, cond: str, ceiling: float) -> np.ndarray:
        # the credited authority at one ceiling, kept while a search over s and τ holds C fixed
        if np.isinf(ceiling):
            return self.A[cond]
        key = (cond, float(ceiling))
        if key not in self._credit:
            if len(self._credit) > 3 * len(CONDITIONS):
                self._credit.clear()
            self._credit[key] = au.credited(self.A[cond], ceiling)
        return self._credit[key]

    def observed(self, model: str, cond: str, s: float, tau: float, t: np.ndarray,
                 noise: np.ndarray | None = None, ceiling: float = np.inf, variant: str = "none") -> np.ndarray:
        """Parse-folded choice distributions, one row per query (t: per-query topic factor,
        ``noise``: per-query topic noise factor multiplying τ, 1 if None; ``ceiling``: the
        credibility ceiling C_m; ``variant``: the instruction, for the model's reading ε)."""
        u = (self._content(model, variant, cond) / t[:, None] + s * self._credited(cond, ceiling)) / tau
        u[:, 0] += au.PRIMACY / tau
        if noise is not None:
            u = u / noise[:, None]
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u)
        p /= p.sum(axis=1, keepdims=True)
        return au.observed_from_choice(model, p)

    def change(self, model: str, manip: str, s: float, tau: float, t: np.ndarray,
               noise: np.ndarray | None = None, ceiling: float = np.inf, variant: str = "none") -> np.ndarray:
        """Per query: expected P(pick differs) between original and ``manip`` (independent draws)."""
        po = self.observed(model, "original", s, tau, t, noise, ceiling, variant)
        pm = self.observed(model, manip, s, tau, t, noise, ceiling, variant)
        return 1.0 - (po * pm).sum(axis=1)

    def boost_chance(self) -> float:
        """The rate of picking a boosted paper by chance: boosted cards / cards (paper §5.5, 25.6 %)."""
        return float(self.boosted.sum() / self.boosted.size)

    def boost_pick(self, model: str, s: float, tau: float, t: np.ndarray, noise: np.ndarray | None = None,
                   ceiling: float = np.inf, variant: str = "none") -> float:
        """P(the boosted paper is picked) over the queries that have one (paper §5.5)."""
        has = self.boosted.sum(axis=1) > 0
        pb = self.observed(model, "boosted", s, tau, t, noise, ceiling, variant)
        return float((pb * self.boosted).sum(axis=1)[has].mean())


def _solve_for(f, lo: float, hi: float, target: float, log: bool = False) -> float:
    """x in [lo, hi] with f(x) = target for increasing f (clamped to the ends), by Brent's method
    (on log x if ``log``). Every f here is an exact enumeration, so the root is reproducible."""
    if f(lo) >= target:
        return lo
    if f(hi) <= target:
        return hi
    if log:
        return float(np.exp(brentq(lambda z: f(np.exp(z)) - target, np.log(lo), np.log(hi), xtol=1e-8, maxiter=100, disp=False)))
    return float(brentq(lambda x: f(x) - target, lo, hi, xtol=1e-8, maxiter=100, disp=False))


#: Largest susceptibility the fit may use: at the bound a model's picks among credited cards are
#: all but deterministic (llama 3.1's baseline reaches it, 0.61 of its 0.63 flip rate).
S_MAX = 200.0


def _solve_s(arr: PromptArrays, m: str, target: float, tau: float, tq, nq, c: float, v: str) -> float:
    """s with the expected flip rate of model m under instruction v at (τ, C) equal to ``target``."""
    return _solve_for(lambda s: arr.change(m, "flipped", s, tau, tq, nq, c, v).mean(), 0.0, S_MAX, target)


def _solve(arr: PromptArrays, m: str, tgt: dict, tq, nq, c: float) -> dict:
    """Per instruction v: τ_v and s_v with the expected boost rate equal to tgt["boost_<v>"] and
    the flip rate to tgt[v], at ceiling C (boosts are mostly sampling noise, so τ carries them)."""
    tau, s = {}, {}
    for v in VARIANTS:
        def boost(t, v=v):
            return float(arr.change(m, "boosted", _solve_s(arr, m, tgt[v], t, tq, nq, c, v), t, tq, nq, c, v).mean())
        tau[v] = _solve_for(boost, TAU_FLOOR, 3.0, tgt[f"boost_{v}"], log=True)
        s[v] = _solve_s(arr, m, tgt[v], tau[v], tq, nq, c, v)
    return {"tau": tau, "ceiling": c, "s": s}


def fit(seed: int, rows: pd.DataFrame, *, rounds: int = 4, condition_weights: dict[str, float] | None = None) -> dict:
    """Fit C_m, τ_m, s_{m,v} and the topic factors to the published targets (see module docstring);
    ``condition_weights``, the composite weights the prompts' conditions were built with, is recorded."""
    arr = PromptArrays(seed, rows)
    models = [m for m in au.AUTHORITY_MODELS if m in model_flip_targets(au.AUTHORITY_MODELS)]
    tgt = model_flip_targets(models)
    lifts = boost_pick_lift_targets(models)
    chance = arr.boost_chance()
    topics = sorted(set(arr.topic))
    ttgt = topic_targets(topics)
    btgt = topic_boost_targets(topics)
    mult = {k: 1.0 for k in topics}
    noise = {k: 1.0 for k in topics}
    params: dict[str, dict] = {}
    heads = [m for m in models if m != "gpt-4o-mini"]
    for _ in tqdm(range(rounds), desc="authority fit", leave=False):
        tq = np.array([mult[k] for k in arr.topic])
        nq = np.array([noise[k] for k in arr.topic])
        for m in [m for m in models if m in lifts]:
            def pick(c, m=m):
                p = _solve(arr, m, tgt[m], tq, nq, c)
                return float(np.mean([arr.boost_pick(m, p["s"][v], p["tau"][v], tq, nq, c, v) for v in VARIANTS]))
            c = _solve_for(pick, *CEILING_RANGE, lifts[m] * chance, log=True)
            params[m] = _solve(arr, m, tgt[m], tq, nq, c)
        for m in [m for m in models if m not in lifts]:
            # no printed lift (the gpt-4o-mini ablation): the mean ceiling of its cohort's models
            peers = [params[x]["ceiling"] for x in lifts if au.cohort(x) == au.cohort(m)] or [params[x]["ceiling"] for x in lifts]
            params[m] = _solve(arr, m, tgt[m], tq, nq, float(np.mean(peers)))
        for k in topics:
            sel = arr.topic == k

            def pooled(x, z=1.0, manip="flipped", sel=sel):
                tq2, nq2 = np.where(sel, x, tq), np.where(sel, z, nq)
                return float(np.mean([arr.change(m, manip, params[m]["s"][v], params[m]["tau"][v], tq2, nq2,
                                                 params[m]["ceiling"], v)[sel].mean()
                                      for m in heads for v in VARIANTS]))

            def solve_t(z, k=k):
                return _solve_for(lambda x: pooled(x, z), 0.05, 20.0, ttgt[k], log=True)
            if k in btgt:            # Table 19 prints this topic's boost rate too
                noise[k] = _solve_for(lambda z: pooled(solve_t(z), z, "boosted"), 1.0, TOPIC_NOISE_MAX, btgt[k], log=True)
            mult[k] = solve_t(noise[k])
        norm = float(np.mean([mult[k] for k in arr.topic]))
        mult = {k: v / norm for k, v in mult.items()}
    return {"seed": seed, "queries": len(arr.queries), "models": params, "topic_multiplier": mult, "topic_noise": noise,
            "condition_weights": dict(condition_weights or {}),
            "note": "fitted by lib.panel.authority_fit.fit on the main-experiment prompts of the synthetic "
                    "corpus (lib.authority) at this seed; targets lib/resources/panel_authority_targets.csv"}


def expected_rates(seed: int, rows: pd.DataFrame, fitted: dict | None = None) -> dict:
    """Expected observed rates of the stored (or given) fit over a prompt set, by exact enumeration:
    per model flip per variant, boost (mean over variants), the boosted-pick rate (P(pick the
    boosted paper) over the boosted cells that have one, §5.5) and its chance rate; per topic the
    pooled flip (headline models); per pair of headline models the selection agreement
    Σ_j p_a,j·p_b,j averaged over queries, instructions and conditions (Table 8, independent draws);
    ``picks``: per condition the headline models' mean pick distribution (rows ``queries``, columns
    display positions), from which a caller that knows the candidates' tiers gets Table 9's shares."""
    arr = PromptArrays(seed, rows)
    fitted = fitted or au.fitted()
    mult = fitted["topic_multiplier"]
    tq = np.array([mult.get(k, 1.0) for k in arr.topic])
    nq = np.array([fitted.get("topic_noise", {}).get(k, 1.0) for k in arr.topic])
    boosted = arr.boosted
    has = boosted.sum(axis=1) > 0
    out: dict = {"models": {}, "topics": {}, "agreement": {}, "boost_chance": arr.boost_chance(),
                 "picks": {c: np.zeros((len(arr.queries), arr.n)) for c in CONDITIONS}, "queries": arr.queries}
    per_topic: dict[str, list] = {}
    per_topic_boost: dict[str, list] = {}
    dist: dict[str, list] = {}
    head = [m for m in fitted["models"] if m != "gpt-4o-mini"]
    for m, p in fitted["models"].items():
        rates, picks = {}, []
        for v in VARIANTS:
            obs = {c: arr.observed(m, c, p["s"][v], p["tau"][v], tq, nq, p["ceiling"], v) for c in CONDITIONS}
            fl = 1.0 - (obs["original"] * obs["flipped"]).sum(axis=1)
            rates[v] = float(fl.mean())
            rates[f"boost_{v}"] = float((1.0 - (obs["original"] * obs["boosted"]).sum(axis=1)).mean())
            picks.append(float((obs["boosted"] * boosted).sum(axis=1)[has].mean()))
            dist.setdefault(m, []).extend(obs[c] for c in CONDITIONS)
            if m != "gpt-4o-mini":
                for c in CONDITIONS:
                    out["picks"][c] += obs[c] / (len(head) * len(VARIANTS))
                bo = 1.0 - (obs["original"] * obs["boosted"]).sum(axis=1)
                for k in set(arr.topic):
                    per_topic.setdefault(k, []).append(float(fl[arr.topic == k].mean()))
                    per_topic_boost.setdefault(k, []).append(float(bo[arr.topic == k].mean()))
        rates["flip"] = float(np.mean([rates[v] for v in VARIANTS]))
        rates["boost"] = float(np.mean([rates[f"boost_{v}"] for v in VARIANTS]))
        rates["boost_pick"] = float(np.mean(picks))
        out["models"][m] = rates
    out["topics"] = {k: float(np.mean(v)) for k, v in per_topic.items()}
    out["topic_boosts"] = {k: float(np.mean(v)) for k, v in per_topic_boost.items()}
    for i, a in enumerate(head):
        for b in head[i + 1:]:
            out["agreement"][f"{a} vs {b}"] = float(np.mean([(x * y).sum(axis=1).mean() for x, y in zip(dist[a], dist[b])]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.panel.authority_fit",
                                 description="Refit the authority panel to the published rates.")
    ap.add_argument("prompts", type=Path, help="parquet/CSV with query_id, condition, text (the main-experiment "
                                               "prompts), or notebook 05's main_requests.parquet")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--condition-weights", type=json.loads, default=None,
                    help="JSON mapping: the composite weights of the prompts' conditions (default: the stored fit's)")
    ap.add_argument("--out", type=Path, default=paths.RESOURCES / FIT_FILE)
    a = ap.parse_args(argv)
    rows = pd.read_parquet(a.prompts) if a.prompts.suffix == ".parquet" else pd.read_csv(a.prompts)
    if "text" not in rows.columns and "messages" in rows.columns:      # a main_requests table
        rows = rows[rows["instruction"] == "baseline"]
        rows = rows.assign(text=rows["messages"].map(lambda m: prompts.message_text(list(m))))
    weights = a.condition_weights if a.condition_weights is not None else au.fitted().get("condition_weights", {})
    res = fit(a.seed, rows, condition_weights=weights)
    a.out.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
    print(f"written {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
