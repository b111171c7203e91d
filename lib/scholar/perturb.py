"""Recommended names with known truth, for measuring the matcher (benchmarks, tests).

Three kinds, as an LLM's list mixes them:
- ``real``: a ground-truth author written in one of their known forms (display or alternative);
- ``perturbed``: a real author written differently: a typo, initials for the given name, a
  dropped or added middle initial, accents stripped, a double surname shortened or spaced, a
  title or a parenthetical affiliation added;
- ``invented``: a person who does not exist: a Census given name with a Census surname that no
  ground-truth author carries under that given name, or a made-up fantasy name.
Each row keeps the source author, so precision and recall of a matching rule can be measured.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.groundtruth.names import census_first_names, census_surnames, strip_accents
from lib.scholar.matching import normalize_name

_SYLL = ["ag", "an", "dau", "hei", "la", "min", "thea", "ra", "bal", "qu", "ze", "lor", "vin", "dra",
         "ka", "mo", "rix", "sel", "tu", "vor", "ny", "oph", "el", "ith", "gar", "un", "wyn", "zul"]
KINDS = ("real", "perturbed", "invented")


def _typo(rng, s: str) -> str:
    if len(s) < 4:
        return s + s[-1]
    i = int(rng.integers(1, len(s) - 1))
    op = int(rng.integers(0, 3))
    if op == 0:  # swap two adjacent letters
        return s[:i] + s[i + 1] + s[i] + s[i + 2:]
    if op == 1:  # drop a letter
        return s[:i] + s[i + 1:]
    return s[:i] + "aeiou"[int(rng.integers(0, 5))] + s[i + 1:]  # substitute a vowel


def perturb(rng, given: str, middle: str | None, surname: str) -> tuple[str, str]:
    """One perturbed writing of a real name and the kind of perturbation."""
    kind = ["typo_surname", "typo_given", "initial_given", "middle_initial", "drop_accents",
            "surname_first_part", "surname_spaced", "title", "affiliation"][int(rng.integers(0, 9))]
    m = f" {middle[0]}." if middle else ""
    if kind == "typo_surname":
        return f"{given} {_typo(rng, surname)}", kind
    if kind == "typo_given":
        return f"{_typo(rng, given)} {surname}", kind
    if kind == "initial_given":
        return f"{given[0]}.{m} {surname}", kind
    if kind == "middle_initial":
        return (f"{given}{m} {surname}" if middle else f"{given} {'ABCDEJKLMPRST'[int(rng.integers(0, 13))]}. {surname}"), kind
    if kind == "drop_accents":
        return strip_accents(f"{given} {surname}"), kind
    if kind == "surname_first_part":
        return f"{given} {surname.replace('-', ' ').split(' ')[0]}", kind
    if kind == "surname_spaced":
        return f"{given} {surname.replace('-', ' ')}", kind
    if kind == "title":
        return f"Dr. {given} {surname}", kind
    return f"{given} {surname} (University of {surname[:1]}ville)", kind


def recommendation_sample(authors: pd.DataFrame, n: int, *, seed: int = 0,
                          shares=(0.6, 0.25, 0.15), prominence_weight: float = 0.5) -> pd.DataFrame:
    """``n`` recommended names: real, perturbed and invented in ``shares``.

    Real and perturbed names come from authors drawn with probability ∝ (1 + cited_by_count)^w,
    w = ``prominence_weight`` (LLMs name prominent scholars more often). Returns columns name,
    kind (real / perturbed / invented), how (the form or perturbation), source_author_id (<NA>
    for invented names).
    """
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.asarray(shares) / np.sum(shares))
    w = (1.0 + authors["cited_by_count"].fillna(0).to_numpy(float)) ** prominence_weight
    pick = rng.choice(len(authors), size=counts[0] + counts[1], p=w / w.sum())
    cols = {c: authors[c].to_numpy() for c in ("alt_names", "display_name", "initials_only", "first_name",
                                               "middle_name", "last_name", "author_id")}
    rows = []
    for j, i in enumerate(pick):
        if j < counts[0]:
            forms = list(cols["alt_names"][i]) or [cols["display_name"][i]]
            name = forms[int(rng.integers(0, len(forms)))] if rng.random() < 0.4 else cols["display_name"][i]
            rows.append((name, "real", "known form", cols["author_id"][i]))
        else:
            given = cols["first_name"][i] if cols["initials_only"][i] else cols["display_name"][i].split()[0]
            name, how = perturb(rng, given, cols["middle_name"][i], cols["last_name"][i])
            rows.append((name, "perturbed", how, cols["author_id"][i]))
    rows.extend(invented_names(rng, authors, counts[2]))
    out = pd.DataFrame(rows, columns=["name", "kind", "how", "source_author_id"])
    out["source_author_id"] = out["source_author_id"].astype("Int64")
    return out.iloc[rng.permutation(len(out))].reset_index(drop=True)


def invented_names(rng, authors: pd.DataFrame, n: int) -> list[tuple]:
    """``n`` names of people who do not exist in ``authors`` (checked on normalised forms)."""
    known = set()
    for forms in authors["alt_names"]:
        for f in forms:
            c = normalize_name(f)
            if c:
                known.add(c)
    fn = census_first_names()
    sn = census_surnames()
    fw = fn["count"].to_numpy(float)
    sw = sn["count"].to_numpy(float)
    out: list[tuple] = []
    while len(out) < n:
        m = 2 * (n - len(out)) + 10
        gs = fn["name"].to_numpy()[rng.choice(len(fn), size=m, p=fw / fw.sum())]
        ss = sn["name"].to_numpy()[rng.choice(len(sn), size=m, p=sw / sw.sum())]
        fantasy = rng.random(m) >= 0.75
        for k in range(m):
            if fantasy[k]:
                g = "".join(rng.choice(_SYLL, size=int(rng.integers(2, 4)))).title()
                s = "".join(rng.choice(_SYLL, size=int(rng.integers(2, 4)))).title()
                how = "fantasy"
            else:
                g, s, how = gs[k].title(), ss[k].title(), "census combination"
            name = f"{g} {s}"
            if normalize_name(name) not in known and len(out) < n:
                out.append((name, "invented", how, pd.NA))
    return out
