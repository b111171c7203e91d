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
# # 04 Interventions: temperature and refusal reasons
#
# Reproduces LLMScholarBench §4.2 (AQ2, "Temperature control", Figure 3), Appendix C.2
# (Figure C.12) and Appendix A.4 ("Refusals", Figures A.3–A.5 and Table A.2), with the claims
# of §4.2 and §5 they support. It reads the attempts and name tables written by notebooks 01
# (the temperature sweep) and 02 (baseline, constrained prompting and RAG collection). On the
# embedded default those come from the **synthetic** LLM panel over the synthetic scholarly
# world: every number below is synthetic, not the paper's findings.

# %%
from functools import partial

import pandas as pd

from lib import artifacts, claims, config, paths, plots
from lib.llm import refusals
from lib.scholar import claims as lsb_claims
from lib.scholar import interventions as iv

# %% tags=["parameters"]
profile = "quick"
label_mode = "faithful"           # "faithful": reference labels and refusal keywords; "paper": the paper's labels, corrected keywords
consistency_pairs = "consecutive"  # "all": the v1 variant (mean Jaccard over all pairs of replicates)
reasons_corrected = False         # True: split the seed sentences that missing commas fuse (18/21/18 seeds)
examples_per_reason = 2           # Table A.2 rows per refusal reason (the paper shows 3)
example_chars = 300               # Table A.2 text cut

# %%
cfg = config.load_profile(profile)
out_dir = paths.DATA / "04_interventions"
paths.ensure(out_dir)
sweep_dir, coll_dir = paths.DATA / "01_calibration", paths.DATA / "02_collection"
sweep_attempts = pd.read_parquet(sweep_dir / "attempts.parquet")
sweep_names = pd.read_parquet(sweep_dir / "names.parquet")
coll_attempts = pd.read_parquet(coll_dir / "attempts.parquet")
claims.clear("04_interventions")
print(f"sweep: {len(sweep_attempts):,} attempts, collection: {len(coll_attempts):,} attempts (synthetic={cfg.synthetic})")

# %% [markdown]
# ## Figure 3: effect of temperature by infrastructure group
#
# Mean values (± 95 % CI) of the technical metrics across sampling temperatures, aggregated by
# model access, model size and reasoning capability (paper caption: higher temperatures generally
# reduce most technical metrics, with thresholds in validity; proprietary models are less
# sensitive). Computed from notebook 01's sweep under the reference's `temperature` query
# (no constrained prompts, no web search): refusals over every attempt, validity per request,
# duplicates and author factuality per chosen attempt, consistency over the replicates of a
# configuration; Wilson intervals for refusals and validity, t-intervals otherwise; all attempts
# of a group pooled. The social-representation panels of the paper (connectedness, similarity,
# diversity, parity) are not drawn here. **Synthetic data.**

# %%
sweep = iv.temperature_filter(sweep_attempts)
per_attempt = iv.technical_per_attempt(sweep, sweep_names, mode=label_mode, consistency_pairs=consistency_pairs)
curves = iv.temperature_curves(per_attempt)
curves.to_parquet(out_dir / "temperature_curves.parquet", index=False)
hue_order = [v for g in iv.GROUP_COLUMNS for v in plots.GROUP_ORDER[g]]
fig = plots.line_grid(curves, x="temperature", hue="group", col="metric_name", row="group_kind",
                      col_order=iv.TECHNICAL_METRICS, row_order=iv.GROUP_COLUMNS, hue_order=hue_order,
                      col_titles=iv.METRIC_TITLES, row_titles=plots.GROUP_TITLES, xlabel="temperature")
artifacts.save_figure(fig, "lsb-fig3", synthetic=cfg.synthetic)
curves.pivot_table(index=["group_kind", "group", "metric_name"], columns="temperature", values="mean").round(2)

# %% [markdown]
# ## Figure C.12: effect of temperature per model
#
# The same metrics per model across temperatures (paper caption: higher temperatures increase
# refusals and lower validity, consistency and factuality for most models). One row per model,
# coloured by access. **Synthetic data.**

# %%
model_curves = iv.temperature_curves(per_attempt, groups=("model",))
access_of = sweep.drop_duplicates("model").set_index("model")["access"]
model_curves = model_curves.assign(access=model_curves["group"].map(access_of))
model_curves.to_parquet(out_dir / "temperature_curves_by_model.parquet", index=False)
fig = plots.line_grid(model_curves, x="temperature", hue="access", col="metric_name", row="group",
                      col_order=iv.TECHNICAL_METRICS, hue_order=plots.GROUP_ORDER["access"],
                      col_titles=iv.METRIC_TITLES, xlabel="temperature", panel_size=(1.9, 1.2), legend="figure",
                      row_title_rotation=0)
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
table.drop(columns=["text"]).to_parquet(out_dir / "refusals.parquet", index=False)
table.groupby("configuration")["refused"].agg(["size", "sum", "mean"]).round(3)

# %% [markdown]
# ### Figure A.3: refusal reasons by configuration
#
# Share of all attempts of a configuration that are refusals of each reason (paper caption:
# contradictory requests account for the largest share; unethical requests are more frequent
# under constrained prompting). N = attempts in the configuration. **Synthetic data.**

# %%
shares = iv.reason_shares(table)
fig = plots.share_bars(shares, category="reason", col="configuration", col_order=iv.CONFIGURATIONS,
                       category_order=refusals.DISPLAY_ORDER, note="note", value_label="share of attempts")
artifacts.save_figure(fig, "lsb-figA3", synthetic=cfg.synthetic)
shares.pivot_table(index="reason", columns="configuration", values="share", sort=False).round(3)

# %% [markdown]
# ### Figure A.4: refusal reasons by configuration and infrastructure group
#
# Within each configuration, the refusals split by reason and model group, normalised so that
# all bars of a panel sum to 1, for (a) access, (b) size and (c) reasoning (paper caption:
# open, smaller and non-reasoning models allocate more refusals to contradictory requests,
# proprietary models more to unethical ones). N_r = refusals in the configuration. **Synthetic data.**

# %%
group_shares = pd.concat([iv.reason_shares(table, by=g).rename(columns={g: "group"}).assign(group_kind=g)
                          for g in iv.GROUP_COLUMNS], ignore_index=True)
fig = plots.share_bars(group_shares, category="reason", col="configuration", row="group_kind", hue="group",
                       col_order=iv.CONFIGURATIONS, row_order=iv.GROUP_COLUMNS, hue_order=hue_order,
                       category_order=refusals.DISPLAY_ORDER, row_titles=plots.GROUP_TITLES, note="note",
                       value_label="share of refusals")
artifacts.save_figure(fig, "lsb-figA4", synthetic=cfg.synthetic)

# %% [markdown]
# ### Figure A.5: refusal reasons by configuration and task
#
# The same normalisation per task (twins split into real and fake reference persons; paper
# caption: contradictory-request refusals come mainly from twins-fake prompts, then twins-real).
# **Synthetic data.**

# %%
task_order = ["top_k", "field", "epoch", "seniority", "twins-real", "twins-fake", "biased_top_k"]
task_shares = iv.reason_shares(table, by="task_label")
fig = plots.share_bars(task_shares, category="reason", col="configuration", hue="task_label",
                       col_order=iv.CONFIGURATIONS, hue_order=task_order,
                       category_order=refusals.DISPLAY_ORDER, note="note", value_label="share of refusals")
artifacts.save_figure(fig, "lsb-figA5", synthetic=cfg.synthetic)

# %% [markdown]
# ### Table A.2: example refusal texts per reason
#
# For each reason, the refusal texts most similar to its seed sentences (de-duplicated on their
# first 20 characters, truncated). These are texts the **synthetic** panel wrote.

# %%
examples = iv.reason_examples(table, per_reason=examples_per_reason, chars=example_chars)
artifacts.save_table(examples, "lsb-tabA2", synthetic=cfg.synthetic)
examples

# %% [markdown]
# ## Claims (§4.2, §5, App. A.4)
#
# Each claim is checked on the data above and recorded in the claims ledger
# (`outputs/claims.md`) as held / not held / not applicable, with the means and 95 % CIs.
# A comparison holds when the 95 % CI of the difference (Newcombe's for proportions, Welch's
# otherwise) excludes 0 in the claimed direction. Synthetic data: a held claim shows the
# pipeline recovers the panel's built-in behaviour, not that the claim is true of real LLMs.

# %%
refusal_col = "is_refusal" if label_mode == "faithful" else "is_refusal_corrected"
verdicts = {
    lsb_claims.TEMP_VALIDITY.id: claims.check(lsb_claims.TEMP_VALIDITY, lsb_claims.temperature_effect,
                                              per_attempt, "validity_pct", synthetic=cfg.synthetic),
    lsb_claims.TEMP_CONSISTENCY.id: claims.check(lsb_claims.TEMP_CONSISTENCY,
                                                 lsb_claims.temperature_effect_consistency, per_attempt,
                                                 synthetic=cfg.synthetic),
    lsb_claims.TEMP_FACTUALITY.id: claims.check(lsb_claims.TEMP_FACTUALITY, lsb_claims.temperature_effect,
                                                per_attempt, "factuality_author", synthetic=cfg.synthetic),
    lsb_claims.TEMP_ACCESS.id: claims.check(lsb_claims.TEMP_ACCESS, lsb_claims.access_sensitivity, curves,
                                            synthetic=cfg.synthetic),
    lsb_claims.TEMP_OPEN_REFUSE.id: claims.check(lsb_claims.TEMP_OPEN_REFUSE, lsb_claims.open_refuse_more,
                                                 per_attempt, synthetic=cfg.synthetic),
    lsb_claims.CP_REFUSALS.id: claims.check(lsb_claims.CP_REFUSALS, lsb_claims.constrained_refusals,
                                            coll_attempts, refusal_col=refusal_col, synthetic=cfg.synthetic),
    lsb_claims.CP_UNETHICAL.id: claims.check(lsb_claims.CP_UNETHICAL, lsb_claims.constrained_unethical_share,
                                             shares, synthetic=cfg.synthetic),
}
pd.DataFrame([{"claim": k, "verdict": v.status, "detail": v.detail} for k, v in verdicts.items()])
