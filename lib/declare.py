"""What a paper package declares about itself, once, in ``lib/<paper>/paper.py``: the types.

A declaration (:class:`Paper`) names the paper's key and title, its notebooks in run order with
the notebooks and files each takes from earlier ones (:class:`Notebook`), its artifacts with
producer and caption (:class:`Artifact`), the real-data releases it reads (:class:`Release`) and
its parts as methods of one signature each: input checks, own models, prices, published values,
dry-run plans. :mod:`lib.registry` loads the declarations and checks them against these types;
everything the top of ``lib/`` knows about the papers is derived from them. A leaf module: it
imports nothing from ``lib``, so a declaration stays light to load.
"""
from __future__ import annotations

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


def artifact_rows(paper: str, rows: list[tuple[str, Kind, str | None, str]]) -> tuple[Artifact, ...]:
    """A paper's artifacts from ``(id, kind, notebook, caption)`` rows, in the order given."""
    return tuple(Artifact(id, paper, kind, notebook, caption) for id, kind, notebook, caption in rows)
