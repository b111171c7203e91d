"""Import the LLMScholarBench release's ground-truth tables into the companion's schema.

The paper's ground truth D (Appendix B; reference §4) is the APS corpus augmented with OpenAlex.
The Auditor reads it as CSV members of a gzip tarball (``final_dataset.tar.gz``: the *first
member whose path ends with /<name>*, reference §4.1) plus two files it reads from outside the
tarball (the coauthorship edge list and the PCA model, §4.3 items 4–5). This module reads the
tables the metrics need, from a folder (files at any depth, and inside any ``.tar.gz`` / ``.tgz``
/ ``.tar`` found in it) or from the tarball itself. Ids are numeric OpenAlex ids without the
letter prefix ("A123" → 123); prefixed forms ("A123", "https://openalex.org/A123") are accepted.

Files (:data:`RELEASE_FILES`; *required* columns are read, the others when present):

=============================  ======================================================  ======
file                           columns read                                            part
=============================  ======================================================  ======
authors_demographics.csv       id_author, display_name, alternative_names,             OA
                               longest_name, first_name, last_name, gender, ethnicity
authors_stats.csv              id_author, works_count, cited_by_count; name, h_index,  OA
                               i10_index, two_year_mean_citedness, e_index,
                               citations_per_paper_age
publications.csv               id_publication, doi, publication_date; cited_by_count   OA
authorships.csv                id_publication, id_author                               OA
publications_topic.csv         id_publication, id_topic                                OA
topics.csv                     id_topic, subfield_name; field_name                     OA
coauthorships.csv              src, dst                                                OA
authors_mapping.csv            id_author_oa, id_author_aps                             APS
authors_aps_stats.csv          id_author, aps_works_count, aps_cited_by_count;         APS
                               aps_h_index, aps_i10_index, aps_e_index,
                               aps_years_of_activity, aps_career_age,
                               aps_citations_per_paper_age
pca_cosine_similarity_model.h5 ids, embedding_ (optional; :func:`load_pca_embedding`)  OA
=============================  ======================================================  ======

"OA" files are the public, OpenAlex-derived tables of the data release (DOI 10.5281/zenodo.20417107).
"APS" files carry APS's own author ids and APS-internal citation counts: they are built from the
American Physical Society's licensed "APS Data Sets for Research" (https://journals.aps.org/datasets)
and are not redistributed; :func:`check_release` says so for each one that is missing (a copy
found anywhere in the folder is used like any other file). ``aps_years_of_activity`` is kept only
when numeric: the reference script writes it as a "[min, max]" list, which its own PCA cannot use [!].

Mapping onto the schema (:mod:`lib.groundtruth.schema`):

- ``authors``: one row per author of authors_demographics.csv (the whole APS-OA population, as the
  reference's ``get_gt``, §2.7) ⟕ authors_stats.csv ⟕ authors_aps_stats.csv ⟕ the number of APS
  ids in authors_mapping.csv (``n_aps_ids``). alternative_names (a stringified list) → ``alt_names``;
  gender → ``perceived_gender`` (Unisex; "Neutral" read as Unisex); ethnicity → ``perceived_ethnicity``
  ("Black or African American" → Black, "Hispanic or Latino" → Hispanic; an American Indian label,
  which the paper lists but the reference code never produces, → Unknown and is counted in
  ``meta["ethnicity_recoded_unknown"]``); a missing label → Unknown. ``prominence_pub`` /
  ``prominence_cit`` are the {0, .5, .8, .95, 1} quantile strata of works_count / cited_by_count
  (:func:`lib.groundtruth.demographics.prominence`); an author absent from authors_stats has no
  stratum (as in the reference) and works_count = cited_by_count = 0 (the schema needs a number;
  counted in ``meta["authors_without_stats"]``). ``career_start`` / ``career_end`` / ``career_age``
  are the first / last year of the author's papers (authorships ⋈ publications, as the reference's
  factuality step, §2.5). The similarity features of §4.3 item 4 are kept as columns, so the
  embedding can be re-fitted (:func:`lib.scholar.metrics.similarity_embedding`).
- ``publications``: id_publication, doi (lower-cased), year (of publication_date), cited_by_count,
  ``subfield`` / ``field`` = the OpenAlex subfield / field names of its topics joined by "; ".
- ``authorships``: one row per (paper, author) (the release has one per institution too).
- ``coauthorships``: one row per unordered pair (src < dst); the release's duplicates, reversed
  pairs and self-loops are dropped (§2.6 treats the graph as undirected and simple). With
  ``derive_coauthorships=True`` a missing file is replaced by one edge per pair of co-authors of a
  paper (the reference's missing generator, §7).

Errors. :func:`check_release` lists what is missing, unreadable or not the whole release file
(fast; reads the CSV headers and the author ids of the tables built one row per author: a cut
``authors_stats.csv`` is named with both row counts; ``--accept-modified`` lets it through).
:func:`load_release` raises :class:`ReleaseError` for a malformed file, naming the file
(for a tarball member: the archive and the member), the column and an example row with its CSV line
number (unparseable ids, dates, numbers, labels or name lists; duplicated ids; an id of
authorships.csv / coauthorships.csv absent from publications.csv / authors_demographics.csv).
Anything else the schema validation finds is reported with the release files behind the table.

Shell::

    python -m lib.groundtruth.release check downloads/llmscholarbench
    python -m lib.groundtruth.release import downloads/llmscholarbench downloads/ground_truth
"""
from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import tarfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from lib import paths
from lib.groundtruth import demographics as demo
from lib.groundtruth.loaders import _parse_list
from lib.groundtruth.schema import SchemaError, validate
from lib.groundtruth.world import World, author_indicators, coauthorship_edges, save_world

#: the LLMScholarBench data release on Zenodo (raw responses and these OA tables)
DOI = "10.5281/zenodo.20417107"
DOI_URL = f"https://doi.org/{DOI}"
DEFAULT_SRC = paths.DOWNLOADS / "llmscholarbench"
DEFAULT_DEST = paths.DOWNLOADS / "ground_truth"
APS_DATASETS_URL = "https://journals.aps.org/datasets"
PCA_MODEL = "pca_cosine_similarity_model.h5"
_ARCHIVES = (".tar.gz", ".tgz", ".tar")


class ReleaseError(SchemaError):
    """A release file is missing, unreadable or malformed (the message names the file)."""


@dataclass(frozen=True)
class ReleaseFile:
    """One ground-truth file of the release: what the importer reads and where it comes from."""

    name: str
    columns: tuple[str, ...]            # required
    optional: tuple[str, ...] = ()      # read when present
    part: str = "oa"                    # "oa": public release; "aps": licensed APS data
    what: str = ""
    builder: str = ""                   # the reference script that writes it

    def hint(self) -> str:
        """Where to get the file."""
        if self.part == "aps":
            return (f"it is built from the APS data, which are licensed and not redistributed: request the "
                    f"'APS Data Sets for Research' from the American Physical Society ({APS_DATASETS_URL}) under "
                    f"APS's licence, then build {self.name} with LLMScholarBench's {self.builder} "
                    f"(reference §4.3) and place it next to the other tables")
        return (f"it is one of the public OpenAlex-derived tables of the LLMScholarBench data release "
                f"(DOI {DOI}, {DOI_URL}; built by {self.builder}); download and unpack the release, keeping "
                f"final_dataset.tar.gz whole or extracted")


RELEASE_FILES: tuple[ReleaseFile, ...] = (
    ReleaseFile("authors_demographics.csv",
                ("id_author", "display_name", "alternative_names", "longest_name", "first_name", "last_name",
                 "gender", "ethnicity"), (), "oa", "names and perceived gender/ethnicity of every APS-OA author",
                "GTBuilder/APS/code/batch_authors_demographics.py"),
    ReleaseFile("authors_stats.csv", ("id_author", "works_count", "cited_by_count"),
                ("name", "h_index", "i10_index", "two_year_mean_citedness", "e_index", "citations_per_paper_age"),
                "oa", "OpenAlex author indicators for prominence and similarity",
                "GTBuilder/APS/code/batch_user_rankings.py"),
    ReleaseFile("publications.csv", ("id_publication", "doi", "publication_date"), ("cited_by_count",), "oa",
                "APS papers found in OpenAlex", "GTBuilder/OpenAlex_API_Pipeline"),
    ReleaseFile("authorships.csv", ("id_publication", "id_author"), (), "oa", "author × paper links",
                "GTBuilder/OpenAlex_API_Pipeline"),
    ReleaseFile("publications_topic.csv", ("id_publication", "id_topic"), (), "oa", "OpenAlex topics per paper",
                "GTBuilder/OpenAlex_API_Pipeline"),
    ReleaseFile("topics.csv", ("id_topic", "subfield_name"), ("field_name",), "oa", "OpenAlex topic taxonomy",
                "GTBuilder/OpenAlex_API_Pipeline"),
    ReleaseFile("coauthorships.csv", ("src", "dst"), (), "oa", "the coauthorship edge list for connectedness",
                "the authors' coauthorship export (reference §4.3 item 5)"),
    ReleaseFile("authors_mapping.csv", ("id_author_oa", "id_author_aps"), (), "aps",
                "OpenAlex ↔ APS author ids", "GTBuilder/OpenAlex_API_Pipeline (APS author ids matched by DOI)"),
    ReleaseFile("authors_aps_stats.csv", ("id_author", "aps_works_count", "aps_cited_by_count"),
                ("aps_h_index", "aps_i10_index", "aps_e_index", "aps_years_of_activity", "aps_career_age",
                 "aps_citations_per_paper_age"), "aps", "APS-internal author indicators for the similarity features",
                "GTBuilder/APS/code/batch_aps_authors_stats.py"),
)
FILES = {f.name: f for f in RELEASE_FILES}

_GENDER = {"Female": "Female", "Male": "Male", "Unisex": "Unisex", "Neutral": "Unisex", "Unknown": "Unknown"}
_ETHNICITY = {"Asian": "Asian", "Black": "Black", "Black or African American": "Black", "Hispanic": "Hispanic",
              "Hispanic or Latino": "Hispanic", "Latino": "Hispanic", "White": "White", "Unknown": "Unknown"}
_AIAN = {"American Indian", "American Indian or Alaska Native", "AIAN"}
_ID = re.compile(r"^\s*(?:https?://openalex\.org/)?[A-Za-z]?(\d+)(?:\.0+)?\s*$")
_YEAR = re.compile(r"^\s*(\d{4})(?:[-/]\d{1,2}(?:[-/]\d{1,2})?(?:[T ].*)?)?\s*$")
#: Columns whose text is a name: read verbatim (a surname such as "Null" or "NaN" is not missing).
_MISSING = ["", "NaN", "nan", "NA", "N/A", "<NA>", "null", "NULL", "None"]
_TEXT = ("display_name", "alternative_names", "longest_name", "first_name", "last_name", "name", "doi",
         "gender", "ethnicity", "subfield_name", "field_name", "publication_date", "aps_years_of_activity")


# ---- finding the files -----------------------------------------------------------------------
@dataclass(frozen=True)
class Location:
    """Where one release file is: a plain file, or a member of a tar archive."""

    path: Path
    member: str | None = None

    def __str__(self) -> str:
        return str(self.path) if self.member is None else f"{self.path} (member {self.member})"


class _Release:
    """The release at ``path``: files at any depth under a folder and inside its tar archives,
    or the members of one tar archive. The first match in path order wins (as the reference)."""

    def __init__(self, path: Path | str, names: Sequence[str]):
        self.path = Path(path)
        self.found: dict[str, Location] = {}
        self.problems: list[str] = []   # unreadable archives
        self.corrupt: list[Path] = []    # archives that are truncated or not archives
        self.packed: list[Path] = []     # zip archives, which must be unpacked first
        self._tars: dict[Path, tarfile.TarFile] = {}
        wanted = set(names)
        if self.path.is_dir():
            archives = []
            for dirpath, dirnames, filenames in os.walk(self.path):
                # attempt trees of the raw-response release hold no tables: do not walk them
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(("config_", ".")))
                for f in sorted(filenames):
                    p = Path(dirpath) / f
                    if f in wanted and f not in self.found:
                        self.found[f] = Location(p)
                    elif f.endswith(_ARCHIVES):
                        archives.append(p)
                    elif f.endswith(".zip"):
                        self.packed.append(p)
            for a in archives:
                if wanted - set(self.found):
                    self._scan(a, wanted)
        elif self.path.is_file() and self.path.name.endswith(_ARCHIVES):
            self._scan(self.path, wanted)

    def _scan(self, archive: Path, wanted: set) -> None:
        try:
            tar = tarfile.open(archive, "r:*")
            members = tar.getmembers()
            # the compressed stream must also end properly: a cut-off trailer leaves every member readable
            if not isinstance(tar.fileobj, io.BufferedReader) and hasattr(tar.fileobj, "read"):
                while tar.fileobj.read(1 << 20):
                    pass
        except (tarfile.TarError, OSError, EOFError) as e:
            self.problems.append(f"{archive}: corrupt or truncated archive ({type(e).__name__}: {e}); "
                                 "re-download it (its tables cannot be read)")
            self.corrupt.append(archive)
            return
        self._tars[archive] = tar
        for m in sorted(members, key=lambda m: m.name):
            base = m.name.rsplit("/", 1)[-1]
            if m.isfile() and base in wanted and base not in self.found:
                self.found[base] = Location(archive, m.name)

    def open(self, loc: Location):
        if loc.member is None:
            return open(loc.path, "rb")
        return self._tars[loc.path].extractfile(loc.member)

    def close(self) -> None:
        for t in self._tars.values():
            t.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _header(rel: _Release, loc: Location) -> list[str]:
    with rel.open(loc) as f:
        line = f.readline().decode("utf-8-sig").rstrip("\r\n")
    if not line.strip():
        raise ValueError("empty file (no header line)")
    return pd.read_csv(io.StringIO(line), nrows=0).columns.tolist()


def _expected(spec: ReleaseFile) -> str:
    opt = f" (optional: {', '.join(spec.optional)})" if spec.optional else ""
    return f"columns {', '.join(spec.columns)}{opt}"


def _problems(rel: _Release, names: Sequence[str]) -> list[str]:
    out = list(rel.problems)
    where = rel.path
    why = (f"{where} does not exist" if not where.exists() else
           f"{where} is neither a folder nor a tar archive" if where.is_file() and not where.name.endswith(_ARCHIVES)
           else f"looked at any depth under {where}, inside tar archives too")
    if rel.packed:
        why += f"; unpack {', '.join(str(p) for p in rel.packed[:3])} first"
    if rel.corrupt:
        why += f"; the corrupt archive {rel.corrupt[0]} may hold it"
    for name in names:
        spec = FILES[name]
        loc = rel.found.get(name)
        if loc is None:
            out.append(f"ground truth {name}, {spec.what}: not found ({why}); expected {_expected(spec)}; "
                       f"{spec.hint()}")
            continue
        try:
            cols = _header(rel, loc)
        except (UnicodeDecodeError, ValueError, OSError, tarfile.TarError, EOFError) as e:
            out.append(f"ground truth {name}: {loc}: unreadable as a UTF-8 CSV ({e}); expected {_expected(spec)}; "
                       f"{spec.hint()}")
            continue
        missing = [c for c in spec.columns if c not in cols]
        if missing:
            out.append(f"ground truth {name}: {loc}: missing column(s) {missing} (has {cols}); expected "
                       f"{_expected(spec)}; {spec.hint()}")
    return out


#: (file, file it has one row per row of, why): tables the reference builds from one table, so
#: their rows are one per author; a cut or substituted copy differs (issue 28)
_SAME_ROWS = (("authors_stats.csv", "authors_demographics.csv",
               "the reference builds both from the same OpenAlex authors table, one row per author "
               "(GTBuilder/APS/code/batch_user_rankings.py and batch_authors_demographics.py)"),)


def _identity(rel: _Release) -> list[str]:
    """What says a found file is not the whole release file: row counts and ids that differ from the
    table it was built alongside (:data:`_SAME_ROWS`); each message names both files and values."""
    out = []
    for name, like, why in _SAME_ROWS:
        if name not in rel.found or like not in rel.found:
            continue
        ids = {}
        for f in (name, like):
            try:
                with rel.open(rel.found[f]) as fh:
                    ids[f] = pd.read_csv(fh, usecols=["id_author"], dtype=str, keep_default_na=False)["id_author"]
            except (ValueError, OSError, tarfile.TarError, EOFError, pd.errors.ParserError):
                return out      # unreadable or without id_author: _problems and the loader name it
        if len(ids[name]) != len(ids[like]) or set(ids[name]) != set(ids[like]):
            lost = sorted(set(ids[like]) - set(ids[name]))
            extra = sorted(set(ids[name]) - set(ids[like]))
            out.append(f"ground truth {name}: {rel.found[name]}: {len(ids[name]):,} data rows, expected "
                       f"{len(ids[like]):,} (one per author of {like}: {why}); "
                       f"{len(lost):,} of its authors absent{' (e.g. ' + ', '.join(lost[:3]) + ')' if lost else ''}"
                       f"{f', {len(extra):,} not in {like}' if extra else ''}; the file is cut or not the "
                       f"release's: re-download the release (DOI {DOI}), or accept the modified copy with "
                       "accept_modified_releases: [ground_truth_dir] (--accept-modified)")
    return out


def accepted_modifications(path: Path | str | None = None) -> list[str]:
    """What differs from the release in the files at ``path`` (:func:`_identity`), for the manifest of
    a run that accepted them (``accept_modified_releases``)."""
    path = Path(path) if path is not None else DEFAULT_SRC
    with _Release(path, [n for pair in _SAME_ROWS for n in pair[:2]]) as rel:
        return _identity(rel)


def _required(derive_coauthorships: bool) -> list[str]:
    return [f.name for f in RELEASE_FILES if not (derive_coauthorships and f.name == "coauthorships.csv")]


def check_release(path: Path | str | None = None, *, derive_coauthorships: bool = False,
                  accept_modified: bool = False) -> list[str]:
    """Messages naming every required release file that is missing, unreadable or not the whole
    release file (empty: ready; ``accept_modified``: the last are let through).

    ``path``: the release folder (files at any depth, also inside its tar archives) or the
    ``final_dataset.tar.gz`` itself; default ``downloads/llmscholarbench``. Each message names the
    file, its expected columns and where to get it (the public data release, or for the APS part
    the American Physical Society's licensed data sets). Reads the CSV header lines, and the author
    ids of the tables built one row per author (:func:`_identity`); a missing folder costs a stat
    call. The PCA model is optional and not checked.
    """
    path = Path(path) if path is not None else DEFAULT_SRC
    names = _required(derive_coauthorships)
    with _Release(path, names) as rel:
        problems = _problems(rel, names)
        return problems + ([] if accept_modified or problems else _identity(rel))


# ---- reading and checking one table ------------------------------------------------------------
def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def _row(df: pd.DataFrame, i: int) -> str:
    return f"line {i + 2} (data row {i + 1}): { {k: _py(v) for k, v in df.iloc[i].to_dict().items()} }"


def _bad(loc: Location, df: pd.DataFrame, col: str, mask, expected: str) -> ReleaseError:
    i = int(np.flatnonzero(np.asarray(mask))[0])
    return ReleaseError(f"ground truth {loc}: column {col!r}: expected {expected}, got {_py(df[col].iloc[i])!r} "
                        f"in {_row(df, i)}")


def _read(rel: _Release, name: str) -> tuple[pd.DataFrame, Location]:
    spec, loc = FILES[name], rel.found[name]
    keep = set(spec.columns) | set(spec.optional)
    text = {c: str for c in _TEXT if c in keep}
    try:
        with rel.open(loc) as f:
            # every column is parsed (not usecols), so that a row with extra fields is an error
            df = pd.read_csv(f, dtype=text, keep_default_na=False,
                             na_values={c: [""] if c in text else _MISSING for c in keep}, encoding="utf-8")
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as e:
        raise ReleaseError(f"ground truth {loc}: cannot be read as a UTF-8 CSV with {_expected(spec)}: {e}") from e
    except (tarfile.TarError, EOFError, OSError) as e:
        raise ReleaseError(f"ground truth {loc}: corrupt or truncated archive ({type(e).__name__}: {e}); "
                           "re-download it") from e
    missing = [c for c in spec.columns if c not in df.columns]
    if missing:
        raise ReleaseError(f"ground truth {loc}: missing column(s) {missing}; expected {_expected(spec)}")
    return df[[c for c in df.columns if c in keep]], loc


def _ids(df: pd.DataFrame, loc: Location, col: str) -> pd.Series:
    """Integer OpenAlex ids (prefix and URL forms accepted); a missing or other value is an error."""
    s = df[col]
    if pd.api.types.is_integer_dtype(s):
        return s.astype("int64")
    text = s.astype("string")
    num = text.str.extract(_ID, expand=False)
    bad = num.isna()
    if bad.any():
        raise _bad(loc, df, col, bad, "a numeric OpenAlex id (e.g. 123 or A123)")
    return num.astype("int64")


#: bibliometric indicators the release's own scripts derived; a bad value is warned and left missing
_DERIVED = frozenset({"two_year_mean_citedness", "e_index", "citations_per_paper_age", "aps_e_index",
                      "aps_citations_per_paper_age"})


def _numbers(df: pd.DataFrame, loc: Location, col: str, integer: bool) -> pd.Series:
    """A numeric column (missing allowed): Int64 when ``integer``, float otherwise. In a derived
    indicator (:data:`_DERIVED`) a non-number is a warning naming the rows and becomes missing:
    the release's files are loaded as the paper used them."""
    s = df[col]
    num = pd.to_numeric(s, errors="coerce")
    bad = num.isna() & s.notna()
    if integer:
        bad |= num.notna() & (num != np.floor(num))
    if bad.any() and col in _DERIVED and not integer:
        rows = np.flatnonzero(np.asarray(bad))
        warnings.warn(f"ground truth {loc}: column {col!r} (derived): {rows.size} value(s) not a number, read "
                      f"as missing: " + ", ".join(f"data row {i + 1} ({_py(s.iloc[i])!r})" for i in rows[:20]),
                      stacklevel=2)
        return num.astype("float64")
    if bad.any():
        raise _bad(loc, df, col, bad, "an integer" if integer else "a number")
    return num.round().astype("Int64") if integer else num.astype("float64")


def _unique(df: pd.DataFrame, loc: Location, col: str, ids: pd.Series) -> None:
    dup = ids.duplicated()
    if dup.any():
        raise _bad(loc, df, col, dup, "one row per id (duplicated id)")


def _name_list(df: pd.DataFrame, loc: Location, col: str) -> pd.Series:
    """The stringified Python list of alternative names → list of str (missing → [])."""
    def parse(v):
        try:
            return _parse_list(v) if not isinstance(v, str) or v.lstrip().startswith(("[", "(")) else None
        except (SchemaError, TypeError):
            return None

    out = df[col].map(parse)
    bad = out.isna()
    if bad.any():
        raise _bad(loc, df, col, bad, "a list literal of names, e.g. \"['A. Name', 'Ann Name']\"")
    return out


def _labels(df: pd.DataFrame, loc: Location, col: str, mapping: dict,
            extra_unknown=frozenset()) -> tuple[pd.Series, int]:
    """Release labels → schema labels (missing → Unknown); ``extra_unknown`` labels are counted."""
    s = df[col]
    known = s.isna() | s.isin(list(mapping)) | s.isin(list(extra_unknown))
    if not known.all():
        raise _bad(loc, df, col, ~known, f"one of {sorted(mapping) + sorted(extra_unknown)}")
    recoded = int(s.isin(list(extra_unknown)).sum())
    return s.map(mapping).fillna("Unknown").astype("object"), recoded


def _year(df: pd.DataFrame, loc: Location, col: str) -> pd.Series:
    y = df[col].astype("string").str.extract(_YEAR, expand=False)
    bad = y.isna()
    if bad.any():
        raise _bad(loc, df, col, bad, "a date YYYY-MM-DD (or a year YYYY)")
    return y.astype("int64")


# ---- the tables --------------------------------------------------------------------------------
def _joined_names(links: pd.DataFrame, col: str) -> pd.Series:
    """Per publication_id, its distinct ``col`` names sorted and joined by "; " (vectorised: a
    paper has a handful of topics, so the names are laid out in columns and concatenated)."""
    t = links[["publication_id", col]].dropna().drop_duplicates().sort_values(["publication_id", col])
    if t.empty:
        return pd.Series(dtype="object")
    t["k"] = t.groupby("publication_id").cumcount()
    wide = t.pivot(index="publication_id", columns="k", values=col)
    out = wide[0].astype("object")
    for k in wide.columns[1:]:
        more = wide[k].notna()
        out[more] = out[more] + "; " + wide.loc[more, k]
    return out


def _publications(rel: _Release) -> tuple[pd.DataFrame, dict]:
    p, loc = _read(rel, "publications.csv")
    pid = _ids(p, loc, "id_publication")
    _unique(p, loc, "id_publication", pid)
    doi = p["doi"]
    if doi.isna().any():
        raise _bad(loc, p, "doi", doi.isna(), "a DOI")
    pubs = pd.DataFrame({"publication_id": pid, "doi": doi.str.strip().str.lower().astype("object"),
                         "year": _year(p, loc, "publication_date")})
    cites = (_numbers(p, loc, "cited_by_count", True) if "cited_by_count" in p.columns
             else pd.Series(pd.NA, index=p.index, dtype="Int64"))
    pubs["cited_by_count"] = cites
    pt, ploc = _read(rel, "publications_topic.csv")
    tp, tloc = _read(rel, "topics.csv")
    links = pd.DataFrame({"publication_id": _ids(pt, ploc, "id_publication"), "id_topic": _ids(pt, ploc, "id_topic")})
    tid = _ids(tp, tloc, "id_topic")
    _unique(tp, tloc, "id_topic", tid)
    topics = pd.DataFrame({"id_topic": tid, "subfield": tp["subfield_name"],
                           "field": tp["field_name"] if "field_name" in tp.columns else pd.NA})
    joined = links.merge(topics, on="id_topic", how="inner")
    for col in ("subfield", "field"):
        pubs[col] = pubs["publication_id"].map(_joined_names(joined, col)).astype("object")
    return pubs, {"topics_without_taxonomy": int((~links["id_topic"].isin(tid)).sum())}


def _known(df: pd.DataFrame, loc: Location, col: str, ids: pd.Series, known: pd.Series, where: str) -> None:
    dangling = ~ids.isin(known)
    if dangling.any():
        raise _bad(loc, df, col, dangling, f"an id listed in {where}")


def _authorships(rel: _Release, authors: pd.DataFrame, publications: pd.DataFrame) -> pd.DataFrame:
    s, loc = _read(rel, "authorships.csv")
    a = pd.DataFrame({"publication_id": _ids(s, loc, "id_publication"), "author_id": _ids(s, loc, "id_author")})
    _known(s, loc, "id_publication", a["publication_id"], publications["publication_id"], "publications.csv")
    _known(s, loc, "id_author", a["author_id"], authors["author_id"], "authors_demographics.csv")
    return a.drop_duplicates().reset_index(drop=True)


def _coauthorships(rel: _Release, authors: pd.DataFrame) -> pd.DataFrame:
    co, loc = _read(rel, "coauthorships.csv")
    src, dst = _ids(co, loc, "src"), _ids(co, loc, "dst")
    _known(co, loc, "src", src, authors["author_id"], "authors_demographics.csv")
    _known(co, loc, "dst", dst, authors["author_id"], "authors_demographics.csv")
    e = pd.DataFrame({"src": np.minimum(src, dst), "dst": np.maximum(src, dst)})
    e = e[e["src"] != e["dst"]].drop_duplicates().sort_values(["src", "dst"], kind="stable")
    return e.reset_index(drop=True)


def _authors(rel: _Release) -> tuple[pd.DataFrame, dict]:
    d, loc = _read(rel, "authors_demographics.csv")
    aid = _ids(d, loc, "id_author")
    _unique(d, loc, "id_author", aid)
    st, sloc = _read(rel, "authors_stats.csv")
    sid = _ids(st, sloc, "id_author")
    _unique(st, sloc, "id_author", sid)
    ap, aloc = _read(rel, "authors_aps_stats.csv")
    apid = _ids(ap, aloc, "id_author")
    _unique(ap, aloc, "id_author", apid)
    mp, mloc = _read(rel, "authors_mapping.csv")
    pairs = pd.DataFrame({"oa": _ids(mp, mloc, "id_author_oa"), "aps": _ids(mp, mloc, "id_author_aps")})
    n_aps = pairs.drop_duplicates().groupby("oa").size()  # APS ids per OpenAlex author

    longest = d["longest_name"].fillna(d["display_name"])
    display = d["display_name"].copy()
    if "name" in st.columns:
        display = display.fillna(aid.map(pd.Series(st["name"].to_numpy(), index=sid)))
    display = display.fillna(longest)
    longest = longest.fillna(display)
    nameless = display.isna()
    if nameless.any():
        raise _bad(loc, d, "display_name", nameless, "a name in display_name or longest_name")
    tokens = longest.str.split()
    gender, _ = _labels(d, loc, "gender", _GENDER)
    ethnicity, recoded = _labels(d, loc, "ethnicity", _ETHNICITY, _AIAN)
    a = pd.DataFrame({
        "author_id": aid,
        "display_name": display.astype("object"),
        "longest_name": longest.astype("object"),
        "first_name": d["first_name"].fillna(tokens.str[0]).astype("object"),
        "last_name": d["last_name"].fillna(tokens.str[-1]).astype("object"),
        "alt_names": _name_list(d, loc, "alternative_names"),
        "perceived_gender": gender,
        "perceived_ethnicity": ethnicity,
    })

    def join(df, ids, src_loc, cols, integer):
        for c in cols:
            if c in df.columns:
                v = _numbers(df, src_loc, c, integer.get(c, False))
                a[c] = aid.map(pd.Series(v.array, index=ids.to_numpy())).astype(v.dtype)

    ints = {c: True for c in ("works_count", "cited_by_count", "h_index", "i10_index", "aps_works_count",
                              "aps_cited_by_count", "aps_h_index", "aps_i10_index", "aps_career_age")}
    join(st, sid, sloc, ("works_count", "cited_by_count", "h_index", "i10_index", "two_year_mean_citedness",
                         "e_index", "citations_per_paper_age"), ints)
    aps_cols = ["aps_works_count", "aps_cited_by_count", "aps_h_index", "aps_i10_index", "aps_e_index",
                "aps_career_age", "aps_citations_per_paper_age"]
    # written as "[min, max]" by the reference script [!]: a numeric encoding is kept, a list is not
    years = ap.get("aps_years_of_activity")
    numeric = years is not None and (pd.to_numeric(years, errors="coerce").notna() | years.isna()).all()
    if numeric and years.notna().any():
        aps_cols.append("aps_years_of_activity")
    join(ap, apid, aloc, aps_cols, ints)
    a["n_aps_ids"] = aid.map(n_aps).fillna(0).astype("int64")

    a["prominence_pub"] = demo.prominence(a["works_count"].astype("float64")).to_numpy()
    a["prominence_cit"] = demo.prominence(a["cited_by_count"].astype("float64")).to_numpy()
    no_stats = a["works_count"].isna() | a["cited_by_count"].isna()
    a["works_count"] = a["works_count"].fillna(0).astype("int64")
    a["cited_by_count"] = a["cited_by_count"].fillna(0).astype("int64")
    meta = {"authors_without_stats": int(no_stats.sum()), "ethnicity_recoded_unknown": recoded,
            "aps_stats_authors_unknown": int((~apid.isin(aid)).sum()),
            "mapping_authors_unknown": int((~n_aps.index.isin(aid)).sum())}
    return a.reset_index(drop=True), meta


def _add_careers(a: pd.DataFrame, publications: pd.DataFrame, authorships: pd.DataFrame) -> pd.DataFrame:
    """career_start / career_end / career_age from the author's papers (reference §2.5 step 5)."""
    careers = author_indicators(publications.assign(cited_by_count=publications["cited_by_count"].fillna(0)),
                                authorships)
    a = a.copy()
    for c in ("career_start", "career_end", "career_age"):
        a[c] = a["author_id"].map(careers[c]).astype("Int64")
    if "citations_per_paper_age" not in a.columns:  # reference §4.3 item 1: 0 when either count is 0
        cpp = (a["cited_by_count"] / a["works_count"].where(a["works_count"] > 0)) / a["career_age"].astype("float64")
        a["citations_per_paper_age"] = cpp.fillna(0.0)
    return a


_SOURCES = {"authors": ("authors_demographics.csv", "authors_stats.csv", "authors_aps_stats.csv",
                        "authors_mapping.csv"),
            "publications": ("publications.csv", "publications_topic.csv", "topics.csv"),
            "authorships": ("authorships.csv",), "coauthorships": ("coauthorships.csv",)}


def load_release(path: Path | str | None = None, *, derive_coauthorships: bool = False,
                 accept_modified: bool = False) -> World:
    """The release's ground truth as a validated companion :class:`World` (``synthetic=False``).

    ``path``: the release folder or ``final_dataset.tar.gz`` (see :func:`check_release`).
    Raises FileNotFoundError listing every missing/unreadable file (with where to get it), and
    :class:`ReleaseError` for a malformed file (path, column, example row). ``meta`` records the
    DOI, where each file was found, the PCA model if present, and the counts of recoded values.
    A file that is not the whole release's (:func:`_identity`) is refused too, unless
    ``accept_modified``: then it is a warning, and ``meta["accepted_modifications"]`` lists it.
    """
    t0 = time.perf_counter()
    src = Path(path) if path is not None else DEFAULT_SRC
    names = _required(derive_coauthorships)
    with _Release(src, [*names, *(["coauthorships.csv"] if derive_coauthorships else []), PCA_MODEL]) as rel:
        problems = _problems(rel, names)
        if problems:
            raise FileNotFoundError("\n".join(problems))
        modified = _identity(rel)
        if modified and not accept_modified:
            raise ReleaseError("\n".join(modified))
        for m in modified:
            warnings.warn(f"accepted as modified: {m}", stacklevel=2)
        publications, pmeta = _publications(rel)
        authors, ameta = _authors(rel)
        authorships = _authorships(rel, authors, publications)
        authors = _add_careers(authors, publications, authorships)
        if "coauthorships.csv" in rel.found:
            coauthorships, co_source = _coauthorships(rel, authors), "release"
        else:
            coauthorships, co_source = coauthorship_edges(authorships), "derived from authorships.csv"
        tables = {"authors": authors, "publications": publications, "authorships": authorships,
                  "coauthorships": coauthorships}
        try:
            validate(tables)
        except SchemaError as e:
            table = re.search(r"table '(\w+)'", str(e))
            files = [str(rel.found[f]) for f in _SOURCES.get(table.group(1) if table else "", ()) if f in rel.found]
            raise ReleaseError(f"ground truth release {src}: the tables read from {files or str(src)} do not fit "
                               f"the companion schema: {e}") from e
        found = {k: str(v) for k, v in sorted(rel.found.items())}
    meta = {"synthetic": False, "source": str(src), "release_doi": DOI, "files": found,
            "pca_model": found.get(PCA_MODEL), "coauthorships": co_source, "accepted_modifications": modified,
            **ameta, **pmeta,
            "load_seconds": round(time.perf_counter() - t0, 2)}
    return World(**tables, meta=meta)


def load_pca_embedding(path: Path | str | None = None) -> pd.DataFrame:
    """The reference's stored similarity embedding (``pca_cosine_similarity_model.h5``, §4.3 item 4).

    Reads the datasets ``ids`` and ``embedding_`` (rows L2-normalised, so cosine = dot product;
    the attribute ``meta_json`` must not say otherwise) from the file at ``path`` or found in the
    release at ``path``. Returns a DataFrame indexed by author_id with columns pc1..pck, the
    shape of :func:`lib.scholar.metrics.similarity_embedding`, so it can replace the re-fitted
    embedding of a ``GroundTruthContext``. Needs h5py.
    """
    import h5py

    src = Path(path) if path is not None else DEFAULT_SRC
    with _Release(src, [PCA_MODEL]) as rel:
        loc = Location(src) if src.is_file() and src.name.endswith(".h5") else rel.found.get(PCA_MODEL)
        if loc is None:
            raise FileNotFoundError(f"ground truth {PCA_MODEL}: not found under {src}; it is the PCA model of "
                                    f"the reference's batch_authors_pca.py (reference §4.3 item 4)")
        with rel.open(loc) as f:
            data = io.BytesIO(f.read())
    try:
        with h5py.File(data, "r") as h:
            missing = [k for k in ("ids", "embedding_") if k not in h]
            if missing:
                raise ReleaseError(f"ground truth {loc}: missing dataset(s) {missing} (has {sorted(h.keys())})")
            ids, z = h["ids"][()], h["embedding_"][()]
            raw = h.attrs.get("meta_json", "{}")
            meta = json.loads(raw.decode() if isinstance(raw, bytes) else str(raw))
    except OSError as e:
        raise ReleaseError(f"ground truth {loc}: not an HDF5 file ({e})") from e
    if ids.dtype.kind in "SUO":
        ids = pd.Series([x.decode() if isinstance(x, bytes) else str(x) for x in ids]).str.extract(_ID, expand=False)
        if ids.isna().any():
            raise ReleaseError(f"ground truth {loc}: dataset 'ids' holds a value that is not an OpenAlex id")
        ids = ids.astype("int64").to_numpy()
    if z.ndim != 2 or len(z) != len(ids):
        raise ReleaseError(f"ground truth {loc}: dataset 'embedding_' has shape {z.shape}, expected "
                           f"({len(ids)}, k) for {len(ids)} ids")
    if meta.get("embedding_l2_normalized_") is False:
        norm = np.linalg.norm(z, axis=1, keepdims=True)
        z = z / np.where(norm > 0, norm, 1.0)
    return pd.DataFrame(z, index=pd.Index(np.asarray(ids, dtype="int64"), name="author_id"),
                        columns=[f"pc{i + 1}" for i in range(z.shape[1])])


def import_release(src: Path | str | None, dest_dir: Path | str | None = None, *,
                   derive_coauthorships: bool = False, accept_modified: bool = False) -> World:
    """Read the release at ``src`` and write the companion-schema tables (parquet + meta.json) to
    ``dest_dir`` (default ``downloads/ground_truth``), which ``loaders.load_tables(dest_dir)`` reads
    back identically; returns the imported world. A destination that is a file or read-only is
    refused (FileExistsError naming it) before the release is read."""
    from lib import paths

    dest = Path(dest_dir) if dest_dir is not None else DEFAULT_DEST
    unusable = paths.unusable_folders({"ground-truth import destination": dest})
    if unusable:
        raise FileExistsError("\n".join(unusable))
    world = load_release(src, derive_coauthorships=derive_coauthorships, accept_modified=accept_modified)
    save_world(world, dest)
    return world


# ---- shell -------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.groundtruth.release",
                                 description=f"LLMScholarBench ground truth (doi:{DOI} + licensed APS data) -> "
                                             f"companion schema")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ck = sub.add_parser("check", help="say which ground-truth files are missing and where to get them")
    ck.add_argument("src", nargs="?", default=str(DEFAULT_SRC))
    im = sub.add_parser("import", help="write the companion-schema tables to DEST")
    im.add_argument("src", nargs="?", default=str(DEFAULT_SRC))
    im.add_argument("dest", nargs="?", default=str(DEFAULT_DEST))
    for p in (ck, im):
        p.add_argument("--derive-coauthorships", action="store_true",
                       help="without coauthorships.csv, link every pair of co-authors of a paper")
        p.add_argument("--accept-modified", action="store_true",
                       help="accept tables that are not the whole release's (cut or substituted), with a warning")
    a = ap.parse_args(argv)
    if a.cmd == "check":
        problems = check_release(a.src, derive_coauthorships=a.derive_coauthorships, accept_modified=a.accept_modified)
        for p in problems:
            print(p, file=sys.stderr)
        if not problems:
            print(f"{a.src}: every ground-truth table found; import with: "
                  f"python -m lib.groundtruth.release import {a.src} DEST")
        return 1 if problems else 0
    try:
        w = import_release(a.src, a.dest, derive_coauthorships=a.derive_coauthorships,
                           accept_modified=a.accept_modified)
    except (FileNotFoundError, FileExistsError, ReleaseError) as e:
        print(e, file=sys.stderr)
        return 1
    print(f"import {a.src} -> {a.dest}: {len(w.authors)} authors, {len(w.publications)} publications, "
          f"{len(w.authorships)} authorships, {len(w.coauthorships)} coauthorship edges "
          f"({w.meta['coauthorships']}); {w.meta['authors_without_stats']} authors without stats; "
          f"read with lib.groundtruth.loaders.load_tables({a.dest!r})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
