"""The declaration types (lib/declare.py): artifact rows, and the protocols a paper and a release
check are held to (lib/registry.py checks the loaded declarations against them)."""
import types

from lib import declare
from lib.declare import Artifact, Notebook, Paper, Release, ReleaseCheck


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
