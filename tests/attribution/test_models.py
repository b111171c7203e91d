"""lib.attribution.models: Table 6 (paper A.8) as data, its families, prices, routing and a profile's own rows."""
import math

import pytest
import yaml

from lib import config, usermodels
from lib.attribution import models


def test_table6_has_the_papers_eleven_models_with_unique_versions():
    t = models.table6()
    assert len(t) == 11 and t["version"].is_unique and t["model"].is_unique
    assert list(t.columns) == ["model", "version", "access", "reasoning", "rag_subset", "family"]
    # Together AI serves eight; the others are the providers' family (paper Table 1 prompts)
    assert (t["family"] == "together").sum() == 8
    assert set(t.loc[t["family"] == "providers", "model"]) == {"GPT-5.1", "Claude 4.6 Sonnet", "Gemini 2.5 Flash-Lite"}
    assert t.loc[t["rag_subset"], "model"].tolist() == ["GPT-5.1", "Claude 4.6 Sonnet"]   # † in the RAG figures
    assert models.display_names()["claude-sonnet-4-6"] == "Claude 4.6 Sonnet"
    r = models.routing()
    assert r.loc[r["model"] == "zai-org/GLM-5", "provider"].item() == "together"
    assert r["sub_provider"].isna().all() and (r["model"] == r["provider_model"]).all()


def test_prices_by_hand():
    tab = models.for_profile()
    p = models.prices(tab[tab["version"].isin(["gpt-5.1", "zai-org/GLM-5"])])
    assert p["model"].tolist() == ["gpt-5.1", "zai-org/GLM-5"]
    assert p.loc[0, ["price_in", "price_out"]].tolist() == [1.25, 10.0]
    assert math.isnan(p.loc[1, "price_in"]) and math.isnan(p.loc[1, "price_out"])   # Together: unknown until given
    assert len(models.prices()) == 11


def _profile(tmp_path, text: str, mode: str = "add") -> config.Profile:
    (tmp_path / "mine.csv").write_text(text)
    doc = {"name": "t", "synthetic": True, "seed": 1, "world": {"n_authors": 100},
           "models": {"attribution_bias": {"file": str(tmp_path / "mine.csv"), "mode": mode}}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(doc))
    return config.load_profile(tmp_path / "p.yaml")


def test_own_models_fill_the_derived_columns(tmp_path):
    cfg = _profile(tmp_path, "version,provider\nqwen3:8b,ollama\nmine/big,together\n", mode="replace")
    t = models.for_profile(cfg)
    assert t["model"].tolist() == ["qwen3:8b", "mine/big"]          # display name defaults to the version
    assert t["access_via"].tolist() == ["ollama", "together"] and t["family"].tolist() == ["providers", "together"]
    assert t["rag_subset"].tolist() == ["F", "F"] and models.table6(t)["rag_subset"].tolist() == [False, False]


def test_a_bad_own_field_names_file_row_field_and_allowed_values(tmp_path):
    with pytest.raises((config.ProfileError, usermodels.ModelTableError),
                       match=r"mine.csv row 2 \(m1\): field size_class expects one of \['S', 'M', 'L', 'XL'\], got 'XXL'"):
        _profile(tmp_path, "version,provider,size_class\nm1,ollama,XXL\n")
