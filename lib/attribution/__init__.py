"""AttriBench: attribution accuracy, disparity and suppression in LLMs (attribution_bias paper).

Modules, in pipeline order:

* :mod:`.dataset`     released CSV schema, loaders with validation, subgroup vocabulary
* :mod:`.download`    fetch + verify the five released files at the pinned commit
                      (``python -m lib.attribution.download``)
* :mod:`.twin`        the synthetic AttriBench twin (offline default): author universe, quotes,
                      a second fame proxy, label sources
* :mod:`.balance`     fame balancing, Algorithm 1 (faithful / corrected), 100 seeded runs, rank-sum selection
* :mod:`.prompts`     Table 1 prompts, system prompts, evidence context R(q)
* :mod:`.retrieval`   all-MiniLM-L6-v2 embeddings (cached), cosine top-5 with the query itself
* :mod:`.requests`    ``build_requests``: the chat requests the collection runner sends
* :mod:`.runs`        the runs of §5.1: plan (models × prompts × evidence × generations), collect
                      through :mod:`lib.llm` into the raw store (resume-safe), read the responses back
* :mod:`.mentions`    author-mention detection: correct / wrong / none (faithful: the release's matcher)
* :mod:`.metrics`     accuracy with 95 % CIs, S_omit, S_evid, subgroup significance, disparity
* :mod:`.tables`      Tables 2–5; :mod:`.models` Table 6; :mod:`.robustness` fame proxies (A.7)
* :mod:`.figures`     Figures 4–16
* :mod:`.quirks`      faithful vs corrected: every difference from the release's code, measured (at-quirks)

Data contract of the analysis: a responses table with columns ``quote_id, model, prompt_type,
evidence, generation, text`` (see :mod:`.metrics`) plus the quote-level dataset it came from.
"""
from lib.attribution.dataset import AttriBenchSchemaError, load_quotes, load_sample, load_universe
from lib.attribution.mentions import AuthorMatcher, canonicalize_author, normalize_for_match
from lib.attribution.requests import build_requests

__all__ = ["AttriBenchSchemaError", "AuthorMatcher", "build_requests", "canonicalize_author", "load_quotes",
           "load_sample", "load_universe", "normalize_for_match"]
