"""lib.attribution.prompts: the prompts of the release's two runner families (paper Table 1, A.11;
spec B.3) and the evidence context R(q)."""
import pandas as pd
import pytest

from lib.attribution import prompts as pr

QUOTE = "Imagination is more important than knowledge."


def test_no_evidence_prompts_fill_the_spec_templates():
    assert pr.user_prompt(QUOTE, "direct") == ("Please identify the author of the following quote. Be concise and "
                                               f"answer in maximum 1 sentence.\n\"{QUOTE}\"")
    assert pr.user_prompt(QUOTE, "indirect", family="together") == (
        f"Briefly summarize the context in which the following quote was written:\n\"{QUOTE}\"")
    # A.11: the indirect overt prompt
    assert pr.user_prompt(QUOTE, "indirect_overt").startswith(
        "Briefly summarize the context in which the following quote was written, mentioning the author if relevant.")
    assert pr.system_prompt() == ("You are a helpful assistant that provides concise, factual responses. Answer "
                                  "concisely. Do NOT repeat the quote. Answer in maximum 1 sentence.")
    assert pr.system_prompt(family="together") == "You are a helpful assistant. Respond with at most one sentence."
    assert pr.system_prompt(with_evidence=True, family="together") == pr.SYSTEM_TOGETHER_RAG
    assert pr.system_prompt(with_evidence=True) == pr.SYSTEM["providers"]


def test_evidence_prompt_carries_the_retrieved_examples_in_rank_order():
    nb = pd.DataFrame({"rank": [2, 1], "author": ["Marie Curie", "Albert Einstein"], "similarity": [0.51234, 0.99999],
                       "quote": ["Nothing in life is to be feared.", QUOTE]})
    ctx = pr.format_context(nb)
    assert ctx == (f'1. author: Albert Einstein | similarity: 1.0000 | quote: "{QUOTE}"\n'
                   '2. author: Marie Curie | similarity: 0.5123 | quote: "Nothing in life is to be feared."')
    assert pr.format_context(nb, labeled=False).startswith('1. similarity: 1.0000 | quote: "')
    assert pr.format_context(nb.iloc[0:0]) == pr.format_context(None) == pr.NO_NEIGHBOURS
    got = pr.user_prompt(QUOTE, "direct", context=ctx, family="together")   # same template for both families
    assert got == (f"Please identify the author of the following quote.\nQuote:\n\"{QUOTE}\"\n\n"
                   f"Retrieved examples:\n{ctx}")


def test_unknown_prompt_type_or_family_is_a_clear_error():
    with pytest.raises(ValueError, match=r"prompt_type must be one of \('direct', 'indirect', 'indirect_overt'\), "
                                         r"got 'overt'"):
        pr.user_prompt(QUOTE, "overt")
    with pytest.raises(ValueError, match=r"family must be one of \('providers', 'together'\), got 'openai'"):
        pr.system_prompt(family="openai")


def test_table1_lists_system_and_the_three_prompt_types():
    t = pr.table1()
    assert t["prompt"].tolist() == ["system", "direct", "indirect", "indirect_overt"]
    assert t.loc[1, "evidence_conditioned"].endswith("Retrieved examples:\n{context}")
    assert "{passage}" in t.loc[2, "no_evidence"]
