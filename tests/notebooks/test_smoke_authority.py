"""Smoke run of the authority_bias notebooks on the tiny profile (tests/notebooks/conftest.py: run_chain)."""


def test_the_authority_notebooks_run_on_the_tiny_profile(smoke):
    smoke("authority_bias")
