"""The declaration types (lib/declare.py): artifact rows, and the protocols a paper and a release
check are held to (lib/registry.py checks the loaded declarations against them), and the base
class whose parts delegate to the paper package's modules."""
import importlib
import inspect
import sys
import types

import pytest

from lib import declare
from lib.declare import Artifact, Declaration, Notebook, Paper, Release, ReleaseCheck


def test_artifact_rows_keep_the_order_given_and_stamp_the_paper():
    rows = declare.artifact_rows("toy", [("toy-fig1", "figure", "07_toy", "A figure"), ("toy-d", "diagram", None, "A sketch")])
    assert rows == (Artifact("toy-fig1", "toy", "figure", "07_toy", "A figure"), Artifact("toy-d", "toy", "diagram", None, "A sketch"))


def test_a_notebook_reads_nothing_and_plans_nothing_unless_declared():
    nb = Notebook("07_toy")
    assert (nb.upstream, nb.reads, nb.plans) == ((), (), False)
    assert Release("k", "lib.x", readers=("07_toy",)).accepts_modified is False


class _Full:
    key, title, notebooks, artifacts, releases = "toy", "Toy", (), (), ()

    def profile_errors(self, profile, where): return []
    def user_rows(self, profile): return None
    def prices(self, models=None): return None
    def published(self, outputs, *, tolerance): return {}
    def notebook_plans(self, profile, notebook, params): return []


def test_the_paper_protocol_wants_every_part():
    assert isinstance(_Full(), Paper)
    partial = type("Partial", (), {k: v for k, v in vars(_Full).items() if k != "published"})()
    assert not isinstance(partial, Paper)
    assert not isinstance(type("NoKey", (_Full,), {"key": property(lambda self: (_ for _ in ()).throw(AttributeError))})(), Paper)


def test_a_release_check_is_a_module_with_check_release():
    good = types.ModuleType("good")
    good.check_release = lambda path: []
    assert isinstance(good, ReleaseCheck)
    assert not isinstance(types.ModuleType("bad"), ReleaseCheck)


def test_declare_imports_nothing_from_lib():
    src = (declare.__file__ and open(declare.__file__, encoding="utf-8").read())
    assert "from lib" not in src and "import lib" not in src


def test_the_declaration_check_of_the_paper_tests_can_fail():
    from conftest import declaration_problems

    fake = types.SimpleNamespace(notebooks=(Notebook("02_collection"),),
                                 artifacts=declare.artifact_rows("x", [("lsb-nope", "table", "02_collection", "Not saved")]))
    assert declaration_problems(fake) == ["02_collection: never names lsb-nope", "02_collection: saves undeclared lsb-figA1"]


# ---- the Declaration base: each part calls its module of the paper's package ------------------

TOY_PACKAGE = {
    "__init__.py": "",
    "paper.py": "from lib.declare import Declaration\n\n\n"
                "class Toy(Declaration):\n    key, title, notebooks, artifacts, releases = 'toy', 'Toy', (), (), ()\n\n\n"
                "class ToyRuns(Toy):\n    modules = {**Declaration.modules, 'notebook_plans': 'runs'}\n",
    "inputs.py": "def profile_errors(profile, where):\n    return [where + ': ' + profile]\n",
    "models.py": "def user_rows(profile):\n    return ('rows', profile)\n\n\n"
                 "def prices(models=None):\n    return ('prices', models)\n",
    "published.py": "def build(outputs, *, tolerance):\n    return {outputs: tolerance}\n",
    "plan.py": "def notebook_plans(profile, notebook, params):\n    return ['plan', notebook, params]\n",
    "runs.py": "def notebook_plans(profile, notebook, params):\n    return ['runs', notebook, params]\n",
}
TOY_PARTS = [f"toydecl.{m}" for m in ("inputs", "models", "published", "plan", "runs")]


@pytest.fixture
def toydecl(tmp_path, monkeypatch):
    """A paper package ``toydecl`` under tmp_path whose modules say which one answered."""
    (tmp_path / "toydecl").mkdir()
    for name, text in TOY_PACKAGE.items():
        (tmp_path / "toydecl" / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "toydecl"
    for mod in [m for m in sys.modules if m == "toydecl" or m.startswith("toydecl.")]:
        del sys.modules[mod]


def test_the_base_delegates_each_part_to_its_module_imported_on_first_call(toydecl):
    paper = importlib.import_module("toydecl.paper")
    assert [m for m in TOY_PARTS if m in sys.modules] == []          # loading a declaration loads no part
    toy = paper.Toy()
    assert isinstance(toy, Paper)
    assert toy.profile_errors("p", "here") == ["here: p"]
    assert (toy.user_rows("p"), toy.prices(), toy.prices("t")) == (("rows", "p"), ("prices", None), ("prices", "t"))
    assert toy.published("out", tolerance=0.5) == {"out": 0.5}
    assert toy.notebook_plans("p", "07_toy", {"n": 1}) == ["plan", "07_toy", {"n": 1}]
    assert "toydecl.runs" not in sys.modules


def test_a_paper_overrides_where_a_part_lives_and_names_its_package(toydecl):
    paper = importlib.import_module("toydecl.paper")
    assert paper.ToyRuns().notebook_plans("p", "07_toy", {}) == ["runs", "07_toy", {}]
    assert paper.Toy().notebook_plans("p", "07_toy", {}) == ["plan", "07_toy", {}]       # the base map is untouched
    elsewhere = type("Elsewhere", (Declaration,), {"package": "toydecl"})()         # defined outside the package
    assert elsewhere.published("out", tolerance=0.1) == {"out": 0.1}


def test_the_base_parts_have_the_protocols_parameters():
    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    parts = [n for n, v in vars(Paper).items() if inspect.isfunction(v) and not n.startswith("_")]
    assert parts == list(Declaration.modules)
    assert all(params(getattr(Declaration, n)) == params(getattr(Paper, n)) for n in parts)
