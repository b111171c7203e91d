"""Run profiles (``params/*.yaml``): load, validate before any work starts, and refuse secrets.

A profile holds the settings shared by the notebooks (seed, data source, world size, the LLM
endpoint) and, under ``notebooks:``, overrides of each notebook's ``parameters`` cell. Every
error names the profile file, the key and what was expected, so a typo stops the run in seconds.

API keys never appear in a profile: a profile names the *environment variable* that holds a key
(``api_key_env: OPENROUTER_API_KEY``); a literal key-looking value is refused.
"""
from __future__ import annotations

import ast
import difflib
import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lib import paths

NOTEBOOK_NAMES = (
    "01_calibration",
    "02_collection",
    "03_infrastructure_benchmark",
    "04_interventions",
    "05_authority_pilot_regression",
    "06_attribution_fairness",
)
ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
# Shapes of real provider keys (OpenAI/OpenRouter, Google, Hugging Face, GitHub, Anthropic, AWS).
KEY_LIKE = re.compile(
    r"(sk-[A-Za-z0-9_\-]{16,}|sk-or-v1-[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_\-]{30,}|hf_[A-Za-z0-9]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|sk-ant-[A-Za-z0-9_\-]{20,}|AKIA[0-9A-Z]{16})"
)


class ProfileError(ValueError):
    """A profile that cannot be used; the message names file, key and expectation."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class WorldSettings(_Strict):
    """Size of the embedded synthetic scholarly world (LLMScholarBench ground truth D)."""

    n_authors: int = Field(gt=0)


class BatchSettings(_Strict):
    """``llm.batch``: provider limits and polling of the batch path (``llm.mode: batch``, lib.llm.batch)."""

    max_requests_per_file: int = Field(default=50_000, gt=0)     # OpenAI's limits per input file
    max_bytes_per_file: int = Field(default=200_000_000, gt=0)
    poll_initial_s: float = Field(default=5.0, gt=0)
    poll_max_s: float = Field(default=60.0, gt=0)


class LLMSettings(_Strict):
    """Where chat completions go. ``base_url: null`` starts the embedded panel on 127.0.0.1."""

    base_url: str | None = None
    api_key_env: str | None = None
    max_concurrency: int = Field(default=8, gt=0)
    request_timeout_s: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, le=3)
    #: the embedded panel only: "http" serves it from a process of its own on 127.0.0.1 (the
    #: default, DESIGN §3); "http_thread" from a thread of the notebook's kernel (client and panel
    #: then share one interpreter lock, about twice the wall time); "in_process" hands requests to
    #: it through an httpx transport, no socket (same answers; the HTTP hop is not exercised)
    panel_transport: Literal["http", "http_thread", "in_process"] = "http"
    #: "requests": one chat completion per attempt; "batch": OpenAI Batch API files (lib.llm.batch),
    #: the same store, attempts and labels
    mode: Literal["requests", "batch"] = "requests"
    batch: BatchSettings = BatchSettings()

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        if v is not None and not ENV_NAME.match(v):
            raise ValueError("expected the NAME of an environment variable (e.g. OPENROUTER_API_KEY)")
        return v


class RealData(_Strict):
    """Real inputs for real mode; every path given must exist (relative paths: from the repo root)."""

    ground_truth_dir: str | None = None
    raw_responses_dir: str | None = None
    attribench_dir: str | None = None
    authority_dataset_dir: str | None = None


class Profile(_Strict):
    name: str
    description: str = ""
    synthetic: bool
    seed: int
    execution_timeout_s: int = Field(default=3600, gt=0)
    world: WorldSettings
    llm: LLMSettings = LLMSettings()
    real_data: RealData = RealData()
    promises: list[str] | Literal["all"] = []
    notebooks: dict[str, dict[str, Any]] = {}
    path: str = ""  # filled in by load_profile, not read from YAML

    def notebook_params(self, notebook: str) -> dict[str, Any]:
        """The overrides injected into ``notebook``'s parameters cell (plus ``profile``)."""
        return {"profile": self.path, **self.notebooks.get(notebook, {})}

    def real_path(self, key: str) -> Path | None:
        """``real_data.<key>`` as a path (relative ones from the repository root), or None if unset."""
        value = getattr(self.real_data, key)
        if value is None:
            return None
        p = Path(value)
        return p if p.is_absolute() else paths.ROOT / p

    def promised_ids(self) -> list[str]:
        from lib import artifacts

        if self.promises == "all":
            return [a.id for a in artifacts.REGISTRY.values() if a.notebook]
        return list(self.promises)


def resolve_profile_path(profile: str | Path) -> Path:
    """``quick`` -> ``params/quick.yaml``; anything with a slash or .yaml suffix is a path."""
    text = str(profile)
    if "/" in text or text.endswith((".yaml", ".yml")):
        p = Path(text)
        p = p if p.is_absolute() else (Path.cwd() / p)
    else:
        p = paths.PARAMS / f"{text}.yaml"
    if not p.is_file():
        known = sorted(q.stem for q in paths.PARAMS.glob("*.yaml"))
        raise ProfileError(f"profile {text!r}: no file {p}; known profiles: {', '.join(known)}")
    return p.resolve()


def _display(p: Path) -> str:
    try:
        return str(p.relative_to(paths.ROOT))
    except ValueError:
        return str(p)


def _walk(node: Any, prefix: str = ""):
    """Yield (dotted key, value) for every leaf of a YAML document."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{prefix}[{i}]")
    else:
        yield prefix, node


def _secret_errors(doc: dict, where: str) -> list[str]:
    errs = []
    for key, value in _walk(doc):
        if isinstance(value, str) and KEY_LIKE.search(value):
            errs.append(f"{where}: key '{key}' holds what looks like a literal API key; "
                        "put the key in an environment variable and give its NAME (e.g. api_key_env: OPENROUTER_API_KEY)")
        leaf = key.rsplit(".", 1)[-1]
        if re.search(r"(api_key|secret|token|password)$", leaf, re.I) and value not in (None, ""):
            errs.append(f"{where}: key '{key}' must not hold a secret; use '{leaf}_env' with the NAME of an environment variable")
    return errs


def _expected(model: type[BaseModel] | None) -> str:
    return ", ".join(model.model_fields) if model else ""


_TYPE_TAGS = {"str", "int", "float", "bool", "none", "dict", "list"}


def _pydantic_errors(exc: ValidationError, where: str) -> list[str]:
    out, union_msgs = [], {}
    for e in exc.errors():
        # pydantic tags errors inside a union with the member type ('list[str]', "literal['all']"): drop them
        loc_parts = [x for x in e["loc"] if not (isinstance(x, str) and ("[" in x or x in _TYPE_TAGS))]
        loc = ".".join(str(x) for x in loc_parts)
        if len(loc_parts) < len(e["loc"]):
            union_msgs.setdefault(loc, []).append(e)
            continue
        if e["type"] == "extra_forbidden":
            parent: type[BaseModel] | None = Profile
            for part in e["loc"][:-1]:
                ann = parent.model_fields[str(part)].annotation if parent and str(part) in parent.model_fields else None
                parent = ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None
            allowed = [f for f in (parent.model_fields if parent else {}) if f != "path"]
            close = difflib.get_close_matches(str(e["loc"][-1]), allowed, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            out.append(f"{where}: key '{loc}': unknown key{hint}; expected one of: {', '.join(allowed)}")
        elif e["type"] == "missing":
            out.append(f"{where}: key '{loc}': required key is missing")
        else:
            out.append(f"{where}: key '{loc}': {e['msg']} (got {e.get('input')!r})")
    for loc, errs in union_msgs.items():
        msgs = " or ".join(e["msg"].removeprefix("Input should be ") for e in errs)
        out.append(f"{where}: key '{loc}': expected {msgs} (got {errs[0].get('input')!r})")
    return out


def notebook_parameters(notebook: str) -> dict[str, Any]:
    """Defaults of the ``parameters`` cell of ``notebooks/<notebook>.py`` (literals only)."""
    src = paths.NOTEBOOKS / f"{notebook}.py"
    cells, current, tagged = [], [], False
    for line in src.read_text().splitlines():
        if line.startswith("# %%"):
            cells.append((tagged, current))
            current, tagged = [], 'tags=["parameters"]' in line
        else:
            current.append(line)
    cells.append((tagged, current))
    bodies = [body for tagged, body in cells if tagged]
    if len(bodies) != 1:
        raise ProfileError(f"{_display(src)}: expected exactly one cell tagged parameters, found {len(bodies)}")
    params = {}
    for stmt in ast.parse("\n".join(bodies[0])).body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            params[stmt.targets[0].id] = ast.literal_eval(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            params[stmt.target.id] = ast.literal_eval(stmt.value)
    return params


def _type_ok(default: Any, value: Any) -> bool:
    if default is None:
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, type(default))


def _notebook_errors(prof: Profile, where: str) -> list[str]:
    errs = []
    for nb, overrides in prof.notebooks.items():
        if nb not in NOTEBOOK_NAMES:
            close = difflib.get_close_matches(nb, NOTEBOOK_NAMES, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            errs.append(f"{where}: key 'notebooks.{nb}': unknown notebook{hint}; expected one of: {', '.join(NOTEBOOK_NAMES)}")
            continue
        if not (paths.NOTEBOOKS / f"{nb}.py").is_file():
            errs.append(f"{where}: key 'notebooks.{nb}': notebooks/{nb}.py does not exist yet")
            continue
        defaults = notebook_parameters(nb)
        for key, value in (overrides or {}).items():
            if key == "profile":
                errs.append(f"{where}: key 'notebooks.{nb}.profile': set by the runner, not by a profile")
            elif key not in defaults:
                close = difflib.get_close_matches(key, defaults, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                errs.append(f"{where}: key 'notebooks.{nb}.{key}': unknown parameter{hint}; "
                            f"notebooks/{nb}.py's parameters cell has: {', '.join(k for k in defaults if k != 'profile')}")
            elif not _type_ok(defaults[key], value):
                errs.append(f"{where}: key 'notebooks.{nb}.{key}': expected {type(defaults[key]).__name__} "
                            f"like the default {defaults[key]!r}, got {type(value).__name__} {value!r}")
    return errs


def _promise_errors(prof: Profile, where: str) -> list[str]:
    from lib import artifacts

    if prof.promises == "all":
        return []
    errs = []
    for i, aid in enumerate(prof.promises):
        if aid not in artifacts.REGISTRY:
            close = difflib.get_close_matches(aid, artifacts.REGISTRY, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            errs.append(f"{where}: key 'promises[{i}]': unknown artifact id {aid!r}{hint}")
        elif artifacts.REGISTRY[aid].notebook is None:
            errs.append(f"{where}: key 'promises[{i}]': {aid} is a diagram (not-data); it cannot be promised")
    return errs


def release_problems(key: str, path: Path) -> list[str]:
    """What is missing for ``real_data.<key>`` at ``path``: one message per missing file, each saying
    where to get it ([] when complete). Each check lives next to its loader and reads no data file."""
    if key == "raw_responses_dir":
        from lib.llm.release import check_release

        return check_release(path)
    if key == "attribench_dir":
        from lib.attribution.download import check_released

        return check_released(path)
    if key == "authority_dataset_dir":
        from lib.authority.corpus import check_released

        return check_released(path)
    if key == "ground_truth_dir":
        from lib.groundtruth.release import check_ground_truth

        return check_ground_truth(path)
    raise KeyError(f"real_data has no key {key!r}; expected one of: {', '.join(RealData.model_fields)}")


def _real_data_errors(prof: Profile, where: str) -> list[str]:
    """Every given real input must be complete: each missing file is named with where to get it, all at once."""
    errs = []
    for key in RealData.model_fields:
        p = prof.real_path(key)
        if p is not None:
            errs += [f"{where}: key 'real_data.{key}': {msg}" for msg in release_problems(key, p)]
    return errs


#: notebooks that collect from the endpoint unless their ``source`` parameter says "release"
COLLECTING_NOTEBOOKS = ("01_calibration", "02_collection")


def _source_errors(prof: Profile, where: str) -> list[str]:
    """Import mode (``source: release``) needs the release and a ground truth to match names against;
    a real-data profile without an endpoint (``synthetic: false``, ``llm.base_url: null``) must not
    collect: the embedded panel is synthetic, and its answers would be labelled real."""
    errs = []
    no_endpoint = not prof.synthetic and prof.llm.base_url is None
    for nb in COLLECTING_NOTEBOOKS:
        if not (paths.NOTEBOOKS / f"{nb}.py").is_file() or "source" not in (defaults := notebook_parameters(nb)):
            continue
        source = prof.notebooks.get(nb, {}).get("source", defaults["source"])
        if source not in ("collect", "release"):
            errs.append(f"{where}: key 'notebooks.{nb}.source': expected 'collect' or 'release', got {source!r}")
        elif source == "release":
            errs += [f"{where}: key 'real_data.{key}': notebooks.{nb}.source is 'release', which needs {what}; "
                     f"set it (see README, \"Tier A: the release profile\")"
                     for key, what in (("raw_responses_dir", "the LLMScholarBench raw responses to import"),
                                       ("ground_truth_dir", "the ground truth the recommended names are matched against"))
                     if getattr(prof.real_data, key) is None]
        elif no_endpoint:
            errs.append(f"{where}: key 'notebooks.{nb}.source': synthetic: false with llm.base_url: null has no "
                        f"endpoint to collect from (the embedded panel is synthetic); set it to 'release' "
                        f"(import real_data.raw_responses_dir) or give llm.base_url")
    return errs


def load_profile(profile: str | Path) -> Profile:
    """Load and fully validate a profile; raise :class:`ProfileError` listing every problem."""
    path = resolve_profile_path(profile)
    where = _display(path)
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ProfileError(f"{where}: not valid YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise ProfileError(f"{where}: expected a mapping of keys at the top level, got {type(doc).__name__}")
    errs = _secret_errors(doc, where)
    if "path" in doc:
        errs.append(f"{where}: key 'path': set by the loader, not by a profile")
        doc.pop("path")
    try:
        prof = Profile.model_validate(doc)
    except ValidationError as exc:
        raise ProfileError("\n".join(errs + _pydantic_errors(exc, where))) from None
    prof.path = str(path)
    errs += (_notebook_errors(prof, where) + _promise_errors(prof, where) + _real_data_errors(prof, where)
             + _source_errors(prof, where))
    if errs:
        raise ProfileError("\n".join(errs))
    return prof


def secret_values(prof: Profile | None = None) -> list[str]:
    """Values to scrub from notebooks and logs: named key variables and any *_API_KEY/_TOKEN/_SECRET."""
    names = {n for n in os.environ if re.search(r"(_API_KEY|_TOKEN|_SECRET|_PASSWORD)$", n)}
    if prof and prof.llm.api_key_env:
        names.add(prof.llm.api_key_env)
    return sorted({os.environ[n] for n in names if len(os.environ.get(n, "")) >= 6}, key=len, reverse=True)
