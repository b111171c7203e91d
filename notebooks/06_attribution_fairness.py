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
# Tables 2–4 and Figures 9–10 use them instead, and Table 2 shows the paper's figures alongside.
#
# The model-response figures (4–8, 13–16) need the collection runs against the LLM panel; their
# plotting functions are in `lib/attribution/figures.py` and they join this notebook with the runs.

# %%
from lib import artifacts, config, paths
from lib.attribution import build, figures, models, prompts, robustness, tables

# %% tags=["parameters"]
profile = "quick"
twin_authors = 6000
balancing_runs = 100
balance_lambda = 1.0
n_matchings = 300
use_released_data = True

# %%
cfg = config.load_profile(profile)
out_dir = paths.DATA / "06_attribution_fairness"
paths.ensure(out_dir)
tw = build.build_twin(twin_authors, cfg.seed, runs=balancing_runs, lam=balance_lambda, n_matchings=n_matchings)
build.save(tw, out_dir)
rel = build.build_released(runs=balancing_runs, seed=cfg.seed, lam=balance_lambda) if use_released_data else None
src = rel if rel is not None else tw
print(f"twin: {len(tw.universe):,} authors, {len(tw.quotes):,} quotes;",
      {k: len(v) for k, v in tw.datasets.items()}, "quotes per dataset")
print("released files:", "used" if rel is not None else "not downloaded (synthetic twin only)")

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
# Mean log10 search hits of the corpus authors (fame ≥ 3) by race and by intersectional
# subgroup. The paper finds about half a point between the most and least famous groups
# (White male vs Black female; White vs Asian), i.e. more than three times as many hits.

# %%
tab3 = tables.table3(src.universe)
artifacts.save_table(tab3, "at-tab3", synthetic=src.synthetic)
tab3

# %% [markdown]
# ## Table 2: the selected fame-balancing runs
#
# Algorithm 1 (A.5): the smallest group (Black female; Latino) is shuffled and each of its
# authors greedily matched to one author per other group near its fame, with running offsets,
# quote-count bins ⌊log2 count⌋ and acceptance threshold λ = 1; 100 seeded runs, the run with
# the minimum rank sum over five criteria is selected. Rows per dataset and search mode:
# *faithful* reproduces the release's position/label search, *corrected* is the clean
# nearest-fame search. With the released universe the paper's published values stand alongside
# (authors/quotes per group 742/1,991 and 831/1,914; mean fame 5.03 / 5.10; fame range 0.0017 /
# 0.0006).

# %%
tab2 = tables.table2(src.balanced, with_paper=not src.synthetic)
artifacts.save_table(tab2, "at-tab2", synthetic=src.synthetic, float_format="%.4f")
tab2

# %% [markdown]
# ## Figure 10: fame distribution per group after balancing
#
# Kernel density of log10 search hits for each subgroup of the two balanced datasets (one
# value per author). Aligned curves mean the matching removed the fame differences of Table 3.

# %%
fig10 = figures.fame_kde(src.datasets if len(src.datasets) == 2 else tw.datasets)
artifacts.save_figure(fig10, "at-fig10", synthetic=src.synthetic if len(src.datasets) == 2 else True)

# %% [markdown]
# ## Table 4: label sources per subgroup
#
# Number and share of unique authors per subgroup whose gender or race label came from
# Wikidata; the rest came from the two-LLM consensus (A.4.3). Gender is usually on Wikidata,
# race usually is not.

# %%
label_src = src if len(src.datasets) == 2 else tw
tab4 = tables.table4({k: (v, k) for k, v in label_src.datasets.items()})
artifacts.save_table(tab4, "at-tab4", synthetic=label_src.synthetic, float_format="%.1f")
tab4

# %% [markdown]
# ## Figure 11: corpus-count vs search-hit fame proxies
#
# Per author, log10(corpus name count + 1) against log10 search hits, with a least-squares line
# per subgroup (A.7.1; the paper counts names in Dolma: Pearson r = 0.85 intersectional, 0.77
# multirace). The release does not ship the corpus counts, so this figure is always drawn from
# the twin's second proxy (synthetic).

# %%
proxy_authors = {k: robustness.authors_with_proxies(v, k) for k, v in tw.datasets.items()}
for k, a in proxy_authors.items():
    print(k, robustness.proxy_correlations(a).round(3).to_dict("records"))
fig11 = figures.proxy_scatter(proxy_authors)
artifacts.save_figure(fig11, "at-fig11", synthetic=True)

# %% [markdown]
# ## Figure 12: fame-decile agreement across proxies
#
# Row-normalised crosstab of each author's fame decile under search hits (rows) and under the
# corpus count (columns). Mass on and near the diagonal means the balancing is robust to the
# choice of fame proxy (A.7.1). Synthetic (twin proxies).

# %%
deciles = {k: robustness.decile_agreement(a) for k, a in proxy_authors.items()}
print({k: {m: round(v, 2) for m, v in s.items()} for k, (_, s) in deciles.items()})
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
tab5 = tables.table5(tw.datasets["intersectional"], "intersectional", seed=cfg.seed)
artifacts.save_table(tab5, "at-tab5", synthetic=True)
tab5

# %% [markdown]
# ## Table 6: models
#
# The eleven LLMs evaluated, with the model version (API id), how they were accessed, the
# reasoning setting (disabled except GPT-OSS-120B: low) and whether their evidence-conditioned
# runs used the 300-matching subsets († in the RAG figures). Data from the paper, not computed.

# %%
tab6 = models.table6()
artifacts.save_table(tab6, "at-tab6", synthetic=False)
tab6
