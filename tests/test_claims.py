"""The claims ledger: verdicts, records, failures recorded as not applicable, claims.md."""
import json

import pytest

from lib import artifacts, claims, paths

CLAIM = claims.Claim("lsb-temp-validity", "llmscholarbench", "§4.2", "Higher temperature lowers validity.")


def slope_check(validity_by_t: dict) -> claims.Verdict:
    ts = sorted(validity_by_t)
    return claims.verdict(validity_by_t[ts[-1]] < validity_by_t[ts[0]],
                          {"validity at T=0": validity_by_t[ts[0]], "validity at T=2": validity_by_t[ts[-1]]})


def test_held_and_not_held_are_recorded_with_their_numbers(isolated_outputs, monkeypatch):
    monkeypatch.setenv("COMPANION_NOTEBOOK", "04_interventions")
    assert claims.check(CLAIM, slope_check, {0.0: 0.9, 2.0: 0.4}, synthetic=True).status == "held"
    rec = json.loads((paths.RECORDS / "claims" / "lsb-temp-validity.json").read_text())
    assert rec["numbers"] == {"validity at T=0": 0.9, "validity at T=2": 0.4} and rec["notebook"] == "04_interventions"
    assert claims.check(CLAIM, slope_check, {0.0: 0.4, 2.0: 0.9}, synthetic=True).status == "not held"
    assert [r["status"] for r in claims.records()] == ["not held"]


def test_a_failing_check_is_not_applicable_never_held(isolated_outputs):
    v = claims.check(CLAIM, slope_check, {}, synthetic=False)
    assert v.status == "not applicable" and "IndexError" in v.detail


def test_bad_status_and_unknown_paper_are_refused(isolated_outputs):
    with pytest.raises(ValueError, match="must be one of"):
        claims.Verdict("maybe")
    with pytest.raises(ValueError, match="unknown paper"):
        claims.check(claims.Claim("x", "nature", "§1", "s"), slope_check, {0: 1, 1: 0}, synthetic=True)


def test_markdown_groups_by_paper_and_flags_synthetic(isolated_outputs, monkeypatch):
    monkeypatch.setenv("COMPANION_NOTEBOOK", "05_authority_pilot_regression")
    flip = claims.Claim("ab-flip-rate", "authority_bias", "§5.1", "39.2% of recommendations flip.")
    claims.check(flip, lambda: claims.verdict(True, {"flip rate": 0.3921, "95% CI": (0.37, 0.41)}), synthetic=True)
    monkeypatch.setenv("COMPANION_NOTEBOOK", "04_interventions")
    claims.check(CLAIM, slope_check, {0.0: 0.9, 2.0: 0.4}, synthetic=True)
    counts = claims.write_markdown()
    md = paths.CLAIMS.read_text()
    assert counts == {"held": 2, "not held": 0, "not applicable": 0}
    assert md.index("## LLMScholarBench") < md.index("## Authority bias")
    assert "flip rate = 0.392; 95% CI = [0.37, 0.41]" in md and "**held** (synthetic)" in md
    claims.clear("05_authority_pilot_regression")
    assert [r["id"] for r in claims.records()] == ["lsb-temp-validity"]


FLIP = claims.Claim("ab-flip-vs-boost", "authority_bias", "§5.1", "39.2% flip vs 21.7% boost.", ("ab-tab5",))
DIRECTION = claims.Claim("ab-boosted-directional", "authority_bias", "§5.2", "68.2% toward higher.", ("ab-tab5", "ab-tab6"))


def _rate_above(table, threshold):
    return claims.verdict(table["rate"] > threshold, {"rate": table["rate"], "threshold": threshold, "n": 10,
                                                      "CI": (0.1, 0.9), "fifth": 5})


def test_run_checks_judges_tables_and_marks_missing_ones_not_applicable(isolated_outputs):
    checks = (claims.Check(FLIP, _rate_above, ("tab5",), "05_authority_pilot_regression", {"threshold": 0.3}),
              claims.Check(DIRECTION, _rate_above, ("tab6",), "05_authority_pilot_regression", {"threshold": 0.5}))
    v = claims.run_checks(checks, {"tab5": {"rate": 0.4}, "tab6": None}, synthetic=True)
    assert v["ab-flip-vs-boost"].status == "held"
    assert v["ab-boosted-directional"].status == "not applicable" and "['tab6']" in v["ab-boosted-directional"].detail
    recs = {r["id"]: r for r in claims.records()}
    assert recs["ab-flip-vs-boost"]["notebook"] == "05_authority_pilot_regression"
    assert recs["ab-flip-vs-boost"]["artifacts"] == ["ab-tab5"]
    assert claims.run_checks(checks, {"tab5": {"rate": 0.2}}, synthetic=True)["ab-flip-vs-boost"].status == "not held"
    assert claims.run_checks(checks, {}, synthetic=True, notebook="03_infrastructure_benchmark") == {}
    with pytest.raises(ValueError, match="twice"):
        claims.run_checks(checks + checks[:1], {}, synthetic=True)


def test_unknown_artifact_id_is_refused(isolated_outputs):
    bad = claims.Claim("ab-x", "authority_bias", "§1", "s", ("ab-tab99",))
    with pytest.raises(ValueError, match="not registered"):
        claims.check(bad, lambda: claims.verdict(True, {}), synthetic=True)


def test_markdown_shows_command_profile_and_measured_time_per_claim(isolated_outputs, monkeypatch):
    monkeypatch.setenv("COMPANION_PROFILE", "quick")
    claims.check(FLIP, _rate_above, {"rate": 0.4}, 0.3, synthetic=True, notebook="05_authority_pilot_regression")
    monkeypatch.setenv("COMPANION_PROFILE", "paper")
    claims.check(CLAIM, slope_check, {0.0: 0.9, 2.0: 0.4}, synthetic=False, notebook="04_interventions")
    man = {"stages": {"notebooks": {"05_authority_pilot_regression": {"wall_s": 15.64, "earlier_run": False},
                                    "06_attribution_fairness": {"wall_s": 3.0, "earlier_run": True}}}}
    assert claims.notebook_times(man) == {"05_authority_pilot_regression": "15.6 s", "06_attribution_fairness": "3.0 s (earlier run)"}
    counts = claims.write_markdown(man)
    md = paths.CLAIMS.read_text()
    assert counts == {"held": 2, "not held": 0, "not applicable": 0}
    flip_row = next(line for line in md.splitlines() if line.startswith("| `ab-flip-vs-boost`"))
    assert "`./run_all.sh --only 05` (quick)" in flip_row and "| 15.6 s |" in flip_row
    # only the first KEY_NUMBERS numbers in the table, all of them in the details
    assert "threshold = 0.3" in flip_row and "fifth" not in flip_row and flip_row.count("…") == 1
    assert "fifth = 5" in md
    lsb_row = next(line for line in md.splitlines() if line.startswith("| `lsb-temp-validity`"))
    assert "`./run_all.sh --only 04 --profile paper` (paper)" in lsb_row and "| not measured |" in lsb_row
    assert "**held** (synthetic)" in flip_row and "(synthetic)" not in lsb_row


def test_per_artifact_section_lists_the_claims_each_artifact_supports(isolated_outputs):
    claims.check(FLIP, _rate_above, {"rate": 0.4}, 0.3, synthetic=True, notebook="05_authority_pilot_regression")
    claims.check(DIRECTION, _rate_above, {"rate": 0.4}, 0.5, synthetic=True, notebook="05_authority_pilot_regression")
    per = claims.by_artifact(claims.records())
    assert list(per) == ["ab-tab5", "ab-tab6"]
    assert [r["id"] for r in per["ab-tab5"]] == ["ab-boosted-directional", "ab-flip-vs-boost"]
    assert [r["id"] for r in per["ab-tab6"]] == ["ab-boosted-directional"]
    md = claims.render_markdown(claims.records())
    section = md[md.index("## Claims per artifact"):]
    tab5 = next(line for line in section.splitlines() if line.startswith("| `ab-tab5`"))
    assert "`ab-boosted-directional` (not held), `ab-flip-vs-boost` (held)" in tab5
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
