"""lib/llm knows no paper, and its modules import one another without a circle (issue 27).

Read from the source with ``ast`` (nothing is imported): every import, at load time or inside a
function, of a module under ``lib/llm`` or of ``lib/panel/core.py`` (the scanner of
tests/import_graph.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import components, imports, module_name

LIB = Path(__file__).resolve().parents[2] / "lib"
PAPERS = ("lib.scholar", "lib.authority", "lib.attribution", "lib.groundtruth")


def paper_imports(files: list[Path], root: Path = LIB) -> list[str]:
    """Imports of a paper package by ``files``; ``from a import b`` counts as ``a`` and ``a.b``."""
    return sorted(f"{module_name(f, root)} imports {m}" for f in files for m in imports(f, root)
                  if any(m == p or m.startswith(p + ".") for p in PAPERS))


def circles(package: Path, root: Path = LIB) -> list[list[str]]:
    """Import circles among the modules of ``package`` (strongly connected components of 2+ modules)."""
    mods = {module_name(p, root): p for p in sorted(package.rglob("*.py"))}
    g = {m: {d for d in imports(p, root) if d in mods and d != m} for m, p in mods.items()}
    return [c for c in components(g) if len(c) > 1]


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
