"""Faithful mode against golden outputs of the AttriBench release's own code (issue 13).

The golden files under tests/data/golden/attribution/ were produced by running the release's
analysis code unchanged on fixtures made for this purpose; their README says which file, which
commit and which command. Faithful mode must reproduce every decision.
"""
import json
from pathlib import Path

import pandas as pd
import pytest

from lib.attribution import metrics

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "attribution"


def _run_file(model: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    raw = pd.read_csv(GOLDEN / "mentions" / f"raw_outputs_{model}.csv")
    ref = pd.read_csv(GOLDEN / "mentions" / f"ref_decisions_{model}.csv")
    resp = raw.rename(columns={"run": "generation", "llm_output": "text"}).assign(evidence=False)
    return resp[list(metrics.RESPONSE_COLUMNS)], ref


@pytest.mark.parametrize("model", ["model-a", "model-b"])
def test_per_response_decisions_match_the_release(model):
    """Detection, correctness, mentioned author and no-answer agree on 100% of responses; model-b
    is a subset run (its universe lacks 12 dataset authors), in another quote order."""
    data = pd.read_csv(GOLDEN / "mentions" / "dataset.csv")
    resp, ref = _run_file(model)
    sc = metrics.score_responses(resp, data, kind="intersectional")
    assert len(sc) == len(ref) and (sc["quote_id"].to_numpy() == ref["quote_id"].to_numpy()).all()
    assert (sc["correct"].astype(bool).to_numpy() == ref["identified_correct_author"].to_numpy()).all()
    assert (sc["mentioned_any"].astype(bool).to_numpy() == ref["mentioned_any_author"].to_numpy()).all()
    assert (sc["no_answer"].to_numpy() == ref["no_answer_given"].to_numpy()).all()
    ours = sc["mentioned_author"].replace("", None).fillna("<none>").to_numpy()
    assert (ours == ref["mentioned_author"].fillna("<none>").to_numpy()).all()


def test_corrected_mentions_differ_where_documented():
    """Corrected mode (whole-dataset universe, order-free ties) names other authors on this fixture,
    never changes correctness here."""
    data = pd.read_csv(GOLDEN / "mentions" / "dataset.csv")
    resp, ref = _run_file("model-b")
    sc = metrics.score_responses(resp, data, kind="intersectional", mode="corrected")
    assert (sc["correct"].astype(bool).to_numpy() == ref["identified_correct_author"].to_numpy()).all()
    from lib.attribution.mentions import normalize_for_match
    ref_norm = ref["mentioned_author"].fillna("").map(normalize_for_match)
    differ = sc["mentioned_author"].to_numpy() != ref_norm.to_numpy()
    assert differ.any()                                  # e.g. "Green" -> Al vs Abby Green; Zora Neale Hurston unknown to b
    assert (sc.loc[differ, "mentioned_author"] != "").any()


BALANCE_CASES = [("fixture", "intersectional", 5), ("fixture", "multirace", 5), ("sample", "intersectional", 3)]


def _balance_golden(name: str, kind: str) -> Path:
    """The release's output for this numpy sort kernel: its unstable sorts order ties by kernel
    (balance/README.md). A kernel the release was not run on is skipped, saying so."""
    from lib import sortkernel
    kernel = sortkernel.numpy_sort_kernel()
    folders = json.loads((GOLDEN / "balance" / "kernels.json").read_text())[f"{name}/{kind}"]
    if kernel not in folders:
        pytest.skip(f"no golden of the release for {name}/{kind} on sort kernel {sortkernel.describe()} "
                    f"(goldens exist for {sorted(folders)}); see tests/data/golden/attribution/balance/README.md")
    return GOLDEN / "balance" / name / folders[kernel]


def test_balance_golden_follows_the_sort_kernel(monkeypatch):
    """avx2 reads the multirace golden made on AVX2, avx512 the original ones; another kernel skips."""
    from lib import sortkernel
    monkeypatch.setattr(sortkernel, "numpy_sort_kernel", lambda: "avx2")
    assert _balance_golden("fixture", "multirace") == GOLDEN / "balance" / "fixture" / "avx2"
    assert _balance_golden("fixture", "intersectional") == GOLDEN / "balance" / "fixture"
    monkeypatch.setattr(sortkernel, "numpy_sort_kernel", lambda: "avx512_skx")
    assert _balance_golden("fixture", "multirace") == GOLDEN / "balance" / "fixture"
    monkeypatch.setattr(sortkernel, "numpy_sort_kernel", lambda: "scalar")
    with pytest.raises(pytest.skip.Exception, match="sort kernel"):
        _balance_golden("fixture", "multirace")


@pytest.mark.parametrize("name,kind,runs", BALANCE_CASES)
def test_balancing_runs_match_the_release(name, kind, runs):
    """Every run: the same authors in the same order (ties ordered by the release's unstable
    sorts), the same to_sample and match_idx, the same five criteria; the same selected run."""
    from lib.attribution import balance
    folder = _balance_golden(name, kind)
    universe = pd.read_csv(GOLDEN / "balance" / f"universe_{name}.csv")
    ref_all = pd.read_csv(folder / f"{kind}_all_runs.csv")
    ref_stats = pd.read_csv(folder / f"{kind}_run_stats.csv")
    ref_best = pd.read_csv(folder / f"{kind}_best_run.csv")
    got = balance.balance(universe, kind, runs=runs, seed=100)
    for i in range(runs):
        run = balance.balance_once(universe, kind, run_id=i, seed=100)
        ref = ref_all[ref_all["run_id"] == i]
        for col in ("author_clean", "to_sample", "match_idx", "log10_hits"):
            assert run.matched[col].tolist() == ref[col].tolist(), (i, col)
        for c, _ in balance.CRITERIA:
            assert run.stats[c] == pytest.approx(ref_stats[c].iat[i], abs=1e-12), (i, c)
    assert got.best_run == int(ref_best["run_id"].iat[0])
    assert got.matched["author_clean"].tolist() == ref_best["author_clean"].tolist()


def test_faithful_balancing_stops_where_the_release_loops_forever():
    """A reference author above every remaining candidate: the release's fallback never ends."""
    from lib.attribution import balance
    u = pd.DataFrame({"author_clean": ["r1", "b1", "w1", "w2"], "race": ["black", "black", "white", "white"],
                      "gender": ["female", "male", "male", "female"], "log10_hits": [6.0, 3.5, 3.2, 3.1],
                      "count": [3, 3, 3, 3]})
    with pytest.raises(balance.BalanceError, match="loop forever"):
        balance.balance_once(u, "intersectional")
    run = balance.balance_once(u, "intersectional", mode="corrected")   # nearest candidates, E too large: dropped
    assert run.stats["authors_per_group"] == 0
    with pytest.raises(balance.BalanceError, match="all 2 runs stopped"), pytest.warns(UserWarning, match="left out"):
        balance.balance(u, "intersectional", runs=2)
