"""Benchmark: name matching of recommended names against the paper-size synthetic world.

Matches ``--n-names`` recommended names (real, perturbed and invented; ``lib.scholar.perturb``)
against a ``--n-authors`` world with the fast matcher (faithful and corrected rules), then runs a
``--ref-sample`` subsample through the plain recordlinkage implementation of the faithful rule in
the same process and compares decisions. Prints one ``name: value unit`` line per figure,
the headline (fast names/s) last.

Agreement (DESIGN §8): over the reference sample, the share of distinct names where both make the
same decision (match / no match) and, when they match, the fast author is among the reference's
best-scoring candidates (tied homonyms are the same decision).

    .venv/bin/python benchmarks/matching.py [--n-authors 480000] [--n-names 100000] [--seed 0]
"""
from __future__ import annotations

import argparse
import logging
import resource
import time

import numpy as np
import pandas as pd

from lib.groundtruth.world import load_world
from lib.scholar import matching as M
from lib.scholar.perturb import recommendation_sample


def _line(name: str, value, unit: str = "") -> None:
    print(f"{name}: {value} {unit}".rstrip(), flush=True)


def quality(res: pd.DataFrame, truth: pd.DataFrame, world_names: pd.Series) -> dict:
    """Recall per kind, false matches of invented names, precision and the factuality inflation."""
    df = pd.concat([truth.reset_index(drop=True), res[["author_id", "matched"]].reset_index(drop=True)], axis=1)
    real = df["kind"] != "invented"
    src_name = df["source_author_id"].map(world_names)
    got_name = df["author_id"].map(world_names)
    same_person = df["matched"] & real & ((df["author_id"] == df["source_author_id"]).fillna(False) | (src_name == got_name))
    tp = int((df["matched"] & real).sum())
    fp = int((df["matched"] & ~real).sum())
    return {
        "recall real": 100 * df.loc[df["kind"] == "real", "matched"].mean(),
        "recall perturbed": 100 * df.loc[df["kind"] == "perturbed", "matched"].mean(),
        "false matches invented": 100 * df.loc[df["kind"] == "invented", "matched"].mean(),
        "false matches invented (census given name + surname)": 100 * df.loc[df["how"] == "census combination", "matched"].mean(),
        "false matches invented (fantasy)": 100 * df.loc[df["how"] == "fantasy", "matched"].mean(),
        "precision": 100 * tp / max(tp + fp, 1),
        "same person among matches": 100 * same_person.sum() / max(tp, 1),
        # factuality of the whole sample as the benchmark would report it, minus the true share
        "factuality inflation": 100 * (df["matched"].mean() - (df["matched"] & real).mean()),
        "factuality measured": 100 * df["matched"].mean(),
        "factuality true": 100 * real.mean(),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-authors", type=int, default=480_000)
    ap.add_argument("--n-names", type=int, default=100_000)
    ap.add_argument("--ref-sample", type=int, default=2_000)
    ap.add_argument("--cache-dir", default=None)
    args = ap.parse_args(argv)
    logging.getLogger("recordlinkage").setLevel(logging.WARNING)

    t0 = time.perf_counter()
    world = load_world(args.seed, args.n_authors, cache_dir=args.cache_dir)
    _line("world authors", len(world.authors))
    _line("world load or build", f"{time.perf_counter() - t0:.1f}", "s")
    truth = recommendation_sample(world.authors, args.n_names, seed=args.seed + 1)
    _line("recommended names", len(truth))
    _line("distinct normalised names", truth["name"].map(M.normalize_name).nunique())
    world_names = world.authors.set_index("author_id")["display_name"].map(M.normalize_name)

    results = {}
    for mode in ("faithful", "corrected"):
        t = time.perf_counter()
        index = M.NameIndex.build(world.authors, mode)
        _line(f"{mode} index build", f"{time.perf_counter() - t:.1f}", "s")
        c, t = time.process_time(), time.perf_counter()
        res = M.match_names(truth["name"], index)
        cpu, wall = time.process_time() - c, time.perf_counter() - t
        results[mode] = (res, len(truth) / cpu, len(truth) / wall)
        for k, v in quality(res, truth, world_names).items():
            _line(f"{mode} {k}", f"{v:.1f}", "%")
        _line(f"{mode} names/s (wall)", f"{len(truth) / wall:.0f}", "names/s")

    rng = np.random.default_rng(args.seed)
    sample = truth["name"].iloc[rng.choice(len(truth), size=min(args.ref_sample, len(truth)), replace=False)]
    c = time.process_time()
    ref = M.match_names_recordlinkage(sample, world.authors)
    ref_rate = len(sample) / (time.process_time() - c)
    fast = M.match_names(sample, M.NameIndex.build(world.authors, "faithful")).drop_duplicates("clean_name")
    both = fast.merge(ref, on="clean_name", suffixes=("", "_ref"))
    same = both["matched"] == both["author_id_ref"].notna()
    same &= ~both["matched"] | both.apply(lambda r: (not r["matched"]) or r["author_id"] in r["best_ids"], axis=1)
    fast_rate = results["faithful"][1]
    _line("reference (recordlinkage) names/s", f"{ref_rate:.1f}", "names/s")
    _line("speed ratio", f"{fast_rate / ref_rate:.0f}", "x")
    _line("agreement", f"{100 * same.mean():.2f}", "%")
    _line("agreement sample (distinct names)", len(both))
    _line("peak memory", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}", "MB")
    _line("names/s", f"{fast_rate:.0f}", "names/s")


if __name__ == "__main__":
    main()
