"""Merge the companion's JupyterLab default-setting overrides into an environment's labconfig file.

Usage: python scripts/jupyter/install_overrides.py SOURCE.json TARGET.json
Keys of SOURCE replace the same keys of TARGET (created if absent); other settings are kept, so
other packages' overrides survive. Writes nothing when TARGET already holds them (idempotent).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def install(source: Path, target: Path) -> bool:
    """Merge ``source`` into ``target``; True if ``target`` changed."""
    extra = json.loads(source.read_text(encoding="utf-8"))
    try:
        base = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{target}: not valid JSON ({exc}); fix or remove it") from None
    merged = merge(base, extra)
    if merged == base:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    return True


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    install(Path(sys.argv[1]), Path(sys.argv[2]))
