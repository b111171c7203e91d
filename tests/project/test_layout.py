"""The tests mirror lib/: lib/<package>/<module>.py is tested by tests/<package>/test_<module>.py.

A module without a test module of its own is listed in UNMIRRORED with the reason; a test module
that mirrors no lib module lives in tests/project/ or tests/notebooks/ (cross-cutting) or is listed
in UNMIRRORED_TESTS. Both tables must stay short and true: an entry whose module got a test module,
or whose module or test is gone, fails here too.
"""
from __future__ import annotations

import re
from pathlib import Path

from lib import paths

#: lib module (path under lib/) -> why it has no test module of its own.
UNMIRRORED = {
    "panel/__main__.py": "the panel's command line; run as a subprocess by tests/panel/test_panel.py (truth, serve, "
                         "bad arguments, a taken port)",
    "authority/main_experiment.py": "the main experiment's stage; tested with the flip pilot's in "
                                    "tests/authority/test_experiments.py",
    "authority/flip_pilot.py": "the flip pilot's stage; tested with the main experiment's in "
                               "tests/authority/test_experiments.py",
    "authority/intermediate.py": "file names of the stages' intermediate files; read and written in "
                                 "tests/authority/test_experiments.py",
}

#: test module (path under tests/) that mirrors no lib module, outside tests/project and tests/notebooks -> why.
UNMIRRORED_TESTS = {
    "test_imports.py": "the import graph of all of lib/ (layers, circles, what the top of lib/ may import)",
    "llm/test_layers.py": "lib/llm as a whole: it imports no paper package and its modules form no circle",
    "panel/test_panel.py": "the panel as a whole on one fixture world: determinism, behaviours vs truth, "
                           "HTTP and CLI (shares its module fixtures across lib/panel's modules)",
    "authority/test_experiments.py": "the authority paper's two experiment stages (main_experiment, flip_pilot) "
                                     "and their intermediate files",
    "authority/test_golden.py": "goldens from the authority paper's released code, across its modules",
    "attribution/test_golden.py": "goldens from AttriBench's released code, across its modules",
    "attribution/test_verify.py": "the release check of AttriBench's downloaded files (lib/attribution/download.py "
                                  "and inputs.py together)",
}

#: Folders of tests that cut across lib/ (end-to-end runs, documentation, environment).
CROSS_CUTTING = ("project", "notebooks")


def lib_modules(lib_root: Path) -> list[str]:
    """Every module under ``lib_root`` as a path relative to it (``panel/server.py``), ``__init__`` excepted."""
    return sorted(p.relative_to(lib_root).as_posix() for p in lib_root.rglob("*.py")
                  if p.name != "__init__.py" and "__pycache__" not in p.parts)


def mirror(module: str) -> str:
    """The test module that mirrors a lib module: ``panel/server.py`` -> ``panel/test_server.py``."""
    parent, _, name = module.rpartition("/")
    return f"{parent}/test_{name}" if parent else f"test_{name}"


def untested(lib_root: Path, tests_root: Path, reasons: dict[str, str]) -> list[str]:
    """Modules with neither a mirroring test module nor a reason."""
    return [m for m in lib_modules(lib_root) if m not in reasons and not (tests_root / mirror(m)).is_file()]


def stray_tests(lib_root: Path, tests_root: Path, reasons: dict[str, str]) -> list[str]:
    """Test modules that mirror no lib module, are not cross-cutting and have no reason."""
    mirrors = {mirror(m) for m in lib_modules(lib_root)}
    found = sorted(p.relative_to(tests_root).as_posix() for p in tests_root.rglob("test_*.py"))
    return [t for t in found if t not in mirrors and t not in reasons and t.split("/")[0] not in CROSS_CUTTING]


def stale(lib_root: Path, tests_root: Path) -> list[str]:
    """Table entries that no longer say something true: the module is gone or got its own test module,
    a listed test is gone, or a reason names a tests/ file that does not exist."""
    modules = set(lib_modules(lib_root))
    bad = [f"{m}: no such lib module" for m in UNMIRRORED if m not in modules]
    bad += [f"{m}: has {mirror(m)} now" for m in UNMIRRORED if (tests_root / mirror(m)).is_file()]
    bad += [f"{t}: no such test module" for t in UNMIRRORED_TESTS if not (tests_root / t).is_file()]
    for key, why in {**UNMIRRORED, **UNMIRRORED_TESTS}.items():
        bad += [f"{key}: its reason names {f}, which does not exist"
                for f in re.findall(r"tests/[\w/]+\.py", why) if not (tests_root.parent / f).is_file()]
    return bad


def test_every_lib_module_has_a_test_module_or_a_listed_reason():
    assert untested(paths.ROOT / "lib", paths.ROOT / "tests", UNMIRRORED) == []


def test_every_test_module_mirrors_a_lib_module_or_cuts_across():
    assert stray_tests(paths.ROOT / "lib", paths.ROOT / "tests", UNMIRRORED_TESTS) == []


def test_the_reason_tables_are_true():
    assert stale(paths.ROOT / "lib", paths.ROOT / "tests") == []


def _tree(root: Path, files: list[str]) -> Path:
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("")
    return root


def test_a_module_without_a_test_fails_the_check(tmp_path):
    lib = _tree(tmp_path / "lib", ["__init__.py", "paths.py", "panel/__init__.py", "panel/server.py",
                                   "panel/faults.py", "panel/__pycache__/junk.py"])
    tests = _tree(tmp_path / "tests", ["test_paths.py", "panel/test_server.py"])
    assert untested(lib, tests, {}) == ["panel/faults.py"]
    assert untested(lib, tests, {"panel/faults.py": "a reason"}) == []
    (tests / "panel/test_faults.py").write_text("")
    assert untested(lib, tests, {}) == []


def test_a_test_module_that_mirrors_nothing_fails_the_check(tmp_path):
    lib = _tree(tmp_path / "lib", ["__init__.py", "panel/__init__.py", "panel/server.py"])
    tests = _tree(tmp_path / "tests", ["panel/test_server.py", "panel/test_everything.py", "test_server.py",
                                       "project/test_docs.py", "notebooks/test_smoke.py", "panel/helpers.py"])
    assert stray_tests(lib, tests, {}) == ["panel/test_everything.py", "test_server.py"]
    assert stray_tests(lib, tests, {"panel/test_everything.py": "why", "test_server.py": "why"}) == []


def test_mirror_names_the_test_module_next_to_the_package_path():
    assert mirror("panel/server.py") == "panel/test_server.py"
    assert mirror("paths.py") == "test_paths.py"
    assert mirror("a/b/c.py") == "a/b/test_c.py"
