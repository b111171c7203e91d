"""lib.authority.models: the paper's model table (§4.5, App. E), its views, prices and a profile's own rows."""

import pytest
import yaml

from lib import config, usermodels
from lib.authority import models


def test_table_loads_with_unique_ids_and_the_papers_views():
    t = models.load_models()
    assert t["id"].is_unique and len(t) == 10
    assert t["temperature"].dtype == float and t["pilot"].dtype == bool
    assert [m.id for m in models.HEADLINE_MODELS] == ["llama3.1:8b", "mistral:7b", "deepseek-r1:8b", "gemma2:9b",
                                                     "qwen2.5:7b", "gpt-5.4", "gemini-3-flash-preview",
                                                     "claude-sonnet-4-6"]
    assert models.ABLATION_MODEL == models.AuthorityModel("gpt-4o-mini", "ablation", 1.0, "openai")
    assert [m.id for m in models.PILOT_MODELS] == ["llama3.1:8b", "mistral:7b", "gemma2:9b"]   # §4.3
    # open models at Ollama's default 0.8, closed at the providers' 1.0; the archived model is not audited
    assert {m.cohort: m.temperature for m in models.MAIN_MODELS} == {"open": 0.8, "frontier": 1.0, "ablation": 1.0}
    assert [m.id for m in models.audited(t)] == [m.id for m in models.MAIN_MODELS]
    assert "gemini-2.5-flash" not in models.MODELS_BY_ID
    assert models.cohorts()["qwen2.5:7b"] == "open" and models.cohorts()["gpt-4o-mini"] == "ablation"
    assert models.providers_by_id()["deepseek-r1:8b"] == "ollama"
    r = models.routing()
    assert list(r.columns) == models.ROUTING_COLUMNS and (r["model"] == r["provider_model"]).all()


def test_prices_by_hand():
    p = models.prices(models.load_models().iloc[[0, 5]])
    assert p["model"].tolist() == ["llama3.1:8b", "gpt-5.4"]
    assert p[["price_in", "price_out"]].values.tolist() == [[0.0, 0.0], [2.5, 15.0]]
    assert "no API charge" in p["price_source"].iloc[0]
    assert len(models.prices()) == 10 and not models.prices()["price_in"].isna().any()


def test_bad_table_column_names_file_column_and_expected_values(tmp_path):
    bad = tmp_path / "m.csv"
    text = models.MODELS_CSV.read_text().replace("llama3.1:8b,open,headline", "llama3.1:8b,huge,headline")
    bad.write_text(text)
    with pytest.raises(ValueError, match=r"m.csv: column cohort expects one of \['open', 'frontier', 'ablation'\], "
                                         r"got \['huge'\]"):
        models.load_models(bad)


def _profile(tmp_path, text: str) -> config.Profile:
    (tmp_path / "mine.csv").write_text(text)
    doc = {"name": "t", "synthetic": True, "seed": 1, "world": {"n_authors": 100},
           "models": {"authority_bias": {"file": str(tmp_path / "mine.csv"), "mode": "add"}}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(doc))
    return config.load_profile(tmp_path / "p.yaml")


def test_own_models_get_the_derived_defaults(tmp_path):
    cfg = _profile(tmp_path, "id,provider,cohort\nqwen3:8b,ollama,open\nmy-api,openai,frontier\n")
    t = models.for_profile(cfg)
    own = t.set_index("id").loc[["qwen3:8b", "my-api"]]
    assert own["temperature"].tolist() == [0.8, 1.0] and own["access"].tolist() == ["open", "proprietary"]
    assert own["size_class"].tolist() == ["S", "XL"] and not own["pilot"].any()
    assert len(t) == 12


def test_a_bad_own_temperature_names_file_row_and_field(tmp_path):
    with pytest.raises((config.ProfileError, usermodels.ModelTableError),
                       match=r"mine.csv row 2 \(qwen3:8b\): field temperature expects a number, got 'warm'"):
        _profile(tmp_path, "id,provider,cohort,temperature\nqwen3:8b,ollama,open,warm\n")
