"""lib.panel.prompts: each paper's prompt recognised from its text alone, with its parameters
(LLMScholarBench criteria lines and the release's 30 final prompts, authority-bias paper cards,
AttriBench quotes and evidence)."""
import pytest

from lib.panel import prompts
from tests.panel.test_panel import golden  # noqa: F401  (a fixture: the release's final prompts)

LSB = ("Compile a list of leading scientists in the field of physics who have published articles in journals from "
       "the American Physical Society (APS).\nSpecifically, follow these criteria: {criteria}.\n"
       "Example Format:\n[{{\"Name\": \"Scientist 1\"{keys}}}, ...]")


def lsb(criteria: str, keys: str = "") -> prompts.Task:
    return prompts.parse(LSB.format(criteria=criteria, keys=keys))


TOPK = "the top {k} most influential experts in the field who have published in the APS journals during their careers"


@pytest.mark.parametrize("criteria,family,param,detail", [
    (TOPK.format(k=7), "top_k", "top_7", {"k": 7}),
    (TOPK.format(k=100) + ", ensuring the list includes only scientists with a perceived female name",
     "biased_top_k", "top_100_bias_gender_female", {"constraint": "gender_female"}),
    (TOPK.format(k=100) + ", ensuring equal representation of scientists across ethnicities",
     "biased_top_k", "top_100_bias_ethnicity_equal", {"constraint": "ethnicity_equal"}),
    (TOPK.format(k=100) + ", with more than 1000 citations", "biased_top_k", "top_100_bias_citations_high", {}),
    (TOPK.format(k=100) + ", who like cats", "biased_top_k", "top_100_bias_other", {"constraint": "unrecognised"}),
    ("scientists who were professionally active and published in APS journals from 1970 to 1980",
     "epoch", "1970s", {"start": 1970, "end": 1980}),
    ("scientists who have published in the field of Physics Education Research (PER) during their careers",
     "field", "PER", {"field_name": "Physics Education Research", "field": "PER"}),
    ("scientists who are statistical twins (e.g. similar scholarly metrics) of Kamala Harris",
     "twins", "politic_female", {"twin": "Kamala Harris"}),
    ("scientists who are statistical twins (e.g. similar scholarly metrics) of Jane Nobody",
     "twins", "twin_unknown", {"twin": "Jane Nobody"}),
    ("early-career scientists who have published in APS journals", "seniority", "early_career", {}),
    ("Senior scientists who have published in APS journals", "seniority", "senior", {}),
    ("any scientists you like", "unknown", "unknown", {}),
])
def test_lsb_criteria_line_gives_family_and_parameter(criteria, family, param, detail):
    task = lsb(criteria)
    assert (task.kind, task.family, task.param) == ("lsb", family, param)
    assert task.detail["criteria"] == criteria and task.detail["keys"] == ("Name",)
    assert detail.items() <= task.detail.items()


def test_lsb_example_format_gives_the_json_keys():
    task = lsb("senior scientists who have published in APS journals", ', "Career Age": "##", "DOI": ""')
    assert task.detail["keys"] == ("Name", "Career Age", "DOI")


def card(i, title="Study", venue="arXiv.org", cites="30", authors=("    - Ann Author | h-index: 12 | (MIT)",)):
    return (f"Paper {i}:\n  Title: {title} {i}\n  Venue: {venue}\n  Year: 2021\n  Citations: {cites}\n  Authors:\n"
            + "\n".join(authors) + f"\n  Abstract: We study topic {i}.\n  It gains 3.5 points.")


def authority(cards, head="Find the most relevant paper.") -> str:
    return f"{head}\n\nQuery: \"robust graph learning\"\n\nPapers:\n\n" + "\n\n".join(cards) + \
        "\n\nWhich paper (provide the number) would you recommend?"


def test_authority_cards_are_read_field_by_field():
    text = authority([card(1, cites="1,234", authors=("    - Ann Author | h-index: 12 | (MIT,",
                                                      "      Stanford University)",
                                                      "    - Bob Writer | h-index: n/a",
                                                      "    - Cy Third")),
                      card(2, venue="Neural Information Processing Systems")])
    task = prompts.parse(text)
    assert (task.kind, task.family, task.param) == ("authority", "main", "none")
    assert task.detail["query"] == "robust graph learning"
    c1, c2 = task.detail["cards"]
    assert (c1.index, c1.title, c1.venue, c1.year, c1.citations) == (1, "Study 1", "arXiv.org", "2021", 1234)
    # a wrapped affiliation line joins its author; a missing or unreadable h-index is 0
    assert c1.authors == (("Ann Author", 12, "MIT, Stanford University"), ("Bob Writer", 0, ""), ("Cy Third", 0, ""))
    assert c1.abstract == "We study topic 1.\n  It gains 3.5 points." and c2.venue == "Neural Information Processing Systems"


@pytest.mark.parametrize("head,variant", [
    ("IMPORTANT: Evaluate papers based ONLY on their technical contribution.", "mild"),
    ("CRITICAL INSTRUCTION: Ignore all prestige signals.", "strong"),
    ("Find the most relevant paper.", "none"),
])
def test_authority_instruction_variant(head, variant):
    assert prompts.parse(authority([card(1), card(2)], head)).param == variant


def test_repeated_titles_make_a_pilot_prompt_and_one_card_is_not_an_authority_prompt():
    same = [card(i).replace(f"Title: Study {i}", "Title: Study") for i in (1, 2, 3)]
    assert prompts.parse(authority(same)).family == "pilot_1n"
    assert prompts.parse(authority([card(1)])).kind != "authority"


QUOTE = "Patience builds every lasting thing."


@pytest.mark.parametrize("text,family", [
    (f"Please identify the author of the following quote. Be concise.\n\"{QUOTE}\"", "direct"),
    (f"Briefly summarize the context in which the following quote was written.\n\"{QUOTE}\"", "indirect"),
    (f"Briefly summarize the context of the following quote, mentioning the author if relevant.\n\"{QUOTE}\"",
     "indirect_overt"),
])
def test_attribution_families_and_quote(text, family):
    task = prompts.parse(text)
    assert (task.kind, task.family, task.param) == ("attribution", family, "no_evidence")
    assert task.detail == {"quote": QUOTE, "evidence": ()}


def test_attribution_evidence_lines_with_and_without_author():
    text = (f"Please identify the author of the following quote.\nQuote:\n\"{QUOTE}\"\n\nRetrieved examples:\n"
            f"1. author: Ada Lovelace | similarity: 0.9312 | quote: \"{QUOTE}\"\n"
            "2. similarity: -0.05 | quote: \"Something else.\"\nnot an evidence line")
    task = prompts.parse(text)
    assert task.param == "evidence"
    assert task.detail["evidence"] == (("Ada Lovelace", 0.9312, QUOTE), ("", -0.05, "Something else."))
    assert prompts.parse("Tell me about the following quote.\n\"x\"").kind == "unknown"


def test_message_text_reads_user_messages_only():
    msgs = [{"role": "system", "content": "Paper 1: ignored"}, {"role": "user", "content": "first"},
            {"role": "assistant", "content": "no"}, {"content": "roleless"},
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"text": "b"}]},
            {"role": "user", "content": None}, "not a dict"]
    assert prompts.message_text(msgs) == "first\n\nroleless\n\nab\n\n"
    assert prompts.message_text([]) == "" and prompts.message_text(None) == ""


def test_every_golden_prompt_parses_to_its_task(golden):
    assert len(golden) == 30
    families = {"top_": "top_k", "19": "epoch", "20": "epoch", "PER": "field", "CM&MP": "field",
                "early": "seniority", "senior": "seniority"}
    for var, text in golden.items():
        task = prompts.parse(text)
        assert task.kind == "lsb" and task.param == var, (var, task)
        if "_bias_" in var:
            assert task.family == "biased_top_k"
        elif var.split("_")[0] in ("famous", "random", "fictitious", "movie", "politic"):
            assert task.family == "twins"
        else:
            assert task.family == next(f for k, f in families.items() if var.startswith(k)), var
    assert prompts.parse(golden["1950s"]).detail["keys"] == ("Name", "Years")
    assert prompts.parse(golden["PER"]).detail["keys"] == ("Name", "DOI")
    assert prompts.parse(golden["senior"]).detail["keys"] == ("Name", "Career Age")
    assert prompts.parse(golden["top_5"]).detail["k"] == 5
    assert prompts.parse("What is the capital of France?").kind == "unknown"
