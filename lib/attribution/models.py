"""The eleven LLMs of the paper's evaluation (paper §5.1, A.8 Table 6; reference B.0, B.3).

Data, not computation: ``lib/resources/attribution_models.csv`` (the file the synthetic panel
reads too) holds the display name as in the figures, API model id (the version), how it was
accessed, the reasoning setting of §5.1, whether its evidence-conditioned (RAG) runs used the
300-matching subsets (marked † in the paper's RAG figures; reference B.3 RAG item 9), and the
panel's attributes (access, size class, reasoning flag, provider).
"""
from __future__ import annotations

from functools import lru_cache

import pandas as pd

from lib import paths

MODELS_CSV = paths.RESOURCES / "attribution_models.csv"
_TABLE6 = ["model", "version", "access_via", "reasoning_setting", "rag_subset"]


@lru_cache(maxsize=1)
def _table() -> pd.DataFrame:
    raw = pd.read_csv(MODELS_CSV, dtype=str, keep_default_na=False)
    missing = [c for c in _TABLE6 if c not in raw.columns]
    if missing:
        raise ValueError(f"{MODELS_CSV}: missing columns {missing}; expected {_TABLE6}")
    bad = sorted(set(raw["rag_subset"]) - {"T", "F"})
    if bad:
        raise ValueError(f"{MODELS_CSV}: column rag_subset expects 'T' or 'F', got {bad}")
    return raw


def table6() -> pd.DataFrame:
    """Paper Table 6 as data: ``model, version, access, reasoning, rag_subset``."""
    t = _table()[_TABLE6].rename(columns={"access_via": "access", "reasoning_setting": "reasoning"})
    return t.assign(rag_subset=t["rag_subset"] == "T")


def display_names() -> dict[str, str]:
    """Model id → display name, for figure labels."""
    return dict(zip(_table()["version"], _table()["model"]))


#: the columns of the routing table (lib.llm.providers resolves them against llm.providers)
ROUTING_COLUMNS = ["model", "provider", "provider_model", "sub_provider"]


def routing() -> pd.DataFrame:
    """Where each Table 6 model was sent (issue 16; §5.1 "access"): model id (the version), provider
    (``openai``, ``anthropic``, ``google``, ``together``) and the provider's model name (the version
    is the API id each provider knows); no sub-provider pin."""
    t = _table()
    missing = [c for c in ("version", "provider") if c not in t.columns]
    if missing:
        raise ValueError(f"{MODELS_CSV}: missing columns {missing}; routing needs version and provider")
    return pd.DataFrame({"model": t["version"], "provider": t["provider"], "provider_model": t["version"],
                         "sub_provider": None}, columns=ROUTING_COLUMNS).reset_index(drop=True)


def prices() -> pd.DataFrame:
    """USD per million tokens per model id (version) (:func:`lib.llm.cost.read_prices` of the model
    table; the Together models' prices are unknown, NaN, until a profile gives them in ``llm.prices``)."""
    from lib.llm.cost import read_prices

    return read_prices(MODELS_CSV, "version")
