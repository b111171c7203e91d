"""``outputs/manifest.json``: what was regenerated, from which inputs, by which run, how fast.

Status per registered artifact:
- ``regenerated``: a save record exists and every file it lists is on disk with the recorded sha256;
- ``failed``: its notebook failed in this run;
- ``missing``: its notebook has not produced it (not written yet, not run, or it did not save it);
- ``not-data``: a diagram, no file expected.

``numpy``: the version the notebooks' kernel (this environment) sorted with, and
``numpy_sort_kernel`` the CPU's SIMD sort kernel it dispatched to (lib.sortkernel); the faithful
tie rules among equally good candidates depend on both (lib.scholar.quirks, lib.attribution.quirks).

A model that answered too few of its requests (the raw store's ``coverage.json``) is listed in
``partial``, and every regenerated artifact that uses it carries ``partial_models``.

``stages`` (:func:`stage_block`): per notebook its wall time, its stage times and its kernel's
peak memory, from this run or, for a notebook skipped as unchanged, from the earlier run that
made its outputs (``earlier_run: true``, with that run's id and finish time).

The manifest is a typed record (:class:`Manifest`, one field per block); :meth:`Manifest.to_dict`
is the JSON form, the run information flat at the top as the file has always had it, and
:func:`read` loads a manifest.json back, naming the file, the field and the expected type when one
is missing or wrong. A key a block may leave out (a missing artifact has no ``label``) is left
out of the file exactly when it was not given.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal, Union, get_args

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lib import artifacts, config, paths, sortkernel

#: a measured number as JSON has it: an int stays an int, a float a float (the file is unchanged)
Num = Union[int, float]
Status = Literal["regenerated", "missing", "failed", "not-data"]


class _Block(BaseModel):
    # strict: a "3" where a count belongs is an error, not a 3; forbid: a misspelt key too
    model_config = ConfigDict(frozen=True, strict=True, extra="forbid", populate_by_name=True)

    def to_dict(self) -> dict:
        """The JSON form: keys in field order, an optional key only when it was given."""
        return self.model_dump(by_alias=True, exclude_unset=True)


class RunInfo(_Block):
    """Which run, of which profile and code, on which numpy (the top of the file)."""

    generated_at: str
    profile: str
    profile_path: str
    synthetic: Union[bool, Literal["mixed"]]
    label: str
    accepted_modified_releases: dict[str, list[str]]
    run_id: str
    git_commit: str
    git_dirty: bool
    python: str
    numpy: str
    numpy_sort_kernel: str
    wall_s: Num


class NotebookEntry(_Block):
    """One notebook of this run: ``status`` ran | skipped | failed | absent | not-selected."""

    name: str
    status: str
    wall_s: Num
    input_hash: str
    error: str
    executed: str


class StageTime(_Block):
    stage: str
    seconds: Num


class NotebookTimes(_Block):
    """A notebook's times (:func:`stage_block`); ``finished_at`` only for an earlier run's."""

    status: str
    wall_s: Num
    stages: list[StageTime]
    peak_rss_mb: Num | None
    run_id: str
    earlier_run: bool
    finished_at: str = ""
    cells_s: Num


class Stages(_Block):
    notebooks: dict[str, NotebookTimes]
    total_s: Num
    this_run_s: Num


class Summary(_Block):
    regenerated: int
    missing: int
    failed: int
    not_data: int = Field(alias="not-data")
    data_artifacts: int
    registered: int
    promised: int
    promised_missing: list[str]
    partial_models: int


class PartialModel(_Block):
    """A model under the coverage threshold and the notebooks whose artifacts use it."""

    experiment: str
    model: str
    planned: int
    answered: int
    share: Num
    threshold: Num
    notebook: str | None
    used_by: list[str]


class RawStore(_Block):
    """The raw store's quarantine: ``quarantine`` and ``first`` only when lines were moved aside."""

    quarantined_lines: int
    quarantine: str = ""
    first: list[str] = []


class ArtifactRow(_Block):
    """One registered artifact; the fields after ``status`` only for a regenerated one (from its
    save record and its notebook's state), ``partial_models`` only when it uses a partial model."""

    id: str
    paper: str
    kind: Literal["figure", "table", "text", "diagram"]
    notebook: str | None
    caption: str
    promised: bool
    files: list[str]
    sha256: dict[str, str]
    status: Status
    synthetic: Union[bool, Literal["mixed"]] = False
    label: str = ""
    profile: str = ""
    run_id: str = ""
    saved_at: str = ""
    input_hash: str = ""
    notebook_wall_s: Num | None = None
    git_commit: str = ""
    partial_models: list[str] = []


class Manifest(_Block):
    """``outputs/manifest.json`` as a record; ``claims`` (verdict counts) only once the ledger is written."""

    run: RunInfo
    notebooks: list[NotebookEntry]
    stages: Stages
    summary: Summary
    partial: list[PartialModel]
    raw_store: RawStore
    artifacts: list[ArtifactRow]
    claims: dict[str, int] | None = None

    def to_dict(self) -> dict:
        out = super().to_dict()
        return {**out.pop("run"), **out}

    def with_claims(self, counts: dict[str, int]) -> "Manifest":
        """This manifest with the ledger's verdict counts."""
        return self.model_copy(update={"claims": dict(counts)})


class ManifestReadError(ValueError):
    """A manifest.json that is not a :class:`Manifest` (a field missing or of the wrong type)."""


def _type_name(ann: Any) -> str:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return f"an object ({ann.__name__})"
    return getattr(ann, "__name__", None) if isinstance(ann, type) else str(ann).replace("typing.", "")


def _expected(loc: tuple) -> tuple[str, str]:
    """(dotted field name, expected type) of a pydantic error location (union member tags dropped)."""
    ann: Any = Manifest
    name = ""
    for part in loc:
        if isinstance(ann, type) and issubclass(ann, BaseModel) and isinstance(part, str):
            field = next((f for n, f in ann.model_fields.items() if part in (n, f.alias)), None)
            if field is None:
                break
            ann, name = field.annotation, name + ("" if part == "run" else f".{field.alias or part}")
        elif isinstance(part, int) or (isinstance(part, str) and getattr(ann, "__origin__", None) is dict):
            ann, name = get_args(ann)[-1], name + (f"[{part}]" if isinstance(part, int) else f".{part}")
        else:
            break
    return name.lstrip("."), _type_name(ann)


def from_dict(data: Any, where: str = "manifest") -> Manifest:
    """The record of a manifest's JSON form; :class:`ManifestReadError` naming ``where``, the field
    and the expected type."""
    if not isinstance(data, dict):
        raise ManifestReadError(f"{where}: expected a JSON object, got {type(data).__name__}")
    run_keys = set(RunInfo.model_fields)
    run = {k: v for k, v in data.items() if k in run_keys}
    try:
        return Manifest.model_validate({"run": run, **{k: v for k, v in data.items() if k not in run_keys}})
    except ValidationError as exc:
        msgs = []
        for e in exc.errors():
            field, want = _expected(e["loc"])
            if e["type"] == "extra_forbidden":
                field = ".".join(str(p) for p in e["loc"] if p != "run")
                msgs.append(f"{where}: field {field!r}: not a manifest field (misspelt, or from another version)")
                continue
            got = "missing" if e["type"] == "missing" else f"got {e['input']!r}"[:80]
            msgs.append(f"{where}: field {field!r}: expected {want} ({got}; {e['msg']})")
        raise ManifestReadError("\n".join(dict.fromkeys(msgs))) from None


def read(path: Path | None = None) -> Manifest:
    """Load ``path`` (default ``outputs/manifest.json``) as a :class:`Manifest`."""
    path = Path(path or paths.MANIFEST)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ManifestReadError(f"{path}: not JSON ({exc})") from None
    return from_dict(data, str(path))


def git_commit() -> tuple[str, bool]:
    """(HEAD commit, whether the work tree has uncommitted changes); ('unknown', False) outside git."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=paths.ROOT, capture_output=True,
                              text=True, timeout=10)
        head = proc.stdout.strip() if proc.returncode == 0 else ""
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "lib", "notebooks", "params"], cwd=paths.ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip() != ""
        return head or "unknown", dirty
    except (OSError, subprocess.SubprocessError):
        return "unknown", False


def _record(artifact_id: str) -> dict | None:
    p = paths.RECORDS / f"{artifact_id}.json"
    return json.loads(p.read_text()) if p.is_file() else None


def _files_intact(rec: dict) -> bool:
    for rel, digest in rec["sha256"].items():
        f = paths.OUTPUTS / rel
        if not f.is_file() or artifacts.sha256_file(f) != digest:
            return False
    return True


def state_path(notebook: str) -> Path:
    """The run-state file of ``notebook`` (input hash, digests, times, produced artifacts)."""
    return paths.STATE / f"{notebook}.json"


def read_state(notebook: str) -> dict:
    """The last run's state of ``notebook`` ({} before its first run)."""
    p = state_path(notebook)
    return json.loads(p.read_text()) if p.is_file() else {}


def write_state(notebook: str, state: dict) -> None:
    """Record a finished run of ``notebook`` (the pipeline calls it once per run)."""
    paths.ensure(paths.STATE)
    state_path(notebook).write_text(json.dumps(state, indent=1))


def stage_block(runs: list, run_id: str) -> Stages:
    """The manifest's timing block: ``{"notebooks": {name: entry}, "total_s": s, "this_run_s": s}``.

    ``entry``: ``status``, ``wall_s`` (the whole papermill call: kernel start, cells, saving),
    ``stages`` (``[{"stage", "seconds"}]``, :func:`lib.pipeline.stage_times`), ``cells_s`` (their
    sum), ``peak_rss_mb`` (the kernel's peak resident memory, None if unknown), ``run_id`` and
    ``earlier_run`` (True when the notebook was skipped and the times are those of the run that
    made its outputs). ``total_s`` sums every listed notebook's wall time, ``this_run_s`` only
    those executed now. Notebooks neither run nor skipped (absent, not selected) are left out;
    a skipped notebook whose state has no times (written before times were recorded) too.
    """
    notebooks = {}
    for r in runs:
        if r.status in ("ran", "failed"):
            entry = {"status": r.status, "wall_s": round(r.wall_s, 2), "stages": r.stages,
                     "peak_rss_mb": r.peak_rss_mb, "run_id": run_id, "earlier_run": False}
        elif r.status == "skipped":
            st = read_state(r.name)
            if "stages" not in st:
                continue
            entry = {"status": "skipped", "wall_s": st.get("wall_s", 0.0), "stages": st["stages"],
                     "peak_rss_mb": st.get("peak_rss_mb"), "run_id": st.get("run_id", ""), "earlier_run": True,
                     "finished_at": st.get("finished_at", "")}
        else:
            continue
        entry["cells_s"] = round(sum(s["seconds"] for s in entry["stages"]), 2)
        notebooks[r.name] = NotebookTimes.model_validate(entry)
    return Stages(notebooks=notebooks, total_s=round(sum(e.wall_s for e in notebooks.values()), 2),
                  this_run_s=round(sum(e.wall_s for e in notebooks.values() if not e.earlier_run), 2))


def partial_block(upstream: dict | None = None) -> list[PartialModel]:
    """The models the raw store's coverage file marks partial (answered share under the threshold,
    :func:`lib.llm.coverage.write_coverage`), each with the notebooks whose artifacts use it: the one
    that collected it and every notebook downstream of that one (``upstream``: notebook -> the
    notebooks it reads, in run order; :func:`lib.registry.upstream`)."""
    from lib.llm.coverage import read_coverage

    upstream = upstream or {}

    def downstream(nb: str) -> list[str]:
        out = [nb]
        for name, ups in upstream.items():
            if any(u in out for u in ups) and name not in out:
                out.append(name)
        return out

    rows = []
    for exp, models in sorted(read_coverage(paths.RAW).items()):
        for model, e in sorted(models.items()):
            if e.get("partial"):
                rows.append(PartialModel(experiment=exp, model=model, planned=e["planned"], answered=e["answered"],
                                         share=e["share"], threshold=e["threshold"], notebook=e.get("notebook"),
                                         used_by=downstream(e["notebook"]) if e.get("notebook") else []))
    return rows


def raw_store_block() -> RawStore:
    """What the raw store's ``quarantine.jsonl`` holds: malformed shard lines moved aside (count, the
    file, the first reasons). The collection re-asked the attempts they held of the embedded panel, or
    stopped (a real endpoint's: :class:`lib.llm.kernel.LostAttemptsError`, the notebook failed)."""
    q = paths.RAW / "quarantine.jsonl"
    if not q.is_file():
        return RawStore(quarantined_lines=0)
    rows = []
    for line in q.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return RawStore(quarantined_lines=len(rows), quarantine=str(q),
                    first=[f"{r.get('shard')} line {r.get('line')}: {r.get('reason')}" for r in rows[:3]])


def _artifact_row(a, promised: set[str], by_nb: dict, commit: str) -> dict:
    """The fields of artifact ``a``'s row, in file order (only those its status gives)."""
    row = {**artifacts.as_dict(a), "promised": a.id in promised, "files": [], "sha256": {}}
    if a.notebook is None:
        return {**row, "status": "not-data"}
    state = read_state(a.notebook)
    rec = _record(a.id)
    nb_run = by_nb.get(a.notebook)
    if nb_run is not None and nb_run.status == "failed":
        return {**row, "status": "failed"}
    if rec and _files_intact(rec):
        return {**row, "files": rec["files"], "sha256": rec["sha256"], "status": "regenerated",
                "synthetic": rec["synthetic"], "label": rec.get("label") or artifacts.data_label(rec["synthetic"]),
                "profile": rec["profile"], "run_id": rec["run_id"], "saved_at": rec["saved_at"],
                "input_hash": state.get("input_hash", ""), "notebook_wall_s": state.get("wall_s"),
                "git_commit": state.get("git_commit", commit)}
    return {**row, "status": "missing"}


def build(prof: config.Profile, runs: list, *, run_id: str, wall_s: float, upstream: dict | None = None) -> Manifest:
    """Assemble the manifest from the save records and this run's notebook results (``upstream``: see
    :func:`partial_block`)."""
    commit, dirty = git_commit()
    by_nb = {r.name: r for r in runs}
    promised = set(prof.promised_ids())
    rows = [_artifact_row(a, promised, by_nb, commit) for a in artifacts.REGISTRY.values()]
    partial = partial_block(upstream)
    for row in rows:
        models = sorted({p.model for p in partial if row.get("notebook") in p.used_by})
        if models and row["status"] == "regenerated":
            row["partial_models"] = models
    counts = {s: sum(r["status"] == s for r in rows) for s in ("regenerated", "missing", "failed", "not-data")}
    run = RunInfo(generated_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), profile=prof.name, profile_path=prof.path,
                  synthetic=prof.synthetic, label=prof.data_label,
                  accepted_modified_releases=config.accepted_modifications(prof), run_id=run_id, git_commit=commit,
                  git_dirty=dirty, python=sys.version.split()[0], numpy=np.__version__,
                  numpy_sort_kernel=sortkernel.numpy_sort_kernel(), wall_s=round(wall_s, 2))
    summary = Summary.model_validate({
        **counts, "data_artifacts": sum(r["status"] != "not-data" for r in rows), "registered": len(rows),
        "promised": len(promised),
        "promised_missing": sorted(r["id"] for r in rows if r["promised"] and r["status"] != "regenerated"),
        "partial_models": len(partial)})
    return Manifest(run=run, stages=stage_block(runs, run_id), summary=summary, partial=partial,
                    raw_store=raw_store_block(), artifacts=[ArtifactRow.model_validate(r) for r in rows],
                    notebooks=[NotebookEntry(name=r.name, status=r.status, wall_s=round(r.wall_s, 2),
                                             input_hash=r.input_hash, error=r.error, executed=r.executed)
                               for r in runs])


class ManifestError(RuntimeError):
    """The manifest could not be written (a full disk, a read-only folder); the old one is kept."""


def write(man: Manifest) -> None:
    """Write ``outputs/manifest.json`` atomically; :class:`ManifestError` (the file, the reason, the fix)
    when the disk refuses, leaving the previous manifest in place."""
    tmp = paths.MANIFEST.with_suffix(".json.tmp")
    try:
        paths.ensure(paths.OUTPUTS)
        tmp.write_text(json.dumps(man.to_dict(), indent=1))
        tmp.replace(paths.MANIFEST)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ManifestError(f"could not write the manifest {paths.MANIFEST}: {e.strerror or e}; free space (or make "
                            f"{paths.OUTPUTS} writable) and run again: the notebooks' outputs and the raw store are "
                            "kept, and unchanged notebooks are skipped") from None


def print_summary(man: Manifest, out=sys.stdout) -> int:
    """Print ``N of M artifacts regenerated`` and the missing ids; 1 if a promised one is missing."""
    s = man.summary
    print(f"\n{s.regenerated} of {s.data_artifacts} artifacts regenerated "
          f"({s.not_data} diagrams are not-data; {s.failed} failed) in {man.run.wall_s:.1f} s "
          f"-> {paths.MANIFEST}, {paths.INDEX_HTML}", file=out)
    missing = [r for r in man.artifacts if r.status in ("missing", "failed")]
    if missing:
        by_nb: dict[str, list[str]] = {}
        for r in missing:
            by_nb.setdefault(r.notebook, []).append(r.id)
        print("missing: " + "; ".join(f"{nb}: {' '.join(ids)}" for nb, ids in by_nb.items()), file=out)
    if man.claims and sum(man.claims.values()):
        print(f"claims: {', '.join(f'{v} {k}' for k, v in man.claims.items())} -> {paths.CLAIMS}", file=out)
    rs = man.raw_store
    if rs.quarantined_lines:
        print(f"raw store: {rs.quarantined_lines} malformed lines were moved to {rs.quarantine} "
              f"({'; '.join(rs.first)}); the attempts they held were asked again of the embedded panel, "
              "or their notebook failed (a real endpoint's answers cannot be asked again unchanged)", file=out)
    for p in man.partial:
        print(f"PARTIAL: model {p.model} ({p.experiment}) answered {p.answered} of {p.planned} requests "
              f"({p.share:.0%}, under {p.threshold:.0%}); its artifacts are marked partial "
              f"({', '.join(p.used_by) or 'no notebook recorded'})", file=out)
    if s.promised_missing:
        print(f"ERROR: profile {man.run.profile} promises {len(s.promised_missing)} artifacts that are missing: "
              + " ".join(s.promised_missing), file=out)
        return 1
    return 0
