"""The notebooks read top to bottom like the paper section they reproduce: no cell branches.

Choices between sources (collect / release), present and absent inputs, or modes belong to the
paper packages (e.g. :mod:`lib.attribution.evaluation`, :mod:`lib.scholar.collection`,
:mod:`lib.authority.flip_pilot`), where pytest covers both sides; a notebook cell calls them.
"""
import ast

import jupytext
import pytest

from lib import paths

NOTEBOOKS = sorted(paths.NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def branches(source: str) -> list[int]:
    """Line numbers of the ``if`` statements of a cell outside function, class and lambda bodies
    (conditional expressions and comprehension filters are not statements)."""
    found, todo = [], list(ast.parse(source).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If):
            found.append(node.lineno)
        todo.extend(ast.iter_child_nodes(node))
    return sorted(found)


def test_branches_finds_if_statements_at_any_depth_of_the_cell_but_not_in_functions():
    cell = ("x = 1 if y else 2\n"
            "z = [v for v in w if v]\n"
            "if x:\n    pass\n"
            "with open('f') as f:\n    if f:\n        pass\n"
            "def g():\n    if y:\n        pass\n")
    assert branches(cell) == [3, 6]
    assert branches("a = 1\nprint(a)\n") == []


def test_six_notebooks_are_checked():
    assert [p.stem[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_code_cell_outside_the_parameters_cell_branches(path):
    nb = jupytext.read(path)
    bad = [(i, line) for i, cell in enumerate(nb.cells)
           if cell.cell_type == "code" and "parameters" not in cell.metadata.get("tags", [])
           for line in branches(cell.source)]
    assert bad == [], (f"{path.name}: (cell index, line) of if statements {bad}; move the choice into the "
                       "paper package (a function returning None for what it cannot make)")
