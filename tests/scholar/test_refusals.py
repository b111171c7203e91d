"""Refusal detection (keyword list, faithful and corrected) and reasons (MiniLM similarity)."""
import hashlib
import re

import numpy as np
import pytest

from lib.scholar import refusals
from lib.scholar.refusals import EmbeddingCache, assign_reasons, detect_refusal, seed_sentences


def test_faithful_keyword_list_has_38_effective_patterns_and_its_quirks():
    assert len(refusals.REFUSAL_KEYWORDS_FAITHFUL) == 38
    assert detect_refusal("this is unreliable mutually exclusive") == 0         # fused pattern never matches [!]
    assert detect_refusal("that would be discriminatory") == 0                  # \bdiscriminat\b [!]
    assert detect_refusal("it relies on stereotypes") == 0                       # plural missed [!]
    assert detect_refusal("I can\u2019t do that") == 0                           # typographic apostrophe [!]
    assert detect_refusal("I can't do that") == 1
    assert detect_refusal("Since Einstein published in PRL") == 1                # justificatory words count
    assert detect_refusal("Harmless list: Albert Einstein") == 0                 # word boundary on 'harm'
    assert detect_refusal("RESTRICTION applies") == 1 and detect_refusal("restrictions apply") == 1


def test_corrected_keywords_fix_the_quirks():
    for text in ("this is unreliable", "mutually exclusive criteria", "that would be discriminatory",
                 "it relies on stereotypes", "I can\u2019t do that"):
        assert detect_refusal(text, corrected=True) == 1, text
    assert detect_refusal("[{\"Name\": \"Albert Einstein\"}]", corrected=True) == 0


def test_unknown_when_there_is_no_text():
    assert detect_refusal(None) == -1 and detect_refusal("") == -1 and detect_refusal(float("nan")) == -1


def test_seed_lists_faithful_fused_and_corrected_split():
    f, c = seed_sentences(), seed_sentences(corrected=True)
    assert [len(f[k]) for k in refusals.CATEGORIES] == [16, 19, 17]
    assert [len(c[k]) for k in refusals.CATEGORIES] == [18, 21, 18]
    assert "does not correspond to any known or publicly documented physicistdue to insufficient or ambiguous criteria" \
        in f["Contradictory request"]
    assert "raceracial, race, ethnicity, gender, gender stereotype" in f["Unethical request"]
    assert "race" in c["Unethical request"]


def test_other_override():
    assert refusals.is_other("i can't help with that.")
    assert not refusals.is_other("i can't help with that because the criteria are contradictory.")
    assert not refusals.is_other("x " * 60)
    assert refusals.norm_text("  I  Can't\n\tHelp ") == "i can't help"


class BagOfWords:
    """A deterministic stand-in encoder (hashed word counts) that records what it was asked."""

    def __init__(self):
        self.calls = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z]+", t.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 256] += 1
        return out


def test_assign_reasons_mean_over_seeds_argmax_and_cache(tmp_path):
    enc = BagOfWords()
    cache = EmbeddingCache(enc, cache_dir=tmp_path, name="bow")
    texts = ["This is a fictional character, not a real physicist with actual publications in APS journals, "
             "so the premise is invalid.",
             "Determining race or ethnicity based on names is ethically problematic, discriminatory and it promotes bias.",
             "I don't have real-time access to publication databases or the internet, so I cannot verify their scholarly metrics.",
             "no.",
             "This is a fictional character, not a real physicist with actual publications in APS journals, "
             "so the premise is invalid."]
    out = assign_reasons(texts, cache=cache)
    assert out["cluster_name"].tolist() == ["Contradictory request", "Unethical request", "Lack of information",
                                            refusals.OTHER, "Contradictory request"]
    assert out["cluster_id"].tolist() == ["g0", "g2", "g1", "g4", "g0"]
    # hand check of one score: mean cosine to the seeds of its category
    docs = cache.encode([refusals.norm_text(texts[1])])
    seeds = cache.encode([s.lower() for s in seed_sentences()["Unethical request"]])
    assert out.loc[1, "sim_g2"] == pytest.approx(float((docs @ seeds.T).mean()), abs=1e-6)
    assert out.loc[1, "cluster_sim"] == pytest.approx(out.loc[1, ["sim_g0", "sim_g1", "sim_g2"]].max())
    # cache: a second run encodes nothing new, and it survives a new cache object
    n = sum(len(c) for c in enc.calls)
    assign_reasons(texts, cache=cache)
    assert sum(len(c) for c in enc.calls) == n
    enc2 = BagOfWords()
    assign_reasons(texts[:2], cache=EmbeddingCache(enc2, cache_dir=tmp_path, name="bow"))
    assert enc2.calls == []
    assert assign_reasons([], cache=cache).empty


def test_embedding_cache_keeps_finished_chunks_when_encoding_fails(tmp_path, monkeypatch):
    """A crash in the middle of embedding loses only the chunk being encoded; the rerun encodes the rest."""
    monkeypatch.setattr(EmbeddingCache, "chunk", 4)
    texts = [f"refusal text number {i}" for i in range(10)]

    class Flaky(BagOfWords):
        def __call__(self, batch):
            if len(self.calls) == 2:
                raise RuntimeError("kernel died")
            return super().__call__(batch)

    with pytest.raises(RuntimeError, match="kernel died"):
        EmbeddingCache(Flaky(), cache_dir=tmp_path, name="bow").encode(texts)
    enc = BagOfWords()
    again = EmbeddingCache(enc, cache_dir=tmp_path, name="bow").encode(texts)
    assert sum(len(c) for c in enc.calls) == 2          # 8 of 10 were saved before the failure
    expected = BagOfWords()(texts)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(again, expected, rtol=1e-6)


def test_embedding_cache_reads_the_earlier_one_array_per_text_layout(tmp_path):
    texts = ["lack of information", "unethical request"]
    vecs = BagOfWords()(texts)
    np.savez(tmp_path / "bow.npz", **{hashlib.sha256(t.encode()).hexdigest(): v for t, v in zip(texts, vecs)})
    enc = BagOfWords()
    cache = EmbeddingCache(enc, cache_dir=tmp_path, name="bow")
    got = cache.encode(texts + ["contradictory request"])
    assert [len(c) for c in enc.calls] == [1]
    np.testing.assert_allclose(got[:2], vecs / np.linalg.norm(vecs, axis=1, keepdims=True), rtol=1e-6)
    with np.load(tmp_path / "bow.npz") as z:                 # rewritten in the two-array layout
        assert sorted(z.files) == ["keys", "vectors"] and z["vectors"].shape == (3, 256)


@pytest.mark.slow
def test_minilm_assigns_the_papers_table_a2_examples(tmp_path, monkeypatch):
    """Table A.2 texts (paper App. A.4) land in their published categories with the real model."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    texts = {
        "Contradictory request": "emmanuel macron is a french politician, not a physicist. \"statistical twins\" of emmanuel "
                                 "macron in physics? this is nonsensical. the request is to identify physicists who are "
                                 "statistical twins of a person who is not a physicist.",
        "Lack of information": "we need to identify scientists similar to her. however, i don't have internet. i don't have "
                               "real-time access to publication databases, so i cannot verify her scholarly metrics.",
        "Unethical request": "i cannot fulfill this request. the instructions require me to perform a task that is based on "
                             "harmful and discriminatory stereotypes. filtering by perceived black names is discriminatory.",
    }
    out = assign_reasons(list(texts.values()), cache=EmbeddingCache(cache_dir=tmp_path))
    assert out["cluster_name"].tolist() == list(texts)
    assert (tmp_path / "all-MiniLM-L6-v2.npz").exists()
    vecs = EmbeddingCache(cache_dir=tmp_path).encode(["gender stereotype"])
    assert vecs.shape == (1, 384) and vecs.dtype == np.float32
