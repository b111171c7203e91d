"""The embedded synthetic scholarly world: an APS-like physics corpus generated from a seed.

What it reproduces, and how (everything vectorised with numpy; one seed fixes everything):

- People. True gender and true ethnicity depend on the career start year and the field (women
  rise from ~3 % before 1950 to ~22 % after 2010, about twice as many in PER; Asian authors grow
  from a few per cent to about 40 %). Names come from real frequency tables (``names.py``).
- Names as they appear in OpenAlex: initials-only authors (frequent before 1960), middle names,
  Spanish double surnames (hyphenated or spaced), accents, and 1–6 alternative forms per
  author; homonyms arise from common names and are also planted (a share of authors reuse an
  existing author's given name and surname).
- Fields: eleven APS-like fields with realistic sizes (CM&MP the largest, PER about 0.6 %), each
  mapped to an OpenAlex subfield name; CM&MP papers carry "Condensed Matter Physics" and PER
  papers "Education", as the factuality check expects.
- Careers 1893–2020: start years follow the exponential growth of physics publishing; APS
  productivity follows Lotka's law (a Zipf draw, so about half the authors have one paper), and
  career length grows with productivity.
- Papers and coauthorship: each author is placed in a research community inside a field (with
  ethnic homophily); an author's papers are written in their community 85 % of the time, in
  another community of the field 10 % and in another field 5 %. Papers are formed by cutting the
  (community, year)-sorted author slots into teams whose mean size grows over time, so the
  coauthorship network has community structure by field and group.
- Citations by cumulative advantage (Price's model): decade by decade, the citations made by new
  papers go to older papers with probability ∝ (citations so far + 1) × a lognormal fitness.

Bibliometric indicators are then computed from the generated papers exactly as for real data:
works, citations, h-index (sorted), i10, career start/end/age.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.groundtruth.names import NameSampler, accent_given, spanish_accent, strip_accents

GENERATOR_VERSION = 1
YEAR_MIN, YEAR_MAX = 1893, 2020

#: (field label, OpenAlex subfield, share of authors, journal, female multiplier)
FIELDS = (
    ("CM&MP", "Condensed Matter Physics", 0.30, "PhysRevB", 1.0),
    ("Particles & Fields", "Nuclear and High Energy Physics", 0.13, "PhysRevD", 0.8),
    ("Nuclear", "Nuclear and High Energy Physics", 0.07, "PhysRevC", 0.9),
    ("AMO", "Atomic and Molecular Physics, and Optics", 0.14, "PhysRevA", 1.1),
    ("Statistical & Nonlinear", "Statistical and Nonlinear Physics", 0.08, "PhysRevE", 1.0),
    ("Fluids", "Fluid Flow and Transfer Processes", 0.05, "PhysRevFluids", 1.1),
    ("Gravitation & Astrophysics", "Astronomy and Astrophysics", 0.07, "PhysRevD", 1.0),
    ("Plasma", "Nuclear and High Energy Physics", 0.04, "PhysRevE", 0.9),
    ("Accelerators & Beams", "Instrumentation", 0.02, "PhysRevAccelBeams", 0.8),
    ("Biological Physics", "Biophysics", 0.094, "PhysRevE", 1.6),
    ("PER", "Education", 0.006, "PhysRevPhysEducRes", 2.2),
)
_ETHNIC = np.array(["White", "Asian", "Hispanic", "Black"])


def _draw_start_years(rng, n, max_start, growth=0.05):
    """Start years with density ∝ exp(growth·(y − 1893)) on [1893, max_start] (inverse CDF)."""
    u = rng.random(n)
    span = np.maximum(max_start - YEAR_MIN, 0).astype(float)
    y = YEAR_MIN + np.log1p(u * np.expm1(growth * span)) / growth
    return np.floor(y).astype(int)


def _female_share(start, fmult):
    return np.clip((0.03 + 0.19 / (1 + np.exp(-(start - 1990) / 10))) * fmult, 0, 0.6)


def _ethnicity(rng, start):
    t = 1 / (1 + np.exp(-(start - 1985) / 12))
    p_asian = 0.04 + 0.38 * t
    p_hisp = 0.02 + 0.05 * t
    p_black = 0.01 + 0.025 * t
    p_white = 1 - p_asian - p_hisp - p_black
    cum = np.cumsum(np.stack([p_white, p_asian, p_hisp, p_black], axis=1), axis=1)
    u = rng.random(len(start))[:, None]
    return _ETHNIC[(u > cum).sum(axis=1).clip(0, 3)]


def _people(rng, n):
    """Fields, careers and true demographics of n authors."""
    shares = np.array([f[2] for f in FIELDS])
    field = rng.choice(len(FIELDS), size=n, p=shares / shares.sum())
    k = np.minimum(rng.zipf(2.15, size=n), 900)  # APS papers per author (Lotka's law)
    length = np.where(k == 1, 0, np.round(k ** 0.45 * rng.lognormal(np.log(3.0), 0.5, n)))
    length = np.minimum(length, 65).astype(int)
    start = _draw_start_years(rng, n, YEAR_MAX - length)
    fmult = np.array([f[4] for f in FIELDS])[field]
    gender = np.where(rng.random(n) < _female_share(start, fmult), "Female", "Male")
    ethnicity = _ethnicity(rng, start)
    return field, k, start, length, gender, ethnicity


def _communities(rng, field, ethnicity, size_per_community=600):
    """A community per author inside their field, with ethnic homophily (40 % pick a community of
    their own ethnic flavour). Returns (community per author, field of each community)."""
    n = len(field)
    comm = np.empty(n, dtype=np.int64)
    comm_field = []
    base = 0
    for f in range(len(FIELDS)):
        idx = np.flatnonzero(field == f)
        if idx.size == 0:
            continue
        m = max(1, idx.size // size_per_community)
        w = rng.pareto(1.5, m) + 1.0
        w /= w.sum()
        flavour = rng.choice(_ETHNIC, size=m, p=[0.6, 0.3, 0.06, 0.04])
        pick = rng.choice(m, size=idx.size, p=w)
        homo = rng.random(idx.size) < 0.4
        for g in _ETHNIC:
            mine = np.flatnonzero(flavour == g)
            sel = homo & (ethnicity[idx] == g)
            if mine.size and sel.any():
                wg = w[mine] / w[mine].sum()
                pick[sel] = mine[rng.choice(mine.size, size=int(sel.sum()), p=wg)]
        comm[idx] = base + pick
        comm_field.extend([f] * m)
        base += m
    return comm, np.array(comm_field)


def _papers(rng, comm, comm_field, k, start, length):
    """Author slots → papers. Returns authorships (pub index, author index) and paper years/fields."""
    n = len(k)
    author = np.repeat(np.arange(n), k)
    first = np.r_[0, np.cumsum(k)[:-1]]
    offset = np.arange(author.size) - np.repeat(first, k)
    u = rng.random(author.size)
    u[offset == 0] = 0.0  # first paper at the career start
    u[(offset == 1)] = 1.0  # second paper at the career end (k ≥ 2)
    year = start[author] + np.round(u * length[author]).astype(int)
    # where each slot is written: own community, another in the field, or another field
    slot_comm = comm[author].copy()
    r = rng.random(author.size)
    n_comm = len(comm_field)
    by_field = [np.flatnonzero(comm_field == f) for f in range(len(FIELDS))]
    other_field = r < 0.05
    slot_comm[other_field] = rng.integers(0, n_comm, int(other_field.sum()))
    same_field = (r >= 0.05) & (r < 0.15)
    sf = np.flatnonzero(same_field)
    fields_of = comm_field[comm[author[sf]]]
    for f in np.unique(fields_of):
        pool = by_field[f]
        sel = sf[fields_of == f]
        slot_comm[sel] = pool[rng.integers(0, pool.size, sel.size)]
    order = np.lexsort((rng.random(author.size), year, slot_comm))
    author, year, slot_comm = author[order], year[order], slot_comm[order]
    group_start = np.r_[True, slot_comm[1:] != slot_comm[:-1]]
    mean_team = 1.4 + 3.4 / (1 + np.exp(-(year - 1975) / 15))  # ~1.5 authors in 1900, ~4.6 in 2020
    brk = group_start | (rng.random(author.size) < 1.0 / mean_team)
    pub = np.cumsum(brk) - 1
    auth = pd.DataFrame({"pub": pub, "author": author}).drop_duplicates()
    heads = np.flatnonzero(brk)
    # a team spans adjacent years of its community's stream; the paper takes its earliest year
    pub_year = np.minimum.reduceat(year, heads)
    return auth, pub_year, comm_field[slot_comm[heads]]


def _citations(rng, pub_year, refs_per_paper=20.0, c0=4.0, half_life=10.0, gamma=0.85):
    """Cumulative advantage with ageing: every 5 years, the references of the new papers go to
    older papers with probability ∝ (citations so far + c0)^gamma · fitness · 2^(−age/half_life)
    (Price's model made slightly sublinear, so a handful of early papers cannot take everything)."""
    n = len(pub_year)
    cites = np.zeros(n, dtype=np.int64)
    fitness = rng.lognormal(0.0, 0.7, n)
    for d in range(YEAR_MIN, YEAR_MAX + 6, 5):
        new = (pub_year >= d) & (pub_year < d + 5)
        old = np.flatnonzero(pub_year < d + 3)
        if old.size == 0 or not new.any():
            continue
        # a young literature cannot absorb many references: at most ~2 per existing paper
        total = int(rng.poisson(min(refs_per_paper * new.sum(), 2.0 * old.size)))
        age = np.maximum(d + 2 - pub_year[old], 0)
        w = (cites[old] + c0) ** gamma * fitness[old] * np.exp2(-age / half_life)
        cites[old] += rng.multinomial(total, w / w.sum())
    return cites


def _name_forms(rng, given, middle, surname, eth, start):
    """Display name, alternative names and name parts, per author (the OpenAlex view of a name)."""
    n = len(given)
    initials_only = rng.random(n) < np.where(start < 1960, 0.35, np.where(start < 1990, 0.12, 0.04))
    accent = (eth == "Hispanic") & (rng.random(n) < 0.7)
    mode = rng.random(n)
    display, alts, longest = [], [], []
    for i in range(n):
        g, m, s = given[i], middle[i], surname[i]
        if accent[i]:
            g2, m2 = accent_given(g), (accent_given(m) if m else m)
            s2 = "-".join(spanish_accent(p) for p in s.split("-"))
            s2 = " ".join(spanish_accent(p) for p in s2.split(" "))
        else:
            g2, m2, s2 = g, m, s
        gi = g2[0] + "."
        mi = (m2[0] + ".") if m2 else ""
        forms = [f"{gi} {s2}", f"{gi} {mi} {s2}" if m2 else f"{gi} {s2}"]
        if not initials_only[i]:
            forms += [f"{g2} {s2}", f"{g2} {mi} {s2}" if m2 else f"{g2} {s2}",
                      f"{g2} {m2} {s2}" if m2 else f"{g2} {s2}"]
            if accent[i]:
                forms.append(strip_accents(f"{g2} {s2}"))
            if " " in s2 or "-" in s2:  # double surname: the first surname alone is common
                forms.append(f"{g2} {s2.replace('-', ' ').split(' ')[0]}")
        forms = list(dict.fromkeys(forms))
        if initials_only[i]:
            disp = forms[-1]
        elif m2 and mode[i] < 0.35:
            disp = f"{g2} {mi} {s2}"
        elif m2 and mode[i] < 0.45:
            disp = f"{g2} {m2} {s2}"
        else:
            disp = f"{g2} {s2}"
        keep = max(1, int(rng.integers(1, len(forms) + 1)))
        chosen = [forms[j] for j in sorted(rng.choice(len(forms), size=keep, replace=False))]
        if disp not in chosen:
            chosen.append(disp)
        display.append(disp)
        alts.append(chosen)
        longest.append(max(chosen, key=len))
    return display, alts, longest, initials_only


def generate(seed: int, n_authors: int) -> dict[str, pd.DataFrame]:
    """Generate the world's base tables (authors without derived indicators, publications,
    authorships) for ``seed`` and ``n_authors``. Indicators are added by ``world.build_world``."""
    if n_authors < 50:
        raise ValueError(f"synthetic world: n_authors must be >= 50, got {n_authors}")
    rng = np.random.default_rng([seed, n_authors, GENERATOR_VERSION])
    field, k, start, length, gender, eth = _people(rng, n_authors)
    sampler = NameSampler(rng)
    given = sampler.given_names(eth, gender)
    has_middle = rng.random(n_authors) < np.select(
        [eth == "White", eth == "Black", eth == "Hispanic"], [0.45, 0.4, 0.3], 0.15)
    middle = np.where(has_middle, sampler.given_names(eth, gender, asian_dict_share=0.0), None)
    surname = sampler.surnames(eth)
    double = rng.random(n_authors) < np.where(eth == "Hispanic", 0.3, 0.02)
    second = sampler.surnames(eth)
    hyphen = rng.random(n_authors) < 0.45
    surname = np.where(double, np.where(hyphen, surname + "-" + second, surname + " " + second), surname)
    # planted homonyms: reuse another author's given name and surname (same ethnicity and gender)
    homonym = np.flatnonzero(rng.random(n_authors) < 0.01)
    for i in homonym:
        pool = np.flatnonzero((eth == eth[i]) & (gender == gender[i]))
        j = pool[rng.integers(0, pool.size)]
        if j != i:
            given[i], surname[i] = given[j], surname[j]
    display, alts, longest, initials_only = _name_forms(rng, given, middle, surname, eth, start)
    comm, comm_field = _communities(rng, field, eth)
    auth, pub_year, pub_field = _papers(rng, comm, comm_field, k, start, length)
    cites = _citations(rng, pub_year)
    author_ids = 5_000_000_000 + np.arange(1, n_authors + 1)
    pub_ids = 4_000_000_000 + np.arange(1, len(pub_year) + 1)
    journal = np.array([f[3] for f in FIELDS])[pub_field]
    prl = rng.random(len(pub_year)) < 0.15
    journal = np.where(prl, "PhysRevLett", journal)
    journal = np.where(pub_year < 1970, "PhysRev", journal)
    volume = np.maximum(1, pub_year - 1892)
    doi = [f"10.1103/{j}.{v}.{i:06d}" for j, v, i in zip(journal, volume, range(len(pub_year)))]
    publications = pd.DataFrame({
        "publication_id": pub_ids,
        "doi": doi,
        "year": pub_year.astype(np.int64),
        "journal": journal,
        "field": np.array([f[0] for f in FIELDS])[pub_field],
        "subfield": np.array([f[1] for f in FIELDS])[pub_field],
        "cited_by_count": cites,
    })
    authorships = pd.DataFrame({"publication_id": pub_ids[auth["pub"].to_numpy()],
                                "author_id": author_ids[auth["author"].to_numpy()]})
    authors = pd.DataFrame({
        "author_id": author_ids,
        "display_name": display,
        "longest_name": longest,
        "first_name": given,
        "middle_name": middle,
        "last_name": surname,
        "alt_names": alts,
        "field": np.array([f[0] for f in FIELDS])[field],
        "community": comm,
        "initials_only": initials_only,
        "true_gender": gender,
        "true_ethnicity": eth,
    })
    return {"authors": authors, "publications": publications, "authorships": authorships}
