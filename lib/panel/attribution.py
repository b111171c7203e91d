"""AttriBench behaviour: naming (or not) the author of a quote (panel.md "Attribution behaviours").

The panel is *given* the quote universe (:class:`QuoteRegistry`: quote, author, race, gender,
log10_hits), so it knows each quote's author, fame and group without importing the analysis.

P(model m knows the author of quote q) = K = σ(α_m + β_m·(fame_q − 5) + g_m·(γ_race + γ_gender))
with γ_black = γ_female = −0.5, γ_asian = γ_latino = γ_AL,m, γ_white = γ_male = 0 and the
model's disparity scale g_m (0.3 for gpt-oss-120b, the paper's exception).

Outcomes (correct / wrong / none, reference B.4) by prompt:

* direct: correct K; otherwise "I don't know" with ω_m (none) or a wrong famous name;
* indirect: the author is named with K·ψ_g, ψ_g = σ(ψ0_m + 0.8·g_m·γ); otherwise a wrong name
  with w_g = σ(logit 0.3 + g_m·o_g), else a summary that names nobody (omission: S_omit);
  indirect_overt: ψ0 shifted by the model's overt shift;
* with retrieved evidence: direct correct with P_ev; indirect with σ(e0_m + g_m·e_g) (S_evid);
  overt with e0 shifted by the model's evidence-overt shift.

Calibration (:func:`model_params`): every parameter is solved so that the panel's expected rates,
on a fame-balanced reference population of each dataset (:func:`reference_population`), sit at
the targets of ``lib/resources/panel_attribution_targets.csv``: the paper's printed values (each
with its line) and, where the paper prints only a bound or a direction, a stated placement.
Per model: α and γ_AL to the direct accuracy of the intersectional and multirace datasets (the
panel cannot tell the datasets apart, their group mix does it), g to "White male about 10 %
higher than any other subgroup" (GPT-5.1, Claude), ψ0 to the indirect accuracy, the overt shift
halfway between indirect and direct, e0 and the evidence-overt shift to the evidence-conditioned
levels. Across the paper's models: the omission offsets o_g to the four S_omit gaps and the
evidence offsets e_g to the two S_evid gaps of §5.2 (means over models).
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from lib import paths
from lib.panel import texts
from lib.panel.calibration import logit, sigmoid
from lib.panel.latent import model_rng
from lib.panel.profiles import ATTRIBUTION, all_profiles
from lib.panel.prompts import Task

GAMMA_BLACK = GAMMA_FEMALE = -0.5
FAME_CENTER = 5.0
GROUP_MENTION_SLOPE = 0.8
ANY_NAME_BASE = 0.3             # indirect: P(some author is named | correct one not) for o_g = 0
GPT_OSS_SCALE = 0.3             # §5.2: GPT-OSS-120B is the exception to the White lead (multirace, S_omit)
#: Reference population (A.6, Table 2): groups are fame-balanced, so every group gets the same
#: fame grid: the quote-level log10_hits of the shipped AttriBench sample, re-centred on the
#: published mean subgroup fame (5.03 intersectional, 5.10 multirace). Multirace ignores gender
#: (§4.1); its male share is the source corpus's 64 % (A.2).
DATASET_FAME = {"intersectional": 5.03, "multirace": 5.10}
MULTIRACE_MALE_SHARE = 0.64
GROUPS = {"intersectional": [("white", "male"), ("white", "female"), ("black", "male"), ("black", "female")],
          "multirace": [("white", None), ("black", None), ("asian", None), ("latino", None)]}
TARGETS = "panel_attribution_targets.csv"
#: Names models fall back on when they guess (used only if the registry is empty).
FALLBACK_FAMOUS = ("Mark Twain", "Albert Einstein", "Oscar Wilde", "Maya Angelou", "Ralph Waldo Emerson")


def normalize_quote(text: str) -> str:
    t = unicodedata.normalize("NFKD", str(text))
    t = "".join(ch for ch in t if not unicodedata.combining(ch)).lower()
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", t)).strip()


class QuoteRegistry:
    """The quote universe the panel answers from (quote, author, race, gender, log10_hits)."""

    COLUMNS = ("quote", "author", "race", "gender", "log10_hits")

    def __init__(self, df: pd.DataFrame | None = None):
        self.df = pd.DataFrame(columns=list(self.COLUMNS))
        self._by_norm: dict[str, int] = {}
        self._famous_cum: np.ndarray | None = None      # an empty registry guesses from FALLBACK_FAMOUS
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


@lru_cache(maxsize=4)
def targets(path: Path | None = None) -> pd.DataFrame:
    """``panel_attribution_targets.csv`` (model, dataset, quantity, target, source)."""
    path = Path(path) if path is not None else paths.RESOURCES / TARGETS
    df = pd.read_csv(path)
    need = {"model", "dataset", "quantity", "target", "source"}
    if need - set(df.columns):
        raise ValueError(f"{path}: missing columns {sorted(need - set(df.columns))} (expected {sorted(need)})")
    df["target"] = pd.to_numeric(df["target"], errors="raise")
    return df


def _t(model: str, dataset: str, quantity: str) -> float | None:
    prof = all_profiles().get(model)
    if prof is not None and prof.own:       # a profile's own model: its runner family's mean (lib.panel.profiles)
        vals = [v for m, p in all_profiles().items() if ATTRIBUTION in p.papers and not p.own
                and p.family == prof.family and (v := _t(m, dataset, quantity)) is not None]
        if vals:
            return float(np.mean(vals))
    t = targets()
    hit = t[(t["model"] == model) & (t["dataset"] == dataset) & (t["quantity"] == quantity)]
    if hit.empty:
        hit = t[(t["model"] == "*") & (t["quantity"] == quantity)]
    return float(hit["target"].iloc[0]) if len(hit) else None


@lru_cache(maxsize=4)
def fame_grid(dataset: str) -> np.ndarray:
    f = _reference_sample()["log10_hits"].to_numpy(float)
    return f - f.mean() + DATASET_FAME[dataset]


@lru_cache(maxsize=4)
def reference_population(dataset: str) -> tuple[tuple[str, str, float], ...]:
    """(race, gender, weight) cells of one dataset's fame-balanced reference population."""
    cells = []
    for race, gender in GROUPS[dataset]:
        if gender is not None:
            cells.append((race, gender, 0.25))
        else:
            cells += [(race, "male", 0.25 * MULTIRACE_MALE_SHARE), (race, "female", 0.25 * (1 - MULTIRACE_MALE_SHARE))]
    return tuple(cells)


def group_rate(p: dict, family: str, evidence: bool, race: str, gender: str | None, key: str,
               dataset: str = "intersectional") -> float:
    """Mean of one outcome probability over the dataset's fame grid for one group (gender None:
    both genders, mixed as in the dataset)."""
    share = {"male": 0.5, "female": 0.5} if dataset == "intersectional" else \
        {"male": MULTIRACE_MALE_SHARE, "female": 1 - MULTIRACE_MALE_SHARE}
    genders = [(gender, 1.0)] if gender is not None else list(share.items())
    f = fame_grid(dataset)
    return float(sum(w * np.mean(_probs(p, family, evidence, f, race, g)[key]) for g, w in genders))


def dataset_rate(p: dict, dataset: str, family: str, evidence: bool, key: str = "correct") -> float:
    """Mean of one outcome probability over the dataset's reference population."""
    cells = reference_population(dataset)
    gam, omit, evid = (np.array(v)[:, None] for v in zip(*(_group(p, r, g) for r, g, _ in cells)))
    w = np.array([c[2] for c in cells])
    vals = _core(p, family, evidence, fame_grid(dataset)[None, :], gam, omit, evid)[key]
    return float(w @ np.asarray(vals).mean(axis=1))


def suppression_gaps(params: dict[str, dict]) -> dict[str, float]:
    """The paper's six suppression gaps (§5.2 line 87) averaged over ``params``' models, on the
    datasets' reference populations."""
    out: dict[str, list] = {}
    for p in params.values():
        om = lambda r, g, d: group_rate(p, "indirect", False, r, g, "none", d)                      # noqa: E731
        ms = lambda r, g, d: 1.0 - group_rate(p, "indirect", True, r, g, "correct", d)             # noqa: E731
        i, m = "intersectional", "multirace"
        wm = om("white", "male", i)
        rows = {"omit: M/Black, F/White vs M/White": (om("black", "male", i) + om("white", "female", i)) / 2 - wm,
                "omit: F/Black vs M/White": om("black", "female", i) - wm,
                "omit: Latino, Asian vs White": (om("latino", None, m) + om("asian", None, m)) / 2 - om("white", None, m),
                "omit: Black vs White": om("black", None, m) - om("white", None, m),
                "evid: Latino, Asian vs White": (ms("latino", None, m) + ms("asian", None, m)) / 2 - ms("white", None, m),
                "evid: F/Black vs M/White": ms("black", "female", i) - ms("white", "male", i)}
        for k, v in rows.items():
            out.setdefault(k, []).append(v)
    return {k: float(np.mean(v)) for k, v in out.items()}


def _bisect(f, lo: float, hi: float, target: float, n: int = 32) -> float:
    """x in [lo, hi] with f(x) = target, f increasing."""
    for _ in range(n):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return 0.5 * (lo + hi)


def _fit_direct(p: dict, mid: str) -> None:
    """α and γ_AL to the two datasets' direct accuracy; for the models with a printed White-male
    lead (GPT-5.1, Claude) also the disparity scale g."""
    ti, tm = _t(mid, "intersectional", "direct_accuracy"), _t(mid, "multirace", "direct_accuracy")

    def solve(g: float) -> None:
        p["disparity_scale"] = g
        p["alpha"] = _bisect(lambda a: dataset_rate({**p, "alpha": a}, "intersectional", "direct", False), -15, 15, ti)
        def multi(x):
            return dataset_rate({**p, "gamma_race": {**p["gamma_race"], "asian": x, "latino": x}}, "multirace", "direct", False)
        x = _bisect(multi, -6.0, 3.0, tm)
        p["gamma_race"] = {**p["gamma_race"], "asian": x, "latino": x}

    lead = _t(mid, "intersectional", "wm_lead_direct") if mid in _printed_models("wm_lead_direct") else None
    if lead is None:
        solve(p["disparity_scale"])
        return

    def gap(g):
        solve(g)
        wm = group_rate(p, "direct", False, "white", "male", "correct")
        return wm - max(group_rate(p, "direct", False, r, s, "correct") for r, s in
                        (("white", "female"), ("black", "male"), ("black", "female")))
    g = _bisect(gap, 0.05, 4.0, lead, n=30)
    solve(g)


def _printed_models(quantity: str) -> set[str]:
    t = targets()
    return set(t.loc[t["quantity"] == quantity, "model"])


def _mean_over_datasets(p: dict, family: str, evidence: bool) -> float:
    return 0.5 * sum(dataset_rate(p, d, family, evidence) for d in DATASET_FAME)


def _fit_levels(p: dict, mid: str) -> None:
    """ψ0 (indirect), the overt shift, e0 (indirect with evidence) and the evidence-overt shift."""
    direct = 0.5 * sum(_t(mid, d, "direct_accuracy") for d in DATASET_FAME)
    printed = [_t(mid, d, "indirect_accuracy") for d in DATASET_FAME] if mid in _printed_models("indirect_accuracy") else None
    indirect = 0.5 * sum(printed) if printed else direct * _t("*", "*", "indirect_to_direct")
    p["indirect_mention_base"] = float(sigmoid(_bisect(
        lambda x: _mean_over_datasets({**p, "indirect_mention_base": float(sigmoid(x))}, "indirect", False),
        -12, 12, indirect)))
    overt = indirect + _t("*", "*", "overt_position") * (direct - indirect)
    p["overt_shift"] = _bisect(lambda x: _mean_over_datasets({**p, "overt_shift": x}, "indirect_overt", False),
                               -5, 15, overt)
    p["evidence_indirect_base"] = float(sigmoid(_bisect(
        lambda x: _mean_over_datasets({**p, "evidence_indirect_base": float(sigmoid(x))}, "indirect", True),
        -12, 12, _t("*", "*", "rag_indirect_accuracy"))))
    p["evidence_overt_shift"] = _bisect(
        lambda x: _mean_over_datasets({**p, "evidence_overt_shift": x}, "indirect_overt", True),
        -5, 15, _t("*", "*", "rag_overt_accuracy"))


OMIT_ROWS = ("omit: M/Black, F/White vs M/White", "omit: F/Black vs M/White", "omit: Latino, Asian vs White",
             "omit: Black vs White")
EVID_ROWS = ("evid: Latino, Asian vs White", "evid: F/Black vs M/White")


def _fit_offsets(paper: dict[str, dict], key: str, rows: tuple[str, ...], n: int) -> np.ndarray:
    """Least squares of the model-mean gaps ``rows`` in the offsets (black, female, asian/latino)
    of ``key`` (the last two shared when ``n`` = 2)."""
    want = {r: _t("mean", "intersectional" if "M/White" in r else "multirace", r) for r in rows}

    def put(x):
        b, f, al = (x[0], x[1], x[2]) if n == 3 else (x[0], x[0], x[1])
        for p in paper.values():
            p[key] = {"black": float(b), "female": float(f), "asian": float(al), "latino": float(al)}

    def resid(x):
        put(x)
        gaps = suppression_gaps(paper)
        return [gaps[r] - want[r] for r in rows]

    x = least_squares(resid, np.full(n, -0.5), bounds=(-6, 3), xtol=1e-6).x
    put(x)
    return x


def _offset(p: dict, key: str, race: str, gender: str) -> float:
    o = p[key]
    return o.get(race, 0.0) + o.get(gender, 0.0) if o else 0.0


def _start(seed: int, mid: str, prof) -> dict:
    """One model's parameters before any solve: the seed's draws (β, ω, starting levels, g)."""
    rng = model_rng(seed, mid, "attribution")
    beta = float(rng.uniform(0.8, 1.3))
    g = GPT_OSS_SCALE if mid == "openai/gpt-oss-120b" else float(rng.uniform(0.8, 1.2))
    return {"alpha": 0.0, "beta_fame": beta, "fame_center": FAME_CENTER, "disparity_scale": g,
            "gamma_race": {"white": 0.0, "black": GAMMA_BLACK, "asian": GAMMA_BLACK, "latino": GAMMA_BLACK},
            "gamma_gender": {"male": 0.0, "female": GAMMA_FEMALE},
            "dont_know_rate": float(rng.uniform(0.2, 0.6)), "indirect_mention_base": float(rng.uniform(0.35, 0.6)),
            "overt_shift": 1.5, "group_mention_slope": GROUP_MENTION_SLOPE,
            "evidence_direct": _t("*", "*", "rag_direct_accuracy"),
            "evidence_indirect_base": float(rng.uniform(0.4, 0.7)), "evidence_overt_shift": 3.0,
            "any_name_base": ANY_NAME_BASE, "omission_offsets": {}, "evidence_offsets": {},
            "in_paper": ATTRIBUTION in prof.papers}


@lru_cache(maxsize=64)
def model_params(seed: int) -> dict[str, dict]:
    """AttriBench parameters of every panel model: the papers' models (:func:`_papers_params`), and a
    profile's own, solved to their runner family's mean targets with the shared offsets as they are
    (lib.panel.profiles module doc): adding a model never moves the paper's models."""
    profiles = all_profiles()
    key = tuple((m, ATTRIBUTION in p.papers) for m, p in profiles.items() if not p.own)
    base = _papers_params(seed, key)
    first = next(p for p in base.values() if p["in_paper"])
    out = {}
    for mid, prof in profiles.items():
        if not prof.own:
            out[mid] = base[mid]
            continue
        p = _start(seed, mid, prof)
        p["omission_offsets"], p["evidence_offsets"] = dict(first["omission_offsets"]), dict(first["evidence_offsets"])
        if p["in_paper"]:
            _fit_direct(p, mid)
            _fit_levels(p, mid)
        else:
            p["alpha"] = _bisect(lambda a: dataset_rate({**p, "alpha": a}, "intersectional", "direct", False),
                                 -15, 15, _t(mid, "intersectional", "direct_accuracy"), n=25)
        p["target_direct_accuracy"] = {d: _t(mid, d, "direct_accuracy") for d in DATASET_FAME}
        out[mid] = p
    return out


@lru_cache(maxsize=64)
def _papers_params(seed: int, papers_models: tuple) -> dict[str, dict]:
    """Every model's attribution parameters but a profile's own (``papers_models``: (id, in
    AttriBench) pairs, the cache key), solved to the targets (module docstring); the draws that no
    target fixes (β, ω, the starting levels, g of the models without a printed lead) come from the seed."""
    out = {}
    for mid, _ in papers_models:
        prof = all_profiles()[mid]
        p = _start(seed, mid, prof)
        if p["in_paper"]:
            _fit_direct(p, mid)
            _fit_levels(p, mid)
        else:   # served for the other papers: only its level is placed (α), the shape is the default
            p["alpha"] = _bisect(lambda a: dataset_rate({**p, "alpha": a}, "intersectional", "direct", False),
                                 -15, 15, _t(mid, "intersectional", "direct_accuracy"), n=25)
        p["target_direct_accuracy"] = {d: _t(mid, d, "direct_accuracy") for d in DATASET_FAME}
        out[mid] = p
    paper = {m: p for m, p in out.items() if p["in_paper"]}
    _fit_offsets(paper, "omission_offsets", OMIT_ROWS, 3)
    for _ in range(2):   # the evidence offsets move the evidence levels: alternate the two solves
        _fit_offsets(paper, "evidence_offsets", EVID_ROWS, 2)
        for mid, p in paper.items():
            _fit_levels(p, mid)
    first = next(iter(paper.values()))
    for p in out.values():
        for key in ("omission_offsets", "evidence_offsets"):
            p[key] = dict(p[key] or first[key])
    return out


def _core(p: dict, family: str, evidence: bool, fame, gam, omit, evid) -> dict:
    """P(knows), P(correct), P(wrong), P(none) for fame values ``fame`` of a group with γ_race + γ_gender
    ``gam`` and omission / evidence offsets ``omit`` / ``evid`` (arrays broadcast against each other)."""
    g = p["disparity_scale"]
    K = sigmoid(p["alpha"] + p["beta_fame"] * (fame - p["fame_center"]) + g * gam)
    if family == "direct":
        c = np.broadcast_to(p["evidence_direct"], K.shape) if evidence else K
        return {"knows": K, "correct": c, "wrong": (1 - c) * (1 - p["dont_know_rate"]),
                "none": (1 - c) * p["dont_know_rate"]}
    if evidence:
        base = logit(p["evidence_indirect_base"]) + (p["evidence_overt_shift"] if family == "indirect_overt" else 0.0)
        c = np.broadcast_to(sigmoid(base + g * evid), K.shape)
    else:
        base = logit(p["indirect_mention_base"]) + (p["overt_shift"] if family == "indirect_overt" else 0.0)
        c = K * sigmoid(base + p["group_mention_slope"] * g * gam)
    w = sigmoid(logit(p["any_name_base"]) + g * omit)
    return {"knows": K, "correct": c, "wrong": (1 - c) * w, "none": (1 - c) * (1 - w)}


def _group(p: dict, race: str, gender: str) -> tuple[float, float, float]:
    race, gender = str(race).lower(), str(gender).lower()
    gam = p["gamma_race"].get(race, 0.0) + p["gamma_gender"].get(gender, 0.0)
    return gam, _offset(p, "omission_offsets", race, gender), _offset(p, "evidence_offsets", race, gender)


def _probs(p: dict, family: str, evidence: bool, fame, race: str, gender: str) -> dict:
    """P(correct), P(wrong), P(none) (and P(knows)) for quotes of one group at fame values ``fame``."""
    return _core(p, family, evidence, np.asarray(fame, float), *_group(p, race, gender))


def outcome_probabilities(p: dict, family: str, evidence: bool, fame: float, race: str, gender: str) -> dict:
    """P(correct), P(wrong), P(none) for one quote (the truth behind the AttriBench metrics)."""
    return {k: float(v[0]) for k, v in _probs(p, family, evidence, [fame], race, gender).items()}


def expected_published(params: dict[str, dict]) -> dict[str, float]:
    """The panel's expected value of every quantity of ``panel_attribution_targets.csv`` that names a
    model (or the model mean), keyed '<model>|<dataset>|<quantity>'."""
    out = {}
    paper = {m: p for m, p in params.items() if p["in_paper"]}
    gaps = suppression_gaps(paper)
    for r in targets().itertuples(index=False):
        if r.model == "*":
            continue
        if r.model == "mean":
            out[f"mean|{r.dataset}|{r.quantity}"] = gaps[r.quantity]
            continue
        p = params[r.model]
        if r.quantity in ("direct_accuracy", "indirect_accuracy"):
            v = dataset_rate(p, r.dataset, r.quantity.split("_")[0], False)
        elif r.quantity == "wm_lead_direct":
            wm = group_rate(p, "direct", False, "white", "male", "correct")
            v = wm - max(group_rate(p, "direct", False, a, b, "correct")
                         for a, b in (("white", "female"), ("black", "male"), ("black", "female")))
        elif r.quantity == "white_lead_black_direct":
            v = (group_rate(p, "direct", False, "white", None, "correct", "multirace")
                 - group_rate(p, "direct", False, "black", None, "correct", "multirace"))
        else:
            raise ValueError(f"{TARGETS}: unknown quantity {r.quantity!r} for model {r.model}")
        out[f"{r.model}|{r.dataset}|{r.quantity}"] = v
    return out


def target_table(params: dict[str, dict]) -> pd.DataFrame:
    """The model-level rows of the targets with the panel's expected value next to each
    (model, dataset, quantity, target, expected, source)."""
    exp = expected_published(params)
    t = targets()
    t = t[t["model"] != "*"].copy()
    t["expected"] = [exp[f"{m}|{d}|{q}"] for m, d, q in zip(t["model"], t["dataset"], t["quantity"])]
    return t[["model", "dataset", "quantity", "target", "expected", "source"]].reset_index(drop=True)


def wrong_name_rate(p: dict, race: str, gender: str) -> float:
    """Indirect prompts: P(a wrong author is named | the correct one is not), lower for groups with
    negative omission offsets (more omission: S_omit)."""
    return float(sigmoid(logit(p["any_name_base"]) + p["disparity_scale"] * _group(p, race, gender)[1]))


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
