"""The companion's library: everything the six notebooks compute lives here.

Data flow (DESIGN.md §5): ground truth and panel -> collection (raw store) -> labelled attempts
-> per-attempt metrics -> aggregates -> figures, tables, claims. Each stage writes parquet that
the next reads, so a notebook can be re-run alone.

Where things are:
- ``lib.paths``      every directory (one module owns them all)
- ``lib.config``     run profiles in ``params/``, validated before any work starts
- ``lib.artifacts``  the registry of the papers' 72 artifacts and ``save_figure/save_table/save_text``
- ``lib.pipeline``   the papermill runner behind ``./run_all.sh``
- ``lib.manifest``   ``outputs/manifest.json``; ``lib.report``: ``outputs/index.html``
- ``lib.stats``      confidence intervals and tests (a leaf)
- ``lib.groundtruth``, ``lib.scholar``   LLMScholarBench ground truth, name matching, the nine metrics
- ``lib.llm``        prompts, OpenAI-compatible client, raw store, response labels
- ``lib.panel``      the synthetic LLM panel (embedded default only)
- ``lib.authority``  the authority-bias audit; ``lib.attribution``: AttriBench
"""
