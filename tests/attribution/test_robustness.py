"""lib.attribution.robustness: search hits vs a corpus name count (paper A.7.1, Figs. 11-12) on hand-made authors."""
import numpy as np
import pandas as pd
import pytest

from lib.attribution import robustness as rb


def _quotes(google: list[float], corpus_log: list[float]) -> pd.DataFrame:
    n = len(google)
    df = pd.DataFrame({"author_clean": [f"a{i}" for i in range(n)], "race": ["white", "black"] * (n // 2),
                       "gender": ["male"] * n, "log10_hits": google,
                       "dolma_count": [10 ** c - 1 for c in corpus_log]})
    return pd.concat([df, df.iloc[:2]], ignore_index=True)            # an author with two quotes counts once


def test_author_table_takes_log10_of_count_plus_one_and_one_row_per_author():
    a = rb.authors_with_proxies(_quotes([3.0, 4.0], [0.0, 2.0]), "intersectional")
    assert a["author_clean"].tolist() == ["a0", "a1"] and a["subgroup"].tolist() == ["M/White", "M/Black"]
    assert a["log10_corpus"].tolist() == pytest.approx([0.0, 2.0])
    with pytest.raises(ValueError, match="no 'dolma_count' column"):
        rb.authors_with_proxies(_quotes([3.0, 4.0], [0.0, 2.0]).drop(columns="dolma_count"), "intersectional")


def test_correlations_overall_and_per_subgroup_by_hand():
    google = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    corpus = [2, 1, 3, 4, 5, 6, 7, 8, 10, 9]                          # two adjacent swaps
    c = rb.proxy_correlations(rb.authors_with_proxies(_quotes(google, corpus), "multirace")).set_index("subgroup")
    # Spearman with two swapped pairs among 10: 1 - 6 * (1 + 1 + 1 + 1) / (10 * 99)
    assert c.loc["all", "spearman_rho"] == pytest.approx(1 - 24 / 990)
    assert c.loc["all", "pearson_r"] == pytest.approx(np.corrcoef(google, corpus)[0, 1])
    assert c.loc["all", "n_authors"] == 10 and set(c.index) == {"all", "White", "Black"}


def test_decile_agreement_counts_the_shifts():
    google = list(range(1, 11))
    corpus = [2, 1, 3, 4, 5, 6, 7, 8, 9, 0]                          # the most famous author falls to the bottom
    tab, s = rb.decile_agreement(rb.authors_with_proxies(_quotes(google, corpus), "multirace"))
    # corpus deciles on ranks: 3, 2, 4, ..., 10, 1; shifts |3-1| = 2, 0, seven of 1, |1-10| = 9 (mean 18/10)
    d = rb.deciles(rb.authors_with_proxies(_quotes(google, corpus), "multirace"))
    assert d["decile_google"].tolist() == list(range(1, 11)) and d["decile_corpus"].tolist() == [3, 2, 4, 5, 6, 7, 8, 9, 10, 1]
    assert s == {"same_decile_pct": 10.0, "within1_pct": 80.0, "within2_pct": 90.0, "mean_abs_shift": 1.8,
                 "max_abs_shift": 9}
    assert tab.shape == (10, 10) and np.allclose(tab.sum(axis=1), 1.0)
    assert rb.decile_summary({"multirace": (tab, s)}) == {"multirace": s}
