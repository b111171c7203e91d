"""List composition: the gender skew γ_F that gives each model its published gender parity.

Gender parity (LLMScholarBench eq. (11)) is scored on each list, so it depends on how many
factual authors a list holds as much as on whom the model recalls: eight names drawn from the
world's own shares already score well below 1. A γ_F set from the published diversity alone
left each model's parity to its drawn list lengths, and the sign of small gaps between kinds of
model (proprietary − open +0.030) to the seed.

So γ_F is calibrated per model and per world, like β (:meth:`AuthorIndex.calibrate_beta`): the
expected list-level parity over the 18 baseline prompts, at the model's list lengths and
factual shares at T*, equals its target. Parity rises with γ_F until the recall matches the
world's shares and falls beyond; the root is taken on the side of fewer names that do not read
as male (the paper's lists are male-heavy).

A world cannot always reach the published values: lists of names that all read as male still
score the world's male share (0.63 in the synthetic world, against the published 0.54 of
llama-3.3-70b), and short lists cannot score much above 0.73. The targets are then the
published parities mapped affinely into what every model can reach (:func:`reachable_targets`):
exact where the world allows, else the largest slope ≤ 1, so the order of the models and the
signs of their differences are the paper's at every seed.

The expectation is a Monte Carlo over fixed uniforms (common random numbers): a deterministic
function of γ_F that a bisection can solve.
"""
from __future__ import annotations

import numpy as np

from lib.panel import calibration as cal
from lib.panel import latent
from lib.panel.world import AuthorIndex

LISTS_PER_PROMPT = 120
GAMMA_RANGE = (-6.0, 3.0)


def baseline_lists(seed: int, model: str) -> tuple[np.ndarray, np.ndarray]:
    """(entries per list, share of entries that are distinct factual authors) of the model's
    18 baseline prompts at its calibrated temperature T*."""
    lat = latent.lsb_models(seed)[model]
    lengths, shares = [], []
    for param, family in cal.BASELINE_PARAMS.items():
        k = int(param[4:]) if param.startswith("top_") else 100
        task = latent.lsb_task(seed, model, param, round(lat.T_star, 4))
        lengths.append(latent.list_length(lat, family, k))
        shares.append(task["factuality"] * (1.0 - task["duplicate_rate"]))
    return np.array(lengths), np.array(shares)


class ListParity:
    """Expected list-level parity 1 − ½ Σ_c |n_c/n − q_c| of lists whose factual authors are
    drawn from a recall distribution p, over fixed draws of list sizes and uniforms.

    Lists without a factual author are left out (their parity is undefined in corrected mode
    and a constant 0.5 in faithful mode)."""

    def __init__(self, lengths, factual_shares, seed: int, lists_per_prompt: int = LISTS_PER_PROMPT):
        rng = np.random.default_rng(seed)
        n = rng.binomial(np.repeat(np.asarray(lengths, dtype=int), lists_per_prompt),
                         np.repeat(np.clip(factual_shares, 0.0, 1.0), lists_per_prompt))
        self.n = n[n > 0]
        width = int(self.n.max()) if self.n.size else 0
        u = rng.random((self.n.size, width))
        u[np.arange(width)[None, :] >= self.n[:, None]] = np.inf    # beyond the list: never counted
        self.u = u

    def expected(self, p: np.ndarray, q: np.ndarray) -> float:
        if not self.n.size:
            return float("nan")
        edges = np.cumsum(p)[:-1]
        at_most = np.stack([(self.u < c).sum(axis=1) for c in edges] + [self.n], axis=1)
        counts = np.diff(at_most, axis=1, prepend=0)
        tv = 0.5 * np.abs(counts / self.n[:, None] - np.asarray(q)[None, :]).sum(axis=1)
        return float((1.0 - tv).mean())


def gender_shares(sums: np.ndarray, gamma_f: float) -> np.ndarray:
    """Recall shares over the gender categories from :meth:`AuthorIndex.gender_sums` at γ_F."""
    w = sums[0] + np.exp(gamma_f) * sums[1]
    return w / w.sum()


class GenderSkew:
    """The expected list parity of one model as a function of γ_F, in one world."""

    def __init__(self, index: AuthorIndex, beta: float, gamma_e: float, lists: ListParity):
        self._sums, self._q, self._lists = index.gender_sums(beta, gamma_e), index.gender_reference, lists
        self.grid = np.linspace(*GAMMA_RANGE, 37)
        self.values = np.array([self.parity(g) for g in self.grid])
        self._peak = int(np.nanargmax(self.values))

    def parity(self, gamma_f: float) -> float:
        return self._lists.expected(gender_shares(self._sums, gamma_f), self._q)

    @property
    def floor(self) -> float:
        return float(self.values[0])

    @property
    def peak(self) -> float:
        return float(self.values[self._peak])

    def solve(self, target: float, *, steps: int = 14) -> float:
        """γ_F whose expected parity is the target, below the peak; the peak's γ_F for a target
        above it, the range's lower bound for one below the floor."""
        if self.peak <= target:
            return float(self.grid[self._peak])
        below = np.flatnonzero(self.values[: self._peak + 1] <= target)
        if not below.size:
            return float(self.grid[0])
        lo, hi = float(self.grid[below[-1]]), float(self.grid[below[-1] + 1])
        for _ in range(steps):
            mid = 0.5 * (lo + hi)
            if self.parity(mid) <= target:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)


def reachable_targets(published: dict[str, float], floors: dict[str, float], peaks: dict[str, float],
                      *, margin: float = 0.005) -> tuple[float, float]:
    """(a, s) of the map target = a + s · published, s ≤ 1 as large as keeps every model's target
    within [floor + margin, peak − margin], and a then as close to 0 as that allows.

    For a slope s the feasible a is [max(floor + margin − s·p), min(peak − margin − s·p)]; it
    shrinks as s grows, so the largest feasible s is found by bisection (s = 0 is feasible
    whenever every model's reach overlaps all others')."""
    keys = list(published)
    p = np.array([published[k] for k in keys])
    lo_b = np.array([floors[k] for k in keys]) + margin
    hi_b = np.array([peaks[k] for k in keys]) - margin

    def window(s):
        return float((lo_b - s * p).max()), float((hi_b - s * p).min())

    if window(1.0)[0] <= window(1.0)[1]:
        s = 1.0
    else:
        lo, hi = 0.0, 1.0
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if window(mid)[0] <= window(mid)[1] else (lo, mid)
        s = lo
    a_lo, a_hi = window(s)
    return float(np.clip(0.0, a_lo, a_hi)), s
