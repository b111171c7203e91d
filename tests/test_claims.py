"""The claims ledger: four outcomes from intervals, records, failures recorded as not applicable,
the size that would decide an inconclusive claim, claims.md."""
import json
import math
from types import SimpleNamespace

import pytest
from scipy import stats as st

from lib import artifacts, claims, claims_plot, manifest, paths, stats

CLAIM = claims.Claim("lsb-temp-validity", "llmscholarbench", "§4.2", "Higher temperature lowers validity.")


def change_check(lo: float, hi: float, published=None) -> claims.Verdict:
    """A claim "lower": the change's interval (lo, hi) against 0 from below."""
    return claims.judge([claims.interval("validity change", (lo + hi) / 2, lo, hi, 0.0, "below", test="Newcombe",
                                         n=100, unit="attempts per group", published=published)],
                        {"validity at T=0": 0.9})


@pytest.mark.parametrize("lo, hi, side, outcome", [
    (0.02, 0.10, "above", "held"), (-0.10, -0.02, "above", "contradicted"), (-0.03, 0.05, "above", "inconclusive"),
    (-0.10, -0.02, "below", "held"), (0.02, 0.10, "below", "contradicted"), (-0.03, 0.05, "below", "inconclusive"),
    (-0.03, 0.05, "not above", "held"), (0.02, 0.10, "not above", "contradicted"),
    (-0.03, 0.05, "not below", "held"), (-0.10, -0.02, "not below", "contradicted"),
    (float("nan"), 0.05, "above", "not applicable")])
def test_an_interval_on_either_side_of_its_threshold_or_across_it_gets_its_outcome(lo, hi, side, outcome):
    assert claims.interval("d", 0.0 if math.isnan(lo) else (lo + hi) / 2, lo, hi, 0.0, side).outcome == outcome


def test_a_threshold_other_than_zero_and_touching_it_is_not_deciding():
    assert claims.interval("share", 0.6, 0.52, 0.68, 0.5).outcome == "held"
    assert claims.interval("share", 0.45, 0.40, 0.50, 0.5).outcome == "inconclusive"   # the bound touches it
    assert claims.interval("share", 0.40, 0.30, 0.49, 0.5).outcome == "contradicted"


def test_a_claim_is_held_when_all_its_statistics_are_and_contradicted_when_one_is():
    up, down, across = (claims.interval(n, (a + b) / 2, a, b) for n, a, b in
                        (("up", 0.1, 0.2), ("down", -0.2, -0.1), ("across", -0.1, 0.1)))
    assert claims.judge([up, up]).status == "held"
    assert claims.judge([up, across]).status == "inconclusive"
    assert claims.judge([up, across, down]).status == "contradicted"
    assert claims.judge([]).status == "not applicable"
    nan = claims.interval("nan", float("nan"), float("nan"), float("nan"))
    assert claims.judge([up, nan]).status == "not applicable"


def test_a_failed_significance_test_is_inconclusive_never_contradicted():
    assert claims.significance("homogeneity", 0.001, test="χ²").outcome == "held"
    assert claims.significance("homogeneity", 0.4, test="χ²").outcome == "inconclusive"


def test_the_inconclusive_verdict_carries_the_size_that_decides_it():
    v = change_check(-0.06, 0.02)       # estimate −0.02, half-width 0.04 toward 0 on 100 per group
    assert v.status == "inconclusive"
    z = st.norm.ppf(0.975)
    sigma = 0.02 * math.sqrt(100 / 2) / z * 2     # half-width toward the threshold is 0.04
    textbook = 2 * ((z + st.norm.ppf(0.8)) / (0.02 / sigma)) ** 2
    assert v.decide["n needed"] == pytest.approx(textbook, rel=0.01) and v.decide["unit"] == "attempts per group"
    assert v.decide["n now"] == 100


def test_the_deciding_size_of_a_narrower_alpha_interval_reads_its_own_level():
    """A family's Bonferroni interval (98.33 %) is wider for the same spread: its deciding size uses
    its own z, both for the spread and for the power calculation, not 95 %'s."""
    a = 0.05 / 3
    z = st.norm.ppf(1 - a / 2)
    half = z * 1.0 * math.sqrt(2 / 100)                   # σ = 1 on 100 per group
    it = claims.interval("d", 0.2, 0.2 - half, 0.2 + half, 0.0, "above", n=100, alpha=a)
    textbook = 2 * ((z + st.norm.ppf(0.8)) / 0.2) ** 2    # d = 0.2 / σ
    assert it.outcome == "inconclusive" and it.needed() == pytest.approx(textbook, rel=0.01)
    # read at 95 %, the same interval gives a spread 2.39/1.96 too wide and a size 12 % too large
    assert claims.interval("d", 0.2, 0.2 - half, 0.2 + half, n=100).needed() > 1.1 * textbook


def test_held_contradicted_and_inconclusive_are_recorded_with_rule_and_numbers(isolated_outputs, monkeypatch):
    monkeypatch.setenv("COMPANION_NOTEBOOK", "04_interventions")
    assert claims.check(CLAIM, change_check, -0.3, -0.1, synthetic=True).status == "held"
    rec = json.loads((paths.RECORDS / "claims" / "lsb-temp-validity.json").read_text())
    assert rec["numbers"] == {"validity at T=0": 0.9} and rec["notebook"] == "04_interventions"
    assert rec["rule"] == claims.RULE and rec["tests"][0]["outcome"] == "held"
    assert "validity change below 0, Newcombe" in rec["detail"]
    assert claims.check(CLAIM, change_check, 0.1, 0.3, synthetic=True).status == "contradicted"
    assert claims.check(CLAIM, change_check, -0.1, 0.3, synthetic=True).status == "inconclusive"
    assert [r["status"] for r in claims.records()] == ["inconclusive"]


def test_inconclusive_record_names_the_shipped_profile_that_reaches_the_size(isolated_outputs, monkeypatch):
    monkeypatch.setenv("COMPANION_PROFILE", "quick")
    knob = claims.Knob("05_authority_pilot_regression", "queries_per_topic")
    quick, paper = knob.value("quick"), knob.value("paper")
    assert paper == 10 and quick >= 1
    flip = claims.Claim("ab-flip-vs-boost", "authority_bias", "§5.1", "s", ("ab-tab5",))
    # n needed ≈ 2·((1.96 + 0.84)/d)²; with 100 per group now it scales with the knob
    v = claims.check(flip, change_check, -0.05, 0.03, synthetic=True, knob=knob)
    need = v.decide["n needed"]
    assert v.decide["n per profile"] == pytest.approx({"quick": 100.0, "paper": 100.0 * paper / quick})
    assert v.decide["reached by"] == ("quick" if need <= 100 else "paper" if need <= 100 * paper / quick
                                      else "none of quick/paper at this run's effect")
    none = claims.reach({"n needed": 1e9, "n now": 10}, knob, "quick")
    assert none["reached by"].startswith("none of quick/paper")
    assert claims.reach({"n needed": 1e9, "n now": 10}, None, "quick")["reached by"].endswith("profile parameter)")


def test_the_deciding_size_at_the_papers_printed_effect():
    """n ∝ 1/d²: the same spread centred on a printed effect 4× the observed one needs 1/16 the units."""
    small = claims.interval("gap", 0.01, -0.03, 0.05, 0.0, "above", n=100, unit="pairs", design="one-sample",
                            published=0.04)
    assert small.outcome == "inconclusive"
    assert small.needed_at_published() == pytest.approx(small.needed() / 16, rel=0.02)
    assert small.needed() == pytest.approx(((1.96 + 0.8416) / (0.01 / (0.04 * 10 / 1.96))) ** 2, rel=0.02)
    # a printed value on the other side of the threshold, or a "no difference" claim: nothing to say
    assert claims.interval("gap", 0.01, -0.03, 0.05, 0.0, "above", n=100, published=-0.02).needed_at_published() is None
    assert claims.interval("gap", 0.01, -0.03, 0.05, 0.0, "not above", n=100, published=0.04).needed_at_published() is None
    v = claims.judge([small])
    assert v.decide["published"] == 0.04 and v.decide["n needed at published"] == small.needed_at_published()
    knob = claims.Knob("05_authority_pilot_regression", "queries_per_topic")
    d = claims.reach(v.decide, knob, "quick")
    assert d["reached by"].startswith("none of") or d["reached by"] in claims.SHIPPED
    assert d["reached at published by"] in (*claims.SHIPPED, "none of quick/paper")
    cell = claims.decide_cell({"status": "inconclusive", "decide": d})
    assert f"at the paper's printed 0.04: n ≈ {math.ceil(small.needed_at_published()):,}, reached by: " in cell


def test_a_failing_check_is_not_applicable_never_held(isolated_outputs):
    v = claims.check(CLAIM, change_check, synthetic=False)
    assert v.status == "not applicable" and "TypeError" in v.detail


def test_bad_status_side_and_unknown_paper_are_refused(isolated_outputs):
    with pytest.raises(ValueError, match="must be one of"):
        claims.Verdict("not held")
    with pytest.raises(ValueError, match="side must be one of"):
        claims.interval("d", 0, -1, 1, 0, "beside")
    with pytest.raises(ValueError, match="unknown paper"):
        claims.check(claims.Claim("x", "nature", "§1", "s"), change_check, -0.3, -0.1, synthetic=True)


def test_markdown_groups_by_paper_and_prints_outcome_rule_statistic_and_size(isolated_outputs, monkeypatch):
    monkeypatch.setenv("COMPANION_NOTEBOOK", "05_authority_pilot_regression")
    monkeypatch.setenv("COMPANION_PROFILE", "quick")
    flip = claims.Claim("ab-flip-rate", "authority_bias", "§5.1", "39.2% of recommendations flip.")
    claims.check(flip, change_check, -0.05, 0.03, 0.1, synthetic=True,
                 knob=claims.Knob("05_authority_pilot_regression", "queries_per_topic"))
    monkeypatch.setenv("COMPANION_NOTEBOOK", "04_interventions")
    claims.check(CLAIM, change_check, -0.3, -0.1, synthetic=True)
    counts = claims_plot.write_markdown()
    md = paths.CLAIMS.read_text()
    assert counts == {"held": 1, "contradicted": 0, "inconclusive": 1, "not applicable": 0}
    assert "2 claims checked: 1 held, 0 contradicted, 1 inconclusive, 0 not applicable." in md
    assert claims.RULE[1:] in md
    assert md.index("## LLMScholarBench") < md.index("## Authority bias")
    row = next(line for line in md.splitlines() if line.startswith("| `ab-flip-rate`"))
    assert "**inconclusive** (synthetic)" in row
    assert "validity change = -0.01 [-0.05, 0.03] vs below 0 (Newcombe; paper 0.1)" in row
    assert "n ≈ " in row and "attempts per group (this run: 100); reached by:" in row
    assert (paths.FIGURES / "claims-authority_bias.png").is_file() and "figures/claims-authority_bias.png" in md
    claims.clear("05_authority_pilot_regression")
    assert [r["id"] for r in claims.records()] == ["lsb-temp-validity"]


FLIP = claims.Claim("ab-flip-vs-boost", "authority_bias", "§5.1", "39.2% flip vs 21.7% boost.", ("ab-tab5",))
DIRECTION = claims.Claim("ab-boosted-directional", "authority_bias", "§5.2", "68.2% toward higher.", ("ab-tab5", "ab-tab6"))


def _rate_above(table, threshold):
    lo, hi = stats.wilson_ci(table["rate"] * 100, 100)
    return claims.judge([claims.interval("rate", table["rate"], lo, hi, threshold, test="Wilson", n=100,
                                         design="one-sample")], {"threshold": threshold, "n": 10, "a": 1, "fifth": 5})


def test_run_checks_judges_tables_and_marks_missing_ones_not_applicable(isolated_outputs):
    checks = (claims.Check(FLIP, _rate_above, ("tab5",), "05_authority_pilot_regression", {"threshold": 0.3}),
              claims.Check(DIRECTION, _rate_above, ("tab6",), "05_authority_pilot_regression", {"threshold": 0.5}))
    v = claims.run_checks(checks, {"tab5": {"rate": 0.45}, "tab6": None}, synthetic=True)
    assert v["ab-flip-vs-boost"].status == "held"
    assert v["ab-boosted-directional"].status == "not applicable" and "['tab6']" in v["ab-boosted-directional"].detail
    recs = {r["id"]: r for r in claims.records()}
    assert recs["ab-flip-vs-boost"]["notebook"] == "05_authority_pilot_regression"
    assert recs["ab-flip-vs-boost"]["artifacts"] == ["ab-tab5"]
    assert claims.run_checks(checks, {"tab5": {"rate": 0.15}}, synthetic=True)["ab-flip-vs-boost"].status == "contradicted"
    assert claims.run_checks(checks, {}, synthetic=True, notebook="03_infrastructure_benchmark") == {}
    with pytest.raises(ValueError, match="twice"):
        claims.run_checks(checks + checks[:1], {}, synthetic=True)


def test_unknown_artifact_id_is_refused(isolated_outputs):
    bad = claims.Claim("ab-x", "authority_bias", "§1", "s", ("ab-tab99",))
    with pytest.raises(ValueError, match="not registered"):
        claims.check(bad, lambda: claims.judge([]), synthetic=True)


def test_make_claim_is_the_one_constructor():
    c = claims.make_claim("ab-x", "authority_bias", "§1", "s", "ab-tab5", "ab-tab6")
    assert c == claims.Claim("ab-x", "authority_bias", "§1", "s", ("ab-tab5", "ab-tab6"))


def test_claim_maker_fixes_the_paper_and_the_two_paper_tables_use_it():
    from lib.attribution import claims as at_claims
    from lib.authority import claims as ab_claims

    c = claims.claim_maker("authority_bias")("ab-x", "§1", "s", "ab-tab5", "ab-tab6")
    assert c == claims.make_claim("ab-x", "authority_bias", "§1", "s", "ab-tab5", "ab-tab6")
    assert ab_claims.FLIP_VS_BOOST.paper == "authority_bias" and ab_claims.FLIP_VS_BOOST.artifacts == ("ab-tab5",)
    assert at_claims.LOW_ACCURACY.paper == "attribution_bias" and at_claims.LOW_ACCURACY.artifacts == ("at-fig4",)


def test_markdown_shows_command_profile_and_measured_time_per_claim(isolated_outputs, monkeypatch):
    monkeypatch.setenv("COMPANION_PROFILE", "quick")
    claims.check(FLIP, _rate_above, {"rate": 0.45}, 0.3, synthetic=True, notebook="05_authority_pilot_regression")
    monkeypatch.setenv("COMPANION_PROFILE", "paper")
    claims.check(CLAIM, change_check, -0.3, -0.1, synthetic=False, notebook="04_interventions")
    times = {nb: manifest.NotebookTimes(status="ran", wall_s=w, stages=[], peak_rss_mb=None, run_id="r",
                                        earlier_run=earlier, cells_s=0)
             for nb, w, earlier in (("05_authority_pilot_regression", 15.64, False), ("06_attribution_fairness", 3.0, True))}
    man = SimpleNamespace(stages=manifest.Stages(notebooks=times, total_s=18.64, this_run_s=15.64))
    assert claims.notebook_times(man) == {"05_authority_pilot_regression": "15.6 s", "06_attribution_fairness": "3.0 s (earlier run)"}
    counts = claims_plot.write_markdown(man)
    md = paths.CLAIMS.read_text()
    assert counts == {"held": 2, "contradicted": 0, "inconclusive": 0, "not applicable": 0}
    flip_row = next(line for line in md.splitlines() if line.startswith("| `ab-flip-vs-boost`"))
    assert "`./run_all.sh --only 05` (quick)" in flip_row and "| 15.6 s |" in flip_row
    assert "rate = 0.45 [" in flip_row and "vs above 0.3 (Wilson)" in flip_row
    assert "fifth = 5" in md and "fifth" not in flip_row
    lsb_row = next(line for line in md.splitlines() if line.startswith("| `lsb-temp-validity`"))
    assert "`./run_all.sh --only 04 --profile paper` (paper)" in lsb_row and "| not measured |" in lsb_row
    assert "**held** (synthetic)" in flip_row and "(synthetic)" not in lsb_row


def test_per_artifact_section_lists_the_claims_each_artifact_supports(isolated_outputs):
    claims.check(FLIP, _rate_above, {"rate": 0.45}, 0.3, synthetic=True, notebook="05_authority_pilot_regression")
    claims.check(DIRECTION, _rate_above, {"rate": 0.45}, 0.5, synthetic=True, notebook="05_authority_pilot_regression")
    per = claims.by_artifact(claims.records())
    assert list(per) == ["ab-tab5", "ab-tab6"]
    assert [r["id"] for r in per["ab-tab5"]] == ["ab-boosted-directional", "ab-flip-vs-boost"]
    assert [r["id"] for r in per["ab-tab6"]] == ["ab-boosted-directional"]
    md = claims.render_markdown(claims.records())
    section = md[md.index("## Claims per artifact"):]
    tab5 = next(line for line in section.splitlines() if line.startswith("| `ab-tab5`"))
    assert "`ab-boosted-directional` (inconclusive), `ab-flip-vs-boost` (held)" in tab5
    assert artifacts.REGISTRY["ab-tab5"].caption in tab5


def test_command_for_interactive_and_unnumbered_records():
    assert claims.command({"notebook": "06_attribution_fairness", "profile": "interactive"}) == "./run_all.sh --only 06"
    assert claims.command({"notebook": "05_authority_pilot_regression", "profile": "tests/data/tiny.yaml"}) == \
        "./run_all.sh --only 05 --profile tests/data/tiny.yaml"


def test_not_applicable_rows_show_the_reason(isolated_outputs):
    claims.check(FLIP, lambda: claims.not_applicable("fewer than two topics", {"topics": 1}), synthetic=True,
                 notebook="05_authority_pilot_regression")
    row = next(line for line in claims.render_markdown(claims.records()).splitlines() if line.startswith("| `ab-flip"))
    assert "**not applicable** (synthetic) | fewer than two topics |" in row


def test_forest_plot_draws_one_row_per_claim_in_outcome_colours(isolated_outputs):
    claims.check(FLIP, _rate_above, {"rate": 0.45}, 0.3, synthetic=True, notebook="05_authority_pilot_regression")
    claims.check(DIRECTION, _rate_above, {"rate": 0.45}, 0.5, synthetic=True, notebook="05_authority_pilot_regression")
    fig = claims_plot.forest(claims.records(), "t")
    ax = fig.axes[0]
    segs = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 2 and ln.get_linestyle() == "-"]
    colours = {ln.get_color() for ln in segs}
    assert claims_plot.COLOURS["held"] in colours and claims_plot.COLOURS["inconclusive"] in colours
    # the held row's interval lies right of the threshold line at 0, the inconclusive one across it
    by = {ln.get_color(): ln.get_xdata() for ln in segs}
    assert min(by[claims_plot.COLOURS["held"]]) > 0 > min(by[claims_plot.COLOURS["inconclusive"]])
    # a "below" claim is mirrored: its held interval is drawn on the right too
    t = {"estimate": -0.2, "low": -0.3, "high": -0.1, "threshold": 0.0, "side": "below", "published": -0.25}
    e, lo, hi, pub = claims_plot._scaled(t)
    assert (e, lo, hi, pub) == pytest.approx((2.0, 1.0, 3.0, 2.5))


def test_a_held_claim_is_drawn_on_its_directional_statistic():
    up = claims.interval("pooled", 0.3, 0.1, 0.5)
    same = claims.interval("at T=0", 0.0, -0.2, 0.2, 0.0, "not below")
    v = claims.judge([same, up])
    assert v.status == "held" and claims.deciding({"status": v.status, "tests": v.tests})["statistic"] == "pooled"


def test_an_inconclusive_row_says_when_the_deciding_sample_would_contradict_the_claim():
    """An estimate on the far side of the threshold (a boosted pick rate under its chance rate):
    the deciding size is the same formula, but that sample would decide against the claim."""
    far = claims.interval("boosted pick rate", 0.277, 0.259, 0.295, 0.283, "above", n=2395, unit="boosted cells",
                          design="one-sample")
    near = claims.interval("boosted pick rate", 0.289, 0.271, 0.307, 0.283, "above", n=2395, unit="boosted cells",
                           design="one-sample")
    assert far.outcome == near.outcome == "inconclusive"
    assert (far.leaning, near.leaning) == ("contradicted", "held")
    assert claims.interval("gap", -0.01, -0.05, 0.03, 0.0, "below", n=50).leaning == "held"
    # a significance test's larger sample only rejects: it never leans to a contradiction
    assert claims.significance("homogeneity", 0.2, test="χ²", n_needed=900.0).leaning == "held"
    cells = {name: claims.decide_cell({"status": "inconclusive", "decide": claims.judge([t]).decide})
             for name, t in (("far", far), ("near", near))}
    assert "would contradict the claim" in cells["far"] and "contradict" not in cells["near"]
    assert cells["far"].startswith(f"n ≈ {math.ceil(far.needed()):,} boosted cells (this run: 2,395)")
