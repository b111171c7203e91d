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
* indirect: the author is named with K·ψ_g; otherwise a wrong name with w = 0.05, else a
  summary that names nobody (omission); indirect_overt: ψ shifted by +1.5 on the logit;
* with retrieved evidence: direct correct with P_ev ≈ 0.95–0.995; indirect with
  σ(logit ψ_rag0 + 0.8·γ_g) (improves unevenly by group); overt with that shifted by +3.
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
WRONG_NAME_RATE = 0.05
OVERT_SHIFT = 1.5
RAG_OVERT_SHIFT = 3.0
GROUP_MENTION_SLOPE = 0.8
#: Published direct-prompt accuracy on AttriBench intersectional (paper §5.2, README B.6).
PUBLISHED_DIRECT_ACCURACY = {"gpt-5.1": 0.267, "claude-sonnet-4-6": 0.26, "moonshotai/Kimi-K2.5": 0.225}
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


def _target(mid: str) -> float:
    if mid in PUBLISHED_DIRECT_ACCURACY:
        return PUBLISHED_DIRECT_ACCURACY[mid]
    if mid in UNDER_TEN:
        return UNDER_TEN_TARGET
    p = all_profiles()[mid]
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


@lru_cache(maxsize=64)
def model_params(seed: int) -> dict[str, dict]:
    out = {}
    for mid, prof in all_profiles().items():
        rng = model_rng(seed, mid, "attribution")
        beta = float(rng.uniform(0.8, 1.3))
        g = 0.3 if mid == "openai/gpt-oss-120b" else float(rng.uniform(0.7, 1.3))
        target = _target(mid)
        out[mid] = {
            "published_direct_accuracy": PUBLISHED_DIRECT_ACCURACY.get(mid), "target_direct_accuracy": target,
            "alpha": _solve_alpha(target, beta, g), "beta_fame": beta, "fame_center": FAME_CENTER,
            "disparity_scale": g, "gamma_race": dict(GAMMA_RACE), "gamma_gender": dict(GAMMA_GENDER),
            "dont_know_rate": float(rng.uniform(0.2, 0.6)),
            "indirect_mention_base": float(rng.uniform(0.35, 0.6)),
            "overt_shift": OVERT_SHIFT, "group_mention_slope": GROUP_MENTION_SLOPE,
            "evidence_direct": float(rng.uniform(0.95, 0.995)),
            "evidence_indirect_base": float(rng.uniform(0.4, 0.7)), "evidence_overt_shift": RAG_OVERT_SHIFT,
            "wrong_name_rate": WRONG_NAME_RATE, "in_paper": ATTRIBUTION in prof.papers,
        }
    return out


def outcome_probabilities(p: dict, family: str, evidence: bool, fame: float, race: str, gender: str) -> dict:
    """P(correct), P(wrong), P(none) for one quote (the truth behind the AttriBench metrics)."""
    gam = group_gamma(race, gender)
    K = float(sigmoid(p["alpha"] + p["beta_fame"] * (fame - p["fame_center"]) + p["disparity_scale"] * gam))
    slope = p["group_mention_slope"] * p["disparity_scale"] * gam
    if family == "direct":
        c = p["evidence_direct"] if evidence else K
        return {"knows": K, "correct": c, "wrong": (1 - c) * (1 - p["dont_know_rate"]),
                "none": (1 - c) * p["dont_know_rate"]}
    if evidence:
        base = logit(p["evidence_indirect_base"]) + (p["evidence_overt_shift"] if family == "indirect_overt" else 0.0)
        c = float(sigmoid(base + slope))
    else:
        base = logit(p["indirect_mention_base"]) + (p["overt_shift"] if family == "indirect_overt" else 0.0)
        c = K * float(sigmoid(base + slope))
    w = p["wrong_name_rate"]
    return {"knows": K, "correct": c, "wrong": (1 - c) * w, "none": (1 - c) * (1 - w)}


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
    elif task.family != "direct" and rng.random() >= p["wrong_name_rate"]:
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
