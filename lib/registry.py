"""The one place the top of lib/ meets the paper packages: their declarations, loaded and checked.

Each paper package declares itself once in ``lib/<paper>/paper.py`` (:data:`PAPER`, a
:class:`lib.declare.Paper`). :data:`PAPERS` lists the packages; adding a paper is adding its
package and one entry there. The declarations are imported on first use, never when a top-level
module loads (the paper packages import the top-level cores), and each is checked against the
protocol, method signatures included. Derived here, each with one owner: the papers
(:func:`papers`), the notebook list and its upstream map (:func:`notebooks`), the artifacts
(:func:`artifacts`), the releases by ``real_data`` key (:func:`releases`) and the collecting
notebooks (:func:`plans`).
"""
from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any

from lib.declare import Artifact, Notebook, Paper, Release, ReleaseCheck

#: The paper packages, in notebook order; each has a ``paper`` module with a ``PAPER`` declaration.
PAPERS = ("lib.scholar", "lib.authority", "lib.attribution")


class DeclarationError(TypeError):
    """A paper declaration that does not satisfy :class:`lib.declare.Paper`."""


#: The methods of a declaration (its parts), each with the protocol's parameters.
_PARTS = tuple(n for n, v in vars(Paper).items() if inspect.isfunction(v) and not n.startswith("_"))


def _params(fn) -> list[tuple[str, Any]]:
    return [(p.name, p.kind) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def _checked(package: str) -> Paper:
    module = f"{package}.paper"
    decl = getattr(importlib.import_module(module), "PAPER", None)
    if not isinstance(decl, Paper):
        missing = [n for n in ("key", "title", "notebooks", "artifacts", "releases", *_PARTS) if not hasattr(decl, n)]
        raise DeclarationError(f"{module}.PAPER: not a lib.declare.Paper; missing {missing}")
    for name in _PARTS:
        want, got = _params(getattr(Paper, name)), _params(getattr(decl, name))
        if got != want:
            raise DeclarationError(f"{module}.PAPER.{name}: parameters {[n for n, _ in got]}, expected "
                                   f"{[n for n, _ in want]} (lib.declare.Paper.{name})")
    wrong = [a.id for a in decl.artifacts if not isinstance(a, Artifact) or a.paper != decl.key]
    foreign = [a.id for a in decl.artifacts if a.notebook is not None and a.notebook not in {n.name for n in decl.notebooks}]
    if wrong or foreign:
        raise DeclarationError(f"{module}.PAPER: artifacts {wrong} are not Artifacts of paper {decl.key!r}, or "
                               f"{foreign} name a notebook the paper does not declare")
    if not all(isinstance(n, Notebook) for n in decl.notebooks) or not all(isinstance(r, Release) for r in decl.releases):
        raise DeclarationError(f"{module}.PAPER: notebooks must be lib.declare.Notebook and releases lib.declare.Release")
    return decl


def _unique(items, key: str, what: str) -> dict:
    """``{item.<key>: item}`` of the ``(where, item)`` pairs, in their order; a key met again is a
    DeclarationError naming where (the paper) and the key declared twice."""
    out: dict = {}
    for where, item in items:
        k = getattr(item, key)
        if k in out:
            raise DeclarationError(f"{where}: {what} {k!r} is declared twice")
        out[k] = item
    return out


def _declared(part: str):
    """``(where, item)`` of every paper's ``part`` (notebooks, artifacts, releases), papers in order."""
    return ((f"paper {decl.key}", item) for decl in papers().values() for item in getattr(decl, part))


@functools.cache
def papers() -> dict[str, Paper]:
    """paper key -> its checked declaration, in the order of :data:`PAPERS`."""
    return _unique(((f"{package}.paper.PAPER", _checked(package)) for package in PAPERS), "key", "paper key")


@functools.cache
def notebooks() -> dict[str, Notebook]:
    """notebook name -> its declaration, in run order (each paper's, papers in order)."""
    out: dict[str, Notebook] = _unique(_declared("notebooks"), "name", "notebook")
    earlier: set[str] = set()
    for where, nb in _declared("notebooks"):
        unknown = [u for u in nb.upstream if u not in earlier]
        if unknown:
            raise DeclarationError(f"{where}: notebook {nb.name} reads {unknown}, which no earlier notebook declares")
        bad = [r for r in nb.reads if r.split("/", 1)[0] not in nb.upstream]
        if bad:
            raise DeclarationError(f"{where}: notebook {nb.name} reads {bad} outside its upstream {nb.upstream}")
        earlier.add(nb.name)
    return out


def notebook_names() -> tuple[str, ...]:
    return tuple(notebooks())


def upstream() -> dict[str, tuple[str, ...]]:
    """notebook -> the notebooks it reads from (their ``outputs/data/<name>/`` folders)."""
    return {name: nb.upstream for name, nb in notebooks().items()}


def paper_of(notebook: str) -> Paper:
    return next(d for d in papers().values() if any(n.name == notebook for n in d.notebooks))


@functools.cache
def artifacts() -> dict[str, Artifact]:
    """artifact id -> artifact, every paper's in declared order."""
    return _unique(_declared("artifacts"), "id", "artifact id")


@functools.cache
def releases() -> dict[str, Release]:
    """real_data key -> its release, each paper's in declared order."""
    return _unique(_declared("releases"), "key", "real_data key")


def plans() -> tuple[str, ...]:
    """The collecting notebooks (their paper's ``notebook_plans`` builds what they send)."""
    return tuple(n for n, nb in notebooks().items() if nb.plans)


def reload() -> None:
    """Forget the loaded declarations (after :data:`PAPERS` changes)."""
    for f in (papers, notebooks, artifacts, releases, release_module):
        f.cache_clear()


def select(only: list[str] | None) -> list[str]:
    """Notebook names to consider, in order; ``only`` takes prefixes such as ``03``."""
    names = notebook_names()
    if not only:
        return list(names)
    chosen = []
    for token in only:
        for t in token.split(","):
            match = [n for n in names if n == t or n.startswith(f"{t}_") or n.startswith(t)]
            if len(match) != 1:
                raise SystemExit(f"--only {t!r}: expected one of {', '.join(n[:2] for n in names)} "
                                 f"or a full name ({', '.join(names)})")
            chosen.append(match[0])
    return [n for n in names if n in chosen]


@functools.cache
def release_module(key: str) -> ReleaseCheck:
    """The check module of ``real_data.<key>`` (KeyError naming the known keys), checked on load."""
    if key not in releases():
        raise KeyError(f"real_data has no key {key!r}; expected one of: {', '.join(releases())}")
    rel = releases()[key]
    module = importlib.import_module(rel.module)
    if not isinstance(module, ReleaseCheck) or (rel.accepts_modified and not hasattr(module, "accepted_modifications")):
        raise DeclarationError(f"{rel.module}: the check of real_data.{key} needs check_release(path)"
                               + (" and accepted_modifications(path)" if rel.accepts_modified else ""))
    return module


def release_check(key: str):
    """The ``check_release`` of ``real_data.<key>``."""
    return release_module(key).check_release


def own_models(profile) -> dict[str, Any]:
    """paper -> the profile's own models (rows of the paper's resource file), for papers that have some."""
    out = {key: decl.user_rows(profile) for key, decl in papers().items() if key in getattr(profile, "models", {})}
    return {k: v for k, v in out.items() if v is not None}
