"""benchmarks/claims_stability.py: the per-seed outcome table and its headline counts."""
import importlib.util
import io
import json

from lib import paths


def _bench():
    spec = importlib.util.spec_from_file_location("claims_stability", paths.ROOT / "benchmarks" / "claims_stability.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_flips_count_claims_held_at_one_seed_and_contradicted_at_another():
    b = _bench()
    runs = {1: {"a": "held", "b": "held", "c": "inconclusive", "d": "contradicted"},
            2: {"a": "held", "b": "contradicted", "c": "inconclusive", "d": "contradicted"},
            3: {"a": "inconclusive", "b": "held", "c": "held"}}
    out = io.StringIO()
    head = b.report([1, 2, 3], runs, {1: 10.0}, out=out)
    text = out.getvalue().splitlines()
    assert head == {"flips": 1, "contradicted": 2, "inconclusive_max": 1}
    assert "b: h c h outcomes" in text and "d: c c - outcomes" in text
    assert text[-3:] == ["flips: 1 claims", "contradicted: 2 claims", "inconclusive_max: 1 claims"]
    assert text[0] == "seed_1: 10.0 s; 2 held, 1 contradicted, 1 inconclusive, 0 not applicable"


def test_seeds_start_with_the_profiles_own_and_runs_are_read_from_records(tmp_path):
    b = _bench()
    assert b.seeds_for(20261130, 3) == [20261130, 4242, 1]
    assert b.seeds_for(4242, 2) == [4242, 1]
    rec = tmp_path / "outputs" / "records" / "claims"
    rec.mkdir(parents=True)
    (rec / "ab-x.json").write_text(json.dumps({"status": "inconclusive"}))
    assert b.outcomes(tmp_path) == {"ab-x": "inconclusive"} and b.outcomes(tmp_path / "none") == {}
