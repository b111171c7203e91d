"""Ground truth D for LLMScholarBench: schema, the synthetic world, real loaders, demographics.

- ``schema``: the documented tables and their validation (missing column, wrong type, dangling id).
- ``world``: :class:`~lib.groundtruth.world.World` and ``load_world(seed, n_authors)``.
- ``synthetic`` / ``names``: the seeded generator and the real name-frequency tables it draws from.
- ``demographics``: perceived gender/ethnicity from names, prominence strata.
- ``loaders``: tables already in the schema (parquet or CSV, e.g. an imported release);
- ``release``: the LLMScholarBench release's ground-truth tables (reference §4.3–4.4) mapped onto the schema.
"""
