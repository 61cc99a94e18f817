"""`GET /api/health` tells an agent the launcher is restarting from one that is down, from the launcher's
status file (written here by the same writer the launcher uses), and ignores a stale or foreign one."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from ai_llm.common.a2a.server import free_port
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.hub.supervision import HubStatus, ProcessStatus, status_path, write_hub_status
from backend.api.main import create_app


@asynccontextmanager
async def health_of(settings: Settings, db: Database) -> AsyncIterator[dict[str, Any]]:
    app = create_app(settings, db=db)
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        response = await http.get("/api/health")
        assert response.status_code == 200
        yield response.json()


def process(name: str, state: str, port: int | None, restarts: int, url: str | None = None) -> ProcessStatus:
    return ProcessStatus(name=name, state=state, pid=None, since=time.time(), restarts=restarts,  # type: ignore[arg-type]
                         port=port, url=url or (f"http://127.0.0.1:{port}" if port else None), log=f"/logs/{name}.log")


def write_status(data_dir: Path, launcher_pid: int, *processes: ProcessStatus) -> None:
    write_hub_status(status_path(data_dir), HubStatus(launcher_pid=launcher_pid, updated=time.time(),
                                                      processes={p.name: p for p in processes}))


def dead_agents(tmp_path: Path, **overrides: object) -> tuple[Settings, dict[str, int]]:
    ports = {name: free_port() for name in ("orchestrator", "internal_rag", "web_research", "search_gateway")}
    settings = Settings(_env_file=None, data_dir=tmp_path,  # type: ignore[call-arg]
                        orchestrator_url=f"http://127.0.0.1:{ports['orchestrator']}",
                        rag_agent_url=f"http://127.0.0.1:{ports['internal_rag']}",
                        web_agent_url=f"http://127.0.0.1:{ports['web_research']}",
                        search_gateway_url=f"http://127.0.0.1:{ports['search_gateway']}", **overrides)
    return settings, ports


async def test_an_agent_being_restarted_is_restarting_not_down(db: Database, tmp_path: Path) -> None:
    settings, ports = dead_agents(tmp_path)
    write_status(tmp_path, os.getpid(),
                 process("internal_rag", "restarting", ports["internal_rag"], restarts=2),
                 process("web_research", "gave_up", ports["web_research"], restarts=4),
                 process("search_gateway", "restarting", ports["search_gateway"], restarts=1),
                 # Restarting, but not the process this backend talks to (another port).
                 process("orchestrator", "restarting", free_port(), restarts=1))
    async with health_of(settings, db) as body:
        agents = body["agents"]
        assert agents["internal_rag"] == {"url": settings.agent_url("internal_rag"), "ok": False,
                                          "state": "restarting", "restarts": 2}
        assert agents["web_research"]["state"] == "down" and agents["web_research"]["restarts"] == 4
        assert agents["orchestrator"]["state"] == "down" and agents["orchestrator"]["restarts"] == 0
        assert agents["file_management"]["state"] == "down"
        assert body["search"]["gateway"]["state"] == "restarting"
        assert body["database"] == {"ok": True, "state": "ok", "restarts": 0}


async def test_what_answers_is_ok_whatever_the_status_file_says(db: Database, tmp_path: Path) -> None:
    settings, _ = dead_agents(tmp_path, database_url="postgresql://hub@/hub?host=/tmp/hub-socket")
    write_status(tmp_path, os.getpid(), process("postgres", "restarting", None, restarts=3,
                                                 url=settings.database_url))
    async with health_of(settings, db) as body:
        assert body["database"] == {"ok": True, "state": "ok", "restarts": 3}


async def test_a_database_being_restarted_is_restarting(tmp_path: Path) -> None:
    url = "postgresql://hub@/hub?host=/nonexistent-hub-socket-dir"
    settings, _ = dead_agents(tmp_path, database_url=url)
    write_status(tmp_path, os.getpid(), process("postgres", "restarting", None, restarts=1, url=url))
    async with health_of(settings, Database(url)) as body:  # never opened: every query fails
        assert body["database"] == {"ok": False, "state": "restarting", "restarts": 1}


@pytest.fixture
def gone_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    return gone.pid


async def test_a_status_file_left_by_a_launcher_that_is_gone_is_ignored(db: Database, tmp_path: Path,
                                                                        gone_pid: int) -> None:
    settings, ports = dead_agents(tmp_path)
    write_status(tmp_path, gone_pid, process("internal_rag", "restarting", ports["internal_rag"], restarts=1))
    async with health_of(settings, db) as body:
        assert body["agents"]["internal_rag"]["state"] == "down"
        assert body["agents"]["internal_rag"]["restarts"] == 0
