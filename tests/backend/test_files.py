"""`/api/files` proxy against the backend process and a real stand-in file-agent process
(tests/backend/servers/file_agent_stand_in.py): streamed uploads, size limit, ranges, bad ids."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from ai_llm.common.a2a.server import free_port
from ai_llm.common.messages import message
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from backend.api.main import create_app
from tests.backend.conftest import UPLOAD_LIMIT_MB

LIMIT = UPLOAD_LIMIT_MB * 1024 * 1024


@pytest.fixture
async def api(backend_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=backend_url, timeout=30) as http:
        yield http


async def upload(api: httpx.AsyncClient, name: str, content: bytes, content_type: str = "application/pdf",
                 ) -> httpx.Response:
    return await api.post("/api/files", files={"file": (name, content, content_type)},
                          data={"note": "extra fields are ignored"})


async def test_upload_list_download_delete(api: httpx.AsyncClient) -> None:
    content = os.urandom(300_000)
    response = await upload(api, "보고서 2026.pdf", content)
    assert response.status_code == 201, response.text
    record = response.json()
    assert record["name"] == "보고서 2026.pdf" and record["size"] == len(content)
    assert record["download_url"] == f"/api/files/{record['id']}/download"

    listed = (await api.get("/api/files")).json()
    assert record["id"] in [r["id"] for r in listed]
    assert all(r["download_url"] == f"/api/files/{r['id']}/download" for r in listed)
    assert (await api.get(f"/api/files/{record['id']}")).json()["sha256"] == record["sha256"]

    full = await api.get(record["download_url"])
    assert full.status_code == 200 and full.content == content
    assert full.headers["content-type"] == "application/pdf"
    assert full.headers["content-disposition"].startswith("inline")
    assert full.headers["accept-ranges"] == "bytes"
    saved = await api.get(record["download_url"], params={"disposition": "attachment"})
    assert saved.headers["content-disposition"].startswith("attachment")

    part = await api.get(record["download_url"], headers={"Range": "bytes=1000-1999"})
    assert part.status_code == 206
    assert part.content == content[1000:2000]
    assert part.headers["content-range"] == f"bytes 1000-1999/{len(content)}"
    tail = await api.get(record["download_url"], headers={"Range": "bytes=-10"})
    assert tail.status_code == 206 and tail.content == content[-10:]
    beyond = await api.get(record["download_url"], headers={"Range": f"bytes={len(content) + 5}-"})
    assert beyond.status_code == 416

    assert (await api.delete(f"/api/files/{record['id']}")).status_code == 204
    assert (await api.get(record["download_url"])).status_code == 404
    assert (await api.delete(f"/api/files/{record['id']}")).status_code == 404
    assert record["id"] not in [r["id"] for r in (await api.get("/api/files")).json()]


async def test_a_files_indexing_message_is_said_in_the_readers_language(api: httpx.AsyncClient) -> None:
    """The file agent keeps a failed file's message in the hub's language with its catalog key; each reader
    gets it in the language the page asks for (`Accept-Language`), in the record and in the list."""
    record = (await upload(api, "blank-scan.pdf", b"%PDF-1.4 no text")).json()
    assert record["index_status"] == "error"
    for language in ("en", "ko"):
        headers = {"Accept-Language": language}
        one = (await api.get(f"/api/files/{record['id']}", headers=headers)).json()
        assert one["index_error"] == message("files.index_no_text", language)
        listed = [r for r in (await api.get("/api/files", headers=headers)).json() if r["id"] == record["id"]]
        assert listed[0]["index_error"] == message("files.index_no_text", language)
    assert message("files.index_no_text", "en") != message("files.index_no_text", "ko")
    assert (await api.delete(f"/api/files/{record['id']}")).status_code == 204


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example.com"},
                                     {"Referer": "http://evil.example.com/page.html"},
                                     {"Origin": "null"}])
async def test_cross_site_upload_is_refused_and_nothing_is_stored(api: httpx.AsyncClient, stand_in_file_agent: str,
                                                                   headers: dict[str, str]) -> None:
    """What a page on another site can send with a plain form or fetch(): refused before the backend reads
    the body, so the file agent sees no upload at all and the listing is unchanged."""
    async with httpx.AsyncClient(base_url=stand_in_file_agent) as agent:
        before = (await agent.get("/stats")).json()
        listed_before = (await api.get("/api/files")).json()
        response = await api.post("/api/files", files={"file": ("planted.pdf", b"%PDF-1.4 planted", "application/pdf")},
                                  headers=headers)
        assert response.status_code == 403 and "refused" in response.json()["detail"]
        assert (await api.delete("/api/files/0123456789abcdef", headers=headers)).status_code == 403
        after = (await agent.get("/stats")).json()
    assert after == before
    listed_after = (await api.get("/api/files")).json()
    assert listed_after == listed_before and "planted.pdf" not in [r["name"] for r in listed_after]


async def test_same_origin_upload_is_accepted(api: httpx.AsyncClient, backend_url: str) -> None:
    """The chat UI's own upload carries the backend's origin (and the Vite dev server's loopback one)."""
    for origin in (backend_url, "http://localhost:5173"):
        response = await api.post("/api/files", files={"file": ("mine.txt", b"my own note", "text/plain")},
                                  headers={"Origin": origin, "Referer": origin + "/files"})
        assert response.status_code == 201, response.text
        assert (await api.delete(f"/api/files/{response.json()['id']}", headers={"Origin": origin})).status_code == 204


async def test_foreign_host_is_misdirected(api: httpx.AsyncClient) -> None:
    """DNS rebinding: the page's own name now points here, but its requests still carry that name."""
    for method, path in (("GET", "/api/files"), ("GET", "/api/health"), ("GET", "/")):
        response = await api.request(method, path, headers={"Host": "evil.example.com"})
        assert response.status_code == 421, path


async def test_upload_at_the_limit_is_accepted(api: httpx.AsyncClient) -> None:
    response = await upload(api, "exact.bin", b"\x01" * LIMIT, "application/octet-stream")
    assert response.status_code == 201 and response.json()["size"] == LIMIT


async def test_oversize_declared_upload_is_413(api: httpx.AsyncClient) -> None:
    response = await upload(api, "big.pdf", b"\0" * (LIMIT + 200_000))
    assert response.status_code == 413
    assert "1 MB" in response.json()["detail"]
    assert response.headers["x-hub-error"] == "too_large"  # the name the UI says in the reader's language


async def test_oversize_streamed_upload_is_cut_off_mid_stream(api: httpx.AsyncClient,
                                                              stand_in_file_agent: str) -> None:
    """A chunked body (no Content-Length) passes the limit only while streaming: the backend must stop
    relaying it, answer 413, and the file agent must see an aborted upload (nothing stored)."""
    boundary = "hubtestboundary"

    async def body() -> AsyncIterator[bytes]:
        yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"huge.pdf\"\r\n"
               "Content-Type: application/pdf\r\n\r\n").encode()
        for _ in range(3 * UPLOAD_LIMIT_MB * 16):
            yield b"\x02" * 65536
        yield f"\r\n--{boundary}--\r\n".encode()

    async with httpx.AsyncClient(base_url=stand_in_file_agent) as agent:
        before = (await agent.get("/stats")).json()
        files_before = len((await api.get("/api/files")).json())
        response = await api.post("/api/files", content=body(),
                                  headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        assert response.status_code == 413
        for _ in range(50):  # the agent notices the cut connection on its own schedule (slow under load)
            after = (await agent.get("/stats")).json()
            if after["aborted_uploads"] > before["aborted_uploads"]:
                break
            await asyncio.sleep(0.1)
    assert after["completed_uploads"] == before["completed_uploads"]
    assert after["aborted_uploads"] == before["aborted_uploads"] + 1
    assert len((await api.get("/api/files")).json()) == files_before


async def test_upload_without_file_field_or_multipart_is_422(api: httpx.AsyncClient) -> None:
    no_file = await api.post("/api/files", data={"name": "x"}, files={"other": ("a.txt", b"abc")})
    assert no_file.status_code == 422 and "`file`" in no_file.json()["detail"]
    form_field = await api.post("/api/files", data={"file": "not a file"})
    assert form_field.status_code == 422
    raw = await api.post("/api/files", content=b"%PDF-1.4", headers={"Content-Type": "application/pdf"})
    assert raw.status_code == 422
    nameless = await api.post("/api/files", headers={"Content-Type": "multipart/form-data; boundary=b0"},
                              content=b'--b0\r\nContent-Disposition: form-data; name="file"; filename=""\r\n'
                                      b"\r\nabc\r\n--b0--\r\n")
    assert nameless.status_code == 422 and "no name" in nameless.json()["detail"]
    control = await api.post("/api/files", headers={"Content-Type": "multipart/form-data; boundary=b0"},
                             content=b'--b0\r\nContent-Disposition: form-data; name="file"; filename="bad\x01.txt"'
                                     b"\r\n\r\nabc\r\n--b0--\r\n")
    assert control.status_code == 422 and "control" in control.json()["detail"]
    garbage = await api.post("/api/files", content=b"no boundary here",
                             headers={"Content-Type": "multipart/form-data; boundary=zzz"})
    assert garbage.status_code == 422


@pytest.mark.parametrize("path", ["/api/files/bad.id", "/api/files/bad.id/download", "/api/files/a%20b"])
async def test_malformed_file_ids_are_422(api: httpx.AsyncClient, path: str) -> None:
    assert (await api.get(path)).status_code == 422
    if not path.endswith("download"):
        assert (await api.delete(path)).status_code == 422


async def test_unknown_file_ids_are_404(api: httpx.AsyncClient) -> None:
    assert (await api.get("/api/files/00000000-0000-0000-0000-000000000000/download")).status_code == 404
    unknown = await api.get("/api/files/00000000-0000-0000-0000-000000000000")
    assert unknown.status_code == 404
    assert unknown.headers["x-hub-error"] == "not_found"  # the file agent's stable name, relayed


async def test_file_agent_down_is_503(db: Database, tmp_path: Path) -> None:
    settings = Settings(file_agent_url=f"http://127.0.0.1:{free_port()}", data_dir=tmp_path,
                        _env_file=None)  # type: ignore[call-arg]
    app = create_app(settings, db=db)
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        listed = await http.get("/api/files")
        uploaded = await http.post("/api/files", files={"file": ("a.txt", b"hello", "text/plain")})
    assert listed.status_code == 503 and "unreachable" in listed.json()["detail"]
    assert uploaded.status_code == 503
