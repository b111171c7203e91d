"""Smoke run of the llmscholarbench notebooks on the tiny profile (tests/notebooks/conftest.py: run_chain)."""


def test_the_scholar_notebooks_run_on_the_tiny_profile(smoke):
    smoke("llmscholarbench")
