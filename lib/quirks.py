"""The faithful-vs-corrected quirk table core, shared by the papers' ``lib/<paper>/quirks.py``.

Each paper lists its quirks as rows (quirk, where, faithful, corrected, effect, plus its own keys);
this module turns them into the table and the markdown that ``docs/faithful_vs_corrected.md``
is generated from (DESIGN §6: one table per paper, every quirk with its measured effect).
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

COLUMNS = ("quirk", "where", "faithful", "corrected", "effect")


def table(rows: Sequence[dict]) -> pd.DataFrame:
    """The rows as a DataFrame with the documented columns (extra keys such as ids are dropped)."""
    return pd.DataFrame(list(rows), columns=list(COLUMNS))


def markdown(rows: Sequence[dict]) -> str:
    """The rows as a markdown table (pipes inside cells escaped)."""
    t = table(rows)
    lines = ["| " + " | ".join(t.columns) + " |", "|" + "---|" * len(t.columns)]
    lines += ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |" for row in t.itertuples(index=False)]
    return "\n".join(lines)
