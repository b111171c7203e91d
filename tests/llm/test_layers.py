"""lib/llm knows no paper, and its modules import one another without a circle (issue 27).

Read from the source with ``ast`` (nothing is imported): every import, at load time or inside a
function, of a module under ``lib/llm`` or of ``lib/panel/core.py``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "lib"
PAPERS = ("lib.scholar", "lib.authority", "lib.attribution", "lib.groundtruth")


def _name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, root: Path = LIB) -> set[str]:
    """Dotted names ``path`` imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``)."""
    me = _name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return out


def paper_imports(files: list[Path], root: Path = LIB) -> list[str]:
    return sorted(f"{_name(f, root)} imports {m}" for f in files for m in imported(f, root)
                  if any(m == p or m.startswith(p + ".") for p in PAPERS))


def circles(package: Path, root: Path = LIB) -> list[list[str]]:
    """Import circles among the modules of ``package`` (strongly connected components of 2+ modules)."""
    mods = {_name(p, root): p for p in sorted(package.rglob("*.py"))}
    g = {m: {d for d in imported(p, root) if d in mods and d != m} for m, p in mods.items()}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
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
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def stack_files(root: Path = LIB) -> list[Path]:
    return sorted((root / "llm").rglob("*.py")) + [root / "panel" / "core.py"]


def test_lib_llm_and_the_panel_core_import_no_paper_package():
    assert paper_imports(stack_files()) == []


def test_lib_llm_has_no_import_circle():
    assert circles(LIB / "llm") == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    lib = tmp_path / "lib"
    for rel, text in files.items():
        p = lib / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for d in [lib, *[p for p in lib.rglob("*") if p.is_dir()]]:
        (d / "__init__.py").touch()
    return lib


@pytest.mark.parametrize("text, bad", [
    ("from lib.scholar import labels\n", "lib.llm.x imports lib.scholar"),
    ("def f():\n    import lib.attribution.models\n", "lib.llm.x imports lib.attribution.models"),
    ("from lib import authority\n", "lib.llm.x imports lib.authority"),
    ("from ..groundtruth.world import load_world\n", "lib.llm.x imports lib.groundtruth.world"),
])
def test_the_wall_test_fails_on_a_module_that_imports_a_paper(tmp_path, text, bad):
    lib = _tree(tmp_path, {"llm/x.py": text, "panel/core.py": "from lib.llm import client\n"})
    assert bad in paper_imports(stack_files(lib), lib)
    clean = _tree(tmp_path / "clean", {"llm/x.py": "from lib.llm import store\n", "panel/core.py": ""})
    assert paper_imports(stack_files(clean), clean) == []


def test_the_circle_test_fails_on_a_circle(tmp_path):
    lib = _tree(tmp_path, {"llm/a.py": "from lib.llm.b import f\n", "llm/b.py": "def f():\n    from lib.llm import c\n",
                           "llm/c.py": "from . import a\n", "llm/d.py": "from lib.llm import a\n"})
    assert circles(lib / "llm", lib) == [["lib.llm.a", "lib.llm.b", "lib.llm.c"]]
