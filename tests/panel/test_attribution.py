"""The panel's AttriBench behaviour against the paper's published values (issue 17).

The panel's expected rates (its exported truth, on each dataset's fame-balanced reference
population) are held against ``lib/resources/at_published.csv`` (what the comparison of notebook
06 reads) and against the directions the paper states without a number; the targets file is held
against the published values it quotes, so the two cannot drift apart.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.attribution import models as at_models
from lib.attribution import published as at_published
from lib.panel import attribution as pat
from lib.panel.expected import truth

SEED = 20261130          # the quick and paper profiles' seed
INTER = pat.GROUPS["intersectional"]
MULTI = pat.GROUPS["multirace"]


@pytest.fixture(scope="module")
def params():
    return pat.model_params(SEED)


@pytest.fixture(scope="module")
def paper(params):
    return {m: p for m, p in params.items() if p["in_paper"]}


def _ids():
    return {v: k for k, v in at_models.display_names().items()}


def _expected(params, paper, artifact: str, row: str, column: str) -> float:
    """The panel's expected value of one published row, read the way lib.attribution.published
    reads the regenerated tables."""
    if artifact == "at-fig4":
        dataset, name = row.split("/", 1)
        return pat.dataset_rate(params[_ids()[name]], dataset, column, False)
    if artifact == "at-fig5":
        dataset, name = row.split("/", 1)
        p = params[_ids()[name]]
        cells = INTER if dataset == "intersectional" else MULTI
        acc = {(r, g): pat.group_rate(p, "direct", False, r, g, "correct", dataset) for r, g in cells}
        lead = acc.pop(cells[0])
        if column.endswith("highest other"):
            return lead - max(acc.values())
        return lead - acc[("black", None)]
    kind = {"at-fig6": "omit", "at-fig7": "evid"}[artifact]
    return pat.suppression_gaps(paper)[f"{kind}: {row.split(': ', 1)[1]}"]


def test_expected_rates_sit_at_the_published_values(params, paper):
    pub = at_published.published_values()
    pub = pub[pub["artifact"].isin(["at-fig4", "at-fig5", "at-fig6", "at-fig7"])]
    diffs = {f"{r.artifact} {r.row} {r.column}": _expected(params, paper, r.artifact, r.row, r.column) - r.published
             for r in pub.itertuples(index=False)}
    absd = np.abs(np.array(list(diffs.values())))
    assert len(diffs) == 22
    assert np.median(absd) <= 0.02, diffs
    assert absd.max() <= 0.08, diffs


def test_every_model_target_is_met_and_exported(params):
    t = pat.target_table(params)
    assert len(t) == 41 - 5                   # the five '*' rows are placements, not model values
    off = (t["expected"] - t["target"]).abs()
    assert off.max() <= 0.02, t.assign(off=off).sort_values("off").tail()
    exported = pd.DataFrame(truth(SEED)["calibration"]["attribution_targets"])
    assert exported["expected"].to_numpy() == pytest.approx(t["expected"].to_numpy(), abs=1e-9)


def test_targets_quote_the_published_values():
    pub = at_published.published_values().set_index(["artifact", "row", "column"])["published"]
    names = at_models.display_names()
    t = pat.targets()
    quoted = t[t["source"].str.contains("at_published.csv")]
    assert len(quoted) >= 16
    for r in quoted.itertuples(index=False):
        art = r.source.split("at_published.csv ")[1].split()[0]
        if r.model == "mean":
            key = (art, f"{r.dataset}: {r.quantity.split(': ', 1)[1]}", "gap_mean_over_models")
        else:
            key = (art, f"{r.dataset}/{names[r.model]}", r.quantity.split("_")[0])
        assert pub[key] == pytest.approx(r.target, abs=1e-12), key


def test_directions_the_paper_states_without_numbers(params, paper):
    rate = pat.group_rate
    white_twice = 0
    for m, p in paper.items():
        d = {c: rate(p, "direct", False, *c, "correct") for c in INTER}
        assert max(d, key=d.get) == ("white", "male") and min(d, key=d.get) == ("black", "female"), m   # §5.2
        mr = {c: rate(p, "direct", False, *c, "correct", "multirace") for c in MULTI}
        white_twice += mr[("white", None)] >= 2 * max(mr[("latino", None)], mr[("asian", None)])
        for ds in ("intersectional", "multirace"):
            acc = {f: pat.dataset_rate(p, ds, f, False) for f in ("direct", "indirect_overt", "indirect")}
            assert acc["direct"] > acc["indirect_overt"] > acc["indirect"], (m, ds, acc)        # A.11
            assert pat.dataset_rate(p, ds, "direct", True) >= 0.95, m                            # A.9
            assert pat.dataset_rate(p, ds, "direct", True, "none") < 0.05, m                     # A.10
            cells = INTER if ds == "intersectional" else MULTI
            assert min(rate(p, "indirect_overt", True, *c, "correct", ds) for c in cells) >= 0.95, m   # A.11
            assert pat.dataset_rate(p, ds, "indirect", True) < pat.dataset_rate(p, ds, "direct", True) - 0.2, m  # A.9
            omit = {c: rate(p, "indirect", False, *c, "none", ds) for c in cells}
            assert min(omit, key=omit.get) == cells[0], (m, ds)                                 # §5.2, Fig. 6
            assert pat.dataset_rate(p, ds, "direct", False, "none") < pat.dataset_rate(p, ds, "indirect", False, "none")
        by_fame = pat._probs(p, "direct", False, [3.5, 4.5, 5.5, 6.5], "black", "female")["correct"]
        assert np.all(np.diff(by_fame) > 0), m                                                      # A.1, Fig. 8
    assert white_twice >= 9                                                                      # §5.2: 9 of 11
    gaps = pat.suppression_gaps(paper)
    assert gaps["evid: F/Black vs M/White"] < gaps["omit: F/Black vs M/White"]                   # §5.2: evidence
    assert gaps["evid: Latino, Asian vs White"] < gaps["omit: Latino, Asian vs White"]           # narrows the gaps


def test_gpt_oss_is_the_exception(params, paper):
    """§5.2: White leads in every model but GPT-OSS-120B (multirace), whose S_omit gaps are also
    not significant: its disparities are the smallest of the paper's models."""
    def spread(p):
        mr = [pat.group_rate(p, "direct", False, *c, "correct", "multirace") for c in MULTI]
        return mr[0] / max(mr[1:])
    ratios = {m: spread(p) for m, p in paper.items()}
    assert min(ratios, key=ratios.get) == "openai/gpt-oss-120b"


def test_bad_targets_file_names_file_and_columns(tmp_path):
    bad = tmp_path / "panel_attribution_targets.csv"
    bad.write_text("model,dataset,target\nx,y,0.1\n")
    with pytest.raises(ValueError, match=r"panel_attribution_targets.csv: missing columns \['quantity', 'source'\]"):
        pat.targets(bad)
