"""The eleven LLMs of the paper's evaluation (paper §5.1, A.8 Table 6; reference B.0, B.3).

Data, not computation: display name as in the figures, API model id (the version), how it was
accessed, the reasoning setting of §5.1, and whether its evidence-conditioned (RAG) runs used
the 300-matching subsets (marked † in the paper's RAG figures; reference B.3 RAG item 9).
"""
from __future__ import annotations

import pandas as pd

_MODELS = (
    # display name, model id / version, access, reasoning, RAG on 300-matching subsets
    ("GPT-5.1", "gpt-5.1", "OpenAI API", "disabled (effort none)", True),
    ("Claude 4.6 Sonnet", "claude-sonnet-4-6", "Anthropic API", "disabled (thinking budget 0)", True),
    ("Gemini 2.5 Flash-Lite", "gemini-2.5-flash-lite", "Google API", "disabled", False),
    ("GPT-OSS-120B", "openai/gpt-oss-120b", "Together AI", "low (minimum available)", False),
    ("DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.1", "Together AI", "disabled", False),
    ("Kimi-K2.5", "moonshotai/Kimi-K2.5", "Together AI", "disabled", False),
    ("Llama-4 Maverick", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "Together AI", "disabled", False),
    ("Qwen3-Next-80B", "Qwen/Qwen3-Next-80B-A3B-Instruct", "Together AI", "disabled", False),
    ("Qwen3.5-397B", "Qwen/Qwen3.5-397B-A17B", "Together AI", "disabled", False),
    ("GLM-5", "zai-org/GLM-5", "Together AI", "disabled", False),
    ("Mixtral-8x7B", "mistralai/Mixtral-8x7B-Instruct-v0.1", "Together AI", "disabled", False),
)


def table6() -> pd.DataFrame:
    """Paper Table 6 as data: ``model, version, access, reasoning, rag_subset``."""
    return pd.DataFrame(_MODELS, columns=["model", "version", "access", "reasoning", "rag_subset"])


def display_names() -> dict[str, str]:
    """Model id → display name, for figure labels."""
    return {v: m for m, v, *_ in _MODELS}
