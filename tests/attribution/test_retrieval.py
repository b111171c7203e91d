"""Evidence retrieval with all-MiniLM-L6-v2 (one model load for the module) and the request builder."""
import numpy as np
import pandas as pd
import pytest

from lib.attribution import prompts, retrieval
from lib.attribution.requests import build_requests

SENTENCES = [
    "Love is the quiet form of kindness.", "Kindness outlasts what anger cannot.", "A heart that loves is never poor.",
    "Time heals what reason cannot.", "Patience is the oldest companion of time.", "Tomorrow belongs to those who wait.",
    "Freedom is never granted; it is won.", "Justice delayed is justice denied.", "Courage is the price of liberty.",
    "Work hard and success will follow.", "Failure is the first step of practice.", "Discipline builds every craft.",
    "Knowledge begins with a question.", "Curiosity is the engine of learning.", "Doubt is the beginning of wisdom.",
    "The river never flows backward.", "Silence of the forest speaks to the soul.", "Rain falls on the mountain at dusk.",
    "Music is the language of the spirit.", "Poetry is beauty set to words.", "Every story needs an ending.",
    "Faith moves the hardest mountain.", "Hope is a promise to tomorrow.", "Grace is mercy undeserved.",
    "Life is the longest journey home.", "Change is the only constant of living.", "Each day is a new beginning.",
    "Power corrupts the people who hold it.", "History is written by the victors.", "Fear is a poor leader of nations.",
    "Freedom is never given to us; it must be won.",
]


@pytest.fixture(scope="module")
def corpus():
    return pd.DataFrame({"quote_id": [f"jstet_{i}" for i in range(len(SENTENCES))], "quote": SENTENCES,
                         "author_clean": [f"Author {chr(65 + i % 26)}{i}" for i in range(len(SENTENCES))]})


@pytest.fixture(scope="module")
def neigh(corpus, tmp_path_factory):
    cache = tmp_path_factory.mktemp("emb")
    return retrieval.neighbours(corpus, k=5, cache_dir=cache), cache


def test_query_quote_is_first_with_similarity_one(neigh, corpus):
    n, _ = neigh
    first = n[n["rank"] == 1].set_index("quote_id")
    assert (first["neighbour_quote_id"] == first.index).all()
    assert first["similarity"].to_numpy() == pytest.approx(1.0, abs=1e-5)
    assert first["is_self"].all() and n.groupby("quote_id").size().eq(5).all()
    assert (n.groupby("quote_id")["similarity"].apply(lambda s: s.is_monotonic_decreasing)).all()
    # a paraphrase is the nearest other quote
    assert n[(n["quote_id"] == "jstet_6") & (n["rank"] == 2)]["neighbour_quote_id"].item() == "jstet_30"


def test_embeddings_are_cached_and_normalised(neigh, corpus):
    _, cache = neigh
    assert (cache / f"{retrieval.MODEL_NAME}.npz").is_file()
    calls = []

    def must_not_encode(texts):
        calls.append(texts)
        raise AssertionError("cached texts were encoded again")

    e = retrieval.embed(SENTENCES[:5], cache_dir=cache, embedder=must_not_encode)
    assert e.shape == (5, 384) and np.linalg.norm(e, axis=1) == pytest.approx(1.0, abs=1e-5)


def test_exclude_self_with_stub_embedder(tmp_path, corpus):
    def stub(texts):  # two clusters by first letter
        return np.array([[1.0, 0.1 * i] if t[0] < "M" else [0.1 * i, 1.0] for i, t in enumerate(texts)])

    n = retrieval.neighbours(corpus, k=3, exclude_self=True, cache_dir=tmp_path, embedder=stub, model_name="stub")
    assert not n["is_self"].any() and (n["neighbour_quote_id"] != n["quote_id"]).all()


def test_context_and_requests(neigh, corpus):
    n, _ = neigh
    req = build_requests(corpus.head(2), prompt_type="indirect", with_evidence=True, retrieval=n)
    assert len(req) == 6 and req["generation"].tolist() == [1, 2, 3, 1, 2, 3]
    assert req["request_id"].nunique() == 6 and (req["temperature"] == 0.7).all() and (req["top_p"] == 0.95).all()
    msgs = req["messages"].iloc[0]
    assert msgs[0] == {"role": "system", "content": prompts.SYSTEM["providers"]}
    user = msgs[1]["content"]
    assert user.startswith("Briefly summarize the context in which the following quote was written.\nQuote:\n\"Love is")
    assert "\n\nRetrieved examples:\n1. author: Author A0 | similarity: 1.0000 | quote: \"Love is the quiet form of kindness.\"" in user
    assert user.count("\n") == 4 + 5 - 1 + 1
    plain = build_requests(corpus.head(1), prompt_type="direct", with_evidence=False, generations=1)
    assert plain["messages"].iloc[0][1]["content"] == (
        "Please identify the author of the following quote. Be concise and answer in maximum 1 sentence.\n"
        "\"Love is the quiet form of kindness.\"")
    assert plain["custom_id"].item() == "qid=jstet_0|prompt=direct|evidence=0|run=1"
    with pytest.raises(ValueError, match="retrieval table"):
        build_requests(corpus, prompt_type="direct", with_evidence=True)
    with pytest.raises(ValueError, match="prompt_type"):
        build_requests(corpus, prompt_type="sideways", with_evidence=False)


def test_no_neighbours_line():
    assert prompts.format_context(None) == prompts.NO_NEIGHBOURS
    t1 = prompts.table1()
    assert t1["prompt"].tolist() == ["system", "direct", "indirect", "indirect_overt"]
