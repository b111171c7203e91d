"""Import the LLMScholarBench release's raw attempt files into the raw store (Tier A).

The release (data DOI 10.5281/zenodo.20417107) holds every attempt the paper's LLMCaller saved,
one JSON file per attempt, in the layout of reference §1.6::

    [<dataset>/][temperature_<T>/]config_<model>/run_<YYYYMMDD>_<HHMMSS>/<category>_<variable>/attempt<n>_<YYYYMMDD>_<HHMMSS>.json

next to side files that carry nothing per attempt (``experiment_summary.json``,
``experiment_runner.log*``, ``config_<model>/llm_setup.json``, ``global_runs/run_<ts>.log``).
:func:`import_release` walks such a tree and appends one store record per attempt file
(:mod:`lib.llm.store`), keeping the file verbatim under ``release_record`` and adding the
normalised fields the labeller reads (:mod:`lib.scholar.labels`): ``status`` (ok / api_error),
``content``, ``reasoning``, ``response`` (the chat-completion view), ``error``, ``served_model``,
``provider``, ``usage``, ``created``, ``attempt`` and ``validation`` (the release's own
``validation_result``, so the LLMCaller verdict is the one made at collection time).

Record shapes (reference §1.6; ``release_shape`` in the record and the report):

====================  =======================================================================
openrouter_ok         ``full_api_response`` is the ChatCompletion dump (choices, usage, provider)
processing_error      the same dump plus ``processing_error``; validation "Processing error occurred"
infra_failure         ``full_api_response = {error_from_exception, exception_type, note}``, top-level
                      ``error``, ``infrastructure_retries``/``_errors``; status api_error
error_response        the dump carries ``error: {code, message, metadata.provider_name}`` and no
                      choices (e.g. a provider 502); status api_error, error kind ``body_error``
gemini_ok             ``full_api_response = {model, prompt, response, full_vertex_response | full_api_response,
                      provider: "gemini", grounded}``; ``response`` becomes a one-choice chat-completion view
                      of the saved text; grounded answers also keep every part's text in ``answer_parts``
gemini_failure        no ``full_api_response``; ``error`` is the final exception's text; status api_error
====================  =======================================================================

Request identity (reference §1.6, as the Auditor): a request is (model, temperature, grounded,
task, parameter, run date, run hour). The run directory's timestamp is cut to the hour; runs of
one (experiment, model, temperature) are ordered by (date, hour) and numbered 0..n-1: that is the
store's ``replicate``. Two run directories in the same hour are the same request, as in the
Auditor; an attempt number seen twice in one request is reported as a duplicate (first file in
path order wins). ``run_date`` ("YYYY-MM-DD") and ``run_hour`` ("HH:00") are kept in the record.

Experiment (the store's first key), from the layout when ``experiment_from_layout``:

- a ``data-temperature`` folder above ``config_*`` → ``temperature`` (the calibration sweep);
- a ``data-openrouter`` or ``data-gemini`` folder above → ``rag`` for grounded models, else ``baseline``
  (the intervention runs; the constrained-prompting runs are the ``biased_top_k`` task inside them,
  as the Auditor separates them by task name);
- otherwise a ``temperature_<T>`` folder → ``temperature``; no such folder → ``rag``/``baseline``.

Temperature: the ``temperature_<T>`` folder, else the file's ``temperature`` key, else the model's
calibrated temperature (``lsb_models.csv``; the intervention runs used it) — ``temperature_source``
says which. Model: the folder name after ``config_`` with the Auditor's suffix replacements
(``-it``, ``-instant``, ``-versatile``, ``-8192``, ``-32768``; faithful: replaced anywhere in the
name, as the reference does); ``model_dir`` keeps the folder name.

Idempotent and resumable: a file already imported (same experiment and release path) is not read
again, an attempt key already in the store is skipped (both counted), and the store's
own open cuts a torn last line left by an interrupted import. Malformed files (bad JSON, missing
keys, an unknown ``category_variable``, an attempt number outside 1..3, a file outside the layout)
are listed in the report with their path and reason; the import goes on.

Shell::

    python -m lib.scholar.release check downloads/llmscholarbench
    python -m lib.scholar.release import downloads/llmscholarbench [--store outputs/raw]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from lib import paths
from lib.groundtruth.release import DOI, DOI_URL
from lib.llm.client import prompt_sha256
from lib.llm.store import RawStore, attempt_key
from lib.scholar import prompts

DEFAULT_DIR = paths.DOWNLOADS / "llmscholarbench"
CLIENT = "lib.llm.release/1"
MAX_ATTEMPTS = 3

_RUN = re.compile(r"^run_(\d{8})_(\d{6})$")
_ATTEMPT = re.compile(r"^attempt(\d+)_(\d{8})_(\d{6})\.json$")
_TEMPERATURE = re.compile(r"^temperature_(\d+(?:\.\d+)?)$")
_SIDE_FILES = re.compile(r"^(experiment_summary\.json|experiment_runner\.log(\.\d+)?|llm_setup\.json|run_\d{8}_\d{6}\.log"
                         r"|\.DS_Store|README.*|.*\.md)$")
_MODEL_SUFFIXES = ("-it", "-instant", "-versatile", "-8192", "-32768")
_SWEEP_DATASETS = ("data-temperature",)
_INTERVENTION_DATASETS = ("data-openrouter", "data-gemini")
SHAPES = ("openrouter_ok", "processing_error", "infra_failure", "error_response", "gemini_ok", "gemini_failure")


# ---- layout -----------------------------------------------------------------------------------
def model_key(config_dir: str) -> str:
    """Model key of a ``config_<model>`` folder, as the Auditor reads it (faithful replace-anywhere)."""
    name = config_dir[len("config_"):]
    for s in _MODEL_SUFFIXES:
        name = name.replace(s, "")
    return name


_TASK_DIRS = {f"{tp.family}_{tp.param}": (tp.family, tp.param) for tp in prompts.TASK_PARAMS}


def task_of(dirname: str) -> tuple[str, str] | None:
    """(family, parameter) of a ``<category>_<variable>`` folder, or None if it is not one of the 30."""
    return _TASK_DIRS.get(dirname)


def _hour(date: str, hms: str) -> tuple[str, str]:
    return f"{date[:4]}-{date[4:6]}-{date[6:]}", f"{hms[:2]}:00"


def _iso(date: str, hms: str) -> str:
    return f"{date[:4]}-{date[4:6]}-{date[6:]}T{hms[:2]}:{hms[2:4]}:{hms[4:]}"


@dataclass(frozen=True)
class AttemptFile:
    """One attempt file's place in the layout (everything the path says, before reading it)."""

    path: Path
    rel: str
    dataset: tuple[str, ...]          # folders above [temperature_<T>/]config_*
    folder_temperature: float | None
    model_dir: str
    model: str
    run_dir: str
    run_date: str
    run_hour: str
    task: str
    param: str
    attempt: int
    attempt_ts: str

    @property
    def grounded(self) -> bool:
        return self.model.endswith("-grounded")

    def experiment(self) -> str:
        """The store experiment this file belongs to (module docstring: the layout mapping)."""
        if any(d in _SWEEP_DATASETS for d in self.dataset):
            return "temperature"
        if not any(d in _INTERVENTION_DATASETS for d in self.dataset) and self.folder_temperature is not None:
            return "temperature"
        return "rag" if self.grounded else "baseline"


def parse_path(path: Path, root: Path) -> AttemptFile | str:
    """The layout fields of an attempt file, or the reason it does not fit the layout."""
    rel = path.relative_to(root)
    parts = rel.parts
    m = _ATTEMPT.match(parts[-1])
    if m is None:
        return "not an attempt file: expected attempt<n>_<YYYYMMDD>_<HHMMSS>.json"
    expected = "expected [temperature_<T>/]config_<model>/run_<YYYYMMDD>_<HHMMSS>/<category>_<variable>/" + parts[-1]
    if len(parts) < 4 or not parts[-4].startswith("config_") or _RUN.match(parts[-3]) is None:
        return f"file outside the layout: {expected}"
    task = task_of(parts[-2])
    if task is None:
        return (f"unknown category_variable folder {parts[-2]!r}: expected one of the 30 "
                f"<family>_<parameter> pairs (e.g. top_k_top_5, field_CM&MP)")
    n = int(m.group(1))
    if not 1 <= n <= MAX_ATTEMPTS:
        return f"attempt number {n} in the file name is outside 1..{MAX_ATTEMPTS}"
    above = parts[:-4]
    temp = None
    if above and (t := _TEMPERATURE.match(above[-1])):
        temp, above = float(t.group(1)), above[:-1]
    run = _RUN.match(parts[-3])
    date, hour = _hour(run.group(1), run.group(2))
    return AttemptFile(path=path, rel=str(rel), dataset=tuple(above), folder_temperature=temp, model_dir=parts[-4],
                       model=model_key(parts[-4]), run_dir=parts[-3], run_date=date, run_hour=hour, task=task[0],
                       param=task[1], attempt=n, attempt_ts=_iso(m.group(2), m.group(3)))


# ---- record shapes --------------------------------------------------------------------------
def record_shape(data: dict) -> str:
    """Which of the six §1.6 shapes a parsed attempt file has (raises ValueError if none)."""
    api = data.get("full_api_response")
    if api is None:
        if "full_api_response" in data:
            raise ValueError("'full_api_response' is null")
        if isinstance(data.get("error"), str):
            return "gemini_failure"
        raise ValueError("no 'full_api_response' and no 'error' string (expected a Gemini final failure)")
    if not isinstance(api, dict):
        raise ValueError(f"'full_api_response' is a {type(api).__name__}, expected an object")
    if "processing_error" in data:
        return "processing_error"
    if api.get("provider") == "gemini":
        if not isinstance(api.get("response"), str):
            raise ValueError("Gemini 'full_api_response' lacks the 'response' text")
        return "gemini_ok"
    if "error_from_exception" in api or "infrastructure_retries" in data:
        return "infra_failure"
    if api.get("error"):
        return "error_response"
    if isinstance(api.get("choices"), list) and api["choices"]:
        return "openrouter_ok"
    raise ValueError("'full_api_response' has neither choices, an error, nor the Gemini/infrastructure-failure keys")


_VERTEX_USAGE = re.compile(r"(\w+)_token_count:\s*(\d+)")
_VERTEX_FINISH = re.compile(r"finish_reason:\s*(\w+)")


def _gemini_usage(api: dict) -> tuple[dict, str | None]:
    """(usage, finish_reason) of a Gemini success: the REST ``usageMetadata`` (grounded) or the
    ``usage_metadata`` block of the stringified Vertex object (reference §2.1 rule 2)."""
    raw = api.get("full_api_response")
    if isinstance(raw, dict):
        u = raw.get("usageMetadata") or {}
        cand = (raw.get("candidates") or [{}])[0]
        usage = {"prompt_tokens": u.get("promptTokenCount"), "completion_tokens": u.get("candidatesTokenCount"),
                 "total_tokens": u.get("totalTokenCount"), "tool_use_prompt_tokens": u.get("toolUsePromptTokenCount"),
                 "thoughts_tokens": u.get("thoughtsTokenCount")}
        return usage, cand.get("finishReason") if isinstance(cand, dict) else None
    text = api.get("full_vertex_response")
    if not isinstance(text, str):
        return {}, None
    counts = dict((k, int(v)) for k, v in _VERTEX_USAGE.findall(text.split("usage_metadata", 1)[-1]))
    usage = {"prompt_tokens": counts.get("prompt"), "completion_tokens": counts.get("candidates"),
             "total_tokens": counts.get("total"), "tool_use_prompt_tokens": counts.get("tool_use_prompt"),
             "thoughts_tokens": counts.get("thoughts")}
    fin = _VERTEX_FINISH.search(text)
    return usage, fin.group(1) if fin else None


def normalise(data: dict, shape: str) -> dict:
    """The store fields the labeller reads, from one attempt file of a given shape."""
    api = data.get("full_api_response") or {}
    out: dict[str, Any] = {"status": "ok", "stop": False, "http_status": None, "error": None, "tries": None,
                           "try_log": [], "response": None, "content": None, "reasoning": None, "finish_reason": None,
                           "served_model": api.get("model"), "provider": api.get("provider"),
                           "system_fingerprint": api.get("system_fingerprint"), "usage": {}, "created": None,
                           "created_at": None}
    infra = data.get("infrastructure_errors") or []
    out["try_log"] = [{"try": e.get("retry_number"), "kind": e.get("error_type"), "message": e.get("message")}
                      for e in infra if isinstance(e, dict)]
    if shape in ("openrouter_ok", "processing_error", "error_response", "infra_failure"):
        choices = api.get("choices") or []
        first = choices[0] if choices and isinstance(choices[0], dict) else {}
        msg = first.get("message") or {}
        out.update(response=api, content=msg.get("content"),
                   reasoning=msg.get("reasoning") or msg.get("reasoning_content"),
                   finish_reason=first.get("finish_reason"), usage=dict(api.get("usage") or {}))
        if isinstance(api.get("created"), (int, float)):
            out["created"] = int(api["created"])
            out["created_at"] = datetime.fromtimestamp(api["created"], timezone.utc).isoformat()
        if not choices:
            out["status"] = "api_error"
    if shape == "infra_failure":
        err = data.get("error") if isinstance(data.get("error"), dict) else {}
        out["error"] = {"kind": "exception", "code": None, "type": err.get("error_type") or api.get("exception_type"),
                        "message": err.get("message") or api.get("error_from_exception")}
        out["tries"] = data.get("infrastructure_retries")
    elif shape == "error_response":
        err = api["error"] if isinstance(api["error"], dict) else {"message": str(api["error"])}
        code = err.get("code")
        out["error"] = {"kind": "body_error", "code": code, "message": err.get("message", str(api["error"]))}
        out["http_status"] = code if isinstance(code, int) else None
        out["provider"] = out["provider"] or ((err.get("metadata") or {}).get("provider_name"))
        out["tries"] = len(infra) or None
    elif shape == "processing_error":
        pe = data["processing_error"] if isinstance(data["processing_error"], dict) else {}
        out["processing_error"] = pe
    elif shape == "gemini_ok":
        usage, finish = _gemini_usage(api)
        text = api["response"]
        raw = api.get("full_api_response")
        if isinstance(raw, dict):       # grounded REST answer: every part's text (the Auditor's repair picks one)
            parts = ((raw.get("candidates") or [{}])[0].get("content") or {}).get("parts") or []
            out["answer_parts"] = [p.get("text") for p in parts if isinstance(p, dict)]
        # The chat-completion view the labeller reads; the Gemini object itself stays in release_record.
        out.update(content=text, finish_reason=finish, usage={k: v for k, v in usage.items() if v is not None},
                   response={"object": "release.gemini", "model": api.get("model"), "provider": "gemini",
                             "choices": [{"index": 0, "finish_reason": finish,
                                          "message": {"role": "assistant", "content": text}}]})
    elif shape == "gemini_failure":
        out.update(status="api_error", provider=None,
                   error={"kind": "exception", "code": None, "message": data["error"]})
    return out


# ---- reading one file ---------------------------------------------------------------------
def _check_keys(data: Any, af: AttemptFile) -> str | None:
    if not isinstance(data, dict):
        return f"top level is a JSON {type(data).__name__}, expected an object"
    missing = [k for k in ("category", "variable", "attempt", "validation_result") if k not in data]
    if missing:
        return f"missing keys {missing}"
    if (data["category"], data["variable"]) != (af.task, af.param):
        return (f"category/variable {data['category']!r}/{data['variable']!r} differ from the folder "
                f"{af.task}_{af.param}")
    a = data["attempt"]
    if not isinstance(a, int) or isinstance(a, bool) or not 1 <= a <= MAX_ATTEMPTS:
        return f"key 'attempt' is {a!r}, expected an integer in 1..{MAX_ATTEMPTS}"
    if a != af.attempt:
        return f"key 'attempt' is {a} but the file name says attempt{af.attempt}"
    v = data["validation_result"]
    if not isinstance(v, dict) or not isinstance(v.get("is_valid"), bool) or not isinstance(v.get("message"), str):
        return "key 'validation_result' must be an object with is_valid (bool) and message (string)"
    return None


def read_attempt(af: AttemptFile) -> tuple[dict, str] | str:
    """(parsed file, shape), or the reason the file is malformed."""
    try:
        with open(af.path, "rb") as f:
            data = json.loads(f.read().decode("utf-8"))
    except UnicodeDecodeError as e:
        return f"not UTF-8 text: {e}"
    except (ValueError, RecursionError) as e:
        return f"invalid JSON: {e}"
    except OSError as e:
        return f"cannot read: {e}"
    reason = _check_keys(data, af)
    if reason is not None:
        return reason
    try:
        return data, record_shape(data)
    except ValueError as e:
        return f"unrecognised record shape: {e}"


_CALIBRATED: dict[str, float] | None = None


def _calibrated(model: str) -> float | None:
    global _CALIBRATED
    if _CALIBRATED is None:
        from lib.scholar.models import load_models
        m = load_models()
        _CALIBRATED = dict(zip(m["key"], m["temperature"].astype(float)))
    return _CALIBRATED.get(model)


def _temperature(af: AttemptFile, data: dict) -> tuple[float, str] | str:
    if af.folder_temperature is not None:
        return af.folder_temperature, "folder"
    t = data.get("temperature")
    if isinstance(t, (int, float)) and not isinstance(t, bool):
        return float(t), "record"
    cal = _calibrated(af.model)
    if cal is not None:
        return cal, "calibrated"
    return (f"no temperature: no temperature_<T> folder, no numeric 'temperature' key, and model {af.model!r} "
            f"is not in {paths.RESOURCES / 'lsb_models.csv'}")


def to_record(af: AttemptFile, data: dict, shape: str, *, experiment: str, replicate: int,
              temperature: float, temperature_source: str) -> dict:
    """One store record for one attempt file (the original verbatim under ``release_record``)."""
    key = (experiment, af.model, af.task, af.param, round(float(temperature), 6), int(replicate))
    gemini = shape.startswith("gemini")
    msgs = ([] if gemini else [{"role": "system", "content": prompts.SYSTEM_MESSAGE}])
    prompt = data.get("prompt")
    api = data.get("full_api_response") or {}
    rec = {"experiment": experiment, "model": af.model, "task": af.task, "param": af.param,
           "temperature": float(temperature), "replicate": int(replicate), "attempt": af.attempt,
           "request_id": hashlib.sha256(json.dumps(key).encode()).hexdigest()[:20],
           "prompt_sha256": (prompt_sha256([*msgs, {"role": "user", "content": prompt}])
                             if isinstance(prompt, str) else None),
           "prompt": prompt, "requested_model": api.get("model") if gemini else None,
           "grounded": bool(api.get("grounded")) if shape == "gemini_ok" else af.grounded,
           **normalise(data, shape),
           "validation": data["validation_result"],
           "temperature_source": temperature_source, "run_dir": af.run_dir, "run_date": af.run_date,
           "run_hour": af.run_hour, "attempt_ts": af.attempt_ts,
           # the file name's save time, on the collecting machine's local clock (no time zone in the release)
           "finished_at": af.attempt_ts, "started_at": None,
           "latency_s": None, "model_dir": af.model_dir, "release_path": af.rel, "release_shape": shape,
           "source": f"release doi:{DOI}", "client": CLIENT, "release_record": data}
    return rec


# ---- the import -----------------------------------------------------------------------------
@dataclass
class ImportReport:
    """What one import did: counts by model, experiment and shape, and every file it could not use."""

    src: str
    store: str
    files_seen: int = 0
    attempt_files: int = 0
    written: int = 0
    already_stored: int = 0
    side_files: int = 0
    per_model: Counter = field(default_factory=Counter)
    per_experiment: Counter = field(default_factory=Counter)
    per_shape: Counter = field(default_factory=Counter)
    malformed: list[tuple[str, str]] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def imported(self) -> int:
        """Attempt files now in the store (written by this run or an earlier one)."""
        return self.written + self.already_stored

    def summary(self) -> str:
        lines = [f"import {self.src} -> {self.store}: {self.files_seen} files, {self.attempt_files} attempt files, "
                 f"{self.written} records written, {self.already_stored} already stored, "
                 f"{len(self.duplicates)} duplicates, {len(self.malformed)} malformed, {self.side_files} side files "
                 f"ignored ({self.seconds:.1f} s)"]
        for title, c in (("per experiment", self.per_experiment), ("per model", self.per_model),
                         ("per record shape", self.per_shape)):
            lines.append(f"{title} (attempt files in the store): "
                         + (", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "none"))
        for title, items in (("malformed", self.malformed), ("duplicates", self.duplicates)):
            if items:
                lines.append(f"{title} ({len(items)}):")
                lines.extend(f"  {p}: {r}" for p, r in items)
        return "\n".join(lines)

    __str__ = summary


def _walk(src: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        out.extend(Path(dirpath) / f for f in sorted(filenames))
    return out


def import_release(src_dir: Path | str, *, store_root: Path | str | None = None, experiment_from_layout: bool = True,
                   experiment: str = "release", progress: bool = True, write_index: bool = True) -> ImportReport:
    """Import every attempt file under ``src_dir`` into the raw store at ``store_root`` (default
    ``lib.paths.RAW``); see the module docstring for the mapping. ``experiment`` names the single
    experiment used when ``experiment_from_layout`` is False. Re-running adds nothing; an
    interrupted run resumes. Raises FileNotFoundError (with :func:`check_release`'s messages) when
    ``src_dir`` holds no release."""
    from tqdm.auto import tqdm

    src = Path(src_dir)
    problems = check_release(src)
    if problems:
        raise FileNotFoundError("\n".join(problems))
    t0 = time.perf_counter()
    store = RawStore(store_root)
    report = ImportReport(src=str(src), store=str(store.root))
    files = _walk(src)
    report.files_seen = len(files)
    located: list[AttemptFile] = []
    for p in files:
        af = parse_path(p, src)
        if isinstance(af, AttemptFile):
            located.append(af)
        elif _SIDE_FILES.match(p.name) or (p.suffix != ".json" and not p.name.startswith("attempt")):
            report.side_files += 1
        else:
            report.malformed.append((str(p.relative_to(src)), af))
    report.attempt_files = len(located)

    def exp_of(af: AttemptFile) -> str:
        return af.experiment() if experiment_from_layout else experiment

    # replicate = rank of the run (date, hour) among the runs of one (experiment, model, temperature folder)
    runs: dict[tuple, set] = {}
    for af in located:
        runs.setdefault((exp_of(af), af.model, af.folder_temperature), set()).add((af.run_date, af.run_hour))
    rank = {g: {h: i for i, h in enumerate(sorted(hours))} for g, hours in runs.items()}

    with store:
        stored, done = {}, {}
        for r in store.iter_records():
            stored[attempt_key(r)] = r.get("release_path")
            if r.get("release_path"):
                done[(r["experiment"], r["release_path"])] = r.get("release_shape")
        bar = tqdm(located, desc="release attempt files", unit="file", disable=not progress, mininterval=0.5)
        for af in bar:
            exp = exp_of(af)
            if (exp, af.rel) in done:       # imported before: a re-run reads no file again
                report.already_stored += 1
                report.per_model[af.model] += 1
                report.per_experiment[exp] += 1
                report.per_shape[done[(exp, af.rel)]] += 1
                continue
            read = read_attempt(af)
            if isinstance(read, str):
                report.malformed.append((af.rel, read))
                continue
            data, shape = read
            temp = _temperature(af, data)
            if isinstance(temp, str):
                report.malformed.append((af.rel, temp))
                continue
            rec = to_record(af, data, shape, experiment=exp,
                            replicate=rank[(exp, af.model, af.folder_temperature)][(af.run_date, af.run_hour)],
                            temperature=temp[0], temperature_source=temp[1])
            k = attempt_key(rec)
            if k in stored:
                if stored[k] == af.rel:
                    report.already_stored += 1
                    report.per_model[af.model] += 1
                    report.per_experiment[exp] += 1
                    report.per_shape[shape] += 1
                else:
                    report.duplicates.append((af.rel, f"same request (model {af.model}, {af.run_date} {af.run_hour}, "
                                                      f"{af.task}/{af.param}) and attempt {af.attempt} as "
                                                      f"{stored[k] or 'a record not from this release'}; kept that one"))
                continue
            store.append(rec)
            stored[k] = af.rel
            report.written += 1
            report.per_model[af.model] += 1
            report.per_experiment[exp] += 1
            report.per_shape[shape] += 1
        bar.close()
    report.malformed.sort()
    report.duplicates.sort()
    if write_index:
        RawStore(store.root).write_index()
    report.seconds = time.perf_counter() - t0
    return report


# ---- missing input (issue 8 item 5) ---------------------------------------------------------
def download_hint(where: Path | str | None = None) -> str:
    where = Path(where) if where is not None else DEFAULT_DIR
    return (f"download the LLMScholarBench data release (DOI {DOI}, {DOI_URL}) and unpack it so that its "
            f"config_<model>/ folders (or temperature_<T>/config_<model>/, or data-*/…/config_<model>/) are under "
            f"{where}; then run: python -m lib.scholar.release import {where}")


_ARCHIVES = (".zip", ".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2", ".7z")


def _has_config_dirs(src: Path, depth: int = 4) -> bool:
    """A config_* folder within ``depth`` levels (release root, temperature_<T>/, data-*/temperature_<T>/)."""
    level = [src]
    for _ in range(depth):
        nxt = []
        for d in level:
            try:
                with os.scandir(d) as it:
                    for e in it:
                        if e.is_dir():
                            if e.name.startswith("config_"):
                                return True
                            nxt.append(Path(e.path))
            except OSError:
                continue
        level = nxt
    return False


def check_release(src_dir: Path | str | None = None) -> list[str]:
    """Messages naming what is missing for a Tier-A import of the release (empty: ready).

    Fast: looks at most four folder levels deep for a ``config_<model>`` folder, never reads an
    attempt file. Each message names the missing folder, the data DOI and where to unpack it; a
    tree with some of the release's parts (:data:`RELEASE_PARTS`) must have all of them.
    """
    src = Path(src_dir) if src_dir is not None else DEFAULT_DIR
    if not src.exists():
        return [f"LLMScholarBench raw responses: folder {src} does not exist; " + download_hint(src)]
    if not src.is_dir():
        return [f"LLMScholarBench raw responses: {src} is a file, expected a folder; " + download_hint(src)]
    if not _has_config_dirs(src):
        archives = sorted(p.name for p in src.iterdir() if p.is_file() and p.name.endswith(_ARCHIVES))
        packed = f"unpack {', '.join(archives)} in {src} first; " if archives else ""
        return [f"LLMScholarBench raw responses: no config_<model> folder under {src} (looked 4 levels deep); "
                + packed + download_hint(src)]
    return missing_parts(src)


#: the top folders of the full release; one present means the release layout, so all are expected
RELEASE_PARTS = {"data-temperature": "the temperature sweep (notebook 01)",
                 "data-openrouter": "the OpenRouter intervention runs (notebook 02: baseline, constrained)",
                 "data-gemini": "the Gemini intervention runs (notebook 02: the rag experiment and Gemini)"}


def missing_parts(src: Path) -> list[str]:
    """Messages naming the parts of the release layout absent from ``src`` (or holding no
    config_<model> folder), when ``src`` has at least one part (a hand-made tree has none)."""
    present = {name for name in RELEASE_PARTS if (src / name).is_dir()}
    if not present:
        return []
    out = []
    for name, what in RELEASE_PARTS.items():
        if name not in present:
            out.append(f"LLMScholarBench raw responses: {src} has {', '.join(sorted(present))}/ but no {name}/ "
                       f"({what}); the release has all of {', '.join(RELEASE_PARTS)}; unpack the missing part "
                       f"(DOI {DOI}, {DOI_URL})")
        elif not _has_config_dirs(src / name, depth=2):
            out.append(f"LLMScholarBench raw responses: {src / name}/ holds no config_<model> folder ({what}); "
                       f"it was not unpacked completely (DOI {DOI}, {DOI_URL})")
    return out


def require_release(src_dir: Path | str | None = None) -> Path:
    """``src_dir`` if it holds a release, else FileNotFoundError with :func:`check_release`'s messages."""
    problems = check_release(src_dir)
    if problems:
        raise FileNotFoundError("\n".join(problems))
    return Path(src_dir) if src_dir is not None else DEFAULT_DIR


# ---- shell ----------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.scholar.release",
                                 description=f"LLMScholarBench release (doi:{DOI}) -> raw store")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ck = sub.add_parser("check", help="say what is missing (fast, reads no attempt file)")
    ck.add_argument("src", nargs="?", default=str(DEFAULT_DIR))
    im = sub.add_parser("import", help="import every attempt file into the raw store")
    im.add_argument("src", nargs="?", default=str(DEFAULT_DIR))
    im.add_argument("--store", default=None, help="raw store folder (default outputs/raw)")
    im.add_argument("--experiment", default=None,
                    help="put everything in this one experiment instead of deriving it from the layout")
    im.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    if a.cmd == "check":
        problems = check_release(a.src)
        for p in problems:
            print(p, file=sys.stderr)
        if not problems:
            print(f"{a.src}: release folders found; import with: python -m lib.scholar.release import {a.src}")
        return 1 if problems else 0
    from lib.llm.store import StoreError

    try:
        report = import_release(a.src, store_root=a.store, experiment_from_layout=a.experiment is None,
                                experiment=a.experiment or "release", progress=not a.no_progress)
    except (FileNotFoundError, StoreError) as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:        # the store became unwritable mid-import (a full disk ...): what was written stays
        print(f"error: writing the raw store {a.store or 'outputs/raw'} failed: {e.strerror or e} "
              f"({e.filename or 'a shard'}); free space or point --store at a writable folder, then import again "
              "(records already written are kept and not written twice)", file=sys.stderr)
        return 1
    print(report.summary())
    if report.malformed:
        print(f"error: {len(report.malformed)} malformed attempt files were not imported (listed above)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
