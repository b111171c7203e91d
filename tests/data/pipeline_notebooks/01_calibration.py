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

from lib import artifacts, config, paths

# %% tags=["parameters"]
profile = "quick"
n_rows = 3

# %%
cfg = config.load_profile(profile)
out = paths.DATA / "01_calibration"
out.mkdir(parents=True, exist_ok=True)
df = pd.DataFrame({"model": [f"m{i}" for i in range(n_rows)], "value": range(n_rows)})
df.to_parquet(out / "models.parquet")
artifacts.save_table(df, "lsb-tab1", synthetic=cfg.synthetic)
print("secret seen by the kernel:", os.environ.get("FIXTURE_API_KEY", "none"))
