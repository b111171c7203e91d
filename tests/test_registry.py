"""The authority and AttriBench model tables: one resource file each, read by the paper package
and by the panel, so the two lists cannot drift."""
import pandas as pd
import pytest

from lib.attribution import models as at_models
from lib.authority import models as ab_models
from lib.panel.profiles import ATTRIBUTION, AUTHORITY, all_profiles


def test_authority_models_and_panel_profiles_are_one_list():
    table = ab_models.load_models()
    served = {mid: p for mid, p in all_profiles().items() if AUTHORITY in p.papers}
    assert sorted(served) == sorted(table["id"])
    for r in table.itertuples(index=False):
        assert served[r.id].tier == r.cohort
    main = [m.id for m in ab_models.MAIN_MODELS]
    assert main == list(table.loc[table["role"] != "archived", "id"]) and main[-1] == ab_models.ABLATION_MODEL.id
    assert {m.id: (m.cohort, m.temperature) for m in ab_models.MAIN_MODELS}["deepseek-r1:8b"] == ("open", 0.8)
    assert served["deepseek-r1:8b"].think_in_content and not served["gpt-5.4"].think_in_content


def test_attribution_table6_and_panel_profiles_are_one_list():
    t6 = at_models.table6()
    served = [mid for mid, p in all_profiles().items() if ATTRIBUTION in p.papers]
    assert sorted(served) == sorted(t6["version"]) and len(t6) == 11
    assert t6["rag_subset"].dtype == bool and t6["rag_subset"].sum() == 2
    assert all_profiles()["moonshotai/Kimi-K2.5"].temperature == 0.7


def test_bad_authority_table_names_file_column_and_values(tmp_path):
    bad = ab_models.load_models().assign(cohort="frontier")
    bad.loc[0, "cohort"] = "huge"
    bad = bad.assign(reasoning="F", think_in_content="F", pilot="F")
    path = tmp_path / "authority_models.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"authority_models.csv: column cohort expects one of .*'huge'"):
        ab_models.load_models(path)
    pd.DataFrame({"id": ["x"]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match="missing columns"):
        ab_models.load_models(path)


# ---- a fourth paper, declared in one package and registered everywhere -------------------------

TOY_PAPER = '''
from lib.declare import Notebook, artifact_rows

KEY = "toy"


class Toy:
    key = KEY
    title = "A toy fourth paper"
    notebooks = (Notebook("07_toy", upstream=("06_attribution_fairness",), plans=True),)
    artifacts = artifact_rows(KEY, [("toy-tab1", "table", "07_toy", "Toy counts"),
                                    ("toy-fig1", "figure", {producer!r}, "Toy curve")])
    releases = ()

    def profile_errors(self, profile, where: str) -> list[str]:
        return []

    def user_rows(self, profile):
        return None

    def prices({prices_params}):
        import pandas as pd

        return pd.DataFrame({{"model": ["toy-model"], "price_in": [1.0], "price_out": [2.0], "price_source": ["toy"]}})

    def published(self, outputs, *, tolerance: float) -> dict:
        return {{}}

    def notebook_plans(self, profile, notebook: str, params: dict) -> list:
        from lib.llm.client import Request
        from lib.llm.cost import PlannedCollection

        reqs = [Request("toy", "toy-model", "toy-model", "count", str(i), 0.0, 0, ({{"role": "user", "content": "count to " + str(i)}},))
                for i in range(params["n"])]
        return [PlannedCollection(notebook, "toy counts", reqs, 5, "five tokens an answer", prices=self.prices())]


PAPER = Toy()
'''

TOY_NOTEBOOK = '# %% [markdown]\n# # A toy notebook\n\n# %% tags=["parameters"]\nn = 2\n'


def _toy_package(root, name: str, *, producer: str = "07_toy", prices_params: str = "self, models=None") -> str:
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "paper.py").write_text(TOY_PAPER.format(producer=producer, prices_params=prices_params))
    return name


@pytest.fixture
def with_papers(tmp_path, monkeypatch):
    """Add the packages ``with_papers(name, ...)`` writes under tmp_path to registry.PAPERS; the
    registry forgets them (and sys.modules their modules) afterwards."""
    import sys

    from lib import registry

    monkeypatch.syspath_prepend(str(tmp_path))
    added = []

    def add(**kw):
        name = _toy_package(tmp_path, f"toypaper{len(added)}", **kw)
        added.append(name)
        monkeypatch.setattr(registry, "PAPERS", (*registry.PAPERS, name))
        registry.reload()
        return name
    yield add
    monkeypatch.undo()
    registry.reload()
    for name in added:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


def test_a_fourth_paper_package_is_registered_everywhere_the_top_derives_from(with_papers, isolated_outputs,
                                                                                  tmp_path, monkeypatch):
    import io

    from lib import artifacts, config, dryrun, manifest, paths, registry, status

    before = set(registry.artifacts())
    with_papers()
    assert list(registry.papers())[-1] == "toy" and registry.papers()["toy"].title == "A toy fourth paper"
    assert registry.notebook_names()[-2:] == ("06_attribution_fairness", "07_toy")
    assert config.NOTEBOOK_NAMES == registry.notebook_names()
    assert registry.upstream()["07_toy"] == ("06_attribution_fairness",)
    assert set(registry.artifacts()) - before == {"toy-tab1", "toy-fig1"}
    assert artifacts.REGISTRY["toy-fig1"].notebook == "07_toy" and artifacts.PAPERS["toy"] == "A toy fourth paper"
    assert [a.id for a in artifacts.by_notebook("07_toy")] == ["toy-tab1", "toy-fig1"]
    assert registry.select(["07"]) == ["07_toy"] and registry.plans()[-1] == "07_toy"
    assert registry.paper_of("07_toy").key == "toy"
    row = next(line for line in status.table().splitlines() if line.startswith("| 07_toy |"))
    assert row.startswith("| 07_toy | toy | Table 1; Fig. 1 (2) |")
    prof = config.load_profile("quick")
    rows = {r.id: r for r in manifest.build(prof, [], run_id="t", wall_s=0).artifacts}
    assert (rows["toy-tab1"].status, rows["toy-fig1"].status, rows["toy-fig1"].paper) == ("missing", "missing", "toy")
    # the dry run plans what the toy declares, from its notebook's parameters cell
    (tmp_path / "nbs").mkdir()
    for nb in paths.NOTEBOOKS.glob("[0-9][0-9]_*.py"):          # the profile names the real ones
        (tmp_path / "nbs" / nb.name).symlink_to(nb)
    (tmp_path / "nbs" / "07_toy.py").write_text(TOY_NOTEBOOK)
    monkeypatch.setattr(paths, "NOTEBOOKS", tmp_path / "nbs")
    plan = dryrun.plan(prof, ["07_toy"])
    assert plan[["notebook", "model", "requests", "completion_tokens"]].values.tolist() == [["07_toy", "toy-model", 2, 10]]
    out = io.StringIO()
    assert dryrun.run("quick", only=["07"], out=out) == 0, out.getvalue()
    assert "07_toy" in out.getvalue()


def test_the_fourth_paper_leaves_no_trace(with_papers):
    from lib import registry

    assert "toy" not in registry.papers() and "07_toy" not in registry.notebooks()


def test_a_wrong_signature_or_an_undeclared_producer_names_module_and_part(with_papers):
    from lib import registry

    name = with_papers(prices_params="self")
    with pytest.raises(registry.DeclarationError,
                       match=rf"^{name}\.paper\.PAPER\.prices: parameters \[\], expected \['models'\] "
                             r"\(lib\.declare\.Paper\.prices\)$"):
        registry.papers()
    registry.PAPERS = registry.PAPERS[:-1]             # the fixture's monkeypatch restores the tuple
    name = with_papers(producer="08_elsewhere")
    with pytest.raises(registry.DeclarationError,
                       match=rf"^{name}\.paper\.PAPER: artifacts \[\] are not Artifacts of paper 'toy', or "
                             r"\['toy-fig1'\] name a notebook the paper does not declare$"):
        registry.notebooks()


def test_a_key_declared_twice_or_an_unknown_upstream_names_the_paper_and_the_key(with_papers, monkeypatch):
    import types

    from lib import registry
    from lib.declare import Artifact, Notebook, Release

    with_papers()
    name = with_papers()
    with pytest.raises(registry.DeclarationError, match=rf"^{name}\.paper\.PAPER: paper key 'toy' is declared twice$"):
        registry.papers()
    nb, art, rel = Notebook("07_x"), Artifact("x-1", "x", "table", "07_x", "X"), Release("k", "m", readers=("07_x",))
    twice = {k: types.SimpleNamespace(key=k, notebooks=(nb,), artifacts=(art,), releases=(rel,)) for k in ("x", "y")}
    monkeypatch.setattr(registry, "papers", lambda: twice)
    for part, what in [(registry.notebooks, "notebook '07_x'"), (registry.artifacts, "artifact id 'x-1'"),
                       (registry.releases, "real_data key 'k'")]:
        with pytest.raises(registry.DeclarationError, match=rf"^paper y: {what} is declared twice$"):
            part.__wrapped__()                                  # past the cache: the fake papers, not the real
    late = {"x": types.SimpleNamespace(key="x", notebooks=(Notebook("07_x", upstream=("08_y",)), Notebook("08_y")))}
    monkeypatch.setattr(registry, "papers", lambda: late)
    with pytest.raises(registry.DeclarationError,
                       match=r"^paper x: notebook 07_x reads \['08_y'\], which no earlier notebook declares$"):
        registry.notebooks.__wrapped__()
