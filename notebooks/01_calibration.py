# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: LLM audit companion
#     language: python
#     name: llm-audit-companion
# ---

# %% [markdown]
# # 01 Calibration: the models and their temperatures
#
# Reproduces LLMScholarBench §3.2 ("Models") and Appendix A.3 ("Temperature calibration").
# The benchmark covers 22 LLMs that differ in access (open weights or proprietary), size and
# reasoning design, served through OpenRouter with a pinned sub-provider, plus the two Gemini
# models with web search (RAG) as extra configurations: 24 configurations in all.

# %%
from lib import artifacts, config
from lib.llm import models as llm_models

# %% tags=["parameters"]
profile = "quick"

# %%
cfg = config.load_profile(profile)
models = llm_models.load_models()

# %% [markdown]
# ## Table 1: LLMs by size class and access
#
# The 22 evaluated LLMs grouped by parameter count (small < 10B, medium 10–50B, large 50–400B,
# extra large ≥ 400B) and access. Derived from the release's model configurations
# (`lib/resources/lsb_models.csv`), so it is the paper's table, not synthetic data; it keeps the
# release's classification (e.g. grok-4-fast listed as small).

# %%
tab1 = llm_models.table1(models)
artifacts.save_table(tab1, "lsb-tab1", synthetic=False)
tab1
