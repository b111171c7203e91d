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
# # 05 Authority bias: the 1:N pilot, the counterfactual experiment and every table
#
# Reproduces "Authority Bias in Conversational Search Engines for Academic Paper
# Recommendation" end to end: the paper corpus and queries (§4.2, Appendix B), authority scoring
# (§4.3, Appendix A.6), the 1:N flip pilot and the regression that derives the authority weights
# (§4.3, Appendices A.7, D), the three counterfactual conditions (§4.4, Appendix A.3), the
# instruction variants and paper cards (§4.5, Appendix A.1–A.2), the main experiment (models ×
# 3 instructions × 3 conditions × queries, §4.6) and its analysis (§5, Appendices A.4, A.8, C, E,
# F, G): tables ab-tab1 to ab-tab23.
#
# On the embedded default both the corpus and the models are synthetic: 25 topics × 50 invented
# papers stratified like the paper's (15 high, 15 mid, 10 low, 10 emerging 2024–2026), 10
# queries per topic, and the synthetic LLM panel answering the real prompts with a known choice
# model. Every table built from them is labelled synthetic; the numbers show that the pipeline
# works, they are not the paper's findings. With `corpus_source` set to a released dataset
# folder (`scholar_papers.json`, `experiment_sets.json`, `results/`), the papers, candidate sets,
# condition metadata and main-experiment answers are the release's own (Tier A), and so are the
# pilot's runs when the release has its `results/1n_pilot/` files (else the pilot tables are
# reported missing).

# %%
from lib import artifacts, claims, config, published
from lib.authority import analysis, conditions, corpus, flip_pilot, intermediate, main_experiment, prompts, quirks
from lib.authority import claims as ab_claims
from lib.authority import inputs as ab_inputs
from lib.authority import published as ab_published

# %% tags=["parameters"]
profile = "quick"
corpus_source = "synthetic"   # or a released dataset folder (Tier A: its papers, conditions and answers);
                              # a profile's real_data.authority_dataset_dir sets it
topics = []                   # restrict to these topics; []: all 25
queries_per_topic = 2         # main-experiment queries per topic (paper: 10, i.e. 250 queries)
pilot_topics = []             # []: the paper's five pilot topics
pilot_queries_per_topic = 2   # pilot queries per topic, 100 prompts each (paper: 10, i.e. 5,000 per model)
pilot_models = []             # []: the paper's three pilot models
main_models = []              # []: the eight headline models and the gpt-4o-mini tier ablation
api_model_ids = {}            # real endpoints: model id -> the endpoint's model name
pilot_design = "reference"    # "reference" (faithful): the source card keeps its content; "shared_content": all ten cards show the fixed paper's (the text, A.7)
pilot_fit = "gd"              # "gd": the reference's gradient descent (faithful, every profile); "mle": exact fit (corrected)
pilot_averaging = "subsets"   # dominance: "subsets" (faithful) or "general" (Budescu)
parse_mode = "faithful"       # "faithful": first integer in 1..10 (the paper); "corrected": stricter parser
weights_source = "pilot"      # "pilot": the pilot's fused weights define the conditions; "given": authority_weights
authority_weights = {"venue": 0.2, "median_h": 0.2, "max_h": 0.2, "citations": 0.2, "affiliation": 0.2}

# %%
cfg = config.load_profile(profile)
switches = ab_inputs.Switches(weights_source=weights_source, pilot_design=pilot_design, pilot_fit=pilot_fit,
                              pilot_averaging=pilot_averaging, parse_mode=parse_mode)
inputs = ab_inputs.resolve(cfg, corpus_source=corpus_source, main_models=main_models, pilot_models=pilot_models,
                           switches=switches)
synthetic = inputs.synthetic
paper_corpus = ab_inputs.load_corpus(cfg, inputs, topics)
print(ab_inputs.describe(inputs, paper_corpus))

# %% [markdown]
# ## Table 18: topics and example queries (§4.2, Appendix B)
#
# The 25 computer-science topics, each with 50 papers and 10 natural-language queries; the
# example is the first query of each topic. On the default these are the synthetic corpus's
# queries (topic names are the paper's; the queries are ours).

# %%
tab18 = corpus.topics_table(paper_corpus)
artifacts.save_table(tab18, "ab-tab18", synthetic=synthetic)
tab18

# %% [markdown]
# ## The 1:N flip pilot (§4.3)
#
# For each pilot query's ten original candidates, each paper's content (title, abstract, year)
# is shown in turn wearing every candidate's metadata (authors, venue, citations): 10 × 10
# prompts per query under the baseline instruction, sent to the three pilot models (paper §4.3:
# llama3.1, mistral, gemma2; 15,000 runs at 5 topics × 10 queries). The outcome is whether the
# model still recommends the fixed paper. On the default the answers come from the synthetic
# panel, through the same client and raw store as real endpoints; a second run of this cell
# sends nothing (the store resumes). With `pilot_design = "shared_content"` every card of a
# prompt shows the fixed paper's content, as the paper's text describes: the cards then differ
# only in metadata, and the source paper's own relevance no longer competes with the fixed card.
# Without an endpoint the runs are the release's `results/1n_pilot/` files; with neither the pilot
# is absent (`lib.authority.flip_pilot`): Tables 16, 1 and 20 are then reported missing and the
# conditions use `authority_weights`.

# %%
pilot_run = flip_pilot.collect(cfg, inputs, paper_corpus, topics=pilot_topics, n_queries=pilot_queries_per_topic,
                              api_ids=api_model_ids)   # under switches.pilot_design and switches.parse_mode

# %% [markdown]
# ## Table 16: pilot regression diagnostics (Appendix A.7)
#
# Logistic regression of "fixed paper recommended" on the five z-scored authority components the
# fixed card wore (paper Eq. 3), with variance inflation factors, dominance analysis over all 31
# predictor subsets (McFadden R² contributions), the coefficient and dominance shares and their
# fusion (synthetic data on the embedded default). Every profile fits as the reference does, by plain
# gradient descent (`pilot_fit = "gd"`, faithful); `pilot_fit = "mle"` is the exact maximum-likelihood
# fit (statsmodels, corrected), which the unconverged descent approaches (the difference is measured in
# ab-quirks below). Dominance averaging follows the reference (`pilot_averaging = "subsets"`;
# `"general"` is Budescu's general dominance).

# %%
pilot_run = flip_pilot.analyse(pilot_run, method=pilot_fit, averaging=pilot_averaging)
tab16 = flip_pilot.table16(pilot_run)
artifacts.save_table(tab16, "ab-tab16", synthetic=synthetic)
tab16

# %%
# each pilot model's rank order of |beta| (A.7: the ranking is stable across single-model subsets)
flip_pilot.rank_stability(pilot_run)

# %% [markdown]
# ## Table 1: the empirically derived authority weights (§4.3)
#
# The fused weights w_d of the composite authority score α (Eq. 1), largest first: the mean of each
# dimension's coefficient share and dominance share, renormalised (a synthetic pilot on the
# embedded default). The paper finds venue .353 > median h .292 > max h .187 > citations .137 >
# affiliation .031. These weights define the authority buckets of the conditions below when
# `weights_source = "pilot"` (the reference's step 8: the pilot's weights are written into
# `generate_conditions.py`).

# %%
tab1 = flip_pilot.table1(pilot_run)
artifacts.save_table(tab1, "ab-tab1", synthetic=synthetic)
weights = flip_pilot.weights(pilot_run, weights_source, authority_weights)
print("weights of the composite:", weights)
tab1

# %% [markdown]
# ## Table 2: the three conditions, with counts (§4.4)
#
# Content (title, abstract, year) never changes. *Flipped* swaps the complete metadata of the i-th
# most and i-th least authoritative papers of each topic (12 pairs per 50 papers, buckets by the
# composite under the weights above); *boosted* gives half of the middle bucket elite metadata (13
# per topic). Counts come from the built conditions (synthetic papers on the embedded default).

# %%
conds = ab_inputs.load_conditions(cfg, inputs, paper_corpus, weights)
candidates = conditions.build_candidate_sets(paper_corpus, seed=cfg.seed)
tab2 = conditions.condition_counts(conds)
artifacts.save_table(tab2, "ab-tab2", synthetic=synthetic)
tab2

# %% [markdown]
# ## Table 14: a manipulated candidate set (Appendix A.3)
#
# One query's candidate set under the manipulations: under *flipped* a high-authority paper (A) and
# a low-authority paper (B) exchange venue, citations and authors, so their composite scores swap
# exactly; under *boosted* a middle paper (C) receives inflated metadata and a higher composite.
# Titles and abstracts are identical across conditions (synthetic papers on the embedded default).

# %%
tab14 = conditions.worked_example(paper_corpus, conds, candidates)
print("Query:", tab14["query"].iloc[0])
tab14 = tab14.drop(columns=["query_id", "query"])
artifacts.save_table(tab14, "ab-tab14", synthetic=synthetic)
tab14

# %% [markdown]
# ## Table 3: the instruction variants (text; §4.5)
#
# The three prompts verbatim (paper Appendix A.1): a neutral baseline, a mild anti-authority
# instruction naming the attributes to ignore, and a strong content-first directive. This text
# is the real prompt set, not synthetic.

# %%
tab3 = prompts.instruction_variants_text()
artifacts.save_text(tab3, "ab-tab3", synthetic=False)
print(tab3)

# %% [markdown]
# ## The main experiment (§4.6)
#
# Every query's ten candidates (same papers and display order in every cell) under the three
# instruction variants and the three conditions, sent to every model: the eight headline models
# (five open-weight 7–9B, three frontier closed-weight) and the gpt-4o-mini tier ablation (paper
# §4.6, Appendix E). One stateless single-turn request per cell through the shared client and
# raw store (resuming). The recommended paper number is read with the paper's rule, the first
# integer in 1..10 (`parse_mode = "faithful"`); `"corrected"` is a stricter parser that skips
# stray numbers and reasoning traces. On the default the panel answers (synthetic). Without an
# endpoint the answers are the release's, and its models are the ones reported
# (`lib.authority.main_experiment`).

# %%
main = main_experiment.collect(cfg, inputs, paper_corpus, conds, n_queries=queries_per_topic, api_ids=api_model_ids)
resp_all, resp = main_experiment.label(main, paper_corpus, conds, parse_mode=parse_mode)
print(f"{len(resp_all)} cells, parse rate {resp_all['parsed'].mean():.1%}; headline set: {len(resp)} cells")
print(main.requests["messages"].iloc[0][0]["content"][:1500])

# %% [markdown]
# ## Table 4: metrics and statistical tests (§4.7)
#
# The six evaluation metrics, the research question each answers, the test paired with it and
# the companion function that computes it. A description of the design, not data.

# %%
tab4 = analysis.metrics_and_tests()
artifacts.save_table(tab4, "ab-tab4", synthetic=False)
tab4

# %% [markdown]
# ## Table 5: aggregate flip and boost rates (§5.1)
#
# The share of (model, instruction, query) pairs whose recommendation changes from *original* to
# *flipped* (flip rate) and to *boosted* (boost rate), with 95 % Wilson intervals and the
# reference's one-sided binomial test against p0 = 0.0001; the χ² test of flip vs boost rate is
# printed below (headline models, synthetic answers on the embedded default).

# %%
tab5 = analysis.flip_rates(resp)
artifacts.save_table(tab5, "ab-tab5", synthetic=synthetic)
tab5

# %%
analysis.flip_boost_gap(resp)

# %% [markdown]
# ## Table 6: do flips move toward higher authority? (§5.2)
#
# For every changed pair, whether the paper picked under the manipulation has a higher or lower
# composite authority (in its condition) than the paper picked under *original*: the share toward
# higher over all flips (ties counted) and over decisive flips, with a two-sided binomial test
# against ½, overall and per model (synthetic answers on the embedded default).

# %%
tab6 = analysis.flip_direction_table(resp)
artifacts.save_table(tab6, "ab-tab6", synthetic=synthetic)
tab6

# %% [markdown]
# ## Table 7: per-model susceptibility (§5.3)
#
# Per model: flip rate, boost rate (Wilson intervals) and susceptibility = their mean, with the
# parse rate and the boosted paper's pick rate and lift over chance (Appendix G); sorted from the
# most resistant model. The χ² homogeneity test of the flip rate across models and the pooled
# boosted-pick rate (§5.5) are attached as columns (synthetic answers on the embedded default).

# %%
tab7 = analysis.susceptibility_table(resp)
artifacts.save_table(tab7, "ab-tab7", synthetic=synthetic)
tab7

# %% [markdown]
# ## Table 8: cross-model agreement (§5.4)
#
# Pairwise selection agreement (the share of shared cells in which two models pick the same paper)
# and Cohen's κ of the per-query flip indicator under *flipped* and *boosted*: mean and range over
# model pairs, then the agreement of every model pair (Appendix G: the three frontier models agree
# on 61–63 % of selections) (synthetic answers on the embedded default). Models agree on which
# queries invite a flip more than on which paper attracts them.

# %%
tab8 = analysis.agreement_summary(resp)
artifacts.save_table(tab8, "ab-tab8", synthetic=synthetic)
tab8

# %%
analysis.selection_agreement(resp).round(3)

# %% [markdown]
# ## Table 9: dose-response by citation stratum (§5.5)
#
# The percentage of picks by the citation stratum of the chosen paper (top, mid, low, emerging)
# under each condition, next to each stratum's fixed share of every candidate set; the boosted
# paper's pick rate against chance (lift, one-sided binomial), the authority (max h-index, citations) of
# the picks per condition and the Mann–Whitney test of the boosted picks' max h-index against the
# original ones (Appendix G) follow (synthetic answers on the embedded default).

# %%
tab9 = analysis.dose_response(resp)
artifacts.save_table(tab9, "ab-tab9", synthetic=synthetic)
tab9

# %%
analysis.boosted_pick_rate(resp)

# %%
analysis.picked_authority(resp)

# %%
analysis.boosted_max_h_test(resp)

# %% [markdown]
# ## Table 10: most and least susceptible topics (§5.6)
#
# The five topics with the highest and the five with the lowest flip rate, with their boost rates
# and the spread (max − min topic flip rate, pp) over all topics (synthetic answers on the embedded
# default; topic differences on the default come only from the synthetic papers and queries).

# %%
tab10 = analysis.topic_extremes(resp)
artifacts.save_table(tab10, "ab-tab10", synthetic=synthetic)
tab10

# %% [markdown]
# ## Table 11: the instruction effect (§5.7)
#
# Flip and boost rate per instruction variant, their reductions from the neutral baseline (pp) and
# the exact McNemar test on paired flips (the same model and query under baseline and the variant),
# over the headline models (synthetic answers on the embedded default).

# %%
tab11 = analysis.instruction_effect(resp)
artifacts.save_table(tab11, "ab-tab11", synthetic=synthetic)
tab11

# %% [markdown]
# ## Table 12: per-model effect of the mild instruction (§5.7)
#
# Per model and per cohort (open-weight, frontier): the flip rate under baseline and under the mild
# anti-authority instruction, the change in pp (positive = backfire) and McNemar's test (synthetic
# answers on the embedded default; the panel builds in the paper's frontier backfire).

# %%
tab12 = analysis.instruction_effect_by_model(resp, "anti_authority", groups=inputs.cohorts)
artifacts.save_table(tab12, "ab-tab12", synthetic=synthetic)
tab12

# %% [markdown]
# ## Table 13: the say-do gap (§5.8)
#
# Per instruction: the rate of justifications that mention an authority marker (what models *say*,
# pooled over conditions) and the flip rate (what they *do*), their drops from baseline and the gap
# between the drops; then each model's mention rate over all its answers (Appendix G: gpt-5.4 8.3 %
# to Llama 3.1 34.6 %) (synthetic answers on the embedded default).

# %%
tab13 = analysis.say_do_gap(resp)
artifacts.save_table(tab13, "ab-tab13", synthetic=synthetic)
tab13

# %% [markdown]
# ## Table 15: inference time per model (Appendix A.4)
#
# Mean, median and 95th-percentile wall-clock seconds per cell, per model, over all models of the
# run (on the embedded default, the synthetic panel's latency on this machine, not the models').

# %%
tab15 = analysis.inference_time(resp_all)
artifacts.save_table(tab15, "ab-tab15", synthetic=synthetic)
tab15

# %% [markdown]
# ## Parser sensitivity (Appendix A.5)
#
# Flip and boost rates of the headline models under the paper's parser and under the corrected one
# (synthetic answers on the embedded default). The faithful rule reads a stray small number or the
# first number of a reasoning trace as the choice, which adds spurious flips.

# %%
resp_all_corrected, resp_corrected = main_experiment.label(main, paper_corpus, conds, parse_mode="corrected")
analysis.parser_sensitivity(resp, resp_corrected, parser=parse_mode)

# %% [markdown]
# ## Table 17: sensitivity of the direction result to the weights (Appendix A.8)
#
# The directional pull of Table 6 recomputed with each pick scored under other weightings of its
# normalised components: the pilot-derived weights, uniform weights and each dimension alone, with
# the share toward higher over all and over decisive flips (synthetic answers on the embedded
# default).

# %%
tab17 = analysis.weight_sensitivity(resp, derived=weights)
artifacts.save_table(tab17, "ab-tab17", synthetic=synthetic)
tab17

# %% [markdown]
# ## Table 19: flip and boost rates for every topic (Appendix C)
#
# Flip and boost rate per topic over the headline models, sorted by flip rate; n is the number of
# (model × instruction × query) flip pairs of the topic (synthetic answers on the embedded
# default).

# %%
tab19 = analysis.topic_rates(resp)
artifacts.save_table(tab19, "ab-tab19", synthetic=synthetic)
tab19

# %% [markdown]
# ## Table 20: the author-identity ablation (six predictors; Appendix D)
#
# The pilot regression refitted with a sixth, categorical predictor `author_score` (the tier of the
# worn maximum h-index: A* ≥ 70, A 40–69, B 20–39, C 5–19, D 0–4), next to the 5-predictor fit on
# the same rows: coefficients, VIF, dominance, McFadden R², ΔR² and the reference's verdict (paper
# Appendix D; synthetic data on the embedded default, same fit method as Table 16).

# %%
tab20 = flip_pilot.table20(pilot_run)
artifacts.save_table(tab20, "ab-tab20", synthetic=synthetic)
tab20

# %% [markdown]
# ## Table 21: the tier ablation (gpt-4o-mini; Appendix E)
#
# The smaller-tier closed model's flip rate, boost rate, mild-instruction change and parse rate,
# and the aggregate flip rate of the headline models with and without it (paper Appendix E;
# synthetic answers on the embedded default).

# %%
tab21 = main_experiment.tier_ablation(main, resp_all)
artifacts.save_table(tab21, "ab-tab21", synthetic=synthetic)
tab21

# %% [markdown]
# ## Table 22: the primary statistical tests (Appendix F)
#
# The ten primary tests of the paper recomputed on the headline answers: flip and boost rate above
# zero, flip vs boost, direction under both manipulations, model homogeneity, boosted pick rate vs
# chance, max h-index of boosted vs original picks, and the two instruction effects, with their
# statistic and p-value (synthetic answers on the embedded default).

# %%
tab22 = analysis.significance_summary(resp)
artifacts.save_table(tab22, "ab-tab22", synthetic=synthetic)
tab22

# %% [markdown]
# ## Table 23: authority-marker categories in justifications (Appendix G)
#
# How often each family of authority language (citations, impact, recency, author prestige, venue
# and institution names, h-index, credibility) appears in the justifications of the headline
# models, as a share of all marker hits (the reference counts one hit per matching pattern;
# synthetic answers on the embedded default).

# %%
tab23 = analysis.marker_categories(resp)
artifacts.save_table(tab23, "ab-tab23", synthetic=synthetic)
tab23

# %% [markdown]
# ## Faithful vs corrected: what each quirk of the reference code does (ab-quirks)
#
# Every table is computed with all switches faithful (the paper's released code, held to its golden
# outputs in tests/authority/test_golden.py), then with one switch corrected at a time (Table 12 on the
# paired subset, κ for constant pairs, no Yates correction, markers once per label, the usual latency
# median, the stricter parser, the exact MLE pilot fit, general dominance, unrounded fusion, the cards'
# missing-value defaults). Rows `quirk`: the number that moves most and how many move; rows `headline`:
# the headline numbers with every switch faithful vs corrected (comparison scale: rates as fractions, pp
# / 100; synthetic answers on the embedded default). The quirks are listed in
# `docs/faithful_vs_corrected.md`.

# %%
corrected_prompts = main_experiment.corrected_prompts(cfg, main, paper_corpus, conds)
ab_quirks = quirks.run_comparison(main, pilot_run, (resp_all, resp), (resp_all_corrected, resp_corrected),
                                  cohorts=inputs.cohorts, corrected_prompts=corrected_prompts)
artifacts.save_table(ab_quirks, "ab-quirks", synthetic=synthetic)
ab_quirks

# %% [markdown]
# ## Regenerated vs published values
#
# Every number the paper prints for these tables (transcribed with its source line in
# `lib/resources/ab_published.csv`) next to the regenerated value, with the difference and
# whether it is within ±0.005; written to `outputs/comparison/authority_bias.csv` (and `.md`).
# On the embedded default the corpus and the models are synthetic, so the differences show the
# distance between the panel and the paper, not a reproduction check; on the release profile
# they are the Tier A check.

# %%
vs_published = ab_published.authority_comparison(artifacts.saved_tables("ab-"))
published.write_comparison(vs_published, "authority_bias", synthetic=synthetic)
print(published.summary_line(vs_published, "authority_bias"))
vs_published.head(20)

# %% [markdown]
# ## Intermediate data
#
# The corpus, conditions, request tables, the pilot's regression rows and the labelled
# main-experiment responses, for later notebooks and for re-analysis without re-collection.

# %%
intermediate.write_stages(paper_corpus, candidates, conds, pilot_run, main, resp_all)

# %% [markdown]
# ## Claims (§4.3, §5, §6, §7)
#
# Eighteen sentences of the paper (the 39.2 % vs 21.7 % flip/boost gap, directional pull, model
# susceptibility, agreement, dose-response, topic spread, instruction effects and the frontier
# backfire, the say-do gap, venue as the dominant weight), each checked on the tables above with the
# interval behind the verdict (Wilson, Newcombe, McNemar, a t-interval over model pairs, a bootstrap
# of the pilot fit) and recorded in the claims ledger (`outputs/claims.md`) as held / contradicted /
# inconclusive / not applicable (`lib.authority.claims`). A claim is judged on the direction or significance the paper
# states, not on its number. On the embedded default the answers are synthetic: a held claim shows
# the pipeline recovers the panel's built-in behaviour, not that the claim is true of real LLMs.

# %%
verdicts = ab_claims.check_all(artifacts.saved_tables("ab-"), resp, pilot_run.rows, synthetic=synthetic, seed=cfg.seed,
                               cohorts=inputs.cohorts)
claims.summary(verdicts)
