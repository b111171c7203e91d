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
# # 04 Interventions: temperature, refusal reasons, constrained prompting and RAG
#
# Reproduces LLMScholarBench §4.2 (AQ2, "Temperature control", Figure 3), Appendix C.2
# (Figure C.12) and Appendix A.4 ("Refusals", Figures A.3–A.5 and Table A.2), with the claims
# of §4.2 and §5 they support; then §4.2 "Constrained prompting" and "RAG" (Figures 4 and 5) and
# Appendix C.3 (Figures C.13–C.18: per-model fans, trade-offs, socio-technical quadrants). It
# reads the attempts and name tables written by notebooks 01 (the temperature sweep) and 02
# (baseline, constrained prompting and RAG collection). On the embedded default those come from
# the **synthetic** LLM panel over the synthetic scholarly world: every number below is
# synthetic, not the paper's findings.

# %%
from functools import partial

from lib import artifacts, claims, config
from lib.scholar import refusals
from lib.scholar import aggregate as ag
from lib.scholar import benchmark
from lib.scholar import claims as lsb_claims
from lib.scholar import constrained as cp
from lib.scholar import intervention_figures as ifig
from lib.scholar import inputs as lsb_inputs
from lib.scholar import interventions as iv
from lib.stage import Stage

# %% tags=["parameters"]
profile = "quick"
label_mode = "faithful"           # "faithful": reference labels and refusal keywords; "paper": the paper's labels, corrected keywords
consistency_pairs = "consecutive"  # "all": the v1 variant (mean Jaccard over all pairs of replicates)
reasons_corrected = False         # True: split the seed sentences that missing commas fuse (18/21/18 seeds)
examples_per_reason = 2           # Table A.2 rows per refusal reason (the paper shows 3)
example_chars = 300               # Table A.2 text cut
before_param = "top_100"          # the unconstrained prompt constrained prompting is compared with (paper: top_100)
quadrant_temperature_stride = 1   # Fig. C.18(b): every n-th sweep temperature (1: all, the paper)

# %%
cfg = config.load_profile(profile)
stage = Stage("04_interventions")   # reads 01's and 02's tables, writes the files lib/scholar/paper.py declares
sweep_attempts = stage.read("01_calibration/attempts.parquet")
sweep_names = stage.read("01_calibration/names.parquet")
coll_attempts = stage.read("02_collection/attempts.parquet")
world = lsb_inputs.reference_dataset(cfg)   # the ground-truth release (Tier A), else the synthetic world
claims.clear("04_interventions")
print(f"sweep: {len(sweep_attempts):,} attempts, collection: {len(coll_attempts):,} attempts (synthetic={cfg.synthetic})")

# %% [markdown]
# ## Figure 3: effect of temperature by infrastructure group
#
# Mean values (± 95 % CI) of the nine metrics of Figure 2 across sampling temperatures, aggregated
# by model access, model size and reasoning capability (paper caption: higher temperatures
# generally reduce most technical metrics, with thresholds in validity; proprietary models are less
# sensitive). Computed from notebook 01's sweep under the reference's `temperature` query (no
# constrained prompts, no web search): refusals over every attempt, validity per request,
# consistency over the replicates of a configuration, and duplicates, author factuality,
# connectedness, similarity, gender diversity and gender parity per chosen attempt, the name-based
# ones against the same ground truth D as notebook 03; Wilson intervals for refusals and validity,
# t-intervals otherwise; all attempts of a group pooled. Each row's legend sits in its Duplicates
# panel. **Synthetic data on the embedded default** (labelled so when saved); the papers' data on
# the release profile.

# %%
ctx = benchmark.GroundTruthContext.from_world(world, mode=iv.context_mode(label_mode))
sweep = iv.temperature_filter(sweep_attempts)
per_attempt = ag.per_attempt_table(sweep, sweep_names, ctx, mode=label_mode, consistency_pairs=consistency_pairs)
curves = iv.temperature_curves(per_attempt, metrics=ifig.TEMPERATURE_METRICS)
stage.write(curves, "temperature_curves.parquet")
fig = ifig.temperature_grid(curves)
artifacts.save_figure(fig, "lsb-fig3", synthetic=cfg.synthetic)
curves.pivot_table(index=["group_kind", "group", "metric_name"], columns="temperature", values="mean").round(2)

# %% [markdown]
# ## Figure C.12: effect of temperature per model
#
# The same nine metrics per model across temperatures (paper caption: higher temperatures increase
# refusals and lower validity, consistency and factuality for most models). One row per model,
# coloured by access. **Synthetic data on the embedded default** (labelled so when saved); the
# papers' data on the release profile.

# %%
model_curves = iv.temperature_curves(per_attempt, groups=("model",), metrics=ifig.TEMPERATURE_METRICS)
access_of = sweep.drop_duplicates("model").set_index("model")["access"]
model_curves = model_curves.assign(access=model_curves["group"].map(access_of))
stage.write(model_curves, "temperature_curves_by_model.parquet")
fig = ifig.temperature_by_model(model_curves)
artifacts.save_figure(fig, "lsb-figC12", synthetic=cfg.synthetic)

# %% [markdown]
# ## Refusal reasons (Appendix A.4)
#
# Refusals are attempts whose raw output (for reasoning models the reasoning trace) contains a
# refusal keyword (reference §2.4). Each refusal text gets a reason: the category whose seed
# sentences are most similar on average (all-MiniLM-L6-v2 embeddings, cached on disk), or "Other
# or no explanation" for short texts without an explanatory word. Configurations: baseline,
# constrained prompting and RAG from notebook 02, temperature variation from notebook 01.

# %%
cache = refusals.EmbeddingCache()
table = iv.refusal_table({"temperature": sweep_attempts, "interventions": coll_attempts},
                         partial(refusals.assign_reasons, corrected=reasons_corrected, cache=cache),
                         mode=label_mode)
table["task_label"] = iv.task_label(table["task"], table["param"])
stage.write(table.drop(columns=["text"]), "refusals.parquet")
table.groupby("configuration")["refused"].agg(["size", "sum", "mean"]).round(3)

# %% [markdown]
# ### Figure A.3: refusal reasons by configuration
#
# Share of all attempts of a configuration that are refusals of each reason (paper caption:
# contradictory requests account for the largest share; unethical requests are more frequent under
# constrained prompting). N = attempts in the configuration. **Synthetic data on the embedded
# default** (labelled so when saved); the papers' data on the release profile.

# %%
shares = iv.reason_shares(table)
fig = ifig.reason_figure(shares)
artifacts.save_figure(fig, "lsb-figA3", synthetic=cfg.synthetic)
shares.pivot_table(index="reason", columns="configuration", values="share", sort=False).round(3)

# %% [markdown]
# ### Figure A.4: refusal reasons by configuration and infrastructure group
#
# Within each configuration, the refusals split by reason and model group, normalised so that all
# bars of a panel sum to 1, for (a) access, (b) size and (c) reasoning (paper caption: open,
# smaller and non-reasoning models allocate more refusals to contradictory requests, proprietary
# models more to unethical ones). N_r = refusals in the configuration. **Synthetic data on the
# embedded default** (labelled so when saved); the papers' data on the release profile.

# %%
group_shares = iv.reason_shares_by_group(table)
fig = ifig.reason_groups_figure(group_shares)
artifacts.save_figure(fig, "lsb-figA4", synthetic=cfg.synthetic)

# %% [markdown]
# ### Figure A.5: refusal reasons by configuration and task
#
# The same normalisation per task (twins split into real and fake reference persons; paper caption:
# contradictory-request refusals come mainly from twins-fake prompts, then twins-real). **Synthetic
# data on the embedded default** (labelled so when saved); the papers' data on the release profile.

# %%
task_shares = iv.reason_shares(table, by="task_label")
fig = ifig.reason_tasks_figure(task_shares)
artifacts.save_figure(fig, "lsb-figA5", synthetic=cfg.synthetic)

# %% [markdown]
# ### Table A.2: example refusal texts per reason
#
# For each reason, the refusal texts most similar to its seed sentences (de-duplicated on their
# first 20 characters, truncated). On the embedded default these are texts the synthetic panel
# wrote; on the release profile, the released models' answers.

# %%
examples = iv.reason_examples(table, per_reason=examples_per_reason, chars=example_chars)
artifacts.save_table(examples, "lsb-tabA2", synthetic=cfg.synthetic)
examples

# %% [markdown]
# ## Every metric per attempt (constrained prompting, RAG, quadrants)
#
# The analyses below need all nine metrics and more (task factualities, the four parities and
# diversities), per attempt: technical metrics from the attempts table, the name-based ones from
# the names of the chosen attempts matched against the ground truth (synthetic on the embedded
# default). Notebook 02's collection gives baseline, constrained and grounded (RAG) runs; notebook
# 01's sweep (its table of Figure 3) gives the temperature-variation configuration of Fig. C.18.
# **Synthetic data on the embedded default** (labelled so when saved); the papers' data on the
# release profile.

# %%
coll_names = stage.read("02_collection/names.parquet")
long = cp.metric_table(coll_attempts, coll_names, ctx, mode=label_mode, consistency_pairs=consistency_pairs)
# the sweep's values are Figure 3's per-attempt table (every metric, temperature kept)
quadrant_temperatures = sorted(sweep_attempts["temperature"].unique())[::quadrant_temperature_stride]
sweep_long = per_attempt[per_attempt["temperature"].isin(quadrant_temperatures)].assign(grounded=False)
stage.write(long, "per_attempt_all_metrics.parquet")
long.groupby(["grounded", "task"])["model"].nunique().rename("models").to_frame()

# %% [markdown]
# ## Figure 4: gender-constrained prompting, averaged over models
#
# Mean (± 95 % CI) of each metric before (B: the unconstrained top-100 prompt of the same models)
# and after (A) the gender constraint, one line per variant (equal representation, only female,
# only male, only neutral names), all attempts of all models pooled (paper caption: balanced
# prompts raise gender diversity with little change in parity but lower factuality; female-only
# prompts give the lowest factuality). A profile that did not collect a variant shows no line for
# it, and panels without any say "no data"; if the top-100 prompt was not collected, B uses the
# collected top-k prompt (column `before_param`). **Synthetic data on the embedded default**
# (labelled so when saved); the papers' data on the release profile.

# %%
fig4 = cp.before_after(long, cp.VARIANTS["gender"], before_param=before_param)
stage.write(fig4, "constrained_gender_overall.parquet")
fig = ifig.constrained_overall(fig4, "gender")
artifacts.save_figure(fig, "lsb-fig4", synthetic=cfg.synthetic)
cp.means_table(fig4, "metric_name", ["variant", "phase"])

# %% [markdown]
# ## Figures C.13–C.16: constrained prompting per model
#
# Before/after fans for every model with constrained runs, one row per model, on the nine headline
# metrics (diversity and parity of the constrained attribute), for the gender (C.13), ethnicity
# (C.14: equal, Asian-, White-, Latino-, Black-only), citation (C.15: lowly / highly cited only)
# and general-diversity (C.16) prompts. **Synthetic data on the embedded default** (labelled so
# when saved); the papers' data on the release profile.

# %%
per_model = cp.per_model(long, before_param=before_param)
stage.write(per_model["gender"], "constrained_gender_by_model.parquet")
stage.write(per_model["ethnicity"], "constrained_ethnicity_by_model.parquet")
stage.write(per_model["citations"], "constrained_citations_by_model.parquet")
stage.write(per_model["general"], "constrained_general_by_model.parquet")
cp.per_model_summary(per_model)

# %% [markdown]
# ### Figure C.13: gender-constrained prompting per model

# %%
fig = ifig.constrained_by_model(per_model["gender"], "gender")
artifacts.save_figure(fig, "lsb-figC13", synthetic=cfg.synthetic)

# %% [markdown]
# ### Figure C.14: ethnicity-constrained prompting per model

# %%
fig = ifig.constrained_by_model(per_model["ethnicity"], "ethnicity")
artifacts.save_figure(fig, "lsb-figC14", synthetic=cfg.synthetic)

# %% [markdown]
# ### Figure C.15: citation-constrained prompting per model

# %%
fig = ifig.constrained_by_model(per_model["citations"], "citations")
artifacts.save_figure(fig, "lsb-figC15", synthetic=cfg.synthetic)

# %% [markdown]
# ### Figure C.16: general diversity-constrained prompting per model

# %%
fig = ifig.constrained_by_model(per_model["general"], "general")
artifacts.save_figure(fig, "lsb-figC16", synthetic=cfg.synthetic)

# %% [markdown]
# ## Figure C.17: trade-offs of constrained prompting
#
# Author factuality and the four diversities (gender, ethnicity, publication and citation
# prominence) before and after each constrained variant, pooled over models: (a) gender, (b)
# ethnicity, (c) citations, (d) general diversity (paper caption: equal-representation prompts
# raise diversity of the targeted attribute; a general-diversity prompt only raises gender
# diversity, at a cost in factuality). **Synthetic data on the embedded default** (labelled so when
# saved); the papers' data on the release profile.

# %%
tradeoffs = cp.tradeoffs(long, before_param=before_param)
stage.write(tradeoffs, "constrained_tradeoffs.parquet")
fig = ifig.tradeoff_grid(tradeoffs)
artifacts.save_figure(fig, "lsb-figC17", synthetic=cfg.synthetic)

# %% [markdown]
# ## Figure 5: RAG with web search, per task
#
# For the two Gemini models with a grounded configuration: each metric without (B) and with (A) web
# search, one line per task (twins split into real and fake reference persons), Flash in the top
# row, Pro in the bottom row (paper caption: Flash loses more validity under RAG than Pro;
# duplicates stay near zero, factuality high). **Synthetic data on the embedded default** (labelled
# so when saved); the papers' data on the release profile.

# %%
rag_table = cp.rag_before_after(long)
stage.write(rag_table, "rag_by_task.parquet")
fig = ifig.rag_grid(rag_table)
artifacts.save_figure(fig, "lsb-fig5", synthetic=cfg.synthetic)
cp.means_table(rag_table[rag_table["metric_name"] == "validity_pct"], ["base_model", "task_label"], "phase")

# %% [markdown]
# ## Figure C.18: socio-technical quadrants
#
# Each model by technical score (validity + uniqueness + author, field, epoch and seniority
# factuality, per-model means, 0–6) and social score (sum of the four parities, 0–4), with dashed
# lines at the medians over the plotted models, under (a) baseline, (b) temperature variation, (c)
# constrained prompting and (d) RAG (grounded models drawn under their base name). Panel (b) uses
# notebook 01's temperature sweep (every `quadrant_temperature_stride`-th temperature); the
# reference code redraws the baseline rows there instead. A metric a configuration lacks (the task
# factualities under constrained prompting) adds 0, as in the reference. **Synthetic data on the
# embedded default** (labelled so when saved); the papers' data on the release profile.

# %%
quads = cp.quadrants(cp.configuration_tables(long, sweep_long))
stage.write(quads, "quadrants.parquet")
fig = ifig.quadrant_grid(quads)
artifacts.save_figure(fig, "lsb-figC18", synthetic=cfg.synthetic)
quads.round(2)

# %% [markdown]
# ## Claims (§4.2, §5, App. A.4, App. C.3)
#
# The paper's claims on temperature, refusals, constrained prompting and RAG, checked on the tables
# above and recorded in the claims ledger (`outputs/claims.md`) as held / contradicted /
# inconclusive / not applicable with their means and 95 % CIs (`lib.scholar.claims`, one table of
# checks). A comparison holds when the 95 % CI of the difference (Newcombe's for proportions,
# Welch's otherwise) excludes 0 in the claimed direction, is contradicted when it excludes 0 on the
# other side and inconclusive when it contains 0; claims whose inputs this profile did not collect are "not applicable". On
# the embedded default's synthetic data a held claim shows the pipeline recovers the panel's
# built-in behaviour, not that the claim is true of real LLMs; on the release profile the claims
# are checked on the papers' data.

# %%
verdicts = lsb_claims.check_all(
    {"sweep": per_attempt, "curves": curves, "collection": coll_attempts, "reason_shares": shares, "all_metrics": long},
    notebook="04_interventions", synthetic=cfg.synthetic,
    refusal_col=iv.refusal_column(label_mode))
claims.summary(verdicts)
