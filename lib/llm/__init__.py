"""Collection stack: prompts, models, OpenAI-compatible client, raw store, labels, refusals, cost and spend.

This package speaks HTTP and knows no simulator (DESIGN §5): the embedded panel is just another
OpenAI-compatible base URL.
"""
