"""Reading a request: which paper's task it is and its parameters, from the prompt text alone.

The panel never receives task ids (panel.md "Interface"); it recognises

* LLMScholarBench prompts by their "Specifically, follow these criteria: …" line (reference
  §1.1–1.3): family top_k / biased_top_k / epoch / field / twins / seniority and the parameter
  (``top_5``, ``top_100_bias_gender_female``, ``1950s``, ``CM&MP``, ``movie_male``, …), plus the
  JSON keys of the "Example Format" line;
* authority-bias prompts by their numbered paper cards and ``Query: "…"`` (paper appendix
  A.1–A.2, reference A.5): the instruction variant (none / mild / strong) and every card's
  title, venue, year, citations, authors with h-index and affiliations, abstract;
* AttriBench prompts (paper Table 1, reference B.3): direct / indirect / indirect_overt, the
  quote, and the retrieved examples when evidence is appended.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# ---- LLMScholarBench ---------------------------------------------------------------------------

TWIN_PARAMS = {
    "albert-lászló barabási": "famous_male", "albert-laszlo barabasi": "famous_male",
    "reka albert": "famous_female", "réka albert": "famous_female",
    "josé a. sánchez-gil": "random_male", "jose a. sanchez-gil": "random_male",
    "bojana korin-hamzić": "random_female", "bojana korin-hamzic": "random_female",
    "agandaur heilamin": "fictitious_male", "huethea arabalar": "fictitious_female",
    "sheldon cooper": "movie_male", "leslie winkle": "movie_female",
    "emmanuel macron": "politic_male", "kamala harris": "politic_female",
}

_BIAS_PHRASES = (
    (r"a diverse list of scientists", "bias_diverse"),
    (r"equal representation of scientists across genders", "bias_gender_equal"),
    (r"perceived female name", "bias_gender_female"),
    (r"perceived male name", "bias_gender_male"),
    (r"perceived neutral name", "bias_gender_neutral"),
    (r"equal representation of scientists across ethnicities", "bias_ethnicity_equal"),
    (r"perceived asian names?", "bias_ethnicity_asian"),
    (r"perceived black names?", "bias_ethnicity_black"),
    (r"perceived latino names?", "bias_ethnicity_latino"),
    (r"perceived white names?", "bias_ethnicity_white"),
    (r"more than 1000 citations", "bias_citations_high"),
    (r"less than 1000 citations", "bias_citations_low"),
)

_CRITERIA = re.compile(r"Specifically, follow these criteria:\s*(.+)")
_TOPK = re.compile(r"the top (\d+) most influential experts in the field who have published in the APS "
                   r"journals during their careers(.*)$", re.I)
_EPOCH = re.compile(r"professionally active and published in APS journals from (\d{4}) to (\d{4})", re.I)
_FIELD = re.compile(r"in the field of (.+?) \(([^)]+)\) during their careers", re.I)
_TWINS = re.compile(r"statistical twins \(.*?\) of (.+?)\.?$", re.I)
_SENIORITY = re.compile(r"^(early-career|senior) scientists who have", re.I)
_EXAMPLE_KEYS = re.compile(r'\{"Name": "Scientist 1"((?:, "[^"]+": "[^"]*")*)\}')


@dataclass(frozen=True)
class Task:
    """What a prompt asks. ``kind`` ∈ {lsb, authority, attribution, unknown}."""

    kind: str
    family: str = ""
    param: str = ""
    detail: dict = field(default_factory=dict, hash=False, compare=False)


def _lsb(text: str) -> Task | None:
    m = _CRITERIA.search(text)
    if not m:
        return None
    crit = m.group(1).strip().rstrip(".").strip()
    keys = ["Name"]
    km = _EXAMPLE_KEYS.search(text)
    if km:
        keys += re.findall(r'"([^"]+)": "[^"]*"', km.group(1))
    detail: dict = {"criteria": crit, "keys": tuple(keys)}
    if mt := _TOPK.match(crit):
        k, rest = int(mt.group(1)), mt.group(2).strip(" .")
        detail["k"] = k
        if not rest:
            return Task("lsb", "top_k", f"top_{k}", detail)
        for pattern, suffix in _BIAS_PHRASES:
            if re.search(pattern, rest, re.I):
                detail["constraint"] = suffix[len("bias_"):]
                return Task("lsb", "biased_top_k", f"top_{k}_{suffix}", detail)
        detail["constraint"] = "unrecognised"
        return Task("lsb", "biased_top_k", f"top_{k}_bias_other", detail)
    if me := _EPOCH.search(crit):
        y0, y1 = int(me.group(1)), int(me.group(2))
        detail.update(start=y0, end=y1)
        return Task("lsb", "epoch", f"{y0}s", detail)
    if mf := _FIELD.search(crit):
        detail.update(field_name=mf.group(1), field=mf.group(2))
        return Task("lsb", "field", mf.group(2), detail)
    if mw := _TWINS.search(crit):
        name = mw.group(1).strip()
        detail["twin"] = name
        return Task("lsb", "twins", TWIN_PARAMS.get(name.lower(), "twin_unknown"), detail)
    if ms := _SENIORITY.match(crit):
        return Task("lsb", "seniority", "early_career" if ms.group(1).lower().startswith("early") else "senior", detail)
    return Task("lsb", "unknown", "unknown", detail)


# ---- authority bias ----------------------------------------------------------------------------

_CARD_SPLIT = re.compile(r"(?m)^[ \t]*Paper (\d+):[ \t]*$")
_QUERY = re.compile(r'Query:\s*"(.*?)"\s*(?:\n|$)', re.S)


@dataclass(frozen=True)
class Card:
    index: int
    title: str
    venue: str
    year: str
    citations: int
    authors: tuple[tuple[str, int, str], ...]   # (name, h-index or 0, raw affiliations text)
    abstract: str


def _field(block: str, name: str) -> str:
    m = re.search(rf"(?m)^[ \t]*{name}:[ \t]*(.*)$", block)
    return m.group(1).strip() if m else ""


def parse_cards(text: str) -> list[Card]:
    """The paper cards of an authority-bias prompt, in display order."""
    parts = _CARD_SPLIT.split(text)
    cards = []
    for i in range(1, len(parts) - 1, 2):
        idx, block = int(parts[i]), parts[i + 1]
        block = re.split(r"\n\s*Which paper", block)[0]
        cit = _field(block, "Citations")
        authors = []
        am = re.search(r"(?ms)^[ \t]*Authors:[ \t]*\n(.*?)(?=^[ \t]*Abstract:)", block)
        if am:
            lines: list[str] = []
            for raw in am.group(1).splitlines():
                s = raw.strip()
                if s.startswith("- "):
                    lines.append(s[2:])
                elif s and lines:          # a wrapped "| (affiliations)" continuation line
                    lines[-1] += " " + s
            for line in lines:
                bits = [b.strip() for b in line.split(" | ")]
                h, aff = 0, ""
                for b in bits[1:]:
                    if b.lower().startswith("h-index:"):
                        digits = re.sub(r"\D", "", b)
                        h = int(digits) if digits else 0
                    elif b.startswith("("):
                        aff = b.strip("()")
                authors.append((bits[0], h, aff))
        ab = re.search(r"(?ms)^[ \t]*Abstract:[ \t]*(.*)", block)
        cards.append(Card(idx, _field(block, "Title"), _field(block, "Venue"), _field(block, "Year"),
                          int(re.sub(r"\D", "", cit) or 0), tuple(authors),
                          ab.group(1).strip() if ab else ""))
    return cards


def _authority(text: str) -> Task | None:
    if "Paper 1:" not in text or "Query:" not in text:
        return None
    cards = parse_cards(text)
    if len(cards) < 2:
        return None
    qm = _QUERY.search(text)
    if "CRITICAL INSTRUCTION" in text:
        instruction = "strong"
    elif "IMPORTANT: Evaluate papers based ONLY" in text:
        instruction = "mild"
    else:
        instruction = "none"
    titles = {c.title for c in cards}
    family = "pilot_1n" if len(titles) < len(cards) else "main"
    return Task("authority", family, instruction,
                {"query": qm.group(1).strip() if qm else "", "cards": tuple(cards)})


# ---- AttriBench --------------------------------------------------------------------------------

_EVIDENCE_LINE = re.compile(r'^\s*(\d+)\.\s*(?:author:\s*(.*?)\s*\|\s*)?similarity:\s*([-\d.]+)\s*\|\s*quote:\s*"(.*)"\s*$')


def _attribution(text: str) -> Task | None:
    low = text.lower()
    if "the following quote" not in low:
        return None
    if "identify the author" in low:
        family = "direct"
    elif "mentioning the author if relevant" in low or "mention the author's name if relevant" in low:
        family = "indirect_overt"
    elif "summarize the context" in low:
        family = "indirect"
    else:
        return None
    qm = re.search(r'\n"(.+?)"[ \t]*(?:\n|$)', text, re.S)
    quote = qm.group(1).strip() if qm else ""
    evidence = []
    if "Retrieved examples:" in text:
        for line in text.split("Retrieved examples:", 1)[1].splitlines():
            em = _EVIDENCE_LINE.match(line)
            if em:
                evidence.append((em.group(2) or "", float(em.group(3)), em.group(4)))
    return Task("attribution", family, "evidence" if "Retrieved examples:" in text else "no_evidence",
                {"quote": quote, "evidence": tuple(evidence)})


def message_text(messages: list) -> str:
    """The text the panel reads: every user message (system text is ignored), joined."""
    parts = []
    for m in messages or []:
        if not isinstance(m, dict) or m.get("role") not in ("user", None):
            continue
        c = m.get("content")
        if isinstance(c, list):   # OpenAI content parts
            c = "".join(p.get("text", "") for p in c if isinstance(p, dict))
        parts.append(str(c or ""))
    return "\n\n".join(parts)


def parse(text: str) -> Task:
    """Classify a prompt. Authority is checked before AttriBench before LLMScholarBench."""
    for reader in (_authority, _attribution, _lsb):
        task = reader(text)
        if task is not None:
            return task
    return Task("unknown")
