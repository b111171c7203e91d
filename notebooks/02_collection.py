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
from lib.scholar import prompts
from lib.scholar import collection
from lib.scholar import models as lsb_models
from lib.stage import Stage

# %% tags=["parameters"]
profile = "quick"
runs = 4                     # repeated runs per prompt (replicate index); paper: 62 (twice daily for 31 days)
families = ["top_k", "epoch", "field", "twins", "seniority"]   # the baseline tasks
params_per_family = 1        # task parameters per family, in the release's order; 0: all (paper)
constrained_prompts = True   # add the 12 biased_top_k (constrained) prompts; capped by params_per_family
rag = True                   # collect the two grounded (web-search) Gemini configurations
temperature_source = "calibration"   # "calibration": 01's selected temperatures; "paper": Table A.1's
source = "collect"           # "release": import the paper's runs from real_data.raw_responses_dir (Tier A, no request)

# %%
cfg = config.load_profile(profile)
models = lsb_models.for_profile(cfg)   # the paper's configurations and the profile's own (models.llmscholarbench)
stage = Stage("02_collection")   # outputs/data/02_collection/: the files lib/scholar/paper.py declares

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


# %% [markdown]
# ## Longitudinal collection (§3.2 "Data collection", App. A.1)
#
# The paper queried every configuration twice daily (08:00 and 16:00) for 31 days at its
# calibrated temperature, with up to three validation attempts per prompt. Here a run is a
# replicate index: run r of a prompt is the r-th independent request (the quick profile uses
# fewer runs). The prompts are the baseline tasks, the constrained (`biased_top_k`) prompts, and
# every task for the two grounded Gemini configurations (RAG with web search). The temperature
# of each configuration is the one notebook 01 selected. On the embedded default the answers
# come from the **synthetic** LLM panel: everything below is synthetic. The raw responses go to
# the append-only store (`outputs/raw/interventions/`); a re-run resumes from it.
#
# With `source = "release"` (Tier A) nothing is asked: the paper's own runs are imported from the
# LLMScholarBench data release (`real_data.raw_responses_dir`, DOI 10.5281/zenodo.20417107). The
# importer puts the longitudinal runs with the constrained prompts in the store's `baseline`
# experiment and the grounded Gemini runs in `rag`; the names are matched against the release's
# ground truth (`real_data.ground_truth_dir`). The release fixes models, temperatures, tasks and
# runs, so the collection parameters above are not used; the numbers are real, not synthetic.

# %%
grid = collection.CollectionGrid(families, params_per_family, constrained_prompts, rag, runs)
runs_02 = collection.longitudinal_collection(cfg, models, source=source, temperature_source=temperature_source,
                                             grid=grid)
print(runs_02.line)

# %% [markdown]
# ## Labelled attempts and recommended names
#
# One row per attempt with the reference's labels (faithful) and the paper's seven labels, the
# kept attempt per request under each, the refusal flags and the provenance of the answer; one
# row per recommended name of the kept attempts with its match in the ground truth (faithful rule
# for the reference's name rows, corrected rule for the paper's). Notebooks 03 and 04 read these.

# %%
runs_02 = collection.label(runs_02, stage)
attempts = runs_02.attempts
print(f"{len(attempts)} attempts of {attempts['request_id'].nunique()} requests; {len(runs_02.names)} name rows")

# %% [markdown]
# ## Counts per label, model and task
#
# Attempts by the reference's label (faithful), per configuration and task family, and the same
# for the paper's seven labels. Synthetic data; written as CSV next to the parquet (not paper
# artifacts).

# %%
counts = collection.label_counts(attempts)
counts_paper = collection.label_counts(attempts, "label_paper")
stage.write(counts, "label_counts.csv", index=True)
stage.write(counts_paper, "label_counts_paper.csv", index=True)
counts

# %%
counts_paper

# %% [markdown]
# ## Provenance
#
# Per configuration: where the requests went, what answered (served model, provider, system
# fingerprint), the temperature, how many requests, attempts, HTTP tries and failed attempts,
# tokens, latency and the time span of the collection.

# %%
provenance = collection.provenance(attempts, synthetic=cfg.synthetic)
stage.write(provenance, "provenance.csv")
provenance
