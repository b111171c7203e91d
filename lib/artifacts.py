"""The registry of paper artifacts and the only functions that write them.

Every figure and table of the three papers is declared once, by its paper (``lib/<paper>/paper.py``),
under the id of ``shared/spec/artifacts.md`` (e.g. ``lsb-fig2``, ``ab-tab5``, ``at-fig4``), with its
kind, caption and producing notebook; :data:`REGISTRY` is derived from the declarations. Notebooks
save through :func:`save_figure`, :func:`save_table` and :func:`save_text`; each call writes the
files atomically and a small JSON record that the runner merges into ``outputs/manifest.json``.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Literal

from lib import paths, registry
from lib.declare import Artifact, Kind

SYNTHETIC_NOTE = "Synthetic data (embedded default): shows the pipeline at work, not the paper's findings."
MIXED_NOTE = ("Mixed data (declared synthetic: mixed): a real endpoint's answers on synthetic inputs; "
              "not the paper's findings.")
#: label -> the note on a figure and the caption suffix of a table (real data carry neither)
NOTES = {"synthetic": (SYNTHETIC_NOTE, " (synthetic data)"), "mixed": (MIXED_NOTE, " (mixed data: real answers, synthetic inputs)")}
#: label -> the words a figure's title adds (for figures whose title names the data)
TITLE_NOTES = {"synthetic": " — SYNTHETIC data (embedded panel), not the paper's findings",
               "mixed": " — MIXED data (a real endpoint on synthetic inputs), not the paper's findings"}
Synthetic = bool | Literal["mixed"]


def data_label(synthetic: Synthetic) -> str:
    """'synthetic', 'mixed' or 'real' from a ``synthetic`` flag (a profile's ``synthetic`` value passes through)."""
    if isinstance(synthetic, str) and synthetic != "mixed":
        raise ValueError(f"synthetic must be True, False or 'mixed', got {synthetic!r}")
    return "mixed" if synthetic == "mixed" else "synthetic" if synthetic else "real"


def __getattr__(name: str):
    """``REGISTRY`` (artifact id -> :class:`Artifact`) and ``PAPERS`` (key -> title), derived from the
    papers' declarations (``lib/<paper>/paper.py``, :mod:`lib.registry`) on first use."""
    if name == "REGISTRY":
        return registry.artifacts()
    if name == "PAPERS":
        return {key: decl.title for key, decl in registry.papers().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get(artifact_id: str) -> Artifact:
    """The registered artifact, or a KeyError that suggests the closest ids."""
    known = registry.artifacts()
    try:
        return known[artifact_id]
    except KeyError:
        close = difflib.get_close_matches(artifact_id, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"unknown artifact id {artifact_id!r}{hint} (declared in lib/<paper>/paper.py)") from None


def promised(promises, *, where: str = "promises") -> list[str]:
    """The artifact ids a profile's ``promises`` value names (``"all"``: every data artifact)."""
    if promises == "all":
        return [a.id for a in registry.artifacts().values() if a.notebook]
    if not isinstance(promises, list):
        raise ValueError(f"{where}: expected 'all' or a list of artifact ids, got {promises!r}")
    return list(promises)


def by_notebook(notebook: str) -> list[Artifact]:
    """Artifacts that ``notebook`` (e.g. ``'03_infrastructure_benchmark'``) must produce."""
    return [a for a in registry.artifacts().values() if a.notebook == notebook]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write(path: Path, write) -> None:
    """Write through a temporary file in the same folder, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; outputs are meant to be shared
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _check_producer(artifact: Artifact, kind: Kind) -> None:
    if artifact.kind != kind:
        raise ValueError(f"{artifact.id} is registered as a {artifact.kind}, not a {kind}")
    running = os.environ.get("COMPANION_NOTEBOOK")
    if running and artifact.notebook != running:
        raise ValueError(f"{artifact.id} is produced by notebook {artifact.notebook}, not by {running}")


def _record(artifact: Artifact, files: list[Path], synthetic: Synthetic, started: float) -> dict:
    rec = {
        "id": artifact.id,
        "files": [str(p.relative_to(paths.OUTPUTS)) for p in files],
        "sha256": {str(p.relative_to(paths.OUTPUTS)): sha256_file(p) for p in files},
        "synthetic": bool(synthetic),       # mixed outputs hold synthetic inputs too
        "label": data_label(synthetic),
        "notebook": os.environ.get("COMPANION_NOTEBOOK", "interactive"),
        "profile": os.environ.get("COMPANION_PROFILE", "interactive"),
        "run_id": os.environ.get("COMPANION_RUN_ID", ""),
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "save_seconds": round(time.perf_counter() - started, 3),
    }
    out = paths.RECORDS / f"{artifact.id}.json"
    atomic_write(out, lambda p: p.write_text(json.dumps(rec, indent=1)))
    return rec


def _not_made(artifact: Artifact) -> list[Path]:
    print(f"{artifact.id}: not made by this run (its inputs are absent); the manifest reports it missing")
    return []


def _tight_box(fig):
    """The box ``bbox_inches="tight"`` would crop to (inches, savefig's padding), measured once for
    both formats: "tight" lays the whole figure out again for each file, most of a save's time."""
    import matplotlib      # loaded already (fig is a matplotlib Figure); not at this module's load

    fig.draw_without_rendering()           # runs the figure's layout engine, as savefig's own pre-draw
    return fig.get_tightbbox().padded(matplotlib.rcParams["savefig.pad_inches"])


def _footer(fig, note: str) -> None:
    """``note`` right-aligned under everything ``fig`` draws, legends below the axes included (the
    saved file's tight bounding box grows to take it), so it never prints over a legend."""
    for lg in fig.legends:
        # a figure legend sits on the figure's edge, which the tight box would move down onto the
        # note: pin it to the figure's rectangle as drawn
        lg.set_bbox_to_anchor((0, 0, 1, 1), transform=fig.transFigure)
    box = fig.get_tightbbox()                       # inches, from a draw without output
    w, h = fig.get_size_inches()
    fig.text(box.x1 / w, (box.y0 - 0.03) / h, note, ha="right", va="top", fontsize=6, color="#a33", alpha=0.9)


def save_figure(fig, artifact_id: str, *, synthetic: Synthetic, dpi: int = 150) -> list[Path]:
    """Write ``fig`` as ``outputs/figures/<id>.pdf`` and ``.png``; label it when synthetic or mixed.
    ``fig`` None (this run cannot draw it, e.g. no model replies): nothing is written, and the
    manifest reports the artifact missing."""
    started = time.perf_counter()
    artifact = get(artifact_id)
    _check_producer(artifact, "figure")
    if fig is None:
        return _not_made(artifact)
    if (label := data_label(synthetic)) in NOTES:
        _footer(fig, NOTES[label][0])
    files = [paths.FIGURES / f"{artifact.id}.pdf", paths.FIGURES / f"{artifact.id}.png"]
    box = _tight_box(fig)
    for f in files:
        atomic_write(f, lambda p, f=f: fig.savefig(p, format=f.suffix[1:], dpi=dpi, bbox_inches=box))
    _record(artifact, files, synthetic, started)
    return files


def save_table(df, artifact_id: str, *, synthetic: Synthetic, index: bool = False, float_format: str = "%.3f") -> list[Path]:
    """Write ``df`` as ``outputs/tables/<id>.csv`` and a booktabs ``.tex`` table with the caption
    (``df`` None: not made by this run, as for :func:`save_figure`)."""
    started = time.perf_counter()
    artifact = get(artifact_id)
    _check_producer(artifact, "table")
    if df is None:
        return _not_made(artifact)
    if len(df) == 0:
        raise ValueError(f"{artifact.id}: refusing to save an empty table")
    caption = artifact.caption + NOTES.get(data_label(synthetic), ("", ""))[1]
    csv, tex = paths.TABLES / f"{artifact.id}.csv", paths.TABLES / f"{artifact.id}.tex"
    atomic_write(csv, lambda p: df.to_csv(p, index=index))
    latex = df.to_latex(index=index, float_format=lambda v: float_format % v, caption=caption,
                        label=f"tab:{artifact.id}", escape=True)
    atomic_write(tex, lambda p: p.write_text(latex))
    _record(artifact, [csv, tex], synthetic, started)
    _SAVED_TABLES[artifact.id] = df.copy()
    return [csv, tex]


#: Tables saved by this process (a notebook's kernel), by id: what ``saved_tables`` returns.
_SAVED_TABLES: dict[str, object] = {}


def saved_tables(prefix: str = "") -> dict:
    """The DataFrames this process saved with :func:`save_table` whose id starts with ``prefix``
    (e.g. 'ab-'), so a comparison never reads a stale CSV left by an earlier run."""
    return {k: v for k, v in _SAVED_TABLES.items() if k.startswith(prefix)}


def save_text(text: str, artifact_id: str, *, synthetic: Synthetic = False) -> list[Path]:
    """Write a text artifact (rendered prompts, instruction variants) as ``outputs/texts/<id>.txt``."""
    started = time.perf_counter()
    artifact = get(artifact_id)
    _check_producer(artifact, "text")
    out = paths.TEXTS / f"{artifact.id}.txt"
    atomic_write(out, lambda p: p.write_text(text))
    _record(artifact, [out], synthetic, started)
    return [out]


def as_dict(artifact: Artifact) -> dict:
    return asdict(artifact)
