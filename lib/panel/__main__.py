"""CLI: ``python -m lib.panel serve --port N --seed S`` / ``python -m lib.panel truth --seed S``.

The world comes from :func:`lib.groundtruth.world.load_world` (``--n-authors``, default the
quick profile's size), from a folder written by ``save_world`` (``--world-dir``), from an authors
parquet (``--authors``), or is left out (``--no-world``: enough for the authority and AttriBench
prompts); ``--quotes`` is an AttriBench quote table (parquet or CSV with quote,
author|author_clean, race, gender, log10_hits). ``serve --parent-pid P`` stops the server when
process P is gone (the notebooks start it this way, :func:`lib.endpoints.open_endpoint`).
``--own-models PAPER=CSV`` (repeatable; PAPER llmscholarbench, authority_bias or attribution_bias)
serves a profile's own models too, rows of that paper's resource file: their latent parameters
come from the paper's models sharing their attributes (:mod:`lib.panel.profiles`), also in ``truth``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import pandas as pd

from lib.panel.core import Panel
from lib.panel.faults import FaultConfig


def _default_n_authors() -> int:
    from lib import config
    return int(config.load_profile("quick").world.n_authors)


def _own_models(specs) -> dict[str, pd.DataFrame] | None:
    """``--own-models PAPER=CSV`` (repeatable) as paper -> rows; None when not given."""
    if not specs:
        return None
    out = {}
    for spec in specs:
        paper, _, path = spec.partition("=")
        out[paper] = pd.read_csv(path, dtype=str, keep_default_na=False)
    return out


def build_panel(args) -> Panel:
    kw = {"quotes": args.quotes, "faults": FaultConfig.parse(getattr(args, "faults", None)),
          "own_models": _own_models(getattr(args, "own_models", None))}
    if args.no_world:
        return Panel(args.seed, **kw)
    if args.world_dir:
        from lib.groundtruth.world import read_world
        return Panel.from_world(read_world(args.world_dir), args.seed, **kw)
    if args.authors:
        authors = pd.read_parquet(args.authors)
        return Panel(args.seed, authors, **kw)
    from lib.groundtruth.world import load_world
    n = args.n_authors or _default_n_authors()
    world = load_world(args.seed, n)
    return Panel.from_world(world, args.seed, **kw)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.panel", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("serve", "truth"):
        p = sub.add_parser(name)
        p.add_argument("--seed", type=int, required=True)
        p.add_argument("--n-authors", type=int, default=None, help="world size (default: quick profile)")
        src = p.add_mutually_exclusive_group()
        src.add_argument("--authors", default=None, help="authors parquet instead of the synthetic world")
        src.add_argument("--world-dir", default=None, help="a world folder written by lib.groundtruth.world.save_world")
        src.add_argument("--no-world", action="store_true", help="no ground truth (authority and AttriBench prompts only)")
        p.add_argument("--quotes", default=None, help="AttriBench quote table (parquet or CSV)")
        p.add_argument("--own-models", action="append", default=None, metavar="PAPER=CSV",
                       help="a profile's own models of PAPER (llmscholarbench, authority_bias, attribution_bias), "
                            "rows of the paper's resource file; repeatable")
        if name == "serve":
            p.add_argument("--port", type=int, default=0, help="0 picks a free port")
            p.add_argument("--faults", default=None, help='e.g. "429=0.02,500=0.01,stall=0.005,stall_s=5"')
            p.add_argument("--parent-pid", type=int, default=None, help="stop when this process is gone")
        else:
            p.add_argument("--out", default=None, help="write the JSON here instead of stdout")
    args = ap.parse_args(argv)
    if args.command == "serve":
        if not 0 <= args.port <= 65535:
            ap.error(f"--port: expected 0 (a free port) to 65535, got {args.port}")
        try:
            FaultConfig.parse(args.faults)
        except ValueError as exc:
            ap.error(f"--faults: {exc}")
    for opt in ("world_dir", "authors", "quotes"):
        value = getattr(args, opt, None)
        if value is not None and not os.path.exists(value):
            ap.error(f"--{opt.replace('_', '-')}: {value} does not exist")
    for spec in args.own_models or []:
        paper, sep, path = spec.partition("=")
        if not sep or paper not in ("llmscholarbench", "authority_bias", "attribution_bias"):
            ap.error(f"--own-models: expected PAPER=CSV with PAPER one of llmscholarbench, authority_bias, "
                     f"attribution_bias, got {spec!r}")
        if not os.path.exists(path):
            ap.error(f"--own-models: {path} does not exist")
    if args.n_authors is not None and args.n_authors < 1:
        ap.error(f"--n-authors: expected a positive number of authors, got {args.n_authors}")
    panel = build_panel(args)
    if args.command == "serve":
        from lib.panel.server import serve_forever
        try:
            serve_forever(panel, args.port, parent_pid=args.parent_pid)
        except OSError as exc:                      # the port is taken or not ours to bind
            print(f"python -m lib.panel serve: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        return 0
    from lib.panel.expected import truth
    text = json.dumps(truth(args.seed, panel=panel), indent=1, ensure_ascii=False)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
