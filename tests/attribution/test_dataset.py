"""Released AttriBench files: the shipped 35-row sample validates, broken copies fail with a
message naming file, column and row, and the download verifies size, header, rows and sha256."""
import json

import httpx
import pandas as pd
import pytest

from lib.attribution import dataset as ds
from lib.attribution import download as dl


def test_sample_loads_and_validates():
    df = ds.load_sample()
    assert len(df) == 35
    assert set(df["race"]) <= {"white", "black"} and set(df["gender"]) == {"male", "female"}
    assert df["quote_id"].str.startswith("jstet_").all()
    assert df["author_alt_name"].eq("").all()
    assert df.loc[df["author_clean"] == "A. Philip Randolph", "to_sample"].item() == 4
    assert (ds.subgroup_labels(df, "intersectional").isin(["M/White", "F/White", "M/Black", "F/Black"])).all()


def _broken(tmp_path, edit, name="broken_sample.csv"):
    lines = ds.SAMPLE_CSV.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = edit(lines)
    p = tmp_path / name
    p.write_text("".join(lines), encoding="utf-8")
    return p


def _set_field(lines, row, column, value):
    df = pd.read_csv(ds.SAMPLE_CSV, keep_default_na=False, dtype=str)
    df.iloc[row - 1, df.columns.get_loc(column)] = value
    df = df.rename(columns={df.columns[0]: ""})
    return df.to_csv(index=False).splitlines(keepends=True)


@pytest.mark.parametrize("row,column,value,expected", [
    (7, "race", "purple", "one of"),
    (20, "quote_id", "quote_20", "jstet_"),
    (9, "log10_hits", "many", "log10 search-hit count"),
    (11, "author_clean", " ", "non-empty"),
])
def test_broken_copy_names_file_column_and_row(tmp_path, row, column, value, expected):
    """Columns the analysis reads reject the file, naming file, column and row."""
    p = _broken(tmp_path, lambda lines: _set_field(lines, row, column, value))
    with pytest.raises(ds.AttriBenchSchemaError) as e:
        ds.load_quotes(p)
    msg = str(e.value)
    assert "broken_sample.csv" in msg and repr(column) in msg and f"row {row}" in msg and expected in msg


@pytest.mark.parametrize("row,column,value,expected", [
    (3, "quote_words", "40", "[5, 30]"),
    (4, "quote_words", "22", "the number of"),
    (12, "log10_hits", "9.5", "log10(google_hits)"),
    (5, "gender_source", "wikipedia", "one of"),
    (30, "to_sample", "11", "[1, 10]"),
])
def test_derived_column_quirks_warn_with_their_rows(tmp_path, row, column, value, expected):
    """Derived columns that disagree with their rule are kept as released and reported, row by row."""
    p = _broken(tmp_path, lambda lines: _set_field(lines, row, column, value))
    with pytest.warns(ds.AttriBenchQuirkWarning) as rec:
        df = ds.load_quotes(p)
    assert len(df) == 35
    msgs = [str(w.message) for w in rec]
    assert any("broken_sample.csv" in m and repr(column) in m and f"row {row} " in m and expected in m for m in msgs), msgs
    assert df.attrs["quirks"] == msgs


def test_wrong_header_is_reported(tmp_path):
    p = _broken(tmp_path, lambda lines: [lines[0].replace("log10_hits", "fame"), *lines[1:]])
    with pytest.raises(ds.AttriBenchSchemaError, match=r"broken_sample.csv: header .*missing \['log10_hits'\]"):
        ds.load_quotes(p)


def test_missing_file_says_how_to_get_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="lib.attribution.download"):
        ds.load_quotes(tmp_path / "intersectional_with_quotes.csv")


def test_universe_validation(tmp_path):
    u = pd.DataFrame({"author_clean": ["A B", "C D"], "race": ["white", "asian"], "gender": ["male", "female"],
                      "log10_hits": [4.2, 3.1], "count": [3, 10]})
    p = tmp_path / "universe_authors.csv"
    u.to_csv(p, index=False)
    assert len(ds.load_universe(p)) == 2
    u.loc[1, "count"] = 0
    u.to_csv(p, index=False)
    with pytest.raises(ds.AttriBenchSchemaError, match=r"universe_authors.csv: column 'count', row 2"):
        ds.load_universe(p)


# --- download -------------------------------------------------------------------------------------
def _spec_for_sample(rows=35):
    text = ds.SAMPLE_CSV.read_text(encoding="utf-8")
    return dl.ReleasedFile("datasets/attribench_intersectional_sample.csv", len(text), rows, "quotes"), text.encode()


def test_verify_bytes_checks_size_header_rows_and_sha():
    spec, data = _spec_for_sample()
    sha = dl.verify_bytes(data, spec)
    assert len(sha) == 64
    with pytest.raises(dl.DownloadError, match="size"):
        dl.verify_bytes(data + b"x", spec)
    wrong_rows, _ = _spec_for_sample(rows=36)
    with pytest.raises(dl.DownloadError, match="35 data rows, expected 36"):
        dl.verify_bytes(data, wrong_rows)
    bad_header = data.replace(b"to_sample", b"to_sampl3", 1)
    with pytest.raises(dl.DownloadError, match="header"):
        dl.verify_bytes(bad_header, spec)
    with pytest.raises(dl.DownloadError, match="differs from the one recorded"):
        dl.verify_bytes(data, spec, recorded_sha="0" * 64)


def test_download_records_sha_then_detects_changes(tmp_path, monkeypatch):
    spec, data = _spec_for_sample()
    monkeypatch.setattr(dl, "FILES", (spec,))
    calls = []

    def handler(request):
        calls.append(str(request.url))
        return httpx.Response(200, content=data)

    client = httpx.Client(transport=httpx.MockTransport(handler))
    sums = dl.download(tmp_path, client=client)
    assert calls == [dl.RAW_BASE + spec.path] and dl.COMMIT in calls[0]
    recorded = json.loads((tmp_path / dl.SUMS).read_text())
    assert recorded == sums and len(sums[spec.name]) == 64
    assert dl.verify(tmp_path) == sums
    dl.download(tmp_path, client=client)           # verified copy kept, no second request
    assert len(calls) == 1
    p = tmp_path / spec.name
    p.write_bytes(data.replace(b"Cronin", b"Cronim"))  # same size, different content
    with pytest.raises(dl.DownloadError, match="differs from the one recorded"):
        dl.verify(tmp_path)


def test_offline_message(tmp_path, monkeypatch):
    spec, _ = _spec_for_sample()
    monkeypatch.setattr(dl, "FILES", (spec,))

    def handler(request):
        raise httpx.ConnectError("no route to host", request=request)

    with pytest.raises(dl.DownloadError, match="no network.*synthetic AttriBench twin"):
        dl.download(tmp_path, client=httpx.Client(transport=httpx.MockTransport(handler)))
    assert not (tmp_path / spec.name).exists()


def test_release_table_matches_the_spec():
    assert [f.rows for f in dl.FILES] == [7964, 7656, 1200, 1200, None]
    assert sum(f.chars for f in dl.FILES) == 1_602_578 + 1_523_454 + 240_914 + 236_117 + 739_693


# --- the released files' own quirks (issue 13) -----------------------------------------------------
RELEASE_EXCERPT = ds.paths.ROOT / "tests" / "data" / "golden" / "attribution" / "release" / "intersectional_300_excerpt.csv"


def test_released_quote_words_quirk_loads_with_a_warning_naming_the_row():
    """Rows 1096-1102 of the real intersectional 300-matchings file: its row 1099 has quote_words 13
    for a 12-token quote. The file loads as released and the row is reported."""
    with pytest.warns(ds.AttriBenchQuirkWarning, match=r"'quote_words': 1 row\(s\).*row 4 \('13 vs 12 counted'\)"):
        df = ds.load_quotes(RELEASE_EXCERPT)
    assert len(df) == 7 and df.loc[3, "quote_id"] == "jstet_324980" and df.loc[3, "quote_words"] == 13


def test_release_verification_accepts_the_quirk_and_reports_it():
    data = RELEASE_EXCERPT.read_bytes()
    spec = dl.ReleasedFile("datasets/intersectional_300_excerpt.csv", len(data.decode()), 7, "quotes")
    v = dl.check_bytes(data, spec)
    assert len(v.sha256) == 64 and len(v.warnings) == 1 and "jstet" not in v.warnings[0] and "row 4" in v.warnings[0]
    crlf = data.replace(b"\n", b"\r\n")                    # a copy whose line ends were converted
    with pytest.raises(dl.DownloadError, match="line ends converted: 8 CRLF line ends where the release has LF"):
        dl.check_bytes(crlf, spec)                        # not the release's file (issue 28) ...
    v2 = dl.check_bytes(crlf, spec, accept_modified=True)  # ... unless accepted as modified
    assert any("line ends converted" in w for w in v2.warnings)
    with pytest.raises(dl.DownloadError, match="differs from the one recorded"):
        dl.check_bytes(data, spec, recorded_sha="0" * 64)
