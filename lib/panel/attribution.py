"""AttriBench behaviour: naming (or not) the author of a quote (panel.md "Attribution behaviours").

The panel is *given* the quote universe (:class:`QuoteRegistry`: quote, author, race, gender,
log10_hits), so it knows each quote's author, fame and group without importing the analysis.

P(model m knows the author of quote q) = K = σ(α_m + β_m·(fame_q − 5) + g_m·(γ_race + γ_gender))
with γ_race = {white 0, black −0.5, asian −0.7, latino −0.7}, γ_gender = {male 0, female −0.5}
(disparity scale g_m; 0.3 for gpt-oss-120b, the paper's exception) and α_m solved so that the
mean of K over the shipped AttriBench sample equals the model's published direct accuracy
(paper §5.2: GPT-5.1 26.7 %, Claude ~26 %, Kimi-K2.5 22.5 %, five models under 10 %).

Outcomes (correct / wrong / none, reference B.4) by prompt, with ψ_g = σ(logit ψ0 + 0.8·γ_g):

* direct: correct K; otherwise "I don't know" with ω_m (none) or a wrong famous name;
* indirect: the author is named with K·ψ_g (ψ0 solved to the published indirect accuracy where
  printed); otherwise a wrong name with w_g = σ(logit 0.3 + λ_w·g_m·γ_g), else a summary that
  names nobody (omission: S_omit); indirect_overt: ψ shifted by +1.5 on the logit;
* with retrieved evidence: direct correct with P_ev ≈ 0.95–0.995; indirect with
  σ(logit ψ_rag0 + g_m·(λ_r·γ_race + λ_f·γ_gender)) (improves unevenly by group: S_evid); overt
  with that shifted by +3. λ_w, λ_r, λ_f are solved to the printed suppression gaps
  (:data:`OMIT_GAP_TARGET`, :data:`EVID_GAP_TARGETS`).
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from lib import paths
from lib.panel import texts
from lib.panel.calibration import logit, sigmoid
from lib.panel.latent import model_rng
from lib.panel.profiles import ATTRIBUTION, all_profiles
from lib.panel.prompts import Task

GAMMA_RACE = {"white": 0.0, "black": -0.5, "asian": -0.7, "latino": -0.7}
GAMMA_GENDER = {"male": 0.0, "female": -0.5}
FAME_CENTER = 5.0
OVERT_SHIFT = 1.5
RAG_OVERT_SHIFT = 3.0
GROUP_MENTION_SLOPE = 0.8
#: Published direct-prompt accuracy, mean of the intersectional and multirace values where both
#: are printed (paper §5.2 line 81, 83: GPT-5.1 26.7 / 22.6 %, Kimi-K2.5 22.5 / 18.5 %,
#: GPT-OSS-120B 1.7 / 1.9 %; Claude "~25-27 %" and "~21-23 %"): the panel cannot tell the two
#: datasets apart (a quote carries only its author, group and fame), so it aims at their mean.
PUBLISHED_DIRECT_ACCURACY = {"gpt-5.1": (0.267 + 0.226) / 2, "claude-sonnet-4-6": (0.26 + 0.22) / 2,
                             "moonshotai/Kimi-K2.5": (0.225 + 0.185) / 2, "openai/gpt-oss-120b": (0.017 + 0.019) / 2}
#: Published indirect-prompt accuracy (§5.2 line 81), mean of the two datasets.
PUBLISHED_INDIRECT_ACCURACY = {"gpt-5.1": (0.130 + 0.110) / 2, "moonshotai/Kimi-K2.5": (0.164 + 0.128) / 2}
#: Suppression gaps the paper prints (§5.2 line 87), averaged over models: S_omit (indirect, no
#: evidence) of Black male and White female minus White male 10 pp, Black female 15 pp, Latino
#: and Asian minus White 10 pp, Black minus White 8 pp; S_evid (indirect, evidence) of Latino and
#: Asian minus White 6 pp, Black female minus White male 4 pp. The panel solves one slope of the
#: indirect any-name rate (S_omit) and race / gender slopes of the evidence-conditioned mention
#: rate (S_evid) so that its expected gaps, averaged over the AttriBench models on a fame-balanced
#: grid (every group at the fame of the shipped sample), sit at these values.
OMIT_GAP_TARGET = 0.10          # Black male and White female vs White male (the other three are checked by the test)
EVID_GAP_TARGETS = {"race": 0.06, "female_black": 0.04}
ANY_NAME_BASE = 0.3             # indirect: P(some author is named | correct one not) for γ = 0
UNDER_TEN = ("mistralai/Mixtral-8x7B-Instruct-v0.1", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
             "Qwen/Qwen3.5-397B-A17B", "Qwen/Qwen3-Next-80B-A3B-Instruct", "gemini-2.5-flash-lite")
UNDER_TEN_TARGET = 0.07     # "under 10 %" (paper §5.2), placed at 7 %
DEFAULT_TARGET = {"frontier": 0.2, "other": 0.12}
#: Names models fall back on when they guess (used only if the registry is empty).
FALLBACK_FAMOUS = ("Mark Twain", "Albert Einstein", "Oscar Wilde", "Maya Angelou", "Ralph Waldo Emerson")


def normalize_quote(text: str) -> str:
    t = unicodedata.normalize("NFKD", str(text))
    t = "".join(ch for ch in t if not unicodedata.combining(ch)).lower()
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", t)).strip()


def group_gamma(race: str, gender: str) -> float:
    return GAMMA_RACE.get(str(race).lower(), 0.0) + GAMMA_GENDER.get(str(gender).lower(), 0.0)


class QuoteRegistry:
    """The quote universe the panel answers from (quote, author, race, gender, log10_hits)."""

    COLUMNS = ("quote", "author", "race", "gender", "log10_hits")

    def __init__(self, df: pd.DataFrame | None = None):
        self.df = pd.DataFrame(columns=list(self.COLUMNS))
        self._by_norm: dict[str, int] = {}
        if df is not None:
            self.register(df)

    @staticmethod
    def from_path(path: str | Path) -> "QuoteRegistry":
        path = Path(path)
        df = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
        if "author" not in df.columns and "author_clean" in df.columns:
            df = df.rename(columns={"author_clean": "author"})
        return QuoteRegistry(df)

    def register(self, df: pd.DataFrame) -> None:
        if "author" not in df.columns and "author_clean" in df.columns:
            df = df.rename(columns={"author_clean": "author"})
        missing = [c for c in self.COLUMNS if c not in df.columns]
        if missing:
            raise ValueError(f"panel quote registry: missing columns {missing} (expected {list(self.COLUMNS)})")
        add = df[list(self.COLUMNS)].copy()
        add["log10_hits"] = pd.to_numeric(add["log10_hits"], errors="coerce").fillna(FAME_CENTER)
        self.df = pd.concat([self.df, add], ignore_index=True) if len(self.df) else add.reset_index(drop=True)
        self._by_norm = {normalize_quote(q): i for i, q in enumerate(self.df["quote"].astype(str))}
        fame = self.df["log10_hits"].to_numpy(float)
        w = np.power(10.0, fame - fame.max()) if len(fame) else np.empty(0)
        self._famous_cum = np.cumsum(w) if len(w) else None

    def __len__(self) -> int:
        return len(self.df)

    def lookup(self, quote: str) -> dict | None:
        i = self._by_norm.get(normalize_quote(quote))
        return None if i is None else self.df.iloc[i].to_dict()

    def famous_other(self, rng: np.random.Generator, author: str) -> str:
        if self._famous_cum is None or len(self.df) < 2:
            return FALLBACK_FAMOUS[int(rng.integers(len(FALLBACK_FAMOUS)))]
        for _ in range(8):
            i = int(np.searchsorted(self._famous_cum, rng.random() * self._famous_cum[-1], side="right"))
            name = str(self.df["author"].iloc[min(i, len(self.df) - 1)])
            if name != author:
                return name
        return FALLBACK_FAMOUS[int(rng.integers(len(FALLBACK_FAMOUS)))]


@lru_cache(maxsize=1)
def _reference_sample() -> pd.DataFrame:
    df = pd.read_csv(paths.RESOURCES / "attribench_intersectional_sample.csv")
    return df[["race", "gender", "log10_hits"]].dropna()


def _family_mean(values, family: str) -> float | None:
    """Mean of ``values(model)`` over the paper's models of runner ``family`` that have one (None if none)."""
    vals = [values(m) for m, p in all_profiles().items()
            if ATTRIBUTION in p.papers and not p.own and p.family == family and values(m) is not None]
    return float(np.mean(vals)) if vals else None


def _target(mid: str) -> float:
    if mid in PUBLISHED_DIRECT_ACCURACY:
        return PUBLISHED_DIRECT_ACCURACY[mid]
    if mid in UNDER_TEN:
        return UNDER_TEN_TARGET
    p = all_profiles()[mid]
    if p.own and (mean := _family_mean(_target, p.family)) is not None:   # module doc of lib.panel.profiles
        return mean
    return DEFAULT_TARGET["frontier" if p.access == "proprietary" and p.size_class == "XL" else "other"]


def _solve_alpha(target: float, beta: float, g: float) -> float:
    ref = _reference_sample()
    x = beta * (ref["log10_hits"].to_numpy(float) - FAME_CENTER) + g * np.array(
        [group_gamma(r, s) for r, s in zip(ref["race"], ref["gender"])])
    lo, hi = -15.0, 15.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if float(np.mean(sigmoid(mid + x))) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _fame_grid() -> np.ndarray:
    return _reference_sample()["log10_hits"].to_numpy(float)


def _solve_psi(p: dict, target: float) -> float:
    """ψ0 with mean over the shipped sample of K·ψ_g equal to the published indirect accuracy."""
    ref = _reference_sample()
    lo, hi = -10.0, 10.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        q = {**p, "indirect_mention_base": float(sigmoid(mid))}
        acc = np.mean([outcome_probabilities(q, "indirect", False, f, r, g)["correct"]
                       for f, r, g in zip(ref["log10_hits"], ref["race"], ref["gender"])])
        lo, hi = (mid, hi) if acc < target else (lo, mid)
    return float(sigmoid(0.5 * (lo + hi)))


def group_rate(p: dict, family: str, evidence: bool, race: str, gender: str | None, key: str) -> float:
    """Mean of one outcome probability over the fame grid for one group (gender None: both halves)."""
    genders = ("male", "female") if gender is None else (gender,)
    return float(np.mean([outcome_probabilities(p, family, evidence, f, race, g)[key]
                          for f in _fame_grid() for g in genders]))


def suppression_gaps(params: dict[str, dict]) -> dict[str, float]:
    """The paper's six suppression gaps (line 87) averaged over ``params``' models, on the fame grid."""
    out: dict[str, list] = {}
    for p in params.values():
        om = lambda r, g: group_rate(p, "indirect", False, r, g, "none")                      # noqa: E731
        ms = lambda r, g: 1.0 - group_rate(p, "indirect", True, r, g, "correct")             # noqa: E731
        wm = om("white", "male")
        rows = {"omit: M/Black, F/White vs M/White": (om("black", "male") + om("white", "female")) / 2 - wm,
                "omit: F/Black vs M/White": om("black", "female") - wm,
                "omit: Latino, Asian vs White": (om("latino", None) + om("asian", None)) / 2 - om("white", None),
                "omit: Black vs White": om("black", None) - om("white", None),
                "evid: Latino, Asian vs White": (ms("latino", None) + ms("asian", None)) / 2 - ms("white", None),
                "evid: F/Black vs M/White": ms("black", "female") - ms("white", "male")}
        for k, v in rows.items():
            out.setdefault(k, []).append(v)
    return {k: float(np.mean(v)) for k, v in out.items()}


def _solve_slope(params: dict, key: str, gap: str, target: float, lo=0.0, hi=6.0) -> float:
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        for p in params.values():
            p[key] = mid
        lo, hi = (mid, hi) if suppression_gaps(params)[gap] < target else (lo, mid)
    val = 0.5 * (lo + hi)
    for p in params.values():
        p[key] = val
    return val


def _entry(seed: int, mid: str, prof) -> dict:
    """One model's parameters before the shared slopes are set."""
    rng = model_rng(seed, mid, "attribution")
    beta = float(rng.uniform(0.8, 1.3))
    g = 0.3 if mid == "openai/gpt-oss-120b" else float(rng.uniform(0.7, 1.3))
    target = _target(mid)
    out = {
        "published_direct_accuracy": PUBLISHED_DIRECT_ACCURACY.get(mid), "target_direct_accuracy": target,
        "published_indirect_accuracy": PUBLISHED_INDIRECT_ACCURACY.get(mid),
        "alpha": _solve_alpha(target, beta, g), "beta_fame": beta, "fame_center": FAME_CENTER,
        "disparity_scale": g, "gamma_race": dict(GAMMA_RACE), "gamma_gender": dict(GAMMA_GENDER),
        "dont_know_rate": float(rng.uniform(0.2, 0.6)),
        "indirect_mention_base": float(rng.uniform(0.35, 0.6)),
        "overt_shift": OVERT_SHIFT, "group_mention_slope": GROUP_MENTION_SLOPE,
        "evidence_direct": float(rng.uniform(0.95, 0.995)),
        "evidence_indirect_base": float(rng.uniform(0.4, 0.7)), "evidence_overt_shift": RAG_OVERT_SHIFT,
        "any_name_base": ANY_NAME_BASE, "any_name_slope": 0.0,
        "evidence_race_slope": 0.0, "evidence_gender_slope": 0.0,
        "in_paper": ATTRIBUTION in prof.papers,
    }
    indirect = PUBLISHED_INDIRECT_ACCURACY.get(mid)
    if indirect is None and prof.own:
        indirect = _family_mean(PUBLISHED_INDIRECT_ACCURACY.get, prof.family)
    if indirect is not None:
        out["indirect_mention_base"] = _solve_psi(out, indirect)
    return out


SLOPES = ("any_name_slope", "evidence_race_slope", "evidence_gender_slope")


@lru_cache(maxsize=64)
def _papers_params(seed: int, papers_models: tuple) -> dict[str, dict]:
    """The parameters of every model but a profile's own (``papers_models``: (id, in AttriBench)
    pairs, the cache key), the shared slopes solved on the AttriBench models; own models never change them."""
    out = {mid: _entry(seed, mid, all_profiles()[mid]) for mid, _ in papers_models}
    paper = {m: p for m, p in out.items() if p["in_paper"]}
    _solve_slope(paper, "any_name_slope", "omit: M/Black, F/White vs M/White", OMIT_GAP_TARGET)
    _solve_slope(paper, "evidence_race_slope", "evid: Latino, Asian vs White", EVID_GAP_TARGETS["race"])
    _solve_slope(paper, "evidence_gender_slope", "evid: F/Black vs M/White", EVID_GAP_TARGETS["female_black"], lo=-6.0)
    for p in out.values():
        for k in SLOPES:
            p[k] = next(iter(paper.values()))[k]
    return out


@lru_cache(maxsize=64)
def model_params(seed: int) -> dict[str, dict]:
    """AttriBench parameters of every panel model: the papers' models (:func:`_papers_params`) and a
    profile's own, which take the shared slopes as they are (lib.panel.profiles module doc)."""
    profiles = all_profiles()
    key = tuple((m, ATTRIBUTION in p.papers) for m, p in profiles.items() if not p.own)
    base = _papers_params(seed, key)
    slopes = {k: next(iter(base.values()))[k] for k in SLOPES}
    return {mid: base[mid] if (mid, ATTRIBUTION in p.papers) in key else {**_entry(seed, mid, p), **slopes}
            for mid, p in profiles.items()}


def outcome_probabilities(p: dict, family: str, evidence: bool, fame: float, race: str, gender: str) -> dict:
    """P(correct), P(wrong), P(none) for one quote (the truth behind the AttriBench metrics)."""
    gr, gs = GAMMA_RACE.get(str(race).lower(), 0.0), GAMMA_GENDER.get(str(gender).lower(), 0.0)
    gam = gr + gs
    K = float(sigmoid(p["alpha"] + p["beta_fame"] * (fame - p["fame_center"]) + p["disparity_scale"] * gam))
    slope = p["group_mention_slope"] * p["disparity_scale"] * gam
    if family == "direct":
        c = p["evidence_direct"] if evidence else K
        return {"knows": K, "correct": c, "wrong": (1 - c) * (1 - p["dont_know_rate"]),
                "none": (1 - c) * p["dont_know_rate"]}
    if evidence:
        base = logit(p["evidence_indirect_base"]) + (p["evidence_overt_shift"] if family == "indirect_overt" else 0.0)
        shift = p["disparity_scale"] * (p["evidence_race_slope"] * gr + p["evidence_gender_slope"] * gs)
        c = float(sigmoid(base + shift))
    else:
        base = logit(p["indirect_mention_base"]) + (p["overt_shift"] if family == "indirect_overt" else 0.0)
        c = K * float(sigmoid(base + slope))
    w = wrong_name_rate(p, race, gender)
    return {"knows": K, "correct": c, "wrong": (1 - c) * w, "none": (1 - c) * (1 - w)}


def wrong_name_rate(p: dict, race: str, gender: str) -> float:
    """Indirect prompts: P(a wrong author is named | the correct one is not), lower for groups with
    γ < 0 (more omission: S_omit)."""
    gam = group_gamma(race, gender)
    return float(sigmoid(logit(p["any_name_base"]) + p["any_name_slope"] * p["disparity_scale"] * gam))


def _theme(quote: str) -> str:
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", quote) if len(w) >= 5 and not w.lower().endswith("ly")]
    return max(words, key=len) if words else "life"


def _name_form(rng, author: str) -> str:
    toks = author.split()
    if len(toks) >= 2 and rng.random() < 0.1:
        return f"{toks[0][0]}. {toks[-1]}"
    return author


def answer(seed: int, model: str, task: Task, registry: QuoteRegistry, rng: np.random.Generator) -> dict:
    p = model_params(seed)[model]
    quote = task.detail.get("quote", "")
    evidence = task.param == "evidence"
    row = registry.lookup(quote)
    if row is None and evidence and task.detail.get("evidence"):
        top = max(task.detail["evidence"], key=lambda e: e[1])
        if top[0]:
            row = {"author": top[0], "race": "", "gender": "", "log10_hits": FAME_CENTER}
    author = str(row["author"]) if row else ""
    fame = float(row["log10_hits"]) if row else FAME_CENTER
    probs = outcome_probabilities(p, task.family, evidence, fame, row["race"] if row else "", row["gender"] if row else "")
    if not author:
        probs = {**probs, "correct": 0.0}
    u = rng.random()
    theme = _theme(quote)
    if u < probs["correct"]:
        outcome = "correct"
        name = _name_form(rng, author)
        pool = texts.DIRECT_KNOWN if task.family == "direct" else texts.INDIRECT_MENTION
        content = pool[int(rng.integers(len(pool)))].format(author=name, theme=theme)
    elif task.family == "direct" and rng.random() < p["dont_know_rate"]:
        outcome = "none"
        content = texts.DONT_KNOW[int(rng.integers(len(texts.DONT_KNOW)))]
    elif task.family != "direct" and rng.random() >= wrong_name_rate(p, row["race"] if row else "", row["gender"] if row else ""):
        outcome = "none"
        content = texts.SUMMARIES[int(rng.integers(len(texts.SUMMARIES)))].format(theme=theme)
    else:
        outcome = "wrong"
        wrong = registry.famous_other(rng, author)
        pool = texts.DIRECT_WRONG if task.family == "direct" else texts.INDIRECT_MENTION
        content = pool[int(rng.integers(len(pool)))].format(author=wrong, theme=theme)
    meta = {"task": "attribution", "family": task.family, "evidence": evidence, "registered": row is not None,
            "author": author, "outcome": outcome, "probabilities": probs}
    return {"content": content, "reasoning": None, "meta": meta}
