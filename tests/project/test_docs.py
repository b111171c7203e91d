"""Generated documentation stays in step with the code it describes."""
import importlib.util

from lib import paths
from lib.authority import quirks as ab_quirks
from lib.scholar import quirks


def _generator():
    spec = importlib.util.spec_from_file_location("write_fvc", paths.ROOT / "scripts" / "write_faithful_vs_corrected.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quirks_table_in_docs_matches_the_code():
    doc = (paths.ROOT / "docs" / "faithful_vs_corrected.md").read_text()
    assert quirks.as_markdown() in doc, "regenerate docs/faithful_vs_corrected.md from lib.scholar.quirks.as_markdown()"
    assert "## Authority bias" in doc and ab_quirks.as_markdown() in doc, (
        "regenerate docs/faithful_vs_corrected.md: PYTHONPATH=. python scripts/write_faithful_vs_corrected.py")


def test_docs_are_the_generators_output():
    doc = (paths.ROOT / "docs" / "faithful_vs_corrected.md").read_text()
    assert doc == _generator().render(), "run PYTHONPATH=. python scripts/write_faithful_vs_corrected.py"


def test_attribench_quirks_table_in_docs_matches_the_code():
    from lib.attribution import quirks as at_quirks
    doc = (paths.ROOT / "docs" / "faithful_vs_corrected.md").read_text()
    assert at_quirks.as_markdown() in doc, "regenerate the AttriBench section from lib.attribution.quirks.as_markdown()"
