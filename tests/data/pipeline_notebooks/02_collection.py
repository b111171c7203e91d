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

from lib import artifacts, config, paths

# %% tags=["parameters"]
profile = "quick"
suffix = "!"

# %%
cfg = config.load_profile(profile)
models = pd.read_parquet(paths.DATA / "01_calibration" / "models.parquet")
(paths.DATA / "02_collection").mkdir(parents=True, exist_ok=True)
models.assign(seen=True).to_parquet(paths.DATA / "02_collection" / "seen.parquet")
artifacts.save_text("\n".join(models["model"]) + suffix, "lsb-figA1", synthetic=cfg.synthetic)
