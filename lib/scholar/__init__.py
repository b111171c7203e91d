"""LLMScholarBench analysis: name matching against the ground truth and the nine metrics.

- ``matching``: ``normalize_name``, the paper's 5-of-9 Jaro–Winkler rule (faithful and
  corrected), fast (``NameIndex`` + ``match_names``) and as plain recordlinkage (for checks).
- ``metrics``: refusal, validity, duplicates, consistency, factuality and task factuality,
  connectedness, scholarly similarity, diversity, parity (paper eqs. (1)–(11)).
- ``benchmark``: per-attempt values of the name-based metrics from a matched name table.
- ``perturb``: recommended names with known truth (real, perturbed, invented) for benchmarks.
- ``quirks``: the table of every faithful/corrected difference.
- ``collection``: notebooks 01 and 02's responses, collected from the endpoint or imported from the release.
"""
