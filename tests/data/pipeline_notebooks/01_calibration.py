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
# Fixture notebook for the runner tests: writes data for 02 and one table artifact.

# %%
import os

import pandas as pd

from lib import artifacts, config, registry
from lib.stage import Stage

# %% tags=["parameters"]
profile = "quick"
n_rows = 3

# %%
cfg = config.load_profile(profile)
stage = Stage("01_calibration")
df = pd.DataFrame({"model": [f"m{i}" for i in range(n_rows)], "value": range(n_rows)})
for f in registry.notebooks()["01_calibration"].writes:   # every file the real 01 declares
    stage.write(df, f)
artifacts.save_table(df, "lsb-tab1", synthetic=cfg.synthetic)
print("secret seen by the kernel:", os.environ.get("FIXTURE_API_KEY", "none"))
