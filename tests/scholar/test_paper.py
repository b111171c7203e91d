"""LLMScholarBench's declaration (lib/scholar/paper.py) against its notebooks and parts."""
from conftest import declaration_problems

from lib import config, paths, registry
from lib.scholar import models, plan
from lib.scholar.paper import PAPER


def test_the_declaration_is_what_the_notebooks_save():
    assert declaration_problems(PAPER) == []
    assert len(PAPER.artifacts) == 27 and [a.id for a in PAPER.artifacts if a.notebook is None] == ["lsb-fig1"]


def test_notebooks_run_in_the_papers_order_and_read_collection_and_sweep_outputs():
    assert [nb.name[:2] for nb in PAPER.notebooks] == ["01", "02", "03", "04"]
    nb = {n.name[:2]: n for n in PAPER.notebooks}
    assert nb["03"].upstream == ("02_collection",) and "02_collection/attempts.parquet" in nb["03"].reads
    assert set(nb["04"].upstream) == {"01_calibration", "02_collection"}
    assert [n.name for n in PAPER.notebooks if n.plans] == ["01_calibration", "02_collection"]


def test_releases_and_parts_are_the_packages_own():
    assert {r.key: r.module for r in PAPER.releases} == {"ground_truth_dir": "lib.groundtruth.release",
                                                        "raw_responses_dir": "lib.scholar.release"}
    assert registry.release_module("raw_responses_dir").__name__ == "lib.scholar.release"
    assert PAPER.prices().equals(models.prices(None))
    prof = config.load_profile(paths.TEST_DATA / "tiny.yaml")
    params = {**config.notebook_parameters("02_collection"), **prof.notebooks["02_collection"]}
    got, want = PAPER.notebook_plans(prof, "02_collection", params), plan.notebook_plans(prof, "02_collection", params)
    assert [len(p.requests) for p in got] == [len(p.requests) for p in want] and sum(len(p.requests) for p in got) > 0
