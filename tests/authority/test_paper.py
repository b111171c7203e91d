"""The authority-bias declaration (lib/authority/paper.py) against its notebook and parts."""
from conftest import declaration_problems

from lib import registry
from lib.authority import models
from lib.authority.paper import PAPER


def test_the_declaration_is_what_notebook_05_saves():
    assert declaration_problems(PAPER) == []
    assert {a.id for a in PAPER.artifacts} == {f"ab-tab{i}" for i in range(1, 24)} | {"ab-quirks"}


def test_one_collecting_notebook_that_reads_no_other_and_its_release():
    assert [(n.name, n.upstream, n.plans) for n in PAPER.notebooks] == [("05_authority_pilot_regression", (), True)]
    assert [(r.key, r.module, r.accepts_modified) for r in PAPER.releases] == [("authority_dataset_dir", "lib.authority.corpus", False)]
    assert registry.paper_of("05_authority_pilot_regression") is PAPER
    assert PAPER.prices().equals(models.prices(None))
