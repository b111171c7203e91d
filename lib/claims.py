"""The claims ledger: each headline claim of the papers, checked on the regenerated data.

A claim is a sentence from a paper ("higher temperature lowers validity", "39.2% of
recommendations flip") with a check: a function of the regenerated tables that builds the claim's statistics as
:class:`Interval` rows (estimate, 95 % interval, threshold, side, test) and hands them to
:func:`judge`, which returns a :class:`Verdict` with one of four outcomes under :data:`RULE`
(held / contradicted / inconclusive / not applicable) and, when inconclusive, the sample size
that would decide it (:func:`lib.stats.n_to_decide`) and the shipped profile reaching it. Each
paper package owns a table of :class:`Check` rows (``<paper>/claims.py``) and one ``check_all``
that hands its tables to :func:`run_checks`; every verdict is written as one JSON record under
``outputs/records/claims/`` and the runner gathers them into ``outputs/claims.md``: per paper a
table (claim, outcome, deciding statistic, size to decide, the command that reproduces it, that
notebook's measured time on this run) with its forest plot, and per artifact the claims it
supports (:func:`lib.claims_plot.write_markdown` writes both; it sits above this module).

On the embedded synthetic default a claim that *holds* shows that the pipeline reproduces the
paper's qualitative result on a panel calibrated to the published aggregates, not that the
claim is true of real LLMs; ``claims.md`` says so at the top and on every synthetic row. A
``synthetic: mixed`` profile (a real endpoint asked about synthetic inputs) is labelled *mixed* there.
"""
from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Callable, Literal

from lib import artifacts, paths

Status = Literal["held", "contradicted", "inconclusive", "not applicable"]
STATUSES = ("held", "contradicted", "inconclusive", "not applicable")
#: The rule every check applies to each of its statistics (DESIGN.md, "Verdicts").
RULE = ("held: the 95 % interval of each statistic lies on the claim's side of its threshold; contradicted: "
        "an interval lies on the other side; inconclusive: an interval contains its threshold; not applicable: "
        "the data at hand cannot test the claim (no model of the named kind, too few valid answers)")
#: Sides of a threshold a claim can take. "not above" / "not below" are the side conditions of a
#: compound claim in the paper's own words ("lowest or not significantly above the lowest"): held
#: while the interval reaches the threshold, contradicted when it lies beyond. A claim that something
#: does not change is instead "below" (and "above") an equivalence margin, the smallest change that
#: counts (:func:`lib.stats.small_effect`), so that it is decided by the data and not by the sample size.
SIDES = ("above", "below", "not above", "not below")
KEY_NUMBERS = 4  # numbers shown in the per-paper table; all of them are in the details below it
POWER = 0.8      # the power at which an inconclusive claim's deciding sample size is computed


@dataclass(frozen=True)
class Claim:
    """One claim: ``id`` is unique (e.g. ``lsb-temp-validity``), ``where`` cites the paper's section,
    ``artifacts`` the registered artifacts (figures, tables) whose data the claim is read from."""

    id: str
    paper: str
    where: str
    statement: str
    artifacts: tuple[str, ...] = ()


def make_claim(id: str, paper: str, where: str, statement: str, *arts: str) -> Claim:
    """A :class:`Claim` with its artifacts as trailing arguments (the one constructor the papers'
    claim tables use)."""
    return Claim(id, paper, where, statement, tuple(arts))


def claim_maker(paper: str):
    """:func:`make_claim` with ``paper`` fixed: ``claim_maker(P)(id, where, statement, *arts)``, the
    constructor one paper's claim table calls for each claim."""
    def claim(id: str, where: str, statement: str, *arts: str) -> Claim:
        return make_claim(id, paper, where, statement, *arts)
    return claim


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


@dataclass(frozen=True)
class Interval:
    """One judged statistic: its estimate and 95 % interval, the threshold and the side of it the
    claim takes, the test that built the interval, and the ``n`` units (of ``unit``; per group for
    a ``two-sample`` design) it rests on, for the power calculation. ``published`` is the paper's
    printed value of the statistic where it prints one. ``can_contradict`` False: a significance
    test whose failure to reject is inconclusive, never a contradiction (e.g. a χ² homogeneity test)."""

    statistic: str
    estimate: float
    low: float
    high: float
    threshold: float = 0.0
    side: str = "above"
    test: str = ""
    n: float | None = None
    unit: str = ""
    design: str = "two-sample"
    published: float | None = None
    can_contradict: bool = True
    n_needed: float | None = None   # precomputed deciding size (a test the interval scaling does not fit)
    alpha: float = 0.05             # the interval is (1 − alpha): a family's Bonferroni share is narrower than 0.05

    def __post_init__(self):
        if self.side not in SIDES:
            raise ValueError(f"interval {self.statistic!r}: side must be one of {SIDES}, got {self.side!r}")
        if self.design not in ("one-sample", "two-sample"):
            raise ValueError(f"interval {self.statistic!r}: design must be 'one-sample' or 'two-sample', got {self.design!r}")
        for k in ("estimate", "low", "high", "threshold"):
            object.__setattr__(self, k, float(getattr(self, k)))

    @property
    def outcome(self) -> Status:
        """The four outcomes of :data:`RULE` for this statistic alone."""
        lo, hi, t = self.low, self.high, self.threshold
        if _nan(lo) or _nan(hi) or _nan(self.estimate):
            return "not applicable"
        if self.side == "not above":
            return "held" if lo <= t else "contradicted"
        if self.side == "not below":
            return "held" if hi >= t else "contradicted"
        on, off = (lo > t, hi < t) if self.side == "above" else (hi < t, lo > t)
        if on:
            return "held"
        return "contradicted" if off and self.can_contradict else "inconclusive"

    @property
    def margin(self) -> float:
        """Distance from the threshold to the interval's near end, in half-widths of the interval,
        signed positive on the claim's side (what the forest plot draws; 0 = touching)."""
        t, e = self.threshold, self.estimate
        half = (self.high - self.low) / 2 or 1e-12
        toward = 1 if self.side in ("above", "not below") else -1
        return float(toward * (e - t) / half)

    def rule(self) -> str:
        test = f", {self.test}" if self.test else ""
        return f"{self.statistic} {self.side} {self.threshold:g}{test}"

    def needed(self) -> float:
        """The sample size (of ``unit``) that would decide an inconclusive statistic
        (:func:`lib.stats.n_to_decide` at :data:`POWER`), or the precomputed one."""
        if self.n_needed is not None:
            return float(self.n_needed)
        if self.n is None:
            return float("nan")
        from lib import stats      # here: the runner reads the ledger without loading scipy (1 s a start)

        return stats.n_to_decide(self.estimate, self.low, self.high, self.threshold, float(self.n),
                                 design=self.design, alpha=self.alpha, power=POWER)

    @property
    def leaning(self) -> str:
        """Which way the deciding size would decide an inconclusive statistic if the true effect
        were the observed one: "held" with the estimate on the claim's side of the threshold,
        "contradicted" on the other side (a significance test's larger sample only rejects)."""
        far = self.side in ("above", "below") and self.can_contradict and self.margin <= 0
        return "contradicted" if far else "held"

    def needed_at_published(self) -> float | None:
        """The deciding size if the true effect were the paper's printed value (this interval's
        spread, moved to centre on it): a run's small observed effect can make the paper's own
        sample look too small. None without a printed value on the claim's side of the threshold."""
        pub = self.published
        toward = {"above": 1, "below": -1}.get(self.side)
        if pub is None or toward is None or self.n_needed is not None or toward * (pub - self.threshold) <= 0:
            return None
        return replace(self, estimate=pub, low=pub - (self.estimate - self.low),
                       high=pub + (self.high - self.estimate)).needed()

    def record(self) -> dict:
        return {**asdict(self), "outcome": self.outcome, "rule": self.rule()}


def interval(statistic: str, estimate, low, high, threshold: float = 0.0, side: str = "above", **kw) -> Interval:
    """An :class:`Interval` (keyword arguments as its fields)."""
    return Interval(statistic, estimate, low, high, threshold, side, **kw)


def significance(statistic: str, p: float, *, test: str, alpha: float = 0.05, n_needed: float | None = None,
                 **kw) -> Interval:
    """A significance test as an interval-less statistic: −log10 p against −log10 α. Held when
    p < α; otherwise inconclusive (failing to reject never contradicts)."""
    e = -math.log10(max(float(p), 1e-300))
    return Interval(f"−log10 p ({statistic})", e, e, e, -math.log10(alpha), "above", test=test,
                    can_contradict=False, n_needed=n_needed, **kw)


@dataclass
class Verdict:
    status: Status
    numbers: dict = field(default_factory=dict)
    detail: str = ""
    tests: list = field(default_factory=list)     # Interval.record() of every judged statistic
    decide: dict = field(default_factory=dict)    # inconclusive: the sample size that would decide it

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"verdict status must be one of {STATUSES}, got {self.status!r}")


def combine(outcomes) -> Status:
    """The claim's outcome from its statistics': not applicable if any is, contradicted if any is,
    held if all are, else inconclusive."""
    outcomes = list(outcomes)
    if not outcomes or "not applicable" in outcomes:
        return "not applicable"
    if "contradicted" in outcomes:
        return "contradicted"
    return "held" if all(o == "held" for o in outcomes) else "inconclusive"


def judge(tests, numbers: dict | None = None, note: str = "") -> Verdict:
    """Judge a claim on its statistics (every one must hold, :func:`combine`). ``numbers``: more
    numbers for the report; ``note``: what the statistics are, prefixed to the stated rule.
    An inconclusive verdict carries in ``decide`` the largest deciding sample size of its
    inconclusive statistics (:meth:`Interval.needed`)."""
    tests = list(tests)
    status = combine(t.outcome for t in tests)
    rule = "; ".join(t.rule() for t in tests)
    detail = (f"{note.rstrip('.')}. " if note else "") + f"statistics: {rule}"
    decide = {}
    if status == "inconclusive":
        open_ = [t for t in tests if t.outcome == "inconclusive"]
        worst = max(open_, key=lambda t: (not _nan(t.needed()), t.needed()))
        decide = {"statistic": worst.statistic, "n needed": worst.needed(), "unit": worst.unit,
                  "n now": worst.n, "power": POWER, "leaning": worst.leaning}
        if (at_pub := worst.needed_at_published()) is not None:
            decide |= {"published": worst.published, "n needed at published": at_pub}
    return Verdict(status, dict(numbers or {}), detail, [t.record() for t in tests], decide)


def not_applicable(detail: str, numbers: dict | None = None) -> Verdict:
    """The verdict for a claim the data at hand cannot test (e.g. a task that was not collected)."""
    return Verdict("not applicable", numbers or {}, detail)


def deciding(rec: dict) -> dict | None:
    """The statistic that decides a recorded verdict: the first contradicted one, the inconclusive
    one furthest from deciding, or the held directional one closest to its threshold."""
    tests = rec.get("tests") or []
    if not tests:
        return None
    status = rec["status"]
    pick = [t for t in tests if t["outcome"] == status] or tests
    if status == "inconclusive":
        name = (rec.get("decide") or {}).get("statistic")
        return next((t for t in pick if t["statistic"] == name), pick[0])
    if status == "held":   # the directional statistic closest to its threshold ("no difference" ones last)
        strict = [t for t in pick if t["side"] in ("above", "below")] or pick
        return min(strict, key=lambda t: Interval(**{k: t[k] for k in _FIELDS if k in t}).margin)
    return pick[0]


_FIELDS = tuple(f.name for f in fields(Interval))


@dataclass(frozen=True)
class Knob:
    """The notebook parameter a check's sample size grows with (e.g. 05's ``queries_per_topic``):
    a profile with twice the value has twice the units. ``zero`` is the value 0 stands for where
    0 means "all" (06's ``run_matchings``: the whole dataset), in the same units."""

    notebook: str
    param: str
    zero: float | None = None

    def value(self, profile: str) -> float | None:
        from lib import config

        try:
            prof = config.load_profile(profile)
            v = {**config.notebook_parameters(self.notebook), **prof.notebooks.get(self.notebook, {})}.get(self.param)
        except Exception:  # an unknown or broken profile: no size to report, never a crash
            return None
        if isinstance(v, (list, tuple)):
            v = len(v)
        if v == 0 and self.zero is not None:
            v = self.zero
        return float(v) if isinstance(v, (int, float)) and v > 0 else None


#: The shipped profiles an inconclusive claim's deciding size is looked up in, smallest first.
SHIPPED = ("quick", "paper")


def reach(decide: dict, knob: Knob | None, profile: str) -> dict:
    """``decide`` (from :func:`judge`) with, per shipped profile, the units its run would have
    (this run's n scaled by the profile's ``knob`` value over this profile's) and ``reached by``:
    the first shipped profile with at least the deciding size, or a sentence saying none does."""
    out = dict(decide)
    need, now = out.get("n needed"), out.get("n now")
    base = knob.value(profile) if knob is not None else None
    sizes = {}
    if knob is not None and base and now:
        for p in SHIPPED:
            v = knob.value(p)
            if v is not None:
                sizes[p] = float(now) * v / base
    out["n per profile"] = sizes
    if _nan(need) or need is None:
        out["reached by"] = "not computable (no sample size behind this statistic)"
    elif math.isinf(need):
        out["reached by"] = "none (the estimate sits on the threshold: no sample decides it)"
    else:
        ok = [p for p in SHIPPED if sizes.get(p, 0) >= need]
        out["reached by"] = ok[0] if ok else ("none of " + "/".join(SHIPPED) + " at this run's effect" +
                                             ("" if knob else f" (it does not grow with a profile parameter)"))
    at_pub = out.get("n needed at published")
    if at_pub is not None and not _nan(at_pub) and not math.isinf(at_pub) and sizes:
        ok = [p for p in SHIPPED if sizes.get(p, 0) >= at_pub]
        out["reached at published by"] = ok[0] if ok else "none of " + "/".join(SHIPPED)
    return out


@dataclass(frozen=True, eq=False)
class Check:
    """A row of a paper's claims table: ``fn(*[tables[t] for t in tables], **kwargs)`` judges
    ``claim`` on the outputs of ``notebook`` (the notebook that regenerates them); ``knob`` is the
    parameter its sample grows with (:class:`Knob`), for the inconclusive rows' deciding sizes."""

    claim: Claim
    fn: Callable[..., Verdict]
    tables: tuple[str, ...]
    notebook: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    knob: Knob | None = None


def _dir():
    return paths.RECORDS / "claims"


def _validate(claim: Claim) -> None:
    if claim.paper not in artifacts.PAPERS:
        raise ValueError(f"claim {claim.id}: unknown paper {claim.paper!r}; expected one of {list(artifacts.PAPERS)}")
    unknown = [a for a in claim.artifacts if a not in artifacts.REGISTRY]
    if unknown:
        raise ValueError(f"claim {claim.id}: artifacts {unknown} are not registered in lib.artifacts")


def check(claim: Claim, fn: Callable[..., Verdict], *args, synthetic: artifacts.Synthetic, notebook: str | None = None,
          order: int = 0, knob: Knob | None = None, **kwargs) -> Verdict:
    """Run ``fn(*args, **kwargs)``, record the verdict for ``claim`` and return it.

    A check that raises is recorded as ``not applicable`` with the error, so a missing input
    never passes for a held claim and never stops the notebook. ``notebook`` names the notebook
    that reproduces the claim (default: the running one, ``COMPANION_NOTEBOOK``); ``order`` is its
    row in the paper's claims table (the ledger lists claims in that order); an inconclusive
    verdict gets the shipped profile that would decide it (:func:`reach` with ``knob``).
    """
    _validate(claim)
    profile = os.environ.get("COMPANION_PROFILE", "interactive")
    try:
        v = fn(*args, **kwargs)
        if not isinstance(v, Verdict):
            raise TypeError(f"check for {claim.id} returned {type(v).__name__}, expected Verdict")
    except Exception as exc:  # recorded, not hidden: the row shows the error
        v = Verdict("not applicable", {}, f"check failed: {type(exc).__name__}: {exc}")
    if v.status == "inconclusive":
        v.decide = reach(v.decide, knob, profile)
    rec = {**asdict(claim), **asdict(v), "rule": RULE, "synthetic": bool(synthetic),
           "label": artifacts.data_label(synthetic),
           "notebook": notebook or os.environ.get("COMPANION_NOTEBOOK", "interactive"), "profile": profile,
           "run_id": os.environ.get("COMPANION_RUN_ID", ""), "order": int(order), "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    paths.ensure(_dir())
    (_dir() / f"{claim.id}.json").write_text(json.dumps(rec, indent=1, default=_json))
    return v


def _json(x):
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return float(x)


def run_checks(checks, tables: Mapping[str, Any], *, synthetic: artifacts.Synthetic, notebook: str | None = None) -> dict[str, Verdict]:
    """Judge every check (of ``notebook`` only, if given) on ``tables`` and record the verdicts.

    A check whose input table is absent or None (this run did not produce it, e.g. the pilot on a
    release without pilot files) is recorded as ``not applicable`` naming the table. Returns
    {claim id: Verdict}.
    """
    ids = [c.claim.id for c in checks]
    if len(ids) != len(set(ids)):
        raise ValueError(f"claims table lists a claim twice: {sorted({i for i in ids if ids.count(i) > 1})}")
    out = {}
    for i, c in enumerate(checks):
        if notebook is not None and c.notebook != notebook:
            continue
        missing = [t for t in c.tables if tables.get(t) is None]
        if missing:
            out[c.claim.id] = check(c.claim, not_applicable, f"needs table(s) {missing}, which this run did not produce",
                                    synthetic=synthetic, notebook=c.notebook, order=i)
        else:
            out[c.claim.id] = check(c.claim, c.fn, *[tables[t] for t in c.tables], synthetic=synthetic,
                                    notebook=c.notebook, order=i, knob=c.knob, **dict(c.kwargs))
    return out


def summary(verdicts: Mapping[str, Verdict]):
    """The verdicts as a small DataFrame (claim, outcome, deciding statistic, size to decide, rule)
    for a notebook cell."""
    import pandas as pd

    rows = []
    for k, v in verdicts.items():
        rec = asdict(v)
        rows.append({"claim": k, "verdict": v.status, "statistic": statistic_cell(rec) or key_numbers(v.numbers),
                     "to decide": decide_cell(rec), "rule": v.detail})
    return pd.DataFrame(rows)


def clear(notebook: str) -> None:
    """Forget the claims a notebook checked before (it is about to run again)."""
    if _dir().is_dir():
        for p in _dir().glob("*.json"):
            if json.loads(p.read_text()).get("notebook") == notebook:
                p.unlink()


def records() -> list[dict]:
    """Every recorded verdict, in each paper's table order (then by id)."""
    recs = [json.loads(p.read_text()) for p in _dir().glob("*.json")] if _dir().is_dir() else []
    return sorted(recs, key=lambda r: (r.get("order", 0), r["id"]))


def fmt_numbers(numbers: dict) -> str:
    """``name = value; ...`` with floats to 3 significant digits."""
    def one(v):
        if isinstance(v, float):
            return f"{v:.3g}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return str(v)

    return "; ".join(f"{k} = {one(v)}" for k, v in numbers.items())


def key_numbers(numbers: dict) -> str:
    """The first :data:`KEY_NUMBERS` numbers of a verdict (each check lists its key numbers first)."""
    more = " …" if len(numbers) > KEY_NUMBERS else ""
    return fmt_numbers(dict(list(numbers.items())[:KEY_NUMBERS])) + more


def _g(x) -> str:
    return "nan" if _nan(x) else f"{x:.3g}"


def statistic_cell(rec: dict) -> str:
    """The deciding statistic of a record as ``name = est [low, high] vs side threshold (test)``."""
    t = deciding(rec)
    if t is None:
        return ""
    pub = "" if t.get("published") is None else f"; paper {_g(t['published'])}"
    return (f"{t['statistic']} = {_g(t['estimate'])} [{_g(t['low'])}, {_g(t['high'])}] vs {t['side']} "
            f"{t['threshold']:.3g} ({t['test'] or 'interval'}{pub})")


def decide_cell(rec: dict) -> str:
    """What would decide an inconclusive record: the sample size (power 0.8), which way it would
    decide when the estimate lies on the far side of the threshold, and the shipped profile that
    reaches it; "" for the other outcomes."""
    d = rec.get("decide") or {}
    if rec.get("status") != "inconclusive" or not d:
        return ""
    need, unit = d.get("n needed"), d.get("unit") or "units"
    size = "n not computable" if _nan(need) else ("no finite n" if need == float("inf") else f"n ≈ {math.ceil(need):,} {unit}")
    now = "" if d.get("n now") is None else f" (this run: {float(d['n now']):,.0f})"
    lean = ("; the estimate lies on the far side of the threshold, so at this effect that sample would "
            "contradict the claim" if d.get("leaning") == "contradicted" and size.startswith("n ≈") else "")
    by = d.get("reached by")
    per = d.get("n per profile") or {}
    sizes = ", ".join(f"{p} {v:,.0f}" for p, v in per.items())
    at_pub = d.get("n needed at published")
    paper = "" if at_pub is None or _nan(at_pub) else (
        f"; at the paper's printed {d['published']:.3g}: n ≈ {math.ceil(at_pub):,}"
        + (f", reached by: {d['reached at published by']}" if d.get("reached at published by") else ""))
    return size + now + lean + (f"; reached by: {by}" if by else "") + (f" ({sizes})" if sizes else "") + paper


def cell_numbers(rec: dict) -> str:
    """What a table row shows: the deciding statistic, else the key numbers, or the reason when
    the claim was not applicable."""
    if rec["status"] == "not applicable" or not (rec["numbers"] or rec.get("tests")):
        return rec["detail"]
    return statistic_cell(rec) or key_numbers(rec["numbers"])


def command(rec: dict) -> str:
    """The command that regenerates a claim: its notebook through ``run_all.sh`` on the record's profile."""
    nb = rec.get("notebook", "")
    only = nb[:2] if nb[:2].isdigit() else nb
    prof = rec.get("profile", "")
    return f"./run_all.sh --only {only}" + (f" --profile {prof}" if prof not in ("", "quick", "interactive") else "")


def notebook_times(man) -> dict[str, str]:
    """{notebook: its measured wall time} from the ``stages`` block of the manifest ``man``
    (:class:`lib.manifest.Manifest`, or None: no times), this run's or the earlier run's whose
    outputs a skipped notebook kept."""
    if man is None:
        return {}
    return {nb: f"{e.wall_s:.1f} s" + (" (earlier run)" if e.earlier_run else "")
            for nb, e in man.stages.notebooks.items()}


def by_artifact(recs: list[dict]) -> dict[str, list[dict]]:
    """{artifact id: the records of the claims read from it}, in registry order."""
    out: dict[str, list[dict]] = {}
    for aid in artifacts.REGISTRY:
        rows = [r for r in recs if aid in r.get("artifacts", ())]
        if rows:
            out[aid] = rows
    return out


def counts(recs: list[dict]) -> dict[str, int]:
    return {s: sum(r["status"] == s for r in recs) for s in STATUSES}


def counts_text(c: Mapping[str, int]) -> str:
    """``2 held, 1 contradicted, 0 inconclusive, 0 not applicable``."""
    return ", ".join(f"{c.get(s, 0)} {s}" for s in STATUSES)


def _row(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def label(rec: dict) -> str:
    """A claim record's data label: 'synthetic', 'mixed' or 'real' (records written before labels
    existed: from their synthetic flag)."""
    return rec.get("label") or artifacts.data_label(bool(rec["synthetic"]))


def render_markdown(recs: list[dict], times: Mapping[str, str] | None = None) -> str:
    """``outputs/claims.md``: the rule, then per paper its forest plot, a table (claim, outcome,
    deciding statistic with its interval and threshold, what would decide it, command, time) and
    every statistic and number below it; then, per artifact, the claims it supports.

    ``times``: {notebook: measured wall time} (:func:`notebook_times`); a notebook without one
    shows "not measured" (checked interactively, or before the runner recorded times).
    """
    times = times or {}
    lines = ["# Claims ledger", "", f"{len(recs)} claims checked: {counts_text(counts(recs))}.", "",
             f"**Rule.** Each claim is a sentence of its paper, checked on the tables this run regenerated; its check "
             f"names its statistics, thresholds and tests. {RULE[0].upper() + RULE[1:]}. A claim with several "
             "statistics is held when all are, contradicted when one is. An inconclusive row gives the sample size "
             f"that would decide it (power {POWER:g}, the observed effect and variance; statsmodels) and the shipped "
             "profile that reaches it, and says when that sample would contradict the claim (the estimate on the far "
             "side of the threshold). Claims are about the direction or significance the paper states, not about "
             "hitting the published number. *Reproduce* regenerates the claim's notebook; *time* is that notebook's "
             "measured wall time in this run (`outputs/manifest.json`, `stages`)."]
    found = {label(r) for r in recs}
    if "synthetic" in found:
        lines += ["", "**Synthetic data.** Rows marked *synthetic* were checked on the embedded default (a synthetic "
                  "world and LLM panel calibrated to the published aggregates): a held claim shows the pipeline "
                  "reproduces the paper's result there, not that the claim holds for real LLMs."]
    if "mixed" in found:
        lines += ["", "**Mixed data.** Rows marked *mixed* were checked on a real endpoint's answers about synthetic "
                  "inputs (the profile declares `synthetic: mixed`): they test that model on the synthetic world, "
                  "corpus or twin, not the paper's findings."]
    for key, title in artifacts.PAPERS.items():
        rows = [r for r in recs if r["paper"] == key]
        if not rows:
            continue
        lines += ["", f"## {title}", "", f"{len(rows)} claims: {counts_text(counts(rows))}.", ""]
        if (paths.FIGURES / f"claims-{key}.png").is_file():
            lines += [f"![claims of {title}](figures/claims-{key}.png)", ""]
        lines += ["| claim | outcome | deciding statistic [95 % CI] vs threshold (test) | to decide | reproduce | time |",
                  "|---|---|---|---|---|---|"]
        for r in rows:
            tag = f" ({label(r)})" if label(r) in artifacts.NOTES else ""
            lines.append(_row([f"`{r['id']}` {r['statement']} ({r['where']})", f"**{r['status']}**{tag}",
                               cell_numbers(r), decide_cell(r),
                               f"`{command(r)}` ({r.get('profile', '')})", times.get(r["notebook"], "not measured")]))
        lines += ["", "<details><summary>Rules, statistics and all numbers</summary>", ""]
        for r in rows:
            st = "; ".join(f"{t['statistic']} = {_g(t['estimate'])} [{_g(t['low'])}, {_g(t['high'])}] "
                           f"{t['side']} {t['threshold']:g} → {t['outcome']}" for t in r.get("tests") or [])
            lines.append(f"- `{r['id']}` ({r['status']}): {(r['detail'] or 'no rule given').rstrip('.')}."
                         + (f" Statistics: {st}." if st else "")
                         + (f" Numbers: {fmt_numbers(r['numbers'])}." if r["numbers"] else ""))
        lines += ["", "</details>"]
    per_art = by_artifact(recs)
    if per_art:
        lines += ["", "## Claims per artifact", "", "| artifact | caption | claims it supports |", "|---|---|---|"]
        for aid, rows in per_art.items():
            lines.append(_row([f"`{aid}`", artifacts.REGISTRY[aid].caption,
                               ", ".join(f"`{r['id']}` ({r['status']})" for r in rows)]))
    return "\n".join(lines) + "\n"
