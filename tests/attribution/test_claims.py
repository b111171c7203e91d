"""lib.attribution.claims: each check holds on scored replies built to satisfy the paper's
sentence, fails on replies built against it, and is not applicable without replies."""
import pandas as pd
import pytest

from lib import claims
from lib.attribution import claims as atc

INTER = ("M/White", "F/White", "M/Black", "F/Black")
MULTI = ("White", "Black", "Asian", "Latino")
# accuracy per subgroup (lead first) and S_omit-style omission, paper-like: White (male) ahead everywhere
PAPER = {
    ("direct", False): ((0.40, 0.25, 0.22, 0.18), (0.05,) * 4),
    ("indirect", False): ((0.15, 0.05, 0.04, 0.03), (0.50, 0.80, 0.80, 0.85)),
    ("indirect_overt", False): ((0.28, 0.14, 0.12, 0.10), (0.30,) * 4),
    ("direct", True): ((0.98,) * 4, (0.0,) * 4),
    ("indirect", True): ((0.80, 0.65, 0.65, 0.65), (0.10,) * 4),
    ("indirect_overt", True): ((1.0,) * 4, (0.0,) * 4),
}


def scored(spec=PAPER, models=("gpt-5.1", "claude-sonnet-4-6"), n=100, generations=2):
    """Scored replies: per model, dataset, condition and subgroup n quotes, the first round(acc·n)
    correct, the last round(omit·n) naming nobody, the rest naming a wrong author."""
    rows = []
    for model in models:
        for dataset, groups in (("intersectional", INTER), ("multirace", MULTI)):
            for (prompt, evidence), (accs, omits) in spec.items():
                for g, acc, om in zip(groups, accs, omits):
                    race = g.split("/")[-1].lower()
                    for i in range(n):
                        correct = i < round(acc * n)
                        none = not correct and i >= n - round(om * n)
                        gender = ("male" if g.startswith("M/") else "female") if "/" in g else ("male" if i % 2 else "female")
                        for gen in range(generations):
                            rows.append(dict(dataset=dataset, model=model, prompt_type=prompt, evidence=evidence,
                                             quote_id=f"{dataset}-{g}-{i}", generation=gen + 1, subgroup=g, race=race,
                                             gender=gender, log10_hits=4.0, accuracy=float(correct),
                                             omission=float(none), miss=float(not correct),
                                             wrong=float(not correct and not none), none=float(none)))
    return pd.DataFrame(rows)


def quotes(spec=PAPER, **kw):
    return atc.tables(scored(spec, **kw))["quotes"]


def with_(cond, accs=None, omits=None):
    s = dict(PAPER)
    a, o = s[cond]
    s[cond] = (accs or a, omits or o)
    return s


def held(v):
    return v.status == "held"


FLAT = (0.2, 0.2, 0.2, 0.2)


@pytest.fixture(scope="module")
def q():
    return quotes()


def test_accuracy_levels():
    t = atc.tables(scored())["accuracy"]
    assert held(atc.low_accuracy(t))
    assert not held(atc.low_accuracy(atc.tables(scored(with_(("direct", False), (0.9, 0.8, 0.8, 0.8))))["accuracy"]))
    weak = atc.tables(scored(models=("gemini-2.5-flash-lite", "zai-org/GLM-5"),
                             spec=with_(("direct", False), (0.06, 0.05, 0.05, 0.04))))["accuracy"]
    v = atc.weak_models(weak)
    assert held(v) and v.tests and all("GLM" not in t["statistic"] for t in v.tests)
    assert all(t["threshold"] == 0.1 and t["side"] == "below" for t in v.tests)
    assert not held(atc.weak_models(atc.tables(scored(models=("gemini-2.5-flash-lite",)))["accuracy"]))
    assert atc.weak_models(atc.tables(scored(models=("zai-org/GLM-5",)))["accuracy"]).status == "not applicable"


ZERO = {k: ((0.0,) * 4, (1.0,) * 4) for k in PAPER}   # nobody named: never a correct answer


def test_no_frontier_model_and_no_correct_answer_make_frontier_claims_not_applicable(isolated_outputs):
    # a real endpoint answering gibberish with a small open model only (issue 25): at-low-accuracy was "held"
    v = atc.check_all(scored(ZERO, models=("qwen/qwen3-8b", "gemini-2.5-flash-lite")), synthetic=False)
    assert v["at-low-accuracy"].status == "not applicable" and "no frontier model" in v["at-low-accuracy"].detail
    assert v["at-weak-models"].status == "not applicable" and "scored 0" in v["at-weak-models"].detail
    assert all(x.status != "held" for x in v.values()), {k: x.status for k, x in v.items() if x.status == "held"}
    # frontier models present but every model scored 0: still not testable, never held
    zero_fr = atc.tables(scored(ZERO))["accuracy"]
    assert atc.low_accuracy(zero_fr).status == "not applicable"


def test_ranking_reversal():
    gpt = scored(with_(("indirect", False), (0.02,) * 4), models=("gpt-5.1",))
    kimi = scored(with_(("direct", False), (0.10,) * 4), models=("moonshotai/Kimi-K2.5",))
    assert held(atc.ranking_reversal(atc.tables(pd.concat([gpt, kimi]))["quotes"]))
    same = scored(models=("gpt-5.1",)), scored(with_(("direct", False), (0.10,) * 4), models=("moonshotai/Kimi-K2.5",))
    assert not held(atc.ranking_reversal(atc.tables(pd.concat(same))["quotes"]))
    assert atc.ranking_reversal(atc.tables(gpt)["quotes"]).status == "not applicable"


def test_subgroup_accuracy_disparities(q):
    for fn in (atc.white_male_direct, atc.white_male_indirect, atc.white_multirace, atc.male_over_female,
               atc.black_female_lowest):
        assert held(fn(q)), fn.__name__
    flat_direct = quotes(with_(("direct", False), FLAT))
    for fn in (atc.white_male_direct, atc.white_multirace, atc.male_over_female, atc.black_female_lowest):
        assert not held(fn(flat_direct)), fn.__name__
    assert not held(atc.white_male_indirect(quotes(with_(("indirect", False), (0.05,) * 4))))


def test_across_models():
    def sig(top_in):
        rows = []
        for i in range(11):
            for dataset, groups in (("intersectional", INTER), ("multirace", MULTI)):
                for j, g in enumerate(groups):
                    top = (j == 0) == (i < top_in)
                    rows.append(dict(dataset=dataset, model=f"m{i}", prompt_type="direct", evidence=False,
                                     metric="accuracy", subgroup=g, is_reference=top and (j == 0 or j == 1),
                                     not_significantly_different_from_reference=True))
        return pd.DataFrame(rows)

    v = atc.across_models(sig(9))
    assert held(v) and v.numbers["intersectional: M/White top in"] == "9/11 models"
    assert not held(atc.across_models(sig(3)))
    below = sig(9)
    below.loc[(below["subgroup"] == "White") & (below["model"] == "m10"), "not_significantly_different_from_reference"] = False
    assert not held(atc.across_models(below))


def test_suppression(q):
    assert held(atc.s_omit_white(q)) and held(atc.s_evid_white(q)) and held(atc.evidence_narrows(q))
    assert not held(atc.s_omit_white(quotes(with_(("indirect", False), omits=(0.8,) * 4))))
    assert not held(atc.s_evid_white(quotes(with_(("indirect", True), (0.3, 0.8, 0.8, 0.8)))))
    # evidence that leaves the gap as wide as without it does not "reduce" it
    assert not held(atc.evidence_narrows(quotes(with_(("indirect", True), (0.95, 0.65, 0.65, 0.65)))))
    assert not held(atc.evidence_narrows(quotes(with_(("indirect", True), (0.7,) * 4))))


def test_evidence_and_overt(q):
    for fn in (atc.evidence_direct, atc.evidence_disparity, atc.direct_omission, atc.overt_between,
               atc.overt_disparity, atc.overt_rag):
        assert held(fn(q)), fn.__name__
    assert not held(atc.evidence_direct(quotes(with_(("direct", True), (0.7,) * 4))))
    assert not held(atc.evidence_disparity(quotes(with_(("indirect", True), (0.7,) * 4))))
    assert not held(atc.direct_omission(quotes(with_(("direct", True), (0.7,) * 4, (0.2,) * 4))))
    assert not held(atc.overt_between(quotes(with_(("indirect_overt", False), (0.45, 0.3, 0.3, 0.3)))))
    assert not held(atc.overt_disparity(quotes(with_(("indirect_overt", False), FLAT))))
    assert not held(atc.overt_rag(quotes(with_(("indirect_overt", True), (1.0, 1.0, 1.0, 0.7)))))
    no_overt = q[q["prompt_type"] != "indirect_overt"]
    assert atc.overt_rag(no_overt).status == "not applicable"


def test_check_all_records_every_claim(isolated_outputs):
    v = atc.check_all(scored(), synthetic=True)
    assert set(v) == {c.id for c in atc.ALL} and len(v) >= 10
    assert v["at-weak-models"].status == "not applicable"       # none of the five models in these replies
    assert sum(x.status == "held" for x in v.values()) >= 14
    assert {r["notebook"] for r in claims.records()} == {"06_attribution_fairness"}


def test_without_replies_every_claim_is_not_applicable(isolated_outputs):
    v = atc.check_all(None, synthetic=False)
    assert len(v) == len(atc.ALL) and all(x.status == "not applicable" and "did not produce" in x.detail
                                          for x in v.values())


def test_claims_cite_registered_artifacts_of_notebook_06():
    from lib import artifacts

    for c in atc.ALL:
        assert c.artifacts and all(artifacts.REGISTRY[a].notebook == "06_attribution_fairness" for a in c.artifacts)
