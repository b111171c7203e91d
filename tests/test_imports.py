"""Import rules of DESIGN §5, checked on the source with ``ast`` (no module is imported).

Walls: the panel imports nothing from the analysis packages or ``stats``; ``lib/llm`` knows no
simulator (and no paper: tests/llm/test_layers.py); ``stats`` is a leaf (and names no paper metric:
tests/test_stats.py); the top-level modules of ``lib/`` import no paper package except the
registry, which loads each paper's ``<paper>.paper`` by name. No import circle, between units at
load time nor between modules with the imports inside functions counted too.
``python tests/test_imports.py`` prints the import graph's layers. The scanner (module names,
imports, components) is tests/import_graph.py, shared with tests/llm/test_layers.py.
"""
from __future__ import annotations

import ast
import functools
import sys
from collections import defaultdict
from pathlib import Path

import import_graph
import pytest
from import_graph import components

LIB = Path(__file__).resolve().parents[1] / "lib"
PAPERS = ("lib.scholar", "lib.authority", "lib.attribution")
# Top-level modules that may name paper packages: the registry, which loads their declarations.
REGISTRIES = {"lib.registry"}
#: the ground truth is shared by the papers (DESIGN §5), yet no top-level module may reach it but
#: the one that serves the synthetic world to the embedded panel
GROUND_TRUTH = "lib.groundtruth"
SERVES_THE_WORLD = {"lib.endpoints"}


def modules() -> dict[str, Path]:
    return import_graph.modules(LIB)


def imports(path: Path, root: Path, known: set[str], *, lazy: bool = True) -> set[str]:
    """The ``lib`` modules ``path`` imports (:func:`import_graph.imports`): at load time (module
    level), and with ``lazy`` also inside functions. A module named by a string constant of the
    registry counts as a lazy import (:mod:`lib.registry` imports its table entries on use)."""
    me = import_graph.module_name(path, root)
    out = import_graph.imports(path, root, known, lazy=lazy)
    if lazy and me == "lib.registry":
        out |= {n.value for n in ast.walk(import_graph.parsed(path)) if isinstance(n, ast.Constant) and n.value in known}
    return {m for m in out if m == "lib" or m.startswith("lib.")} - {me}


def graph(*, lazy: bool = True) -> dict[str, set[str]]:
    return {m: set(deps) for m, deps in _graph(LIB, lazy).items()}


@functools.lru_cache(maxsize=8)
def _graph(lib: Path, lazy: bool) -> dict[str, frozenset[str]]:
    # parsed once per tree and mode: every wall below reads the same graph
    mods = import_graph.modules(lib)
    return {m: frozenset(d for d in imports(p, lib, set(mods), lazy=lazy) if d in mods) for m, p in mods.items()}


def unit(module: str) -> str:
    """The layer unit: a top-level module (``lib.config``) or a subpackage (``lib.scholar``)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def layers(g: dict[str, set[str]] | None = None) -> tuple[list[list[str]], list[list[str]]]:
    """(layers, cycles) of the unit graph of load-time imports (default): layer 0 imports no other
    unit, layer k only units of lower layers; units on an import cycle are merged (listed in
    ``cycles``) and share a layer."""
    g = graph(lazy=False) if g is None else g
    ug: dict[str, set[str]] = defaultdict(set)
    for m, deps in g.items():
        ug[unit(m)] |= {unit(d) for d in deps if unit(d) != unit(m) and unit(d) != "lib"}
    ug.pop("lib", None)
    comps = components(ug)
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    level: dict[int, int] = {}
    for i, comp in enumerate(comps):  # Tarjan emits components in reverse topological order
        deps = {comp_of[w] for v in comp for w in ug.get(v, ()) if comp_of[w] != i}
        level[i] = 1 + max((level[d] for d in deps), default=-1)
    out: list[list[str]] = [[] for _ in range(max(level.values()) + 1)]
    for i, comp in enumerate(comps):
        out[level[i]].append(" <-> ".join(comp) if len(comp) > 1 else comp[0])
    return [sorted(x) for x in out], [c for c in comps if len(c) > 1]


def module_circles(g: dict[str, set[str]] | None = None) -> list[list[str]]:
    """Import circles between modules, imports inside functions included (default: lib's graph).

    Not followed, as ``farm-studio look`` does not follow them: the registry's
    ``importlib.import_module`` of each ``<paper>.paper`` (the plugin load: a paper's parts call
    the top of lib, which finds the paper by name at run time, so that edge points up, not round)."""
    g = graph() if g is None else g
    g = {m: {d for d in deps if d != "lib" and not (m in REGISTRIES and unit(d) in PAPERS)} for m, deps in g.items()}
    return [c for c in components(g) if len(c) > 1]


def _offences(within: str, forbidden: tuple[str, ...]) -> list[str]:
    """Imports by modules of package ``within`` of any module under ``forbidden``."""
    return sorted(f"{m} imports {d}" for m, deps in graph().items() if unit(m) == within
                  for d in deps if any(d == f or d.startswith(f + ".") for f in forbidden))


# ---- the scanner itself ----------------------------------------------------------------------------

def test_scanner_resolves_from_imports_relative_imports_and_lazy_imports(tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    (lib / "pkg").mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "stats.py").write_text("")
    (lib / "pkg" / "__init__.py").write_text("")
    (lib / "pkg" / "a.py").write_text("from lib import stats\nfrom . import b\ndef f():\n    import lib.pkg.c\n")
    (lib / "pkg" / "b.py").write_text("from lib.pkg.a import f\n")
    (lib / "pkg" / "c.py").write_text("import os\n")
    monkeypatch.setattr(sys.modules[__name__], "LIB", lib)
    g = graph()
    assert g["lib.pkg.a"] == {"lib.stats", "lib.pkg.b", "lib.pkg.c"}
    assert g["lib.pkg.b"] == {"lib.pkg.a"} and g["lib.pkg.c"] == set()
    lay, cycles = layers({"lib.x": {"lib.y.m"}, "lib.y.m": {"lib.z"}, "lib.z": set(), "lib.w": {"lib.v"}, "lib.v": {"lib.w"}})
    assert lay == [["lib.v <-> lib.w", "lib.z"], ["lib.y"], ["lib.x"]] and cycles == [["lib.v", "lib.w"]]


# ---- the walls ------------------------------------------------------------------------------------

def test_panel_imports_no_analysis_package_and_no_stats():
    assert _offences("lib.panel", PAPERS + ("lib.stats",)) == []


def test_llm_knows_no_simulator():
    assert _offences("lib.llm", ("lib.panel",)) == []


def test_stats_is_a_leaf():
    assert graph()["lib.stats"] == set()


def test_top_level_modules_import_no_paper_package_except_the_registries():
    top = tuple(m for m in modules() if m.count(".") == 1 and not (LIB / m.split(".")[1]).is_dir())
    g = graph()
    bad = sorted(f"{m} imports {d}" for m in top if m not in REGISTRIES
                 for d in g[m] if any(d == p or d.startswith(p + ".") for p in PAPERS))
    bad += sorted(f"{m} imports {d}" for m in top if m not in SERVES_THE_WORLD
                  for d in g[m] if d == GROUND_TRUTH or d.startswith(GROUND_TRUTH + "."))
    assert bad == []


def test_manifest_owns_the_run_state_and_imports_no_pipeline():
    g = graph()
    assert "lib.pipeline" not in g["lib.manifest"] and "lib.manifest" in g["lib.pipeline"]


def test_paper_packages_do_not_import_each_other():
    bad = sorted(f"{m} imports {d}" for m, deps in graph().items() for d in deps
                 if unit(m) in PAPERS and unit(d) in PAPERS and unit(d) != unit(m))
    assert bad == []


def lazy_edges() -> list[str]:
    """Unit-level imports made only inside functions (deferred on purpose: entry points, the registry)."""
    eager, every = graph(lazy=False), graph()
    pairs = {(unit(m), unit(d)) for m in every for d in every[m] - eager[m] if unit(d) != unit(m)}
    pairs -= {(unit(m), unit(d)) for m in eager for d in eager[m]}
    return sorted(f"{a} -> {b}" for a, b in pairs)


def test_no_import_cycle_between_units_at_load_time():
    assert layers()[1] == []


def test_no_import_circle_between_modules_lazy_imports_included():
    assert module_circles() == []


def test_the_module_check_finds_a_circle_a_function_closes(tmp_path, monkeypatch):
    """pkg.a imports pkg.b at load time, pkg.b imports pkg.a inside a function: one unit (the unit
    check cannot see it), no load-time circle, and a module circle all the same."""
    lib = tmp_path / "lib"
    (lib / "pkg").mkdir(parents=True)
    for f, text in {"__init__.py": "", "pkg/__init__.py": "", "pkg/a.py": "from lib.pkg import b\n",
                    "pkg/b.py": "def late():\n    from lib.pkg.a import x\n", "pkg/c.py": "from lib.pkg import a\n",
                    "registry.py": "def load():\n    return 'lib.pkg'\n"}.items():
        (lib / f).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "LIB", lib)
    assert layers()[1] == [] and components(graph(lazy=False)) == [["lib"], ["lib.pkg"], ["lib.pkg.b"], ["lib.pkg.a"],
                                                                   ["lib.pkg.c"], ["lib.registry"]]
    assert module_circles() == [["lib.pkg.a", "lib.pkg.b"]]
    # the registry's load of a paper by name is not an edge of the check
    monkeypatch.setattr(sys.modules[__name__], "PAPERS", ("lib.pkg",))
    (lib / "pkg" / "b.py").write_text("from lib import registry\n")
    _graph.cache_clear()
    assert graph()["lib.registry"] == {"lib.pkg"} and module_circles() == []


def test_registry_loads_each_paper_only_as_paper_by_name():
    """No import statement of the registry names a paper package; the strings naming lib modules it
    holds are the paper packages, loaded as ``f"{package}.paper"``."""
    from lib import registry

    tree = ast.parse((LIB / "registry.py").read_text(encoding="utf-8"))
    stmts = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    stmts |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert {m for m in stmts if m.startswith("lib")} == {"lib.declare"}
    names = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and n.value.startswith("lib.")}
    assert names == set(registry.PAPERS) and set(registry.PAPERS) <= set(PAPERS)
    loads = [ast.unparse(n.args[0]) for n in ast.walk(tree) if isinstance(n, ast.Call)
             and ast.unparse(n.func) == "importlib.import_module"]
    assert sorted(loads) == ["module", "rel.module"]
    assert "module = f'{package}.paper'" in ast.unparse(tree)


if __name__ == "__main__":
    lay, cycles = layers()
    for i, units in enumerate(lay):
        print(f"layer {i}: {', '.join(units)}")
    for c in cycles:
        print("cycle:", " <-> ".join(c))
    print("lazy (inside functions):", "; ".join(lazy_edges()) or "none")
