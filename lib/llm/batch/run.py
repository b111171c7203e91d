"""One batch collection: rounds of batch files until every request has a valid attempt, a stop or
all its attempts (the batch strategy; :mod:`lib.llm.batch` describes the path).

Each round's whole estimate is checked against ``llm.budget_usd`` before it is submitted
(:class:`~lib.llm.kernel.BudgetExceeded`). The dispatcher :func:`lib.llm.collect.collect` chooses
this path for an endpoint with ``mode: batch``; the routed layer calls :func:`run` per provider.
"""
from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator, Sequence

from tqdm.auto import tqdm

from lib import jsonl
from lib.llm.batch import journal as jn
from lib.llm.batch.api import BatchClient
from lib.llm.batch.files import (StoreReport, custom_id, identity, ident_key, input_index, iter_inputs, read_plan,
                                 store_results)
from lib.llm.batch.journal import BatchGone, Journal
from lib.llm.client import ChatClient, Endpoint, Request, endpoint_id
from lib.llm.kernel import (BudgetExceeded, CollectionSummary, CollectOptions, check_complete, check_endpoint,
                            check_lost, check_prompts, check_unique, count_completeness, make_ledger,
                            run_sync)
from lib.llm.spend import Ledger
from lib.llm.store import RawStore

log = logging.getLogger("lib.llm.batch")
TERMINAL = ("completed", "failed", "expired", "cancelled")


class BatchRun:
    """One batch collection of ``requests`` into an open ``store`` (its journal stays open until
    :meth:`close`). ``ledger``: shared by the providers of a routed collection (one budget);
    ``provider``: the routed provider, whose journal is ``<store>/batches/<provider>/``."""

    def __init__(self, requests, store: RawStore, endpoint: Endpoint, options: CollectOptions,
                 provider: str | None = None, ledger: Ledger | None = None):
        self.requests, self.store, self.endpoint = requests, store, endpoint
        self.opts = options.batch_settings(endpoint)
        # a routed collection (lib.llm.providers) shares one ledger across its providers: one budget
        self.ledger = ledger if ledger is not None else make_ledger(requests, store, endpoint, options)
        self.provider_of = self.ledger.provider_of
        self.max_attempts, self.validate, self.transport = options.max_attempts, options.validate, options.transport
        self.provider = provider
        self.journal = Journal(store.root, provider)
        self.bodies = ChatClient(endpoint)
        self.summary = CollectionSummary(requests=len(requests))
        #: failed tries journaled by earlier runs: a resumed run gets max_tries of its own (issue 18)
        self.fails_before = {cid: len(v) for cid, v in self.journal.fails.items()}
        #: a line was answered (2xx) in this run; before that, a 4xx line is a refusal (RejectedError)
        self.answered_any = False

    def plan(self) -> Iterator[tuple[str, dict, dict]]:
        """(custom_id, body, identity) of every request's next attempt, streamed. An attempt whose lines
        failed ``max_tries`` times in this run is left open: an infrastructure failure, not an answer."""
        for r in self.requests:
            a = self.store.next_attempt(r, self.max_attempts)
            if a is None:
                continue
            rid = r.request_id
            cid = custom_id(r, a, rid)
            if len(self.journal.fails.get(cid, [])) - self.fails_before.get(cid, 0) < self.endpoint.max_tries:
                yield cid, self.bodies.body(r, a), identity(r, a, self.validate, rid)

    def settle(self, rec: dict) -> None:
        """Write the attempt's cost from its usage (one ledger for the whole collection)."""
        # price by the record's model; a routed run's ledger labels it by this run's provider
        self.ledger.settle(SimpleNamespace(model=rec["model"], provider=self.provider), rec, 0.0)

    def check_budget(self) -> None:
        """Before a round is submitted: its whole estimate must fit in ``llm.budget_usd``
        (:class:`~lib.llm.kernel.BudgetExceeded` otherwise; nothing of the round is sent)."""
        if self.ledger.budget_usd is None:
            return
        todo = [r for r in self.requests if self.store.next_attempt(r, self.max_attempts) is not None]
        unpriced = self.ledger.unpriced(todo)
        if unpriced:
            raise ValueError(f"llm.budget_usd is {self.ledger.budget_usd} but models {unpriced} have no known price; "
                             "give them one in the profile (llm.prices: {MODEL: {input: USD, output: USD}})")
        est = sum(self.ledger.expected(r) for r in todo)
        if todo and self.ledger.spent + est > self.ledger.budget_usd:
            count_completeness(self.summary, self.store, self.requests, self.max_attempts)
            done = self.summary.answered + self.summary.ended_invalid
            raise BudgetExceeded(
                f"budget reached: llm.budget_usd = ${self.ledger.budget_usd:.4f}, and the next batch round of "
                f"{len(todo)} requests is estimated at ${est:.4f}, which would pass it; nothing of it was submitted, "
                f"{done} of {self.summary.requests} requests done; {self.ledger.account()}. To resume, raise "
                f"llm.budget_usd: stored attempts are never re-sent, so nothing is paid twice", self.summary)

    async def submit(self, client: BatchClient, f: dict) -> dict:
        path = Path(f["path"])
        fid = self.journal.uploaded().get(f["sha256"])
        if fid is None:
            jn.checkpoint("upload")
            self.journal.event("upload_start", file=path.name, sha256=f["sha256"], n=f["n"], bytes=f["bytes"])
            fid = (await client.upload(path))["id"]
            jn.checkpoint("uploaded")
            self.journal.event("uploaded", file=path.name, sha256=f["sha256"], file_id=fid)
        self.journal.event("creating", file_id=fid, file=path.name, n=f["n"])
        jn.checkpoint("create")
        try:
            b = await client.create(fid, path.name)
        except BatchGone:       # the uploaded file is gone (the provider deleted it or restarted): upload again
            log.warning("input file %s of %s is gone at the provider; uploading it again", fid, path.name)
            self.journal.event("deleted", file_id=fid, gone=True)
            fid = (await client.upload(path))["id"]
            self.journal.event("uploaded", file=path.name, sha256=f["sha256"], file_id=fid)
            self.journal.event("creating", file_id=fid, file=path.name, n=f["n"])
            b = await client.create(fid, path.name)
        jn.checkpoint("created")
        return self.journal.event("created", batch_id=b["id"], file_id=fid, file=path.name, n=f["n"],
                                  base_url=self.endpoint.base_url)

    async def recover(self, client: BatchClient) -> None:
        """Adopt batches created by a killed run that never journaled their id (found by input file id)."""
        for e in self.journal.unconfirmed_creates():
            b = await client.find_batch(e["file_id"])
            if b is not None:
                log.warning("adopting batch %s of %s (created by an interrupted run)", b["id"], e["file"])
                self.journal.event("created", batch_id=b["id"], file_id=e["file_id"], file=e["file"], n=e["n"],
                                   base_url=self.endpoint.base_url, adopted=True)

    async def finish(self, client: BatchClient, opened: list[dict], desc: str) -> None:
        """Poll the open batches in creation order to a terminal status (backoff, progress bar), storing
        each one's files as it ends; a sweep stops at the first batch still running, so many open
        batches do not multiply the polls."""
        pending = {e["batch_id"]: e for e in opened}
        wait = self.opts.poll_initial_s
        done_counts: dict[str, int] = {}
        with tqdm(total=sum(e["n"] for e in opened), desc=desc, unit="req", mininterval=0.5, leave=False) as bar:
            while pending:
                progressed = False
                for bid, e in list(pending.items()):
                    jn.checkpoint("poll")
                    try:
                        b = await client.retrieve(bid)
                    except BatchGone as exc:
                        self.vanished(e, exc)
                        pending.pop(bid)
                        progressed = True
                        continue
                    bar.set_postfix_str(f"${self.ledger.spent - self.ledger.spent_before:.4f}", refresh=False)
                    c = b.get("request_counts") or {}
                    n = int(c.get("completed") or 0) + int(c.get("failed") or 0)
                    if n != done_counts.get(bid, 0):
                        bar.update(n - done_counts.get(bid, 0))
                        done_counts[bid] = n
                        progressed = True
                    if b["status"] not in TERMINAL:
                        break       # the later batches are queued behind this one: one poll per sweep
                    try:
                        await self.store_batch(client, e, b)
                    except BatchGone as exc:        # its output file is gone: what was stored stays
                        self.vanished(e, exc)
                    pending.pop(bid)
                    progressed = True
                if pending:
                    wait = self.opts.poll_initial_s if progressed else min(wait * self.opts.poll_factor,
                                                                           self.opts.poll_max_s)
                    await asyncio.sleep(wait)

    def vanished(self, e: dict, exc: BatchGone) -> None:
        """A journaled batch the provider no longer has: journal it (and its input file) as gone, so
        the next round plans its lines that were never stored; the stored ones stay and are not sent."""
        left = sum(1 for r in self.requests if self.store.next_attempt(r, self.max_attempts) is not None)
        log.warning("batch %s of %s is gone at the provider (%s); its lines that were never stored are submitted "
                    "again (%d requests still open), stored lines are kept and not sent again",
                    e["batch_id"], e["file"], str(exc)[:200], left)
        self.journal.event("vanished", batch_id=e["batch_id"], file_id=e["file_id"], reason=str(exc)[:300])
        self.journal.event("deleted", file_id=e["file_id"], gone=True)
        self.summary.tries["batch_vanished"] += 1

    async def store_batch(self, client: BatchClient, e: dict, b: dict) -> None:
        src = self.journal.files_dir / e["file"]
        plan_path = src.with_name(src.name.replace(".jsonl", ".requests.jsonl"))
        plan = read_plan([plan_path])
        offsets = input_index(src)
        with open(src, "rb") as fin:
            def body(cid: str) -> dict:
                fin.seek(offsets[cid])
                return jsonl.loads(fin.readline())["body"]

            rep = StoreReport(ok_before=self.answered_any)
            if b["status"] == "failed":
                errs = (b.get("errors") or {}).get("data") or []
                log.error("batch %s of %s failed: %s", b["id"], e["file"], "; ".join(x.get("message", "") for x in errs[:5]))
            for key in ("output_file_id", "error_file_id"):
                if b.get(key):
                    jn.checkpoint("download")
                    dest = self.journal.files_dir / f"{b['id']}.{key.split('_')[0]}.jsonl"
                    await client.download(b[key], dest)
                    store_results(dest, plan, self.store, self.journal, batch=b, base_url=self.endpoint.base_url,
                                  bodies=body, validate=self.validate, report=rep, secret=client.key,
                                  cost=self.settle, endpoint=endpoint_id(self.endpoint),
                                  endpoint_name=self.endpoint.name)
                    if not self.opts.keep_files:
                        dest.unlink(missing_ok=True)
        # lines in neither file did not run (failed or cancelled batch): a failed try each
        why = {"failed": "batch_failed", "cancelled": "batch_cancelled", "expired": "batch_expired"}.get(b["status"],
                                                                                                         "missing")
        detail = "; ".join(x.get("message", "") for x in ((b.get("errors") or {}).get("data") or [])[:3])
        for cid in plan.keys() - rep.seen:
            if not self.store.has_attempt(ident_key(plan[cid]), plan[cid]["attempt"]):
                self.journal.fail({"custom_id": cid, "batch_id": b["id"], "kind": why, "http_status": None,
                                   "message": f"batch {b['status']}: {detail or 'no result line'}"[:500]})
                rep.kinds[why] += 1
        self.summary.tries.update(rep.kinds)
        self.answered_any = self.answered_any or rep.kinds["ok"] > 0
        if rep.malformed:
            log.warning("batch %s: %d malformed result lines, first: %s", b["id"], len(rep.malformed), rep.malformed[0][1])
        jn.checkpoint("stored")
        self.journal.event("stored", batch_id=b["id"], status=b["status"], output_file_id=b.get("output_file_id"),
                           error_file_id=b.get("error_file_id"), stored=rep.stored, failed_tries=rep.failed_tries)
        if not self.opts.keep_files:
            src.unlink(missing_ok=True)
            plan_path.unlink(missing_ok=True)
            await self.delete_remote(client)

    async def delete_remote(self, client: BatchClient) -> None:
        """Delete the provider's copies (input, output, error files) of every stored batch, each
        journaled once deleted; a killed run's leftovers are deleted by the next run."""
        for fid in self.journal.undeleted():
            jn.checkpoint("delete")
            await client.delete_file(fid)
            self.journal.event("deleted", file_id=fid)

    def _ended(self) -> tuple[int, int]:
        valid = stopped = 0
        for r in self.requests:         # streamed: a plan of millions is made on demand
            x = self.store.attempts(r).values()
            valid += any(a["valid"] for a in x)
            stopped += any(a["stop"] for a in x)
        return valid, stopped

    async def run(self) -> CollectionSummary:
        t0 = time.perf_counter()
        check_unique(self.requests)
        check_prompts(self.requests, self.store)
        check_endpoint(self.requests, self.store, self.endpoint)
        self.summary.reasked_lost = check_lost(self.requests, self.store, self.endpoint)
        self._before = self._ended()
        self.summary.already_complete = sum(self.store.next_attempt(r, self.max_attempts) is None for r in self.requests)
        async with BatchClient(self.endpoint, self.opts, self.transport) as client:
            await self.recover(client)
            if self.journal.open_batches():
                await self.finish(client, self.journal.open_batches(), "batch (resumed)")
            rnd = 0
            while True:
                jn.checkpoint("round")
                if not self.opts.keep_files:     # every journaled batch is stored: what is left is orphaned
                    for p in self.journal.files_dir.iterdir():
                        p.unlink()
                    await self.delete_remote(client)
                self.check_budget()
                # each file is submitted as soon as it is written, so the provider starts on it meanwhile
                opened = [await self.submit(client, f) for f in
                          iter_inputs(self.plan(), self.journal.files_dir, self.opts,
                                      prefix=f"r{len(self.journal.events):06d}")]
                if not opened:
                    break
                rnd += 1
                await self.finish(client, opened, f"batch round {rnd}")
        valid, stopped = self._ended()
        self.summary.valid_requests = valid - self._before[0]
        self.summary.stopped_requests = stopped - self._before[1]
        self.summary.seconds = time.perf_counter() - t0
        return self.summary

    def close(self) -> None:
        self.journal.close()


async def run(requests: Sequence[Request], store: RawStore, endpoint: Endpoint, options: CollectOptions, *,
              ledger: Ledger | None = None, bars=None, provider: str | None = None) -> CollectionSummary:
    """Run every incomplete request into an open ``store`` through the Batch API (the routed layer's
    entry; ``bars`` is not used: each round has its own progress bar). The summary's
    ``attempts_written`` counts the attempts stored by this call."""
    before = sum(len(store.attempts(r)) for r in requests)
    batch = BatchRun(requests, store, endpoint, options, provider=provider, ledger=ledger)
    try:
        summary = await batch.run()
    finally:
        batch.close()
    summary.attempts_written = sum(len(store.attempts(r)) for r in requests) - before
    return summary


def collect(requests: Sequence[Request], endpoint: Endpoint, options: CollectOptions) -> CollectionSummary:
    """Collect ``requests`` through one endpoint's Batch API into the raw store at ``options.store_root``
    (same store, attempts and labels as the per-request path; :mod:`lib.llm.batch`). The summary's
    ``tries`` counts the line outcomes by kind; ends with the completeness check."""
    if not hasattr(requests, "__len__"):
        requests = list(requests)        # a sized re-iterable (a lazy plan) is iterated once per pass instead
    with RawStore(options.store_root) as store:
        before = sum(len(store.attempts(r)) for r in requests)
        batch = BatchRun(requests, store, endpoint, options)
        try:
            summary = run_sync(batch.run())
        finally:
            batch.close()
        summary.attempts_written = sum(len(store.attempts(r)) for r in requests) - before
        summary.cost_usd = batch.ledger.spent - batch.ledger.spent_before
        count_completeness(summary, store, requests, options.max_attempts)
    if options.write_index:
        RawStore(options.store_root).write_index(read=False)
    log.info("batch collection: %s", summary.line())
    check_complete(summary, endpoint)
    return summary
