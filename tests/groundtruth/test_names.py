"""lib.groundtruth.names: accents and display case by hand, gender-guesser's dictionary format read
from a small file written here, and the NameSampler's draws on hand tables (weights count × pct,
recovered within a binomial 99.9 % interval; the same seed draws the same names)."""
import math

import numpy as np
import pandas as pd
import pytest

from lib.groundtruth import names

Z = 3.29


def within(k: int, n: int, p: float) -> bool:
    """p inside the Wilson interval of k successes in n."""
    q = k / n
    c = (q + Z * Z / (2 * n)) / (1 + Z * Z / n)
    h = Z * math.sqrt(q * (1 - q) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return c - h <= p <= c + h


def test_accents_and_display_case():
    assert [names.spanish_accent(s) for s in ("Dominguez", "Paez", "Vasquez", "Lopez", "Ruiz", "Mez", "Smith")] == [
        "Domínguez", "Páez", "Vásquez", "López", "Ruiz", "Mez", "Smith"]     # 'u' after g/q is silent
    assert names.spanish_accent("RODRIGUEZ") == "RODRÍGUEZ"                  # the accent keeps the case
    assert names.accent_given("Jose") == "José" and names.accent_given("Wei") == "Wei"
    assert names.strip_accents("Ángela Núñez-Góngora") == "Angela Nunez-Gongora"
    assert names._title("SMITH-JONES") == "Smith-Jones" and names._title("OCONNOR") == "Oconnor"


def test_package_file_names_a_missing_package():
    with pytest.raises(ModuleNotFoundError, match="package 'no_such_pkg_xyz' is not installed"):
        names.package_file("no_such_pkg_xyz", "data/x.txt")
    assert names.package_file("gender_guesser", "data/nam_dict.txt").endswith("gender_guesser/data/nam_dict.txt")


def _gg_line(code: str, name: str, freq: dict[str, str]) -> str:
    values = [" "] * len(names._GG_COUNTRIES)
    for country, digit in freq.items():
        values[names._GG_COUNTRIES.index(country)] = digit
    return f"{code:<3}{name:<27}" + "".join(values) + "$\n"


def test_asian_given_names_weight_sum_of_two_to_the_frequency_digit(tmp_path, monkeypatch):
    path = tmp_path / "nam_dict.txt"
    path.write_text("# comment\n=header\n" + "".join([
        _gg_line("M", "Wei", {"china": "7", "korea": "2"}),          # 2^7 + 2^2
        _gg_line("F", "Hana", {"japan": "A", "usa": "9"}),           # 2^10; the USA digit does not count
        _gg_line("?", "Min", {"korea": "1"}),
        _gg_line("M", "Hans", {"germany": "8"}),                     # no Asian country: left out
        _gg_line("M", "Abder+Rahim", {"india": "3"}),                # compound spelling: left out
        _gg_line("F", "o'Hara", {"china": "3"}),                     # not a capitalised word: left out
    ]), encoding="utf-8")
    monkeypatch.setattr(names, "package_file", lambda pkg, rel: str(path))
    names.gender_guesser_asian_given.cache_clear()
    try:
        got = names.gender_guesser_asian_given()
    finally:
        names.gender_guesser_asian_given.cache_clear()
    assert got.to_dict("records") == [{"name": "Wei", "code": "M", "weight": 132.0},
                                      {"name": "Hana", "code": "F", "weight": 1024.0},
                                      {"name": "Min", "code": "?", "weight": 2.0}]


SURNAMES = pd.DataFrame({"name": ["ALPHA", "BETA", "GAMMA"], "count": [100, 100, 200],
                         "pctwhite": [90.0, 30.0, 0.0], "pctblack": [0.0, 0.0, 50.0],
                         "pctapi": [10.0, 70.0, 0.0], "pcthispanic": [0.0, 0.0, 50.0]})
FIRST = pd.DataFrame({"name": ["ANN", "BOB", "SAM"], "count": [100, 100, 100], "pctwhite": [50.0, 50.0, 100.0],
                      "pctblack": [50.0, 50.0, 0.0], "pctapi": [100.0, 100.0, 100.0], "pcthispanic": [0.0, 0.0, 100.0],
                      "pctmale": [0.0, 100.0, 50.0], "pctfemale": [100.0, 0.0, 50.0]})
ASIAN = pd.DataFrame({"name": ["Wei", "Hana", "Min"], "code": ["M", "F", "?"], "weight": [132.0, 1024.0, 2.0]})


@pytest.fixture
def sampler(monkeypatch):
    monkeypatch.setattr(names, "census_surnames", lambda: SURNAMES)
    monkeypatch.setattr(names, "census_first_names", lambda: FIRST)
    monkeypatch.setattr(names, "gender_guesser_asian_given", lambda: ASIAN)
    return lambda seed: names.NameSampler(np.random.default_rng(seed))


def test_surnames_are_drawn_with_weight_count_times_ethnic_share(sampler):
    n = 2000
    eth = np.array(["White"] * n + ["Asian"] * n + ["Black"] * 10)
    got = sampler(0).surnames(eth)
    white, asian, black = got[:n], got[n:2 * n], got[2 * n:]
    assert within(int((white == "Alpha").sum()), n, 90 / 120)           # 100·90 / (100·90 + 100·30)
    assert within(int((asian == "Alpha").sum()), n, 10 / 80)            # 100·10 / (100·10 + 100·70)
    assert set(white) == {"Alpha", "Beta"} and set(black) == {"Gamma"}  # display case; zero weight never drawn
    assert (sampler(0).surnames(eth) == got).all() and not (sampler(1).surnames(eth) == got).all()


def test_given_names_follow_gender_and_the_asian_dictionary_share(sampler):
    n = 2000
    s = sampler(3)
    white_f = s.given_names(np.array(["White"] * n), np.array(["Female"] * n))
    # female weight: Ann 100·50·100, Sam 100·100·50, Bob 0
    assert set(white_f) == {"Ann", "Sam"} and within(int((white_f == "Ann").sum()), n, 0.5)
    hisp_m = s.given_names(np.array(["Hispanic"] * 50), np.array(["Male"] * 50))
    assert set(hisp_m) == {"Sam"}
    asian_m = s.given_names(np.array(["Asian"] * n), np.array(["Male"] * n), asian_dict_share=0.6)
    from_dict = np.isin(asian_m, ["Wei", "Min"])
    assert within(int(from_dict.sum()), n, 0.6)                     # the rest from the Census table: Bob, Sam
    assert set(asian_m[~from_dict]) == {"Bob", "Sam"} and "Hana" not in set(asian_m)
    assert within(int((asian_m == "Wei").sum()), int(from_dict.sum()), 132 / 134)   # '?' counts for both genders
    none = s.given_names(np.array(["Asian"] * 20), np.array(["Female"] * 20), asian_dict_share=0.0)
    assert set(none) <= {"Ann", "Sam"}
