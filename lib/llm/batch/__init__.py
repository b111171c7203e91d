"""The batch strategy: the same requests as OpenAI Batch API files, into the same raw store.

Beside the per-request path (:mod:`lib.llm.collect`), for collections too large to send one by
one. Each round writes every request that still lacks a valid attempt as batch input JSONL
(``{custom_id, method: POST, url: /v1/chat/completions, body}``, the body exactly what
:meth:`lib.llm.client.ChatClient.body` sends), split by the provider's limits (OpenAI: 50,000
requests and 200 MB per file), uploads each file (``POST /v1/files``, purpose ``batch``),
creates a batch (``POST /v1/batches``), polls ``GET /v1/batches/{id}`` with backoff and a
progress bar, downloads the output and error files and stores every answer as an attempt of the
raw store (:class:`lib.llm.store.RawStore`; request body, response body, usage, batch id and
custom id), labelled by the same ``validate`` as the per-request path. Validation re-asks
(LLMScholarBench: up to 3 attempts) are further rounds over the requests still without a valid
attempt.

Infrastructure failures are kept apart from model answers as the per-request client keeps them:
a line that did not produce an answer (HTTP 429/5xx in its response, ``request_timeout``, an
expired, cancelled or failed batch, a line missing from both files) is a failed *try* of its
attempt, journaled in ``tries.ndjson`` and resubmitted with the same body in the next round; after
``endpoint.max_tries`` tries in one run the request is left open (failed, retryable: never an
attempt, docs/failures.md), and the run ends with the same completeness check as the per-request
path (:func:`lib.llm.collect.check_complete`), so a re-run asks again. A 400-type answer is stored
with ``stop=True``. Custom ids are ``<request_id>-r<replicate>-a<attempt>``.

Once a batch is stored, its input, output and error files are deleted at the provider
(``DELETE /v1/files/{id}``, journaled as ``deleted``; unless ``llm.batch.keep_files``).

Never paying twice: ``<store>/batches/journal.ndjson`` records each upload and each batch id
*before* polling starts (and a ``creating`` intent before the create call, so a batch created by
a run killed before it journaled the id is found again by its input file id). A run started again
first resumes every journaled batch not yet stored, then plans; a re-run with everything stored
sends nothing.

Offline engines (``vllm run-batch`` takes the same files)::

    python -m lib.llm.batch export --experiment baseline --out batch_in/ [--models ...]
    python -m lib.llm.batch import batch_out/results.jsonl --plan batch_in/

Modules: :mod:`~lib.llm.batch.journal` (what was uploaded, created, stored; failed tries),
:mod:`~lib.llm.batch.files` (input files, result lines into the store), :mod:`~lib.llm.batch.api`
(the provider's Files and Batches API), :mod:`~lib.llm.batch.run` (one collection, rounds of
batches) and :mod:`~lib.llm.batch.offline` (export and import for offline engines). See
docs/batch.md. This package speaks HTTP and knows no simulator.
"""
