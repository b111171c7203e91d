"""What each notebook regenerates, from the registry and the shipped profiles' promises.

``python -m lib.status --markdown`` prints the README's "What is regenerated today" table: per
notebook, the artifacts the registry assigns to it and, per shipped profile (``params/*.yaml``),
how many of them it promises. A run fails when a promised artifact is missing, so a promise is
a checked statement, and the table cannot drift: ``tests/test_status.py`` compares it with the
README block between the ``status:begin`` / ``status:end`` markers.
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

import yaml

from lib import artifacts, config, paths

BEGIN, END = "<!-- status:begin (python -m lib.status --markdown) -->", "<!-- status:end -->"
_ID = re.compile(r"^[a-z]+-(?P<kind>tab|fig)(?P<app>[A-Z]?)(?P<num>\d+)$")
_KIND = {"tab": ("Table", "Tables"), "fig": ("Fig.", "Figs.")}


def shipped_promises(params_dir: Path | None = None) -> dict[str, set[str]]:
    """Profile name -> promised ids, for every ``params/*.yaml`` (read as YAML, not validated:
    the release profile needs downloads to validate)."""
    out = {}
    for path in sorted(Path(params_dir or paths.PARAMS).glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out[path.stem] = set(artifacts.promised(doc.get("promises", []), where=f"{path}: key 'promises'"))
    return out


def _numbers(nums: list[tuple[str, int]]) -> str:
    """[('', 1), ('', 2), ('', 3), ('A', 1)] -> '1–3, A.1' (runs of consecutive numbers joined)."""
    parts, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1][0] == nums[i][0] and nums[j + 1][1] == nums[j][1] + 1:
            j += 1
        fmt = (lambda a, n: f"{a}.{n}" if a else str(n))
        first, last = fmt(*nums[i]), fmt(*nums[j])
        parts.append(first if i == j else f"{first}–{last}" if j > i + 1 else f"{first}, {last}")
        i = j + 1
    return ", ".join(parts)


def labels(ids: Sequence[str]) -> str:
    """Paper-style names of artifact ids: 'Tables 1–23; Figs. 2, C.7–C.11; `lsb-quirks`'."""
    groups: dict[str, list[tuple[str, int]]] = {"tab": [], "fig": []}
    other = []
    for aid in ids:
        m = _ID.match(aid)
        if m:
            groups[m["kind"]].append((m["app"], int(m["num"])))
        else:
            other.append(f"`{aid}`")
    out = []
    for kind, nums in groups.items():
        if nums:
            nums = sorted(nums, key=lambda x: (x[0] != "", x))
            out.append(f"{_KIND[kind][len(nums) > 1]} {_numbers(nums)}")
    return "; ".join(out + other)


def table(params_dir: Path | None = None) -> str:
    """The status table in Markdown (one row per notebook, then the diagrams)."""
    profiles = shipped_promises(params_dir)
    rows = ["| notebook | paper | artifacts it regenerates (registry) | promised by the shipped profiles |",
            "|---|---|---|---|"]
    for nb in config.NOTEBOOK_NAMES:
        arts = artifacts.by_notebook(nb)
        ids = [a.id for a in arts]
        papers = ", ".join(dict.fromkeys(a.paper for a in arts))
        kept = ", ".join(f"{name} {len(set(ids) & p)}/{len(ids)}" for name, p in profiles.items() if set(ids) & p) or "–"
        rows.append(f"| {nb} | {papers} | {labels(ids)} ({len(ids)}) | {kept} |")
    diagrams = [a.id for a in artifacts.REGISTRY.values() if a.notebook is None]
    rows.append(f"| – | diagrams | {', '.join(f'`{d}`' for d in diagrams)} ({len(diagrams)}) | not-data: no file expected |")
    return "\n".join(rows)


def readme_block(text: str) -> str:
    """The README text between the status markers (ValueError naming them when absent)."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"README.md: markers {BEGIN!r} and {END!r} not found")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.status", description=__doc__.split("\n\n")[0])
    ap.add_argument("--markdown", action="store_true", help="print the README table (the only format)")
    ap.parse_args(argv)
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
