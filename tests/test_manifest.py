"""lib.manifest: the typed record writes the manifest.json the dict form wrote (keys, order, values),
reads it back, and a manifest.json with a missing field or a wrong type is an error naming the
file, the field and the expected type."""
import errno
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from lib import artifacts, config, manifest, paths, pipeline
from lib.llm import coverage
from lib.pipeline import NotebookRun

#: the dict form's top-level keys, in its order (run information first, flat)
TOP_KEYS = ["generated_at", "profile", "profile_path", "synthetic", "label", "accepted_modified_releases", "run_id",
            "git_commit", "git_dirty", "python", "numpy", "numpy_sort_kernel", "wall_s", "notebooks", "stages",
            "summary", "partial", "raw_store", "artifacts"]
BASE_KEYS = ["id", "paper", "kind", "notebook", "caption", "promised", "files", "sha256", "status"]
REGEN_KEYS = BASE_KEYS + ["synthetic", "label", "profile", "run_id", "saved_at", "input_hash", "notebook_wall_s",
                          "git_commit"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A fake run on the quick profile: 01 ran and saved lsb-tabA1, 02 was skipped (times from its
    earlier run), 03 failed; a partial model collected by 01 and one quarantined raw line."""
    mp = pytest.MonkeyPatch()
    out = tmp_path_factory.mktemp("manifest") / "outputs"
    mp.setenv("COMPANION_OUTPUTS", str(out))
    mp.setenv("COMPANION_CACHE", str(out.parent / "cache"))
    mp.setenv("COMPANION_PROFILE", "quick")
    import importlib
    importlib.reload(paths)
    try:
        artifacts.save_table(pd.DataFrame({"model": ["m"], "x": [1]}), "lsb-tabA1", synthetic=True)
        manifest.write_state("01_calibration", {"input_hash": "h01", "wall_s": 2.5, "git_commit": "abc"})
        manifest.write_state("02_collection", {"stages": [{"stage": "setup", "seconds": 1}], "wall_s": 4,
                                               "run_id": "old", "finished_at": "2026-01-01T00:00:00"})
        mp.setenv("COMPANION_NOTEBOOK", "01_calibration")
        coverage.write_coverage(paths.RAW, {("temperature_analysis", "dead"): [10, 3]})
        (paths.RAW / "quarantine.jsonl").write_text('{"shard": "s.jsonl", "line": 7, "reason": "not JSON"}\nbroken\n')
        runs = [NotebookRun("01_calibration", status="ran", wall_s=2.504, input_hash="h01",
                            stages=[{"stage": "setup", "seconds": 0.5}, {"stage": "Fit", "seconds": 1.25}],
                            peak_rss_mb=81.5),
                NotebookRun("02_collection", status="skipped", input_hash="h02"),
                NotebookRun("03_infrastructure_benchmark", status="failed", wall_s=1, error="cell 3: boom",
                            executed="executed/03_infrastructure_benchmark.ipynb", stages=[]),
                NotebookRun("04_interventions", status="not-selected")]
        prof = config.load_profile("quick")
        man = manifest.build(prof, runs, run_id="r1", wall_s=9.876,
                             upstream={"01_calibration": (), "02_collection": ("01_calibration",),
                                       "03_infrastructure_benchmark": ("02_collection",)})
        manifest.write(man)
        yield man, json.loads(paths.MANIFEST.read_text()), paths.MANIFEST.read_text(), prof
    finally:
        mp.undo()
        importlib.reload(paths)


def test_the_record_writes_the_dict_forms_keys_in_order(tiny_run):
    man, doc, _, prof = tiny_run
    assert list(doc) == TOP_KEYS                                    # no claims yet: left out, as before
    assert {k: doc[k] for k in ("profile", "synthetic", "label", "run_id", "wall_s", "accepted_modified_releases")} == \
        {"profile": "quick", "synthetic": True, "label": "synthetic", "run_id": "r1", "wall_s": 9.88,
         "accepted_modified_releases": {}}
    assert doc["profile_path"] == prof.path and doc["git_commit"] == man.run.git_commit
    assert doc["notebooks"][2] == {"name": "03_infrastructure_benchmark", "status": "failed", "wall_s": 1,
                                   "input_hash": "", "error": "cell 3: boom",
                                   "executed": "executed/03_infrastructure_benchmark.ipynb"}
    assert [n["name"] for n in doc["notebooks"]] == ["01_calibration", "02_collection", "03_infrastructure_benchmark",
                                                     "04_interventions"]


def test_stage_partial_and_raw_store_blocks_are_as_the_dict_form_had_them(tiny_run):
    _, doc, _, _ = tiny_run
    st = doc["stages"]
    assert st["notebooks"]["01_calibration"] == {
        "status": "ran", "wall_s": 2.5, "stages": [{"stage": "setup", "seconds": 0.5}, {"stage": "Fit", "seconds": 1.25}],
        "peak_rss_mb": 81.5, "run_id": "r1", "earlier_run": False, "cells_s": 1.75}
    # an earlier run's: its own run id and finish time, ints kept as ints
    assert st["notebooks"]["02_collection"] == {
        "status": "skipped", "wall_s": 4, "stages": [{"stage": "setup", "seconds": 1}], "peak_rss_mb": None,
        "run_id": "old", "earlier_run": True, "finished_at": "2026-01-01T00:00:00", "cells_s": 1}
    assert list(st["notebooks"]["03_infrastructure_benchmark"]) == ["status", "wall_s", "stages", "peak_rss_mb",
                                                                     "run_id", "earlier_run", "cells_s"]
    assert (st["total_s"], st["this_run_s"]) == (7.5, 3.5)
    assert doc["partial"] == [{"experiment": "temperature_analysis", "model": "dead", "planned": 10, "answered": 3,
                               "share": 0.3, "threshold": coverage.MIN_ANSWERED_SHARE, "notebook": "01_calibration",
                               "used_by": ["01_calibration", "02_collection", "03_infrastructure_benchmark"]}]
    assert doc["raw_store"] == {"quarantined_lines": 1, "quarantine": str(paths.RAW / "quarantine.jsonl"),
                                "first": ["s.jsonl line 7: not JSON"]}


def test_artifact_rows_and_summary_are_as_the_dict_form_had_them(tiny_run):
    _, doc, _, prof = tiny_run
    rows = {r["id"]: r for r in doc["artifacts"]}
    assert [r["id"] for r in doc["artifacts"]] == list(artifacts.REGISTRY)
    tab = rows["lsb-tabA1"]
    assert list(tab) == REGEN_KEYS + ["partial_models"]
    assert {k: tab[k] for k in REGEN_KEYS[:9]} == {**artifacts.as_dict(artifacts.REGISTRY["lsb-tabA1"]),
                                                   "promised": "lsb-tabA1" in prof.promised_ids(),
                                                   "files": ["tables/lsb-tabA1.csv", "tables/lsb-tabA1.tex"],
                                                   "sha256": tab["sha256"], "status": "regenerated"}
    assert (tab["synthetic"], tab["label"], tab["profile"], tab["input_hash"], tab["notebook_wall_s"],
            tab["git_commit"], tab["partial_models"]) == (True, "synthetic", "quick", "h01", 2.5, "abc", ["dead"])
    assert tab["sha256"]["tables/lsb-tabA1.csv"] == artifacts.sha256_file(paths.TABLES / "lsb-tabA1.csv")
    fig1 = rows["lsb-fig1"]                                           # a diagram
    assert list(fig1) == BASE_KEYS and fig1["status"] == "not-data" and fig1["files"] == [] and fig1["sha256"] == {}
    assert rows["lsb-fig2"]["status"] == "failed" and list(rows["lsb-fig2"]) == BASE_KEYS    # notebook 03 failed
    assert rows["ab-tab5"]["status"] == "missing" and list(rows["ab-tab5"]) == BASE_KEYS
    n_data = sum(a.notebook is not None for a in artifacts.REGISTRY.values())
    n_failed = sum(a.notebook == "03_infrastructure_benchmark" for a in artifacts.REGISTRY.values())
    promised = set(prof.promised_ids())
    assert doc["summary"] == {
        "regenerated": 1, "missing": n_data - 1 - n_failed, "failed": n_failed, "not-data": len(artifacts.REGISTRY) - n_data,
        "data_artifacts": n_data, "registered": len(artifacts.REGISTRY), "promised": len(promised),
        "promised_missing": sorted(promised - {"lsb-tabA1"}), "partial_models": 1}


def test_read_gives_back_the_record_and_the_same_file(tiny_run):
    man, doc, text, _ = tiny_run
    back = manifest.read(paths.MANIFEST)
    assert back == man and json.dumps(back.to_dict(), indent=1) == text
    assert back.summary.not_data == doc["summary"]["not-data"] and back.run.wall_s == 9.88
    with_claims = man.with_claims({"held": 2, "contradicted": 0})
    assert list(with_claims.to_dict()) == TOP_KEYS + ["claims"] and man.claims is None


def test_print_summary_reads_the_record(tiny_run):
    man, _, _, _ = tiny_run
    out = io.StringIO()
    code = manifest.print_summary(man.with_claims({"held": 2, "contradicted": 1}), out=out)
    text = out.getvalue()
    assert code == 1 and "\n1 of " in text and "claims: 2 held, 1 contradicted" in text
    assert "raw store: 1 malformed lines were moved to" in text and "PARTIAL: model dead" in text
    assert "03_infrastructure_benchmark: lsb-fig2" in text and "ERROR: profile quick promises" in text


def _bad(tmp_path: Path, doc: dict, change) -> str:
    doc = json.loads(json.dumps(doc))
    change(doc)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(manifest.ManifestReadError) as exc:
        manifest.read(path)
    return str(exc.value)


def test_a_missing_field_or_a_wrong_type_names_file_field_and_type(tiny_run, tmp_path):
    _, doc, _, _ = tiny_run
    where = str(tmp_path / "manifest.json")
    msg = _bad(tmp_path, doc, lambda d: d["summary"].pop("regenerated"))
    assert msg == f"{where}: field 'summary.regenerated': expected int (missing; Field required)"
    msg = _bad(tmp_path, doc, lambda d: d["summary"].update({"not-data": "7"}))
    assert msg.startswith(f"{where}: field 'summary.not-data': expected int (got '7'")
    msg = _bad(tmp_path, doc, lambda d: d.update(git_dirty="no"))
    assert msg.startswith(f"{where}: field 'git_dirty': expected bool (got 'no'")
    msg = _bad(tmp_path, doc, lambda d: d["artifacts"][3].update(status="done"))
    assert msg.startswith(f"{where}: field 'artifacts[3].status': expected Literal['regenerated', 'missing', "
                          "'failed', 'not-data'] (got 'done'")
    msg = _bad(tmp_path, doc, lambda d: d["stages"]["notebooks"]["01_calibration"]["stages"][0].pop("seconds"))
    assert msg.startswith(f"{where}: field 'stages.notebooks.01_calibration.stages[0].seconds': expected")
    msg = _bad(tmp_path, doc, lambda d: d.pop("raw_store"))
    assert msg == f"{where}: field 'raw_store': expected an object (RawStore) (missing; Field required)"
    assert _bad(tmp_path, doc, lambda d: d.update(colour="red")) == f"{where}: field 'colour': not a manifest field (misspelt, or from another version)"
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(manifest.ManifestReadError, match=f"{where}: not JSON"):
        manifest.read(tmp_path / "manifest.json")


def test_a_full_disk_while_writing_the_manifest_is_a_message(tiny_run, isolated_outputs, monkeypatch, capsys):
    """Issue 26: the runner died in manifest.write with a traceback on a full disk."""
    man = tiny_run[0]
    real = Path.write_text

    def full(self, *a, **k):
        if self.name.startswith("manifest"):
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, *a, **k)
    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(manifest.ManifestError, match="No space left on device; free space"):
        manifest.write(man)
    assert not list(paths.OUTPUTS.glob("manifest*"))
    monkeypatch.setattr(pipeline, "run", lambda *a, **k: manifest.write(man))
    monkeypatch.setattr(pipeline.signal, "signal", lambda *a: None)      # keep pytest's own handlers
    assert pipeline.main(["--profile", "quick"]) == 1
    err = capsys.readouterr().err
    assert "ERROR: could not write the manifest" in err and "Traceback" not in err
