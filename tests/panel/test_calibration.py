"""The synthetic panel's expected authority-bias and AttriBench rates against the papers' published
values (issue 17). Everything is exact enumeration from the panel's truth (the fitted parameters
over the main-experiment prompts of the synthetic corpus at the profiles' seed, the AttriBench
outcome probabilities over a fame-balanced grid): no sampling."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lib import paths, published
from lib.authority import published as ab_published
from lib.authority import analysis, conditions, corpus, prompts
from lib.panel import authority as pau
from lib.panel import authority_fit as fit

SEED = 20261130          # the quick and paper profiles' seed, the fit's
# beside the repository (as tests/test_published.py looks) or one level up (a worktree)
PAPERS_DIR = next((d for d in (paths.ROOT.parent / "shared" / "papers", paths.ROOT.parent.parent / "shared" / "papers")
                   if d.is_dir()), paths.ROOT.parent / "shared" / "papers")
PAPER = [m for m in pau.AUTHORITY_MODELS if m in pau.fitted()["models"]]       # the nine of the paper
HEADLINE = [m for m in PAPER if m != "gpt-4o-mini"]
FRONTIER = [m for m in HEADLINE if pau.cohort(m) == "frontier"]
OPEN = [m for m in HEADLINE if pau.cohort(m) == "open"]


def _prompt_rows(n_queries: int) -> pd.DataFrame:
    c = corpus.synthetic_corpus(SEED)
    # the conditions the paper profile builds: from its pilot's derived weights, stored with the fit
    conds = conditions.build_conditions(c, weights=pau.fitted()["condition_weights"], seed=SEED)
    r = prompts.build_main_requests(c, n_queries=n_queries, seed=SEED, condition_set=conds, instructions=("baseline",))
    return r.assign(text=r["messages"].map(lambda m: m[0]["content"]))[["query_id", "topic", "condition", "text"]]


@pytest.fixture(scope="module")
def rows():
    return _prompt_rows(10)          # the paper's 250 queries


@pytest.fixture(scope="module")
def expected(rows):
    return fit.expected_rates(SEED, rows)


def _printed(name, quantity):
    t = fit.targets()
    r = t[(t["name"] == name) & (t["quantity"] == quantity)]
    return None if r.empty or not r["printed"].iloc[0] else float(r["value"].iloc[0]) / 100


def _comparisons(expected) -> list[tuple[str, float, float]]:
    """(label, expected, published) for every published rate the panel is calibrated to."""
    m = expected["models"]
    out = []
    for mid in PAPER:
        for q, v in (("flip_rate", m[mid]["flip"]), ("boost_rate", m[mid]["boost"])):
            if _printed(mid, q) is not None:
                out.append((f"{mid} {q}", v, _printed(mid, q)))
        if _printed(mid, "mild_delta_pp") is not None:
            out.append((f"{mid} mild delta", m[mid]["mild"] - m[mid]["none"], _printed(mid, "mild_delta_pp")))
    out.append(("gpt-4o-mini baseline flip", m["gpt-4o-mini"]["none"], _printed("gpt-4o-mini", "baseline_flip_rate")))
    pooled = lambda ms, v: float(np.mean([m[x][v] for x in ms]))   # noqa: E731
    out.append(("open cohort mild delta", pooled(OPEN, "mild") - pooled(OPEN, "none"), _printed("open", "mild_delta_pp")))
    out.append(("frontier cohort mild delta", pooled(FRONTIER, "mild") - pooled(FRONTIER, "none"), 0.039))  # line 161
    out.append(("aggregate flip (Table 5)", pooled(HEADLINE, "flip"), 0.392))                               # line 130
    out.append(("aggregate boost (Table 5)", pooled(HEADLINE, "boost"), 0.217))                             # line 130
    out.append(("content_first flip (Table 11)", pooled(HEADLINE, "strong"), _printed("all", "strong_flip_rate")))
    out.append(("anti_authority change (Table 11)", pooled(HEADLINE, "mild") - pooled(HEADLINE, "none"), -0.023))
    out.append(("content_first reduction (Table 11)", pooled(HEADLINE, "none") - pooled(HEADLINE, "strong"), 0.129))
    for k, v in expected["topics"].items():
        if _printed(k, "topic_flip_rate") is not None:
            out.append((f"topic {k}", v, _printed(k, "topic_flip_rate")))
    for k, v in expected["topic_boosts"].items():
        if _printed(k, "topic_boost_rate") is not None:
            out.append((f"topic {k} boost", v, _printed(k, "topic_boost_rate")))
    params = pau.model_params(SEED)
    for mid in HEADLINE:
        if _printed(mid, "mention_rate") is not None:
            out.append((f"{mid} mention", float(np.mean(list(params[mid]["mention_rate"].values()))),
                        _printed(mid, "mention_rate")))
    change = np.mean([params[x]["mention_rate"]["strong"] - params[x]["mention_rate"]["none"] for x in HEADLINE])
    out.append(("content_first mention change (Table 13)", float(change), _printed("all", "strong_mention_change_pp")))
    agree = expected["agreement"]
    out.append(("selection agreement (Table 8)", float(np.mean(list(agree.values()))), _published("ab-tab8", "selection agreement", "mean")))
    for a, b, row, col in (("claude-sonnet-4-6", "gpt-5.4", "selection agreement", "max"),
                           ("gemini-3-flash-preview", "gpt-5.4", "selection agreement/gpt-5.4 vs gemini-3-flash-preview", "pair"),
                           ("claude-sonnet-4-6", "gemini-3-flash-preview",
                            "selection agreement/claude-sonnet-4-6 vs gemini-3-flash-preview", "pair")):
        out.append((f"agreement {a} vs {b} (App. G)", agree[f"{a} vs {b}"], _published("ab-tab8", row, col)))
    for mid in HEADLINE:          # Appendix G: P(the boosted paper is picked) per model
        out.append((f"{mid} boosted pick", m[mid]["boost_pick"], _published("ab-tab7", mid, "boosted_pick_rate")))
    for v, ins in (("none", "baseline"), ("strong", "content_first")):
        out.append((f"{ins} boost (§5.7)", pooled(HEADLINE, f"boost_{v}"), _published("ab-tab11", ins, "boost_rate")))
    shares = _tier_shares(expected)
    for cond, tier in (("original", "top"), ("flipped", "top"), ("flipped", "mid"), ("original", "low"), ("flipped", "low")):
        out.append((f"{tier} share {cond} (Table 9)", shares[cond][tier], _published("ab-tab9", tier, cond)))
    return out


def _lifts(expected) -> list[tuple[str, float, float]]:
    """(label, expected, published) boosted-pick lifts over chance (§5.5, Appendix G; ratios, not rates)."""
    m, chance = expected["models"], expected["boost_chance"]
    out = [(f"{mid} lift", m[mid]["boost_pick"] / chance, _published("ab-tab7", mid, "boosted_pick_lift"))
           for mid in HEADLINE]
    rate, base = (_published("ab-tab7", "all", c) for c in ("boosted_pick_rate_all", "boosted_pick_expected"))
    out.append(("aggregate lift (§5.5)", float(np.mean([m[x]["boost_pick"] for x in HEADLINE])) / chance, rate / base))
    return out


def _tier_shares(expected) -> dict[str, dict[str, float]]:
    """Table 9: the headline models' expected share of picks per citation tier and condition."""
    c = corpus.synthetic_corpus(SEED)
    cand = conditions.build_candidate_sets(c, seed=SEED)
    tier = cand.pivot(index="query_id", columns="position", values="tier").loc[expected["queries"]].to_numpy()
    return {cond: {t: float((p * (tier == t)).sum(axis=1).mean()) for t in ("top", "mid", "low", "emerging")}
            for cond, p in expected["picks"].items()}


def _published(artifact, row, column) -> float:
    pub = ab_published.published_values()
    hit = pub[(pub["artifact"] == artifact) & (pub["row"] == row) & (pub["column"] == column)]["published"]
    assert len(hit) == 1, (artifact, row, column)
    return float(hit.iloc[0])


#: Published values the panel's design cannot reach, with the gap measured at the fit (issue 17).
#: The boosted-pick lifts of the models whose ceilings sit at the fit's lower end (0.3): llama 3.1
#: (whose 63 % flip rate needs the largest susceptibility), Gemma 2 and mistral still pick a boosted
#: paper at 1.09-1.24x chance against the paper's 0.97-1.10x (their rates within 0.04 of the
#: published ones); the three frontier models 0.05-0.07 above. Each is held to its measured gap
#: plus 0.05, so a change that widens it fails and one that closes it shows here.
STRUCTURAL: dict[str, float] = {}
STRUCTURAL_LIFT = {"llama3.1:8b lift": 0.19, "mistral:7b lift": 0.13, "gemma2:9b lift": 0.17,
                   "gpt-5.4 lift": 0.12, "gemini-3-flash-preview lift": 0.11, "claude-sonnet-4-6 lift": 0.10,
                   "aggregate lift (§5.5)": 0.11}


def test_targets_resource_cites_the_paper():
    t = fit.targets()
    assert {"flip_rate", "boost_rate", "mild_delta_pp", "mention_rate", "topic_flip_rate"} <= set(t["quantity"])
    text = PAPERS_DIR / "authority_bias.txt"
    if not text.is_file():
        pytest.skip("the paper texts (shared/papers) are not beside the repository")
    lines = text.read_text().splitlines()
    norm = lambda s: s.replace("\\", "").replace("−", "-")   # noqa: E731
    for r in t.itertuples(index=False):
        if r.printed:
            assert norm(r.printed) in norm(lines[int(r.line) - 1]), (r.name, r.quantity, r.line)
            assert published.printed_number(r.printed) == pytest.approx(r.value), (r.name, r.quantity)
        else:
            assert r.note.startswith("derived"), (r.name, r.quantity)


def test_flip_targets_reproduce_the_printed_aggregates():
    tg = fit.model_flip_targets(pau.AUTHORITY_MODELS)
    assert sorted(tg) == sorted(PAPER)
    head = [m for m in HEADLINE if m in tg]
    assert len(head) == 8
    assert np.mean([np.mean([tg[m][v] for v in fit.VARIANTS]) for m in head]) == pytest.approx(0.392, abs=1e-9)
    assert np.mean([tg[m]["boost"] for m in head]) == pytest.approx(0.217, abs=1e-9)
    assert np.mean([tg[m]["none"] for m in head]) == pytest.approx(0.443, abs=0.003)
    assert tg["gpt-4o-mini"]["none"] == pytest.approx(0.452) and tg["gpt-4o-mini"]["mild"] == pytest.approx(0.416)
    assert all(tg[m]["mild"] > tg[m]["none"] for m in FRONTIER + ["mistral:7b"])       # the backfire
    assert all(tg[m]["strong"] < tg[m]["none"] for m in tg)


def test_topic_of_reads_every_corpus_topic(rows):
    orig = rows[rows["condition"] == "original"]
    from lib.panel import prompts as pp
    got = [pau.topic_of(pp.parse(t)) for t in orig["text"]]
    assert got == orig["topic"].tolist()


def test_authority_expected_rates_sit_at_the_published_ones(expected):
    comp = _comparisons(expected)
    diffs = {lab: e - p for lab, e, p in comp}
    assert len(comp) >= 52 and set(STRUCTURAL) <= set(diffs)
    calibrated = {k: v for k, v in diffs.items() if k not in STRUCTURAL}
    absd = np.abs(list(calibrated.values()))
    # the acceptance of issue 17 on the expected rates: median |difference| ≤ 0.02, none above 0.08
    assert np.median(absd) <= 0.02, sorted(calibrated.items(), key=lambda kv: -abs(kv[1]))[:8]
    assert absd.max() <= 0.08, sorted(calibrated.items(), key=lambda kv: -abs(kv[1]))[:5]
    assert np.median(np.abs(list(diffs.values()))) <= 0.02          # with the structural gaps too
    over = {k: round(diffs[k], 3) for k, bound in STRUCTURAL.items() if abs(diffs[k]) > bound}
    assert not over, over


def test_boosted_pick_lifts_follow_appendix_g(expected):
    """The lifts the panel can reach sit at the published ones (Qwen 2.5's 1.43×, DeepSeek-R1's
    1.14×); the others stay within their structural gaps; Qwen 2.5 is the most
    attracted model, as in the paper; the pooled lift is above 1 (§5.5: 1.06×)."""
    lifts = {lab: (e, p) for lab, e, p in _lifts(expected)}
    for lab, (e, p) in lifts.items():
        assert abs(e - p) <= STRUCTURAL_LIFT.get(lab, 0.05), (lab, round(e, 3), p)
    per_model = {lab: e for lab, (e, _) in lifts.items() if not lab.startswith("aggregate")}
    assert max(per_model, key=per_model.get) == "qwen2.5:7b lift", per_model
    assert lifts["aggregate lift (§5.5)"][0] > 1.0


def test_frontier_models_are_the_only_pairs_above_60_percent_agreement(expected):
    """Appendix G: the three frontier pairs agree on 61–63 % of selections, the only pairs above 60 %."""
    high = {k for k, v in expected["agreement"].items() if v > 0.60}
    assert high == {f"{a} vs {b}" for a, b in (("claude-sonnet-4-6", "gpt-5.4"), ("gemini-3-flash-preview", "gpt-5.4"),
                                                ("claude-sonnet-4-6", "gemini-3-flash-preview"))}, high
    assert 0.10 < min(expected["agreement"].values())              # far above the 10 % chance baseline


def test_stored_fit_is_what_the_fit_gives(rows):
    stored = json.loads((paths.RESOURCES / fit.FIT_FILE).read_text())
    new = fit.fit(SEED, rows)
    assert stored["queries"] == new["queries"] == 250
    for m, p in stored["models"].items():
        assert new["models"][m]["ceiling"] == pytest.approx(p["ceiling"], rel=1e-6), m
        for v in fit.VARIANTS:
            assert new["models"][m]["tau"][v] == pytest.approx(p["tau"][v], rel=1e-5), (m, v)
            assert new["models"][m]["s"][v] == pytest.approx(p["s"][v], rel=1e-5, abs=1e-6), (m, v)
    for k, v in stored["topic_multiplier"].items():
        assert new["topic_multiplier"][k] == pytest.approx(v, rel=1e-5), k


def test_marker_sentences_hit_one_category_each_at_table_23_shares():
    shares = {}
    for label, weight, text in pau.MARKERS:
        hits = analysis.authority_markers(text.format(h=42))
        assert hits == [label], (text, hits)
        shares[label] = weight
    total = sum(shares.values())
    assert total == pytest.approx(1.0, abs=1e-9)
    assert shares["recency"] == pytest.approx(_printed("recency", "marker_share"), abs=1e-9)
    assert shares["citations"] + shares["impact"] == pytest.approx(2 / 3, abs=0.001)
    assert all(shares[k] < 0.03 for k in ("h-index", "venue_prestige", "institution_name"))
