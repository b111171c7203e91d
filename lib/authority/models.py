"""The authority paper's models (paper §4.5, appendix E; reference A.5, A.6, A.9).

Source: ``lib/resources/authority_models.csv``, the file the synthetic panel reads too. Columns:
id (Ollama tag or provider id), cohort (``open`` 7–9B Ollama | ``frontier`` closed-weight |
``ablation`` the smaller closed tier), role (``headline`` | ``ablation`` | ``archived``: a model
of the extension the paper no longer reports), temperature (what the paper ran it at: Ollama's
default 0.8, the providers' 1.0), access, size_class, reasoning, provider, think_in_content (the
answer carries its <think> block) and pilot (one of the three models of the 1:N pilot, §4.3).

Your own models (profile key ``models.authority_bias``, :func:`for_profile`): a CSV in the same
columns, :data:`USER_COLUMNS`. Required: id (the provider's model name, e.g. the Ollama tag),
provider and cohort (``open`` | ``frontier``: the pooled rows of Table 12 and the claims; or
``ablation``: the tier-ablation model of Table 21, at most one in the audited set). Optional:
role (``headline``), temperature (0.8 for provider ``ollama``, Ollama's default, else 1.0, as the
paper ran them), access (``open`` for the open cohort, else ``proprietary``), size_class (S for
open, M for ablation, XL for frontier), reasoning, think_in_content and pilot (F).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lib import paths, usermodels
from lib.usermodels import Column

MODELS_CSV = paths.RESOURCES / "authority_models.csv"
COHORTS = ("open", "frontier", "ablation")
ROLES = ("headline", "ablation", "archived")


@dataclass(frozen=True)
class AuthorityModel:
    """One model of the authority paper: its id (Ollama tag or provider id), cohort and temperature.

    ``temperature`` is what the paper ran it at without decoding overrides: Ollama's default 0.8
    for the open-weight models, the providers' default 1.0 for the closed ones (spec A.5, A.9).
    """

    id: str
    cohort: str          # "open" (7–9B, Ollama) | "frontier" (closed-weight) | "ablation" (smaller closed tier)
    temperature: float
    #: where it is sent (the table's provider column; :func:`routing`), also for a profile's own models
    provider: str | None = None


PAPER = "authority_bias"
_TF = ("T", "F")
#: The columns of a profile's own model table (``models.authority_bias.file``); "" = derived (module doc).
USER_COLUMNS = (
    Column("id", doc="the provider's model name (e.g. an Ollama tag)"),
    Column("cohort", allowed=COHORTS), Column("role", allowed=ROLES[:2], default="headline"),
    Column("temperature", default=""), Column("access", allowed=("", "open", "proprietary"), default=""),
    Column("size_class", allowed=("", "S", "M", "L", "XL"), default=""), Column("reasoning", allowed=_TF, default="F"),
    Column("provider", doc="a provider name (e.g. ollama, openai)"),
    Column("think_in_content", allowed=_TF, default="F"), Column("pilot", allowed=_TF, default="F"),
)
_SIZE_BY_COHORT = {"open": "S", "ablation": "M", "frontier": "XL"}


def load_models(path: Path | str = MODELS_CSV) -> pd.DataFrame:
    """The model table, one row per model in the file's order, with typed columns (reasoning,
    think_in_content and pilot as bool, temperature as float)."""
    path = Path(path)
    return _typed(pd.read_csv(path, dtype=str, keep_default_na=False), path)


def _typed(raw: pd.DataFrame, path: Path) -> pd.DataFrame:
    need = ["id", "cohort", "role", "temperature", "access", "size_class", "reasoning", "provider",
            "think_in_content", "pilot"]
    missing = [c for c in need if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}; expected {need}")
    for col, allowed in (("cohort", COHORTS), ("role", ROLES), ("reasoning", ("T", "F")),
                         ("think_in_content", ("T", "F")), ("pilot", ("T", "F"))):
        bad = sorted(set(raw[col]) - set(allowed))
        if bad:
            raise ValueError(f"{path}: column {col} expects one of {list(allowed)}, got {bad}")
    out = raw[need].copy()
    for col in ("reasoning", "think_in_content", "pilot"):
        out[col] = out[col] == "T"
    out["temperature"] = out["temperature"].astype(float)
    return out


def user_rows(cfg) -> pd.DataFrame | None:
    """The profile's own models as rows of ``authority_models.csv`` (strings, the derived defaults
    filled in; the panel reads these), or None without ``models.authority_bias``."""
    spec = cfg.models.get(PAPER)
    if spec is None:
        return None
    path = cfg.models_path(PAPER)
    builtin = load_models()
    rows = usermodels.read(path, USER_COLUMNS, key="id", builtin=builtin["id"], mode=spec.mode,
                           builtin_file=MODELS_CSV.name)
    errs = []
    for i, r in rows.iterrows():
        if r["temperature"] == "":
            r["temperature"] = "0.8" if r["provider"] == "ollama" else "1.0"
        try:
            float(r["temperature"])
        except ValueError:
            errs.append(f"{path} row {i + 2} ({r['id']}): field temperature expects a number, got {r['temperature']!r}")
        r["access"] = r["access"] or ("open" if r["cohort"] == "open" else "proprietary")
        r["size_class"] = r["size_class"] or _SIZE_BY_COHORT[r["cohort"]]
        rows.loc[i] = r
    pool = rows if spec.mode == "replace" else pd.concat([builtin[["id", "role"]], rows])
    ablation = [m for m, role in zip(pool["id"], pool["role"]) if role == "ablation"]
    if len(ablation) > 1:
        errs.append(f"{path}: field role: {len(ablation)} tier-ablation models {ablation}; Table 21 compares one "
                    f"(the paper's is {ABLATION_MODEL.id}; use mode: replace or role headline)")
    if errs:
        raise usermodels.ModelTableError("\n".join(errs))
    return rows


def for_profile(cfg) -> pd.DataFrame:
    """The model table the profile audits (:func:`load_models` columns): the paper's, plus
    (``mode: add``) or instead of them (``mode: replace``) the rows of ``models.authority_bias.file``."""
    rows = user_rows(cfg)
    if rows is None:
        return _TABLE
    own = _typed(rows, cfg.models_path(PAPER))
    return own if cfg.models[PAPER].mode == "replace" else pd.concat([_TABLE, own], ignore_index=True)


def profile_errors(cfg, where: str) -> list[str]:
    """Problems of ``models.authority_bias`` (file, row, field, expected values)."""
    return usermodels.profile_errors(cfg, where, PAPER, for_profile)


def audited(table: pd.DataFrame) -> tuple[AuthorityModel, ...]:
    """The main-experiment models of a :func:`for_profile` table: all but the archived ones,
    headline first, the tier ablation last (the paper's "appendix" view)."""
    live = table[table["role"] != "archived"]
    return _models(pd.concat([live[live["role"] == "headline"], live[live["role"] == "ablation"]]))


def _models(table: pd.DataFrame) -> tuple[AuthorityModel, ...]:
    return tuple(AuthorityModel(r.id, r.cohort, r.temperature, r.provider) for r in table.itertuples(index=False))


_TABLE = load_models()
#: The eight headline models (paper §4.5; spec A.9 "headline" view), open-weight first.
HEADLINE_MODELS: tuple[AuthorityModel, ...] = _models(_TABLE[_TABLE["role"] == "headline"])
#: The tier-ablation model of Appendix E (Table 21).
(ABLATION_MODEL,) = _models(_TABLE[_TABLE["role"] == "ablation"])
#: Every model of the main experiment: the headline set plus the ablation (the "appendix" view).
MAIN_MODELS: tuple[AuthorityModel, ...] = (*HEADLINE_MODELS, ABLATION_MODEL)
#: The three models of the 15,000-run 1:N pilot (paper §4.3: llama3.1, mistral, gemma2; spec A.6).
PILOT_MODELS: tuple[AuthorityModel, ...] = _models(_TABLE[_TABLE["pilot"] & (_TABLE["role"] == "headline")])
MODELS_BY_ID = {m.id: m for m in MAIN_MODELS}


def cohorts(models: Sequence[AuthorityModel] = MAIN_MODELS) -> dict[str, str]:
    """model id -> cohort, for the per-cohort rows of ab-tab12."""
    return {m.id: m.cohort for m in models}


#: the columns of the routing table (lib.llm.providers resolves them against llm.providers)
ROUTING_COLUMNS = ["model", "provider", "provider_model", "sub_provider"]


def routing(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Where each model was sent (issue 16; paper §4.5, App. E): model id, provider (``ollama`` for
    the local open-weight models, ``openai``, ``anthropic``, ``google``) and the provider's model
    name, which is the id itself (an Ollama tag or the provider's id); no sub-provider pin.
    ``table``: a :func:`load_models` table (default the paper's)."""
    t = _TABLE if table is None else table
    return pd.DataFrame({"model": t["id"], "provider": t["provider"], "provider_model": t["id"],
                         "sub_provider": None}, columns=ROUTING_COLUMNS).reset_index(drop=True)


def providers_by_id(table: pd.DataFrame | None = None) -> dict[str, str]:
    """model id -> provider, from :func:`routing` (what :func:`lib.authority.runs.to_requests` sets)."""
    r = routing(table)
    return dict(zip(r["model"], r["provider"]))


def prices(models: pd.DataFrame | None = None) -> pd.DataFrame:
    """USD per million tokens per model id (:func:`lib.llm.cost.read_prices` of the model table:
    Ollama models 0, API models the providers' list prices, sources in the ``price_source`` column).
    ``models``: a :func:`load_models` table (its ``id`` column); default every model of the paper's."""
    from lib.llm.cost import read_prices

    out = read_prices(MODELS_CSV, "id")
    return out if models is None else out[out["model"].isin(models["id"])].reset_index(drop=True)
