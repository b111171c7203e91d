"""lib.status: the README's status table comes from the registry and the shipped profiles."""
import pytest

from lib import artifacts, paths, status


def test_readme_block_is_the_generated_table():
    text = (paths.ROOT / "README.md").read_text(encoding="utf-8")
    assert status.readme_block(text) == status.table(), "README status block is stale: paste `python -m lib.status --markdown`"


def test_labels_name_artifacts_as_the_papers_do():
    assert status.labels(["lsb-tab1", "lsb-tabA1", "lsb-figA2"]) == "Tables 1, A.1; Fig. A.2"
    assert status.labels(["lsb-fig2", "lsb-figB6", "lsb-figC7", "lsb-figC8", "lsb-figC9", "lsb-quirks"]) == \
        "Figs. 2, B.6, C.7–C.9; `lsb-quirks`"
    assert status.labels(["ab-tab3", "ab-tab1", "ab-tab2", "ab-tab5"]) == "Tables 1–3, 5"


def test_promises_counted_per_profile(tmp_path):
    (tmp_path / "a.yaml").write_text("promises: all\n")
    (tmp_path / "b.yaml").write_text("promises: [lsb-tab1]\n")
    (tmp_path / "c.yaml").write_text("name: x\n")
    got = status.shipped_promises(tmp_path)
    assert got["b"] == {"lsb-tab1"} and got["c"] == set() and got["a"] == {a.id for a in artifacts.REGISTRY.values() if a.notebook}
    row = status.table(tmp_path).splitlines()[2]
    assert row.endswith("| a 3/3, b 1/3 |") and row.startswith("| 01_calibration | llmscholarbench | Tables 1, A.1")
    (tmp_path / "d.yaml").write_text("promises: some\n")
    with pytest.raises(ValueError, match=r"d.yaml: key 'promises': expected 'all' or a list"):
        status.shipped_promises(tmp_path)
    assert artifacts.promised("all") == [a.id for a in artifacts.REGISTRY.values() if a.notebook]
