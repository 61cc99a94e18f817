"""Backend test fixtures: the backend as a real process in front of real stand-in agent processes.

The stand-ins (tests/backend/servers/) are small real servers speaking the orchestrator's A2A reply shape
and the file agent's HTTP routes; tests against the real orchestrator, file and RAG agents live in
test_real_hub.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.offline_hub import OfflineHub, offline_hub
from tests.conftest import EVAL_DATA, AgentProcesses

UPLOAD_LIMIT_MB = 1


#: Real processes on ephemeral ports, stopped together; backend tests pass each one's whole environment.
Processes = AgentProcesses


@pytest.fixture(scope="session")
def backend_procs(session_dir: Path) -> Iterator[Processes]:
    procs = Processes({}, session_dir / "backend-logs")
    yield procs
    procs.stop_all()


@pytest.fixture(scope="session")
def stand_in_env(pg_url: str, session_dir: Path) -> dict[str, str]:
    return {"DATABASE_URL": pg_url, "DATA_DIR": str(session_dir / "backend-data")}


@pytest.fixture(scope="session")
def stand_in_orchestrator(backend_procs: Processes, stand_in_env: dict[str, str]) -> str:
    child = backend_procs.start("orchestrator-stand-in", "tests.backend.servers.orchestrator_stand_in",
                                stand_in_env, "/.well-known/agent-card.json")
    assert child.url
    return child.url


@pytest.fixture(scope="session")
def stand_in_file_agent(backend_procs: Processes, stand_in_env: dict[str, str], session_dir: Path) -> str:
    child = backend_procs.start("file-agent-stand-in", "tests.backend.servers.file_agent_stand_in", stand_in_env,
                                "/healthz", ["--dir", str(session_dir / "stand-in-files")])
    assert child.url
    return child.url


@pytest.fixture(scope="session")
def backend_url(backend_procs: Processes, stand_in_env: dict[str, str], stand_in_orchestrator: str,
                stand_in_file_agent: str) -> str:
    """A backend process (`python -m backend`) wired to the stand-in orchestrator and file agent."""
    env = {**stand_in_env, "ORCHESTRATOR_URL": stand_in_orchestrator, "FILE_AGENT_URL": stand_in_file_agent,
           "MAX_UPLOAD_MB": str(UPLOAD_LIMIT_MB)}
    child = backend_procs.start("backend", "backend", env, "/api/health")
    assert child.url
    return child.url


@pytest.fixture(scope="session")
def real_hub(pg_url: str, embedding_server: str, session_dir: Path) -> Iterator[OfflineHub]:
    """The whole offline hub (real orchestrator, RAG, file, web, report agents, search gateway and the
    backend serving frontend/dist) on ephemeral ports, sharing the session's Postgres and embedding server."""
    with offline_hub(session_dir / "real-hub", eval_data=EVAL_DATA, database_url=pg_url,
                     embedding_url=embedding_server) as hub:
        yield hub
