"""lib.panel.profiles: a model table's rows become profiles by hand (ids, access, provider, grounding,
aliases), models shared by several papers have one profile, bad tables name the file and column,
and a request's model (and grounding) resolves to its profile."""
import pandas as pd
import pytest

from lib import paths
from lib.panel import profiles
from lib.panel.profiles import all_profiles, resolve

LSB_ROWS = pd.DataFrame({
    "key": ["tiny-8b", "gem-grounded"], "api_model": ["org/tiny-8b-instruct (free)", "gem-pro"],
    "provider_sub_provider": ["openrouter / deepinfra/bf16", "gemini (Vertex)"], "quantization": ["fp8", ""],
    "temperature": ["0.25", "1.0"], "reasoning": ["F", "T"], "size_class": ["S", "XL (P)"],
    "context": ["8K", ""], "price_in_out_usd_per_mtok": [".03/.05", ""]})


def test_lsb_rows_become_profiles_by_hand():
    tiny, gem = profiles._lsb_profiles(LSB_ROWS, own=True)
    assert (tiny.id, tiny.key, tiny.api_model, tiny.aliases) == ("org/tiny-8b-instruct", "tiny-8b",
                                                                 "org/tiny-8b-instruct", ("tiny-8b",))
    assert (tiny.access, tiny.size_class, tiny.provider, tiny.temperature, tiny.reasoning, tiny.grounded) == (
        "open", "S", "deepinfra", 0.25, False, False)
    # a grounded configuration keeps its key as id and shares the base model's API id
    assert (gem.id, gem.api_model, gem.grounded, gem.aliases) == ("gem-grounded", "gem-pro", True, ())
    assert (gem.access, gem.size_class, gem.provider, gem.reasoning, gem.own) == ("proprietary", "XL", "gemini", True, True)
    assert profiles._size_from_class(" M (P) ") == ("proprietary", "M") and profiles._size_from_class("L") == ("open", "L")


def test_a_bad_model_table_names_the_file_and_the_field(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"lsb_models.csv: missing columns \['temperature'\]"):
        profiles._lsb_profiles(LSB_ROWS.drop(columns="temperature"))
    (tmp_path / "authority_models.csv").write_text("id,reasoning,provider\nm1,T,x\nm2,yes,x\n")
    monkeypatch.setattr(paths, "RESOURCES", tmp_path)
    with pytest.raises(ValueError, match=r"authority_models.csv: column reasoning expects 'T' or 'F', got \['yes'\]"):
        profiles._paper_table("authority_models.csv", {"id", "reasoning", "provider"})
    with pytest.raises(ValueError, match=r"authority_models.csv: missing columns \['cohort'\]"):
        profiles._paper_table("authority_models.csv", {"id", "cohort"})
    with pytest.raises(KeyError, match=r"own models: unknown paper\(s\) \['authority'\]"):
        profiles.set_own_models({"authority": LSB_ROWS})


def test_every_paper_table_row_has_one_profile_with_the_papers_it_serves():
    p = all_profiles()
    lsb = pd.read_csv(paths.RESOURCES / "lsb_models.csv", dtype=str, keep_default_na=False)
    auth = pd.read_csv(paths.RESOURCES / "authority_models.csv", dtype=str, keep_default_na=False)
    attr = pd.read_csv(paths.RESOURCES / "attribution_models.csv", dtype=str, keep_default_na=False)
    assert sum(profiles.LSB in x.papers for x in p.values()) == len(lsb)
    assert {m for m, x in p.items() if profiles.AUTHORITY in x.papers} == set(auth["id"])
    assert {m for m, x in p.items() if profiles.ATTRIBUTION in x.papers} == set(attr["version"])
    claude = p["claude-sonnet-4-6"]        # in two papers, one profile: the authority cohort and the AttriBench family
    assert claude.papers == (profiles.AUTHORITY, profiles.ATTRIBUTION) and claude.tier == "frontier"
    assert claude.family == "providers" and claude.temperature == 1.0
    assert p["gpt-5.1"].temperature == profiles.ATTRIBUTION_TEMPERATURE == 0.7     # AttriBench-only: §5.1
    assert p["deepseek-r1:8b"].think_in_content and not p["llama3.1:8b"].think_in_content
    attrs = claude.attributes()
    assert attrs["papers"] == list(claude.papers) and attrs["aliases"] == [] and attrs["id"] == "claude-sonnet-4-6"


def test_resolve_is_case_insensitive_and_reads_every_grounding_request():
    assert resolve("  META-LLAMA/Llama-3.1-8B-Instruct ").id == "meta-llama/llama-3.1-8b-instruct"
    assert resolve("gemini-2.5-flash", {"tools": [{"type": "google_search"}]}).id == "gemini-2.5-flash-grounded"
    assert resolve("gemini-2.5-pro", {"tools": [{"type": "function"}, {"google_search": {}}]}).grounded
    assert not resolve("gemini-2.5-pro", {"tools": [{"type": "function"}], "grounded": False}).grounded
    with pytest.raises(KeyError, match="model 'gpt-5.1' has no grounded configuration"):
        resolve("gpt-5.1", {"grounded": True})
    with pytest.raises(KeyError, match="unknown model 'gpt-9'; the panel serves: "):
        resolve("gpt-9")
