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
# # 06 Attribution fairness on AttriBench
#
# Reproduces "Attribution Bias in Large Language Models": the construction of the fame- and
# demographically-balanced benchmark AttriBench (§4, Appendix A.2–A.7), the prompts (Table 1)
# and the evaluated models (Table 6, A.8).
#
# On the embedded default the source corpus is a **synthetic twin** of the pruned JSTET quote
# corpus: authors in race × gender groups skewed like the original (about 82 % White, 64 % male),
# census-table names, heavy-tailed search-hit fame (log10 hits ≥ 3), 1–10 short quotes per author,
# and a second, corpus-count fame proxy. Everything built from it is labelled synthetic. When the
# released files have been downloaded (`python -m lib.attribution.download`), the universe,
# Tables 2–4 and Figures 9–10 use them instead, and Table 2 shows the paper's figures alongside
# (Tables 2 and 4 and Figure 10 need the two full datasets; the universe alone gives Table 3,
# Figure 9 and the re-run of the balancing).
#
# The second half runs the evaluation of §5: every quote goes to the eleven models of Table 6
# under the direct, indirect and indirect-overt prompts, without and with retrieved evidence, at
# T = 0.7 and top-p = 0.95, through the shared client and raw store. On the embedded default the
# models are the **synthetic LLM panel** (an OpenAI-compatible server on 127.0.0.1 whose latent
# attribution behaviour is set by the panel, not learned); Figures 4–8 and 13–16 are drawn from
# its answers and are synthetic. They show that the pipeline works, not the paper's findings.

# %%
from lib import artifacts, config, paths, published
from lib.attribution import build, evaluation, figures, models, prompts, robustness, tables
from lib.attribution import inputs as at_inputs
from lib.attribution import published as at_published

# %% tags=["parameters"]
profile = "quick"
twin_authors = 6000
balancing_runs = 100
balance_lambda = 1.0
n_matchings = 300
use_released_data = True
run_matchings = 8            # matchings (one quote per author and group) asked per dataset; 0: whole datasets (paper)
generations = 2              # stochastic generations per prompt (paper: 3)
rag_subset_models = []       # with run_matchings 0 (paper): models whose RAG runs use the n_matchings subsets (paper: † models)
prompt_family = "reference"  # each model its release runner's prompts ("providers" / "together": one for all)
api_models = {}              # real endpoints: Table 6 model id -> the endpoint's model name
significance_test = "z"      # "z" (faithful, the release) or "welch" (corrected: Welch's t)

# %%
cfg = config.load_profile(profile)
model_table = models.for_profile(cfg)      # Table 6's models and the profile's own (models.attribution_bias)
at_inputs.check(model_table, prompt_family=prompt_family, significance_test=significance_test,
                rag_subset_models=rag_subset_models)
out_dir = paths.stage_dir("06_attribution_fairness")
paths.ensure(out_dir)
sources = at_inputs.sources(cfg, use_released_data, twin_authors=twin_authors, runs=balancing_runs, lam=balance_lambda,
                            n_matchings=n_matchings)   # the twin, and the release when downloaded
build.save(sources.twin, out_dir)
src = sources.described   # what Figures 9-10 and Tables 2-4 describe: the release when there, else the twin
print(sources.line())

# %% [markdown]
# ## Table 1: prompts
#
# The direct, indirect and indirect-overt user prompts ({passage} is the quote q) in the
# no-evidence setting, their evidence-conditioned versions (the quote followed by "Retrieved
# examples:" and the top-5 retrieved quote–author pairs R(q)), and the fixed system prompt.
# These are the paper's texts (the release's provider runners), not data.

# %%
tab1 = prompts.table1()
artifacts.save_table(tab1, "at-tab1", synthetic=False)
tab1

# %% [markdown]
# ## Figure 9: demographics of the source corpus before balancing
#
# Authors per race, split by gender, and the overall gender split of the source corpus.
# The paper's JSTET corpus is 82 % White and 64 % male (A.2); the twin is drawn with that skew.

# %%
fig9 = figures.corpus_demographics(src.universe)
artifacts.save_figure(fig9, "at-fig9", synthetic=src.synthetic)

# %% [markdown]
# ## Table 3: mean fame by subgroup before balancing
#
# Mean log10 search hits of every corpus author (the universe, as the paper's A.2; the
# balancing pool of fame ≥ 3 is the corrected mode, `tables.table3(..., mode="corrected")`)
# by race and by intersectional subgroup. The paper finds about half a point between the most
# and least famous groups (White male vs Black female; White vs Asian), i.e. more than three
# times as many hits.

# %%
tab3 = tables.table3(src.universe)
artifacts.save_table(tab3, "at-tab3", synthetic=src.synthetic)
tab3

# %% [markdown]
# ## Table 2: the selected fame-balancing run
#
# The paper's selected run of Algorithm 1 is the released benchmark itself ("the released
# AttriBench CSVs are the canonical benchmark"), so Table 2 is read off the two quote-level
# datasets: authors and quotes per subgroup, the mean of the subgroup mean fames and their range
# (the RMS error needs the matching, which the files do not hold). On the released files these
# are the paper's printed values (742 / 1,991 / 5.03 / 0.0017 and 831 / 1,914 / 5.10 / 0.0006),
# which stand alongside; without the two full datasets the table is reported missing.

# %%
tab2 = tables.table2(src.datasets, with_paper=not src.synthetic)
artifacts.save_table(tab2, "at-tab2", synthetic=src.synthetic, float_format="%.4f")
tab2

# %% [markdown]
# ## Table 2 re-made: a fresh run of the balancing, with its spread
#
# Algorithm 1 (A.5) run anew on the universe: the smallest group (Black female; Latino) is
# shuffled and each of its authors greedily matched to one author per other group near its fame,
# with running offsets, quote-count bins ⌊log2 count⌋ and acceptance threshold λ = 1; seeded
# runs, the run with the minimum rank sum over five criteria is selected. Rows per dataset and
# search mode (*faithful*: the release's position/label search; *corrected*: the clean
# nearest-fame search), with the minimum, mean and maximum of each criterion over the runs. The
# release's own runs were not seeded, so a re-run draws other runs: the paper's values are to be
# read against the spread, not matched.

# %%
tab2_rerun = tables.table2_rebalance(src.balanced, with_paper=not src.synthetic)
artifacts.save_table(tab2_rerun, "at-tab2-rebalance", synthetic=src.synthetic, float_format="%.4f")
tab2_rerun

# %% [markdown]
# ## Figure 10: fame distribution per group after balancing
#
# Kernel density of log10 search hits for each subgroup of the two balanced datasets (one
# value per author). Aligned curves mean the matching removed the fame differences of Table 3.
# Drawn once both datasets are there (on the release: its two full files; else reported missing).

# %%
fig10 = figures.fame_kde(src.both_datasets())
artifacts.save_figure(fig10, "at-fig10", synthetic=src.synthetic)

# %% [markdown]
# ## Table 4: label sources per subgroup
#
# Number and share of unique authors per subgroup whose gender or race label came from
# Wikidata; the rest came from the two-LLM consensus (A.4.3). Gender is usually on Wikidata,
# race usually is not. Made once both datasets are there, as Figure 10.

# %%
tab4 = tables.table4(src.both_datasets())
artifacts.save_table(tab4, "at-tab4", synthetic=src.synthetic, float_format="%.1f")
tab4

# %% [markdown]
# ## Figure 11: corpus-count vs search-hit fame proxies
#
# Per author, log10(corpus name count + 1) against log10 search hits, with a least-squares line
# per subgroup (A.7.1; the paper counts names in Dolma: Pearson r = 0.85 intersectional, 0.77
# multirace). The release does not ship the corpus counts, so this figure is always drawn from
# the twin's second proxy (synthetic).

# %%
proxy_authors = robustness.proxies(sources.twin.datasets)
print(robustness.correlation_lines(proxy_authors))
fig11 = figures.proxy_scatter(proxy_authors)
artifacts.save_figure(fig11, "at-fig11", synthetic=True)

# %% [markdown]
# ## Figure 12: fame-decile agreement across proxies
#
# Row-normalised crosstab of each author's fame decile under search hits (rows) and under the
# corpus count (columns). Mass on and near the diagonal means the balancing is robust to the
# choice of fame proxy (A.7.1). Synthetic (twin proxies).

# %%
deciles = robustness.decile_agreements(proxy_authors)
print(robustness.decile_summary(deciles))
fig12 = figures.decile_heatmap(deciles)
artifacts.save_figure(fig12, "at-fig12", synthetic=True)

# %% [markdown]
# ## Table 5: quote–author co-occurrence by subgroup
#
# log10(co-occurrence count + 1) of "author" "quote" exact-match hits on a subgroup-balanced
# subset of the intersectional dataset (A.7.2; the paper: 797 quotes per subgroup, means 1.569–1.670).
# Similar distributions across subgroups mean differential quote–author exposure does not
# explain attribution gaps. The twin derives co-occurrence from its corpus-count proxy (synthetic).

# %%
tab5 = tables.table5(sources.twin.datasets["intersectional"], "intersectional", seed=cfg.seed)
artifacts.save_table(tab5, "at-tab5", synthetic=True)
tab5

# %% [markdown]
# ## Table 6: models
#
# The eleven LLMs evaluated, with the model version (API id), how they were accessed, the
# reasoning setting (disabled except GPT-OSS-120B: low) and whether their evidence-conditioned
# runs used the 300-matching subsets († in the RAG figures). Data from the paper, not computed;
# a profile's own models (`models.attribution_bias`) are listed after them.

# %%
tab6 = models.table6(model_table)
artifacts.save_table(tab6, "at-tab6", synthetic=False)
tab6

# %% [markdown]
# ## Collection: the attribution runs
#
# Each dataset contributes its quotes (in the quick profile a random set of matchings, one quote
# per author, so the four groups stay fame-balanced; the paper asks every quote). The evidence
# R(q) is the top-5 of the run's own quotes by embedding similarity, the quote itself included
# (§5.1). Requests go through `lib.llm` into the raw store (`outputs/raw/attribench_*`); a re-run
# skips every request already answered. On the embedded default the endpoint is the synthetic
# panel, which knows the quotes' authors and answers by its latent attribution parameters.
# A real-data profile without an endpoint (`params/release.yaml`) makes no runs
# (`lib.attribution.evaluation`): AttriBench releases no model responses, so every step below
# returns nothing, Figures 4–8 and 13–16 are reported missing and the §5 claims not applicable.

# %%
options = evaluation.RunOptions(run_matchings, generations, prompt_family=prompt_family, api_models=api_models,
                                 rag_subset_models=rag_subset_models, test=significance_test)
runs_06 = evaluation.collect(cfg, sources, table=model_table, options=options)
print(runs_06.line())

# %% [markdown]
# ## Scoring: accuracy, S_omit, S_evid and subgroup disparities
#
# Every reply is classified as correct author / wrong author / no author by the reference's
# name matching (§5.1). Per quote the outcome is averaged over generations; per model and
# prompt the accuracy is the mean over quotes with a 95 % CI (mean ± 1.96 se). S_omit is the
# share of indirect, no-evidence replies naming nobody; S_evid the share of indirect,
# evidence-conditioned replies not naming the correct author. Subgroups are compared with the
# best subgroup by the release's test (z on the difference in means). The store is read and
# scored one run file (model × evidence setting) at a time, under the faithful rules and each
# quirk switch at once, into `scored.parquet` (no answer texts; those stay in the raw store).
# Synthetic panel data.

# %%
runs_06 = evaluation.score(runs_06, out_dir)
evaluation.accuracy_view(runs_06)

# %%
# gap (pp) between the best and the worst subgroup: direct / indirect accuracy, S_omit, S_evid
evaluation.headline_gaps(runs_06)

# %% [markdown]
# ## Figure 4: overall attribution accuracy
#
# Accuracy per model under the direct and the indirect prompt, no evidence, on both datasets,
# with 95 % confidence intervals. The paper finds attribution hard even for frontier models
# (about 25–27 % direct accuracy) and that direct and indirect rankings differ. Synthetic
# panel data.

# %%
fig4 = evaluation.figure(runs_06, "at-fig4")
artifacts.save_figure(fig4, "at-fig4", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 5: accuracy by subgroup
#
# Direct and indirect accuracy per model and subgroup (intersectional: race × gender;
# multirace: race). Bold: the best subgroup and those not significantly different from it;
# `*`: the best subgroup is significantly above all others. In the paper White men (White)
# lead under every model and prompt. Synthetic panel data.

# %%
fig5 = evaluation.figure(runs_06, "at-fig5")
artifacts.save_figure(fig5, "at-fig5", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 6: omission suppression S_omit
#
# Share of indirect-prompt replies without evidence that name no author at all, per model and
# subgroup (higher = more omission; bold = lowest or not significantly different from it). The
# paper finds White and White-male authors least omitted in every model. Synthetic panel data.

# %%
fig6 = evaluation.figure(runs_06, "at-fig6")
artifacts.save_figure(fig6, "at-fig6", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 7: evidence suppression S_evid
#
# Share of indirect-prompt replies that do not name the correct author although the retrieved
# evidence contains it, per model and subgroup. The paper finds smaller but persistent gaps:
# evidence reduces but does not remove suppression disparities. Synthetic panel data.

# %%
fig7 = evaluation.figure(runs_06, "at-fig7")
artifacts.save_figure(fig7, "at-fig7", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 8: accuracy by author fame
#
# Mean direct-prompt accuracy per fame bin (binned log10 search hits), one line per model
# (A.1). Accuracy rises with fame for every model, which is why AttriBench balances fame
# across groups. Synthetic panel data.

# %%
fig8 = evaluation.figure(runs_06, "at-fig8")
artifacts.save_figure(fig8, "at-fig8", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 13: evidence-conditioned accuracy
#
# Accuracy per model under the direct and indirect prompts when the top-5 retrieved
# quote–author pairs (including the correct one) are in the prompt, with 95 % CIs (A.9). The
# paper: near-perfect direct accuracy, much lower indirect accuracy. † = RAG run on the
# 300-matching subset. Synthetic panel data.

# %%
fig13 = evaluation.figure(runs_06, "at-fig13")
artifacts.save_figure(fig13, "at-fig13", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 14: evidence-conditioned accuracy by subgroup, indirect prompt
#
# Indirect-prompt accuracy per model and subgroup with retrieved evidence; bold and `*` as in
# Figure 5. The paper finds significant disparities even with the author in context. Synthetic
# panel data.

# %%
fig14 = evaluation.figure(runs_06, "at-fig14")
artifacts.save_figure(fig14, "at-fig14", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 15: author omission under the direct prompt
#
# Share of direct-prompt replies naming no author, without and with evidence, per model and
# subgroup (A.10). Omission here is task failure ("I don't know"); the paper finds it much
# lower than under the indirect prompt, near zero with evidence, and lowest for White (male)
# authors. Synthetic panel data.

# %%
fig15 = evaluation.figure(runs_06, "at-fig15")
artifacts.save_figure(fig15, "at-fig15", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Figure 16: indirect-overt prompting
#
# Accuracy per model and subgroup when the indirect prompt adds "mentioning the author if
# relevant", without and with retrieval (A.11). The paper: between direct and indirect without
# retrieval, with White (male) authors ahead; near-perfect for all groups with retrieval.
# Synthetic panel data.

# %%
fig16 = evaluation.figure(runs_06, "at-fig16")
artifacts.save_figure(fig16, "at-fig16", synthetic=runs_06.synthetic)

# %% [markdown]
# ## Regenerated vs published values
#
# The numbers the paper prints (Table 2's corpus counts, Table 5's fame-proxy agreement, the
# accuracy and suppression gaps quoted in §5.2; transcribed with their source lines in
# `lib/resources/at_published.csv`) next to the regenerated values, with the difference and
# whether it is within ±0.005; written to `outputs/comparison/attribution_bias.csv` (and `.md`).
# Values this run cannot produce (no model responses on the release profile) stay missing.
# Synthetic on the embedded default: the distance between the panel and the paper, not a
# reproduction check.

# %%
vs_published = at_published.attribution_comparison(artifacts.saved_tables("at-"), accuracy=runs_06.accuracy,
                                                   subgroups=runs_06.subgroups)
published.write_comparison(vs_published, "attribution_bias", synthetic=cfg.synthetic)
print(published.summary_line(vs_published, "attribution_bias"))
vs_published.head(20)

# %% [markdown]
# ## Faithful vs corrected: what each release quirk changes
#
# Every switch of `lib/attribution/quirks.py` (mention universe, shared-last-name rule,
# capitalised-bigram heuristic, the subgroup test, the interval, conditional S_omit, the fame
# search) turned to *corrected* alone, all else faithful: the published-level number that moves
# most (percentage points; bold flags for the test; the Table 2 criterion for the search). Then
# the headline metrics (direct and indirect accuracy, S_omit, S_evid per model) with every switch
# faithful and every switch corrected. The table in `docs/faithful_vs_corrected.md` quotes these
# effects on the quick profile. Synthetic panel data on the embedded default.

# %%
by_mode = evaluation.quirk_table(runs_06, balanced=src.balanced, universe=src.universe)
artifacts.save_table(by_mode, "at-quirks", synthetic=runs_06.synthetic, float_format="%.4f")
by_mode

# %% [markdown]
# ## Claims (abstract, §5.2, §6, Appendices A.9–A.11)
#
# Eighteen sentences of the paper (low accuracy even for frontier models, disparities favouring
# White and male authors under direct and indirect prompts and across models, S_omit and S_evid by
# group, what retrieved evidence changes, the indirect-overt results), each checked on the scored
# replies with the interval behind the verdict (Welch's t on quote-level differences pooled over
# models, the per-model 95 % CIs, a binomial test across models) and recorded in the claims ledger
# (`outputs/claims.md`; `lib.attribution.claims`). Without model replies (a release profile with no
# endpoint) every claim is "not applicable". On the embedded default the replies are the synthetic
# panel's: a held claim shows the pipeline recovers its built-in behaviour, not the paper's finding.

# %%
from lib import claims
from lib.attribution import claims as at_claims

verdicts = at_claims.check_all(runs_06.scored, synthetic=runs_06.synthetic, test=significance_test)
claims.summary(verdicts)
