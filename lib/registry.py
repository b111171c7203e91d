"""The one place the top of lib/ meets the paper packages: per paper, its parts, as tables.

Top-level modules (the published-values core, config) look a paper's part up here instead of
importing the paper package by name; they import this module lazily, because the paper packages
import the top-level cores.
"""
from __future__ import annotations

from lib.attribution import published as at_published
from lib.authority import published as ab_published
from lib.scholar import published as lsb_published

#: paper -> ``build(outputs, *, tolerance)``: its regenerated-vs-published comparisons of an outputs folder.
PUBLISHED = {
    "llmscholarbench": lsb_published.build,
    "authority_bias": ab_published.build,
    "attribution_bias": at_published.build,
}
