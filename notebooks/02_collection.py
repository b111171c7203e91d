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
# # 02 Collection: the prompts and the raw responses
#
# Reproduces LLMScholarBench §3.2 and Appendix A.1 ("Prompts", Fig. A.1). Every request uses
# one standardized template with a task description, step-by-step instructions and a required
# JSON output format; three elements vary by task parameter: the selection criteria, the
# `backup_indicator` of step 5 and the output example. There are 30 (task family, parameter)
# pairs: top_k (2), the 12 constrained `biased_top_k` variants, epoch (2), field (2), twins (10
# reference scholars) and seniority (2).

# %%
from lib import artifacts, config
from lib.llm import prompts

# %% tags=["parameters"]
profile = "quick"

# %%
cfg = config.load_profile(profile)

# %% [markdown]
# ## Fig. A.1: the prompt template, rendered for every task parameter
#
# The text below is the real prompt set (not synthetic): the Fig. A.1 template filled for all 30
# (task family, parameter) pairs, in the layout of the release's `final_prompts.txt`, which the
# test suite compares with it character for character. It keeps the release's quirks: the
# trailing space after "(APS).", and the doubled "the the" that step 2 produces for top_k.
# Every model except Gemini also receives the system message shown first (the release's Gemini
# path sends the user prompt alone).

# %%
print(prompts.SYSTEM_MESSAGE)

# %%
rendered = prompts.render_final_prompts()
artifacts.save_text(rendered, "lsb-figA1", synthetic=False)
print(prompts.render("biased_top_k", "top_100_bias_gender_female"))
