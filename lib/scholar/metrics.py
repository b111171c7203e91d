"""The nine LLMScholarBench metrics (paper §3.4, equations (1)–(11)) and task factuality (§3.5).

Every function works on one attempt (or one configuration for consistency and validity) and is
pure. ``mode="faithful"`` (the default) reproduces the reference code's numbers, including the
edge cases marked [!] in the spec (reference §2.5, §2.6, §2.8); ``mode="corrected"`` follows the
paper's text instead. ``lib.scholar.quirks`` lists every difference in one table.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np
import pandas as pd

Mode = Literal["faithful", "corrected"]
#: Attributes whose reference labels are a pandas categorical (``pd.qcut`` prominence strata): their
#: faithful parity of an attempt without labels is NaN, not 0.5 (:func:`parity`).
CATEGORICAL_ATTRIBUTES = ("prominence_pub", "prominence_cit")
#: Metrics the paper treats as proportions of 0/1 outcomes (Wilson intervals, reference §2.10).
BINARY_METRICS = frozenset({"validity_pct", "refusal_pct"})
FIELD_SUBFIELD = {"PER": "Education", "CM&MP": "Condensed Matter Physics"}
EPOCH_START = {"1950s": 1950, "2000s": 2000}
YEAR_NOW = 2025  # FACTUALITY_AUTHOR_YEAR_NOW
EARLY_CAREER_MAX, SENIOR_MIN = 10, 20


def _check_mode(mode):
    if mode not in ("faithful", "corrected"):
        raise ValueError(f"mode must be 'faithful' or 'corrected', got {mode!r}")


def _isnull(x) -> bool:
    return x is None or (isinstance(x, float) and np.isnan(x)) or x is pd.NA


def _unique_ids(authors: Iterable) -> np.ndarray:
    """Distinct non-missing ids, in first-seen order, with their natural dtype (fast lookups):
    int64 when every id is an integer, else object (what pandas' ``infer_objects`` gives)."""
    ids = list(dict.fromkeys(x for x in authors if not _isnull(x)))
    if ids and all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in ids):
        return np.array(ids, dtype=np.int64)
    return pd.unique(pd.Series(ids, dtype="object").infer_objects())


# pandas' drop_duplicates keeps one row per missing kind (None, NaN, NA are three distinct keys)
_NULL_KEYS = {type(None): "<None>", float: "<NaN>", type(pd.NA): "<NA>"}


def first_per_name(names: Sequence, values: Sequence) -> list:
    """The values of the first row of each distinct name, in order: ``pd.DataFrame({name, value})
    .drop_duplicates("name", keep="first")["value"]`` without building a frame (per-attempt
    metrics call this once per attempt)."""
    seen: set = set()
    out = []
    for n, v in zip(names, values):
        k = (_NULL_KEYS.get(type(n), "<NaN>"),) if _isnull(n) else n
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


# --- (1) refusal, (2) validity -------------------------------------------------------------

def refusal(is_refusal: Iterable) -> float:
    """Refusal = (1/M) Σ_j r_j over all M attempts (paper eq. (1); reference §2.8 refusal_pct).

    r_j = 1 for an explicit refusal. Every attempt counts, retried and invalid ones included.
    Faithful to the reference, an undetermined flag (−1, None) counts as 0. Empty → NaN.
    Interpretation: share of responses that deliberately decline; in [0, 1].
    """
    r = [1.0 if (not _isnull(x) and x == 1) else 0.0 for x in is_refusal]
    return float(np.mean(r)) if r else float("nan")


def validity(valid_attempt: Sequence, request: Sequence[Hashable]) -> float:
    """Validity = (1/N) Σ_i v_i, v_i = 1 if any attempt of request i is valid (paper eq. (2)).

    ``valid_attempt`` holds one flag per attempt and ``request`` its request key (model,
    temperature, grounded, date, hour, task, param in the reference). Empty → NaN.
    Interpretation: share of requests that end with a usable list; in [0, 1].
    """
    df = pd.DataFrame({"v": pd.Series(list(valid_attempt), dtype="object").map(lambda x: bool(x) if not _isnull(x) else False),
                       "r": list(request)})
    if df.empty:
        return float("nan")
    return float(df.groupby("r", sort=False)["v"].any().mean())


# --- (3) duplicates, (4) consistency, (5) factuality ----------------------------------------

def duplicates(names: Sequence, *, mode: Mode = "faithful") -> float:
    """Duplicates_i = 1 − |U_i| / |L_i| for one valid list (paper eq. (3)).

    L_i = the recommended (normalised) names, U_i the distinct ones. Faithful [!]: |L_i| counts
    missing names but |U_i| does not (pandas size vs nunique), so a missing name raises the
    score; corrected: missing names are dropped from both. Empty list → NaN.
    Interpretation: 0 = no repetition; lower is better; in [0, 1).
    """
    _check_mode(mode)
    names = list(names)
    kept = [x for x in names if not _isnull(x)]
    size = len(names) if mode == "faithful" else len(kept)
    if size == 0:
        return float("nan")
    return 1.0 - len(set(kept)) / size


def jaccard(a: set, b: set) -> float:
    """|a ∩ b| / |a ∪ b|, with Jaccard(∅, ∅) = 1 as in the reference."""
    u = a | b
    return 1.0 if not u else len(a & b) / len(u)


def consistency(list_of_name_sets: Sequence[Iterable], *, pairs: Literal["consecutive", "all"] = "consecutive") -> float:
    """Consistency = (1/(N−1)) Σ_{i≥2} J(U_i, U_{i−1}) over runs in time order (paper eq. (4)).

    ``list_of_name_sets``: the unique names of each run of one configuration, sorted by run
    date and time; runs without a valid answer are simply absent (reference §2.8). Missing and
    empty names are dropped. ``pairs="all"`` gives the v1 variant (mean Jaccard over all pairs of
    runs). Fewer than 2 runs → NaN. Interpretation: 1 = identical lists over time; in [0, 1].
    """
    sets = [{x for x in s if not _isnull(x) and x != ""} for s in list_of_name_sets]
    if len(sets) < 2:
        return float("nan")
    if pairs == "consecutive":
        vals = [jaccard(sets[i], sets[i - 1]) for i in range(1, len(sets))]
    elif pairs == "all":
        vals = [jaccard(sets[i], sets[j]) for i in range(len(sets)) for j in range(i + 1, len(sets))]
    else:
        raise ValueError(f"consistency: pairs must be 'consecutive' or 'all', got {pairs!r}")
    return float(np.mean(vals))


def factuality(names: Sequence, author_ids: Sequence) -> float:
    """Fact_i = |Û_i| / |U_i|: the share of distinct recommended names matched to a real author
    in D (paper eq. (5); reference §2.8 factuality_author).

    ``author_ids`` holds the matched ground-truth id per name (None/NaN when unmatched); names
    are de-duplicated keeping the first row. Unmatched names count 0. Empty → NaN.
    Interpretation: 1 = every recommended scholar exists; in [0, 1].
    """
    kept = first_per_name(list(names), list(author_ids))
    if not kept:
        return float("nan")
    return float(np.mean([not _isnull(x) for x in kept]))


# --- task factuality (§3.5, reference §2.5) -------------------------------------------------

def field_match(author_ids: Sequence, field: str, publications: pd.DataFrame, authorships: pd.DataFrame,
                *, mode: Mode = "faithful") -> pd.Series:
    """Whether each matched author published in the requested field (PER or CM&MP), per author.

    A publication is in the field when its subfield contains "Education" (PER) or
    "Condensed Matter Physics" (CM&MP) (``evaluate_field``). Faithful [!]: after the reference's
    row explosion and de-duplication only the author's *first* publication (lowest publication
    id) is tested; corrected: *any* publication in the field. Unmatched authors and authors with
    no publication → NaN. Returns a float Series (1.0/0.0/NaN) aligned with ``author_ids``.
    """
    _check_mode(mode)
    if field not in FIELD_SUBFIELD:
        raise ValueError(f"field_match: field must be one of {list(FIELD_SUBFIELD)}, got {field!r}")
    ids = pd.Series(list(author_ids), dtype="object")
    wanted = pd.unique(ids.dropna())
    per = author_field_flags(field, publications, authorships[authorships["author_id"].isin(wanted)], mode=mode)
    return ids.map(lambda x: float(per[x]) if (not _isnull(x) and x in per.index) else np.nan)


def author_field_flags(field: str, publications: pd.DataFrame, authorships: pd.DataFrame,
                       *, mode: Mode = "faithful") -> pd.Series:
    """:func:`field_match` for every author of ``authorships`` at once (bool Series by author_id):
    faithful tests the first publication (lowest id) [!], corrected any publication."""
    _check_mode(mode)
    if field not in FIELD_SUBFIELD:
        raise ValueError(f"field_match: field must be one of {list(FIELD_SUBFIELD)}, got {field!r}")
    a = authorships[["publication_id", "author_id"]].merge(
        publications[["publication_id", "subfield"]], on="publication_id", how="left")
    a["hit"] = a["subfield"].fillna("").str.contains(FIELD_SUBFIELD[field], regex=False)
    if mode == "faithful":
        return a.sort_values("publication_id").groupby("author_id")["hit"].first()
    return a.groupby("author_id")["hit"].any()


def epoch_match(career_start: Sequence, career_end: Sequence, epoch: str) -> pd.Series:
    """Active range [first, last publication year] overlaps [R, R+10], R = 1950 or 2000.

    ``fact_epoch_requested`` = not (end < R or start > R+10); NaN when the years are missing
    (the name was not matched). Returns a float Series (1.0/0.0/NaN).
    """
    if epoch not in EPOCH_START:
        raise ValueError(f"epoch_match: epoch must be one of {list(EPOCH_START)}, got {epoch!r}")
    r = EPOCH_START[epoch]
    s = pd.to_numeric(pd.Series(list(career_start)), errors="coerce")
    e = pd.to_numeric(pd.Series(list(career_end)), errors="coerce")
    ok = ~((e < r) | (s > r + 10))
    return ok.astype(float).where(s.notna() & e.notna())


def seniority_class(years: float) -> str | None:
    """``early_career`` if years ≤ 10, ``senior`` if ≥ 20, else None (11–19 or missing)."""
    if _isnull(years):
        return None
    if years <= EARLY_CAREER_MAX:
        return "early_career"
    if years >= SENIOR_MIN:
        return "senior"
    return None


def seniority_match(career_start: Sequence, seniority: str, *, year_now: int = YEAR_NOW,
                    mode: Mode = "faithful") -> pd.Series:
    """Whether the career age now, ``year_now − first publication year + 1``, has the requested
    seniority (``fact_seniority_now_requested``; ≤ 10 early_career, ≥ 20 senior).

    Faithful [!]: a Python equality, so unmatched names (no year) are 0, not NaN; corrected:
    unmatched names are NaN (excluded like field and epoch). 11–19-year careers are 0 in both
    modes (they meet neither criterion).
    """
    _check_mode(mode)
    if seniority not in ("early_career", "senior"):
        raise ValueError(f"seniority_match: seniority must be 'early_career' or 'senior', got {seniority!r}")
    s = pd.to_numeric(pd.Series(list(career_start)), errors="coerce")
    cls = (year_now - s + 1).map(seniority_class)
    out = (cls == seniority).astype(float)
    return out if mode == "faithful" else out.where(s.notna())


def task_factuality(names: Sequence, flags: Sequence) -> float:
    """Task factuality of one attempt: mean flag over de-duplicated names, NaN flags excluded
    (reference §2.8 factuality_field / _epoch / _seniority; the flags of ``field_match``,
    ``epoch_match`` and ``seniority_match`` already encode each mode's treatment of unmatched
    names). No non-missing flag → NaN. In [0, 1]."""
    kept = first_per_name(list(names), list(flags))
    if all(isinstance(x, (int, float, np.integer, np.floating)) or _isnull(x) for x in kept):
        v = np.array([x for x in kept if not _isnull(x)], dtype=float)
    else:  # text or other flags: numeric coercion as pandas (unparsable -> missing)
        v = pd.to_numeric(pd.Series(kept, dtype="object"), errors="coerce").dropna().to_numpy(dtype=float)
    return float(v.mean()) if len(v) else float("nan")


# --- (6)–(7) connectedness ------------------------------------------------------------------

class CoauthorGraph:
    """The coauthorship network G as a sparse adjacency matrix, for fast induced subgraphs."""

    def __init__(self, edges: pd.DataFrame, nodes: Iterable | None = None):
        from scipy import sparse

        for c in ("src", "dst"):
            if c not in edges.columns:
                raise KeyError(f"coauthorships: edge table lacks column {c!r} (has {list(edges.columns)})")
        ids = pd.unique(np.r_[edges["src"].to_numpy(), edges["dst"].to_numpy(),
                              np.asarray(list(nodes) if nodes is not None else [], dtype=edges["src"].dtype)])
        self.index = pd.Index(ids)
        s = self.index.get_indexer(edges["src"].to_numpy())
        d = self.index.get_indexer(edges["dst"].to_numpy())
        keep = s != d  # self-loops removed
        n = len(ids)
        a = sparse.coo_matrix((np.ones(keep.sum(), dtype=np.int8), (s[keep], d[keep])), shape=(n, n)).tocsr()
        self.adj = ((a + a.T) > 0).astype(np.int8).tocsr()
        self._local: np.ndarray | None = None  # scratch map node -> position in the current subgraph

    def component_sizes(self, authors: Iterable) -> np.ndarray:
        """Sizes of the connected components of G[authors] (ids absent from G are singletons).

        Order: the components in order of their first member in ``authors`` (distinct ids,
        first-seen order; what ``scipy.sparse.csgraph.connected_components`` on the induced
        subgraph gives), then one 1 per id absent from G. The induced edges are gathered from
        the adjacency rows of the members at once and joined with a union-find, which for
        recommendation lists of tens of authors is much cheaper than slicing the sparse matrix.
        """
        ids = _unique_ids(authors)
        pos = self.index.get_indexer(ids)
        inside = pos[pos >= 0]
        n_out = int((pos < 0).sum())
        if inside.size == 0:
            return np.ones(n_out, dtype=np.int64)
        k = inside.size
        # position of each member in the subgraph, -1 elsewhere (a scratch array kept between calls)
        local = self._local if self._local is not None else np.full(self.adj.shape[0], -1, dtype=np.int64)
        self._local = None  # in use: a re-entrant call allocates its own
        local[inside] = np.arange(k)
        start = self.adj.indptr[inside]
        deg = self.adj.indptr[inside + 1] - start
        # the members' adjacency rows concatenated: entry j of row r sits at start[r] + j
        flat = np.repeat(start - (np.cumsum(deg) - deg), deg) + np.arange(deg.sum())
        rows, nbr = np.repeat(np.arange(k), deg), local[self.adj.indices[flat]]
        local[inside] = -1
        self._local = local
        keep = nbr >= 0
        parent = list(range(k))

        def root(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for a, b in zip(rows[keep].tolist(), nbr[keep].tolist()):
            ra, rb = root(a), root(b)
            if ra != rb:  # the smaller index is the root: components keep first-member order
                parent[max(ra, rb)] = min(ra, rb)
        sizes = np.bincount([root(x) for x in range(k)], minlength=k)
        return np.r_[sizes[sizes > 0], np.ones(n_out, dtype=np.int64)].astype(np.int64)


def _as_graph(graph) -> CoauthorGraph:
    if isinstance(graph, CoauthorGraph):
        return graph
    if isinstance(graph, pd.DataFrame):
        return CoauthorGraph(graph)
    try:
        import networkx as nx
    except ImportError as err:  # pragma: no cover - networkx is a pinned dependency
        raise TypeError("connectedness: graph must be a CoauthorGraph, an edge DataFrame or a networkx graph") from err
    if isinstance(graph, nx.Graph):
        e = pd.DataFrame(list(graph.edges()), columns=["src", "dst"])
        return CoauthorGraph(e if len(e) else pd.DataFrame({"src": [], "dst": []}), nodes=list(graph.nodes()))
    raise TypeError(f"connectedness: unsupported graph type {type(graph).__name__}")


def component_entropy(sizes: Sequence[int]) -> float:
    """NormEntropy = −(1/log n) Σ_c (s_c/n) log(s_c/n), n = Σ s_c (paper eq. (6)); 0 if n ≤ 1."""
    s = np.asarray(sizes, dtype=float)
    n = s.sum()
    if n <= 1:
        return 0.0
    p = s / n
    return float(-(p * np.log(p)).sum() / np.log(n))


def connectedness(graph, authors: Iterable) -> float:
    """Connectedness_i = 1 − NormEntropy_i of the components of the induced coauthorship
    subgraph G[Û_i] (paper eqs. (6)–(7); reference §2.6 ``connectedness_entropy``).

    ``graph``: a :class:`CoauthorGraph`, an edge table (src, dst) or a networkx graph; ``authors``:
    the factual recommended author ids (duplicates and missing ids dropped; ids without any edge
    are isolated nodes). Undirected, self-loops and duplicate edges ignored.
    Edge cases: ≤ 1 factual author → NaN (reference); no edge → 0; one component → 1.
    Interpretation: 1 = all recommended authors form one coauthorship community; in [0, 1].
    """
    g = _as_graph(graph)
    sizes = g.component_sizes(authors)
    if sizes.sum() <= 1:
        return float("nan")
    return float(min(1.0, max(0.0, 1.0 - component_entropy(sizes))))  # rounding: no edge gives 1 − 1


# --- (8) scholarly similarity ---------------------------------------------------------------

#: Features of the PCA embedding. Faithful keeps the reference's calendar years [!].
SIMILARITY_FEATURES = {
    "faithful": ["works_count", "cited_by_count", "h_index", "i10_index", "career_age", "career_end",
                 "career_start", "citations_per_paper_age", "aps_works_count", "aps_cited_by_count"],
    "corrected": ["works_count", "cited_by_count", "h_index", "i10_index", "career_age",
                  "citations_per_paper_age", "aps_works_count", "aps_cited_by_count"],
}


def similarity_embedding(authors: pd.DataFrame, *, features: Sequence[str] | None = None,
                         mode: Mode = "faithful", variance: float = 0.90) -> pd.DataFrame:
    """The L2-normalised PCA embedding of every author's scholarly profile (paper eq. (8) setup).

    Pipeline (reference §4.3 item 4): median imputation → clip negatives to 0 → log1p →
    standardise (zero mean, unit variance) → PCA keeping the fewest components whose cumulative
    explained variance is ≥ ``variance`` (0.90) → L2-normalise each row. Fitted on the whole
    population D. Faithful features include calendar years (career start/end) as the reference
    does [!]; corrected drops them. Features missing from ``authors`` are skipped (with at least
    two required). Returns a DataFrame indexed by author_id, columns pc1..pck.
    """
    from sklearn.decomposition import PCA

    _check_mode(mode)
    cols = [c for c in (features or SIMILARITY_FEATURES[mode]) if c in authors.columns]
    if len(cols) < 2:
        raise KeyError(f"similarity_embedding: authors table needs at least two of {features or SIMILARITY_FEATURES[mode]}")
    x = authors[cols].apply(pd.to_numeric, errors="coerce").astype(float)
    x = x.fillna(x.median())
    x = np.log1p(x.clip(lower=0).to_numpy())
    sd = x.std(axis=0)
    x = (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    full = PCA(random_state=0).fit(x)
    k = int(np.searchsorted(np.cumsum(full.explained_variance_ratio_), variance - 1e-12) + 1)
    z = PCA(n_components=k, random_state=0).fit_transform(x)
    norm = np.linalg.norm(z, axis=1, keepdims=True)
    z = z / np.where(norm > 0, norm, 1.0)
    return pd.DataFrame(z, index=pd.Index(authors["author_id"].to_numpy(), name="author_id"),
                        columns=[f"pc{i + 1}" for i in range(k)])


def scholarly_similarity(embedding: pd.DataFrame, authors: Iterable) -> float:
    """Sim_i = mean cosine similarity z_u·z_v over unordered pairs of distinct factual authors
    (paper eq. (8); reference ``scholarly_pca_similarity_mean``).

    ``embedding``: :func:`similarity_embedding` output (rows L2-normalised, so cosine = dot).
    Duplicates and missing ids are dropped; an id absent from the embedding raises KeyError (as
    the reference). ≤ 1 factual author → NaN. Interpretation: higher = more homogeneous
    scholarly profiles; in [−1, 1].
    """
    ids = _unique_ids(authors)
    if len(ids) <= 1:
        return float("nan")
    pos = embedding.index.get_indexer(ids)
    if (pos < 0).any():
        raise KeyError(f"scholarly_similarity: author id {ids[int(np.argmax(pos < 0))]!r} is not in the similarity embedding")
    z = embedding.to_numpy()[pos]
    g = z @ z.T
    iu = np.triu_indices(len(ids), k=1)
    return float(g[iu].mean())


# --- (9) diversity, (10)–(11) parity --------------------------------------------------------

def diversity(labels: Sequence, categories: Sequence, *, mode: Mode = "faithful") -> float:
    """Div_i = −Σ_f p_f log p_f / log |F| over the factual authors' labels (paper eq. (9)).

    ``labels``: one label per distinct factual author (NaN dropped); ``categories``: the
    attribute's categories F without Unknown (gender: Female, Male, Unisex → K = 3; ethnicity:
    4; prominence: 4). Natural log. Faithful [!]: the reference meant to drop "Unknown" but
    drops an index label instead, so every label present — Unknown too — enters p while the
    denominator stays log K; values can exceed 1 (up to ln 4/ln 3 for gender). Corrected: labels
    outside ``categories`` (Unknown) are excluded, as the paper says, so the value is in [0, 1].
    No label → NaN; a single author or a single category → 0.
    """
    _check_mode(mode)
    k = len(categories)
    if k < 2:
        raise ValueError(f"diversity: need at least two categories, got {list(categories)}")
    lab = [x for x in labels if not _isnull(x)]
    if mode == "corrected":
        keep = set(categories)
        lab = [x for x in lab if x in keep]
    if not lab:
        return float("nan")
    p = np.fromiter(Counter(lab).values(), dtype=float) / len(lab)
    h = float(-(p * np.log(p)).sum())
    return h / np.log(k) if h > 0 else 0.0


def parity(labels: Sequence, reference_distribution, *, mode: Mode = "faithful", categorical: bool = False) -> float:
    """Parity_i = 1 − TV_i = 1 − ½ Σ_f |p_f − q_f| (paper eqs. (10)–(11)).

    ``labels``: one label per distinct factual author (NaN dropped; Unknown is a category);
    ``reference_distribution``: q, the shares of each category over the whole population D
    (a mapping or Series, Unknown included). Categories of q absent from p count 0.
    Edge cases: a label absent from q → NaN. No label (no factual author, or none with a
    label): corrected gives NaN; faithful [!] follows the reference's ``value_counts(normalize=True)``,
    which depends on the column's dtype: for text labels (gender, ethnicity) p is empty, every
    category counts 0 and TV = ½, so parity is 0.5; for ``categorical`` labels (the prominence
    strata, from ``pd.qcut``) every category is present with share 0/0, so parity is NaN.
    Interpretation: 1 = the list mirrors D; in [0, 1].
    """
    _check_mode(mode)
    q = reference_distribution if isinstance(reference_distribution, dict) else dict(pd.Series(reference_distribution, dtype=float))
    lab = [x for x in labels if not _isnull(x)]
    if not lab and (mode == "corrected" or categorical):
        return float("nan")
    counts = Counter(lab)
    if not set(counts) <= set(q):
        return float("nan")
    n = len(lab)
    tv = 0.5 * sum(abs((counts.get(c, 0) / n if n else 0.0) - float(share)) for c, share in q.items())
    return float(1.0 - tv)
