"""Authority-bias behaviour: picking one of ten paper cards (panel.md "Authority-bias behaviours").

Model m under instruction v picks card i with probability

    p_i = softmax_i((r_i + q_i + ε_m,i + s_m,v · g_m(Σ_d w_d · a_i,d) + π·[i = 1]) / τ_m,v)

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
* g_m: the authority the model *credits* (:func:`credited`): Σ_d w_d·a_d up to a credibility
  ceiling C_m (a soft minimum). Weak metadata cost a paper, metadata beyond credible earn little:
  that is how a swap of a top paper's metadata moves picks (39.2 % flips) while inflating a mid
  paper's barely does (the boosted paper picked at 1.06× chance, §5.5; the boost rate unmoved by
  instructions, §5.7). The 1:N pilot reads the linear sum (its prompts measure the weights);
* r_i: latent content relevance, 1.0·z with z ~ N(0, 1) from sha256(seed, query, title),
  shared by all models (so models agree above chance) and identical across conditions (the
  content is unchanged); q_i the content quality the abstract reports (:func:`reported_gain`,
  :data:`QUALITY_PER_POINT`): highly cited papers report larger gains in the synthetic corpus,
  so top-tier papers take 52 % of original picks and keep about their share when their metadata
  are swapped away (Table 9);
* ε_m,i ~ N(0, 0.6²) from sha256(seed, model, query, title and abstract): a model's idiosyncratic
  reading of that paper's content, fixed across replicates and conditions (partly read anew
  under the mild and strong instructions, :data:`INSTRUCTION_READING`); for the three frontier
  models half of its variance is a reading they share (Appendix G: they agree on 61–63 % of selections, the only
  pairs above 60 %, against a 43.9 % mean, Table 8); π = 0.1 a small primacy bonus;
* s_m,v (susceptibility), τ_m,v (choice temperature), C_m and a topic factor t_k (the content
  terms are divided by it) are fitted (:mod:`lib.panel.authority_fit`, stored in
  ``lib/resources/panel_authority_fit.json``) so that the expected flip and boost rates per model
  and instruction, the boosted-pick lift per model and the pooled flip rate per topic equal the
  published ones (``lib/resources/panel_authority_targets.csv``: Tables 7, 11, 12, 19, 21,
  Appendix G), with a topic noise factor n_k (multiplying τ) for the two topics whose boost
  rate Table 19 prints. The mild instruction's s therefore rises for the three frontier models
  and mistral (the backfire, §5.7) and falls for the others and gpt-4o-mini; the strong one
  falls for all.

The justification names an authority marker with probability μ_m,v = μ_m · (1 ± Δ/2) (baseline
+, strong −, mild μ_m), μ_m the published per-model rate (App. G) and Δ = 24.0pp / 17.6 %: the
mention rates fall faster than flips (the say-do gap, Table 13). The marker sentence is drawn
from :data:`MARKERS` (Table 23's category shares). Open models put a stray number before the
choice with probability 0.04 and omit the number with probability 0.009 (99.1 % parse rate,
appendix A.5); deepseek-r1:8b writes a <think> block whose first paper number is a random
candidate with probability 0.1 (the faithful parser's quirk, reference A.5).
:func:`observed_from_choice` folds these quirks into the distribution the faithful parser reads,
which is what the fit and the expected rates use.
"""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from statistics import NormalDist, median

import numpy as np
import pandas as pd

from lib import paths
from lib.panel import texts
from lib.panel.latent import seed_int
from lib.panel.profiles import AUTHORITY, ModelProfile, all_profiles
from lib.panel.prompts import Card, Task

WEIGHTS = {"venue": 0.3531, "median_h": 0.2918, "max_h": 0.1868, "citations": 0.1372, "affiliation": 0.0311}
DIMS = tuple(WEIGHTS)

#: Published per-model rates live in ``lib/resources/panel_authority_targets.csv`` (each with its
#: source line); the parameters fitted to them in ``panel_authority_fit.json``
#: (:mod:`lib.panel.authority_fit`).
FIT_FILE = "panel_authority_fit.json"

_STD_NORMAL = NormalDist()
RELEVANCE_SCALE = 1.0
#: Spread of a model's own reading ε and, for the frontier cohort, the share of its variance they
#: have in common: with these the expected selection agreement over the 250 synthetic queries is
#: 0.45 (Table 8: 43.9 %) and the three frontier pairs 0.61–0.66 (Appendix G: 61.0–63.0 %), all
#: other pairs under 0.50 (tests/panel/test_calibration.py holds them).
NOISE_SD = 0.6
SHARED_READING = {"frontier": 0.58}
#: Share of that reading's variance that changes with the instruction's wording, per cohort: a
#: model reads the same paper partly anew under the mild and strong instructions (the baseline
#: prompt, which the 1:N pilot also sends, keeps its reading). The paper's McNemar tests of the
#: mild instruction imply how often a model's baseline and mild flip indicators disagree: −2.3 pp
#: at p = .059 over all 2,000 pairs needs about 590 discordant ones (30 %), the frontier models'
#: +3.9 pp at p = .02 over 750 about 155 (21 %), so the open models' 1,250 pairs about 435 (35 %).
#: Without it the panel's shares are 16 % (frontier) and 25 % (open), and a 2.3 pp change would be
#: significant (p ≈ .02).
INSTRUCTION_READING = {"frontier": 0.15, "open": 0.9}
PRIMACY = 0.1
STRAY_RATE_OPEN = 0.04
NO_NUMBER_RATE_OPEN = 0.009
#: deepseek-r1's <think> trace names a paper before the answer; with this probability it is a
#: random candidate rather than the chosen one (the faithful parser then reads the wrong
#: number, reference A.5). Kept small enough that the published deepseek rates (41.9 % flips,
#: 35.4 % boosts, measured with that parser) stay reachable.
THINK_OTHER_RATE = 0.1
#: Mention rate per instruction relative to the model's rate over all instructions (App. G):
#: baseline and strong are 1 ± Δ/2 with Δ = 24.0pp / 17.6 % (Table 13's drop over the mean
#: per-model rate), mild is the mean (its rate is not printed).
_MENTION_SPREAD = 24.0 / 17.6
MENTION_BY_VARIANT = {"none": 1.0 + _MENTION_SPREAD / 2, "mild": 1.0, "strong": 1.0 - _MENTION_SPREAD / 2}
#: Authority-marker sentences of the justifications, each hitting exactly one marker category
#: of reference A.8 M5, with the share of mentions using it (Table 23: citation count and impact
#: about two thirds, recency 14.3 %, h-index / venue / institution each under 3 %).
MARKERS = (
    ("citations", 0.40, "It has a large citation count for a paper of its age."),
    ("impact", 0.267, "The work has had a clear impact on later research."),
    ("recency", 0.143, "It is the most recent study among the candidates."),
    ("author_prestige", 0.07, "Its authors are prominent in this area."),
    ("credibility", 0.045, "The reputation of the group adds weight to it."),
    ("h-index", 0.025, "Its last author has an h-index of {h}."),
    ("venue_prestige", 0.025, "It appeared in a premier venue for this area."),
    ("institution_name", 0.025, "It comes from a group at Google."),
)
#: The 25 topics of the paper (Table 18/19); the panel recognises a prompt's topic from the
#: topic name in its query and abstracts, so topic susceptibility (Table 19) can differ.
TOPICS = ("Knowledge Distillation", "Prompt Engineering", "LLM Alignment", "Text Summarization", "Machine Translation",
          "Named Entity Recognition", "Sentiment Analysis", "Question Answering", "Federated Learning", "Meta-Learning",
          "Reinforcement Learning", "Transfer Learning", "Self-Supervised Learning", "Graph Neural Networks",
          "Generative Adversarial Networks", "Object Detection", "Image Segmentation", "Image Generation",
          "Explainable AI", "Fairness in Machine Learning", "Adversarial Robustness", "Recommender Systems",
          "Time Series Forecasting", "Neural Architecture Search", "Attention Mechanisms")

#: Typical spread (standard deviation) of each shown dimension over the candidates of the five
#: pilot topics of the synthetic corpus (the paper's raw components, spec A.3), the sample the
#: pilot regression z-scores over: the panel's sense of "one notch more".
SPREAD = {"venue": 0.322, "median_h": 9.58, "max_h": 31.8, "citations": 796.0, "affiliation": 0.202}
#: A one-spread difference counts as this much perceived authority (keeps Σ_d w_d·a_d on the
#: order of the former [0, 1] scale).
SPREAD_UNIT = 0.3
#: Softness κ of the credibility ceiling (:func:`credited`), in the units of Σ_d w_d·a_d (a
#: typical mid-tier card shows 0.38, a top-tier one 0.58, a boosted one 1.09). Sharp enough that a
#: card at or above the ceiling gains little from a boost (one showing exactly C gains κ·ln 2 =
#: 0.028); at 0.08 the boosted-pick lifts came out 0.03–0.08 higher.
CREDIT_SOFTNESS = 0.04
#: Content quality: the panel prefers papers whose abstract reports a larger gain, by this much
#: relevance per point above the mean gain of the prompt's cards (a choice depends only on differences).
#: Set so that top-tier papers take 52 % of original picks (paper Table 9: 52.1 %) and keep about
#: their share when their metadata are swapped away (32.5 % under flipped).
QUALITY_PER_POINT = 0.18
_GAIN = re.compile(r"(\d+(?:\.\d+)?) points")


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


def cohort(model: str) -> str:
    return _tier_cohort(all_profiles()[model])


#: The authority paper's models (headline eight and the gpt-4o-mini ablation), in profile order.
AUTHORITY_MODELS = tuple(m for m, p in all_profiles().items() if AUTHORITY in p.papers and p.tier)


@lru_cache(maxsize=1)
def fitted() -> dict:
    """The fitted parameters (``lib/resources/panel_authority_fit.json``, :mod:`lib.panel.authority_fit`)."""
    path = paths.RESOURCES / FIT_FILE
    try:
        fit = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"the authority panel needs its fitted parameters {path} "
                                "(python -m lib.panel.authority_fit)") from exc
    for key in ("models", "topic_multiplier", "seed"):
        if key not in fit:
            raise ValueError(f"{path}: missing field {key!r}")
    return fit


@lru_cache(maxsize=1)
def _mention_targets() -> dict[str, float]:
    t = pd.read_csv(paths.RESOURCES / "panel_authority_targets.csv", keep_default_na=False)
    t = t[t["quantity"] == "mention_rate"]
    return {n: float(v) / 100 for n, v in zip(t["name"], t["value"])}


@lru_cache(maxsize=64)
def model_params(seed: int) -> dict[str, dict]:
    """Authority parameters of every panel model (the truth exported by :func:`lib.panel.truth`).

    τ and s per instruction come from the fit; models the authority paper does not run (and
    gemini-2.5-flash, archived in its extension) take the mean fit of their cohort."""
    fit = fitted()["models"]
    mentions = _mention_targets()
    by_cohort: dict[str, list] = {}
    for m, f in fit.items():
        by_cohort.setdefault(cohort(m), []).append(f)
    out = {}
    for mid, prof in all_profiles().items():
        c = _tier_cohort(prof)
        f = fit.get(mid)
        if f is None:
            pool = by_cohort.get(c) or by_cohort.get("open") or list(fit.values())
            f = {"ceiling": float(np.mean([x["ceiling"] for x in pool])),
                 **{k: {v: float(np.mean([x[k][v] for x in pool])) for v in ("none", "mild", "strong")} for k in ("tau", "s")}}
        s = dict(f["s"])
        mu = mentions.get(mid, mentions.get("all", 0.176))
        opened = c == "open"
        out[mid] = {
            "cohort": c, "fitted": mid in fit, "susceptibility": s["none"],
            "instruction_multiplier": {v: (s[v] / s["none"] if s["none"] > 0 else 1.0) for v in s},
            "susceptibility_by_instruction": s,
            "tau": {v: float(t) for v, t in f["tau"].items()}, "credit_ceiling": float(f["ceiling"]), "credit_softness": CREDIT_SOFTNESS,
            "quality_per_point": QUALITY_PER_POINT,
            "weights": dict(WEIGHTS), "relevance_scale": RELEVANCE_SCALE, "noise_sd": NOISE_SD,
            "shared_reading": SHARED_READING.get(c, 0.0), "instruction_reading": INSTRUCTION_READING.get(c, 0.0),
            "primacy": PRIMACY, "topic_multiplier": dict(fitted()["topic_multiplier"]),
            "topic_noise": dict(fitted().get("topic_noise", {})),
            "mention_rate": {v: min(1.0, mu * r) for v, r in MENTION_BY_VARIANT.items()},
            "marker_mix": {k: w for k, w, _ in MARKERS},
            "stray_number_rate": STRAY_RATE_OPEN if opened else 0.0,
            "no_number_rate": NO_NUMBER_RATE_OPEN if opened else 0.0,
            "think_block": bool(prof.think_in_content),
            "think_other_rate": THINK_OTHER_RATE if prof.think_in_content else 0.0,
            "in_paper": AUTHORITY in prof.papers,
        }
    return out


def topic_of(task: Task) -> str:
    """The paper topic whose name occurs most often in the query and abstracts ('' if none)."""
    text = " ".join([task.detail.get("query", "")] + [c.title + " " + c.abstract for c in task.detail["cards"]]).lower()
    counts = {t: text.count(t.lower()) for t in TOPICS}
    best = max(counts, key=counts.get)
    return best if counts[best] else ""


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
    """The card's content (title and abstract): the model's reading of a paper does not change
    with its metadata, so only s·authority moves a pick between conditions."""
    return hashlib.sha256(f"{c.title}\n{c.abstract}".encode("utf-8")).hexdigest()


def reported_gain(abstract: str) -> float:
    """The gain (points) an abstract reports; NaN if it reports none."""
    m = _GAIN.search(abstract)
    return float(m.group(1)) if m else float("nan")


def card_terms(seed: int, task: Task) -> tuple[np.ndarray, np.ndarray]:
    """Model-independent terms per card, display order: Σ_d w_d·a_d and the content term: the
    relevance r plus the quality the abstract reports (:data:`QUALITY_PER_POINT` per point above
    the prompt's mean; a card reporting no gain counts as the mean)."""
    cards: tuple[Card, ...] = task.detail["cards"]
    query = task.detail.get("query", "")
    a = np.array([sum(WEIGHTS[d] * x for d, x in perceived_authority(c).items()) for c in cards])
    g = np.array([reported_gain(c.abstract) for c in cards])
    g = np.nan_to_num(g - np.nanmean(g)) if np.isfinite(g).any() else np.zeros(len(cards))
    r = np.array([RELEVANCE_SCALE * _normal(seed, "relevance", query, c.title) for c in cards]) + QUALITY_PER_POINT * g
    return a, r


def credited(a: np.ndarray, ceiling: float) -> np.ndarray:
    """The authority a model credits: Σ_d w_d·a_d up to its credibility ceiling C_m, a soft minimum
    −κ·log(e^(−a/κ) + e^(−C/κ)) (κ = :data:`CREDIT_SOFTNESS`). Weak metadata cost a paper, metadata
    beyond "credible" earn little: swapping a top paper's metadata away moves picks (39.2 % flips),
    inflating a mid paper's barely does (boosted papers picked at 1.06× chance, the boost rate
    unmoved by instructions; paper §5.5, §5.7, Appendix G)."""
    k = CREDIT_SOFTNESS
    return -k * np.logaddexp(-np.asarray(a, dtype=float) / k, -ceiling / k)


def card_noise(seed: int, model: str, task: Task) -> np.ndarray:
    """The model's idiosyncratic reading ε of each card (fixed across replicates and conditions): of
    the paper's content in the main experiment, of the whole card in a 1:N pilot prompt (one
    content); under the mild and strong instructions partly read anew (:data:`INSTRUCTION_READING`)."""
    query = task.detail.get("query", "")
    key = (lambda c: hashlib.sha256(repr(c).encode("utf-8")).hexdigest()) if task.family == "pilot_1n" else _card_text
    keys = [key(c) for c in task.detail["cards"]]
    c = cohort(model)
    anew = INSTRUCTION_READING.get(c, 0.0) if task.family != "pilot_1n" and task.param in ("mild", "strong") else 0.0

    def reading(who: str) -> np.ndarray:
        x = np.array([_normal(seed, "perception", who, query, k) for k in keys])
        if anew:
            fresh = np.array([_normal(seed, "perception", who, query, k, task.param) for k in keys])
            x = np.sqrt(1.0 - anew) * x + np.sqrt(anew) * fresh
        return x

    rho = SHARED_READING.get(c, 0.0)
    if not rho:
        return NOISE_SD * reading(model)
    return NOISE_SD * (np.sqrt(rho) * reading(f"cohort:{c}") + np.sqrt(1.0 - rho) * reading(model))


#: 1:N pilot prompts (one paper's content on every card) are outside the main-experiment fit;
#: there the panel keeps a graded contrast: s = PILOT_S0 · F_m / F̄ (F the published overall flip
#: rate, F̄ its mean over the paper's models) at τ = PILOT_TAU · U(0.85, 1.15) per model, and the
#: perception noise reads the whole card. The paper's pilot effect is small (McFadden R² 0.033,
#: A.7); a saturated softmax would hide the weights' order from the regression.
PILOT_S0, PILOT_TAU = 1.5, 0.18


@lru_cache(maxsize=64)
def _pilot_params(seed: int) -> dict[str, tuple[float, float]]:
    t = pd.read_csv(paths.RESOURCES / "panel_authority_targets.csv", keep_default_na=False)
    t = t[t["quantity"] == "flip_rate"]
    flips = {n: float(v) for n, v in zip(t["name"], t["value"])}
    mean = float(np.mean(list(flips.values())))
    out = {}
    for mid, prof in all_profiles().items():
        rng = np.random.default_rng(seed_int(seed, "latent", mid, "authority"))
        f = flips.get(mid, mean)
        out[mid] = (PILOT_S0 * f / mean, float(PILOT_TAU * rng.uniform(0.85, 1.15)))
    return out


def effective_susceptibility(seed: int, model: str, task: Task) -> float:
    p = model_params(seed)[model]
    if task.family == "pilot_1n":
        return _pilot_params(seed)[model][0]
    v = task.param if task.param in p["susceptibility_by_instruction"] else "none"
    return p["susceptibility_by_instruction"][v]


def topic_factor(seed: int, model: str, task: Task) -> float:
    """t_k of the prompt's topic: the content terms are divided by it (a flatter content reading
    on susceptible topics), which leaves the authority contrast s/τ the same on every topic."""
    if task.family == "pilot_1n":
        return 1.0
    return model_params(seed)[model]["topic_multiplier"].get(topic_of(task), 1.0)


def topic_noise(seed: int, model: str, task: Task) -> float:
    """n_k of the prompt's topic: multiplies τ (picks in that topic are noisier; Table 19 GANs)."""
    if task.family == "pilot_1n":
        return 1.0
    return model_params(seed)[model]["topic_noise"].get(topic_of(task), 1.0)


def choice_probabilities(seed: int, model: str, task: Task) -> np.ndarray:
    """Exact choice probabilities over the cards of one authority prompt (display order)."""
    p = model_params(seed)[model]
    a, r = card_terms(seed, task)
    if task.family != "pilot_1n":     # the pilot reads the weights on a graded, uncapped scale (Table 1)
        a = credited(a, p["credit_ceiling"])
    u = (r + card_noise(seed, model, task)) / topic_factor(seed, model, task) + effective_susceptibility(seed, model, task) * a
    u[0] += PRIMACY
    v = task.param if task.param in p["tau"] else "none"
    u = u / (_pilot_params(seed)[model][1] if task.family == "pilot_1n" else p["tau"][v] * topic_noise(seed, model, task))
    e = np.exp(u - u.max())
    return e / e.sum()


@lru_cache(maxsize=1)
def _stray_numbers() -> tuple[int, ...]:
    """The number the faithful parser reads in each stray prefix (texts.STRAY_PREFIX)."""
    out = []
    for t in texts.STRAY_PREFIX:
        n = next(int(x) for x in re.findall(r"(\d+)", t) if 1 <= int(x) <= 10)
        out.append(n)
    return tuple(out)


def observed_from_choice(model: str, p: np.ndarray) -> np.ndarray:
    """The distribution of the paper number the faithful parser reads (reference A.5), given the
    choice distribution ``p`` (rows: prompts, columns: display positions 1..n), conditional on a
    number being read: deepseek-r1's trace always names a paper before the answer (the chosen one,
    or a random candidate with probability θ), so its stray prefixes are never read; for the other
    open models a stray prefix puts its number first."""
    prof = all_profiles()[model]
    p = np.atleast_2d(np.asarray(p, dtype=float))
    n = p.shape[1]
    if _tier_cohort(prof) == "open" and not prof.think_in_content:
        q = np.zeros(n)
        for k in _stray_numbers():
            if k <= n:
                q[k - 1] += 1.0 / len(_stray_numbers())
        p = (1 - STRAY_RATE_OPEN) * p + STRAY_RATE_OPEN * q[None, :]
    if prof.think_in_content:
        p = (1 - THINK_OTHER_RATE) * p + THINK_OTHER_RATE / n
    return p


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
        w = np.array([x for _, x, _ in MARKERS])
        k = int(np.searchsorted(np.cumsum(w / w.sum()), rng.random(), side="right").clip(0, len(MARKERS) - 1))
        parts.append(MARKERS[k][2].format(h=h))
    if no_number:
        head = "I recommend the candidate whose abstract best matches the query."
    else:
        head = f"I recommend Paper {chosen.index}."
        if stray:
            head = texts.STRAY_PREFIX[int(rng.integers(len(texts.STRAY_PREFIX)))] + head[0].lower() + head[1:]
    content = head + " " + " ".join(parts)
    first_think = None
    if p["think_block"]:
        first_think = (int(cards[int(rng.integers(len(cards)))].index) if rng.random() < p["think_other_rate"]
                       else chosen.index)
        content = (f"<think>\nThe user wants the single most relevant paper. Paper {first_think} looks "
                   f"related; let me compare it with the others before deciding.\n</think>\n\n") + content
    # the first in-range integer a faithful parser would read (reference A.5)
    m = next((int(x) for x in re.findall(r"(?:paper\s*)?(\d+)", content.lower()) if 1 <= int(x) <= 10), None)
    meta = {"task": "authority", "family": task.family, "instruction": task.param, "chosen_index": chosen.index,
            "chosen_position": j, "probabilities": probs.round(6).tolist(), "mention_intended": bool(mention and not no_number),
            "stray_number": bool(stray and not no_number), "no_number": bool(no_number), "think_first": first_think,
            "faithful_parse": m}
    return {"content": content, "reasoning": None, "meta": meta}
