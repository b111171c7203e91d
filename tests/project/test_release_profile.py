"""The release profile (Tier A, issue 8 items 3-5): the missing-file messages and a smoke run.

Without the releases, params/release.yaml must stop at validation, naming every missing file
and where to get it. With a tiny synthetic release in the releases' layouts
(tests/release_fixture.py), the runner must rebuild what that release supports (notebooks
01 and 02 in import mode, 05 on the authority-bias release, 06 on the AttriBench CSVs), report
the rest missing, and open no network connection: a sitecustomize on the kernels' PYTHONPATH
refuses every AF_INET/AF_INET6 connect and logs it.
"""
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from lib import artifacts, config, paths
from lib.attribution import download
from lib.authority import corpus
from lib.groundtruth.release import RELEASE_FILES

import release_fixture as rf

RELEASE = yaml.safe_load((paths.PARAMS / "release.yaml").read_text())
KEYS = ("ground_truth_dir", "raw_responses_dir", "attribench_dir", "authority_dataset_dir")

NO_NETWORK = textwrap.dedent("""\
    # test-only: refuse and log every IP connection (the release profile must send no request)
    import os, socket
    _connect = socket.socket.connect
    def _refuse(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            with open(os.environ["RELEASE_TEST_CONNECT_LOG"], "a") as f:
                f.write(f"{os.getpid()} {address!r}\\n")
            raise ConnectionRefusedError(f"release profile test: no network ({address!r})")
        return _connect(self, address)
    socket.socket.connect = _refuse
    """)


def release_profile(tmp_path: Path, real_data: dict, **changes) -> Path:
    """params/release.yaml with its real_data pointed elsewhere (and other top-level keys changed)."""
    doc = {**RELEASE, "real_data": {k: (str(v) if v is not None else None) for k, v in real_data.items()}, **changes}
    p = tmp_path / "release-test.yaml"
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    return p


# ---- the profile itself ---------------------------------------------------------------------------
def test_release_yaml_collects_nothing_and_promises_only_release_artifacts(monkeypatch):
    monkeypatch.setattr(config, "release_problems", lambda key, path: [])     # as if downloads/ were complete
    prof = config.load_profile("release")
    assert not prof.synthetic and prof.llm.base_url is None
    assert {k: v for k, v in prof.real_data.model_dump().items()} == {
        "ground_truth_dir": "downloads/llmscholarbench-groundtruth", "raw_responses_dir": "downloads/llmscholarbench",
        "attribench_dir": "downloads/attribench", "authority_dataset_dir": "downloads/authority-bias"}
    assert prof.real_path("attribench_dir") == paths.ROOT / "downloads" / "attribench"
    assert prof.notebooks["01_calibration"]["source"] == prof.notebooks["02_collection"]["source"] == "release"
    promised = set(prof.promised_ids())
    # what no release holds: the AttriBench model responses, the twin-only proxies
    assert not promised & {"at-fig4", "at-fig8", "at-fig13", "at-fig16", "at-fig11", "at-fig12", "at-tab5"}
    assert {"lsb-fig2", "lsb-fig4", "lsb-fig5", "lsb-figA2", "ab-tab1", "ab-tab16", "ab-tab20", "ab-tab5", "ab-tab13",
            "at-tab2", "at-fig10"} <= promised


# ---- item 5: without the files, stop in seconds naming each one -----------------------------------
def test_missing_releases_are_listed_file_by_file_with_where_to_get_them(tmp_path):
    prof = release_profile(tmp_path, {k: tmp_path / "downloads" / k for k in KEYS})
    env = {**os.environ, "COMPANION_OUTPUTS": str(tmp_path / "outputs")}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(prof)], cwd=paths.ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    elapsed = time.perf_counter() - t0
    out = proc.stdout
    assert proc.returncode == 2 and out.startswith("profile error:"), out + proc.stderr
    assert elapsed < 20, f"validation should stop in seconds, took {elapsed:.1f} s"   # a hang guard, not a benchmark
    assert not (tmp_path / "outputs" / "executed").exists()          # no notebook started
    for f in download.FILES:                                          # each AttriBench file, with its source
        line = next(x for x in out.splitlines() if f"attribench_dir/{f.name} is missing" in x)
        assert "python -m lib.attribution.download" in line and download.COMMIT[:8] in line and f.path in line
    for name in ("scholar_papers.json", "experiment_sets.json", "results/*.json"):
        line = next(x for x in out.splitlines() if f"authority_dataset_dir/{name} is missing" in x)
        assert corpus.RELEASE_URL in line
    lsb = next(x for x in out.splitlines() if "key 'real_data.raw_responses_dir'" in x)
    assert "10.5281/zenodo.20417107" in lsb and "python -m lib.scholar.release import" in lsb
    gt = [x for x in out.splitlines() if "key 'real_data.ground_truth_dir'" in x]
    for f in RELEASE_FILES:
        assert any(f.name in x for x in gt), f.name


def test_validation_reports_every_release_at_once_in_process(tmp_path):
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(release_profile(tmp_path, {k: tmp_path / "nowhere" / k for k in KEYS}))
    text = str(exc.value)
    assert all(f"key 'real_data.{k}'" in text for k in KEYS)
    assert len([x for x in text.splitlines() if "attribench_dir" in x]) == len(download.FILES)


# ---- the check functions next to each loader -------------------------------------------------------
def test_attribench_check_names_missing_files_and_wrong_headers(tmp_path):
    assert len(download.check_release(tmp_path / "absent")) == 5
    assert "does not exist" in download.check_release(tmp_path / "absent")[0]
    written = rf.write_attribench_release(tmp_path / "ab", n_authors=200)
    specs = rf.attribench_specs(written)
    assert download.check_release(tmp_path / "ab", files=specs) == []
    named = {m.split(": ")[1].rsplit("/", 1)[-1] for m in download.check_release(tmp_path / "ab")}
    assert named == {f.name for f in download.FILES}                  # the fixture is not the release
    written[-1].unlink()                                              # universe_authors.csv
    (tmp_path / "ab" / "multirace_with_quotes.csv").write_text("author,quote\nA,B\n")
    msgs = download.check_release(tmp_path / "ab", files=specs)
    assert len(msgs) == 2
    assert "multirace_with_quotes.csv: header 'author,quote', expected the release's" in msgs[0]
    assert "universe_authors.csv is missing" in msgs[1] and "1_dataset_construction/universe_authors.csv" in msgs[1]


def test_released_pilot_rows(tmp_path):
    root = tmp_path / "authority-bias"
    rf.write_authority_release(root, topics=("Sentiment Analysis",), n_queries=1, models=("gpt-5.4",),
                               pilot_models=("llama3.1:8b",))
    rows = corpus.load_released_pilot(root)
    files = sorted((root / "results" / "1n_pilot").glob("1n_pilot_*.json"))
    raw = json.loads(files[0].read_text())["results"]
    assert len(raw) == 100 and len(rows) == sum(r["parse_success"] for r in raw) < 100
    first = next(r for r in raw if r["parse_success"] and not r["is_baseline"])
    got = rows[(rows["fixed_pos"] == first["fixed_paper_idx"] + 1) & (rows["source_pos"] == first["source_paper_idx"] + 1)]
    assert len(got) == 1 and got["venue"].iloc[0] == first["fixed_paper_wearing_meta"]["venue_score"]
    assert got["y"].iloc[0] == int(first["recommended_fixed_paper"]) and got["model"].iloc[0] == "llama3.1:8b"
    assert corpus.load_released_pilot(tmp_path / "nowhere") is None
    del raw[3]["fixed_paper_wearing_meta"]["venue_score"]
    raw[3]["parse_success"] = True
    files[0].write_text(json.dumps({"metadata": {}, "results": raw}))
    with pytest.raises(corpus.CorpusError, match=r"1n_pilot_llama3_1_8b_.*results\[3\]\.fixed_paper_wearing_meta lacks key 'venue_score'"):
        corpus.load_released_pilot(root)


def test_authority_check_names_each_missing_file(tmp_path):
    root = tmp_path / "ab"
    assert [m.split(" is missing")[0].split(f"{root}/")[-1] for m in corpus.check_release(root)] == [
        "scholar_papers.json", "experiment_sets.json", "results/*.json"]
    rf.write_authority_release(root, topics=("Sentiment Analysis",), n_queries=1, models=("gpt-5.4",))
    assert corpus.check_release(root) == []
    (root / "results" / "results_tiny.json").rename(root / "results" / "1n_pilot_x.json")
    (root / "experiment_sets.json").unlink()
    msgs = corpus.check_release(root)
    assert len(msgs) == 2 and "experiment_sets.json is missing" in msgs[0] and "besides 1n_pilot" in msgs[1]
    # a release unpacked with its data/ folder: say where to point the profile
    nested = tmp_path / "nested"
    (nested / "data").mkdir(parents=True)
    (root / "scholar_papers.json").rename(nested / "data" / "scholar_papers.json")
    (msg,) = corpus.check_release(nested)
    assert f"set authority_dataset_dir to {nested / 'data'}" in msg


# ---- the smoke run --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_release(tmp_path_factory):
    return rf.write_tiny_release(tmp_path_factory.mktemp("downloads"))


#: what the tiny release lets each notebook regenerate (the rest must be reported missing)
SUPPORTED = {
    "01_calibration": ["lsb-tab1", "lsb-tabA1", "lsb-figA2"],
    "02_collection": ["lsb-figA1"],
    "03_infrastructure_benchmark": [a.id for a in artifacts.by_notebook("03_infrastructure_benchmark")],
    "04_interventions": [a.id for a in artifacts.by_notebook("04_interventions")],
    "05_authority_pilot_regression": ["ab-tab1", "ab-tab16", "ab-tab20", "ab-tab2", "ab-tab3", "ab-tab4", "ab-tab5", "ab-tab6", "ab-tab7", "ab-tab8",
                                      "ab-tab9", "ab-tab10", "ab-tab11", "ab-tab12", "ab-tab13", "ab-tab14",
                                      "ab-tab15", "ab-tab17", "ab-tab18", "ab-tab19", "ab-tab22", "ab-tab23",
                                      "ab-quirks"],
    "06_attribution_fairness": ["at-tab1", "at-tab2", "at-tab2-rebalance", "at-tab3", "at-tab4", "at-tab6", "at-fig9",
                                "at-fig10"],
}
NOT_IN_ANY_RELEASE = ["ab-tab21", "at-fig4", "at-fig5", "at-fig6", "at-fig7",
                      "at-fig8", "at-fig13", "at-fig14", "at-fig15", "at-fig16"]


def _no_network_env(tmp_path: Path) -> dict:
    shim = tmp_path / "no_network"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(NO_NETWORK)
    return {**os.environ, "COMPANION_OUTPUTS": str(tmp_path / "outputs"), "COMPANION_CACHE": str(tmp_path / "cache"),
            "PYTHONPATH": os.pathsep.join([str(shim), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
            "RELEASE_TEST_CONNECT_LOG": str(tmp_path / "connect.log")}


# ---- issue 28 items 1 and 7: --only narrows validation and promises; one paper's release is enough --
def test_only_validates_the_releases_the_selected_notebooks_read(tmp_path):
    ab = tmp_path / "downloads" / "attribench"
    written = rf.write_attribench_release(ab, n_authors=200)
    prof = release_profile(tmp_path, {**{k: tmp_path / "nowhere" / k for k in KEYS}, "attribench_dir": ab},
                           accept_modified_releases=["attribench_dir"])
    with pytest.raises(config.ProfileError) as exc:                    # all six: the other releases are missing
        config.load_profile(prof)
    assert "raw_responses_dir" in str(exc.value) and "attribench_dir" not in str(exc.value)
    p = config.load_profile(prof, only=["06_attribution_fairness"])
    assert p.selected == ("06_attribution_fairness",)
    assert p.promised_ids() and {a[:3] for a in p.promised_ids()} == {"at-"}
    assert config.accepted_modifications(p)["attribench_dir"]          # what differs from the release, for the manifest
    with pytest.raises(config.ProfileError, match="intersectional_with_quotes.csv: size .* or accept the "
                                                  "modified copy with accept_modified_releases"):
        (tmp_path / "strict").mkdir()
        config.load_profile(release_profile(tmp_path / "strict", {"attribench_dir": ab}), only=["06_attribution_fairness"])
    # only the universe and the 300-matching files: no problem, a note per absent file
    for f in written[:2]:
        f.unlink()
    p = config.load_profile(prof, only=["06_attribution_fairness"])
    notes = config.release_notes(p)
    assert [n.split(" is missing")[0].rsplit("/", 1)[-1] for n in notes] == ["intersectional_with_quotes.csv",
                                                                          "multirace_with_quotes.csv"]
    with pytest.raises(config.ProfileError, match="only: unknown notebook"):
        config.load_profile(prof, only=["6"])


def test_paper_profile_only_05_06_promises_nothing_of_llmscholarbench(monkeypatch):
    prof = config.load_profile("paper", only=["05_authority_pilot_regression", "06_attribution_fairness"])
    assert prof.promised_ids() and {a[:3] for a in prof.promised_ids()} <= {"ab-", "at-"}
    monkeypatch.setenv("COMPANION_NOTEBOOK", "06_attribution_fairness")      # a notebook validates what its run did
    assert {a[:3] for a in config.load_profile("paper").promised_ids()} == {"at-"}
    monkeypatch.delenv("COMPANION_NOTEBOOK")
    assert {a[:4] for a in config.load_profile("paper").promised_ids()} >= {"lsb-", "ab-t", "at-t"}


def test_release_only_06_on_the_three_smaller_attribench_files(tmp_path):
    """Acceptance of items 1 and 7: only downloads/attribench, and in it only the universe and the two
    300-matching files; --only 06 runs, never names another release, rebuilds what the files support
    and names the two absent files with what they would add."""
    ab = tmp_path / "downloads" / "attribench"
    written = rf.write_attribench_release(ab, n_authors=600)
    for f in written[:2]:                                               # the two full datasets
        f.unlink()
    made = ["at-tab1", "at-tab2-rebalance", "at-tab3", "at-tab6", "at-fig9"]
    prof = release_profile(tmp_path, {**{k: tmp_path / "downloads" / k for k in KEYS}, "attribench_dir": ab},
                           promises=made, accept_modified_releases=["attribench_dir"], execution_timeout_s=600,
                           notebooks={"06_attribution_fairness": {"twin_authors": 800, "balancing_runs": 3,
                                                                  "n_matchings": 20}})
    env = _no_network_env(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(prof), "--only", "06"],
                          cwd=paths.ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert not Path(env["RELEASE_TEST_CONNECT_LOG"]).exists()
    for other in ("ground_truth_dir", "raw_responses_dir", "authority_dataset_dir", "zenodo", "huggingface"):
        assert other not in proc.stdout + proc.stderr, other
    for name in ("intersectional_with_quotes.csv", "multirace_with_quotes.csv"):
        line = next(x for x in proc.stdout.splitlines() if f"attribench/{name} is missing: it would add" in x)
        assert "at-tab2" in line and "at-tab4, at-fig10" in line and "python -m lib.attribution.download" in line
    man = json.loads((tmp_path / "outputs" / "manifest.json").read_text())
    status = {a["id"]: a for a in man["artifacts"]}
    assert [a for a in made if status[a]["status"] != "regenerated" or status[a]["synthetic"]] == []
    assert [a for a in ("at-tab2", "at-tab4", "at-fig10") if status[a]["status"] != "missing"] == []
    assert man["accepted_modified_releases"]["attribench_dir"]          # the override is on record


def test_release_profile_smoke_run_rebuilds_what_the_tiny_release_supports(tiny_release, tmp_path):
    notebooks = ["01_calibration", "02_collection", "03_infrastructure_benchmark", "04_interventions",
                 "05_authority_pilot_regression", "06_attribution_fairness"]
    real_data = {k: tiny_release[k] for k in KEYS}
    own = {"01_calibration": {"source": "release"}, "02_collection": {"source": "release"},
           "05_authority_pilot_regression": {"queries_per_topic": 10},
           "06_attribution_fairness": {"twin_authors": 800, "balancing_runs": 3, "n_matchings": 20}}
    promised = [a for nb in notebooks for a in SUPPORTED[nb]]
    prof = release_profile(tmp_path, real_data, promises=promised, notebooks=own, execution_timeout_s=600,
                           accept_modified_releases=["attribench_dir"])      # the tiny AttriBench is not the release
    shim = tmp_path / "no_network"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(NO_NETWORK)
    log = tmp_path / "connect.log"
    env = {**os.environ, "COMPANION_OUTPUTS": str(tmp_path / "outputs"), "COMPANION_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(shim), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "RELEASE_TEST_CONNECT_LOG": str(log)}
    probe = subprocess.run([sys.executable, "-c", "import socket; socket.create_connection(('127.0.0.1', 9), 1)"],
                           env=env, capture_output=True, text=True, timeout=60)
    assert "release profile test: no network" in probe.stderr and log.exists()    # the guard works
    log.unlink()
    only = ",".join(n[:2] for n in notebooks)
    proc = subprocess.run([sys.executable, "-m", "lib.pipeline", "--profile", str(prof), "--only", only],
                          cwd=paths.ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert not log.exists(), f"network connections attempted: {log.read_text()}"
    man = json.loads((tmp_path / "outputs" / "manifest.json").read_text())
    ran = {n["name"]: n["status"] for n in man["notebooks"]}
    assert [n for n in notebooks if ran[n] != "ran"] == []
    status = {a["id"]: a for a in man["artifacts"]}
    assert [a for a in promised if status[a]["status"] != "regenerated"] == []
    assert [a for a in promised if status[a].get("synthetic")] == []          # real-release artifacts, not synthetic
    assert [a for a in NOT_IN_ANY_RELEASE if status[a]["status"] != "missing"] == []
    raw = tmp_path / "outputs" / "raw"
    experiments = sorted(p.name for p in raw.iterdir() if p.is_dir()) if raw.is_dir() else []
    # only the imported release is in the raw store: no authority or AttriBench collection
    assert experiments == ["baseline", "rag", "temperature"]
    assert {json.loads(line)["client"] for e in experiments for f in (raw / e).glob("*.jsonl")
            for line in f.read_text().splitlines()} == {"lib.llm.release/1"}
