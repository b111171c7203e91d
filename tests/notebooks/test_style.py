"""The notebooks read top to bottom like the paper section they reproduce: a cell loads, makes one
library call and plots; it neither chooses nor wires.

Choices between sources (collect / release), present and absent inputs, or modes belong to the
paper packages (e.g. :mod:`lib.attribution.evaluation`, :mod:`lib.scholar.collection`,
:mod:`lib.authority.flip_pilot`), where pytest covers both sides; so do the loops and
comprehensions that assemble a table, and the calls so long that they thread a dozen settings
(a paper package takes an options object instead). A code cell outside the parameters cell may
therefore hold no ``if`` statement, no conditional expression (``x if c else y``), no ``for`` or
``while`` loop, no comprehension and no call with more than :data:`MAX_ARGUMENTS` arguments
(positional and keyword together) outside function, class and lambda bodies. Nor does it read or
write intermediate files by hand (``.to_parquet``, ``.to_csv``, ``pd.read_parquet``,
``pd.read_csv``): :class:`lib.stage.Stage` does, checked against the notebook's declaration.
"""
import ast

import pytest

from lib import paths

NOTEBOOKS = sorted(paths.NOTEBOOKS.glob("[0-9][0-9]_*.py"))
#: notebooks whose cells still wire (issue 27, item 5, not finished): strict, so a notebook that
#: passes must leave this set
MAX_ARGUMENTS = 6
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: file calls a cell leaves to lib.stage.Stage (writes: a frame's methods; reads: pandas' functions)
_FILE_WRITES, _FILE_READS = {"to_parquet", "to_csv"}, {"read_parquet", "read_csv"}


def _file_call(node: ast.Call) -> str | None:
    """``'.to_parquet'``-style name of a hand-written file read or write, or None."""
    f = node.func
    if isinstance(f, ast.Attribute) and (f.attr in _FILE_WRITES or (
            f.attr in _FILE_READS and isinstance(f.value, ast.Name) and f.value.id in ("pd", "pandas"))):
        return f.attr
    return None


def _rule(node: ast.AST) -> str | None:
    """The style rule ``node`` breaks, or None."""
    if isinstance(node, ast.If):
        return "if statement"
    if isinstance(node, ast.IfExp):
        return "conditional expression"
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        return "loop"
    if isinstance(node, _COMPREHENSIONS):
        return "comprehension"
    if isinstance(node, ast.Call) and len(node.args) + len(node.keywords) > MAX_ARGUMENTS:
        return f"call with {len(node.args) + len(node.keywords)} arguments"
    if isinstance(node, ast.Call) and _file_call(node):
        return f"file call .{_file_call(node)} (use lib.stage.Stage)"
    return None


def violations(source: str) -> list[tuple[int, str]]:
    """(line, rule) of every construct of a cell that breaks a style rule, outside function, class
    and lambda bodies, sorted by line."""
    found, todo = [], list(ast.parse(source).body)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        rule = _rule(node)
        if rule:
            found.append((node.lineno, rule))
        todo.extend(ast.iter_child_nodes(node))
    return sorted(found)


def branches(source: str) -> list[int]:
    """Line numbers of the ``if`` statements of a cell outside function, class and lambda bodies."""
    return [line for line, rule in violations(source) if rule == "if statement"]


def test_branches_finds_if_statements_at_any_depth_of_the_cell_but_not_in_functions():
    cell = ("if x:\n    pass\n"
            "with open('f') as f:\n    if f:\n        pass\n"
            "def g():\n    if y:\n        pass\n")
    assert branches(cell) == [1, 4]
    assert branches("a = 1\nprint(a)\n") == []


def test_a_conditional_expression_fails_also_inside_a_call_but_not_in_a_lambda():
    assert violations("x = 1 if y else 2\n") == [(1, "conditional expression")]
    assert violations("print('a',\n      'used' if rel else 'no')\n") == [(2, "conditional expression")]
    assert violations("f = lambda r: 1 if r else 2\n") == []


def test_a_top_level_loop_fails_at_any_depth_of_the_cell():
    assert violations("for k in d:\n    print(k)\n") == [(1, "loop")]
    assert violations("while n:\n    n -= 1\n") == [(1, "loop")]
    assert violations("with f:\n    for k in d:\n        g(k)\n") == [(2, "loop")]
    assert violations("def g(d):\n    for k in d:\n        yield k\n") == []


def test_a_comprehension_fails_with_its_filter_counted_once():
    assert violations("z = [v for v in w if v]\n") == [(1, "comprehension")]
    assert violations("t = {k: len(v) for k, v in d.items()}\n") == [(1, "comprehension")]
    assert violations("s = sum(x for x in y)\n") == [(1, "comprehension")]


def test_a_call_fails_above_six_arguments_positional_and_keyword_together():
    assert violations("f(1, 2, 3, a=4, b=5, c=6)\n") == []
    assert violations("f(1, 2, 3, a=4, b=5, c=6, d=7)\n") == [(1, "call with 7 arguments")]
    assert violations("x = g(h(1, 2, 3, 4, 5, 6, 7))\n") == [(1, "call with 7 arguments")]
    assert violations("f(*a, **k)\n") == []


def test_a_hand_written_intermediate_file_fails_in_a_cell_but_not_through_the_stage():
    assert violations("df.to_parquet(out_dir / 'x.parquet', index=False)\n") == [
        (1, "file call .to_parquet (use lib.stage.Stage)")]
    assert violations("counts.groupby('m').size().to_csv(p)\n") == [(1, "file call .to_csv (use lib.stage.Stage)")]
    assert violations("a = pd.read_parquet(d / 'attempts.parquet')\nb = pandas.read_csv(f)\n") == [
        (1, "file call .read_parquet (use lib.stage.Stage)"), (2, "file call .read_csv (use lib.stage.Stage)")]
    assert violations("with f:\n    t.drop(columns=['text']).to_parquet(p)\n") == [
        (2, "file call .to_parquet (use lib.stage.Stage)")]
    assert violations("stage.write(df, 'x.parquet')\na = stage.read('02_collection/names.parquet')\n") == []
    assert violations("def save(df):\n    df.to_parquet('x')\n") == []


def test_six_notebooks_are_checked():
    assert [p.stem[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_code_cell_outside_the_parameters_cell_chooses_or_wires(path):
    import jupytext      # here, not at collection: 1.4 s of import that only this test needs

    nb = jupytext.read(path)
    bad = [(i, line, rule) for i, cell in enumerate(nb.cells)
           if cell.cell_type == "code" and "parameters" not in cell.metadata.get("tags", [])
           for line, rule in violations(cell.source)]
    assert bad == [], (f"{path.name}: (cell index, line, rule) {bad}; move the choice, loop or wiring into the "
                       "paper package (a function returning None for what it cannot make, taking an options "
                       "object rather than a dozen arguments)")
