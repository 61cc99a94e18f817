"""The web agent's long-lived MCP sessions (`SearchToolsetPool`) against the real search gateway process.

Sessions are counted by the MCP `initialize` handshakes the client runs (a counter around
`ClientSession.initialize`), never by timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from ai_llm.common.a2a.server import free_port
from ai_llm.common.runtime import HubDeps
from ai_llm.hub.process import stop_child
from ai_llm.web_research_agent.agent import WebResearchAgent
from ai_llm.web_research_agent.agent_server import create_app
from ai_llm.web_research_agent.search_tools.sessions import SearchToolsetPool
from tests.web_research_agent.conftest import make_deps, make_settings, start_gateway

GLOWFISH_Q = "How many glowfish did researchers count in Lake Varn?"
GLOWFISH_URL = "https://science.example.org/varn-glowfish"


@pytest.fixture
def initializes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry per MCP initialize handshake the client runs (failed ones included)."""
    calls: list[str] = []
    original = ClientSession.initialize

    async def counting(self: ClientSession, *args: Any, **kwargs: Any) -> Any:
        calls.append("initialize")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(ClientSession, "initialize", counting)
    return calls


@pytest.fixture
def own_gateway(hub_env: dict[str, str], web_corpus: Path, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A gateway process of this test only, on a port it keeps, so the test can restart it."""
    port = free_port()
    env = {**hub_env, "DATA_DIR": str(tmp_path / "gw-data")}
    state: dict[str, Any] = {"gateway": start_gateway(env, web_corpus, tmp_path / "logs", port)}
    state["restart"] = lambda: state.update(gateway=start_gateway(env, web_corpus, tmp_path / "logs", port))
    state["stop"] = lambda: stop_child(state["gateway"].child)
    try:
        yield state
    finally:
        stop_child(state["gateway"].child)


async def _ok(agent: WebResearchAgent) -> None:
    reply = await agent.research(GLOWFISH_Q, depth="snippets", language="en")
    assert reply.data["status"] == "ok", reply.data
    assert GLOWFISH_URL in [s["url"] for s in reply.data["sources"]]


async def test_consecutive_requests_reuse_one_session(web_deps: HubDeps, initializes: list[str]) -> None:
    pool = SearchToolsetPool(web_deps.settings)
    agent = WebResearchAgent(web_deps, pool.acquire)
    try:
        await _ok(agent)
        await _ok(agent)
        async with pool.acquire() as first, pool.acquire() as second:
            await first.search("Lake Varn glowfish")
            # Each request keeps its own call log over the shared sessions.
            assert len(first.calls) == 1 and second.calls == []
        assert len(initializes) == 1 and pool.sessions_opened == 1 and pool.retries == 0
    finally:
        await pool.aclose()
    assert pool.closed


async def test_concurrent_requests_share_one_session(web_deps: HubDeps, initializes: list[str]) -> None:
    pool = SearchToolsetPool(web_deps.settings)
    agent = WebResearchAgent(web_deps, pool.acquire)
    try:
        # Concurrent first requests wait for one opening instead of each opening its own.
        await asyncio.gather(*(_ok(agent) for _ in range(6)))
        async with pool.acquire() as tools:
            responses = await asyncio.gather(*(tools.search(q) for q in
                                               ["Lake Varn glowfish", "Old Harbor Lighthouse Pellmouth",
                                                "미세먼지 계절관리제", "반도체 수출 뉴스"] * 3))
        assert all(r.hits for r in responses)
        assert [r.query for r in responses[:4]] == ["Lake Varn glowfish", "Old Harbor Lighthouse Pellmouth",
                                                    "미세먼지 계절관리제", "반도체 수출 뉴스"]
        assert responses[0].hits[0].url == GLOWFISH_URL  # each caller got its own answer
        assert len(initializes) == 1 and pool.sessions_opened == 1
    finally:
        await pool.aclose()


@pytest.fixture
async def pooled_agent(own_gateway: dict[str, Any], embedding_server: str
                       ) -> AsyncIterator[tuple[WebResearchAgent, SearchToolsetPool]]:
    """The web agent on a session pool to the restartable gateway; the pool is closed afterwards."""
    deps = make_deps(make_settings(own_gateway["gateway"].url, embedding_server))
    pool = SearchToolsetPool(deps.settings)
    try:
        yield WebResearchAgent(deps, pool.acquire), pool
    finally:
        await pool.aclose()


async def test_restarted_gateway_is_reconnected_transparently(
        own_gateway: dict[str, Any], pooled_agent: tuple[WebResearchAgent, SearchToolsetPool],
        initializes: list[str]) -> None:
    agent, pool = pooled_agent
    await _ok(agent)
    own_gateway["stop"]()
    own_gateway["restart"]()
    # The restarted server no longer knows the session: the call fails on it and is retried on a new one.
    await _ok(agent)
    assert pool.sessions_opened == 2 and pool.retries == 1 and len(initializes) == 2
    await _ok(agent)  # and the new session is kept
    assert pool.sessions_opened == 2 and len(initializes) == 2


async def test_gateway_down_is_a_clear_error_then_recovers(
        own_gateway: dict[str, Any], pooled_agent: tuple[WebResearchAgent, SearchToolsetPool],
        initializes: list[str]) -> None:
    agent, pool = pooled_agent
    await _ok(agent)
    own_gateway["stop"]()
    # The kept session is dead and no new one can be opened: the same error as a gateway never reached.
    for _ in range(2):
        reply = await agent.research(GLOWFISH_Q, language="en")
        assert reply.data["status"] == "error" and "unreachable" in reply.data["error"], reply.data
        assert reply.text.startswith("The search tools cannot be reached")
    own_gateway["restart"]()
    await _ok(agent)
    assert pool.sessions_opened == 2


async def test_unreachable_gateway_through_the_pool(embedding_server: str) -> None:
    settings = make_settings(f"http://127.0.0.1:{free_port()}", embedding_server)
    pool = SearchToolsetPool(settings)
    agent = WebResearchAgent(make_deps(settings), pool.acquire)
    try:
        replies = await asyncio.gather(*(agent.research(GLOWFISH_Q, language="ko") for _ in range(3)))
        for reply in replies:
            assert reply.data["status"] == "error" and "unreachable" in reply.data["error"]
            assert reply.text.startswith("검색 도구에 연결할 수 없습니다")
        assert pool.sessions_opened == 0
    finally:
        await pool.aclose()


async def test_agent_app_keeps_its_sessions_for_its_lifespan(web_deps: HubDeps, initializes: list[str]) -> None:
    app = create_app(web_deps, "http://127.0.0.1:9")
    pool = app.state.search_tools
    assert isinstance(pool, SearchToolsetPool)
    async with app.router.lifespan_context(app):
        for _ in range(2):
            async with pool.acquire() as tools:
                assert (await tools.search("Lake Varn glowfish")).hits
        assert len(initializes) == 1
    assert pool.closed and pool.sessions_opened == 1
    assert not pool._open_sessions  # the sessions' owner task ended with the app
