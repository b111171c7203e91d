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
# Fixture notebook: one figure; fails on request so the runner's failure report can be tested.

# %%
import time

import matplotlib.pyplot as plt

import pandas as pd

from lib import artifacts, config, paths, registry
from lib.stage import Stage

# %% tags=["parameters"]
profile = "quick"
fail = False
sleep_s = 0.0    # > 0: a slow cell, for the timeout and interruption tests
read_upstream = False   # True: read 02's data, as the real notebook 03 does

# %%
cfg = config.load_profile(profile)
upstream = (paths.stage_dir("02_collection") / "attempts.parquet").read_bytes() if read_upstream else b""
fig, ax = plt.subplots(figsize=(3, 2))
ax.bar(["a", "b"], [1, 2])
artifacts.save_figure(fig, "lsb-figB6", synthetic=cfg.synthetic)

# %% [markdown]
# ### A slow step

# %%
time.sleep(sleep_s)

# %%
if fail:
    raise ValueError("fixture failure requested")

# %%
stage = Stage("03_infrastructure_benchmark")
for f in registry.notebooks()["03_infrastructure_benchmark"].writes:   # every file the real 03 declares
    stage.write(pd.DataFrame({"n": [len(upstream)]}), f)
