"""Every directory the companion reads or writes, resolved once from the repository root.

Notebooks, scripts and tests import paths from here; nothing else builds paths from
string literals or from the process working directory.
"""
from __future__ import annotations

import os
from pathlib import Path


def find_root(start: Path | None = None) -> Path:
    """Walk up from ``start`` to the folder holding ``pyproject.toml`` and ``lib/``."""
    here = (start or Path(__file__)).resolve()
    for candidate in [here, *here.parents]:
        if (candidate / "pyproject.toml").is_file() and (candidate / "lib").is_dir():
            return candidate
    raise RuntimeError(f"cannot find the project root above {here} (no pyproject.toml beside lib/)")


# Repository root (the folder with README.md, run_all.sh and lib/)
ROOT = find_root()
# Installed library and the small reference files shipped inside it
LIB = ROOT / "lib"
RESOURCES = LIB / "resources"
# Jupytext percent sources of the six notebooks (COMPANION_NOTEBOOKS points the runner elsewhere, for tests)
NOTEBOOKS = Path(os.environ.get("COMPANION_NOTEBOOKS", ROOT / "notebooks")).resolve()
# Run profiles (quick.yaml, paper.yaml, real.example.yaml)
PARAMS = ROOT / "params"
# Test fixtures and golden files
TEST_DATA = ROOT / "tests" / "data"
# Everything regenerated; COMPANION_OUTPUTS lets tests and users redirect it
OUTPUTS = Path(os.environ.get("COMPANION_OUTPUTS", ROOT / "outputs")).resolve()
FIGURES = OUTPUTS / "figures"      # PDF + PNG per figure artifact
TABLES = OUTPUTS / "tables"        # CSV + booktabs LaTeX per table artifact
TEXTS = OUTPUTS / "texts"          # text artifacts (rendered prompts, instruction variants)
EXECUTED = OUTPUTS / "executed"    # executed notebooks, kept on failure too
DATA = OUTPUTS / "data"            # intermediate parquet passed between notebooks
RAW = OUTPUTS / "raw"              # append-only raw response store (JSONL shards + index)
LOGS = OUTPUTS / "logs"            # runner and panel logs, secrets scrubbed
STATE = OUTPUTS / "state"          # per-notebook input hashes for skip-if-unchanged
RECORDS = OUTPUTS / "records"      # per-artifact save records, merged into the manifest
MANIFEST = OUTPUTS / "manifest.json"
CLAIMS = OUTPUTS / "claims.md"
INDEX_HTML = OUTPUTS / "index.html"
# Caches that survive `outputs/` being wiped (synthetic world, embeddings); COMPANION_CACHE overrides
CACHE = Path(os.environ.get("COMPANION_CACHE", ROOT / ".cache")).resolve()
# Downloaded real data (AttriBench release files, LLMScholarBench release), never committed
DOWNLOADS = Path(os.environ.get("COMPANION_DOWNLOADS", ROOT / "downloads")).resolve()


def ensure(*dirs: Path) -> None:
    """Create output directories on demand (never at import time)."""
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)


def stage_dir(notebook: str) -> Path:
    """The folder where ``notebook`` (e.g. "01_calibration") writes the intermediate data that
    later notebooks read: ``DATA/<notebook>``. ValueError if no such notebook exists, so a typo
    cannot send a notebook to an empty folder."""
    if not (NOTEBOOKS / f"{notebook}.py").is_file():
        known = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.py"))
        raise ValueError(f"stage_dir: no notebook {notebook!r} in {NOTEBOOKS}; expected one of {known}")
    return DATA / notebook


def unusable_folders(folders: dict[str, Path]) -> list[str]:
    """Why each folder (name -> path) cannot be written ([] when all can): it must be a folder, or
    creatable as one, that this process can write. One message per folder, naming it and the path."""
    errs = []
    for name, p in folders.items():
        p = Path(p)
        existing = next((q for q in (p, *p.parents) if q.exists()), None)
        if existing is None:
            continue
        if not existing.is_dir():
            what = "is a file" if existing == p else f"cannot be created: {existing} is a file"
            errs.append(f"{name}: {p} {what}; expected a folder")
        elif not os.access(existing, os.W_OK | os.X_OK):
            what = "is read-only" if existing == p else f"cannot be created: {existing} is read-only"
            errs.append(f"{name}: {p} {what}; expected a folder this user can write")
        elif existing == p:
            probe = p / f".write-probe-{os.getpid()}"
            try:
                probe.write_bytes(b"")
                probe.unlink()
            except OSError as exc:
                errs.append(f"{name}: {p} is not writable ({exc.strerror}); expected a folder this user can write")
    return errs
