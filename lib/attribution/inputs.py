"""AttriBench's inputs: the synthetic twin, the released files, and whether the models are asked.

Notebook 06 always builds the synthetic twin; with ``use_released_data`` it also balances the
released universe (``real_data.attribench_dir``, default ``downloads/attribench``) when its files
are there. :class:`Sources` holds the source rule, once: the corpus tables describe the release
when it is there, the models are asked about it only when both its quote files are (else about
the twin). The release holds no model responses, so the runs of §5 are made only with an endpoint
to ask: the embedded panel (synthetic profiles) or ``llm.base_url``. :func:`profile_errors`
checks the notebook's choices when the profile is loaded (through :meth:`lib.declare.Paper.profile_errors`),
:func:`check` when the notebook starts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lib import config, paths, usermodels
from lib.attribution import models as at_models

NOTEBOOK = "06_attribution_fairness"
#: Allowed values of the notebook's choice parameters.
CHOICES = {"prompt_family": ("reference", "providers", "together"), "significance_test": ("z", "welch")}


def _errors(params: dict[str, Any], key: str, table=None) -> list[str]:
    """Messages for the bad values of ``params``; ``key`` formats a parameter name for the message;
    ``table`` the audited models (:func:`lib.attribution.models.for_profile`; None: Table 6)."""
    errs = [key.replace("{name}", name) + ": expected " + " or ".join(repr(a) for a in allowed) + f", got {params[name]!r}"
            for name, allowed in CHOICES.items() if name in params and params[name] not in allowed]
    known = list(at_models.table6(table)["version"])
    unknown = [m for m in params.get("rag_subset_models") or [] if m not in known]
    if unknown:
        errs.append(key.replace("{name}", 'rag_subset_models') + f": unknown model(s) {unknown}; expected versions of "
                    f"{at_models.MODELS_CSV.name}: {known}")
    return errs


def profile_errors(prof: config.Profile, where: str) -> list[str]:
    """The profile's overrides of notebook 06's choices: allowed values and known models; and a
    real-data profile (``synthetic: false``) without the released files stops: notebook 06 would
    stand the synthetic twin in for them (``synthetic: mixed`` declares that set-up)."""
    given = prof.notebooks.get(NOTEBOOK, {})
    errs = at_models.profile_errors(prof, where)
    table = usermodels.loaded(prof, at_models.for_profile)
    errs += _errors(given, f"{where}: key 'notebooks.{NOTEBOOK}.{{name}}'", table) if NOTEBOOK in prof.notebooks else []
    if prof.synthetic is False and (paths.NOTEBOOKS / f"{NOTEBOOK}.py").is_file():
        fallback = ("synthetic: false, but it is null" if prof.real_data.attribench_dir is None
                    else None if given.get("use_released_data", True) else
                    f"synthetic: false, but notebooks.{NOTEBOOK}.use_released_data is false")
        if fallback:
            errs.append(f"{where}: key 'real_data.attribench_dir': {fallback}, so notebook {NOTEBOOK} would use "
                        "the synthetic twin instead of the released AttriBench; fetch the five released CSVs with "
                        "`python -m lib.attribution.download` (README, \"Tier A: the release profile\"), set "
                        f"real_data.attribench_dir to their folder (default downloads/attribench) and "
                        f"use_released_data: true, or declare synthetic: mixed (a real endpoint on the synthetic twin)")
    return errs


def check(table=None, **params: Any) -> None:
    """The notebook's own parameters (prompt_family, significance_test, rag_subset_models; models of
    ``table``, :func:`lib.attribution.models.for_profile`); ValueError listing every bad value."""
    errs = _errors(params, f"{NOTEBOOK}: parameter {{name}}", table)
    if errs:
        raise ValueError("\n".join(errs))


def run_models(cfg: config.Profile) -> bool:
    """Whether the models are asked: there is an endpoint (the embedded panel on a synthetic
    profile, or ``llm.base_url``); a real-data profile without one reports Figures 4–8, 13–16 missing."""
    return cfg.synthetic or cfg.llm.real_endpoint


def released(cfg: config.Profile, use_released_data: bool, *, runs: int, lam: float):
    """The released AttriBench (:func:`lib.attribution.build.build_released`) when asked for and
    downloaded, else None (the synthetic twin stands in)."""
    if not use_released_data:
        return None
    from lib.attribution import build

    return build.build_released(cfg.real_path("attribench_dir"), runs=runs, seed=cfg.seed, lam=lam)


@dataclass(frozen=True)
class Sources:
    """The synthetic twin and the released AttriBench (None when not used or not downloaded), and
    the one rule of which of them each part of notebook 06 reads."""

    twin: Any
    released: Any = None

    @property
    def described(self):
        """The build Figures 9–10 and Tables 2–4 describe: the release when it is there (its universe,
        with whichever quote files it has), else the twin."""
        return self.twin if self.released is None else self.released

    @property
    def asked(self):
        """The build whose datasets the models are asked about (§5): the release only when both its
        quote files are there, since §5 asks every model on both datasets and Figures 4–8 set them
        side by side; else the twin (whose replies are then labelled synthetic)."""
        return self.released if self.released is not None and self.released.both_datasets() is not None else self.twin

    def line(self) -> str:
        tw = self.twin
        used = "used" if self.released is not None else "not downloaded (synthetic twin only)"
        sizes = {k: len(v) for k, v in tw.datasets.items()}
        return (f"twin: {len(tw.universe):,} authors, {len(tw.quotes):,} quotes; {sizes} quotes per dataset\n"
                f"released files: {used}")


def sources(cfg: config.Profile, use_released_data: bool, *, twin_authors: int, runs: int, lam: float,
            n_matchings: int) -> Sources:
    """The twin of ``twin_authors`` authors (:func:`lib.attribution.build.build_twin`, ``runs``
    balancing runs at λ = ``lam``, ``n_matchings`` per subset) and :func:`released`."""
    from lib.attribution import build

    tw = build.build_twin(twin_authors, cfg.seed, runs=runs, lam=lam, n_matchings=n_matchings)
    return Sources(tw, released(cfg, use_released_data, runs=runs, lam=lam))
