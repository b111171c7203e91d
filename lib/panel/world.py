"""The panel's view of the scholarly world: arrays over the authors table, recall pools, names.

The world is the panel's ground truth (the models "know" it imperfectly). The panel reads the
authors table of :func:`lib.groundtruth.world.load_world` (or any table with the same columns,
e.g. a test fixture) and, when given, publications + authorships (real DOIs for the field task)
and coauthorships (twins are drawn from the anchor's collaborators).

A recall pool is a weighted set of authors: weight ∝ (1 + cited_by_count)^β · e^(γ_F·[name does not
read as male]) · e^(γ_E·non-White), times e^(shift·[name reads as female]) for the prompt that asks
for diversity (panel.md "Recall"). Only the ``POOL_CAP`` heaviest authors of a pool are
kept: models do not recall the long tail, and sampling stays O(log n).
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd

REQUIRED = ("author_id", "display_name", "first_name", "middle_name", "last_name", "alt_names", "field",
            "career_start", "career_end", "works_count", "cited_by_count", "h_index", "true_gender",
            "true_ethnicity")
ETHNICITIES = ("Asian", "Black", "Hispanic", "White")
POOL_CAP = 30_000
YEAR_NOW = 2025   # LLMScholarBench's FACTUALITY_AUTHOR_YEAR_NOW (reference §2.5)


def _eth_code(value: str) -> int:
    v = str(value).lower()
    if "asian" in v:
        return 0
    if "black" in v or "african" in v:
        return 1
    if "hisp" in v or "latin" in v:
        return 2
    if "white" in v:
        return 3
    return 4


class AuthorIndex:
    """Column arrays and cached recall pools over one authors table."""

    def __init__(self, authors: pd.DataFrame, *, publications: pd.DataFrame | None = None,
                 authorships: pd.DataFrame | None = None, coauthorships: pd.DataFrame | None = None):
        missing = [c for c in REQUIRED if c not in authors.columns]
        if missing:
            raise ValueError(f"panel authors table: missing columns {missing} (expected {list(REQUIRED)})")
        if len(authors) < 20:
            raise ValueError(f"panel authors table: {len(authors)} rows; the panel needs at least 20 authors")
        a = authors.reset_index(drop=True)
        self.n = len(a)
        self.author_id = a["author_id"].to_numpy()
        self.display = a["display_name"].astype(str).to_numpy(dtype=object)
        self.first = a["first_name"].fillna("").astype(str).to_numpy(dtype=object)
        self.middle = a["middle_name"].fillna("").astype(str).to_numpy(dtype=object)
        self.last = a["last_name"].fillna("").astype(str).to_numpy(dtype=object)
        self.alt = a["alt_names"].to_numpy(dtype=object)
        self.field = a["field"].astype(str).to_numpy(dtype=object)
        self.start = a["career_start"].fillna(0).astype(int).to_numpy()
        self.end = a["career_end"].fillna(0).astype(int).to_numpy()
        self.cites = a["cited_by_count"].fillna(0).astype(float).to_numpy()
        self.works = a["works_count"].fillna(0).astype(float).to_numpy()
        self.h = a["h_index"].fillna(0).astype(float).to_numpy()
        self.female = a["true_gender"].astype(str).str.lower().str.startswith("f").to_numpy()
        self.eth = np.array([_eth_code(v) for v in a["true_ethnicity"].to_numpy()], dtype=np.int8)
        self.nonwhite = self.eth != 3
        self.log_prom = np.log1p(self.cites)
        # the gender labels the benchmark's parity reads (perceived from the first name when the
        # table has them, else the true gender), and their shares over the whole world
        labels = (a["perceived_gender"] if "perceived_gender" in a.columns else a["true_gender"]).fillna("Unknown")
        labels = labels.astype(str).to_numpy()
        self.gender_categories, self.gender_code = np.unique(labels, return_inverse=True)
        self.gender_reference = np.bincount(self.gender_code, minlength=len(self.gender_categories)) / self.n
        # γ_F weighs the authors whose name does not read as male: models over-recall names
        # that read as male, and a name's reading is what the parity scores
        self.not_male_name = labels != "Male"
        # a prompt asking for gender diversity raises the names that read as female; unisex and
        # unknown readings stay as they are (in the synthetic world 95 % of unisex names are Asian,
        # so raising them would move ethnicity too, which App. C.3 says the prompt does not)
        self.female_name = labels == "Female"
        # citation-prominence strata on rank percentiles (50/30/15/5 %, reference §2.7)
        pct = (pd.Series(self.cites).rank(method="first").to_numpy() - 0.5) / self.n
        self.cit_stratum = np.searchsorted([0.5, 0.8, 0.95], pct, side="right").astype(np.int8)
        self.field_values = sorted(set(self.field))
        self._id_pos = {aid: i for i, aid in enumerate(self.author_id)}
        self._name_pairs = {(f.lower(), l.lower()) for f, l in zip(self.first, self.last)}
        self._first_by_gender = {True: self._uniq(self.first[self.female]), False: self._uniq(self.first[~self.female])}
        self._last_pool = self._uniq(self.last)
        self._neutral_first = self._neutral_names(a)
        self._pools: OrderedDict = OrderedDict()
        self._neutral_mask: np.ndarray | None = None
        self._orders: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._by_cites: np.ndarray | None = None
        self._dois = self._doi_lookup(publications, authorships)
        self._coauthors = self._adjacency(coauthorships)

    # ---- names ----------------------------------------------------------------------------------
    @staticmethod
    def _uniq(values) -> np.ndarray:
        vals = [v for v in pd.unique(pd.Series(values)) if isinstance(v, str) and len(v) > 1 and "." not in v]
        return np.array(vals or ["Alex"], dtype=object)

    def _neutral_names(self, a: pd.DataFrame) -> np.ndarray:
        g = pd.DataFrame({"first": self.first, "female": self.female})
        stats = g.groupby("first")["female"].agg(["mean", "size"])
        names = stats[(stats["mean"] > 0.2) & (stats["mean"] < 0.8) & (stats["size"] >= 2)].index
        return np.array(sorted(names), dtype=object)

    def is_neutral_first(self) -> np.ndarray:
        if self._neutral_mask is None:
            neutral = set(self._neutral_first.tolist())
            self._neutral_mask = np.fromiter((f in neutral for f in self.first), dtype=bool, count=self.n)
        return self._neutral_mask

    @property
    def by_citations(self) -> np.ndarray:
        """Author positions sorted by citations, most cited first (cached)."""
        if self._by_cites is None:
            self._by_cites = np.argsort(-self.cites, kind="stable")
        return self._by_cites

    def exists(self, first: str, last: str) -> bool:
        return (first.lower(), last.lower()) in self._name_pairs

    def first_names(self, female: bool) -> np.ndarray:
        return self._first_by_gender[bool(female)]

    @property
    def last_names(self) -> np.ndarray:
        return self._last_pool

    def position(self, author_id) -> int | None:
        return self._id_pos.get(author_id)

    # ---- DOIs and coauthors ----------------------------------------------------------------------
    def _doi_lookup(self, publications, authorships):
        """CSR arrays (offsets per author position, DOIs, fields) of each author's papers."""
        if publications is None or authorships is None or "doi" not in publications.columns:
            return None
        cols = ["publication_id", "doi"] + (["field"] if "field" in publications.columns else [])
        j = authorships[["publication_id", "author_id"]].merge(publications[cols], on="publication_id", how="inner")
        pos = j["author_id"].map(self._id_pos)
        ok = pos.notna().to_numpy()
        pos = pos.to_numpy()[ok].astype(np.int64)
        order = np.argsort(pos, kind="stable")
        dois = j["doi"].astype(str).to_numpy(dtype=object)[ok][order]
        fields = (j["field"].astype(str).to_numpy(dtype=object)[ok][order] if "field" in j.columns
                  else np.full(len(order), "", dtype=object))
        offsets = np.searchsorted(pos[order], np.arange(self.n + 1))
        return offsets, dois, fields

    def dois(self, pos: int) -> tuple[tuple[str, str], ...]:
        """(doi, field) of every paper of the author at ``pos`` (empty without publications)."""
        if self._dois is None:
            return ()
        offsets, dois, fields = self._dois
        a, b = offsets[int(pos)], offsets[int(pos) + 1]
        return tuple(zip(dois[a:b], fields[a:b]))

    def _adjacency(self, coauthorships):
        """CSR arrays (offsets, neighbour positions) of the coauthorship graph."""
        if coauthorships is None or len(coauthorships) == 0:
            return None
        src = coauthorships["src"].map(self._id_pos)
        dst = coauthorships["dst"].map(self._id_pos)
        ok = (src.notna() & dst.notna()).to_numpy()
        s_, d_ = src.to_numpy()[ok].astype(np.int64), dst.to_numpy()[ok].astype(np.int64)
        a, b = np.r_[s_, d_], np.r_[d_, s_]
        order = np.argsort(a, kind="stable")
        return np.searchsorted(a[order], np.arange(self.n + 1)), b[order]

    def coauthors(self, pos: int) -> np.ndarray:
        if self._coauthors is None:
            return np.empty(0, dtype=np.int64)
        offsets, nb = self._coauthors
        return nb[offsets[int(pos)]: offsets[int(pos) + 1]]

    # ---- recall pools ------------------------------------------------------------------------------
    def log_weights(self, beta: float, gamma_f: float, gamma_e: float, female_shift: float = 0.0) -> np.ndarray:
        lw = beta * self.log_prom + gamma_f * self.not_male_name + gamma_e * self.nonwhite
        return lw + female_shift * self.female_name if female_shift else lw

    def register_order(self, log_w: np.ndarray) -> None:
        """Pre-sort authors by a (model's) log weight, heaviest first, so pools over any mask
        of it are an O(n) gather instead of a partition (kept for the lifetime of the index)."""
        self._orders[id(log_w)] = (log_w, np.argsort(-log_w, kind="stable"))

    def _order(self, log_w: np.ndarray) -> np.ndarray | None:
        hit = self._orders.get(id(log_w))
        return hit[1] if hit is not None and hit[0] is log_w else None

    def pool(self, key: tuple, mask: np.ndarray | None, log_w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(author positions, cumulative weights) of the masked authors, heaviest POOL_CAP kept.

        ``key`` identifies the pool in the cache (the caller includes the model and the task).
        An empty mask falls back to all authors (a model asked for an empty category recalls
        someone anyway).
        """
        hit = self._pools.get(key)
        if hit is not None:
            self._pools.move_to_end(key)
            return hit
        if mask is not None and not mask.any():
            mask = None
        order = self._order(log_w)
        if order is not None:          # heaviest first: the pool is the first POOL_CAP masked ones
            idx = order if mask is None else order[mask[order]]
            idx = idx[:POOL_CAP]
            lw = log_w[idx]
        else:
            idx = np.flatnonzero(mask) if mask is not None else np.arange(self.n)
            lw = log_w[idx]
            if idx.size > POOL_CAP:
                keep = np.argpartition(-lw, POOL_CAP)[:POOL_CAP]
                idx, lw = idx[keep], lw[keep]
        w = np.exp(lw - lw.max())
        out = (idx.astype(np.int32), np.cumsum(w))
        self._pools[key] = out
        if len(self._pools) > 64:
            self._pools.popitem(last=False)
        return out

    @staticmethod
    def draw(rng: np.random.Generator, pool: tuple, k: int, exclude: set | None = None) -> list[int]:
        """Up to k distinct authors from a pool, weight-proportional, none from ``exclude``.

        A pool is (positions, cumulative weights) or (positions, cumulative weights, reject
        mask): authors whose mask entry is True are rejected (the complement of a task)."""
        idx, cum = pool[0], pool[1]
        reject = pool[2] if len(pool) > 2 else None
        taken: list[int] = []
        if k <= 0:
            return taken
        seen = exclude if exclude is not None else set()
        total, last = cum[-1], len(idx) - 1
        for _ in range(6 if reject is None else 12):
            need = k - len(taken)
            if need <= 0:
                break
            pos = np.minimum(np.searchsorted(cum, rng.random(2 * need + 4) * total, side="right"), last)
            picks = idx[pos]
            if reject is not None:
                picks = picks[~reject[picks]]
            for p in picks.tolist():
                if p not in seen and p not in taken:
                    taken.append(p)
                    if len(taken) == k:
                        break
        return taken

    def cit_parity(self, log_w: np.ndarray) -> float:
        """1 − total variation between the recall distribution over citation strata and the
        population's (50/30/15/5 %): the population-level analogue of parity_prominence_cit."""
        w = np.exp(log_w - log_w.max())
        rec = np.bincount(self.cit_stratum, weights=w, minlength=4) / w.sum()
        pop = np.bincount(self.cit_stratum, minlength=4) / self.n
        return float(1.0 - 0.5 * np.abs(rec - pop).sum())

    def gender_sums(self, beta: float, gamma_e: float) -> np.ndarray:
        """Recall weight at γ_F = 0 per gender category (columns, ``gender_categories``) of the
        authors whose name reads as male and of the others (rows): the recall shares at any γ_F are
        (row 0 + e^γ_F · row 1), normalised (:func:`lib.panel.composition.gender_shares`)."""
        lw = self.log_weights(beta, 0.0, gamma_e)
        w = np.exp(lw - lw.max())
        k = len(self.gender_categories)
        other = self.not_male_name
        return np.stack([np.bincount(self.gender_code[~other], weights=w[~other], minlength=k),
                         np.bincount(self.gender_code[other], weights=w[other], minlength=k)])

    def calibrate_beta(self, target_parity: float, gamma_f: float, gamma_e: float, female_shift: float = 0.0) -> float:
        """β in [0, 4] with cit_parity(β) = target (bisection; parity falls as β grows)."""
        lo, hi = 0.0, 4.0
        if self.cit_parity(self.log_weights(hi, gamma_f, gamma_e, female_shift)) >= target_parity:
            return hi
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            if self.cit_parity(self.log_weights(mid, gamma_f, gamma_e, female_shift)) > target_parity:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)
