"""Fame balancing: greedy 4-way matching across subgroups (paper §4.2.2, A.5, Algorithm 1).

One run (reference B.2, ``mk_new_datasets.py``): keep authors with log10_hits ≥ 3; shuffle the
reference group R (Black female / Latino); sort each comparison group G_j by fame. For each
reference author r with fame h_r and quote bin b_r = ⌊log2(count_r)⌋, pick from every G_j an
author near the target h_r − Δ_j, preferring the same quote bin and descending b_r, b_r−1, …, 0;
accept the tuple iff E = Σ_j (h_j − h_r)² < M·λ (M = 3 groups, λ = 1). On acceptance the picks
leave their groups, the running offsets move Δ_j ← Δ_j + (h_j − h_r) (so later targets pull
group means back together) and each author of the tuple contributes to_sample = min count
quotes. A rejected r is dropped and consumes nothing.

Search modes:

* ``faithful`` (default) reproduces the reference's ⚠ position/label quirk: the binary search
  returns a *position* in the shrunken group, which is then used as an *index label* of the
  original sorted group; the scan only moves forward and stops at the current length, and if no
  bin has a candidate the first surviving label ≥ start is taken regardless of bin.
* ``corrected`` does the clean search: in the first bin (b_r, b_r−1, …) that still has authors,
  the author nearest in fame to the target in either direction; otherwise the nearest overall.

The reference shuffles without a seed (⚠ its 100 runs cannot be replayed). Faithful run i
shuffles R exactly as pandas ``sample(frac=1)`` does under ``np.random.seed(seed + i)``, so the
release's script, seeded that way, makes the same runs (tests hold it to a golden run);
corrected run i uses ``default_rng([seed, i])``.

⚠ Ties in fame: the release sorts each G_j with pandas' default ``sort_values`` (quicksort, not
stable) on the group as it comes out of the universe file, and orders each kept group with the
same default sort on an object-dtype column; faithful does the same, corrected uses a stable
sort. Which tied author sits first decides who is picked.

⚠ No candidate left: when the faithful fallback finds no surviving label ≥ start, the release's
``while idx not in index: idx += 1`` never ends. Faithful stops with :class:`BalanceError`
saying so (not copied); :func:`balance` then stops that run with a warning and leaves it out
of the selection. Corrected drops r (also when a group is exhausted).

Run selection: rank runs on five criteria (authors and quotes per group, mean fame: higher is
better; fame range, RMS error: lower is better) with average ranks for ties, sum the ranks and
take the minimum; ties broken lexicographically on the criteria in that order.
"""
from __future__ import annotations

import bisect
import warnings
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from lib.attribution import dataset as ds

Mode = Literal["faithful", "corrected"]


class BalanceError(RuntimeError):
    """The faithful search reached a state in which the release's code never terminates."""
LOWER_FAME_BOUND = 3.0
CRITERIA = (("authors_per_group", False), ("quotes_per_group", False), ("avg_fame", False),
            ("fame_range", True), ("rms_error", True))   # (column, lower is better)


def quote_bin(count) -> np.ndarray:
    """b(x) = ⌊log2(quote_count)⌋ computed as ``int(ln c / ln 2)``: 1→0, 2–3→1, 4–7→2, 8–10→3."""
    c = np.asarray(count, dtype=float)
    return (np.log(c) / np.log(2)).astype(int)


def split_groups(universe: pd.DataFrame, kind: ds.DatasetKind, *, lower_fame: float = LOWER_FAME_BOUND,
                 mode: Mode = "faithful") -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """Reference group R and comparison groups G_1..G_M (reference B.2 step 2) after the fame filter.

    Each frame keeps the universe columns plus ``group`` (display label). Comparison groups are
    sorted ascending by log10_hits with a fresh 0..n−1 index, as in the reference: faithful with
    pandas' default (unstable) sort on the group in universe order, corrected stably.
    """
    if kind not in ds.GROUPS:
        raise ValueError(f"dataset kind must be one of {list(ds.GROUPS)}, got {kind!r}")
    missing = [c for c in ("author_clean", "race", "gender", "log10_hits", "count") if c not in universe]
    if missing:
        raise ValueError(f"universe table lacks column(s) {missing}")
    u = universe[universe["log10_hits"] >= lower_fame]
    frames = []
    for race, gender in ds.GROUPS[kind]:
        g = u[(u["race"] == race) & ((u["gender"] == gender) if gender else True)].copy()
        g["group"] = ds.subgroup_label(race, gender, kind)
        frames.append(g)
    ref, comps = frames[0].reset_index(drop=True), frames[1:]
    kind_ = "quicksort" if mode == "faithful" else "mergesort"
    comps = [c.sort_values("log10_hits", kind=kind_).reset_index(drop=True) for c in comps]
    return ref, comps


class _Group:
    """A comparison group during one run: sorted fames, quote bins and the consumed labels."""

    def __init__(self, frame: pd.DataFrame):
        self.h = frame["log10_hits"].to_numpy(float)
        self.bins = quote_bin(frame["count"].to_numpy())
        self.n = len(self.h)
        self.alive = np.ones(self.n, dtype=bool)
        self.removed: list[int] = []                       # sorted consumed labels
        self.by_bin = {int(b): np.flatnonzero(self.bins == b) for b in np.unique(self.bins)}
        self.h_by_bin = {b: self.h[labels] for b, labels in self.by_bin.items()}
        self.all = np.arange(self.n)

    def remove(self, label: int) -> None:
        self.alive[label] = False
        bisect.insort(self.removed, label)

    def _next_alive(self, labels: np.ndarray, start: int, stop: int | None) -> int | None:
        i = int(np.searchsorted(labels, start))
        while i < len(labels):
            lab = int(labels[i])
            if stop is not None and lab >= stop:
                return None
            if self.alive[lab]:
                return lab
            i += 1
        return None

    def start(self, target: float) -> int:
        """The release's start: the binary-search *position* among the survivors (used as a label ⚠)."""
        k = int(np.searchsorted(self.h, target, side="left"))
        return k - bisect.bisect_left(self.removed, k)

    def faithful(self, target: float, b_r: int) -> int | None:
        start = self.start(target)
        length = self.n - len(self.removed)
        for b in range(b_r, -1, -1):
            labels = self.by_bin.get(b)
            if labels is not None:
                hit = self._next_alive(labels, start, length)
                if hit is not None:
                    return hit
        return self._next_alive(self.all, start, None)

    def _nearest(self, labels: np.ndarray, h: np.ndarray, target: float) -> int | None:
        i = int(np.searchsorted(h, target))
        up = next((int(labels[j]) for j in range(i, len(labels)) if self.alive[labels[j]]), None)
        down = next((int(labels[j]) for j in range(i - 1, -1, -1) if self.alive[labels[j]]), None)
        if up is None or down is None:
            return up if down is None else down
        return up if abs(self.h[up] - target) < abs(self.h[down] - target) else down

    def corrected(self, target: float, b_r: int) -> int | None:
        for b in range(b_r, -1, -1):
            labels = self.by_bin.get(b)
            if labels is not None:
                hit = self._nearest(labels, self.h_by_bin[b], target)
                if hit is not None:
                    return hit
        return self._nearest(self.all, self.h, target)


@dataclass
class BalanceRun:
    """One run: ``matched`` (author level, released column order) and its five criteria."""

    run_id: int
    matched: pd.DataFrame
    stats: dict


def balance_once(universe: pd.DataFrame, kind: ds.DatasetKind, *, run_id: int = 0, seed: int = 0,
                 lam: float = 1.0, mode: Mode = "faithful", lower_fame: float = LOWER_FAME_BOUND) -> BalanceRun:
    """One randomized greedy matching run (Algorithm 1). See the module docstring.

    Returns the matched authors of all groups (columns of the universe plus ``group``,
    ``to_sample``, ``match_idx``, ``run_id``; groups concatenated R, G_1.., each sorted by fame
    descending) and the run criteria: ``authors_per_group`` (#matches), ``quotes_per_group``
    (Σ to_sample), ``avg_fame`` (mean of the group-mean fames), ``fame_range`` (max − min group
    mean), ``rms_error`` = √(ΣE / (M·#matches)).
    """
    if mode not in ("faithful", "corrected"):
        raise ValueError(f"mode must be 'faithful' or 'corrected', got {mode!r}")
    ref, comps = split_groups(universe, kind, lower_fame=lower_fame, mode=mode)
    if mode == "faithful":   # = pandas sample(frac=1) under np.random.seed(seed + run_id)
        order = np.random.RandomState(seed + run_id).permutation(len(ref))
    else:
        order = np.random.default_rng([seed, run_id]).permutation(len(ref))
    groups = [_Group(c) for c in comps]
    m = len(groups)
    offsets = np.zeros(m)
    h_ref = ref["log10_hits"].to_numpy(float)
    b_ref = quote_bin(ref["count"].to_numpy())
    c_ref = ref["count"].to_numpy()
    picks: list[tuple[int, list[int], int]] = []
    total_e = 0.0
    for r in order:
        h_r, b_r = h_ref[r], int(b_ref[r])
        labels = []
        for j, g in enumerate(groups):
            lab = (g.faithful if mode == "faithful" else g.corrected)(h_r - offsets[j], b_r)
            if lab is None and mode == "faithful":
                raise BalanceError(
                    f"fame balancing ({kind}, run {run_id}): reference author {ref['author_clean'].iat[r]!r} "
                    f"(log10_hits {h_r:.3f}) has no candidate left in group {comps[j]['group'].iat[0]!r} at or "
                    f"after position {g.start(h_r - offsets[j])}; the release's fallback search "
                    f"(mk_new_datasets.py, `while idx not in index`) would loop forever here. "
                    f"Use mode='corrected' (drops such an author) or a larger universe.")
            if lab is None:
                break
            labels.append(lab)
        if len(labels) < m:
            continue
        diffs = np.array([g.h[lab] - h_r for g, lab in zip(groups, labels)])
        e = float(np.sum(diffs ** 2))
        if e < m * lam:
            offsets += diffs
            total_e += e
            for g, lab in zip(groups, labels):
                g.remove(lab)
            to_sample = int(min(c_ref[r], *(comps[j]["count"].iat[lab] for j, lab in enumerate(labels))))
            picks.append((int(r), labels, to_sample))
    n = len(picks)
    parts = []
    for j, frame in enumerate([ref, *comps]):
        rows = [p[0] if j == 0 else p[1][j - 1] for p in picks]
        part = frame.iloc[rows].copy()
        part["to_sample"] = [p[2] for p in picks]
        part["match_idx"] = np.arange(n)
        if mode == "faithful":   # the release sorts its row-by-row built (object-dtype) frame, default sort
            fame = part["log10_hits"]
            part = part.reset_index(drop=True).assign(log10_hits=fame.to_numpy(dtype=object))
            part = part.sort_values("log10_hits", ascending=False).astype({"log10_hits": float})
        else:
            part = part.sort_values("log10_hits", ascending=False, kind="mergesort")
        parts.append(part)
    matched = pd.concat(parts, ignore_index=True)
    matched["run_id"] = run_id
    means = matched.groupby("group", sort=False)["log10_hits"].mean() if n else pd.Series(dtype=float)
    stats = {
        "run_id": run_id,
        "authors_per_group": n,
        "quotes_per_group": int(sum(p[2] for p in picks)),
        "avg_fame": float(means.mean()) if n else float("nan"),
        "fame_range": float(means.max() - means.min()) if n else float("nan"),
        "rms_error": float(np.sqrt(total_e / (m * n))) if n else float("nan"),
    }
    return BalanceRun(run_id, matched, stats)


def select_best(run_stats: pd.DataFrame) -> int:
    """run_id with the minimum unweighted rank sum over the five criteria (paper §4.2.2).

    Ranks use pandas ``rank`` (average ties), rank 1 = best on each criterion. Ties in the rank
    sum are broken by a lexicographic sort on the criteria in order, with the same directions.
    """
    if run_stats.empty:
        raise ValueError("select_best: no runs")
    r = run_stats.copy()
    r["rank_sum"] = sum(r[c].rank(method="average", ascending=low) for c, low in CRITERIA)
    r = r.sort_values(["rank_sum", *[c for c, _ in CRITERIA]],
                      ascending=[True, *[low for _, low in CRITERIA]], kind="mergesort")
    return int(r["run_id"].iloc[0])


@dataclass
class Balanced:
    """All runs of one dataset: per-run criteria with rank sums, the selected run and its authors.

    ``stopped``: {run_id: message} of the faithful runs stopped where the release loops forever
    (:class:`BalanceError`); they have no criteria and take no part in the selection."""

    kind: str
    run_stats: pd.DataFrame
    best_run: int
    matched: pd.DataFrame
    stopped: dict[int, str] = field(default_factory=dict)

    @property
    def best_stats(self) -> dict:
        return self.run_stats.set_index("run_id").loc[self.best_run].to_dict()


def balance(universe: pd.DataFrame, kind: ds.DatasetKind, *, runs: int = 100, seed: int = 0, lam: float = 1.0,
            mode: Mode = "faithful", lower_fame: float = LOWER_FAME_BOUND) -> Balanced:
    """``runs`` seeded runs of :func:`balance_once` and the rank-sum selection (paper §4.2.2, A.5).

    A faithful run that reaches the release's endless loop is stopped: a warning with the
    :class:`BalanceError` message, recorded in ``Balanced.stopped``, left out of the selection
    (the release would hang there and make no dataset at all). If every run stops, BalanceError.
    """
    if runs < 1:
        raise ValueError(f"balance: runs must be >= 1, got {runs}")
    best_frames, stats, stopped = {}, [], {}
    for i in tqdm(range(runs), desc=f"fame balancing {kind} ({mode})", leave=False, disable=runs < 20):
        try:
            run = balance_once(universe, kind, run_id=i, seed=seed, lam=lam, mode=mode, lower_fame=lower_fame)
        except BalanceError as e:
            stopped[i] = str(e)
            warnings.warn(f"{e} Run {i} stopped and left out of the selection.", stacklevel=2)
            continue
        stats.append(run.stats)
        best_frames[i] = run.matched
    if not stats:
        raise BalanceError(f"fame balancing ({kind}): all {runs} runs stopped; first: {next(iter(stopped.values()))}")
    run_stats = pd.DataFrame(stats)
    run_stats["rank_sum"] = sum(run_stats[c].rank(method="average", ascending=low) for c, low in CRITERIA)
    best = select_best(run_stats.drop(columns="rank_sum"))
    return Balanced(kind, run_stats, best, best_frames[best], stopped)


def dataset_stats(df: pd.DataFrame, kind: ds.DatasetKind) -> dict:
    """Table 2 criteria computable from a quote-level file (released or twin).

    ``authors_per_group`` and ``quotes_per_group`` are the per-group counts (equal by
    construction; the minimum is reported), ``avg_fame`` and ``fame_range`` use author-level
    group means. The RMS error needs the matching and is not recoverable from a released file.
    """
    a = df.drop_duplicates("author_clean").assign(group=lambda d: ds.subgroup_labels(d, kind))
    q = df.assign(group=ds.subgroup_labels(df, kind))
    means = a.groupby("group")["log10_hits"].mean()
    return {"authors_per_group": int(a.groupby("group").size().min()),
            "quotes_per_group": int(q.groupby("group").size().min()),
            "avg_fame": float(means.mean()), "fame_range": float(means.max() - means.min())}
