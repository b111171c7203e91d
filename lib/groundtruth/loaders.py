"""Loaders for real ground truth: the schema's own tables, or the LLMScholarBench APS/OpenAlex export.

- :func:`load_tables` reads ``authors``, ``publications``, ``authorships`` and (optionally)
  ``coauthorships`` as parquet or CSV files from one directory, already in the schema of
  ``lib.groundtruth.schema`` (alt_names in CSV as a Python/JSON list literal).
- :func:`load_reference_export` reads the reference's ``final_dataset.tar.gz`` (or a directory
  with the same CSVs; reference §4.1–4.3) and maps it onto the schema: authors.csv (id_author,
  name, works_count, cited_by_count, h_index, i10_index) ⟕ authors_demographics.csv
  (longest_name, first_name, last_name, alternative_names, gender, ethnicity);
  publications.csv (id_publication, doi, publication_date, cited_by_count) with the OpenAlex
  subfield names of publications_topic.csv × topics.csv joined by "; "; authorships.csv
  (id_publication, id_author); coauthorships.csv (src, dst) when present, otherwise one edge per
  pair of co-authors of a paper (the reference's missing generator, §7).
Both validate on load (``schema.validate``): a missing column, a wrong type or a dangling id is an
error naming the table, the column and an example row.
"""
from __future__ import annotations

import ast
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd

from lib.groundtruth import demographics as demo
from lib.groundtruth.schema import SchemaError, validate
from lib.groundtruth.world import World, author_indicators, coauthorship_edges

_GENDER = {"Female": "Female", "Male": "Male", "Unisex": "Unisex", "Neutral": "Unisex", "Unknown": "Unknown"}
_ETHNICITY = {"Asian": "Asian", "Black": "Black", "Black or African American": "Black", "Hispanic": "Hispanic",
              "Hispanic or Latino": "Hispanic", "Latino": "Hispanic", "White": "White", "Unknown": "Unknown"}


def _parse_list(v):
    if isinstance(v, (list, tuple, np.ndarray)):
        return [str(x) for x in v]
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return []
    try:
        out = ast.literal_eval(str(v))
    except (ValueError, SyntaxError) as err:
        raise SchemaError(f"ground truth: alternative names {v!r} are not a list literal") from err
    return [str(x) for x in out]


def _read(directory: Path, name: str, required: bool = True) -> pd.DataFrame | None:
    for ext, reader in ((".parquet", pd.read_parquet), (".csv", pd.read_csv)):
        p = directory / f"{name}{ext}"
        if p.is_file():
            return reader(p)
    if required:
        raise SchemaError(f"ground truth: table {name!r} not found in {directory} (expected {name}.parquet or {name}.csv)")
    return None


def load_tables(directory: Path) -> World:
    """Read and validate the schema tables from ``directory``; missing coauthorships are derived."""
    directory = Path(directory)
    t = {name: _read(directory, name) for name in ("authors", "publications", "authorships")}
    t["coauthorships"] = _read(directory, "coauthorships", required=False)
    if "alt_names" in t["authors"].columns:
        t["authors"]["alt_names"] = t["authors"]["alt_names"].map(_parse_list)
    if t["coauthorships"] is None:
        t["coauthorships"] = coauthorship_edges(t["authorships"])
    validate(t)
    return World(t["authors"], t["publications"], t["authorships"], t["coauthorships"],
                 meta={"synthetic": False, "source": str(directory)})


class _ExportReader:
    """CSV members of the reference tarball (first member whose path ends with /<name>) or a directory."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._tar = tarfile.open(self.path, "r:gz") if self.path.is_file() else None

    def read(self, name: str, required: bool = True) -> pd.DataFrame | None:
        if self._tar is None:
            p = self.path / name
            if p.is_file():
                return pd.read_csv(p)
        else:
            for m in self._tar.getmembers():
                if m.isfile() and m.name.endswith("/" + name):
                    return pd.read_csv(self._tar.extractfile(m))
        if required:
            raise SchemaError(f"ground truth export {self.path}: table {name!r} not found")
        return None


def _need(df: pd.DataFrame, table: str, cols: list[str]) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise SchemaError(f"ground truth export table {table!r}: missing column(s) {missing} (has {list(df.columns)})")


def load_reference_export(path: Path) -> World:
    """Map the LLMScholarBench APS/OpenAlex export (reference §4) onto the schema and validate it."""
    r = _ExportReader(path)
    a = r.read("authors.csv")
    _need(a, "authors.csv", ["id_author", "name", "works_count", "cited_by_count"])
    d = r.read("authors_demographics.csv")
    _need(d, "authors_demographics.csv", ["id_author", "longest_name", "first_name", "last_name",
                                          "alternative_names", "gender", "ethnicity"])
    p = r.read("publications.csv")
    _need(p, "publications.csv", ["id_publication", "doi", "publication_date"])
    s = r.read("authorships.csv")
    _need(s, "authorships.csv", ["id_publication", "id_author"])
    authorships = s[["id_publication", "id_author"]].drop_duplicates().rename(
        columns={"id_publication": "publication_id", "id_author": "author_id"})
    year = pd.to_datetime(p["publication_date"], errors="coerce").dt.year
    publications = pd.DataFrame({"publication_id": p["id_publication"], "doi": p["doi"].astype("string").str.lower(),
                                 "year": year.astype("Int64"),
                                 "cited_by_count": p.get("cited_by_count", pd.Series(np.nan, index=p.index))})
    pt, tp = r.read("publications_topic.csv", False), r.read("topics.csv", False)
    if pt is not None and tp is not None:
        _need(pt, "publications_topic.csv", ["id_publication", "id_topic"])
        _need(tp, "topics.csv", ["id_topic", "subfield_name"])
        sub = pt.merge(tp[["id_topic", "subfield_name"]], on="id_topic").groupby("id_publication")["subfield_name"] \
            .agg(lambda x: "; ".join(sorted(set(x.dropna()))))
        publications["subfield"] = publications["publication_id"].map(sub)
    dm = d.drop_duplicates("id_author").set_index("id_author")
    authors = pd.DataFrame({
        "author_id": a["id_author"].to_numpy(),
        "display_name": a["name"].to_numpy(),
        "works_count": a["works_count"].to_numpy(),
        "cited_by_count": a["cited_by_count"].to_numpy(),
    })
    for c in ("h_index", "i10_index"):
        if c in a.columns:
            authors[c] = a[c].to_numpy()
    ids = authors["author_id"]
    authors["longest_name"] = ids.map(dm["longest_name"]).fillna(authors["display_name"])
    authors["first_name"] = ids.map(dm["first_name"])
    authors["last_name"] = ids.map(dm["last_name"])
    authors["alt_names"] = ids.map(dm["alternative_names"]).map(_parse_list)
    authors["perceived_gender"] = ids.map(dm["gender"]).map(lambda g: _GENDER.get(g, "Unknown") if isinstance(g, str) else "Unknown")
    authors["perceived_ethnicity"] = ids.map(dm["ethnicity"]).map(lambda e: _ETHNICITY.get(e, "Unknown") if isinstance(e, str) else "Unknown")
    authors["prominence_pub"] = demo.prominence(authors["works_count"]).to_numpy()
    authors["prominence_cit"] = demo.prominence(authors["cited_by_count"]).to_numpy()
    pubs_years = publications.dropna(subset=["year"])
    careers = author_indicators(pubs_years.assign(cited_by_count=pubs_years["cited_by_count"].fillna(0)),
                                authorships[authorships["publication_id"].isin(pubs_years["publication_id"])])
    for c in ("career_start", "career_end", "career_age", "aps_works_count", "aps_cited_by_count"):
        authors[c] = ids.map(careers[c]).astype("Int64")
    co = r.read("coauthorships.csv", False)
    if co is not None:  # the reference allows duplicates and both directions: one row per pair
        _need(co, "coauthorships.csv", ["src", "dst"])
        lo, hi = np.minimum(co["src"], co["dst"]), np.maximum(co["src"], co["dst"])
        coauthorships = pd.DataFrame({"src": lo, "dst": hi})
        coauthorships = coauthorships[coauthorships["src"] != coauthorships["dst"]].drop_duplicates()
    else:
        coauthorships = coauthorship_edges(authorships)
    tables = {"authors": authors, "publications": publications, "authorships": authorships,
              "coauthorships": coauthorships}
    validate(tables)
    return World(**tables, meta={"synthetic": False, "source": str(path)})
