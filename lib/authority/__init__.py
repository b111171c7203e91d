"""Authority bias in conversational paper recommendation: corpus, conditions, prompts, pilot and analysis.

Reproduces "Authority Bias in Conversational Search Engines for Academic Paper Recommendation"
(``shared/papers/authority_bias.txt``) after its reference pipeline (``shared/spec/
authority_attribution_reference.md`` Part A). Modules, in data-flow order:

* :mod:`~lib.authority.corpus`: the paper corpus (embedded synthetic default, released-data loader);
* :mod:`~lib.authority.scoring`: the five authority dimensions and the composite α (Eq. 1);
* :mod:`~lib.authority.conditions`: original / flipped / boosted metadata and candidate sets;
* :mod:`~lib.authority.prompts`: paper cards, instruction variants, main and pilot request tables;
* :mod:`~lib.authority.runs`: the models, and the request tables sent through the shared client into
  the raw store (experiments ``authority_pilot`` / ``authority_main``) and read back as raw answers;
* :mod:`~lib.authority.parsing`: the recommended paper number (faithful and corrected parsers);
* :mod:`~lib.authority.pilot`: pilot regression, VIF, McFadden R², dominance analysis, weight fusion;
* :mod:`~lib.authority.responses`: the labelled responses table (the contract of every table);
* :mod:`~lib.authority.analysis`: the tables ab-tab4 … ab-tab23 over that table.
* :mod:`~lib.authority.quirks`: every faithful/corrected switch in one table, and their measured effect (ab-quirks);
* :mod:`~lib.authority.flip_pilot`, :mod:`~lib.authority.main_experiment`, :mod:`~lib.authority.intermediate`:
  notebook 05's pilot and main experiment (collected, or read from the release) and its stage tables;
* :mod:`~lib.authority.plan`: notebook 05's requests for the dry run, built and not sent.

Data contract: the analysis functions take the responses table documented in
:mod:`lib.authority.responses` (``RESPONSE_COLUMNS``) and return DataFrames. Only
:mod:`~lib.authority.runs` calls models, through :mod:`lib.llm` and an endpoint the caller opens;
nothing here imports the synthetic panel or reads its truth.
"""
from lib.authority.conditions import (CONDITIONS, ConditionSet, build_candidate_sets, build_conditions,
                                      conditions_from_release)
from lib.authority.corpus import PaperCorpus, load_released, load_released_responses, synthetic_corpus
from lib.authority.parsing import parse_choice
from lib.authority.prompts import INSTRUCTIONS, VARIANTS, build_main_requests, build_pilot_requests
from lib.authority.responses import RESPONSE_COLUMNS, attach_request_ids, label_responses

__all__ = [
    "CONDITIONS", "ConditionSet", "build_candidate_sets", "build_conditions", "conditions_from_release",
    "PaperCorpus", "load_released", "attach_request_ids",
    "load_released_responses", "synthetic_corpus", "parse_choice", "INSTRUCTIONS", "VARIANTS", "build_main_requests",
    "build_pilot_requests", "RESPONSE_COLUMNS", "label_responses",
]
