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
# # 05 Authority bias: corpus, conditions, prompts and the 1:N pilot design
#
# Reproduces the design half of "Authority Bias in Conversational Search Engines for Academic
# Paper Recommendation": the paper corpus and queries (§4.2, Appendix B), authority scoring
# (§4.3, Appendix A.6), the three counterfactual conditions (§4.4, Appendix A.3), the instruction
# variants and paper cards (§4.5, Appendix A.1–A.2), the metrics (§4.7) and the request tables
# of the 1:N pilot (§4.3, Appendix A.7) and of the main experiment (§4.6).
#
# On the embedded default the corpus is synthetic: 25 topics × 50 invented papers stratified
# like the paper's (15 high, 15 mid, 10 low, 10 emerging 2024–2026) and 10 queries per topic.
# Tables built from it are labelled synthetic. The composite authority score uses equal weights
# (the reference's pre-pilot default) until the pilot has been answered and its weights derived.
# With `corpus_source` set to a released dataset folder (`scholar_papers.json`,
# `experiment_sets.json`), the papers, queries, candidate sets and condition metadata are the
# release's own.

# %%
from lib import artifacts, config, paths
from lib.authority import analysis, conditions, corpus, prompts

# %% tags=["parameters"]
profile = "quick"
corpus_source = "synthetic"
topics = []
queries_per_topic = 10
pilot_queries_per_topic = 10
authority_weights = {"venue": 0.2, "median_h": 0.2, "max_h": 0.2, "citations": 0.2, "affiliation": 0.2}

# %%
cfg = config.load_profile(profile)
synthetic = corpus_source == "synthetic"
out_dir = paths.DATA / "05_authority_pilot_regression"
paths.ensure(out_dir)
paper_corpus = corpus.synthetic_corpus(cfg.seed) if synthetic else corpus.load_released(corpus_source)
if topics:
    paper_corpus = paper_corpus.subset(topics)
print(paper_corpus.source, "|", len(paper_corpus.papers), "papers,", len(paper_corpus.authors), "authors,",
      len(paper_corpus.queries), "queries")

# %% [markdown]
# ## Table 18: topics and example queries
#
# The 25 computer-science topics, each with 50 papers and 10 natural-language queries; the
# example is the first query of each topic. On the default these are the synthetic corpus's
# queries (topic names are the paper's; the queries are ours).

# %%
tab18 = corpus.topics_table(paper_corpus)
artifacts.save_table(tab18, "ab-tab18", synthetic=synthetic)
tab18

# %% [markdown]
# ## Table 2: the three conditions, with counts
#
# Content (title, abstract, year) never changes. *Flipped* swaps the complete metadata of the
# i-th most and i-th least authoritative papers of each topic (12 pairs per 50 papers);
# *boosted* gives half of the middle bucket elite metadata (13 per topic). Counts come from the
# built conditions.

# %%
conds = (conditions.build_conditions(paper_corpus, weights=authority_weights, seed=cfg.seed) if synthetic
         else conditions.conditions_from_release(corpus_source))
candidates = conditions.build_candidate_sets(paper_corpus, seed=cfg.seed)
tab2 = conditions.condition_counts(conds)
artifacts.save_table(tab2, "ab-tab2", synthetic=synthetic)
tab2

# %% [markdown]
# ## Table 3: the instruction variants (text)
#
# The three prompts verbatim (paper Appendix A.1): a neutral baseline, a mild anti-authority
# instruction naming the attributes to ignore, and a strong content-first directive. This text
# is the real prompt set, not synthetic.

# %%
tab3 = prompts.instruction_variants_text()
artifacts.save_text(tab3, "ab-tab3", synthetic=False)
print(tab3)

# %% [markdown]
# ## Table 4: metrics and statistical tests
#
# The six evaluation metrics, the research question each answers, the test paired with it and
# the companion function that computes it. A description of the design, not data.

# %%
tab4 = analysis.metrics_and_tests()
artifacts.save_table(tab4, "ab-tab4", synthetic=False)
tab4

# %% [markdown]
# ## Table 14: a manipulated candidate set
#
# One query's candidate set under the manipulations: under *flipped* a high-authority paper (A)
# and a low-authority paper (B) exchange venue, citations and authors, so their composite scores
# swap exactly; under *boosted* a middle paper (C) receives inflated metadata and a higher
# composite. Titles and abstracts are identical across conditions (synthetic papers).

# %%
tab14 = conditions.worked_example(paper_corpus, conds, candidates)
print("Query:", tab14["query"].iloc[0])
tab14 = tab14.drop(columns=["query_id", "query"])
artifacts.save_table(tab14, "ab-tab14", synthetic=synthetic)
tab14

# %% [markdown]
# ## The requests of the 1:N pilot and of the main experiment
#
# The pilot pairs each candidate's content with every candidate's metadata in turn (10 × 10
# prompts per query, 5 pilot topics, baseline instruction). The main experiment crosses every
# query with the three instruction variants and the three conditions. Both tables are model
# independent; the collection step sends them to the panel's models. Their answers feed the
# pilot regression (Tables 1, 16, 20) and the main-experiment tables (5–13, 15, 17, 19, 21–23).

# %%
pilot_topics = [t for t in prompts.PILOT_TOPICS if t in paper_corpus.topics]
pilot_requests = prompts.build_pilot_requests(paper_corpus, topics=pilot_topics, n_queries=pilot_queries_per_topic,
                                              seed=cfg.seed)
main_requests = prompts.build_main_requests(paper_corpus, n_queries=queries_per_topic, seed=cfg.seed,
                                            condition_set=conds)
print(f"pilot: {len(pilot_requests)} prompts over {len(pilot_topics)} topics; "
      f"main: {len(main_requests)} prompts ({main_requests['query_id'].nunique()} queries x 3 instructions x 3 conditions)")
print(main_requests["messages"].iloc[0][0]["content"][:1500])

# %%
paper_corpus.papers.to_parquet(out_dir / "papers.parquet")
paper_corpus.authors.assign(affiliations=paper_corpus.authors["affiliations"].map(list)).to_parquet(
    out_dir / "authors.parquet")
paper_corpus.queries.to_parquet(out_dir / "queries.parquet")
candidates.to_parquet(out_dir / "candidates.parquet")
conds.papers.to_parquet(out_dir / "condition_papers.parquet")
conds.authors.assign(affiliations=conds.authors["affiliations"].map(list)).to_parquet(out_dir / "condition_authors.parquet")
for name, table in (("pilot_requests", pilot_requests), ("main_requests", main_requests)):
    table.assign(candidate_ids=table["candidate_ids"].map(list)).to_parquet(out_dir / f"{name}.parquet")
sorted(p.name for p in out_dir.glob("*.parquet"))
