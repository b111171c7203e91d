"""What a paper package declares about itself, once, in ``lib/<paper>/paper.py``: the types.

A declaration (:class:`Paper`) names the paper's key and title, its notebooks in run order with
the notebooks and files each takes from earlier ones (:class:`Notebook`), its artifacts with
producer and caption (:class:`Artifact`), the real-data releases it reads (:class:`Release`) and
its parts as methods of one signature each: input checks, own models, prices, published values,
dry-run plans (:class:`Declaration` gives them, each delegating to a module of the paper's package).
:mod:`lib.registry` loads the declarations and checks them against these types; everything the top
of ``lib/`` knows about the papers is derived from them. A leaf module: it imports nothing from
``lib`` (a part's module is imported by name when the part is called), so a declaration stays
light to load.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

Kind = Literal["figure", "table", "text", "diagram"]


@dataclass(frozen=True)
class Artifact:
    """One paper artifact: ``notebook`` is None for diagrams (status ``not-data``)."""

    id: str
    paper: str
    kind: Kind
    notebook: str | None
    caption: str


@dataclass(frozen=True)
class Notebook:
    """A notebook of the paper (``notebooks/<name>.py``): ``upstream``, the notebooks whose
    ``outputs/data/<name>/`` it reads; ``reads``, the files it takes from them
    (``'<notebook>/<file>'``); ``writes``, the files it leaves in its own ``outputs/data/<name>/``
    on every successful run, and ``may_write``, those only some parameter choices leave (both file
    names or ``fnmatch`` patterns; :mod:`lib.stage` refuses any other); ``plans``, whether it sends
    requests (its dry-run plan comes from :meth:`Paper.notebook_plans`)."""

    name: str
    upstream: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    may_write: tuple[str, ...] = ()
    plans: bool = False


@dataclass(frozen=True)
class Release:
    """A real-data release the paper reads: ``real_data.<key>`` of a profile, checked by
    ``module``'s ``check_release(path) -> list[str]`` (:class:`ReleaseCheck`), read by ``readers``
    (the notebooks a run must select for the key to be validated). ``accepts_modified``: the check
    identifies its files, so a profile may accept a modified copy (``accept_modified_releases``;
    the module then has ``accepted_modifications(path)``)."""

    key: str
    module: str
    readers: tuple[str, ...]
    accepts_modified: bool = False


@runtime_checkable
class ReleaseCheck(Protocol):
    """A release's check module: one message per missing or wrong file ([] when usable). Optional:
    ``release_notes(path)`` (absent files a run can do without) and ``accepted_modifications(path)``."""

    def check_release(self, path, *args, **kwargs) -> list[str]: ...


@runtime_checkable
class Paper(Protocol):
    """A paper's declaration. :mod:`lib.registry` checks each loaded one against this protocol,
    method signatures included, so the same part has the same signature in every paper."""

    key: str
    title: str
    notebooks: tuple[Notebook, ...]
    artifacts: tuple[Artifact, ...]
    releases: tuple[Release, ...]

    def profile_errors(self, profile, where: str) -> list[str]:
        """The profile's input choices (collect / import / release) for this paper's notebooks."""

    def user_rows(self, profile) -> Any:
        """The profile's own models (``models.<paper>``) as rows of the paper's model table, or None."""

    def prices(self, models=None) -> Any:
        """USD per million tokens per model (columns model, price_in, price_out, price_source) of
        ``models``, a model table of the paper (default: the paper's)."""

    def published(self, outputs, *, tolerance: float) -> dict:
        """{name: comparison} of the paper's published values with ``outputs``."""

    def notebook_plans(self, profile, notebook: str, params: dict) -> list:
        """The :class:`lib.llm.cost.PlannedCollection` list ``notebook`` would send (dry run)."""


class Declaration:
    """The parts of a :class:`Paper`, each delegating to a module of the paper's package, imported
    when the part is first called (so loading a declaration loads none of them): ``inputs``
    (``profile_errors``), ``models`` (``user_rows``, ``prices``), ``published`` (``build``) and
    ``plan`` (``notebook_plans``). A paper subclasses it, declares its data (key, title, notebooks,
    artifacts, releases) and overrides :attr:`modules` where a part lives elsewhere. The package is
    :attr:`package`, by default the one of the module the subclass is defined in."""

    #: part -> the module of the paper's package that holds it
    modules = {"profile_errors": "inputs", "user_rows": "models", "prices": "models",
               "published": "published", "notebook_plans": "plan"}
    #: the paper's package (None: the ``__package__`` of the subclass's module)
    package: str | None = None

    def _module(self, part: str):
        package = self.package or sys.modules[type(self).__module__].__package__
        return importlib.import_module(f"{package}.{self.modules[part]}")

    def profile_errors(self, profile, where: str) -> list[str]:
        return self._module("profile_errors").profile_errors(profile, where)

    def user_rows(self, profile) -> Any:
        return self._module("user_rows").user_rows(profile)

    def prices(self, models=None) -> Any:
        return self._module("prices").prices(models)

    def published(self, outputs, *, tolerance: float) -> dict:
        return self._module("published").build(outputs, tolerance=tolerance)

    def notebook_plans(self, profile, notebook: str, params: dict) -> list:
        return self._module("notebook_plans").notebook_plans(profile, notebook, params)


def artifact_rows(paper: str, rows: list[tuple[str, Kind, str | None, str]]) -> tuple[Artifact, ...]:
    """A paper's artifacts from ``(id, kind, notebook, caption)`` rows, in the order given."""
    return tuple(Artifact(id, paper, kind, notebook, caption) for id, kind, notebook, caption in rows)
