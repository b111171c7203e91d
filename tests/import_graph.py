"""The import scanner of the import tests (tests/test_imports.py, tests/llm/test_layers.py).

Read from the source with ``ast``, nothing imported: a module's dotted name, the modules a file
imports (at load time only, or inside functions too), and the strongly connected components of an
import graph (a component of two or more modules is an import circle).
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """The dotted name of ``path`` in package ``root`` (``root/pkg/a.py`` -> ``<root>.pkg.a``; a
    package's ``__init__.py`` is the package)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path) -> dict[str, Path]:
    """module name -> file, for every module under ``root``."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def parsed(path: Path) -> ast.Module:
    """The parse of ``path``, one per file version."""
    return _parsed(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=None)
def _parsed(path: Path, mtime_ns: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def load_time(body: list[ast.stmt]) -> list[ast.AST]:
    """The statements run when the module loads: everything but function bodies (class bodies,
    ``if``/``try`` blocks at module level included)."""
    out: list[ast.AST] = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        out.append(stmt)
        for field in ("body", "orelse", "finalbody", "handlers"):
            out += load_time([x for x in getattr(stmt, field, []) if isinstance(x, ast.stmt)]
                             + [x for x in getattr(stmt, field, []) if isinstance(x, ast.ExceptHandler)])
        if isinstance(stmt, ast.ExceptHandler):
            out += load_time(stmt.body)
    return out


def imports(path: Path, root: Path, known: set[str] | None = None, *, lazy: bool = True) -> set[str]:
    """The dotted names ``path`` (a module in package ``root``) imports, relative imports resolved:
    at load time, and with ``lazy`` also inside functions. ``from a import b`` gives ``a.b`` when it
    is in ``known`` and ``a`` when not; without ``known`` (any name may be a module), both."""
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    tree = parsed(path)
    out: set[str] = set()
    for node in (ast.walk(tree) if lazy else load_time(tree.body)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                out |= {base, sub} if known is None else {sub if sub in known else base}
    return out


def components(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of ``g`` (Tarjan), each sorted, in reverse topological order;
    a component of two or more nodes is an import circle."""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return comps
