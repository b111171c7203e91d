"""The quirk-table core: documented columns only, pipes escaped in the markdown."""
from lib import quirks


def test_table_keeps_the_documented_columns_and_markdown_escapes_pipes():
    rows = [{"id": "x", "quirk": "a|b", "where": "lib.m", "faithful": "f", "corrected": "c", "effect": "none"}]
    assert list(quirks.table(rows).columns) == list(quirks.COLUMNS)
    md = quirks.markdown(rows).splitlines()
    assert md[0] == "| quirk | where | faithful | corrected | effect |" and md[1] == "|---|---|---|---|---|"
    assert md[2] == "| a\\|b | lib.m | f | c | none |"
