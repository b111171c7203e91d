"""lib.scholar.collection on a tiny LLMScholarBench release (Tier A, nothing sent): which store
experiments notebooks 01 and 02 read, the configurations an import keeps, the tables written; and
the label view of the selection rule and the ground truth D of notebooks 03 and 04."""
import pandas as pd
import pytest

import release_fixture as rf
from lib.scholar import calibration, collection, inputs, models


@pytest.fixture
def release_cfg(tmp_path, isolated_outputs, load_profile_text):
    from lib.groundtruth.world import build_world

    world = build_world(7, 60)
    gt = rf.write_ground_truth(tmp_path / "gt", world)
    rf.write_lsb_release(tmp_path / "raw", world.authors["display_name"].tolist(), seed=7)
    return load_profile_text(f"real_data: {{ground_truth_dir: {gt}, raw_responses_dir: {tmp_path / 'raw'}}}\n"), world


def test_the_release_sweep_and_runs_are_imported_and_labelled(release_cfg, tmp_path):
    cfg, world = release_cfg
    table = models.for_profile(cfg)
    grid = collection.SweepGrid(temperatures=[0.5], families=["top_k"], params_per_family=1, replicates=1,
                                gemini_replicates=1)
    sweep = collection.temperature_sweep(cfg, table, source="release", grid=grid)
    assert (sweep.source, sweep.experiments, sweep.requests) == ("release", ("temperature",), None)
    assert sweep.line.startswith("import ") and len(sweep.world.authors) == len(world.authors)
    sweep = collection.label(sweep, tmp_path)
    # the import keeps the configurations the release's sweep holds (not the grounded one, not the other 20)
    assert sorted(sweep.models["key"]) == sorted(m for m, _, _ in rf.LSB_MODELS if not m.endswith("-grounded"))
    assert set(sweep.attempts["temperature"]) == set(rf.SWEEP_TEMPERATURES)
    assert pd.read_parquet(tmp_path / "attempts.parquet").shape == sweep.attempts.shape
    assert pd.read_parquet(tmp_path / "names.parquet").shape == sweep.names.shape and sweep.names["matched"].any()
    design = collection.CollectionGrid(families=["top_k"], params_per_family=1, constrained_prompts=True, rag=True,
                                       runs=1)
    runs = collection.longitudinal_collection(cfg, table, source="release", temperature_source="nonsense", grid=design)
    assert runs.experiments == ("baseline", "rag")             # the release fixes the design: temperature_source unused
    with pytest.raises(ValueError, match="^02_collection: parameter source must be 'collect' or 'release'"):
        collection.longitudinal_collection(cfg, table, source="download", temperature_source="paper", grid=design)


def test_reference_dataset_is_the_release_when_the_profile_names_one(release_cfg):
    cfg, world = release_cfg
    d = inputs.reference_dataset(cfg)
    assert not d.synthetic and sorted(d.authors["display_name"]) == sorted(world.authors["display_name"])


def test_label_view_picks_labels_attempts_and_name_rows():
    att = pd.DataFrame({"valid_attempt": [True, False], "valid_attempt_paper": [False, True]})
    names = pd.DataFrame({"mode": ["faithful", "paper", "paper"], "name": ["a", "b", "c"]})
    a, n, col = calibration.label_view(att, names, "faithful")
    assert a is att and list(n["name"]) == ["a"] and col == "label"
    a, n, col = calibration.label_view(att, names, "paper")
    assert list(a["valid_attempt"]) == [False, True] and list(n["name"]) == ["b", "c"] and col == "label_paper"
    with pytest.raises(ValueError, match="label_mode must be 'faithful' or 'paper', got 'reference'"):
        calibration.label_view(att, names, "reference")


def test_a_real_endpoints_names_are_matched_against_the_profiles_ground_truth(release_cfg, tmp_path,
                                                                               load_profile_text):
    """A collection from a real endpoint (here a panel on a port, reached as any provider is) is
    labelled against ``real_data.ground_truth_dir``, as notebooks 03 and 04 measure; the embedded
    panel's against the synthetic world it serves."""
    from lib.panel import Panel
    from lib.panel.server import serve_in_thread

    _, world = release_cfg
    base_url, stop = serve_in_thread(Panel(7, world.authors))
    try:
        cfg = load_profile_text(f"llm: {{base_url: '{base_url}'}}\n"
                                f"real_data: {{ground_truth_dir: {tmp_path / 'gt'}}}\n")
        table = models.for_profile(cfg).head(1)
        # three replicates: one attempt may be invalid (no names to match), as any model's may
        grid = collection.SweepGrid(temperatures=[0.5], families=["top_k"], params_per_family=1, replicates=3,
                                    gemini_replicates=1)
        sweep = collection.temperature_sweep(cfg, table, source="collect", grid=grid)
    finally:
        stop()
    assert not sweep.world.synthetic
    assert sorted(sweep.world.authors["display_name"]) == sorted(world.authors["display_name"])
    labelled = collection.label(sweep, tmp_path / "out")
    assert not labelled.names.empty, "no valid attempt: nothing to match"
    assert labelled.names["matched"].any()


def test_label_through_the_stage_writes_the_declared_tables(isolated_outputs, monkeypatch):
    from lib import paths
    from lib.scholar import attempts as lsb_attempts
    from lib.stage import Stage

    att = pd.DataFrame({"model": ["m1"], "items": [[{"Name": "A"}]]})
    monkeypatch.setattr(lsb_attempts, "attempts_from_store", lambda models, e, requests: att)
    monkeypatch.setattr(lsb_attempts, "name_table", lambda attempts, authors: pd.DataFrame({"name": ["A"]}))
    responses = collection.Responses("collect", world=type("W", (), {"authors": None}), models=pd.DataFrame(),
                                     experiments=("interventions",), requests=[], line="")
    out = collection.label(responses, Stage("02_collection"))
    d = paths.stage_dir("02_collection")
    assert sorted(p.name for p in d.iterdir()) == ["attempts.parquet", "names.parquet"]
    assert pd.read_parquet(d / "attempts.parquet")["items"].tolist() == ['[{"Name": "A"}]']   # storable: JSON text
    assert out.names["name"].tolist() == ["A"]
    with pytest.raises(ValueError, match="03_infrastructure_benchmark: writes 'attempts.parquet'"):
        collection.label(responses, Stage("03_infrastructure_benchmark"))


def _attempts():
    return pd.DataFrame({
        "model": ["m1", "m1", "m1", "m2"], "task": ["top_k", "top_k", "field", "top_k"],
        "label": ["valid", "invalid", "valid", "valid"], "label_paper": ["valid", "valid", "valid", "refusal"],
        "base_url": "http://x", "requested_model": ["a", "a", "a", "b"],
        "served_model": ["a-1", "a-2", None, "b"], "provider": ["p", "p", "q", None],
        "system_fingerprint": [None, None, None, "fp"], "temperature": [0.5, 0.5, 0.5, 1.0], "grounded": False,
        "request_id": ["r1", "r1", "r2", "r3"], "attempt": [1, 2, 1, 1], "tries": [1, 3, 1, 2],
        "status": ["ok", "error", "ok", "ok"], "valid_attempt": [True, False, True, True],
        "total_tokens": [10, 20, 30, 40], "latency_s": [1.0, 2.0, 3.0, 4.0],
        "started_at": ["t2", "t1", "t3", "t5"], "finished_at": ["t3", "t2", "t4", "t6"]})


def test_label_counts_and_provenance_per_configuration():
    a = _attempts()
    c = collection.label_counts(a)
    assert c.loc[("m1", "top_k")].to_dict() == {"invalid": 1, "valid": 1}
    assert c.loc[("m2", "top_k"), "invalid"] == 0
    assert collection.label_counts(a, "label_paper").loc[("m2", "top_k"), "refusal"] == 1
    p = collection.provenance(a, synthetic=True).set_index("model")
    assert p.loc["m1", ["served_models", "providers", "fingerprints"]].tolist() == ["a-1, a-2", "p, q", ""]
    assert p.loc["m1", ["requests", "attempts", "http_tries", "failed_attempts", "valid_requests"]].tolist() == \
        [2, 3, 5, 1, 2]
    assert p.loc["m1", ["total_tokens", "mean_latency_s", "first_request", "last_request"]].tolist() == \
        [60, 2.0, "t1", "t4"]
    assert p.loc["m2", "fingerprints"] == "fp" and p["synthetic"].all() and list(p.columns)[-1] == "synthetic"
