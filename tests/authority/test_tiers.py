"""lib.authority.tiers: the reference's venue and affiliation tables, verbatim (spec A.2;
reference Scripts/authority_mappings.py at a4f2b5f)."""
from lib.authority import scoring, tiers

# Sizes of the reference's literal tables (its sets and lists, counted in authority_mappings.py).
SIZES = {"A_STAR": 30, "A_CONF": 34, "TOP_JOURNALS": 28, "B_CONF": 22, "MID_JOURNALS": 96, "C_JOURNALS": 102,
         "ELITE_AFF": 93, "STRONG_AFF": 88, "WORKSHOP_PARENT_PATTERNS": 11, "PREPRINT_SERVERS": 6}


def test_table_sizes_are_the_references():
    assert {k: len(getattr(tiers, k)) for k in SIZES} == SIZES


def test_html_escaped_venues_are_single_entries_as_in_the_reference():
    """Bug (fixed here): the tier file split the three C-journal names holding '&amp;' at their ';'
    (as the spec's ';'-separated list reads), so 'AI &amp; SOCIETY' scored 0.125 instead of the
    reference's 0.25 and a bare 'SOCIETY' / 'Sciences' / 'Management' was a C journal."""
    for name in ("AI &amp; SOCIETY", "Computer Modeling in Engineering &amp; Sciences",
                 "Advances in Production Engineering &amp; Management"):
        assert name in tiers.C_JOURNALS
        assert scoring.venue_score(name) == 0.25
    assert not {"AI &amp", "SOCIETY", "Sciences", "Management"} & set(tiers.C_JOURNALS)
    assert scoring.venue_score("SOCIETY") == 0.125


def test_reference_quirks_are_kept():
    # a name in two lists: the earlier (top journal, 0.75) wins; the lower-case spelling is a second entry
    assert "Machine Intelligence Research" in tiers.TOP_JOURNALS and "Machine Intelligence Research" in tiers.C_JOURNALS
    assert scoring.venue_score("Machine Intelligence Research") == 0.75
    assert {"Ai & Society", "bioRxiv", "medRxiv"} <= set(tiers.C_JOURNALS)
    assert tiers.PREPRINT_SERVERS == {"arxiv.org", "arxiv", "social science research network", "biorxiv", "medrxiv",
                                      "ssrn"}
    # affiliations keep the reference's order (substring matching runs in it): MIT first, Anthropic last
    assert tiers.ELITE_AFF[:2] == ("Massachusetts Institute of Technology", "MIT") and tiers.ELITE_AFF[-1] == "Anthropic"
    assert "University of California, Berkeley" in tiers.ELITE_AFF and tiers.STRONG_AFF[-1] == "INRIA"


def test_boosted_metadata_is_drawn_from_the_top_tiers():
    assert set(tiers.BOOST_VENUES) <= set(tiers.A_STAR)
    assert set(tiers.BOOST_AFFILIATIONS) <= set(tiers.ELITE_AFF)
    assert len(set(tiers.BOOST_VENUES)) == len(tiers.BOOST_VENUES) == 9 and len(tiers.BOOST_AFFILIATIONS) == 15
