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
import typing
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, create_model, field_validator

from lib import paths, registry

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
    poll_factor: float = Field(default=1.5, ge=1)                 # growth of the polling interval
    create_tries: int = Field(default=20, gt=0)                   # batch creations before giving up
    #: true: keep a stored batch's input, output and error files at the provider
    keep_files: bool = False
    #: collections with fewer requests go one chat completion at a time: batch results carry no
    #: per-request latency (authority bias Table 15 needs it), and small runs gain nothing
    min_requests: int = Field(default=0, ge=0)

    @classmethod
    def from_dict(cls, d: dict | None, where: str = "profile") -> "BatchSettings":
        """Validate an endpoint's ``batch`` mapping (a profile's ``llm.batch``); a ValueError names each bad
        key as ``llm.batch.<key>``, what it expects and, for an unknown key, the closest valid one."""
        try:
            return cls.model_validate(dict(d or {}))
        except ValidationError as exc:
            raise ValueError("\n".join(_pydantic_errors(exc, where, root=cls, prefix="llm.batch"))) from None


def _env_var_name(v: str | None) -> str | None:
    """``api_key_env`` holds the NAME of an environment variable, never a key."""
    if v is not None and not ENV_NAME.match(v):
        raise ValueError("expected the NAME of an environment variable (e.g. OPENROUTER_API_KEY)")
    return v


PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


class ProviderSettings(_Strict):
    """``llm.providers.<name>``: one named OpenAI-compatible endpoint (lib.llm.providers routes each
    model of a paper's model table to one by name). The key stays in the environment variable named
    by ``api_key_env`` (null: no key, e.g. a local Ollama or vLLM server)."""

    base_url: str
    api_key_env: str | None = None
    max_concurrency: int = Field(default=8, gt=0)
    #: requests per minute the client lets out (a token bucket; null: no limit beyond max_concurrency)
    requests_per_minute: float | None = Field(default=None, gt=0)
    request_timeout_s: float = Field(default=60.0, gt=0)
    #: true: collections of llm.batch.min_requests+ requests to this provider take the OpenAI Batch
    #: API path (lib.llm.batch; the provider must offer /v1/files and /v1/batches)
    batch: bool = False

    _env_name = field_validator("api_key_env")(_env_var_name)


class PriceSettings(_Strict):
    """``llm.prices.<model>``: USD per million tokens, over the price in the paper's model table."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)


class LLMSettings(_Strict):
    """Where chat completions go. ``base_url: null`` and no ``providers`` starts the embedded panel on
    127.0.0.1; ``base_url`` sends every model to one endpoint; ``providers`` routes each model to the
    provider its paper's model table names (``routes`` renames a table's provider to a profile one).
    """

    base_url: str | None = None
    api_key_env: str | None = None
    max_concurrency: int = Field(default=8, gt=0)
    request_timeout_s: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, le=3)
    #: fraction of a collection's planned requests that may stay failed (infrastructure failures,
    #: retryable) before the collecting notebook fails (lib.llm.collect.check_complete)
    max_failed_fraction: float = Field(default=0.01, ge=0, le=1)
    #: the embedded panel only: "http" serves it from a process of its own on 127.0.0.1 (the
    #: default, DESIGN §3); "http_thread" from a thread of the notebook's kernel (client and panel
    #: then share one interpreter lock, about twice the wall time); "in_process" hands requests to
    #: it through an httpx transport, no socket (same answers; the HTTP hop is not exercised)
    panel_transport: Literal["http", "http_thread", "in_process"] = "http"
    #: "requests": one chat completion per attempt; "batch": OpenAI Batch API files (lib.llm.batch),
    #: the same store, attempts and labels
    mode: Literal["requests", "batch"] = "requests"
    batch: BatchSettings = BatchSettings()
    #: named endpoints (issue 16): each model goes to the provider of its paper's routing table
    providers: dict[str, ProviderSettings] = {}
    #: a model table's provider name -> the profile provider serving it (e.g. gemini: google), when they differ
    routes: dict[str, str] = {}


    #: stop collecting before the running cost estimate would pass this many USD (lib.llm.spend); null = no cap
    budget_usd: float | None = Field(default=None, gt=0)
    #: {model: {input, output}} USD per million tokens; overrides the model tables' prices (dry run, budget)
    prices: dict[str, PriceSettings] = {}

    _env_name = field_validator("api_key_env")(_env_var_name)

    @property
    def real_endpoint(self) -> bool:
        """Whether requests go to a real endpoint (``base_url`` or ``providers``), not the embedded panel."""
        return self.base_url is not None or bool(self.providers)

    def key_variables(self) -> dict[str, str]:
        """profile key -> environment variable NAME, for every key this section names."""
        out = {f"llm.providers.{n}.api_key_env": p.api_key_env for n, p in self.providers.items() if p.api_key_env}
        if self.api_key_env:
            out["llm.api_key_env"] = self.api_key_env
        return out


def _build_real_data() -> None:
    """``RealData`` (one optional path per ``real_data`` key the papers declare, :mod:`lib.registry`;
    an unknown key is refused like any other) and the keys a profile may accept as modified, built
    from the declarations on first use; :class:`Profile` is completed with them."""
    releases = registry.releases()
    if globals().get("_BUILT_FOR") is releases:
        return
    doc = "Real inputs for real mode; every path given must exist (relative paths: from the repo root)."
    globals()["RealData"] = create_model("RealData", __base__=_Strict, __doc__=doc, __module__=__name__,
                                         **{k: (str | None, None) for k in releases})
    globals()["ModifiableRelease"] = Literal[tuple(k for k, r in releases.items() if r.accepts_modified)]
    Profile.model_rebuild(force=True)
    globals()["_BUILT_FOR"] = releases


def __getattr__(name: str):
    """Derived from the papers' declarations on first use (:mod:`lib.registry`): ``NOTEBOOK_NAMES``
    (every notebook, in run order), ``REAL_DATA_READERS`` (real_data key -> the notebooks that read
    it: a run of other notebooks, ``--only``, does not validate it, so one paper's release is enough
    to rebuild that paper, issue 28) and ``RealData``."""
    if name == "NOTEBOOK_NAMES":
        return registry.notebook_names()
    if name == "REAL_DATA_READERS":
        return {k: r.readers for k, r in registry.releases().items()}
    if name in ("RealData", "ModifiableRelease"):
        _build_real_data()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ModelTable(_Strict):
    """``models.<paper>``: a paper's own models, a CSV in the columns of that paper's model table
    (each paper's ``models`` module documents which are required and the defaults of the others).
    ``mode``: ``add`` (to the paper's models) or ``replace`` (audit only these)."""

    file: str
    mode: Literal["add", "replace"] = "add"


class Profile(_Strict):
    """A run profile. ``synthetic`` says what the outputs are, and every artifact, the manifest and
    the report carry it (:attr:`data_label`):

    - ``true``: the embedded default (synthetic world, corpus, twin and panel): labelled synthetic;
    - ``false``: real data throughout; each paper's inputs module refuses a profile whose notebooks
      would fall back to a synthetic input (a ground truth, the AttriBench release, the authority corpus);
    - ``mixed``: declared on purpose: a real endpoint (``llm.base_url``) asked about the synthetic
      inputs where no real ones are given; outputs built on both are labelled mixed.

    ``models`` audits your own models: per paper id (``llmscholarbench``, ``authority_bias``,
    ``attribution_bias``; :func:`lib.registry.papers`) a :class:`ModelTable`, e.g.
    ``models: {authority_bias: {file: params/my_models.csv, mode: add}}`` (relative paths: from the
    repository root). Each row carries the attributes that paper's figures group by:
    LLMScholarBench access and size class (``size_class``: S/M/L/XL, "S (P)" = proprietary) and
    reasoning (lib.scholar.models); authority bias the cohort (open / frontier / ablation, the tier
    ablation of Table 21; lib.authority.models); AttriBench the runner family (providers / together;
    lib.attribution.models). Every figure, table and claim of that paper then includes them, and the
    embedded panel gives each the mean behaviour of the paper's models sharing its attributes.
    """

    name: str
    description: str = ""
    synthetic: bool | Literal["mixed"]
    seed: int
    execution_timeout_s: int = Field(default=3600, gt=0)
    world: WorldSettings
    llm: LLMSettings = LLMSettings()
    real_data: RealData = Field(default_factory=lambda: RealData())
    promises: list[str] | Literal["all"] = []
    #: real_data keys whose files may differ from the release (size, line ends, rows, sha256): the
    #: differences become warnings and the manifest records them (issue 28); only checks that
    #: identify their files take part
    accept_modified_releases: list[ModifiableRelease] = []
    models: dict[str, ModelTable] = {}
    notebooks: dict[str, dict[str, Any]] = {}
    path: str = ""  # filled in by load_profile, not read from YAML
    #: the notebooks this run executes (``--only``; None: all): validation and promises follow it
    _selected: tuple[str, ...] | None = PrivateAttr(default=None)

    @property
    def selected(self) -> tuple[str, ...]:
        """The notebooks validated and promised for (all six unless load_profile was given ``only``)."""
        return self._selected if self._selected is not None else registry.notebook_names()

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

    def models_path(self, paper: str) -> Path | None:
        """``models.<paper>.file`` as a path (relative ones from the repository root), or None if unset."""
        spec = self.models.get(paper)
        if spec is None:
            return None
        p = Path(spec.file)
        return p if p.is_absolute() else paths.ROOT / p

    @property
    def data_label(self) -> str:
        """'synthetic', 'mixed' or 'real' (the label of outputs built on this profile's inputs)."""
        from lib import artifacts

        return artifacts.data_label(self.synthetic)

    def promised_ids(self) -> list[str]:
        """The promised artifact ids of the selected notebooks (a promise of another one is not this run's)."""
        from lib import artifacts

        return [a for a in artifacts.promised(self.promises)
                if a not in artifacts.REGISTRY or artifacts.REGISTRY[a].notebook in self.selected]


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


def _pydantic_errors(exc: ValidationError, where: str, root: type[BaseModel] = Profile,
                     prefix: str = "") -> list[str]:
    """One line per error of validating ``root``; ``prefix`` names the section ``root`` sits at in a
    profile (e.g. ``llm.batch``), so keys read as the profile spells them."""
    out, union_msgs = [], {}
    for e in exc.errors():
        # pydantic tags errors inside a union with the member type ('list[str]', "literal['all']"): drop them
        loc_parts = [x for x in e["loc"] if not (isinstance(x, str) and ("[" in x or x in _TYPE_TAGS))]
        loc = ".".join(str(x) for x in ([prefix] if prefix else []) + loc_parts)
        if len(loc_parts) < len(e["loc"]):
            union_msgs.setdefault(loc, []).append(e)
            continue
        if e["type"] == "extra_forbidden":
            parent: type[BaseModel] | None = root
            parts = list(e["loc"][:-1])
            while parts:
                part = parts.pop(0)
                ann = parent.model_fields[str(part)].annotation if parent and str(part) in parent.model_fields else None
                args = typing.get_args(ann) if typing.get_origin(ann) is dict else ()
                if args and isinstance(args[1], type) and issubclass(args[1], BaseModel) and parts:
                    ann = args[1]            # llm.providers.<name>: the mapping's value model
                    parts.pop(0)
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
        if nb not in registry.notebooks():
            close = difflib.get_close_matches(nb, registry.notebook_names(), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            errs.append(f"{where}: key 'notebooks.{nb}': unknown notebook{hint}; expected one of: {', '.join(registry.notebook_names())}")
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


def release_problems(key: str, path: Path, *, accept_modified: bool = False) -> list[str]:
    """What is missing or wrong for ``real_data.<key>`` at ``path``: one message per missing file, each
    saying where to get it, and per file that is not the release's ([] when usable). Each check
    lives next to its loader (``check_release``, found through :func:`lib.registry.release_module`);
    ``accept_modified``: the profile accepts a modified copy (``accept_modified_releases``)."""
    check = registry.release_check(key)
    return check(path, accept_modified=True) if accept_modified else check(path)


def _read_keys(prof: Profile):
    """(key, path) of the given real inputs that the selected notebooks read."""
    for key, release in registry.releases().items():
        p = prof.real_path(key)
        if p is not None and set(release.readers) & set(prof.selected):
            yield key, p


def _real_data_errors(prof: Profile, where: str) -> list[str]:
    """Every given real input must be complete: each missing file is named with where to get it, all at once."""
    return [f"{where}: key 'real_data.{key}': {msg}" for key, p in _read_keys(prof)
            for msg in release_problems(key, p, **({"accept_modified": True} if key in prof.accept_modified_releases
                                                   else {}))]


def release_notes(prof: Profile) -> list[str]:
    """The files of the selected notebooks' releases that are absent but not needed: each with what it
    would add and where to get it (a check module's optional ``release_notes(path)``)."""
    return [f"real_data.{key}: {msg}" for key, p in _read_keys(prof)
            for msg in getattr(registry.release_module(key), "release_notes", lambda _: [])(p)]


def accepted_modifications(prof: Profile) -> dict[str, list[str]]:
    """real_data key -> what differs from the release in the files the profile accepted as modified
    (``accept_modified_releases``; a check module's ``accepted_modifications(path)``), for the manifest."""
    out = {}
    for key, p in _read_keys(prof):
        if key in prof.accept_modified_releases:
            out[key] = registry.release_module(key).accepted_modifications(p)
    return out


def _models_errors(prof: Profile, where: str) -> list[str]:
    """``models``: known paper ids and existing files (each paper's inputs module checks the rows)."""
    errs = []
    known = registry.papers()
    for paper in prof.models:
        if paper not in known:
            close = difflib.get_close_matches(paper, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            errs.append(f"{where}: key 'models.{paper}': unknown paper{hint}; expected one of: {', '.join(known)}")
        elif not prof.models_path(paper).is_file():
            errs.append(f"{where}: key 'models.{paper}.file': no file {prof.models_path(paper)}; expected a CSV of "
                        "the paper's model columns (relative paths: from the repository root)")
    return errs


def _input_errors(prof: Profile, where: str) -> list[str]:
    """Each paper's check of its input choices (collect / import / release;
    :meth:`lib.declare.Paper.profile_errors`), for the papers of the selected notebooks."""
    papers = {a.paper for a in registry.artifacts().values() if a.notebook in prof.selected}
    return [e for key, decl in registry.papers().items() if key in papers for e in decl.profile_errors(prof, where)]


# ---- ranges, forms, encodings and folders (issue 18: a bad value stops before any notebook) --------
SEED_LIMIT = 2 ** 32                 # numpy.random.default_rng / RandomState accept seeds below this
BYTES_PER_AUTHOR = 1024              # a floor for the synthetic world in memory (authors, works, edges)
MAX_SANE_CONCURRENCY = 256           # above this an endpoint (and this machine) mostly queues or refuses
MIN_REQUEST_TIMEOUT_S = 1.0          # below this no chat completion arrives: every try would time out
MIN_EXECUTION_TIMEOUT_S = 60         # a cell needs the kernel, its imports and its work
#: notebook parameters that count something and need at least one (the others: >= 0, 0 = all/none)
AT_LEAST_ONE = ("runs", "replicates", "gemini_replicates", "generations", "twin_authors", "balancing_runs",
                "queries_per_topic", "pilot_queries_per_topic", "quadrant_temperature_stride")


class ProfileWarning(UserWarning):
    """A profile value that is allowed but probably not meant (e.g. a very high concurrency)."""


def _memory_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _range_errors(prof: Profile, where: str) -> list[str]:
    """Ranges and forms pydantic's types do not say: seed, world size, URL, timeouts, notebook counts."""
    errs = []
    if not 0 <= prof.seed < SEED_LIMIT:
        errs.append(f"{where}: key 'seed': expected an integer >= 0 and < 2**32, got {prof.seed}")
    mem, need = _memory_bytes(), prof.world.n_authors * BYTES_PER_AUTHOR
    if mem is not None and need > mem:
        errs.append(f"{where}: key 'world.n_authors': {prof.world.n_authors} authors need at least "
                    f"{need / 2**30:.1f} GiB, more than this machine's {mem / 2**30:.1f} GiB of memory; "
                    f"expected at most {mem // BYTES_PER_AUTHOR}")
    if prof.synthetic == "mixed" and not prof.llm.real_endpoint:
        errs.append(f"{where}: key 'synthetic': 'mixed' declares a real endpoint asked about synthetic inputs, "
                    "but llm.base_url is null and llm.providers is empty (the embedded panel is synthetic); "
                    "give llm.base_url or llm.providers, or set synthetic: true")
    errs += _endpoint_errors(where, "llm", prof.llm.base_url, prof.llm.request_timeout_s,
                             null_means="the embedded panel")
    errs += _provider_errors(prof.llm, where)
    if prof.execution_timeout_s < MIN_EXECUTION_TIMEOUT_S:
        errs.append(f"{where}: key 'execution_timeout_s': expected at least {MIN_EXECUTION_TIMEOUT_S} s per cell "
                    f"(starting the kernel and importing lib alone takes seconds), got {prof.execution_timeout_s}")
    for nb, overrides in prof.notebooks.items():
        for key, value in (overrides or {}).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            low = 1 if key in AT_LEAST_ONE else 0
            if value < low:
                errs.append(f"{where}: key 'notebooks.{nb}.{key}': expected a number >= {low}, got {value!r}")
    return errs


def _endpoint_errors(where: str, key: str, url: str | None, timeout: float, *,
                     null_means: str | None = None) -> list[str]:
    """One endpoint block ``key`` (``llm`` or ``llm.providers.<name>``): ``base_url`` an http(s) URL
    (or null where ``null_means`` says what null does) and a request timeout an answer can arrive in."""
    from lib.llm.client import is_http_url

    errs = []
    if not (url is None and null_means) and not is_http_url(url):
        null = f", or null for {null_means}" if null_means else ""
        errs.append(f"{where}: key '{key}.base_url': expected an http(s) URL such as "
                    f"https://openrouter.ai/api/v1{null}, got {url!r}")
    if timeout < MIN_REQUEST_TIMEOUT_S:
        errs.append(f"{where}: key '{key}.request_timeout_s': expected at least {MIN_REQUEST_TIMEOUT_S:g} s "
                    f"(every request would time out), got {timeout}")
    return errs


def _provider_errors(llm: LLMSettings, where: str) -> list[str]:
    """``llm.providers`` and ``llm.routes``: names, URLs, timeouts; one way of saying where requests go."""
    errs = []
    if llm.providers and llm.base_url is not None:
        errs.append(f"{where}: key 'llm.base_url': give either llm.base_url (one endpoint for every model) or "
                    f"llm.providers (each model routed to its provider), not both; got base_url {llm.base_url!r} "
                    f"and providers {', '.join(llm.providers)}")
    if llm.providers and llm.mode == "batch":
        errs.append(f"{where}: key 'llm.mode': with llm.providers each provider says whether it batches; "
                    "expected 'requests' here and batch: true on the providers that offer the Batch API")
    for name, p in llm.providers.items():
        key = f"llm.providers.{name}"
        if not PROVIDER_NAME.match(name):
            errs.append(f"{where}: key '{key}': expected a provider name of lower-case letters, digits, '-' or '_' "
                        f"starting with a letter (e.g. openrouter), got {name!r}")
        errs += _endpoint_errors(where, key, p.base_url, p.request_timeout_s)
    for table_name, target in llm.routes.items():
        if target not in llm.providers:
            errs.append(f"{where}: key 'llm.routes.{table_name}': expected the name of a provider of llm.providers "
                        f"({', '.join(llm.providers) or 'none given'}), got {target!r}")
    return errs


def _range_warnings(prof: Profile, where: str) -> None:
    import warnings

    if prof.llm.max_concurrency > MAX_SANE_CONCURRENCY:
        warnings.warn(f"{where}: key 'llm.max_concurrency': {prof.llm.max_concurrency} concurrent requests is above "
                      f"{MAX_SANE_CONCURRENCY}; endpoints rate-limit or refuse such bursts (expected e.g. 4-64)",
                      ProfileWarning, stacklevel=3)


def read_profile_text(path: Path, where: str) -> str:
    """The profile's text; a file that is not UTF-8 is refused with the byte offset."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{where}: not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
                           "save the profile as UTF-8") from None


def folder_problems(folders: dict[str, Path] | None = None) -> list[str]:
    """Why the output and cache folders cannot be used ([] when they can; :func:`lib.paths.unusable_folders`).
    ``folders``: name -> path (default COMPANION_OUTPUTS and COMPANION_CACHE as :mod:`lib.paths` resolved them)."""
    return paths.unusable_folders(folders or {"COMPANION_OUTPUTS (outputs folder)": paths.OUTPUTS,
                                              "COMPANION_CACHE (cache folder)": paths.CACHE})


def _running_notebooks(only) -> tuple[str, ...] | None:
    """``only`` as notebook names; None: every notebook, or inside a runner's notebook
    (``COMPANION_NOTEBOOK``) that one, so a notebook validates what its run validated."""
    names = registry.notebook_names()
    if only is not None:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise ProfileError(f"only: unknown notebook(s) {unknown}; expected names of: {', '.join(names)}")
        return tuple(n for n in names if n in only)
    running = os.environ.get("COMPANION_NOTEBOOK")
    return (running,) if running in names else None


def load_profile(profile: str | Path, only: typing.Sequence[str] | None = None) -> Profile:
    """Load and fully validate a profile; raise :class:`ProfileError` listing every problem.

    ``only``: the notebooks a run executes (``--only``); the real inputs and paper input checks
    of the others are not validated, and their promises are not this run's (:attr:`Profile.selected`).
    """
    path = resolve_profile_path(profile)
    where = _display(path)
    try:
        doc = yaml.safe_load(read_profile_text(path, where))
    except yaml.YAMLError as exc:
        raise ProfileError(f"{where}: not valid YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise ProfileError(f"{where}: expected a mapping of keys at the top level, got {type(doc).__name__}")
    errs = _secret_errors(doc, where)
    if "path" in doc:
        errs.append(f"{where}: key 'path': set by the loader, not by a profile")
        doc.pop("path")
    _build_real_data()
    try:
        prof = Profile.model_validate(doc)
    except ValidationError as exc:
        raise ProfileError("\n".join(errs + _pydantic_errors(exc, where))) from None
    prof.path = str(path)
    prof._selected = _running_notebooks(only)
    errs += (_notebook_errors(prof, where) + _promise_errors(prof, where) + _real_data_errors(prof, where)
             + _models_errors(prof, where) + _input_errors(prof, where) + _range_errors(prof, where))
    if errs:
        raise ProfileError("\n".join(errs))
    _range_warnings(prof, where)
    return prof


def load_or_report(profile: str | Path, out, only: typing.Sequence[str] | None = None) -> Profile | None:
    """:func:`load_profile` for a command (the runner, its dry run): the profile, or None after printing
    ``profile error:`` and every problem to ``out`` (the command then exits with 2)."""
    try:
        return load_profile(profile, only)
    except ProfileError as exc:
        print(f"profile error:\n{exc}", file=out)
        return None


def secret_values(prof: Profile | None = None) -> list[str]:
    """Values to scrub from notebooks and logs: named key variables and any *_API_KEY/_TOKEN/_SECRET."""
    names = {n for n in os.environ if re.search(r"(_API_KEY|_TOKEN|_SECRET|_PASSWORD)$", n)}
    if prof:
        names |= set(prof.llm.key_variables().values())      # llm.api_key_env and every provider's
    return sorted({os.environ[n] for n in names if len(os.environ.get(n, "")) >= 6}, key=len, reverse=True)
