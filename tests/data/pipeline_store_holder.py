# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: LLM audit companion
#     language: python
#     name: llm-audit-companion
# ---

# %% [markdown]
# Fixture notebook for the runner's side-by-side test (tests/test_pipeline.py writes it out as 05
# and 06, `{notebook}` replaced): it holds the raw store's writer lock for a while, as a collection
# does, and records when it held it.

# %%
import time

import pandas as pd

from lib import config, registry
from lib.llm.store import RawStore
from lib.stage import Stage

# %% tags=["parameters"]
profile = "quick"
hold_s = 0.0    # seconds the raw store's writer lock is held

# %%
cfg = config.load_profile(profile)
print("fixture {notebook} says hello")
with RawStore() as store:
    held_from = time.time()
    time.sleep(hold_s)
    held_to = time.time()

# %%
stage = Stage("{notebook}")
for f in registry.notebooks()["{notebook}"].writes:     # every file the real notebook declares
    stage.write(pd.DataFrame({"held_from": [held_from], "held_to": [held_to]}), f.replace("*", "fixture"))
