"""The intermediate files notebooks hand each other, in ``outputs/data/<notebook>/``, read and written
only as the notebook's declaration (:class:`lib.declare.Notebook`) says.

A notebook opens its :class:`Stage` once; :meth:`Stage.write` accepts only a file the notebook
declares in ``writes`` or ``may_write`` and writes it atomically (a temporary file, then a rename,
so a crash never leaves half a table for the next notebook); :meth:`Stage.read` accepts only a
``'<notebook>/<file>'`` of its ``reads``. The folders come from :func:`lib.paths.stage_dir`, the
declarations from :mod:`lib.registry`. After a run, :func:`undeclared` and :func:`missing_writes`
compare the folder with the declaration (for the runner).
"""
from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

import pandas as pd

from lib import paths, registry


class UndeclaredFile(ValueError):
    """A notebook read or wrote an intermediate file its declaration does not name."""


def _declaration(notebook: str):
    known = registry.notebooks()
    if notebook not in known:
        raise ValueError(f"stage: no notebook {notebook!r} is declared; expected one of {sorted(known)}")
    return known[notebook]


def _declares(patterns, file: str) -> bool:
    return any(fnmatchcase(file, p) for p in patterns)


@dataclass(frozen=True)
class Stage:
    """The data folder of ``notebook`` and the files its declaration lets it read and write."""

    notebook: str

    def __post_init__(self):
        _declaration(self.notebook)

    @property
    def dir(self) -> Path:
        return paths.stage_dir(self.notebook)

    def path(self, file: str) -> Path:
        """Where the declared output ``file`` goes; UndeclaredFile for a file not declared."""
        nb = _declaration(self.notebook)
        if "/" in file or not _declares((*nb.writes, *nb.may_write), file):
            raise UndeclaredFile(f"{self.notebook}: writes {file!r}, which its declaration (lib/<paper>/paper.py) "
                                 f"does not name; declared writes {list(nb.writes)}, may_write {list(nb.may_write)}")
        return self.dir / file

    def write(self, frame: pd.DataFrame, file: str, *, index: bool = False) -> Path:
        """Write ``frame`` as ``file`` (``.parquet`` or ``.csv``, with its index when ``index``),
        atomically; returns the path."""
        path = self.path(file)
        kind = Path(file).suffix
        if kind not in (".parquet", ".csv"):
            raise ValueError(f"{self.notebook}: {file}: expected a .parquet or .csv file name")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        if kind == ".parquet":
            frame.to_parquet(tmp, index=index)
        else:
            frame.to_csv(tmp, index=index)
        tmp.replace(path)
        return path

    def upstream_path(self, ref: str) -> Path:
        """The path of ``ref`` (``'<notebook>/<file>'``), which must be one of the declared ``reads``;
        FileNotFoundError naming the notebook to run when the file is not there."""
        nb = _declaration(self.notebook)
        if ref not in nb.reads:
            raise UndeclaredFile(f"{self.notebook}: reads {ref!r}, which its declaration (lib/<paper>/paper.py) "
                                 f"does not name; declared reads {list(nb.reads)}")
        source, file = ref.split("/", 1)
        path = paths.stage_dir(source) / file
        if not path.is_file():
            raise FileNotFoundError(f"{path}: {self.notebook} reads {ref}; run notebook {source[:2]} first")
        return path

    def read(self, ref: str) -> pd.DataFrame:
        """The declared upstream table ``ref`` (``'<notebook>/<file>'``, parquet or csv)."""
        path = self.upstream_path(ref)
        return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def _present(notebook: str) -> list[str]:
    d = paths.stage_dir(notebook)
    return sorted(p.name for p in d.iterdir() if not p.name.startswith(".")) if d.is_dir() else []


def undeclared(notebook: str) -> list[str]:
    """Files in ``notebook``'s data folder that its declaration names neither in ``writes`` nor in
    ``may_write`` (hidden temporary files aside), sorted."""
    nb = _declaration(notebook)
    return [f for f in _present(notebook) if not _declares((*nb.writes, *nb.may_write), f)]


def missing_writes(notebook: str) -> list[str]:
    """The entries of ``notebook``'s ``writes`` that no file of its data folder matches."""
    present = _present(notebook)
    return [w for w in _declaration(notebook).writes if not any(fnmatchcase(f, w) for f in present)]
