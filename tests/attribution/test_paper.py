"""The AttriBench declaration (lib/attribution/paper.py) against its notebook and parts."""
from conftest import declaration_problems

from lib import registry
from lib.attribution import models
from lib.attribution.paper import PAPER


def test_the_declaration_is_what_notebook_06_saves():
    assert declaration_problems(PAPER) == []
    assert sorted(a.id for a in PAPER.artifacts if a.notebook is None) == ["at-fig1", "at-fig2", "at-fig3"]
    assert len(PAPER.artifacts) == 24


def test_one_collecting_notebook_and_a_release_that_may_be_a_modified_copy():
    assert [(n.name, n.upstream, n.plans) for n in PAPER.notebooks] == [("06_attribution_fairness", (), True)]
    assert [(r.key, r.accepts_modified) for r in PAPER.releases] == [("attribench_dir", True)]
    assert hasattr(registry.release_module("attribench_dir"), "accepted_modifications")
    assert PAPER.prices().equals(models.prices(None))
