"""The 24 LLMScholarBench model configurations as a typed table (reference §1.4, §2.11).

Source: ``lib/resources/lsb_models.csv`` (paper Table A.1; release ``config/llm_setup.json``).
Derived columns follow the Auditor's ``add_infrastructure_columns`` (reference §2.11):

- ``access``: ``proprietary`` when the size class ends in "(P)" (the four Gemini keys), else ``open``;
- ``size_class``: the class with " (P)" stripped (S, M, L, XL); so gemini flash is S and pro is M;
- ``reasoning``: the release's flag as given, including its quirks [!] (deepseek-chat-v3.1 is
  True, deepseek-r1-0528 is False, grok-4-fast is class S);
- ``model_family``: the key's prefix before the first "-" (deepseek, gemma, gemini, grok, gpt, ...).

``system_message`` is False for Gemini: the reference's Vertex path sends only the user prompt
(§1.2 [!]). ``grounded`` marks the two web-search (RAG) Gemini configurations.

Your own models (profile key ``models.llmscholarbench``, :func:`for_profile`): a CSV in the same
columns, :data:`USER_COLUMNS`: key, api_model (the provider's model name), provider_sub_provider
(a provider name, e.g. ``ollama``, optionally ``/ SUB``), temperature, reasoning (T/F) and
size_class (S, M, L, XL; "S (P)" ... for a proprietary model: the access group); quantization,
class1, context and price_in_out_usd_per_mtok are optional ("–", unknown).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib import paths, usermodels
from lib.usermodels import Column

MODELS_CSV = paths.RESOURCES / "lsb_models.csv"
#: The size classes, smallest first (the one definition; the panel's resource file uses the same).
SIZE_ORDER = ("S", "M", "L", "XL")
_COLUMNS = ["key", "api_model", "provider_sub_provider", "quantization", "temperature", "reasoning",
            "size_class", "class1", "context", "price_in_out_usd_per_mtok"]
_MISSING = {"–", "-", ""}


def _context_tokens(value: str) -> float:
    """'131.1K' -> 131100, '1.05M' -> 1050000, '–' -> NaN."""
    v = str(value).strip()
    if v in _MISSING or v == "nan":
        return float("nan")
    scale = {"K": 1e3, "M": 1e6}.get(v[-1].upper(), 1.0)
    return round(float(v[:-1] if scale != 1.0 else v) * scale)


def _prices(value: str, where: str) -> tuple[float, float]:
    v = str(value).strip()
    if v in _MISSING or v == "nan":
        return float("nan"), float("nan")
    try:
        p_in, p_out = v.split("/")
        return float(p_in), float(p_out)
    except ValueError:
        raise ValueError(f"{where}: column price_in_out_usd_per_mtok expects 'IN/OUT' in USD per Mtok, got {v!r}") from None


PAPER = "llmscholarbench"
_CLASSES = (*SIZE_ORDER, *(f"{s} (P)" for s in SIZE_ORDER))
#: The columns of a profile's own model table (``models.llmscholarbench.file``).
USER_COLUMNS = (
    Column("key", doc="a short unique name"), Column("api_model", doc="the provider's model name"),
    Column("provider_sub_provider", doc="a provider name (e.g. ollama), optionally '/ SUB'"),
    Column("quantization", default="–"), Column("temperature", number=True, doc="a temperature"),
    Column("reasoning", allowed=("T", "F")), Column("size_class", allowed=_CLASSES),
    Column("class1", default=""), Column("context", default="–"), Column("price_in_out_usd_per_mtok", default="–"),
)


def load_models(path: Path | str = MODELS_CSV) -> pd.DataFrame:
    """The model list with typed columns, one row per configuration, in the release's order.

    Columns: key, api_model, provider ('openrouter' | 'gemini'), sub_provider (pinned OpenRouter
    sub-provider, e.g. 'deepinfra/bf16'; None for Gemini), quantization, temperature (calibrated,
    float), reasoning (bool), size_class (S/M/L/XL, ordered categorical), access
    ('open'/'proprietary'), model_class ('reasoning'/'non-reasoning'), model_family, grounded
    (bool), system_message (bool), context_tokens (float), price_in / price_out (USD per
    million tokens; NaN when the release gives none).
    """
    path = Path(path)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in _COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}; expected {_COLUMNS}")
    return _typed(raw, path)


def _typed(raw: pd.DataFrame, path: Path, *, own: bool = False) -> pd.DataFrame:
    """The typed table of the raw (string) rows of ``path``; the paper's rows name one of its two
    providers, a profile's ``own`` rows any provider (lib.config's llm.providers routes them)."""
    rows = []
    for i, r in raw.iterrows():
        where = f"{path} row {i + 2} ({r['key']})"
        provider, _, sub = (s.strip() for s in r["provider_sub_provider"].partition("/"))
        provider = provider.split()[0] if provider else ""
        if not provider or (not own and provider not in {"openrouter", "gemini"}):
            raise ValueError(f"{where}: column provider_sub_provider expects 'openrouter / SUB' or 'gemini ...', "
                             f"got {r['provider_sub_provider']!r}")
        grounded = "grounded: true" in r["api_model"]
        cls = r["size_class"].strip()
        size = cls.replace("(P)", "").strip()
        if size not in SIZE_ORDER:
            raise ValueError(f"{where}: column size_class expects one of {SIZE_ORDER} (optionally ' (P)'), got {cls!r}")
        if r["reasoning"] not in {"T", "F"}:
            raise ValueError(f"{where}: column reasoning expects 'T' or 'F', got {r['reasoning']!r}")
        try:
            temperature = float(r["temperature"])
        except ValueError:
            raise ValueError(f"{where}: column temperature expects a number, got {r['temperature']!r}") from None
        p_in, p_out = _prices(r["price_in_out_usd_per_mtok"], where)
        rows.append({
            "key": r["key"],
            "api_model": r["api_model"].split(" (")[0].strip(),
            "provider": provider,
            "sub_provider": sub if provider != "gemini" and sub else None,
            "quantization": None if r["quantization"] in _MISSING else r["quantization"],
            "temperature": temperature,
            "reasoning": r["reasoning"] == "T",
            "size_class": size,
            "access": "proprietary" if cls.endswith("(P)") else "open",
            "model_class": "reasoning" if r["reasoning"] == "T" else "non-reasoning",
            "model_family": r["key"].split("-")[0],
            "grounded": grounded,
            "system_message": provider != "gemini",
            "context_tokens": _context_tokens(r["context"]),
            "price_in": p_in,
            "price_out": p_out,
        })
    df = pd.DataFrame(rows)
    if df["key"].duplicated().any():
        raise ValueError(f"{path}: column key has duplicates {sorted(df.loc[df['key'].duplicated(), 'key'])}")
    df["size_class"] = pd.Categorical(df["size_class"], categories=list(SIZE_ORDER), ordered=True)
    return df


def user_rows(cfg) -> pd.DataFrame | None:
    """The profile's own models as rows of ``lsb_models.csv`` (strings, defaults filled; the
    panel reads these), or None without ``models.llmscholarbench``."""
    spec = cfg.models.get(PAPER)
    if spec is None:
        return None
    builtin = pd.read_csv(MODELS_CSV, dtype=str, keep_default_na=False)["key"]
    return usermodels.read(cfg.models_path(PAPER), USER_COLUMNS, key="key", builtin=builtin, mode=spec.mode,
                           builtin_file=MODELS_CSV.name)


def for_profile(cfg) -> pd.DataFrame:
    """The model table the profile audits (:func:`load_models` columns): the paper's 24
    configurations, plus (``mode: add``) or instead of them (``mode: replace``) the rows of
    ``models.llmscholarbench.file``."""
    rows = user_rows(cfg)
    if rows is None:
        return load_models()
    own = _typed(rows, cfg.models_path(PAPER), own=True)
    if cfg.models[PAPER].mode == "replace":
        return own
    both = pd.concat([load_models(), own], ignore_index=True)
    both["size_class"] = pd.Categorical(both["size_class"], categories=list(SIZE_ORDER), ordered=True)
    return both


def profile_errors(cfg, where: str) -> list[str]:
    """Problems of ``models.llmscholarbench`` (file, row, field, expected values)."""
    return usermodels.profile_errors(cfg, where, PAPER, for_profile)


#: One colour per infrastructure group value (reference §2.11): access, size class, reasoning.
GROUP_PALETTE: dict[str, str] = {
    "open": "#4c72b0", "proprietary": "#dd8452",
    "S": "#8fbbd9", "M": "#4c8fc0", "L": "#2b5d8a", "XL": "#13304d",
    "non-reasoning": "#55a868", "reasoning": "#c44e52",
}
#: Display labels of the group values, as in the paper's legends.
GROUP_LABELS: dict[str, str] = {
    "open": "Open", "proprietary": "Proprietary",
    "S": "Small", "M": "Medium", "L": "Large", "XL": "Extra Large",
    "non-reasoning": "Disabled", "reasoning": "Enabled",
}
#: Value order per infrastructure group column of the attempts tables.
GROUP_ORDER: dict[str, tuple[str, ...]] = {
    "access": ("open", "proprietary"),
    "size_class": SIZE_ORDER,
    "model_class": ("non-reasoning", "reasoning"),
}
#: Panel titles of the infrastructure group columns.
GROUP_TITLES = {"access": "Access", "size_class": "Size", "model_class": "Reasoning"}

SIZE_LABELS = {"S": "Small (< 10B)", "M": "Medium (10B–50B)", "L": "Large (50B–400B)", "XL": "Extra Large (≥ 400B)"}


def table1(models: pd.DataFrame) -> pd.DataFrame:
    """LLMScholarBench Table 1: the evaluated LLMs grouped by size class and access.

    One column per open-weight size class and one "Proprietary" column whose entries carry their
    size class in parentheses, as in the paper. The grounded (RAG) configurations are the same
    models with web search switched on, so they are not listed again; columns are padded with
    empty strings to equal length.
    """
    base = models[~models["grounded"]]
    columns = {label: list(base.loc[(base["access"] == "open") & (base["size_class"] == s), "key"])
               for s, label in SIZE_LABELS.items()}
    prop = base[base["access"] == "proprietary"]
    columns["Proprietary"] = [f"{k} ({SIZE_LABELS[s].split(' (')[0]})" for k, s in zip(prop["key"], prop["size_class"])]
    depth = max(len(v) for v in columns.values())
    return pd.DataFrame({c: v + [""] * (depth - len(v)) for c, v in columns.items()})


#: the columns of every paper's routing table (lib.llm.providers resolves them against llm.providers)
ROUTING_COLUMNS = ["model", "provider", "provider_model", "sub_provider"]


def routing(models: pd.DataFrame | None = None) -> pd.DataFrame:
    """Where each configuration was sent (issue 16): model key, provider ('openrouter' with the
    pinned sub-provider of column ``provider_sub_provider``, or 'gemini', Google's Gemini API; a
    profile maps it to its Google provider with ``llm.routes: {gemini: <name>}``) and the provider's
    model name. The grounded configurations are the same Gemini model with the search tool on.
    ``models``: a :func:`load_models` table (default the paper's)."""
    m = load_models() if models is None else models
    return pd.DataFrame({"model": m["key"], "provider": m["provider"], "provider_model": m["api_model"],
                         "sub_provider": m["sub_provider"]}, columns=ROUTING_COLUMNS).reset_index(drop=True)


def prices(models: pd.DataFrame | None = None) -> pd.DataFrame:
    """USD per million tokens per model key, from the release's ``price_in_out_usd_per_mtok`` (OpenRouter
    prices of the pinned sub-providers; the Gemini rows have none: NaN). Columns model, price_in,
    price_out, price_source."""
    m = load_models() if models is None else models
    return pd.DataFrame({"model": m["key"], "price_in": m["price_in"], "price_out": m["price_out"],
                         "price_source": "LLMScholarBench release config/llm_setup.json (paper Table A.1)"})
