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
# Fixture notebook: reads 01's data (so it must run after 01) and saves a text artifact.

# %%
import pandas as pd

from lib import artifacts, config, registry
from lib.stage import Stage

# %% tags=["parameters"]
profile = "quick"
suffix = "!"

# %%
cfg = config.load_profile(profile)
stage = Stage("02_collection")
models = stage.read("01_calibration/selected_temperatures.parquet")
for f in registry.notebooks()["02_collection"].writes:   # every file the real 02 declares
    stage.write(models.assign(seen=True), f)
artifacts.save_text("\n".join(models["model"]) + suffix, "lsb-figA1", synthetic=cfg.synthetic)
