"""The claims ledger: each headline claim of the papers, checked on the regenerated data.

A claim is a sentence from a paper ("higher temperature lowers validity", "39.2% of
recommendations flip") with a check: a function of the regenerated aggregates that returns a
:class:`Verdict` (``held`` / ``not held`` / ``not applicable``) and the numbers behind it. A
notebook checks its claims with :func:`check`, which writes one JSON record per claim under
``outputs/records/claims/``; the runner gathers them into ``outputs/claims.md``.

On the embedded synthetic default a claim that *holds* shows that the pipeline reproduces the
paper's qualitative result on a panel calibrated to the published aggregates, not that the
claim is true of real LLMs; ``claims.md`` says so at the top and on every synthetic row.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Literal

from lib import artifacts, paths

Status = Literal["held", "not held", "not applicable"]
STATUSES = ("held", "not held", "not applicable")


@dataclass(frozen=True)
class Claim:
    """One claim: ``id`` is unique (e.g. ``lsb-temp-validity``), ``where`` cites the paper's section."""

    id: str
    paper: str
    where: str
    statement: str


@dataclass
class Verdict:
    status: Status
    numbers: dict = field(default_factory=dict)
    detail: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"verdict status must be one of {STATUSES}, got {self.status!r}")


def verdict(condition: bool, numbers: dict, detail: str = "") -> Verdict:
    """``held`` when ``condition`` is true, else ``not held``; numbers are rounded for the report."""
    return Verdict("held" if condition else "not held", numbers, detail)


def _dir():
    return paths.RECORDS / "claims"


def check(claim: Claim, fn: Callable[..., Verdict], *args, synthetic: bool, **kwargs) -> Verdict:
    """Run ``fn(*args, **kwargs)``, record the verdict for ``claim`` and return it.

    A check that raises is recorded as ``not applicable`` with the error, so a missing input
    never passes for a held claim and never stops the notebook.
    """
    if claim.paper not in artifacts.PAPERS:
        raise ValueError(f"claim {claim.id}: unknown paper {claim.paper!r}; expected one of {list(artifacts.PAPERS)}")
    try:
        v = fn(*args, **kwargs)
        if not isinstance(v, Verdict):
            raise TypeError(f"check for {claim.id} returned {type(v).__name__}, expected Verdict")
    except Exception as exc:  # recorded, not hidden: the row shows the error
        v = Verdict("not applicable", {}, f"check failed: {type(exc).__name__}: {exc}")
    rec = {**asdict(claim), **asdict(v), "synthetic": bool(synthetic),
           "notebook": os.environ.get("COMPANION_NOTEBOOK", "interactive"),
           "profile": os.environ.get("COMPANION_PROFILE", "interactive"),
           "run_id": os.environ.get("COMPANION_RUN_ID", ""), "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    paths.ensure(_dir())
    (_dir() / f"{claim.id}.json").write_text(json.dumps(rec, indent=1, default=float))
    return v


def clear(notebook: str) -> None:
    """Forget the claims a notebook checked before (it is about to run again)."""
    if _dir().is_dir():
        for p in _dir().glob("*.json"):
            if json.loads(p.read_text()).get("notebook") == notebook:
                p.unlink()


def records() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(_dir().glob("*.json"))] if _dir().is_dir() else []


def _fmt(numbers: dict) -> str:
    def one(v):
        if isinstance(v, float):
            return f"{v:.3g}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return str(v)

    return "; ".join(f"{k} = {one(v)}" for k, v in numbers.items())


def render_markdown(recs: list[dict]) -> str:
    """``outputs/claims.md``: one table per paper, a row per claim with verdict and numbers."""
    counts = {s: sum(r["status"] == s for r in recs) for s in STATUSES}
    lines = ["# Claims ledger", "",
             f"{len(recs)} claims checked: {counts['held']} held, {counts['not held']} not held, "
             f"{counts['not applicable']} not applicable."]
    if any(r["synthetic"] for r in recs):
        lines += ["", "**Synthetic data.** Rows marked *synthetic* were checked on the embedded default (a synthetic "
                  "world and LLM panel calibrated to the published aggregates): a held claim shows the pipeline "
                  "reproduces the paper's result there, not that the claim holds for real LLMs."]
    for key, title in artifacts.PAPERS.items():
        rows = [r for r in recs if r["paper"] == key]
        if not rows:
            continue
        lines += ["", f"## {title}", "", "| claim | where | statement | verdict | numbers | notebook |",
                  "|---|---|---|---|---|---|"]
        for r in rows:
            tag = " (synthetic)" if r["synthetic"] else ""
            detail = f" {r['detail']}" if r["detail"] else ""
            cells = [r["id"], r["where"], r["statement"], f"**{r['status']}**{tag}", _fmt(r["numbers"]) + detail,
                     r["notebook"]]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_markdown() -> dict:
    """Write ``outputs/claims.md`` from the records; returns the verdict counts."""
    recs = records()
    paths.ensure(paths.OUTPUTS)
    paths.CLAIMS.write_text(render_markdown(recs))
    return {s: sum(r["status"] == s for r in recs) for s in STATUSES}
