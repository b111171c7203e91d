"""The authority paper's inputs: the synthetic corpus and panel, or the released dataset (Tier A).

Notebook 05 reads its corpus from ``corpus_source``: ``"synthetic"`` (the embedded default) or a
released dataset folder; a profile's ``real_data.authority_dataset_dir`` sets it. The answers are
collected from the endpoint when there is one to ask (the embedded panel on the synthetic
corpus, or ``llm.base_url``); a real-data profile without an endpoint reads the release's own
answers. :func:`profile_errors` checks the choices when the profile is loaded (through
:meth:`lib.declare.Paper.profile_errors`), :func:`resolve` when the notebook starts.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lib import config, paths, usermodels
from lib.authority import models as ab_models

NOTEBOOK = "05_authority_pilot_regression"
SYNTHETIC = "synthetic"
#: Allowed values of the notebook's choice parameters.
CHOICES = {"weights_source": ("pilot", "given"), "pilot_design": ("reference", "shared_content"),
           "pilot_fit": ("gd", "mle"), "pilot_averaging": ("subsets", "general"),
           "parse_mode": ("faithful", "corrected")}
#: Model-list parameters: ids must be models of lib/resources/authority_models.csv or the profile's own.
MODEL_LISTS = ("main_models", "pilot_models")


@dataclass(frozen=True)
class Switches:
    """Notebook 05's faithful / corrected switches, as its parameters cell names them (allowed values:
    :data:`CHOICES`; the defaults are the faithful ones)."""

    weights_source: str = "pilot"       # the conditions' weights: the pilot's fused ones or the given ones
    pilot_design: str = "reference"     # the pilot's cards: the reference's or all showing the fixed paper's content
    pilot_fit: str = "gd"               # the pilot regression: the reference's gradient descent or the exact MLE
    pilot_averaging: str = "subsets"    # its dominance averaging: the reference's or Budescu's general dominance
    parse_mode: str = "faithful"        # the answer parser: the paper's first integer or the stricter one


@dataclass(frozen=True)
class Inputs:
    """Where notebook 05's inputs come from."""

    corpus_source: str                  # "synthetic" or the released dataset folder
    collect: bool                       # ask the endpoint (panel or real) instead of reading the release's answers
    main_models: tuple[str, ...]        # main-experiment model ids (the headline set and the ablation)
    pilot_models: tuple[str, ...]       # 1:N pilot model ids

    mixed: bool = False                 # the profile declares synthetic: mixed (real endpoint, synthetic corpus)
    #: every model the profile audits (lib.authority.models.for_profile: the paper's and its own)
    models: tuple[ab_models.AuthorityModel, ...] = ab_models.MAIN_MODELS
    switches: Switches = field(default_factory=Switches)   # the checked switches the run uses

    @property
    def synthetic(self) -> bool | str:
        """True on the synthetic corpus, 'mixed' there under a mixed profile (the artifacts' label), else False."""
        return ("mixed" if self.mixed else True) if self.corpus_source == SYNTHETIC else False

    @property
    def ablation(self) -> str | None:
        """The tier-ablation model (cohort ``ablation``) of the audited models, if any (Table 21)."""
        return next((m.id for m in self.models if m.cohort == "ablation"), None)

    @property
    def headline(self) -> list[str]:
        """The main models without the tier ablation (the paper's headline view)."""
        return [m for m in self.main_models if m != self.ablation]

    @property
    def cohorts(self) -> dict[str, str]:
        """model id -> cohort of every audited model (the pooled rows of Table 12)."""
        return ab_models.cohorts(self.models)

    def by_id(self, ids) -> list[ab_models.AuthorityModel]:
        """The :class:`~lib.authority.models.AuthorityModel` of each id (what the runs send)."""
        known = {m.id: m for m in self.models}
        return [known[m] for m in ids]


def _errors(params: dict[str, Any], key: str, known: Sequence[str]) -> list[str]:
    """Messages for the bad values of ``params``; ``key`` formats a parameter name for the message;
    ``known`` the model ids the profile audits."""
    errs = []
    for name, allowed in CHOICES.items():
        if name in params and params[name] not in allowed:
            errs.append(key.replace("{name}", name) + ": expected " + " or ".join(repr(a) for a in allowed) + f", got {params[name]!r}")
    for name in MODEL_LISTS:
        unknown = [m for m in params.get(name) or [] if m not in known]
        if unknown:
            errs.append(key.replace("{name}", name) + f": unknown model(s) {unknown}; expected ids of {ab_models.MODELS_CSV.name} "
                        f"or of the profile's models.{ab_models.PAPER}: {list(known)}")
    source = params.get("corpus_source", SYNTHETIC)
    if source != SYNTHETIC:
        from lib.authority.corpus import check_release

        root = Path(source) if Path(source).is_absolute() else paths.ROOT / source
        errs += [key.replace("{name}", 'corpus_source') + f": {msg}" for msg in check_release(root)]
    return errs


def profile_errors(prof: config.Profile, where: str) -> list[str]:
    """The profile's overrides of notebook 05's choices: allowed values, known models, and a
    ``corpus_source`` folder that holds the release (the defaults are the notebook's own); and a
    real-data profile (``synthetic: false``) that would fall back to the synthetic corpus stops
    (``synthetic: mixed`` declares that set-up)."""
    given = prof.notebooks.get(NOTEBOOK, {})
    errs = ab_models.profile_errors(prof, where)
    table = usermodels.loaded(prof, ab_models.for_profile)
    known = [m.id for m in ab_models.audited(table)] if table is not None else list(ab_models.MODELS_BY_ID)
    errs += _errors(given, f"{where}: key 'notebooks.{NOTEBOOK}.{{name}}'", known) if NOTEBOOK in prof.notebooks else []
    if (prof.synthetic is False and prof.real_data.authority_dataset_dir is None
            and given.get("corpus_source", SYNTHETIC) == SYNTHETIC and (paths.NOTEBOOKS / f"{NOTEBOOK}.py").is_file()):
        from lib.authority.corpus import CODE_URL, RELEASE_URL

        errs.append(f"{where}: key 'real_data.authority_dataset_dir': synthetic: false, but it is null, so notebook "
                    f"{NOTEBOOK} would use the synthetic corpus; download the authority-bias release ({RELEASE_URL}, "
                    f"in the data/ layout of {CODE_URL}; README, \"Tier A: the release profile\") and set "
                    "real_data.authority_dataset_dir to its folder, or declare synthetic: mixed "
                    "(a real endpoint on the synthetic corpus)")
    return errs


def resolve(cfg: config.Profile, *, corpus_source: str = SYNTHETIC, main_models: Sequence[str] = (),
            pilot_models: Sequence[str] = (), switches: Switches | None = None, **choices: Any) -> Inputs:
    """Notebook 05's inputs from its parameters and the profile: ``real_data.authority_dataset_dir``
    replaces the synthetic corpus; empty model lists mean every audited model (the paper's eight
    headline models and the gpt-4o-mini ablation, and the profile's own ``models.authority_bias``;
    the pilot models: the table's ``pilot`` rows, else the headline ones). ``switches`` (or its fields
    as keywords, ``choices``: weights_source, pilot_design, ...; a keyword overrides the field) are checked
    against :data:`CHOICES` and kept as :attr:`Inputs.switches`; ValueError lists every bad value."""
    choices = {**(asdict(switches) if switches is not None else {}), **choices}
    table = ab_models.for_profile(cfg)
    audited = ab_models.audited(table)
    pilots = tuple(table.loc[table["pilot"] & (table["role"] == "headline"), "id"]) or tuple(
        m.id for m in audited if m.cohort != "ablation")     # a replaced table without pilot rows
    errs = _errors({"corpus_source": corpus_source, "main_models": main_models, "pilot_models": pilot_models,
                    **choices}, f"{NOTEBOOK}: parameter {{name}}", [m.id for m in audited])
    if errs:
        raise ValueError("\n".join(errs))
    if corpus_source == SYNTHETIC and cfg.real_data.authority_dataset_dir:   # the profile's release (Tier A)
        corpus_source = str(cfg.real_path("authority_dataset_dir"))
    return Inputs(corpus_source=corpus_source,
                  collect=corpus_source == SYNTHETIC or cfg.llm.real_endpoint,
                  mixed=cfg.synthetic == "mixed",
                  main_models=tuple(main_models) or tuple(m.id for m in audited),
                  pilot_models=tuple(pilot_models) or pilots,
                  models=audited, switches=Switches(**choices))


def load_corpus(cfg: config.Profile, inputs: Inputs, topics: Sequence[str] = ()):
    """The :class:`~lib.authority.corpus.PaperCorpus` of ``inputs`` (restricted to ``topics`` if given)."""
    from lib.authority import corpus

    paper_corpus = corpus.synthetic_corpus(cfg.seed) if inputs.synthetic else corpus.load_released(inputs.corpus_source)
    return paper_corpus.subset(list(topics)) if topics else paper_corpus


def describe(inputs: Inputs, paper_corpus) -> str:
    """What the run reads and asks, for the notebook's log: the corpus source and size, the main-experiment
    models and the pilot models, one line each."""
    return (f"{paper_corpus.source} | {len(paper_corpus.papers)} papers, {len(paper_corpus.authors)} authors, "
            f"{len(paper_corpus.queries)} queries\n"
            f"main-experiment models: {list(inputs.main_models)}\n"
            f"pilot models: {list(inputs.pilot_models)}")


def load_conditions(cfg: config.Profile, inputs: Inputs, paper_corpus, weights: dict[str, float]):
    """The three conditions (:class:`~lib.authority.conditions.ConditionSet`): built on the synthetic
    corpus with the composite's ``weights``, else the release's own (its weights are fixed)."""
    from lib.authority import conditions

    if inputs.synthetic:
        return conditions.build_conditions(paper_corpus, weights=weights, seed=cfg.seed)
    return conditions.conditions_from_release(inputs.corpus_source)
