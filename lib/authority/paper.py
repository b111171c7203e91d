"""Authority bias declares itself: notebook 05, its 24 artifacts, its release and its parts.

:mod:`lib.registry` loads :data:`PAPER` (checked against :class:`lib.declare.Paper`).
"""
from __future__ import annotations

from lib.declare import Declaration, Notebook, Release, artifact_rows

KEY = "authority_bias"
_NB = "05_authority_pilot_regression"


class AuthorityBias(Declaration):
    key = KEY
    title = "Authority bias in conversational search for paper recommendation"
    notebooks = (Notebook(_NB, plans=True, writes=(
        "papers.parquet", "authors.parquet", "queries.parquet", "candidates.parquet", "condition_papers.parquet",
        "condition_authors.parquet", "pilot_requests.parquet", "main_requests.parquet", "responses.parquet"),
        may_write=("pilot_rows.parquet",)),)   # lib.authority.intermediate; pilot_rows when the pilot ran
    artifacts = artifact_rows(KEY, [
    ('ab-tab1', 'table', '05_authority_pilot_regression', 'Empirically derived authority weights'),
    ('ab-tab2', 'table', '05_authority_pilot_regression', 'Experimental conditions (original / flipped / boosted) with counts'),
    ('ab-tab3', 'text', '05_authority_pilot_regression', 'Instruction variants (text)'),
    ('ab-tab4', 'table', '05_authority_pilot_regression', 'Metrics and statistical tests'),
    ('ab-tab5', 'table', '05_authority_pilot_regression', 'Aggregate flip rates vs original, Wilson CI, binomial test'),
    ('ab-tab6', 'table', '05_authority_pilot_regression', 'Flip direction toward higher authority'),
    ('ab-tab7', 'table', '05_authority_pilot_regression', 'Per-model susceptibility, chi-squared homogeneity'),
    ('ab-tab8', 'table', '05_authority_pilot_regression', 'Cross-model selection agreement (summary and per pair) and flip kappa'),
    ('ab-tab9', 'table', '05_authority_pilot_regression', 'Dose-response: picks by authority tier per condition'),
    ('ab-tab10', 'table', '05_authority_pilot_regression', 'Top-5 / bottom-5 topics by flip rate'),
    ('ab-tab11', 'table', '05_authority_pilot_regression', 'Aggregate instruction effect, McNemar'),
    ('ab-tab12', 'table', '05_authority_pilot_regression', 'Per-model effect of the mild instruction'),
    ('ab-tab13', 'table', '05_authority_pilot_regression', 'Say-do gap, per-model authority-mention rates'),
    ('ab-tab14', 'table', '05_authority_pilot_regression', 'Worked example of a manipulated candidate set'),
    ('ab-tab15', 'table', '05_authority_pilot_regression', 'Per-model inference time (mean, median, p95)'),
    ('ab-tab16', 'table', '05_authority_pilot_regression', 'Pilot diagnostics: standardized coefficients, VIF, dominance R2, fused weights, McFadden R2'),
    ('ab-tab17', 'table', '05_authority_pilot_regression', 'Weight sensitivity of the direction result'),
    ('ab-tab18', 'table', '05_authority_pilot_regression', 'Topics and example queries'),
    ('ab-tab19', 'table', '05_authority_pilot_regression', 'Full topic-level flip and boost rates'),
    ('ab-tab20', 'table', '05_authority_pilot_regression', '6-predictor pilot regression (author_score)'),
    ('ab-tab21', 'table', '05_authority_pilot_regression', 'Tier ablation (a smaller model of a frontier family)'),
    ('ab-tab22', 'table', '05_authority_pilot_regression', 'Statistical significance summary'),
    ('ab-tab23', 'table', '05_authority_pilot_regression', 'Authority-marker categories in justifications'),
    ('ab-quirks', 'table', '05_authority_pilot_regression', 'Effect of each reference-code quirk and the headline numbers under the faithful (reference code) and corrected modes'),
    ])
    releases = (Release("authority_dataset_dir", "lib.authority.corpus", readers=(_NB,)),)


PAPER = AuthorityBias()
