"""Notebook 05's pilot and main experiment on a tiny authority-bias release (Tier A, nothing sent):
the release's pilot runs and answers are read, and a release without pilot files makes an absent
pilot whose tables are None (the manifest then reports them missing) and whose weights are the given ones."""
import shutil

import pytest

import release_fixture as rf
from lib.authority import corpus, flip_pilot, inputs, intermediate, main_experiment
from lib.authority.conditions import build_candidate_sets

GIVEN = {"venue": 0.2, "median_h": 0.2, "max_h": 0.2, "citations": 0.2, "affiliation": 0.2}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    root = tmp_path_factory.mktemp("authority") / "release"
    rf.write_authority_release(root, topics=("Sentiment Analysis",), n_queries=1, models=("gpt-5.4", "llama3.1:8b"),
                               pilot_models=("llama3.1:8b",))
    return root


def released(cfg, root):
    res = inputs.resolve(cfg, corpus_source=str(root))
    return res, inputs.load_corpus(cfg, res)


def test_the_release_pilot_is_read_and_its_weights_define_the_conditions(release, load_profile_text, capsys):
    cfg = load_profile_text()
    res, paper_corpus = released(cfg, release)
    assert not res.collect                                     # no endpoint: nothing is asked
    p = flip_pilot.collect(cfg, res, paper_corpus, topics=[], n_queries=1, design="reference", parse_mode="faithful",
                           api_ids={})
    assert p.rows.equals(corpus.load_released_pilot(release)) and "read from the release" in capsys.readouterr().out
    assert flip_pilot.table16(p) is None                       # not analysed yet
    p = flip_pilot.analyse(p, method="mle", averaging="general")
    assert list(flip_pilot.table16(p)["predictor"]) == list(p.result.fit.predictors)
    assert list(flip_pilot.table1(p)["weight"]) == sorted(p.result.weights.values(), reverse=True)
    assert set(flip_pilot.table20(p)["predictor"]) >= {"author_score"} and flip_pilot.table20(p) is p.tab20
    five, t16 = p.tab20.dropna(subset=["beta_5"]), flip_pilot.table16(p)   # Table 20's 5-predictor fit is Table 16's
    assert list(five["predictor"]) == list(t16["predictor"]) and set(t16["method"]) == {"mle"}
    assert five["beta_5"].tolist() == pytest.approx(t16["beta_std"].tolist())
    assert five["dominance_5"].tolist() == pytest.approx(t16["dominance_r2"].tolist())   # general, as analysed
    assert list(flip_pilot.rank_stability(p)["model"]) == ["llama3.1:8b"]
    assert flip_pilot.weights(p, "pilot", GIVEN) == p.result.weights
    assert flip_pilot.weights(p, "given", GIVEN) == GIVEN


def test_a_release_without_pilot_files_makes_an_absent_pilot(release, tmp_path, load_profile_text, capsys):
    root = tmp_path / "release"
    shutil.copytree(release, root)
    shutil.rmtree(root / "results" / "1n_pilot")
    cfg = load_profile_text()
    res, paper_corpus = released(cfg, root)
    p = flip_pilot.analyse(flip_pilot.collect(cfg, res, paper_corpus, topics=[], n_queries=1, design="reference",
                                              parse_mode="faithful", api_ids={}), method="gd", averaging="subsets")
    assert "pilot skipped" in capsys.readouterr().out
    assert p.rows is None and p.result is None and len(p.requests) == 100     # the prompts are still built
    assert [f(p) for f in (flip_pilot.table16, flip_pilot.table1, flip_pilot.table20, flip_pilot.rank_stability)] == [
        None] * 4
    assert flip_pilot.weights(p, "pilot", GIVEN) == GIVEN


def test_the_release_answers_fix_the_models_and_no_ablation_means_no_table21(release, tmp_path, load_profile_text,
                                                                             capsys):
    cfg = load_profile_text()
    res, paper_corpus = released(cfg, release)
    conds = inputs.load_conditions(cfg, res, paper_corpus, GIVEN)
    main = main_experiment.collect(cfg, res, paper_corpus, conds, n_queries=1, api_ids={})
    assert main.models == main.headline == ("gpt-5.4", "llama3.1:8b") and main.ablation == "gpt-4o-mini"
    every, headline = main_experiment.label(main, paper_corpus, conds, parse_mode="faithful")
    assert len(every) == len(main.raw) == 2 * 9 and headline.equals(every)
    assert main_experiment.tier_ablation(main, every) is None
    assert "tier ablation skipped: no answers from a tier-ablation model (gpt-4o-mini)" in capsys.readouterr().out
    files = intermediate.write(tmp_path, paper_corpus=paper_corpus, candidates=build_candidate_sets(paper_corpus, seed=1),
                               conds=conds, pilot_requests=main.requests, main_requests=main.requests,
                               pilot_rows=None, responses=every)
    assert "pilot_rows.parquet" not in files and {"responses.parquet", "main_requests.parquet"} <= set(files)


def test_the_switches_set_the_pilot_design(release, load_profile_text):
    cfg = load_profile_text()
    res = inputs.resolve(cfg, corpus_source=str(release), switches=inputs.Switches(pilot_design="shared_content"))
    paper_corpus = inputs.load_corpus(cfg, res)
    p = flip_pilot.collect(cfg, res, paper_corpus, topics=[], n_queries=1, api_ids={})
    # the design is in every request id, so reference prompts would not be equal
    assert p.requests.equals(flip_pilot.requests(paper_corpus, topics=[], n_queries=1, seed=cfg.seed,
                                                 design="shared_content"))
    assert p.tab20 is None and flip_pilot.table20(p) is None                      # not analysed yet


def test_corrected_prompts_are_the_same_requests_with_corrected_cards_and_stages_are_written(release, tmp_path,
                                                                                         load_profile_text):
    from lib.authority import prompts

    cfg = load_profile_text()
    res, paper_corpus = released(cfg, release)
    conds = inputs.load_conditions(cfg, res, paper_corpus, GIVEN)
    main = main_experiment.collect(cfg, res, paper_corpus, conds, n_queries=1, api_ids={})
    assert main.n_queries == 1
    got = main_experiment.corrected_prompts(cfg, main, paper_corpus, conds)
    assert got.equals(prompts.build_main_requests(paper_corpus, n_queries=1, seed=cfg.seed, condition_set=conds,
                                                  prompt_mode="corrected"))
    assert list(got["request_id"]) == list(main.requests["request_id"])
    every, _ = main_experiment.label(main, paper_corpus, conds, parse_mode="faithful")
    p = flip_pilot.collect(cfg, res, paper_corpus, topics=[], n_queries=1, api_ids={})
    files = intermediate.write_stages(paper_corpus, build_candidate_sets(paper_corpus, seed=1), conds, p, main, every,
                                      out_dir=tmp_path / "stage")
    assert files == sorted(f.name for f in (tmp_path / "stage").glob("*.parquet"))
    assert {"pilot_rows.parquet", "pilot_requests.parquet", "responses.parquet"} <= set(files)
