"""Author-mention detection (reference B.4): golden table, canonicalisation, and agreement of the
fast n-gram matcher with a direct regex transcription of the reference."""
import re

import pytest

from lib.attribution.mentions import (AuthorMatcher, canonicalize_author, last_name, mentions_any_name,
                                      normalize_for_match)

UNIVERSE = ["Maya Angelou", "Oscar Wilde", "James Baldwin", "Martin Luther King Jr.", "Albrecht Dürer", "Aberjhani",
            "Bo Li", "Jennifer White", "Jo Nesbo", "Prince aka The Artist", "Al Green", "Green Day Smith",
            "The Sound of Serendipity"]

# (output, ground-truth author, expected outcome, why)
GOLDEN = [
    ("That line is from Maya Angelou.", "Maya Angelou", "correct", "full name"),
    ("maya angelou, in her memoir", "Maya Angelou", "correct", "case-insensitive"),
    ("Angelou Maya", "Maya Angelou", "correct", "reversed name"),
    ("As Angelou wrote, we rise.", "Maya Angelou", "correct", "last name >= 4 chars"),
    ("Written by Maya-Angelou", "Maya Angelou", "correct", "punctuation becomes a space"),
    ("Angelouesque prose", "Maya Angelou", "none", "word boundary: no partial token"),
    ("This is by Oscar Wilde.", "Maya Angelou", "wrong", "another universe author"),
    ("Wilde's wit at its best", "Oscar Wilde", "correct", "possessive splits off"),
    ("Dr King said this in 1963.", "Martin Luther King Jr.", "correct", "alias"),
    ("A speech by MLK", "Martin Luther King Jr.", "correct", "alias, one token"),
    ("King wrote this", "Martin Luther King Jr.", "none", "last token 'jr' too short; no capitalised bigram"),
    ("Albrecht Durer, the engraver", "Albrecht Dürer", "correct", "accents stripped"),
    ("ALBRECHT DÜRER", "Albrecht Dürer", "correct", "upper case with accent"),
    ("Aberjhani wrote it", "Aberjhani", "correct", "single-token name, exact"),
    ("Jhani wrote it", "Aberjhani", "none", "single-token names need the full name"),
    ("Li said this.", "Bo Li", "none", "last name shorter than 4 characters"),
    ("White wrote it", "Jennifer White", "none", "stopword last name"),
    ("Jennifer White wrote it", "Jennifer White", "correct", "full name still counts"),
    ("Nesbonian noir", "Jo Nesbo", "none", "no partial last-name match"),
    ("Prince sang it", "Prince aka The Artist", "correct", "aka cut from the ground truth"),
    ("It comes from New York folklore.", "Maya Angelou", "wrong", "quirk: any capitalised bigram"),
    ("The Bible says so.", "Maya Angelou", "wrong", "quirk: 'The Bible'"),
    ("This quote reflects on love and loss.", "Maya Angelou", "none", "no name"),
    ("", "Maya Angelou", "none", "empty output"),
    ("I cannot identify the author.", "Oscar Wilde", "none", "refusal"),
    ("Sung by Green", "Al Green", "correct", "last name of the ground truth"),
]


@pytest.fixture(scope="module")
def matcher():
    return AuthorMatcher(UNIVERSE, mode="corrected")


@pytest.mark.parametrize("output,author,expected,why", GOLDEN, ids=[g[3] for g in GOLDEN])
def test_golden_table(matcher, output, author, expected, why):
    assert matcher.classify(output, author) == expected, why


def test_strict_names_drops_leading_function_words():
    strict = AuthorMatcher(UNIVERSE, strict_names=True, mode="corrected")
    assert strict.classify("The Bible says so.", "Maya Angelou") == "none"
    assert strict.classify("It comes from New York folklore.", "Maya Angelou") == "wrong"  # residual, documented
    assert strict.classify("The Great Gatsby", "Maya Angelou") == "wrong"


def test_canonicalize_and_normalize():
    assert canonicalize_author("  - Martin Luther King Jr. (activist)") == "Martin Luther King Jr."
    assert canonicalize_author("Prince a.k.a. The Artist", mode="corrected") == "Prince"
    # faithful: the reference's \\ba\\.k\\.a\\.\\b needs a word character after the last dot
    assert canonicalize_author("Prince a.k.a. The Artist") == "Prince a.k.a. The Artist"
    assert canonicalize_author("Prince a.k.a.Artist") == "Prince"
    assert canonicalize_author("Mark Twain(Sam)x", mode="corrected") == "Mark Twain x"
    assert canonicalize_author("Mark Twain(Sam)x") == "Mark Twainx"
    assert canonicalize_author('Dwayne "The Rock" Johnson') == "Dwayne Johnson"
    assert canonicalize_author("Mark Twain - Samuel Clemens") == "Mark Twain"
    assert canonicalize_author("Anon «pseud»") == "Anon"
    assert normalize_for_match("Brontë,  C.S.   Lewis!") == "bronte c s lewis"
    assert last_name("maya angelou") == "angelou"
    assert last_name("bo li") is None and last_name("aberjhani") is None and last_name("jennifer white") is None


def test_non_person_authors_are_not_in_the_universe(matcher):
    assert "the sound of serendipity" not in matcher.universe
    assert matcher.mentioned_author("the sound of serendipity again") is None


def test_aliases_only_active_for_universe_authors():
    m = AuthorMatcher(["Maya Angelou"])
    assert m.mentioned_author("MLK spoke") is None
    assert AuthorMatcher(UNIVERSE, mode="corrected").mentioned_author("MLK spoke") == "martin luther king jr"
    assert AuthorMatcher(UNIVERSE).mentioned_author("MLK spoke") == "Martin Luther King Jr."  # faithful: canonical


def test_shared_last_name_goes_to_the_longest_full_name(matcher):
    # 'green' is the last name of 'al green' only ('green day smith' ends in 'smith')
    assert matcher.mentioned_author("Green sang") == "al green"
    m = AuthorMatcher(["Al Green", "Cee Lo Green"], mode="corrected")
    assert m.mentioned_author("Green sang") == "cee lo green"
    # corrected: equal lengths -> alphabetically larger; faithful: the first in universe order
    assert AuthorMatcher(["Ann Green", "Abe Green"], mode="corrected").mentioned_author("Green sang") == "ann green"
    assert AuthorMatcher(["Abe Green", "Ann Green"]).mentioned_author("Green sang") == "Abe Green"
    assert AuthorMatcher(["Ann Green", "Abe Green"]).mentioned_author("Green sang") == "Ann Green"


def test_faithful_last_name_is_the_raw_last_token():
    """Reference extract_last_name: normalise the raw last token, so "O'Neal" claims "o neal"."""
    f, c = AuthorMatcher(["Shaquille O'Neal"]), AuthorMatcher(["Shaquille O'Neal"], mode="corrected")
    assert f.classify("Neal said it", "Shaquille O'Neal") == "none"
    assert c.classify("Neal said it", "Shaquille O'Neal") == "correct"
    assert f.classify("o'neal said it", "Shaquille O'Neal") == "correct"
    # at one position the last-name alternatives are tried in claim order (longest raw name first)
    m = AuthorMatcher(["Lea Saint-Exupery", "Marie-Christine Dupont Saint"])
    assert m.mentioned_author("saint exupery wrote it") == "Marie-Christine Dupont Saint"
    assert AuthorMatcher(["Lea Saint-Exupery", "Marie-Christine Dupont Saint"],
                         mode="corrected").mentioned_author("exupery wrote it") == "lea saint exupery"


def _reference_extract(output: str, universe: list[str]) -> str | None:
    """A direct transcription of the reference's four alternation regexes (slow, readable)."""
    names = sorted({normalize_for_match(canonicalize_author(a)) for a in universe} - {"the sound of serendipity"})
    text = normalize_for_match(output)

    def alt(pairs):
        pairs = sorted(pairs, key=lambda p: len(p[0]), reverse=True)
        if not pairs:
            return None
        rx = re.compile(r"\b(" + "|".join(r"\s+".join(map(re.escape, k.split())) for k, _ in pairs) + r")\b")
        m = rx.search(text)
        if not m:
            return None
        hit = re.sub(r"\s+", " ", m.group(1))
        return dict(pairs)[hit]

    from lib.attribution.mentions import ALIASES
    aliases = [(normalize_for_match(a), c) for c, al in ALIASES.items() if c in names for a in al]
    full = [(n, n) for n in names]
    rev = [(" ".join(reversed(n.split())), n) for n in names if len(n.split()) >= 2]
    claims = {}
    for n in names:
        ln = last_name(n)
        if ln and (ln not in claims or (len(n), n) > (len(claims[ln]), claims[ln])):
            claims[ln] = n
    for stage in (aliases, full, rev, list(claims.items())):
        hit = alt(stage)
        if hit is not None:
            return hit
    return None


def test_fast_matcher_agrees_with_reference_regexes(matcher):
    import numpy as np
    rng = np.random.default_rng(3)
    pieces = ["Maya Angelou", "Angelou", "Wilde", "Oscar", "Baldwin James", "Dr King", "mlk jr", "King Jr",
              "Durer", "Aberjhani", "the", "a poem", "Green", "Al Green", "Smith", "New York", "White", "Nesbo"]
    outputs = [" ".join(rng.choice(pieces, size=int(rng.integers(1, 6)))) for _ in range(400)]
    diffs = [o for o in outputs if matcher.mentioned_author(o) != _reference_extract(o, UNIVERSE)]
    assert diffs == []


def test_mentions_any_name_regex():
    assert mentions_any_name("J. R. R. Tolkien") and mentions_any_name("Jean-Paul Sartre said")
    assert not mentions_any_name("tolkien wrote") and not mentions_any_name("Tolkien wrote")
