"""A profile's own models (``models.<paper>`` of :class:`lib.config.Profile`): reading the CSV.

Each paper's ``models`` module declares its table's columns as :class:`Column` (required ones,
the allowed values of the grouping attributes, defaults of the optional ones) and calls
:func:`read`; this module knows no paper. Every problem of a file is reported at once, each naming
the file, the row (as a spreadsheet shows it: the header is row 1), the field and what was expected.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class Column:
    """One column of a user model table."""

    name: str
    allowed: tuple[str, ...] | None = None   # the values the paper's figures group by (None: any text)
    default: str | None = None               # None: required; else the value of an absent column or empty cell
    number: bool = False                     # must parse as a float
    doc: str = ""


class ModelTableError(ValueError):
    """A user model table that cannot be used; the message lists every problem."""


def describe(columns: Sequence[Column]) -> str:
    """'required: a, b; optional (default): c ('x')' for messages and docstrings."""
    req = [c.name for c in columns if c.default is None]
    opt = [f"{c.name} ({c.default!r})" for c in columns if c.default is not None]
    return f"required: {', '.join(req)}; optional (default): {', '.join(opt) or 'none'}"


def read(path: Path | str, columns: Sequence[Column], *, key: str, builtin: Sequence[str] = (),
         mode: str = "add", builtin_file: str = "the paper's table") -> pd.DataFrame:
    """The rows of ``path`` as strings, one column per :class:`Column` (defaults filled in).

    ``key`` names the identifying column; its values must be unique in the file and, with
    ``mode="add"``, not among ``builtin`` (the paper's own keys). Raises :class:`ModelTableError`
    listing every problem: a missing column, an empty required cell, a value outside ``allowed``,
    a non-number, a duplicate key.
    """
    path = Path(path)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ModelTableError(f"{path}: not a readable CSV ({exc})") from None
    raw.columns = [str(c).strip() for c in raw.columns]
    names = [c.name for c in columns]
    missing = [c.name for c in columns if c.default is None and c.name not in raw.columns]
    unknown = [c for c in raw.columns if c not in names]
    errs = []
    if missing:
        errs.append(f"{path}: missing column(s) {missing}; {describe(columns)}")
    if unknown:
        errs.append(f"{path}: unknown column(s) {unknown}; {describe(columns)}")
    if errs:
        raise ModelTableError("\n".join(errs))
    if raw.empty:
        raise ModelTableError(f"{path}: no rows; expected one model per row ({describe(columns)})")
    out = {}
    for c in columns:
        values = raw[c.name].str.strip() if c.name in raw.columns else pd.Series([""] * len(raw))
        out[c.name] = values.where(values != "", c.default if c.default is not None else "").tolist()
    table = pd.DataFrame(out)
    seen: dict[str, int] = {}
    for i, row in table.iterrows():
        where = f"{path} row {i + 2}" + (f" ({row[key]})" if row[key] else "")
        for c in columns:
            v = row[c.name]
            if c.default is None and v == "":
                errs.append(f"{where}: field {c.name} is empty; expected {c.doc or 'a value'}")
            elif c.allowed is not None and v not in c.allowed:
                errs.append(f"{where}: field {c.name} expects one of {list(c.allowed)}, got {v!r}")
            elif c.number:
                try:
                    float(v)
                except ValueError:
                    errs.append(f"{where}: field {c.name} expects a number, got {v!r}")
        k = row[key]
        if k in seen:
            errs.append(f"{where}: field {key}: duplicate {k!r} (also row {seen[k]})")
        elif mode == "add" and k in set(builtin):
            errs.append(f"{where}: field {key}: {k!r} is already a model of {builtin_file}; give it another "
                        f"{key}, or use mode: replace to audit only the file's models")
        seen.setdefault(k, i + 2)
    if errs:
        raise ModelTableError("\n".join(errs))
    return table


def profile_errors(prof, where: str, paper: str, load) -> list[str]:
    """``load(prof)``'s problems as profile messages (``[]`` when ``models.<paper>`` is unset, its
    file is missing (lib.config reports that) or the table loads)."""
    path = prof.models_path(paper)
    if path is None or not path.is_file():
        return []
    try:
        load(prof)
    except ModelTableError as exc:
        return [f"{where}: key 'models.{paper}.file': {line}" for line in str(exc).splitlines()]
    return []


def loaded(prof, load):
    """``load(prof)``, or None when it cannot load (:func:`profile_errors` reports why)."""
    try:
        return load(prof)
    except ModelTableError:
        return None
