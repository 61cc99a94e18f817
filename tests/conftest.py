"""Shared fixtures: real embedded Postgres, the real embedding server process, agents as real processes.

Session-scoped, so the whole suite pays once for Postgres (~2 s) and the embedding model (~7 s). Every test is
marked `integration` when it needs one of them (or another real server or process, `INTEGRATION_FIXTURES`, or
its module says so), else `unit`: `pytest -m unit` runs the fast in-process tests alone.
No test talks to the OpenAI API: the LLM defaults to the offline engine because the environment has no
key (we clear `OPENAI_*` here so a developer's shell cannot leak one in).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.llm import LocalEngine
from ai_llm.common.runtime import HubDeps
from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.common.store.db import Database, migrate, start_embedded_postgres
from ai_llm.hub.process import Child, start_module, stop_child, wait_http

for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HUB_TOKEN", "DATABASE_URL", "SUPABASE_URL", "SUPABASE_KEY",
             "TAVILY_API_KEY", "OPENAI_WEB_SEARCH_API_KEY", "GEMINI_API_KEY", "HUB_HOST", "MCP_SERVERS",
             "EMBEDDING_PROVIDER", "EMBEDDING_URL"):
    os.environ.pop(_var, None)

EVAL_DATA = Path(os.environ.get("HUB_EVAL_DATA", PROJECT_ROOT.parent / "shared" / "eval-data"))
EMBEDDING_MODEL = "multilingual-e5-small"
EMBEDDING_DIM = 384


#: Fixtures that start a real process, server or database; a test that needs one (directly or through another
#: fixture) is an integration test.
INTEGRATION_FIXTURES = frozenset({
    "pg_url", "embedding_server", "agent_processes", "backend_procs", "local_llm", "page_server", "gateway",
    "fake_api", "scripted", "victim"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        heavy = bool(fixtures & INTEGRATION_FIXTURES) or any(
            item.get_closest_marker(name) for name in ("integration", "e2e", "llm_server"))
        item.add_marker(pytest.mark.integration if heavy else pytest.mark.unit)


def eval_file(relative: str, what: str = "evaluation file") -> Path:
    """A file of ../shared/eval-data (`HUB_EVAL_DATA`), or skip with the reason when it is absent."""
    path = EVAL_DATA / relative
    if not path.exists():
        pytest.skip(f"{what} {path} is not present on this machine")
    return path


def eval_pdf(name: str) -> Path:
    """A PDF from ../shared/eval-data/pdfs, or skip with the reason when the folder is absent."""
    return eval_file(f"pdfs/{name}", "evaluation PDF")


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hub")


def pg_data_dir() -> Path:
    """A fresh directory for an embedded Postgres cluster.

    Not under pytest's tmp_path: as root, pgserver runs Postgres as the `pgserver` user, and every pytest
    session start re-chmods `/tmp/pytest-of-root` to 0700, which would lock a running server out of its
    data when test sessions overlap.
    """
    return Path(tempfile.mkdtemp(prefix="hub-test-pg-"))


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of a real embedded Postgres 16 + pgvector, migrated, for the whole session."""
    data_dir = pg_data_dir()
    server, url = start_embedded_postgres(data_dir / "pg")
    asyncio.run(migrate(url, EMBEDDING_MODEL, EMBEDDING_DIM))
    yield url
    server.cleanup()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def embedding_server(session_dir: Path) -> Iterator[str]:
    """Base URL (`…/v1`) of a real embedding-server process serving multilingual-e5-small (the offline default)."""
    port = free_port()
    child = start_module("embedding_server", "ai_llm.embedding_server", ["--port", str(port)], {},
                         session_dir / "logs")
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", child, timeout_s=60)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop_child(child)


@pytest.fixture(scope="session")
def hub_env(pg_url: str, embedding_server: str, session_dir: Path) -> dict[str, str]:
    """Environment for hub child processes wired to the session's Postgres and embedding server."""
    return {"DATABASE_URL": pg_url, "EMBEDDING_URL": embedding_server, "DATA_DIR": str(session_dir / "data")}


@pytest.fixture
def settings(pg_url: str, embedding_server: str, tmp_path: Path) -> Settings:
    """Settings for in-process components: real DB and embeddings, offline LLM, a fresh data dir."""
    return Settings(database_url=pg_url, embedding_url=embedding_server, data_dir=tmp_path / "data",
                    _env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def embeddings(embedding_server: str) -> OpenAIEmbeddings:
    return OpenAIEmbeddings(embedding_server, EMBEDDING_MODEL)


@pytest.fixture
async def db(pg_url: str) -> AsyncIterator[Database]:
    database = await Database(pg_url).open()
    yield database
    await database.close()


@pytest.fixture
async def deps(settings: Settings, embeddings: OpenAIEmbeddings, db: Database) -> HubDeps:
    """Adapters for in-process agent tests (offline LLM engine over the real embedding server)."""
    return HubDeps(settings=settings, embeddings=embeddings, llm=LocalEngine(), db=db)


class AgentProcesses:
    """Starts hub modules as real processes on ephemeral ports; stops them all at the end."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = env
        self.log_dir = log_dir
        self.children: list[Child] = []

    def start(self, name: str, module: str, env: dict[str, str] | None = None,
              health_path: str = "/.well-known/agent-card.json", extra_args: list[str] | None = None,
              timeout_s: float = 60) -> Child:
        port = free_port()
        child = start_module(f"{name}-{port}", module, ["--port", str(port), *(extra_args or [])],
                             {**self.env, **(env or {})}, self.log_dir)
        child.url = f"http://127.0.0.1:{port}"
        self.children.append(child)
        wait_http(child.url + health_path, child, timeout_s=timeout_s)
        return child

    def stop_all(self) -> None:
        for child in reversed(self.children):
            stop_child(child)


@pytest.fixture
def agent_processes(hub_env: dict[str, str], tmp_path: Path) -> Iterator[AgentProcesses]:
    """Factory for real agent processes wired to the session's DB and embedding server."""
    procs = AgentProcesses({**hub_env, "DATA_DIR": str(tmp_path / "data")}, tmp_path / "logs")
    yield procs
    procs.stop_all()
