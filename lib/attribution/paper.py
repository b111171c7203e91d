"""AttriBench declares itself: notebook 06, its 24 artifacts, its release and its parts.

:mod:`lib.registry` loads :data:`PAPER` (checked against :class:`lib.declare.Paper`).
"""
from __future__ import annotations

from lib.declare import Declaration, Notebook, Release, artifact_rows

KEY = "attribution_bias"
_NB = "06_attribution_fairness"


class AttriBench(Declaration):
    key = KEY
    title = "Attribution bias in LLMs (AttriBench)"
    # lib.attribution.build.save (per source: twin or released), then the evaluation when it runs
    notebooks = (Notebook(_NB, plans=True, writes=("*_universe.parquet", "*_with_quotes.parquet",
                                                   "*_random_300matchings.parquet"),
                          may_write=("scored.parquet", "accuracy.parquet", "subgroup_significance.parquet",
                                     "disparities.parquet")),)
    artifacts = artifact_rows(KEY, [
    ('at-fig1', 'diagram', None, 'Attribution vs suppression example'),
    ('at-fig2', 'diagram', None, 'Workflow'),
    ('at-fig3', 'diagram', None, 'Dataset construction pipeline'),
    ('at-tab1', 'table', '06_attribution_fairness', 'Prompts (direct, indirect, evidence-conditioned suffix, system prompt)'),
    ('at-tab2', 'table', '06_attribution_fairness', 'Fame-balancing selected-run statistics'),
    ('at-tab2-rebalance', 'table', '06_attribution_fairness', "Fame balancing re-run (Tier B): the selected run of a fresh seeded re-run of Algorithm 1 and each criterion's spread over its runs"),
    ('at-tab3', 'table', '06_attribution_fairness', 'Mean fame by subgroup before balancing'),
    ('at-tab4', 'table', '06_attribution_fairness', 'Label sources (wikidata vs LLM consensus) per subgroup'),
    ('at-tab5', 'table', '06_attribution_fairness', 'Quote-author co-occurrence by subgroup'),
    ('at-tab6', 'table', '06_attribution_fairness', 'Models evaluated, with provider and size'),
    ('at-fig4', 'figure', '06_attribution_fairness', 'Overall accuracy by model, direct and indirect, both datasets, 95% CI'),
    ('at-fig5', 'figure', '06_attribution_fairness', 'Accuracy by subgroup with significance marks'),
    ('at-fig6', 'figure', '06_attribution_fairness', 'S_omit by subgroup'),
    ('at-fig7', 'figure', '06_attribution_fairness', 'S_evid by subgroup'),
    ('at-fig8', 'figure', '06_attribution_fairness', 'Accuracy by fame bin per model'),
    ('at-fig9', 'figure', '06_attribution_fairness', 'Demographics of the source corpus before balancing'),
    ('at-fig10', 'figure', '06_attribution_fairness', 'Fame KDE per group after balancing'),
    ('at-fig11', 'figure', '06_attribution_fairness', 'Corpus-count vs search-hits fame proxies per author'),
    ('at-fig12', 'figure', '06_attribution_fairness', 'Fame-decile agreement across proxies'),
    ('at-fig13', 'figure', '06_attribution_fairness', 'Evidence-conditioned (RAG) accuracy, direct and indirect'),
    ('at-fig14', 'figure', '06_attribution_fairness', 'RAG accuracy disparities, indirect prompt'),
    ('at-fig15', 'figure', '06_attribution_fairness', 'Direct-prompt author omission rates'),
    ('at-fig16', 'figure', '06_attribution_fairness', 'Indirect-overt prompting accuracy, with and without retrieval'),
    ('at-quirks', 'table', '06_attribution_fairness', 'Effect of each release quirk (largest change in a published-level number) and the headline metrics under the faithful (release code) and corrected modes'),
    ])
    releases = (Release("attribench_dir", "lib.attribution.download", readers=(_NB,), accepts_modified=True),)
    # the dry-run plan is built beside the runs it plans (lib.attribution.runs); no plan module
    modules = {**Declaration.modules, "notebook_plans": "runs"}


PAPER = AttriBench()
