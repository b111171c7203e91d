"""The claims ledger: verdicts, records, failures recorded as not applicable, claims.md."""
import json

import pytest

from lib import claims, paths

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
