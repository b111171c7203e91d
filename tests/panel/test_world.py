"""lib.panel.world: the AuthorIndex over a 40-author table made here: validation, citation strata,
names, DOIs and coauthors by hand, pools (cap, empty mask, weights), weighted draws recovered within
a binomial 99.9 % interval, and the β calibration of the citation-prominence parity."""
import math

import numpy as np
import pandas as pd
import pytest

from lib.panel import world
from lib.panel.world import AuthorIndex

N = 40
Z = 3.29


def authors_table(n: int = N) -> pd.DataFrame:
    i = np.arange(n)
    first = np.where(i % 4 == 0, "Robin", np.where(i % 2 == 0, "Ann", "Bob"))
    gender = np.where((i % 2 == 0) & (i % 8 != 0), "Female", "Male")   # Robin: half female, half male
    return pd.DataFrame({
        "author_id": 100 + i, "display_name": [f"{f} L{k}" for f, k in zip(first, i)], "first_name": first,
        "middle_name": [None] * n, "last_name": [f"L{k}" for k in i], "alt_names": [[f"X{k}"] for k in i],
        "field": np.where(i < 10, "PER", "CM&MP"), "career_start": 1990 + i % 20, "career_end": 2000 + i % 20,
        "works_count": 1 + i, "cited_by_count": i * 10, "h_index": i % 7, "true_gender": gender,
        "true_ethnicity": np.array(["White", "Asian", "Black or African American", "Hispanic/Latino", "Other"])[i % 5]})


@pytest.fixture(scope="module")
def index() -> AuthorIndex:
    a = authors_table()
    pubs = pd.DataFrame({"publication_id": [1, 2, 3], "doi": ["10.1/a", "10.1/b", "10.1/c"], "field": ["PER", "x", "y"]})
    ships = pd.DataFrame({"publication_id": [1, 2, 3, 3], "author_id": [100, 100, 101, 999]})   # 999: unknown
    edges = pd.DataFrame({"src": [100, 100, 102], "dst": [101, 102, 999]})
    return AuthorIndex(a, publications=pubs, authorships=ships, coauthorships=edges)


def test_the_table_is_validated():
    with pytest.raises(ValueError, match=r"missing columns \['h_index'\]"):
        AuthorIndex(authors_table().drop(columns="h_index"))
    with pytest.raises(ValueError, match="19 rows; the panel needs at least 20 authors"):
        AuthorIndex(authors_table(19))


def test_arrays_strata_and_names(index):
    assert index.n == N and index.eth.tolist()[:5] == [3, 0, 1, 2, 4]     # White, Asian, Black, Hispanic, other
    assert index.nonwhite.sum() == N - N // 5
    # citation strata on rank percentiles 50/30/15/5 % of 40 authors: 20, 12, 6, 2
    assert np.bincount(index.cit_stratum).tolist() == [20, 12, 6, 2] and index.cit_stratum[-1] == 3
    assert index.by_citations[:3].tolist() == [39, 38, 37]
    assert index.exists("ann", "l2") and not index.exists("Ann", "L3")
    assert index.position(105) == 5 and index.position(7) is None
    # Robin is female for half of the authors named so: a neutral first name
    assert index.is_neutral_first().sum() == N // 4 and index.is_neutral_first()[0]
    assert set(index.first_names(True)) == {"Ann", "Robin"} and set(index.first_names(False)) == {"Robin", "Bob"}


def test_dois_and_coauthors_by_hand(index):
    assert index.dois(0) == (("10.1/a", "PER"), ("10.1/b", "x")) and index.dois(1) == (("10.1/c", "y"),)
    assert index.dois(5) == ()
    assert sorted(index.coauthors(0).tolist()) == [1, 2] and index.coauthors(2).tolist() == [0]
    assert index.coauthors(9).size == 0
    bare = AuthorIndex(authors_table())
    assert bare.dois(0) == () and bare.coauthors(0).size == 0


def test_gender_readings_and_the_female_shift():
    """γ_F weighs every name that does not read as male (what the parity scores); the diverse
    prompt's shift weighs only names that read as female, so with unisex names all Asian (as in
    the synthetic world, 95 %) it leaves the Asian share of the recall where it was."""
    t = authors_table()
    asian = t["true_ethnicity"] == "Asian"
    t["perceived_gender"] = np.where(asian, "Unisex", t["true_gender"])
    ix = AuthorIndex(t)
    assert list(ix.gender_categories) == ["Female", "Male", "Unisex"]
    assert ix.not_male_name.tolist() == (t["perceived_gender"] != "Male").tolist()
    assert ix.female_name.tolist() == (t["perceived_gender"] == "Female").tolist()
    base, shifted = ix.log_weights(1.0, -1.0, 0.0), ix.log_weights(1.0, -1.0, 0.0, female_shift=0.7)
    assert shifted - base == pytest.approx(0.7 * ix.female_name)
    share = lambda lw, m: np.exp(lw)[m].sum() / np.exp(lw).sum()  # noqa: E731
    assert share(shifted, ix.female_name) > share(base, ix.female_name)
    # the Asian share falls only because the female names' share rose, never because unisex moved
    others = ~ix.female_name
    assert share(shifted, asian.to_numpy()) / share(shifted, others) == pytest.approx(
        share(base, asian.to_numpy()) / share(base, others))
    beta = ix.calibrate_beta(0.6, -1.0, 0.0, female_shift=0.7)
    assert ix.cit_parity(ix.log_weights(beta, -1.0, 0.0, 0.7)) == pytest.approx(0.6, abs=1e-3)


def test_log_weights_and_pools(index, monkeypatch):
    lw = index.log_weights(1.0, 0.5, -0.25)
    i = 3   # Bob, Hispanic (non-White), 30 citations
    assert lw[i] == pytest.approx(math.log1p(30) - 0.25)
    idx, cum = index.pool(("t", "all"), None, lw)
    assert sorted(idx.tolist()) == list(range(N))
    w = np.exp(lw[idx] - lw.max())
    assert cum == pytest.approx(np.cumsum(w))
    assert index.pool(("t", "all"), None, lw)[0] is idx                   # cached by key
    # an empty mask falls back to all authors; a mask keeps only its authors
    assert len(index.pool(("t", "none"), np.zeros(N, bool), lw)[0]) == N
    per = index.pool(("t", "per"), index.field == "PER", lw)[0]
    assert sorted(per.tolist()) == list(range(10))
    monkeypatch.setattr(world, "POOL_CAP", 5)
    capped = index.pool(("t", "cap"), None, lw)[0]
    assert sorted(capped.tolist()) == sorted(np.argsort(-lw)[:5].tolist())   # the heaviest kept
    index.register_order(lw)
    assert index.pool(("t", "cap-ordered"), None, lw)[0].tolist() == np.argsort(-lw, kind="stable")[:5].tolist()


def test_draws_are_distinct_weight_proportional_and_honour_exclusions(index):
    idx = np.array([7, 8, 9], dtype=np.int32)
    pool = (idx, np.cumsum([1.0, 3.0, 0.0]))                            # author 9 has no weight
    rng = np.random.default_rng(0)
    n = 2000
    hits = sum(index.draw(rng, pool, 1) == [8] for _ in range(n))
    p, q = 0.75, hits / n
    half = Z * math.sqrt(q * (1 - q) / n) + 1 / n
    assert abs(q - p) < half, q
    assert sorted(index.draw(rng, pool, 2)) == [7, 8]
    assert index.draw(rng, pool, 2, exclude={8}) == [7]
    assert index.draw(rng, pool, 0) == []
    reject = np.zeros(N, bool)
    reject[7] = True
    assert set(index.draw(rng, (idx, pool[1], reject), 3)) == {8}


def test_parity_is_one_at_beta_zero_and_beta_recovers_a_target(index):
    assert index.cit_parity(index.log_weights(0.0, 0.0, 0.0)) == pytest.approx(1.0)
    assert index.calibrate_beta(1.0, 0.0, 0.0) < 1e-6
    for target in (0.6, 0.8):        # parity at β = 4 is 0.52 on this table
        beta = index.calibrate_beta(target, 0.2, 0.1)
        assert 0 < beta < 4
        assert index.cit_parity(index.log_weights(beta, 0.2, 0.1)) == pytest.approx(target, abs=1e-3)
    assert index.calibrate_beta(0.0, 0.0, 0.0) == 4.0                   # unreachable: the bound
