"""The claims ledger: each headline claim of the papers, checked on the regenerated data.

A claim is a sentence from a paper ("higher temperature lowers validity", "39.2% of
recommendations flip") with a check: a function of the regenerated tables that returns a
:class:`Verdict` (``held`` / ``not held`` / ``not applicable``) and the numbers behind it. Each
paper package owns a table of :class:`Check` rows (``<paper>/claims.py``) and one ``check_all``
that hands its tables to :func:`run_checks`; every verdict is written as one JSON record under
``outputs/records/claims/`` and the runner gathers them into ``outputs/claims.md``: per paper a
table (claim, verdict, key numbers, the command that reproduces it, that notebook's measured
time on this run) and per artifact the claims it supports.

On the embedded synthetic default a claim that *holds* shows that the pipeline reproduces the
paper's qualitative result on a panel calibrated to the published aggregates, not that the
claim is true of real LLMs; ``claims.md`` says so at the top and on every synthetic row. A
``synthetic: mixed`` profile (a real endpoint asked about synthetic inputs) is labelled *mixed* there.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Literal

from lib import artifacts, paths

Status = Literal["held", "not held", "not applicable"]
STATUSES = ("held", "not held", "not applicable")
KEY_NUMBERS = 4  # numbers shown in the per-paper table; all of them are in the details below it


@dataclass(frozen=True)
class Claim:
    """One claim: ``id`` is unique (e.g. ``lsb-temp-validity``), ``where`` cites the paper's section,
    ``artifacts`` the registered artifacts (figures, tables) whose data the claim is read from."""

    id: str
    paper: str
    where: str
    statement: str
    artifacts: tuple[str, ...] = ()


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


def not_applicable(detail: str, numbers: dict | None = None) -> Verdict:
    """The verdict for a claim the data at hand cannot test (e.g. a task that was not collected)."""
    return Verdict("not applicable", numbers or {}, detail)


@dataclass(frozen=True, eq=False)
class Check:
    """A row of a paper's claims table: ``fn(*[tables[t] for t in tables], **kwargs)`` judges
    ``claim`` on the outputs of ``notebook`` (the notebook that regenerates them)."""

    claim: Claim
    fn: Callable[..., Verdict]
    tables: tuple[str, ...]
    notebook: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)


def _dir():
    return paths.RECORDS / "claims"


def _validate(claim: Claim) -> None:
    if claim.paper not in artifacts.PAPERS:
        raise ValueError(f"claim {claim.id}: unknown paper {claim.paper!r}; expected one of {list(artifacts.PAPERS)}")
    unknown = [a for a in claim.artifacts if a not in artifacts.REGISTRY]
    if unknown:
        raise ValueError(f"claim {claim.id}: artifacts {unknown} are not registered in lib.artifacts")


def check(claim: Claim, fn: Callable[..., Verdict], *args, synthetic: artifacts.Synthetic, notebook: str | None = None,
          order: int = 0, **kwargs) -> Verdict:
    """Run ``fn(*args, **kwargs)``, record the verdict for ``claim`` and return it.

    A check that raises is recorded as ``not applicable`` with the error, so a missing input
    never passes for a held claim and never stops the notebook. ``notebook`` names the notebook
    that reproduces the claim (default: the running one, ``COMPANION_NOTEBOOK``); ``order`` is its
    row in the paper's claims table (the ledger lists claims in that order).
    """
    _validate(claim)
    try:
        v = fn(*args, **kwargs)
        if not isinstance(v, Verdict):
            raise TypeError(f"check for {claim.id} returned {type(v).__name__}, expected Verdict")
    except Exception as exc:  # recorded, not hidden: the row shows the error
        v = Verdict("not applicable", {}, f"check failed: {type(exc).__name__}: {exc}")
    rec = {**asdict(claim), **asdict(v), "synthetic": bool(synthetic),
           "label": artifacts.data_label(synthetic),
           "notebook": notebook or os.environ.get("COMPANION_NOTEBOOK", "interactive"),
           "profile": os.environ.get("COMPANION_PROFILE", "interactive"),
           "run_id": os.environ.get("COMPANION_RUN_ID", ""), "order": int(order), "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    paths.ensure(_dir())
    (_dir() / f"{claim.id}.json").write_text(json.dumps(rec, indent=1, default=float))
    return v


def run_checks(checks, tables: Mapping[str, Any], *, synthetic: artifacts.Synthetic, notebook: str | None = None) -> dict[str, Verdict]:
    """Judge every check (of ``notebook`` only, if given) on ``tables`` and record the verdicts.

    A check whose input table is absent or None (this run did not produce it, e.g. the pilot on a
    release without pilot files) is recorded as ``not applicable`` naming the table. Returns
    {claim id: Verdict}.
    """
    ids = [c.claim.id for c in checks]
    if len(ids) != len(set(ids)):
        raise ValueError(f"claims table lists a claim twice: {sorted({i for i in ids if ids.count(i) > 1})}")
    out = {}
    for i, c in enumerate(checks):
        if notebook is not None and c.notebook != notebook:
            continue
        missing = [t for t in c.tables if tables.get(t) is None]
        if missing:
            out[c.claim.id] = check(c.claim, not_applicable, f"needs table(s) {missing}, which this run did not produce",
                                    synthetic=synthetic, notebook=c.notebook, order=i)
        else:
            out[c.claim.id] = check(c.claim, c.fn, *[tables[t] for t in c.tables], synthetic=synthetic,
                                    notebook=c.notebook, order=i, **dict(c.kwargs))
    return out


def summary(verdicts: Mapping[str, Verdict]):
    """The verdicts as a small DataFrame (claim, verdict, key numbers, decision rule) for a notebook cell."""
    import pandas as pd

    return pd.DataFrame([{"claim": k, "verdict": v.status, "key numbers": key_numbers(v.numbers),
                          "detail": v.detail} for k, v in verdicts.items()])


def clear(notebook: str) -> None:
    """Forget the claims a notebook checked before (it is about to run again)."""
    if _dir().is_dir():
        for p in _dir().glob("*.json"):
            if json.loads(p.read_text()).get("notebook") == notebook:
                p.unlink()


def records() -> list[dict]:
    """Every recorded verdict, in each paper's table order (then by id)."""
    recs = [json.loads(p.read_text()) for p in _dir().glob("*.json")] if _dir().is_dir() else []
    return sorted(recs, key=lambda r: (r.get("order", 0), r["id"]))


def fmt_numbers(numbers: dict) -> str:
    """``name = value; ...`` with floats to 3 significant digits."""
    def one(v):
        if isinstance(v, float):
            return f"{v:.3g}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return str(v)

    return "; ".join(f"{k} = {one(v)}" for k, v in numbers.items())


def key_numbers(numbers: dict) -> str:
    """The first :data:`KEY_NUMBERS` numbers of a verdict (each check lists its key numbers first)."""
    more = " …" if len(numbers) > KEY_NUMBERS else ""
    return fmt_numbers(dict(list(numbers.items())[:KEY_NUMBERS])) + more


def cell_numbers(rec: dict) -> str:
    """What a table row shows: the key numbers, or the reason when the claim was not applicable."""
    if rec["status"] == "not applicable" or not rec["numbers"]:
        return rec["detail"]
    return key_numbers(rec["numbers"])


def command(rec: dict) -> str:
    """The command that regenerates a claim: its notebook through ``run_all.sh`` on the record's profile."""
    nb = rec.get("notebook", "")
    only = nb[:2] if nb[:2].isdigit() else nb
    prof = rec.get("profile", "")
    return f"./run_all.sh --only {only}" + (f" --profile {prof}" if prof not in ("", "quick", "interactive") else "")


def notebook_times(man: dict | None) -> dict[str, str]:
    """{notebook: its measured wall time} from the manifest's ``stages`` block (this run, or the
    earlier run whose outputs a skipped notebook kept)."""
    out = {}
    for nb, e in ((man or {}).get("stages") or {}).get("notebooks", {}).items():
        out[nb] = f"{e['wall_s']:.1f} s" + (" (earlier run)" if e.get("earlier_run") else "")
    return out


def by_artifact(recs: list[dict]) -> dict[str, list[dict]]:
    """{artifact id: the records of the claims read from it}, in registry order."""
    out: dict[str, list[dict]] = {}
    for aid in artifacts.REGISTRY:
        rows = [r for r in recs if aid in r.get("artifacts", ())]
        if rows:
            out[aid] = rows
    return out


def counts(recs: list[dict]) -> dict[str, int]:
    return {s: sum(r["status"] == s for r in recs) for s in STATUSES}


def _row(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def label(rec: dict) -> str:
    """A claim record's data label: 'synthetic', 'mixed' or 'real' (records written before labels
    existed: from their synthetic flag)."""
    return rec.get("label") or artifacts.data_label(bool(rec["synthetic"]))


def render_markdown(recs: list[dict], times: Mapping[str, str] | None = None) -> str:
    """``outputs/claims.md``: per paper a table (claim, verdict, key numbers, command, time) and the
    decision rule with every number below it; then, per artifact, the claims it supports.

    ``times``: {notebook: measured wall time} (:func:`notebook_times`); a notebook without one
    shows "not measured" (checked interactively, or before the runner recorded times).
    """
    times = times or {}
    c = counts(recs)
    lines = ["# Claims ledger", "",
             f"{len(recs)} claims checked: {c['held']} held, {c['not held']} not held, "
             f"{c['not applicable']} not applicable.", "",
             "Each claim is a sentence of its paper, checked on the tables this run regenerated; a claim is about the "
             "direction or significance the paper states, judged with 95 % confidence intervals, not about hitting "
             "the published number. *Reproduce* regenerates the claim's notebook; *time* is that notebook's measured "
             "wall time in this run (`outputs/manifest.json`, `stages`)."]
    found = {label(r) for r in recs}
    if "synthetic" in found:
        lines += ["", "**Synthetic data.** Rows marked *synthetic* were checked on the embedded default (a synthetic "
                  "world and LLM panel calibrated to the published aggregates): a held claim shows the pipeline "
                  "reproduces the paper's result there, not that the claim holds for real LLMs."]
    if "mixed" in found:
        lines += ["", "**Mixed data.** Rows marked *mixed* were checked on a real endpoint's answers about synthetic "
                  "inputs (the profile declares `synthetic: mixed`): they test that model on the synthetic world, "
                  "corpus or twin, not the paper's findings."]
    for key, title in artifacts.PAPERS.items():
        rows = [r for r in recs if r["paper"] == key]
        if not rows:
            continue
        pc = counts(rows)
        lines += ["", f"## {title}", "",
                  f"{len(rows)} claims: {pc['held']} held, {pc['not held']} not held, {pc['not applicable']} not applicable.",
                  "", "| claim | verdict | key numbers | reproduce | time |", "|---|---|---|---|---|"]
        for r in rows:
            tag = f" ({label(r)})" if label(r) in artifacts.NOTES else ""
            lines.append(_row([f"`{r['id']}` {r['statement']} ({r['where']})", f"**{r['status']}**{tag}",
                               cell_numbers(r),
                               f"`{command(r)}` ({r.get('profile', '')})", times.get(r["notebook"], "not measured")]))
        lines += ["", "<details><summary>Decision rules and all numbers</summary>", ""]
        for r in rows:
            lines.append(f"- `{r['id']}` ({r['status']}): {(r['detail'] or 'no rule given').rstrip('.')}."
                         + (f" Numbers: {fmt_numbers(r['numbers'])}." if r["numbers"] else ""))
        lines += ["", "</details>"]
    per_art = by_artifact(recs)
    if per_art:
        lines += ["", "## Claims per artifact", "", "| artifact | caption | claims it supports |", "|---|---|---|"]
        for aid, rows in per_art.items():
            lines.append(_row([f"`{aid}`", artifacts.REGISTRY[aid].caption,
                               ", ".join(f"`{r['id']}` ({r['status']})" for r in rows)]))
    return "\n".join(lines) + "\n"


def write_markdown(man: dict | None = None) -> dict:
    """Write ``outputs/claims.md`` from the records, with the notebook times of the manifest ``man``
    (:func:`lib.manifest.build`); returns the verdict counts."""
    recs = records()
    paths.ensure(paths.OUTPUTS)
    paths.CLAIMS.write_text(render_markdown(recs, notebook_times(man)))
    return counts(recs)
