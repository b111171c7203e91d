"""lib.llm.batch.api: the provider's Files and Batches API client."""
from lib.config import BatchSettings
from lib.llm.batch import api as batch_api
from tests.llm.batch.test_run import _endpoint


def test_a_retried_upload_sends_the_whole_file_again(tmp_path):
    """The first upload attempt dies mid-request (connection reset); the retry carries the file's
    full content again (httpx rewinds the file part between attempts)."""
    import asyncio

    import httpx

    path = tmp_path / "r000000-00000-abc.jsonl"
    path.write_bytes(b'{"custom_id": "a", "body": {}}\n' * 1000)
    bodies = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(request.read())
        if len(bodies) == 1:
            raise httpx.ReadError("connection reset", request=request)
        return httpx.Response(200, json={"id": "file-1"})

    async def go():
        async with batch_api.BatchClient(_endpoint("http://batch.invalid/v1"), BatchSettings(),
                                  transport=httpx.MockTransport(handler)) as client:
            return await client.upload(path)

    assert asyncio.run(go()) == {"id": "file-1"}
    assert len(bodies) == 2 and all(path.read_bytes() in b for b in bodies)
