"""Model profiles: the published attributes of every model the three papers query.

LLMScholarBench (reference §1.4): the 24 configurations of ``lib/resources/lsb_models.csv``,
served under their API ids (``meta-llama/llama-3.1-8b-instruct`` ...). The two grounded Gemini
configurations share the API id of their base model; they are listed as
``gemini-2.5-flash-grounded`` / ``gemini-2.5-pro-grounded`` and reached either by that id or by
the base id with the request field ``"grounded": true`` (see :func:`resolve`).

Authority bias (paper §4.5, appendix A.4, E; ``lib/resources/authority_models.csv``): five 7–9B
open-weight Ollama models, three frontier closed-weight models, the gpt-4o-mini tier ablation and
the archived gemini-2.5-flash. AttriBench (paper appendix A.8 Table 6; reference B.0;
``lib/resources/attribution_models.csv``): eleven models. The analysis packages read the same
files (``lib.authority.models``, ``lib.attribution.models``); the panel reads them here itself, so
it imports no analysis package (DESIGN §5). Models that appear in several papers
(claude-sonnet-4-6, openai/gpt-oss-120b, gemini-2.5-flash) have one profile.

``temperature`` is the temperature the paper ran the model at: the calibrated temperature for
LLMScholarBench, Ollama's default 0.8 for the open authority models, the provider default 1.0
for the frontier ones, and 0.7 for AttriBench (paper §5.1). A request without a temperature
uses it.

A profile's own models (``models.<paper>`` of the profile; :func:`set_own_models`, ``python -m
lib.panel serve --own-models PAPER=CSV``) come as rows of the paper's resource file and are served
next to the papers' models, flagged ``own``. They have no published numbers, so their latent
parameters are those of the paper's models sharing their attributes (LLMScholarBench: the mean of
the Figure 2 group rows of their access, size class and reasoning; authority bias: the mean fit of
their cohort; AttriBench: the mean published accuracies of their runner family), the secondary
ones drawn from the documented ranges by sha256(seed, model) like every model's.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import pandas as pd

from lib import paths

LSB = "llmscholarbench"
AUTHORITY = "authority_bias"
ATTRIBUTION = "attribution_bias"
ATTRIBUTION_TEMPERATURE = 0.7    # AttriBench paper §5.1


@dataclass(frozen=True)
class ModelProfile:
    """Published attributes of one model as served by the panel."""

    id: str                      # the model name a request sends (the API id)
    key: str                     # short name (LLMScholarBench config key, Ollama tag, ...)
    papers: tuple[str, ...]
    access: str                  # "open" | "proprietary"
    size_class: str              # S | M | L | XL (LLMScholarBench classes; 7–9B = S; frontier = XL)
    reasoning: bool              # the release's reasoning flag (LSB) or the model's trace habit
    temperature: float           # temperature the paper ran it at (calibrated for LSB)
    provider: str
    grounded: bool = False
    api_model: str = ""          # the id sent upstream (grounded configs share their base id)
    quantization: str = ""
    context: str = ""
    price_in_out_usd_per_mtok: str = ""
    tier: str = ""               # authority paper cohort: "open" (7–9B) | "frontier" | "ablation"
    think_in_content: bool = False   # Ollama deepseek-r1 returns its <think> block inside the text
    family: str = ""             # AttriBench runner family: "providers" | "together"
    own: bool = False            # a profile's own model (no published numbers; see the module doc)
    aliases: tuple[str, ...] = field(default_factory=tuple)

    def attributes(self) -> dict:
        """The JSON attributes GET /v1/models exposes for this model."""
        d = asdict(self)
        d["papers"] = list(self.papers)
        d["aliases"] = list(self.aliases)
        return d


def _size_from_class(raw: str) -> tuple[str, str]:
    """LSB 'class' → (access, size): "S (P)" is proprietary size S (reference §2.11)."""
    raw = raw.strip()
    if raw.endswith("(P)"):
        return "proprietary", raw.replace("(P)", "").strip()
    return "open", raw


#: paper -> its own models' rows (resource-file columns), served next to the papers' models
_OWN: dict[str, pd.DataFrame] = {}


def set_own_models(tables: Mapping[str, pd.DataFrame]) -> None:
    """Serve these own models (paper -> rows of its resource file) from now on, instead of any set
    before; ``{}`` serves the papers' models only. Callers clear the caches built on
    :func:`all_profiles` (:func:`lib.panel.core.set_own_models` does)."""
    unknown = sorted(set(tables) - {LSB, AUTHORITY, ATTRIBUTION})
    if unknown:
        raise KeyError(f"own models: unknown paper(s) {unknown}; expected {[LSB, AUTHORITY, ATTRIBUTION]}")
    _OWN.clear()
    _OWN.update({k: v for k, v in tables.items() if v is not None and len(v)})
    all_profiles.cache_clear()
    _alias_map.cache_clear()


def _lsb_profiles(table: pd.DataFrame | None = None, *, own: bool = False) -> list[ModelProfile]:
    table = pd.read_csv(paths.RESOURCES / "lsb_models.csv", dtype=str, keep_default_na=False) if table is None else table
    need = {"key", "api_model", "provider_sub_provider", "temperature", "reasoning", "size_class"}
    missing = need - set(table.columns)
    if missing:
        raise ValueError(f"lsb_models.csv: missing columns {sorted(missing)} (expected {sorted(need)})")
    out = []
    for row in table.itertuples(index=False):
        access, size = _size_from_class(row.size_class)
        grounded = "grounded" in row.key
        api = row.api_model.split(" (")[0].strip()
        model_id = row.key if grounded else api
        # "openrouter / deepinfra/bf16" → "deepinfra"; "gemini (Vertex)" → "gemini"
        sub = row.provider_sub_provider.split(" / ", 1)[-1]
        provider = sub.split("/")[0].split(" ")[0].strip() or "openrouter"
        out.append(ModelProfile(
            id=model_id, key=row.key, papers=(LSB,), access=access, size_class=size,
            reasoning=row.reasoning.strip() == "T", temperature=float(row.temperature),
            provider=provider, grounded=grounded, api_model=api, quantization=row.quantization,
            context=row.context, price_in_out_usd_per_mtok=row.price_in_out_usd_per_mtok,
            aliases=(row.key,) if row.key != model_id else (), own=own,
        ))
    return out


def _paper_table(name: str, need: set[str]) -> pd.DataFrame:
    """A paper's model table from lib/resources (the file its analysis package reads too)."""
    path = paths.RESOURCES / name
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = need - set(table.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)} (expected {sorted(need)})")
    for col in need & {"reasoning", "think_in_content"}:
        bad = sorted(set(table[col]) - {"T", "F"})
        if bad:
            raise ValueError(f"{path}: column {col} expects 'T' or 'F', got {bad}")
    return table


@lru_cache(maxsize=1)
def all_profiles() -> dict[str, ModelProfile]:
    """Every panel model by id, LLMScholarBench first (in lsb_models.csv order)."""
    profiles: dict[str, ModelProfile] = {p.id: p for p in _lsb_profiles()}
    for p in _lsb_profiles(_OWN[LSB], own=True) if LSB in _OWN else []:
        if p.id in profiles:     # an own configuration of a model the paper has: its key is its id
            p = ModelProfile(**{**asdict(p), "id": p.key, "aliases": ()})
        profiles[p.id] = p
    authority = _paper_table("authority_models.csv", {"id", "cohort", "temperature", "access", "size_class",
                                                      "reasoning", "provider", "think_in_content"})
    _add_authority(profiles, authority, own=False)
    if AUTHORITY in _OWN:
        _add_authority(profiles, _OWN[AUTHORITY], own=True)
    attribution = _paper_table("attribution_models.csv", {"version", "access_via", "access", "size_class", "reasoning",
                                                          "provider"})
    _add_attribution(profiles, attribution.assign(
        family=["together" if a == "Together AI" else "providers" for a in attribution["access_via"]]), own=False)
    if ATTRIBUTION in _OWN:
        _add_attribution(profiles, _OWN[ATTRIBUTION], own=True)
    return profiles


def _add_authority(profiles: dict[str, ModelProfile], table: pd.DataFrame, *, own: bool) -> None:
    """Authority-bias models (paper §4.5, appendix E; reference A.5, A.9): Ollama tags and provider ids."""
    for r in table.itertuples(index=False):
        if r.id in profiles:
            p = profiles[r.id]
            profiles[r.id] = ModelProfile(**{**asdict(p), "papers": tuple(dict.fromkeys(p.papers + (AUTHORITY,))),
                                             "tier": r.cohort,
                                             "think_in_content": p.think_in_content or r.think_in_content == "T"})
            continue
        profiles[r.id] = ModelProfile(id=r.id, key=r.id, papers=(AUTHORITY,), access=r.access, size_class=r.size_class,
                                      reasoning=r.reasoning == "T", temperature=float(r.temperature),
                                      provider=r.provider, api_model=r.id, tier=r.cohort,
                                      think_in_content=r.think_in_content == "T", own=own)


def _add_attribution(profiles: dict[str, ModelProfile], table: pd.DataFrame, *, own: bool) -> None:
    """AttriBench models (paper appendix A.8 Table 6; reference B.0), run at T = 0.7 (paper §5.1)."""
    for r in table.itertuples(index=False):
        if r.version in profiles:
            p = profiles[r.version]
            profiles[r.version] = ModelProfile(**{**asdict(p), "papers": tuple(dict.fromkeys(p.papers + (ATTRIBUTION,))),
                                                  "family": r.family})
            continue
        profiles[r.version] = ModelProfile(id=r.version, key=r.version.split("/")[-1], papers=(ATTRIBUTION,),
                                           access=r.access, size_class=r.size_class, reasoning=r.reasoning == "T",
                                           temperature=ATTRIBUTION_TEMPERATURE, provider=r.provider,
                                           api_model=r.version, family=r.family, own=own)


@lru_cache(maxsize=1)
def _alias_map() -> dict[str, str]:
    amap: dict[str, str] = {}
    for p in all_profiles().values():
        amap[p.id.lower()] = p.id
        for a in p.aliases:
            amap[a.lower()] = p.id
    return amap


def resolve(model: str, body: dict | None = None) -> ModelProfile:
    """The profile a request addresses.

    Grounding (Gemini with Google Search, LLMScholarBench's RAG intervention) is requested in
    any of three ways: the model id suffix ``-grounded`` (``gemini-2.5-pro-grounded``), the
    body field ``"grounded": true``, or an OpenAI-style ``tools`` entry named ``googleSearch``
    / ``google_search``. Only the two Gemini 2.5 models have grounded profiles; for any other
    model the grounding request is an error (KeyError naming the model).
    """
    body = body or {}
    mid = _alias_map().get(str(model).strip().lower())
    if mid is None:
        known = ", ".join(sorted(all_profiles()))
        raise KeyError(f"unknown model {model!r}; the panel serves: {known}")
    profile = all_profiles()[mid]
    wants_ground = bool(body.get("grounded")) or any(
        isinstance(t, dict) and any(k in t for k in ("googleSearch", "google_search"))
        or (isinstance(t, dict) and str(t.get("type", "")).lower() in ("google_search", "googlesearch"))
        for t in body.get("tools") or [])
    if wants_ground and not profile.grounded:
        gid = profile.id + "-grounded"
        if gid not in all_profiles():
            raise KeyError(f"model {profile.id!r} has no grounded configuration "
                           f"(only gemini-2.5-flash and gemini-2.5-pro do)")
        profile = all_profiles()[gid]
    return profile
