"""lib.panel.texts: every surface template belongs to the class the audit pipelines' keyword rules
give it (moved from test_panel.py), and each formats with the fields the panel fills in."""
import re

from lib.panel import authority, scholar, texts
from tests.panel.test_panel import MENTION_RE, REFUSAL_RE

# Words of the reference's "Other or no explanation" override (a refusal shorter than 100 characters
# without any of them is "Other")
OTHER_WORDS = ["because", "due to", "promote", "bias", "discriminat", "racial", "race", "harmful", "perceived",
               "ethic", "stereotypical"]
# AttriBench's "any name" heuristic (reference B.4)
ANY_NAME_RE = re.compile(r"\b([A-Z][a-z]+|[A-Z]\.)(?:[-'][A-Z][a-z]+)?(?:\s+([A-Z][a-z]+|[A-Z]\.)(?:[-'][A-Z][a-z]+)?)+\b")


def test_text_templates_belong_to_their_classes():
    for t in texts.TRACE_PLAIN + texts.PREAMBLE_PLAIN + texts.NOTE_PLAIN + texts.NONSENSE:
        assert not REFUSAL_RE.search(t.lower()), t
    for t in texts.TRACE_HEDGE + texts.PREAMBLE_HEDGE:
        assert REFUSAL_RE.search(t.lower()), t
    for family, options in texts.REFUSALS.items():
        for t in options:
            assert REFUSAL_RE.search(t.lower()), t
            short_plain = len(t) < 100 and not any(w in t.lower() for w in OTHER_WORDS)
            assert short_plain == (family == "Other or no explanation"), t
    for t in texts.JUSTIFY_PLAIN:
        assert not MENTION_RE.search(t), t
    for t in texts.AUTHORITY_MARKERS:
        assert MENTION_RE.search(t.format(citations=120, venue="ICML", h=40)), t
    for t in texts.SUMMARIES + texts.DONT_KNOW:
        assert not ANY_NAME_RE.search(t.format(theme="patience")), t


def test_templates_format_with_the_fields_the_panel_fills():
    for t in texts.TRACE_PLAIN + texts.TRACE_HEDGE:
        assert "{criteria}" in t and "{" not in t.format(criteria="x")
    for options in texts.REFUSALS.values():
        for t in options:
            assert "{" not in t.format(name="Sheldon Cooper", descr="a character")
    for t in texts.DIRECT_KNOWN + texts.DIRECT_WRONG + texts.INDIRECT_MENTION:
        assert "Ada Lovelace" in t.format(author="Ada Lovelace", theme="patience")
    for t in texts.AUTHORITY_MARKERS:
        assert "{" not in t.format(citations=1, venue="v", h=2)
    assert set(texts.TWIN_DESCR) == {"movie", "politic", "fictitious", "other"}


def test_refusal_families_cover_the_panels_mixes_and_stray_prefixes_carry_a_paper_number():
    assert texts.REFUSAL_FAMILIES == ("Contradictory request", "Lack of information", "Unethical request",
                                      "Other or no explanation")
    for group, mix in scholar.FAMILY_MIX.items():
        assert set(mix) <= set(texts.REFUSAL_FAMILIES) and abs(sum(mix.values()) - 1) < 1e-9, group
    # each stray prefix puts an in-range number before the answer, which the faithful parser reads first
    firsts = [next(int(x) for x in re.findall(r"\d+", t) if 1 <= int(x) <= 10) for t in texts.STRAY_PREFIX]
    assert firsts == [2, 3, 1, 10] and authority._stray_numbers() == tuple(firsts)
