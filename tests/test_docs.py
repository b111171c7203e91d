"""Generated documentation stays in step with the code it describes."""
from lib import paths
from lib.scholar import quirks


def test_quirks_table_in_docs_matches_the_code():
    doc = (paths.ROOT / "docs" / "faithful_vs_corrected.md").read_text()
    assert quirks.as_markdown() in doc, "regenerate docs/faithful_vs_corrected.md from lib.scholar.quirks.as_markdown()"


def test_attribench_quirks_table_in_docs_matches_the_code():
    from lib.attribution import quirks as at_quirks
    doc = (paths.ROOT / "docs" / "faithful_vs_corrected.md").read_text()
    assert at_quirks.as_markdown() in doc, "regenerate the AttriBench section from lib.attribution.quirks.as_markdown()"
