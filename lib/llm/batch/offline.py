"""Offline engines (``vllm run-batch`` takes the same files): export a round's input files, run
them anywhere, import the output files into the raw store as attempts."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from lib import jsonl
from lib.config import BatchSettings
from lib.llm.batch.files import StoreReport, input_index, read_plan, store_results, write_inputs
from lib.llm.batch.journal import Journal
from lib.llm.batch.run import BatchRun
from lib.llm.client import Endpoint, Request
from lib.llm.kernel import CollectOptions, Validator, any_answer, check_prompts
from lib.llm.store import RawStore


def export(requests: Sequence[Request], out_dir: Path | str, *, store_root: Path | str | None = None,
           max_attempts: int = 3, pin_provider: bool = False, validate: Validator = any_answer,
           batch: BatchSettings | None = None, max_tries: int = 5) -> list[dict]:
    """Write the batch input files of the next round of ``requests`` (what is not stored yet) to ``out_dir``.

    Run them anywhere (``vllm run-batch``, a provider's console), then :func:`import_output`
    each output file; exporting again writes the re-asks. ``validate`` is named in the plan, and
    :func:`import_output` labels by it (a registered validator, :func:`lib.llm.kernel.register_validator`).
    Returns the files written.
    """
    endpoint = Endpoint(base_url="http://offline.invalid/v1", pin_provider=pin_provider, max_tries=max_tries)
    opts = batch or BatchSettings()
    options = CollectOptions(store_root=store_root, max_attempts=max_attempts, validate=validate, batch=opts)
    with RawStore(store_root) as store:
        run = BatchRun(list(requests), store, endpoint, options)
        try:
            check_prompts(run.requests, store)
            return write_inputs(run.plan(), Path(out_dir), opts, prefix="input")
        finally:
            run.close()


def import_output(path: Path | str, plan: Sequence[Path | str] | None = None, *,
                  store_root: Path | str | None = None, base_url: str = "offline",
                  write_index: bool = True) -> StoreReport:
    """Store an output file produced elsewhere (e.g. by ``vllm run-batch``) as attempts.

    ``plan``: the ``*.requests.jsonl`` files of the export (default: those in the output file's
    folder). The request bodies come from the input files beside the plans. Malformed lines are
    reported by line number in the returned report (and skipped); failed lines become failed
    tries, re-exported by the next :func:`export`.
    """
    path = Path(path)
    plans = [Path(p) for p in (plan or [path.parent])]
    ident = read_plan(plans)
    if not ident:
        raise FileNotFoundError(f"import {path}: no *.requests.jsonl plan in {', '.join(map(str, plans))}; "
                                "pass --plan with the folder `export` wrote")
    inputs = {}
    for p in plans:
        for f in (sorted(p.glob("*.requests.jsonl")) if p.is_dir() else [p]):
            src = f.with_name(f.name.replace(".requests.jsonl", ".jsonl"))
            if src.exists():
                inputs[src] = input_index(src)
    handles = {src: open(src, "rb") for src in inputs}

    def body(cid: str) -> dict | None:
        for src, offs in inputs.items():
            if cid in offs:
                fh = handles[src]
                fh.seek(offs[cid])
                return jsonl.loads(fh.readline())["body"]
        return None

    try:
        with RawStore(store_root) as store:
            journal = Journal(store.root)
            try:
                rep = store_results(path, ident, store, journal, batch={"id": f"import:{path.name}"},
                                    base_url=base_url, bodies=body, report=StoreReport(offline=True))
            finally:
                journal.close()
    finally:
        for fh in handles.values():
            fh.close()
    if write_index and rep.stored:
        RawStore(store_root).write_index(read=False)
    return rep
