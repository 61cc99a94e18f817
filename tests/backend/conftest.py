"""Backend test fixtures: the backend as a real process in front of real stand-in agent processes and a real
search gateway.

The stand-ins (tests/backend/servers/) are small real servers speaking the orchestrator's A2A reply shape
and the file agent's HTTP routes; tests against the real orchestrator, file and RAG agents live in
test_real_hub.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_llm.evals.backend.hub import OfflineHub, offline_hub
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


def start_search_gateway(procs: Processes, env: dict[str, str], name: str = "search-gateway") -> str:
    """A real search-gateway process (`python -m ai_llm.search_gateway`, shipped configuration) with `env`;
    returns its base URL."""
    child = procs.start(name, "ai_llm.search_gateway", env, "/healthz")
    assert child.url
    return child.url


@pytest.fixture(scope="session")
def search_gateway(backend_procs: Processes, stand_in_env: dict[str, str], session_dir: Path) -> str:
    """The search gateway (no token, no search keys: the web chain is DuckDuckGo) on the session's database,
    so its telemetry is the rows the tests record there."""
    return start_search_gateway(backend_procs, {**stand_in_env, "DATA_DIR": str(session_dir / "gateway-data")})


@pytest.fixture(scope="session")
def backend_url(backend_procs: Processes, stand_in_env: dict[str, str], stand_in_orchestrator: str,
                stand_in_file_agent: str, search_gateway: str) -> str:
    """A backend process (`python -m backend`) wired to the stand-in orchestrator and file agent and to the
    search gateway."""
    env = {**stand_in_env, "ORCHESTRATOR_URL": stand_in_orchestrator, "FILE_AGENT_URL": stand_in_file_agent,
           "SEARCH_GATEWAY_URL": search_gateway, "MAX_UPLOAD_MB": str(UPLOAD_LIMIT_MB)}
    child = backend_procs.start("backend", "backend", env, "/api/health")
    assert child.url
    return child.url


#: The whole hubs' step limits: the product's 20 s for the RAG step sends a slow document search to the web
#: fallback, which a loaded test machine would turn into a failed assertion (tests never fail on time).
TEST_AGENT_TIMEOUTS = "internal_rag=120"


@pytest.fixture(scope="session")
def real_hub(pg_url: str, embedding_server: str, session_dir: Path) -> Iterator[OfflineHub]:
    """The whole offline hub (real orchestrator, RAG, file, web, report agents, search gateway and the
    backend serving frontend/dist) on ephemeral ports, sharing the session's Postgres and embedding server."""
    with offline_hub(session_dir / "real-hub", eval_data=EVAL_DATA, database_url=pg_url,
                     embedding_url=embedding_server, agent_timeouts=TEST_AGENT_TIMEOUTS) as hub:
        yield hub


#: The service credential and first admin password of `team_hub`.
TEAM_HUB_TOKEN = "team-hub-service-token-1234"
TEAM_HUB_ADMIN_PASSWORD = "admin-password-for-tests"  # the session database has one `admin` for every test


@pytest.fixture(scope="session")
def team_hub(pg_url: str, embedding_server: str, session_dir: Path) -> Iterator[OfflineHub]:
    """The whole offline hub with accounts on (`HUB_TOKEN` and `HUB_ADMIN_PASSWORD`), on the session's
    Postgres and embedding server, its web search over the local HotpotQA corpus."""
    with offline_hub(session_dir / "team-hub", eval_data=EVAL_DATA, database_url=pg_url,
                     embedding_url=embedding_server, hub_token=TEAM_HUB_TOKEN,
                     admin_password=TEAM_HUB_ADMIN_PASSWORD, agent_timeouts=TEST_AGENT_TIMEOUTS) as hub:
        yield hub


@pytest.fixture(scope="session")
def llm_hub(pg_url: str, embedding_server: str, session_dir: Path, backend_procs: Processes) -> Iterator[OfflineHub]:
    """The whole hub with a model connected: every agent's LLM calls go to a scripted server on the OpenAI wire
    format (`servers/openai_stand_in.py`, whose answers stream in pieces), on the session's Postgres."""
    model = backend_procs.start("openai-stand-in", "tests.backend.servers.openai_stand_in", {}, "/v1/models")
    with offline_hub(session_dir / "llm-hub", database_url=pg_url, embedding_url=embedding_server,
                     llm_url=f"{model.url}/v1", llm_model="stand-in", agent_timeouts=TEST_AGENT_TIMEOUTS) as hub:
        yield hub
