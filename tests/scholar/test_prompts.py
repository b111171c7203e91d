"""Prompts: the rendered Fig. A.1 template equals the release's final_prompts.txt (lsb-figA1)."""
import difflib

import pytest

from lib import paths
from lib.llm.client import prompt_sha256
from lib.scholar import prompts
from lib.scholar.models import load_models

GOLDEN = paths.TEST_DATA / "lsb_final_prompts.txt"


def test_rendered_prompts_equal_the_release_character_for_character():
    golden = GOLDEN.read_text(encoding="utf-8")
    rendered = prompts.render_final_prompts()
    if rendered != golden:
        diff = "".join(list(difflib.unified_diff(golden.splitlines(True), rendered.splitlines(True), "release", "rendered"))[:30])
        pytest.fail(f"rendered prompts differ from {GOLDEN}:\n{diff}")


def test_thirty_pairs_with_the_published_family_sizes():
    counts = {f: len(prompts.task_params([f])) for f in prompts.FAMILY_ORDER}
    assert counts == {"top_k": 2, "biased_top_k": 12, "epoch": 2, "field": 2, "twins": 10, "seniority": 2}
    assert len({(tp.family, tp.param) for tp in prompts.TASK_PARAMS}) == 30
    assert len(prompts.task_params(prompts.EXPERIMENT_FAMILIES)) == 18


def test_release_quirks_are_kept():
    top5 = prompts.render("top_k", "top_5")
    assert "one of the the top 5 most influential" in top5
    assert "American Physical Society (APS). \nSpecifically" in top5
    assert prompts.render("field", "PER").count("Physics Education Research journal, published by the APS.") == 1
    assert "Bojana Korin-Hamzić." in prompts.render("twins", "random_female")


def test_top_k_example_lists_all_items_up_to_five_then_elides():
    assert prompts.top_k_example(3) == '[{"Name": "Scientist 1"}, {"Name": "Scientist 2"}, {"Name": "Scientist 3"}]'
    assert prompts.top_k_example(10).endswith('{"Name": "Scientist 3"}, ..., {"Name": "Scientist 10"}]')


def test_apostrophes_become_double_quotes_only_in_faithful_mode():
    tp = prompts.TaskParam("twins", "x", prompts._TWINS_MAIN, "Shaquille O'Neal")
    assert prompts.criteria(tp).endswith('O"Neal')
    assert prompts.criteria(tp, faithful=False).endswith("O'Neal")


def test_system_message_and_the_gemini_quirk():
    with_sys = prompts.messages("epoch", "1950s")
    assert [m["role"] for m in with_sys] == ["system", "user"]
    assert with_sys[0]["content"].startswith("You are an expert, highly knowledgeable")
    assert with_sys[0]["content"].endswith("Include all relevant physicists who meet the criteria.")
    assert [m["role"] for m in prompts.messages("epoch", "1950s", system_message=False)] == ["user"]
    models = load_models()
    assert set(models.loc[~models["system_message"], "key"]) == {
        "gemini-2.5-flash", "gemini-2.5-flash-grounded", "gemini-2.5-pro", "gemini-2.5-pro-grounded"}


def test_prompt_hash_changes_with_the_messages():
    a = prompt_sha256(prompts.messages("top_k", "top_5"))
    assert a == prompt_sha256(prompts.messages("top_k", "top_5"))
    assert a != prompt_sha256(prompts.messages("top_k", "top_100"))
    assert a != prompt_sha256(prompts.messages("top_k", "top_5", system_message=False))


def test_unknown_parameter_error_lists_the_family():
    with pytest.raises(KeyError, match="top_k has \\['top_5', 'top_100'\\]"):
        prompts.get("top_k", "top_10")


def test_model_table_types_and_groups():
    m = load_models()
    assert len(m) == 24
    assert m["reasoning"].dtype == bool and m["temperature"].dtype == float
    assert m.groupby("size_class", observed=True)["key"].apply(set).to_dict()["S"] == {
        "llama-3.1-8b", "qwen3-8b", "grok-4-fast", "gemini-2.5-flash", "gemini-2.5-flash-grounded"}
    assert (m.set_index("key").loc[["deepseek-chat-v3.1", "deepseek-r1-0528"], "reasoning"].tolist() == [True, False])
    assert m.set_index("key").loc["mistral-medium-3", ["price_in", "price_out", "temperature"]].tolist() == [0.4, 2.0, 1.5]
    assert m.loc[m["access"] == "proprietary", "price_in"].isna().all()
    assert m.set_index("key").loc["llama-3.1-8b", "sub_provider"] == "deepinfra/bf16"


def test_model_table_errors_name_file_and_column(tmp_path):
    bad = tmp_path / "models.csv"
    text = (paths.RESOURCES / "lsb_models.csv").read_text().replace(",0.0,F,S,", ",0.0,X,S,", 1)
    bad.write_text(text)
    with pytest.raises(ValueError, match=r"models.csv row 2 \(llama-3.1-8b\): column reasoning"):
        load_models(bad)
