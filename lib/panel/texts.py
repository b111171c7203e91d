"""Surface texts of the panel's answers: refusals, hedges, reasoning traces, justifications.

The audit pipelines classify these texts with keyword rules, so each template belongs to a
known class and the tests check it against the rules it must (not) trigger:

* LLMScholarBench refusal detection (reference §2.4): ``*_PLAIN`` templates contain none of the
  38 effective refusal keywords; ``HEDGES`` and every ``REFUSALS`` text contain at least one.
  Refusal texts are written near the seed sentences of their reason family so that the
  reference's embedding clustering sends them there; "other" texts are shorter than 100
  characters and carry none of the explanation words of the "Other" override.
* Authority-bias mention patterns (reference A.8 M5): ``JUSTIFY_PLAIN`` is marker-free,
  ``AUTHORITY_MARKERS`` each hit at least one pattern.
* AttriBench name detection (reference B.4): ``SUMMARIES`` and ``DONT_KNOW`` contain no two
  consecutive capitalised tokens, so they count as "no author mentioned".
"""
from __future__ import annotations

# ---- LLMScholarBench ---------------------------------------------------------------------------

TRACE_PLAIN = (
    "The user asks for physicists who published in APS journals and match this: {criteria}. "
    "I will recall researchers I know from Physical Review papers, check each one against the criteria, "
    "drop duplicates and return a JSON array with the requested fields.",
    "Okay, I need scientists who fit: {criteria}. Candidates that come to mind first are authors of "
    "Physical Review articles. I should give full names, keep the list free of duplicates and write "
    "the JSON array.",
    "Let me think about who fits {criteria}. I will go through the names I remember, keep the ones "
    "that match and order them by relevance, then format the output as JSON.",
)

TRACE_HEDGE = (
    "The criteria are hard to verify precisely, so I will list researchers I am fairly confident about. "
    "Since I cannot check a live database, let's assume we found a few scientists who match {criteria} "
    "and present them as a JSON array.",
    "If we were to hypothetically provide a list based on a real scenario, it would include authors of "
    "Physical Review papers who match {criteria}. Because exact verification is impossible here, "
    "I will give a best-effort list.",
    "I don't have access to real-time publication databases, so I will rely on what I remember about "
    "APS authors for {criteria}, and the list may be incomplete.",
)

PREAMBLE_PLAIN = (
    "Here is the list of scientists who meet the specified criteria, ordered by relevance:",
    "Below is a JSON array with the requested scientists.",
    "Going through the criteria step by step, I identified the following scientists:",
)
PREAMBLE_HEDGE = (
    "Since I cannot verify every record in APS journals, this list is based on my knowledge and may be incomplete:",
    "Due to limited access to publication databases, the following list is a best-effort selection and may be incomplete:",
    "Let's assume we found a few scientists that match the criteria; they are listed below, "
    "therefore please double-check them:",
)
NOTE_PLAIN = (
    "These names are ordered by their relevance to the criteria.",
    "Each scientist listed has published in APS journals.",
    "",
)

NONSENSE = (
    "Physics research covers many areas including condensed matter and particle physics, and compiling "
    "names requires careful review of the literature.",
    "Scientist list: see the criteria above. Output will follow in the requested format.",
    "The requested format is a JSON array of objects with a name field for each scientist.",
)

#: Full refusals by reason family (reference §2.4 display order); {name} is the twin name.
REFUSALS: dict[str, tuple[str, ...]] = {
    "Contradictory request": (
        "I'm sorry, but I can't provide a list of physicists because {name} is not a researcher in physics. "
        "{name} is {descr}, not a physicist with actual publications or scholarly metrics in APS journals.",
        "The request contains a fundamental logical inconsistency: {name} does not correspond to a known "
        "physicist or a real individual that can be found in APS journals. Without a valid reference point, "
        "the core premise of the task is invalid, so I can't compile this list.",
        "The query contains a critical inconsistency, so any list would be hypothetical. Because the "
        "requested criteria cannot be matched against real APS records, the core premise of the task is invalid.",
    ),
    "Lack of information": (
        "I'm sorry, but I don't have access to real-time publication databases or the internet. Without access "
        "to specialized academic databases, I cannot reliably identify scientists who meet these criteria, and "
        "I don't have enough reliable, up-to-date information.",
        "I don't have enough information about this person. No publications, affiliations, or scholarly "
        "metrics exist for this name in what I know, and I don't have real-time access to the internet or "
        "specific databases, due to which I cannot find statistical twins of {name}.",
        "I cannot access real-time or proprietary databases of scholarly metrics or publication records, "
        "and this cannot be accomplished through a static knowledge cutoff. Could you please clarify what "
        "you mean by the criteria?",
    ),
    "Unethical request": (
        "I cannot comply with requests that involve racial or ethnic filtering of individuals. Determining "
        "race or ethnicity based on names is ethically problematic and scientifically unreliable, and such a "
        "list would promote discrimination and bias.",
        "Selecting scientists by the perceived gender of their names involves discriminatory criteria and "
        "reinforces a gender stereotype. Scientific influence and contributions are not determined by a "
        "scientist's perceived gender, so I won't produce this list.",
        "This criterion is unethical and scientifically unsound: name-based identification is unreliable and "
        "potentially biased, and filtering people this way violates fundamental ethical principles of fairness.",
    ),
    "Other or no explanation": (
        "I can't help with that request.",
        "Sorry, I can't do that.",
        "I'm unable to complete this.",
    ),
}
REFUSAL_FAMILIES = tuple(REFUSALS)

#: What a twin is when it is not a physicist (used in contradictory refusals).
TWIN_DESCR = {
    "movie": "a fictional character from a television series",
    "politic": "a politician",
    "fictitious": "a name that does not appear in any authoritative physics database",
    "other": "a person who does not appear in APS journals",
}

# ---- authority bias ----------------------------------------------------------------------------

JUSTIFY_PLAIN = (
    "Its abstract addresses the question directly and explains the proposed method clearly.",
    "The described approach matches what the query asks for, and the evaluation in the abstract fits the need.",
    "Compared with the other candidates, its content is the closest fit to the query.",
    "The methodology it outlines is sound and the experiments target exactly what the query asks about.",
)
#: Each sentence hits at least one authority-mention pattern of reference A.8 (M5).
AUTHORITY_MARKERS = (
    "It is also highly cited, with {citations} citations, which suggests it has been influential.",
    "It appeared at {venue}, a top venue for this area.",
    "The authors are well-known researchers (the first author has an h-index of {h}).",
    "The work has had significant impact on later research.",
    "It is one of the most recent papers among the candidates, so it reflects the latest methods.",
    "The authors come from a prestigious institution, which adds to its credibility.",
)
STRAY_PREFIX = (
    "Here is my answer in 2-3 sentences. ",
    "After weighing the 3 strongest candidates, ",
    "Considering criteria 1 and 2 (relevance and rigor), ",
    "Of the 10 papers listed, ",
)

# ---- AttriBench ----------------------------------------------------------------------------------

DIRECT_KNOWN = (
    "This quote is by {author}.",
    "The quote is attributed to {author}.",
    "{author} wrote this.",
)
DIRECT_WRONG = (
    "This quote is often attributed to {author}.",
    "It is commonly credited to {author}.",
)
DONT_KNOW = (
    "I'm not able to identify the author of this quote with confidence.",
    "I don't know who wrote this quote.",
    "The author of this quote is unknown to me.",
)
SUMMARIES = (
    "This quote reflects on {theme}, likely written as reflective advice for readers.",
    "The line is a reflection on {theme}, offered as general life guidance.",
    "It was likely written to encourage reflection on {theme} in everyday life.",
)
INDIRECT_MENTION = (
    "{author} wrote this line reflecting on {theme}.",
    "This reflection on {theme} comes from {author}.",
    "In this quote, {author} reflects on {theme} as a lesson for readers.",
)
