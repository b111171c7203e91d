"""Smoke run of the attribution_bias notebooks on the tiny profile (tests/notebooks/conftest.py: run_chain)."""


def test_the_attribution_notebooks_run_on_the_tiny_profile(smoke):
    smoke("attribution_bias")
