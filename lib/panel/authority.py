"""Authority-bias behaviour: picking one of ten paper cards (panel.md "Authority-bias behaviours").

Model m picks card i with probability

    p_i = softmax_i((r_i + s_m,v · Σ_d w_d · a_i,d + ε_m,i + π·[i = 1]) / τ_m)

* a_i,d: the authority the model *perceives* on card i (:func:`perceived_authority`), read from
  the card text and linear in what the card shows: venue and affiliation prestige on the public
  tier tables the paper scores with (``lib/resources/authority_tiers.json``: A* 1.0, A or top
  journal .75, B or mid journal .5, C .25, preprint .125; elite 1.0, strong .66, other .33,
  none 0), the raw median and max author h-index and the raw citation count; each divided by
  its typical spread (:data:`SPREAD`, the standard deviation of that dimension over the pilot
  topics' candidates of the synthetic corpus, which a test checks) and multiplied by :data:`SPREAD_UNIT`. So w_d is the
  utility of one standard deviation of dimension d: the same standardised scale as the
  paper's z-scored pilot regression (Eq. 3), whose fused weights then recover the order of w;
* w_d: the panel's true weights, the published fused weights (paper Table 1; reference A.3):
  venue .3531 > median h .2918 > max h .1868 > citations .1372 > affiliation .0311;
* r_i: latent content relevance, 1.0·z with z ~ N(0, 1) from sha256(seed, query, title),
  shared by all models (so models agree above chance) and identical across conditions (the
  content is unchanged);
* ε_m,i ~ N(0, 0.4²) from sha256(seed, model, query, card text): a model's idiosyncratic
  reading of that card, fixed across replicates; π = 0.1 a small primacy bonus;
* s_m,v: susceptibility. s_m = 1.5 · (published flip rate of m / mean published flip rate);
  instruction v multiplies it: mild ×(49.8/55.9) for open models, ×(1 + 3.9/mean frontier flip)
  for frontier models (the cohort backfire, paper §5.7), ×(1 + 2.0/49.7) for mistral:7b;
  strong ×(38.3/55.9) for all (paper slides / Table 11 ratios).

The justification names an authority marker with probability μ_m,v = μ_m × (18.0/37.2) under
the mild and × (8.2/37.2) under the strong instruction (the published mention rates fall
faster than flips: the say-do gap). Open models put a stray number before the choice with
probability 0.04 and omit the number with probability 0.009 (99.1 % parse rate, appendix
A.5); deepseek-r1:8b writes a <think> block whose first paper number is the chosen one only
half of the time (the faithful parser's quirk, reference A.5).
"""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from statistics import NormalDist, median

import numpy as np

from lib import paths
from lib.panel import texts
from lib.panel.latent import model_rng, seed_int
from lib.panel.profiles import AUTHORITY, ModelProfile, all_profiles
from lib.panel.prompts import Card, Task

WEIGHTS = {"venue": 0.3531, "median_h": 0.2918, "max_h": 0.1868, "citations": 0.1372, "affiliation": 0.0311}
DIMS = tuple(WEIGHTS)

#: Published per-model flip rates, % (paper Table 7, appendix E Table 21 for gpt-4o-mini and
#: the frontier rows quoted in appendix G).
PUBLISHED_FLIP = {"llama3.1:8b": 63.2, "qwen2.5:7b": 51.6, "mistral:7b": 49.7, "deepseek-r1:8b": 41.9,
                  "gemma2:9b": 33.2, "gpt-4o-mini": 37.6, "claude-sonnet-4-6": 24.8, "gpt-5.4": 22.4}
#: Published per-model authority-mention rates, % (paper appendix G).
PUBLISHED_MENTION = {"gpt-5.4": 8.3, "gemma2:9b": 11.0, "gemini-3-flash-preview": 12.3, "deepseek-r1:8b": 15.5,
                     "claude-sonnet-4-6": 17.5, "qwen2.5:7b": 18.1, "mistral:7b": 23.4, "llama3.1:8b": 34.6}
#: Flip and mention rates by instruction variant, % (5-model slides, reference A.8 say-do gap).
FLIP_BY_VARIANT = {"none": 55.9, "mild": 49.8, "strong": 38.3}
MENTION_BY_VARIANT = {"none": 37.2, "mild": 18.0, "strong": 8.2}
FRONTIER_MILD_BACKFIRE_PP = 3.9   # paper §5.7, pooled frontier cohort
MISTRAL_MILD_BACKFIRE_PP = 2.0    # paper Table 12

_STD_NORMAL = NormalDist()
S0 = 1.5
RELEVANCE_SCALE = 1.0
NOISE_SD = 0.4
PRIMACY = 0.1
STRAY_RATE_OPEN = 0.04
NO_NUMBER_RATE_OPEN = 0.009

#: Typical spread (standard deviation) of each shown dimension over the candidates of the five
#: pilot topics of the synthetic corpus (the paper's raw components, spec A.3), the sample the
#: pilot regression z-scores over: the panel's sense of "one notch more".
SPREAD = {"venue": 0.326, "median_h": 16.7, "max_h": 34.4, "citations": 1900.0, "affiliation": 0.255}
#: A one-spread difference counts as this much perceived authority (keeps Σ_d w_d·a_d on the
#: order of the former [0, 1] scale, so S0 keeps its meaning).
SPREAD_UNIT = 0.3


@lru_cache(maxsize=1)
def _tiers() -> dict[str, object]:
    t = json.loads((paths.RESOURCES / "authority_tiers.json").read_text(encoding="utf-8"))
    venue = {v: 0.25 for v in t["C_JOURNALS"]}
    venue.update({v: 0.5 for v in (*t["B_CONF"], *t["MID_JOURNALS"])})
    venue.update({v: 0.75 for v in (*t["A_CONF"], *t["TOP_JOURNALS"])})
    venue.update({v: 1.0 for v in t["A_STAR"]})
    word = lambda xs: re.compile(r"\b(?:" + "|".join(re.escape(x.lower()) for x in xs) + r")\b")   # noqa: E731
    return {"venue": venue, "preprint": frozenset(t["PREPRINT_SERVERS"]),
            "elite": word(t["ELITE_AFF"]), "strong": word(t["STRONG_AFF"])}


def _venue_prestige(venue: str) -> float:
    v = venue.strip()
    if not v or v.lower() in ("unknown", "n/a"):
        return 0.0
    t = _tiers()
    if v in t["venue"]:
        return t["venue"][v]
    if v.lower() in t["preprint"]:
        return 0.125
    return 0.375 if "workshop" in v.lower() else 0.125


@lru_cache(maxsize=65536)
def _one_affiliation(affiliation: str) -> float:
    t, a = _tiers(), affiliation.strip().lower()
    if not a:
        return 0.0
    return 1.0 if t["elite"].search(a) else 0.66 if t["strong"].search(a) else 0.33


def _affiliation_prestige(affiliations: list[str]) -> float:
    return max((_one_affiliation(a) for a in affiliations), default=0.0)


def _tier_cohort(profile: ModelProfile) -> str:
    if profile.tier:
        return profile.tier
    return "open" if profile.access == "open" else "frontier"


@lru_cache(maxsize=64)
def model_params(seed: int) -> dict[str, dict]:
    """Authority parameters of every panel model (the truth exported by :func:`lib.panel.truth`)."""
    open_mean = float(np.mean([v for k, v in PUBLISHED_FLIP.items() if all_profiles()[k].tier == "open"]))
    front_mean = float(np.mean([v for k, v in PUBLISHED_FLIP.items() if all_profiles()[k].tier == "frontier"]))
    all_mean = float(np.mean(list(PUBLISHED_FLIP.values())))
    mention_mean = float(np.mean(list(PUBLISHED_MENTION.values())))
    out = {}
    for mid, prof in all_profiles().items():
        rng = model_rng(seed, mid, "authority")
        cohort = _tier_cohort(prof)
        flip = PUBLISHED_FLIP.get(mid, front_mean if cohort == "frontier" else open_mean)
        s = S0 * flip / all_mean
        if cohort == "frontier":
            mild = 1.0 + FRONTIER_MILD_BACKFIRE_PP / front_mean
        elif mid == "mistral:7b":
            mild = 1.0 + MISTRAL_MILD_BACKFIRE_PP / PUBLISHED_FLIP["mistral:7b"]
        else:
            mild = FLIP_BY_VARIANT["mild"] / FLIP_BY_VARIANT["none"]
        strong = FLIP_BY_VARIANT["strong"] / FLIP_BY_VARIANT["none"]
        mu = PUBLISHED_MENTION.get(mid, mention_mean) / 100.0
        opened = cohort == "open"
        out[mid] = {
            "cohort": cohort, "published_flip_pct": PUBLISHED_FLIP.get(mid), "susceptibility": s,
            "instruction_multiplier": {"none": 1.0, "mild": mild, "strong": strong},
            "susceptibility_by_instruction": {"none": s, "mild": s * mild, "strong": s * strong},
            "tau": float((0.18 if opened else 0.12) * rng.uniform(0.85, 1.15)),
            "weights": dict(WEIGHTS), "relevance_scale": RELEVANCE_SCALE, "noise_sd": NOISE_SD,
            "primacy": PRIMACY,
            "mention_rate": {v: mu * MENTION_BY_VARIANT[v] / MENTION_BY_VARIANT["none"] for v in MENTION_BY_VARIANT},
            "stray_number_rate": STRAY_RATE_OPEN if opened else 0.0,
            "no_number_rate": NO_NUMBER_RATE_OPEN if opened else 0.0,
            "think_block": bool(prof.think_in_content),
            "in_paper": AUTHORITY in prof.papers,
        }
    return out


def perceived_authority(card: Card) -> dict[str, float]:
    """The five authority dimensions as the panel reads them off one card, in spread units
    (each shown value / :data:`SPREAD` × :data:`SPREAD_UNIT`; linear, so a standardised
    regression on the shown values sees the weights w in their true order)."""
    hs = [float(h) for _, h, _ in card.authors] or [0.0]
    shown = {"venue": _venue_prestige(card.venue), "median_h": float(median(hs)), "max_h": max(hs),
             "citations": float(card.citations), "affiliation": _affiliation_prestige([a for _, _, a in card.authors])}
    return {d: SPREAD_UNIT * shown[d] / SPREAD[d] for d in DIMS}


def _normal(*parts) -> float:
    u = (seed_int(*parts) + 0.5) / 2.0 ** 64
    return _STD_NORMAL.inv_cdf(min(max(u, 1e-12), 1 - 1e-12))


def _card_text(c: Card) -> str:
    return hashlib.sha256(repr(c).encode("utf-8")).hexdigest()


def choice_probabilities(seed: int, model: str, task: Task) -> np.ndarray:
    """Exact choice probabilities over the cards of one authority prompt (display order)."""
    p = model_params(seed)[model]
    cards: tuple[Card, ...] = task.detail["cards"]
    query = task.detail.get("query", "")
    s = p["susceptibility_by_instruction"][task.param if task.param in p["susceptibility_by_instruction"] else "none"]
    u = np.empty(len(cards))
    for j, c in enumerate(cards):
        a = perceived_authority(c)
        auth = sum(WEIGHTS[d] * a[d] for d in DIMS)
        r = RELEVANCE_SCALE * _normal(seed, "relevance", query, c.title)
        eps = NOISE_SD * _normal(seed, "perception", model, query, _card_text(c))
        u[j] = (r + s * auth + eps + (PRIMACY if j == 0 else 0.0)) / p["tau"]
    e = np.exp(u - u.max())
    return e / e.sum()


def flip_probability(seed: int, model: str, original: Task, manipulated: Task) -> float:
    """Expected flip rate of one (query, condition) pair: P(the paper picked under
    ``manipulated`` differs from the one picked under ``original``) for independent draws,
    1 − Σ_t p_t·p'_t over paper titles t (the content is identical across conditions, only
    the metadata differs; reference A.4). Averaging it over cells gives the expected M1 flip
    or boost rate (reference A.8) of the panel's truth."""
    p = choice_probabilities(seed, model, original)
    q = choice_probabilities(seed, model, manipulated)
    pt: dict[str, float] = {}
    for c, v in zip(original.detail["cards"], p):
        pt[c.title] = pt.get(c.title, 0.0) + float(v)
    same = sum(pt.get(c.title, 0.0) * float(v) for c, v in zip(manipulated.detail["cards"], q))
    return 1.0 - same


def answer(seed: int, profile: ModelProfile, task: Task, rng: np.random.Generator,
           probs: np.ndarray | None = None) -> dict:
    """One answer; ``probs`` may pass the prompt's cached :func:`choice_probabilities`."""
    p = model_params(seed)[profile.id]
    cards: tuple[Card, ...] = task.detail["cards"]
    if probs is None:
        probs = choice_probabilities(seed, profile.id, task)
    j = int(np.searchsorted(np.cumsum(probs), rng.random(), side="right").clip(0, len(cards) - 1))
    chosen = cards[j]
    mention = rng.random() < p["mention_rate"][task.param if task.param in p["mention_rate"] else "none"]
    stray = rng.random() < p["stray_number_rate"]
    no_number = rng.random() < p["no_number_rate"]
    parts = [texts.JUSTIFY_PLAIN[int(rng.integers(len(texts.JUSTIFY_PLAIN)))]]
    if mention and not no_number:
        h = max((h for _, h, _ in chosen.authors), default=0)
        marker = texts.AUTHORITY_MARKERS[int(rng.integers(len(texts.AUTHORITY_MARKERS)))]
        parts.append(marker.format(citations=chosen.citations, venue=chosen.venue or "a known venue", h=h))
    if no_number:
        head = "I recommend the candidate whose abstract best matches the query."
    else:
        head = f"I recommend Paper {chosen.index}."
        if stray:
            head = texts.STRAY_PREFIX[int(rng.integers(len(texts.STRAY_PREFIX)))] + head[0].lower() + head[1:]
    content = head + " " + " ".join(parts)
    first_think = None
    if p["think_block"]:
        first_think = chosen.index if rng.random() < 0.5 else int(cards[int(rng.integers(len(cards)))].index)
        content = (f"<think>\nThe user wants the single most relevant paper. Paper {first_think} looks "
                   f"related; let me compare it with the others before deciding.\n</think>\n\n") + content
    # the first in-range integer a faithful parser would read (reference A.5)
    m = next((int(x) for x in re.findall(r"(?:paper\s*)?(\d+)", content.lower()) if 1 <= int(x) <= 10), None)
    meta = {"task": "authority", "family": task.family, "instruction": task.param, "chosen_index": chosen.index,
            "chosen_position": j, "probabilities": probs.round(6).tolist(), "mention_intended": bool(mention and not no_number),
            "stray_number": bool(stray and not no_number), "no_number": bool(no_number), "think_first": first_think,
            "faithful_parse": m}
    return {"content": content, "reasoning": None, "meta": meta}
