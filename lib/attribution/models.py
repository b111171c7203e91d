"""The eleven LLMs of the paper's evaluation (paper §5.1, A.8 Table 6; reference B.0, B.3).

Data, not computation: ``lib/resources/attribution_models.csv`` (the file the synthetic panel
reads too) holds the display name as in the figures, API model id (the version), how it was
accessed, the reasoning setting of §5.1, whether its evidence-conditioned (RAG) runs used the
300-matching subsets (marked † in the paper's RAG figures; reference B.3 RAG item 9), and the
panel's attributes (access, size class, reasoning flag, provider). ``family`` (derived) is the
release's runner family, the one attribute the evaluation treats models by: ``together`` for the
models served by Together AI (their system prompt, 128 output tokens), ``providers`` for the
others (GPT-5.1, Claude, Gemini; paper Table 1 prompts). The figures show one entry per model.

Your own models (profile key ``models.attribution_bias``, :func:`for_profile`): a CSV in the same
columns, :data:`USER_COLUMNS`. Required: version (the model id sent, the provider's model name)
and provider. Optional: model (display name; the version), family (``together`` for provider
``together``, else ``providers``), access_via (the provider), reasoning_setting (``as served``),
rag_subset (F), and the panel's attributes access (``open``), size_class (``M``) and reasoning (F).
"""
from __future__ import annotations

from functools import lru_cache

import pandas as pd

from lib import paths, usermodels
from lib.usermodels import Column

MODELS_CSV = paths.RESOURCES / "attribution_models.csv"
_TABLE6 = ["model", "version", "access_via", "reasoning_setting", "rag_subset"]
PAPER = "attribution_bias"
FAMILIES = ("providers", "together")
_TF = ("T", "F")
#: The columns of a profile's own model table (``models.attribution_bias.file``); "" = derived (module doc).
USER_COLUMNS = (
    Column("model", default=""), Column("version", doc="the model id sent (the provider's model name)"),
    Column("access_via", default=""), Column("reasoning_setting", default="as served"),
    Column("rag_subset", allowed=_TF, default="F"), Column("access", allowed=("open", "proprietary"), default="open"),
    Column("size_class", allowed=("S", "M", "L", "XL"), default="M"), Column("reasoning", allowed=_TF, default="F"),
    Column("provider", doc="a provider name (e.g. ollama, together)"), Column("family", allowed=("", *FAMILIES), default=""),
)


@lru_cache(maxsize=1)
def _table() -> pd.DataFrame:
    raw = pd.read_csv(MODELS_CSV, dtype=str, keep_default_na=False)
    missing = [c for c in _TABLE6 if c not in raw.columns]
    if missing:
        raise ValueError(f"{MODELS_CSV}: missing columns {missing}; expected {_TABLE6}")
    bad = sorted(set(raw["rag_subset"]) - {"T", "F"})
    if bad:
        raise ValueError(f"{MODELS_CSV}: column rag_subset expects 'T' or 'F', got {bad}")
    return raw.assign(family=["together" if a == "Together AI" else "providers" for a in raw["access_via"]])


def user_rows(cfg) -> pd.DataFrame | None:
    """The profile's own models as rows of ``attribution_models.csv`` plus ``family`` (strings,
    the derived defaults filled in; the panel reads these), or None without ``models.attribution_bias``."""
    spec = cfg.models.get(PAPER)
    if spec is None:
        return None
    rows = usermodels.read(cfg.models_path(PAPER), USER_COLUMNS, key="version", builtin=_table()["version"],
                           mode=spec.mode, builtin_file=MODELS_CSV.name)
    return rows.assign(model=rows["model"].where(rows["model"] != "", rows["version"]),
                       access_via=rows["access_via"].where(rows["access_via"] != "", rows["provider"]),
                       family=rows["family"].where(rows["family"] != "",
                                                   rows["provider"].map(lambda p: "together" if p == "together" else "providers")))


def for_profile(cfg=None) -> pd.DataFrame:
    """The model table the profile audits (the resource file's columns plus ``family``): the
    paper's eleven, plus (``mode: add``) or instead of them (``mode: replace``) the rows of
    ``models.attribution_bias.file``; None: the paper's."""
    rows = None if cfg is None else user_rows(cfg)
    if rows is None:
        return _table()
    return rows if cfg.models[PAPER].mode == "replace" else pd.concat([_table(), rows], ignore_index=True)


def profile_errors(cfg, where: str) -> list[str]:
    """Problems of ``models.attribution_bias`` (file, row, field, expected values)."""
    return usermodels.profile_errors(cfg, where, PAPER, for_profile)


def table6(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Paper Table 6 as data: ``model, version, access, reasoning, rag_subset, family`` of
    ``table`` (a :func:`for_profile` table; None: the paper's)."""
    t = (_table() if table is None else table)[[*_TABLE6, "family"]]
    t = t.rename(columns={"access_via": "access", "reasoning_setting": "reasoning"})
    return t.assign(rag_subset=t["rag_subset"] == "T")


def display_names(table: pd.DataFrame | None = None) -> dict[str, str]:
    """Model id → display name, for figure labels (``table`` as in :func:`table6`)."""
    t = _table() if table is None else table
    return dict(zip(t["version"], t["model"]))


#: the columns of the routing table (lib.llm.providers resolves them against llm.providers)
ROUTING_COLUMNS = ["model", "provider", "provider_model", "sub_provider"]


def routing(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Where each Table 6 model was sent (issue 16; §5.1 "access"): model id (the version), provider
    (``openai``, ``anthropic``, ``google``, ``together``) and the provider's model name (the version
    is the API id each provider knows); no sub-provider pin. ``table`` as in :func:`table6`."""
    t = _table() if table is None else table
    missing = [c for c in ("version", "provider") if c not in t.columns]
    if missing:
        raise ValueError(f"{MODELS_CSV}: missing columns {missing}; routing needs version and provider")
    return pd.DataFrame({"model": t["version"], "provider": t["provider"], "provider_model": t["version"],
                         "sub_provider": None}, columns=ROUTING_COLUMNS).reset_index(drop=True)


def prices(models: pd.DataFrame | None = None) -> pd.DataFrame:
    """USD per million tokens per model id (version) (:func:`lib.llm.cost.read_prices` of the model
    table; the Together models' prices are unknown, NaN, until a profile gives them in ``llm.prices``).
    ``models``: a model table (its ``version`` column); default every model of the paper's."""
    from lib.llm.cost import read_prices

    out = read_prices(MODELS_CSV, "version")
    return out if models is None else out[out["model"].isin(models["version"])].reset_index(drop=True)
