"""LLMScholarBench declares itself: notebooks 01-04, its 27 artifacts, its releases and its parts.

:mod:`lib.registry` loads :data:`PAPER` (checked against :class:`lib.declare.Paper`); the artifact
registry, the notebook list, the upstream map and the profile's ``real_data`` keys of the top of
``lib/`` are derived from it and the other papers' declarations.
"""
from __future__ import annotations

from lib.declare import Declaration, Notebook, Release, artifact_rows

KEY = "llmscholarbench"
_SWEEP, _COLL = "01_calibration", "02_collection"


class LLMScholarBench(Declaration):
    key = KEY
    title = "LLMScholarBench: benchmarking and intervention-based auditing of LLM scholar recommendation"
    notebooks = (
        Notebook(_SWEEP, plans=True, writes=("attempts.parquet", "names.parquet", "temperature_scores.parquet",
                                             "selected_temperatures.parquet")),
        Notebook(_COLL, upstream=(_SWEEP,), reads=(f"{_SWEEP}/selected_temperatures.parquet",), plans=True,
                 writes=("attempts.parquet", "names.parquet", "label_counts.csv", "label_counts_paper.csv",
                         "provenance.csv")),
        Notebook("03_infrastructure_benchmark", upstream=(_COLL,),
                 reads=(f"{_COLL}/attempts.parquet", f"{_COLL}/names.parquet"),
                 writes=("attribute_distribution.parquet", "per_attempt.parquet", "infrastructure.parquet",
                         "vs_published.parquet", "by_model.parquet", "by_task_param.parquet")),
        Notebook("04_interventions", upstream=(_SWEEP, _COLL),
                 reads=(f"{_SWEEP}/attempts.parquet", f"{_SWEEP}/names.parquet", f"{_COLL}/attempts.parquet",
                        f"{_COLL}/names.parquet"),
                 writes=("temperature_curves.parquet", "temperature_curves_by_model.parquet", "refusals.parquet",
                         "per_attempt_all_metrics.parquet", "constrained_gender_overall.parquet",
                         *(f"constrained_{f}_by_model.parquet" for f in ("gender", "ethnicity", "citations", "general")),
                         "constrained_tradeoffs.parquet", "rag_by_task.parquet", "quadrants.parquet")),
    )
    artifacts = artifact_rows(KEY, [
    ('lsb-fig1', 'diagram', None, 'Overview'),
    ('lsb-tab1', 'table', '01_calibration', 'LLMs by size class and access'),
    ('lsb-tabA1', 'table', '01_calibration', 'Model configurations incl. selected temperature'),
    ('lsb-figA1', 'text', '02_collection', 'The prompt template, rendered for every task parameter (a text artifact)'),
    ('lsb-figA2', 'figure', '01_calibration', 'Temperature sensitivity per model: stacked response labels + factuality mean±sd, chosen temperature outlined'),
    ('lsb-fig2', 'figure', '03_infrastructure_benchmark', 'Infrastructure-level performance, 9 metrics × access/size/reasoning, mean ± 95% CI'),
    ('lsb-figB6', 'figure', '03_infrastructure_benchmark', 'Attribute distribution of the ground truth (gender, ethnicity, publication and citation prominence)'),
    ('lsb-figC7', 'figure', '03_infrastructure_benchmark', 'Baseline performance by model (9 metrics)'),
    ('lsb-figC8', 'figure', '03_infrastructure_benchmark', 'Baseline factuality by model: author, field, epoch, seniority'),
    ('lsb-figC9', 'figure', '03_infrastructure_benchmark', '(a) diversity and (b) parity by model across 4 attributes'),
    ('lsb-figC10', 'figure', '03_infrastructure_benchmark', 'Task-level factuality'),
    ('lsb-figC11', 'figure', '03_infrastructure_benchmark', 'Baseline performance by task parameter'),
    ('lsb-quirks', 'table', '03_infrastructure_benchmark', 'Figure 2 group means under the faithful (reference code) and corrected metric modes'),
    ('lsb-fig3', 'figure', '04_interventions', 'Effect of temperature by infrastructure group (lines with CI bands)'),
    ('lsb-figC12', 'figure', '04_interventions', 'Effect of temperature per model'),
    ('lsb-fig4', 'figure', '04_interventions', 'Gender-constrained prompting, before/after, averaged over models'),
    ('lsb-figC13', 'figure', '04_interventions', 'Gender-constrained prompting per model'),
    ('lsb-figC14', 'figure', '04_interventions', 'Ethnicity-constrained prompting per model'),
    ('lsb-figC15', 'figure', '04_interventions', 'Citation-constrained prompting per model'),
    ('lsb-figC16', 'figure', '04_interventions', 'General diversity-constrained prompting per model'),
    ('lsb-figC17', 'figure', '04_interventions', 'Trade-offs of constrained prompting (a) gender (b) ethnicity (c) citations (d) general'),
    ('lsb-fig5', 'figure', '04_interventions', 'RAG with web search, before/after per task, flash and pro rows'),
    ('lsb-figC18', 'figure', '04_interventions', 'Socio-technical quadrants: (a) baseline (b) temperature (c) constrained (d) RAG'),
    ('lsb-figA3', 'figure', '04_interventions', 'Refusal reasons by configuration'),
    ('lsb-figA4', 'figure', '04_interventions', 'Refusal reasons by configuration and infrastructure group (a) access (b) size (c) reasoning'),
    ('lsb-figA5', 'figure', '04_interventions', 'Refusal reasons by configuration and task'),
    ('lsb-tabA2', 'table', '04_interventions', 'Example refusal texts per reason'),
    ])
    releases = (
        Release("ground_truth_dir", "lib.groundtruth.release", readers=(_SWEEP, _COLL, "03_infrastructure_benchmark",
                                                                        "04_interventions"), accepts_modified=True),
        Release("raw_responses_dir", "lib.scholar.release", readers=(_SWEEP, _COLL)),
    )


PAPER = LLMScholarBench()
