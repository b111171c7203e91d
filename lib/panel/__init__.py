"""The synthetic LLM panel: an OpenAI-compatible stand-in for the papers' models (DESIGN §3.2).

In process::

    from lib.panel import Panel, serve_in_thread, truth
    panel = Panel(seed, authors=world.authors, quotes=quotes_df)   # or Panel.from_world(world, seed)
    status, headers, body = panel.complete({"model": ..., "messages": [...], "temperature": 0.5, "seed": 1})
    base_url, stop = serve_in_thread(panel)                          # http://127.0.0.1:PORT/v1
    facts = truth(seed, panel=panel)

From the shell: ``python -m lib.panel serve --port N --seed S`` and ``python -m lib.panel truth --seed S``.
Everything the panel produces is synthetic; it is not evidence for any paper's findings.
The panel imports nothing from lib.scholar, lib.authority, lib.attribution or lib.stats.
"""
from lib.panel.core import Panel
from lib.panel.expected import parameter_table, truth
from lib.panel.faults import FaultConfig
from lib.panel.profiles import all_profiles, resolve
from lib.panel.server import serve_in_thread

__all__ = ["Panel", "FaultConfig", "truth", "parameter_table", "serve_in_thread", "all_profiles", "resolve"]
