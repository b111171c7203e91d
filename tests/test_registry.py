"""The authority and AttriBench model tables: one resource file each, read by the paper package
and by the panel, so the two lists cannot drift."""
import pandas as pd
import pytest

from lib.attribution import models as at_models
from lib.authority import models as ab_models
from lib.panel.profiles import ATTRIBUTION, AUTHORITY, all_profiles


def test_authority_models_and_panel_profiles_are_one_list():
    table = ab_models.load_models()
    served = {mid: p for mid, p in all_profiles().items() if AUTHORITY in p.papers}
    assert sorted(served) == sorted(table["id"])
    for r in table.itertuples(index=False):
        assert served[r.id].tier == r.cohort
    main = [m.id for m in ab_models.MAIN_MODELS]
    assert main == list(table.loc[table["role"] != "archived", "id"]) and main[-1] == ab_models.ABLATION_MODEL.id
    assert {m.id: (m.cohort, m.temperature) for m in ab_models.MAIN_MODELS}["deepseek-r1:8b"] == ("open", 0.8)
    assert served["deepseek-r1:8b"].think_in_content and not served["gpt-5.4"].think_in_content


def test_attribution_table6_and_panel_profiles_are_one_list():
    t6 = at_models.table6()
    served = [mid for mid, p in all_profiles().items() if ATTRIBUTION in p.papers]
    assert sorted(served) == sorted(t6["version"]) and len(t6) == 11
    assert t6["rag_subset"].dtype == bool and t6["rag_subset"].sum() == 2
    assert all_profiles()["moonshotai/Kimi-K2.5"].temperature == 0.7


def test_bad_authority_table_names_file_column_and_values(tmp_path):
    bad = ab_models.load_models().assign(cohort="frontier")
    bad.loc[0, "cohort"] = "huge"
    bad = bad.assign(reasoning="F", think_in_content="F", pilot="F")
    path = tmp_path / "authority_models.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"authority_models.csv: column cohort expects one of .*'huge'"):
        ab_models.load_models(path)
    pd.DataFrame({"id": ["x"]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match="missing columns"):
        ab_models.load_models(path)
