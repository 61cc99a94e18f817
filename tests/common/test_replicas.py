"""Client-side balancing over real agent processes: replicas on distinct loopback addresses, one killed with
SIGKILL in the middle of a series of calls, then restarted. Behaviour only: no durations are asserted."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ai_llm.common.a2a.client import AgentUnavailable, RemoteAgent, is_transport_failure
from ai_llm.common.a2a.server import free_port
from ai_llm.common.settings import Settings
from ai_llm.hub.launcher import LaunchError, parse_replicas, replica_host
from ai_llm.hub.process import Child, start_module, stop_child, wait_http
from ai_llm.orchestrator_agent.registry import build_registry

#: Generous: the machine may be busy; tests wait for behaviour, they do not time it.
pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

WAIT_S = 120.0

Spawn = Callable[[int, int, float], Child]


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    """Start replica `replica` (1-based) of a benchmark agent on `replica_host(replica)`:`port`."""
    children: list[Child] = []

    def start(replica: int, port: int, delay: float) -> Child:
        host = replica_host(replica)
        child = start_module(f"rep_{replica}", "ai_llm.evals.orchestrator.bench_agent",
                             ["--port", str(port), "--host", host, "--name", f"rep_{replica}",
                              "--delay", str(delay)], {}, tmp_path)
        child.url = f"http://{host}:{port}"
        children.append(child)
        wait_http(child.url + "/healthz", child, timeout_s=WAIT_S)
        return child

    yield start
    for child in children:
        stop_child(child)


def kill_and_wait(child: Child) -> None:
    os.kill(child.proc.pid, signal.SIGKILL)
    child.proc.wait(30)


async def test_replicas_on_distinct_addresses_both_answer(spawn: Spawn) -> None:
    port = free_port()
    first, second = spawn(1, port, 0.0), spawn(2, port, 0.0)
    assert first.url != second.url and first.url is not None and second.url is not None
    agent = RemoteAgent([first.url, second.url], name="bench")
    replies = [await agent.ask("ping") for _ in range(6)]
    assert {r.text for r in replies} == {"rep_1 done", "rep_2 done"}  # both served, the calls were spread
    assert all(r.state == "completed" for r in replies)
    assert [h["calls"] for h in agent.health()] == [3, 3]
    assert not any(h["ejected"] for h in agent.health())


async def test_a_killed_replica_costs_no_failed_call_and_comes_back_after_its_restart(spawn: Spawn) -> None:
    port = free_port()
    # The agents sleep a little per call, so that calls are in flight on the replica when it is killed.
    first, second = spawn(1, port, 0.2), spawn(2, port, 0.2)
    assert first.url is not None and second.url is not None
    agent = RemoteAgent([first.url, second.url], name="bench", eject_s=0.5)
    replies = []
    for batch in range(8):
        calls = [asyncio.create_task(agent.ask(f"call {batch}.{i}")) for i in range(4)]
        if batch == 3:
            await asyncio.sleep(0.05)  # the batch's calls have reached both replicas
            kill_and_wait(first)
        replies += await asyncio.gather(*calls)  # any failure would raise here
    assert len(replies) == 32 and all(r.state == "completed" for r in replies)
    assert {r.text for r in replies[16:]} == {"rep_2 done"}  # after the kill only the survivor answers
    assert agent.health()[0]["failures"] >= 1

    spawn(1, port, 0.0)  # the launcher's restart: same address, same port
    deadline = time.monotonic() + WAIT_S
    texts: set[str] = set()
    while "rep_1 done" not in texts:
        assert time.monotonic() < deadline, "the restarted replica never got a call back"
        reply = await agent.ask("again")
        assert reply.state == "completed"
        texts.add(reply.text)
        await asyncio.sleep(0.1)
    assert agent.health()[0]["failures"] == 0 and not agent.health()[0]["ejected"]


async def test_every_replica_down_is_a_clear_error_naming_each() -> None:
    port = free_port()
    urls = [f"http://{replica_host(i)}:{port}" for i in (1, 2)]
    agent = RemoteAgent(urls, name="bench", connect_timeout_s=2)
    with pytest.raises(AgentUnavailable) as failure:
        await agent.ask("ping")
    assert all(url in str(failure.value) for url in urls)
    assert all(h["ejected"] and h["failures"] == 1 for h in agent.health())


def test_a_timeout_is_not_a_transport_failure_but_a_refusal_is() -> None:
    import httpx

    request = httpx.Request("POST", "http://127.0.0.2:1/")
    assert is_transport_failure(httpx.ConnectError("refused", request=request))
    assert not is_transport_failure(RuntimeError("an agent's own error"))
    wrapped = RuntimeError("call failed")
    wrapped.__cause__ = httpx.RemoteProtocolError("peer closed connection", request=request)
    assert is_transport_failure(wrapped)
    assert not is_transport_failure(httpx.ReadTimeout("slow", request=request))
    unavailable = httpx.HTTPStatusError("503", request=request, response=httpx.Response(503, request=request))
    assert is_transport_failure(unavailable)
    not_found = httpx.HTTPStatusError("404", request=request, response=httpx.Response(404, request=request))
    assert not is_transport_failure(not_found)


def test_replica_urls_come_from_settings_and_reach_the_orchestrator_registry() -> None:
    settings = Settings(_env_file=None, rag_agent_urls="http://127.0.0.2:10012, http://127.0.0.3:10012/",  # type: ignore[call-arg]
                        agent_eject_s=2.0)
    assert settings.agent_urls("internal_rag") == ["http://127.0.0.2:10012", "http://127.0.0.3:10012"]
    assert settings.agent_url("internal_rag") == "http://127.0.0.2:10012"  # callers that know one URL
    assert settings.agent_urls("web_research") == ["http://127.0.0.1:10011"]
    registry = build_registry(settings)
    assert registry["internal_rag"].urls == ["http://127.0.0.2:10012", "http://127.0.0.3:10012"]
    assert registry["internal_rag"].eject_s == 2.0
    assert registry["web_research"].urls == ["http://127.0.0.1:10011"]
    with pytest.raises(ValueError, match="RAG_AGENT_URLS"):
        Settings(_env_file=None, rag_agent_urls="127.0.0.2:10012")  # type: ignore[call-arg]


def test_replicas_option_is_parsed_with_short_and_full_names() -> None:
    assert parse_replicas("rag=2, web=3,file_management=1") == {"internal_rag": 2, "web_research": 3,
                                                                "file_management": 1}
    assert parse_replicas(None) == {}
    for bad in ("rag", "backend=2", "rag=x", "rag=0"):
        with pytest.raises(LaunchError, match="--replicas"):
            parse_replicas(bad)


def test_a_card_announcing_loopback_is_called_where_it_was_found() -> None:
    from ai_llm.common.a2a.client import reachable_card
    from ai_llm.common.a2a.server import make_card

    card = make_card("internal_rag", "rag", "http://127.0.0.1:10012", [{"id": "search"}])
    moved = reachable_card(card, "http://hub-b:10012")
    assert moved.supported_interfaces[0].url == "http://hub-b:10012/"
    assert card.supported_interfaces[0].url == "http://127.0.0.1:10012/"  # the cached card is untouched
    assert reachable_card(card, "http://127.0.0.3:10012") is card  # a local replica names itself already
    public = make_card("x", "x", "https://agents.example.com/a2a", [{"id": "s"}])
    assert reachable_card(public, "http://hub-b:10012").supported_interfaces[0].url == "https://agents.example.com/a2a/"


async def test_hub_servers_answer_kept_alive_connections_without_nagle_delay() -> None:
    """Accepted connections have Nagle off: a kept-alive response written in two parts is not held back ~40 ms
    waiting for the client's delayed ACK (asyncio sets TCP_NODELAY only for sockets made with IPPROTO_TCP)."""
    import socket

    from ai_llm.common.a2a.server import bind_socket

    sock = bind_socket("127.0.0.1", 0)
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            conn = transport.get_extra_info("socket")
            accepted.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
    try:
        _reader, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        nodelay = await asyncio.wait_for(accepted, WAIT_S)
        writer.close()
    finally:
        server.close()
    assert nodelay != 0
