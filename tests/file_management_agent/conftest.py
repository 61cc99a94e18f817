"""Fixtures of the file-agent tests: the test RAG agent as a real process, the file agent in-process."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from ai_llm.common.a2a.server import free_port
from ai_llm.common.runtime import HubDeps
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.file_management_agent.agent_server import create_app
from ai_llm.file_management_agent.file_service import FileService
from ai_llm.hub.process import Child, start_module, stop_child, wait_http


def first_pages(path: Path, count: int) -> bytes:
    """A real PDF's first pages as a PDF (indexing stays quick on a shared 2-core machine)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(path).pages[:count]:
        writer.add_page(page)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


TEST_RAG_MODULE = "tests.file_management_agent.rag_test_agent"


def start_test_rag(log_dir: Path, port: int | None = None, env: dict[str, str] | None = None) -> Child:
    """Start the contract-speaking test RAG agent as a real process."""
    port = port or free_port()
    child = start_module(f"test-rag-{port}", TEST_RAG_MODULE, ["--port", str(port)], env or {}, log_dir)
    child.url = f"http://127.0.0.1:{port}"
    wait_http(child.url + "/.well-known/agent-card.json", child, timeout_s=60)
    return child


@pytest.fixture(scope="module")
def test_rag(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Child]:
    child = start_test_rag(tmp_path_factory.mktemp("rag-logs"))
    yield child
    stop_child(child)


class FileAgentClient:
    """The in-process file agent: HTTP client, its service, and its store root."""

    def __init__(self, http: httpx.AsyncClient, app: Any, settings: Settings) -> None:
        self.http = http
        self.app = app
        self.settings = settings

    @property
    def service(self) -> FileService:
        return self.app.state.file_state["service"]  # type: ignore[no-any-return]

    async def upload(self, name: str, data: bytes) -> httpx.Response:
        return await self.http.post("/files", params={"name": name}, content=data)

    async def wait_indexed(self, file_id: str) -> dict[str, Any]:
        """Poll like the UI does until the record leaves `indexing`."""
        await self.service.wait_idle()
        for _ in range(200):
            record = (await self.http.get(f"/files/{file_id}")).json()
            if record["index_status"] != "indexing":
                return record  # type: ignore[no-any-return]
            await asyncio.sleep(0.05)
        raise AssertionError(f"{file_id} still indexing")


async def until(agent: FileAgentClient, file_id: str, done: Callable[[dict[str, Any]], bool],
                timeout_s: float = 60.0) -> dict[str, Any]:
    """Poll the record like the UI does until `done(record)`; generous, for a shared machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        record: dict[str, Any] = (await agent.http.get(f"/files/{file_id}")).json()
        if done(record):
            return record
        if loop.time() > deadline:
            raise AssertionError(f"{file_id} never reached the state awaited: {record}")
        await asyncio.sleep(0.1)


@asynccontextmanager
async def file_agent(deps: HubDeps, **overrides: Any) -> AsyncIterator[FileAgentClient]:
    """Run the file agent's app (lifespan included) over ASGI with settings overrides."""
    settings = deps.settings.model_copy(update=overrides)
    app_deps = HubDeps(settings=settings, embeddings=deps.embeddings, llm=deps.llm, db=deps.db)
    app = create_app(app_deps, "http://files.test")
    headers = {"Authorization": f"Bearer {settings.hub_token}"} if settings.hub_token else {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://files.test", headers=headers,
                                     timeout=60) as http:
            yield FileAgentClient(http, app, settings)


async def clear_records(db: Database) -> None:
    await db.execute("DELETE FROM file_records")
