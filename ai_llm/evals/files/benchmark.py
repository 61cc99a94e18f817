"""`hub bench files`: upload throughput through `POST /files` (streamed into the store, hashed and
type-checked) against writing the same bytes straight to disk, and the peak Python heap during an
upload (streaming keeps it far below the file size)."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from ai_llm.common.embeddings import index_model
from ai_llm.common.llm import LocalEngine
from ai_llm.common.runtime import HubDeps
from ai_llm.common.settings import Settings, get_settings
from ai_llm.common.store.db import Database, migrate, start_embedded_postgres
from ai_llm.file_management_agent.agent_server import create_app
from ai_llm.file_management_agent.rag_index import IndexResult

CHUNK = 64 * 1024


def _text_block(size: int) -> bytes:
    line = "업로드 벤치마크 line of plain UTF-8 text for the file store 0123456789\n".encode()
    return (line * (size // len(line) + 1))[:size]


class _NoIndex:
    """The benchmark measures the store path; indexing is the RAG agent's benchmark."""

    async def index(self, **_: Any) -> IndexResult:
        return IndexResult("skipped", 0, "benchmark: indexing not measured")

    async def delete(self, storage_ref: str) -> int:
        return 0

    async def update(self, storage_ref: str, file_name: str, file_url: str, visibility: str | None = None) -> int:
        return 0


def _disk_write(path: Path, data: bytes) -> float:
    """Seconds to write `data` in the same chunks, without fsync (the store does not fsync either)."""
    started = time.perf_counter()
    with open(path, "wb") as f:
        for i in range(0, len(data), CHUNK):
            f.write(data[i:i + CHUNK])
    return time.perf_counter() - started


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    for i in range(0, len(data), CHUNK):
        yield data[i:i + CHUNK]


async def run_bench(size_mb: float = 20.0, rounds: int = 3, database_url: str | None = None) -> dict[str, Any]:
    """Upload `rounds` files of `size_mb` through the app; compare with a plain chunked disk write.

    Starts its own embedded Postgres in a temporary directory unless `database_url` is given.
    """
    data = _text_block(int(size_mb * 1024 * 1024))
    with tempfile.TemporaryDirectory(prefix="hub-bench-files-") as tmp:
        root = Path(tmp)
        server = None
        url = database_url or ""
        if not database_url:
            server, url = await asyncio.to_thread(start_embedded_postgres, root / "pg")
        try:
            await migrate(url, *index_model(get_settings()))
            async with Database(url) as db:
                settings = Settings(database_url=url, data_dir=root / "data", max_upload_mb=size_mb * 2,
                                    _env_file=None)  # type: ignore[call-arg]
                deps = HubDeps(settings=settings, embeddings=None, llm=LocalEngine(), db=db)  # type: ignore[arg-type]
                app = create_app(deps, "http://bench", rag_index=_NoIndex())
                baseline_s: list[float] = []
                upload_s: list[float] = []
                peaks: list[int] = []
                async with app.router.lifespan_context(app):
                    transport = httpx.ASGITransport(app=app)
                    async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=300) as http:
                        for i in range(rounds):
                            baseline_s.append(await asyncio.to_thread(_disk_write, root / f"base-{i}.bin", data))
                            tracemalloc.start()
                            started = time.perf_counter()
                            response = await http.post("/files", params={"name": f"bench-{i}.txt"},
                                                       content=_chunks(data))
                            upload_s.append(time.perf_counter() - started)
                            peaks.append(tracemalloc.get_traced_memory()[1])
                            tracemalloc.stop()
                            response.raise_for_status()
                            await app.state.file_state["service"].wait_idle()
                    with contextlib.suppress(Exception):
                        await app.state.file_state["service"].wait_idle()
        finally:
            if server is not None:
                await asyncio.to_thread(server.cleanup)
    best_base, best_upload = min(baseline_s), min(upload_s)
    warm_peak = max(peaks[1:] or peaks)  # the first upload also pays one-time imports and caches
    mb = len(data) / (1024 * 1024)
    return {"file_mb": round(mb, 1), "rounds": rounds,
            "upload_mb_per_s": round(mb / best_upload, 1), "disk_write_mb_per_s": round(mb / best_base, 1),
            "upload_vs_disk_write_ratio": round(best_base / best_upload, 3),
            "peak_heap_mb_during_upload": round(warm_peak / (1024 * 1024), 2),
            "peak_heap_vs_file_size_ratio": round(warm_peak / len(data), 4)}
