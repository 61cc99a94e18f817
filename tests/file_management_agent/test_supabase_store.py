"""The Supabase Storage adapter against a local HTTP server speaking Storage's REST wire format
(`POST /storage/v1/object/{bucket}/{key}`, `GET /storage/v1/object/authenticated/{bucket}/{key}` with
ranges, `DELETE /storage/v1/object/{bucket}` with `{"prefixes"}`): Supabase itself is unreachable here.
The file agent is then run with SUPABASE_URL pointing at it, so uploads reach the RAG agent as bytes."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ai_llm.common.a2a.server import free_port
from ai_llm.common.runtime import HubDeps
from ai_llm.file_management_agent.document_store import StoreError, SupabaseDocumentStore
from ai_llm.hub.process import Child
from tests.file_management_agent.conftest import clear_records, file_agent

KEY = "service-role-key-for-tests"


class StorageServer:
    """Objects in memory behind Supabase Storage's REST routes."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], tuple[bytes, str]] = {}
        self.requests: list[str] = []

    def app(self) -> Starlette:
        def authorised(request: Request) -> bool:
            return request.headers.get("apikey") == KEY and request.headers.get("authorization") == f"Bearer {KEY}"

        def error(status: int, code: str, message: str) -> JSONResponse:
            return JSONResponse({"statusCode": str(status), "error": code, "message": message}, status_code=status)

        async def upload(request: Request) -> Response:
            self.requests.append(f"POST {request.url.path}")
            if not authorised(request):
                return error(403, "Unauthorized", "invalid signature")
            bucket, key = request.path_params["bucket"], request.path_params["key"]
            if bucket != "documents":
                return error(404, "Bucket not found", "Bucket not found")
            if (bucket, key) in self.objects and request.headers.get("x-upsert") != "true":
                return error(409, "Duplicate", "The resource already exists")
            self.objects[(bucket, key)] = (await request.body(), request.headers.get("content-type", ""))
            return JSONResponse({"Key": f"{bucket}/{key}", "Id": "00000000-0000-0000-0000-000000000001"})

        async def download(request: Request) -> Response:
            self.requests.append(f"GET {request.url.path} {request.headers.get('range', '')}".strip())
            if not authorised(request):
                return error(400, "Unauthorized", "invalid signature")
            found = self.objects.get((request.path_params["bucket"], request.path_params["key"]))
            if found is None:
                return error(404, "not_found", "Object not found")
            data, content_type = found
            match = re.fullmatch(r"bytes=(\d+)-(\d*)", request.headers.get("range", ""))
            if match:
                first = int(match.group(1))
                last = int(match.group(2)) if match.group(2) else len(data) - 1
                return Response(data[first:last + 1], status_code=206, media_type=content_type,
                                headers={"Content-Range": f"bytes {first}-{last}/{len(data)}"})
            return Response(data, media_type=content_type)

        async def remove(request: Request) -> Response:
            self.requests.append(f"DELETE {request.url.path}")
            if not authorised(request):
                return error(400, "Unauthorized", "invalid signature")
            bucket = request.path_params["bucket"]
            deleted = []
            for key in (await request.json())["prefixes"]:
                if self.objects.pop((bucket, key), None) is not None:
                    deleted.append({"name": key, "bucket_id": bucket})
            return JSONResponse(deleted)

        return Starlette(routes=[
            Route("/storage/v1/object/authenticated/{bucket}/{key:path}", download, methods=["GET"]),
            Route("/storage/v1/object/{bucket}/{key:path}", upload, methods=["POST"]),
            Route("/storage/v1/object/{bucket}", remove, methods=["DELETE"]),
        ])


@pytest.fixture(scope="module")
def storage() -> Iterator[tuple[StorageServer, str]]:
    server_state = StorageServer()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(server_state.app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield server_state, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


async def test_adapter_speaks_the_storage_wire_format(storage: tuple[StorageServer, str], tmp_path: Path) -> None:
    state, url = storage
    store = SupabaseDocumentStore(url, KEY, "documents", tmp_path / "spool")
    spool = tmp_path / "spool" / "a.part"
    spool.write_bytes(b"0123456789" * 10)
    await store.put_file(spool, "abc.txt", "text/plain")
    assert not spool.exists() and state.objects[("documents", "abc.txt")] == (b"0123456789" * 10, "text/plain")
    assert await store.read_all("abc.txt") == b"0123456789" * 10
    assert b"".join([c async for c in store.read("abc.txt", 5, 14)]) == b"5678901234"
    assert state.requests[-1].endswith("bytes=5-14")
    spool.write_bytes(b"again")
    with pytest.raises(StoreError, match="already exists"):
        await store.put_file(spool, "abc.txt", "text/plain")  # never overwrites silently
    with pytest.raises(StoreError, match="Object not found"):
        await store.read_all("missing.txt")
    await store.delete("abc.txt")
    assert ("documents", "abc.txt") not in state.objects
    wrong = SupabaseDocumentStore(url, "wrong-key", "documents", tmp_path / "spool")
    spool.write_bytes(b"x")
    with pytest.raises(StoreError, match="invalid signature"):
        await wrong.put_file(spool, "x.txt", "text/plain")
    down = SupabaseDocumentStore(f"http://127.0.0.1:{free_port()}", KEY, "documents", tmp_path / "spool")
    with pytest.raises(StoreError, match="unreachable"):
        await down.read_all("abc.txt")
    for client in (store, wrong, down):
        await client.close()


async def test_file_agent_on_supabase_storage(storage: tuple[StorageServer, str], deps: HubDeps,
                                             test_rag: Child) -> None:
    state, url = storage
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url, supabase_url=url, supabase_key=KEY) as agent:
        created = (await agent.upload("원격 메모.md", b"# remote\nstored in supabase storage")).json()
        assert created["storage_ref"].startswith("supabase://documents/")
        record = await agent.wait_indexed(created["id"])
        assert record["index_status"] == "indexed"  # the RAG agent got the bytes (content_b64)
        key = created["storage_ref"].rsplit("/", 1)[1]
        assert state.objects[("documents", key)][0] == b"# remote\nstored in supabase storage"
        part = await agent.http.get(f"/files/{created['id']}/content", headers={"Range": "bytes=2-7"})
        assert part.status_code == 206 and part.content == b"remote"
        assert list(agent.settings.files_dir.glob("*.md")) == []  # nothing kept on local disk
        assert (await agent.http.delete(f"/files/{created['id']}")).status_code == 200
        assert ("documents", key) not in state.objects
