"""AttriBench construction end to end: universe → fame balancing → quote-level datasets.

Two sources feed the same steps: the released files (when downloaded and verified; see
:mod:`.download`) and the synthetic twin (the offline default; :mod:`.twin`). The twin
build is what later collection runs send to the panel; its outputs are synthetic.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lib.attribution import balance, dataset as ds, download, twin

KINDS: tuple[ds.DatasetKind, ...] = ("intersectional", "multirace")


@dataclass
class Build:
    """A constructed AttriBench: the universe, the balancing results per (kind, mode), the
    quote-level datasets and their 300-matching subsets (both from the faithful selected run)."""

    source: str                                   # "twin" or "released"
    universe: pd.DataFrame
    balanced: dict[tuple[str, str], balance.Balanced] = field(default_factory=dict)
    datasets: dict[str, pd.DataFrame] = field(default_factory=dict)
    subsets: dict[str, pd.DataFrame] = field(default_factory=dict)
    quotes: pd.DataFrame | None = None

    @property
    def synthetic(self) -> bool:
        return self.source == "twin"

    def both_datasets(self) -> dict[str, pd.DataFrame] | None:
        """The two quote-level datasets, or None unless both are there (Table 4, Figure 10)."""
        return self.datasets if set(self.datasets) == set(KINDS) else None


def balance_all(universe: pd.DataFrame, *, runs: int, seed: int, lam: float = 1.0,
                modes: tuple[str, ...] = ("faithful", "corrected")) -> dict[tuple[str, str], balance.Balanced]:
    """Algorithm 1 on both datasets under each search mode: {(kind, mode): Balanced}."""
    return {(k, m): balance.balance(universe, k, runs=runs, seed=seed, lam=lam, mode=m) for k in KINDS for m in modes}


def build_twin(n_authors: int, seed: int, *, runs: int = 100, lam: float = 1.0, n_matchings: int = 300,
               modes: tuple[str, ...] = ("faithful", "corrected")) -> Build:
    """The synthetic AttriBench: twin universe and quotes, balancing under ``modes``, and the
    datasets + ``n_matchings`` subsets of the first mode's selected run (faithful by default)."""
    universe = twin.make_universe(n_authors, seed)
    quotes = twin.make_quotes(universe, seed)
    b = Build("twin", universe, balance_all(universe, runs=runs, seed=seed, lam=lam, modes=modes), quotes=quotes)
    for kind in KINDS:
        df = twin.with_quotes(b.balanced[(kind, modes[0])].matched, universe, quotes, seed)
        b.datasets[kind] = df
        b.subsets[kind] = twin.random_matchings(df, n_matchings, seed)
    return b


def build_released(dest: Path | None = None, *, runs: int = 100, seed: int = 0, lam: float = 1.0,
                   modes: tuple[str, ...] = ("faithful", "corrected")) -> Build | None:
    """The released AttriBench if its files are downloaded (None otherwise): the universe re-balanced
    under ``modes`` (for Table 2 next to the paper's values) and the four released quote files
    as the datasets and subsets. Files are schema-validated on load."""
    have = download.available(dest)
    if "universe_authors.csv" not in have:
        return None
    universe = ds.load_universe(have["universe_authors.csv"])
    b = Build("released", universe, balance_all(universe, runs=runs, seed=seed, lam=lam, modes=modes))
    for kind in KINDS:
        full, sub = f"{kind}_with_quotes.csv", f"{kind}_with_quotes_random_300matchings.csv"
        if full in have:
            b.datasets[kind] = ds.load_quotes(have[full])
        if sub in have:
            b.subsets[kind] = ds.load_quotes(have[sub])
    return b


def save(build: Build, out_dir: Path) -> list[Path]:
    """Write the universe, datasets and subsets as parquet for the later notebooks' runs."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [out_dir / f"{build.source}_universe.parquet"]
    build.universe.to_parquet(files[0], index=False)
    for kind, df in build.datasets.items():
        files.append(out_dir / f"{build.source}_{kind}_with_quotes.parquet")
        df.to_parquet(files[-1], index=False)
    for kind, df in build.subsets.items():
        files.append(out_dir / f"{build.source}_{kind}_random_300matchings.parquet")
        df.to_parquet(files[-1], index=False)
    return files
