"""The provider's Files and Batches API (async httpx; the endpoint's transport and key), with
retries of 429/5xx/transport errors (Retry-After honoured)."""
from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import httpx

from lib.config import BatchSettings
from lib.llm.batch.files import CHAT_URL
from lib.llm.batch.journal import BatchError, BatchGone
from lib.llm.client import Endpoint, FatalAPIError, parse_retry_after, retry_wait, scrub

log = logging.getLogger("lib.llm.batch")


class BatchClient:
    """The provider's Files and Batches API (async httpx; the endpoint's transport and key)."""

    def __init__(self, endpoint: Endpoint, opts: BatchSettings, transport=None):
        self.endpoint, self.opts = endpoint, opts
        self._transport = transport if transport is not None else endpoint.transport
        self.http: httpx.AsyncClient | None = None

    async def __aenter__(self) -> "BatchClient":
        self.key = self.endpoint.api_key()
        headers = {**self.endpoint.headers, **({"Authorization": f"Bearer {self.key}"} if self.key else {})}
        self.http = httpx.AsyncClient(base_url=self.endpoint.base_url.rstrip("/") + "/", transport=self._transport,
                                      timeout=httpx.Timeout(max(self.endpoint.timeout_s, 300.0)), headers=headers)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.http.aclose()

    def _raise(self, r: httpx.Response, what: str) -> None:
        text = scrub(r.text[:500], self.key)
        if r.status_code in (401, 402, 403) or "insufficient_quota" in text:
            raise FatalAPIError(f"{self.endpoint.base_url}: {what}: HTTP {r.status_code}: {text}")
        raise (BatchGone if r.status_code == 404 else BatchError)(
            f"{self.endpoint.base_url}: {what}: HTTP {r.status_code}: {text}")

    async def _call(self, what: str, method: str, url: str, **kw) -> httpx.Response:
        """One API call with retries of 429/5xx/transport errors (Retry-After honoured)."""
        tries = self.opts.create_tries if what.startswith("create") else self.endpoint.max_tries
        for k in range(1, tries + 1):
            try:
                r = await self.http.request(method, url, **kw)
            except httpx.TransportError as e:
                if k == tries:
                    raise BatchError(f"{self.endpoint.base_url}: {what}: {type(e).__name__}: {e}") from None
                await asyncio.sleep(retry_wait(self.endpoint, k))
                continue
            if r.status_code < 400:
                return r
            if (r.status_code == 429 or r.status_code >= 500) and k < tries:
                wait = retry_wait(self.endpoint, k, parse_retry_after(r.headers.get("retry-after")))
                log.info("%s: HTTP %d, retry %d/%d in %.2f s", what, r.status_code, k, tries, wait)
                await asyncio.sleep(wait)
                continue
            self._raise(r, what)
        raise AssertionError("unreachable")

    async def upload(self, path: Path) -> dict:
        with open(path, "rb") as fh:
            r = await self._call(f"upload {path.name}", "POST", "files", data={"purpose": "batch"},
                                 files={"file": (path.name, fh, "application/jsonl")})
        return r.json()

    async def create(self, file_id: str, name: str) -> dict:
        r = await self._call(f"create batch of {name}", "POST", "batches",
                             json={"input_file_id": file_id, "endpoint": CHAT_URL, "completion_window": "24h",
                                   "metadata": {"lib_llm_file": name[:500]}})
        return r.json()

    async def retrieve(self, batch_id: str) -> dict:
        return (await self._call(f"retrieve {batch_id}", "GET", f"batches/{batch_id}")).json()

    async def find_batch(self, file_id: str) -> dict | None:
        """The provider's batch over ``file_id`` (a create whose answer a killed run never journaled)."""
        after = None
        while True:
            params = {"limit": 100, **({"after": after} if after else {})}
            page = (await self._call("list batches", "GET", "batches", params=params)).json()
            for b in page.get("data", []):
                if b.get("input_file_id") == file_id:
                    return b
            if not page.get("has_more") or not page.get("data"):
                return None
            after = page["data"][-1]["id"]

    async def delete_file(self, file_id: str) -> None:
        """``DELETE /v1/files/{id}``; a file the provider no longer has counts as deleted."""
        try:
            await self._call(f"delete file {file_id}", "DELETE", f"files/{file_id}")
        except BatchError as e:
            if "HTTP 404" not in str(e):
                raise

    async def download(self, file_id: str, dest: Path) -> Path:
        tmp = dest.with_name(dest.name + ".part")
        for k in range(1, self.endpoint.max_tries + 1):
            try:
                async with self.http.stream("GET", f"files/{file_id}/content") as r:
                    if r.status_code >= 400:
                        await r.aread()
                        if r.status_code >= 500 and k < self.endpoint.max_tries:
                            continue
                        self._raise(r, f"download {file_id}")
                    with open(tmp, "wb") as out:
                        async for chunk in r.aiter_bytes(1 << 20):
                            out.write(chunk)
                os.replace(tmp, dest)
                return dest
            except httpx.TransportError:
                if k == self.endpoint.max_tries:
                    raise
        raise BatchError(f"download {file_id}: no success in {self.endpoint.max_tries} tries")
