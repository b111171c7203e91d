"""The companion's library: everything the six notebooks compute lives here.

Data flow (DESIGN.md §5): ground truth and panel -> collection (raw store) -> labelled attempts
-> per-attempt metrics -> aggregates -> figures, tables, claims. Each stage writes parquet that
the next reads, so a notebook can be re-run alone.

Where things are (the top knows no paper; DESIGN §5):
- ``lib.paths``      every directory (one module owns them all; ``stage_dir`` a notebook's data folder)
- ``lib.stage``      a notebook's intermediate files: read and written only as its declaration
  (``lib/<paper>/paper.py``) names them, atomically
- ``lib.config``     run profiles in ``params/``, validated before any work starts
- ``lib.registry``   the tables through which the top reaches each paper's parts (release checks,
  input choices, published comparisons)
- ``lib.artifacts``  the registry of the papers' 72 artifacts and ``save_figure/save_table/save_text``;
  ``lib.status``: the README's status table from it
- ``lib.pipeline``   the papermill runner behind ``./run_all.sh``
- ``lib.manifest``   ``outputs/manifest.json`` and the run-state files; ``lib.report``: ``outputs/index.html``
- ``lib.claims``, ``lib.published``   the claims ledger and the regenerated-vs-published core
- ``lib.endpoints``  the embedded panel or the profile's real endpoint
- ``lib.stats``, ``lib.plots``        confidence intervals and tests; figure types (leaves)
- ``lib.groundtruth`` ground truth: schema, synthetic world, real loaders, demographics
- ``lib.llm``        prompts, OpenAI-compatible client, raw store, response labels
- ``lib.panel``      the synthetic LLM panel (embedded default only)
- ``lib.scholar`` (LLMScholarBench), ``lib.authority`` (authority bias), ``lib.attribution``
  (AttriBench): one package per paper, each with its models, inputs, published values, metrics,
  figures and claims
"""
