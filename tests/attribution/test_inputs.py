"""lib.attribution.inputs: notebook 06's choices fail at profile validation; when the models are asked."""
import pandas as pd
import pytest

from lib import config
from lib.attribution import inputs

NB = "06_attribution_fairness"


def test_bad_choices_fail_at_profile_validation(load_profile_text):
    with pytest.raises(config.ProfileError) as exc:
        load_profile_text(f"notebooks: {{{NB}: {{significance_test: t, rag_subset_models: [gpt-5.1, gpt-2]}}}}\n")
    msg = str(exc.value)
    assert f"key 'notebooks.{NB}.significance_test': expected 'z' or 'welch', got 't'" in msg
    assert "rag_subset_models': unknown model(s) ['gpt-2']" in msg
    with pytest.raises(ValueError, match=f"{NB}: parameter prompt_family: expected 'reference' or 'providers' or 'together'"):
        inputs.check(prompt_family="openai")


def test_models_are_asked_only_with_an_endpoint(load_profile_text):
    cfg = load_profile_text()
    assert inputs.run_models(cfg)
    real = cfg.model_copy(update={"synthetic": False})
    assert not inputs.run_models(real)
    assert inputs.run_models(real.model_copy(update={"llm": real.llm.model_copy(update={"base_url": "http://x/v1"})}))
    assert inputs.released(cfg, False, runs=1, lam=1.0) is None


def test_a_real_profile_without_the_attribench_release_stops_unless_mixed(load_profile_text):
    """issue 16: synthetic: false without real_data.attribench_dir (or with use_released_data false):
    notebook 06 would stand the synthetic twin in for the release."""
    cfg = load_profile_text("llm: {base_url: 'http://127.0.0.1:9/v1'}\n")
    real = cfg.model_copy(update={"synthetic": False})
    (msg,) = inputs.profile_errors(real, "p.yaml")
    assert msg.startswith("p.yaml: key 'real_data.attribench_dir': synthetic: false, but it is null")
    assert "python -m lib.attribution.download" in msg and "synthetic: mixed" in msg
    given = real.model_copy(update={"real_data": real.real_data.model_copy(update={"attribench_dir": "downloads/ab"})})
    assert inputs.profile_errors(given, "p.yaml") == []
    off = given.model_copy(update={"notebooks": {NB: {"use_released_data": False}}})
    (msg,) = inputs.profile_errors(off, "p.yaml")
    assert f"notebooks.{NB}.use_released_data is false" in msg
    assert inputs.profile_errors(cfg.model_copy(update={"synthetic": "mixed"}), "p.yaml") == []
    assert inputs.profile_errors(cfg, "p.yaml") == []


def _build(source: str, *kinds: str):
    from lib.attribution import build

    q = pd.DataFrame({"quote": ["q"], "author_clean": ["a"]})
    return build.Build(source, pd.DataFrame({"author_clean": ["a"]}), datasets={k: q for k in kinds}, quotes=q)


@pytest.mark.parametrize("released_kinds, described, asked", [
    (None, "twin", "twin"),                                           # no release: the twin throughout
    ((), "released", "twin"),                                         # the universe only
    (("intersectional",), "released", "twin"),                        # one quote file: described, not asked
    (("intersectional", "multirace"), "released", "released"),        # both: the release throughout
])
def test_one_source_rule_the_release_is_described_when_there_and_asked_only_with_both_datasets(
        released_kinds, described, asked):
    twin = _build("twin", "intersectional", "multirace")
    rel = None if released_kinds is None else _build("released", *released_kinds)
    s = inputs.Sources(twin, rel)
    assert s.described.source == described and s.asked.source == asked
    assert s.asked.synthetic is (asked == "twin")
    assert s.described.synthetic is (described == "twin")
    assert s.line().splitlines()[1] == ("released files: not downloaded (synthetic twin only)" if rel is None
                                        else "released files: used")


def test_the_dry_run_and_the_runs_ask_the_same_source(monkeypatch, load_profile_text):
    """runs.notebook_plans and evaluation.collect both read Sources.asked: a release with one quote
    file leaves the dry run's plan on the twin, as the runs."""
    from lib.attribution import runs

    cfg = load_profile_text()
    monkeypatch.setattr(inputs, "released", lambda *a, **k: _build("released", "intersectional"))
    seen = {}
    monkeypatch.setattr(runs, "paper_plan", lambda src, **k: seen.setdefault("src", src) and (_ for _ in ()).throw(
        RuntimeError("stop")))
    with pytest.raises(RuntimeError, match="stop"):
        runs.notebook_plans(cfg, NB, {"twin_authors": 600, "n_matchings": 10, "balancing_runs": 2, "run_matchings": 1,
                                      "generations": 1})
    assert seen["src"].source == "twin" and set(seen["src"].datasets) == {"intersectional", "multirace"}
