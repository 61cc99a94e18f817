"""A2A plumbing over real HTTP between real processes on ephemeral ports."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ai_llm.common.a2a.client import AgentUnauthorized, AgentUnavailable, RemoteAgent
from ai_llm.common.a2a.events import AgentReply, StatusEvent
from ai_llm.common.a2a.server import (
    AgentRequest,
    HubAgentExecutor,
    Progress,
    bind_socket,
    build_agent_app,
    free_port,
    make_card,
    serve_app,
)
from ai_llm.common.store.conversations import MemoryConversationStore
from ai_llm.hub.process import Child, start_module, stop_child, wait_http

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

TOKEN = "t0ken-for-tests-0123456789"


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[object]:
    children: list[Child] = []

    def start(name: str, *extra: str, token: str | None = None) -> str:
        port = free_port()
        env = {"TEST_AGENT_TOKEN": token or ""}
        child = start_module(name, "tests.common.relay_agent", ["--port", str(port), "--name", name, *extra],
                             env, tmp_path)
        children.append(child)
        url = f"http://127.0.0.1:{port}"
        wait_http(url + "/.well-known/agent-card.json", child, timeout_s=60)
        return url

    yield start
    for child in children:
        stop_child(child)


async def test_two_agent_processes_exchange_a_message_with_streamed_status(spawn) -> None:  # type: ignore[no-untyped-def]
    leaf = spawn("leaf")
    relay = spawn("relay", "--peer", leaf)
    events: list[StatusEvent | AgentReply] = [
        e async for e in RemoteAgent(relay).stream("안녕", context_id="conv-1")]
    statuses = [e for e in events if isinstance(e, StatusEvent)]
    reply = events[-1]
    assert isinstance(reply, AgentReply)
    assert [(s.agent, s.stage, s.message) for s in statuses] == [
        ("leaf", "one", "step one"), ("leaf", "two", "step two")]
    assert statuses[0].progress == 0.5
    assert reply.text == "relayed[echo:안녕]"
    assert reply.data["status"] == "ok" and isinstance(reply.data["peer"]["pid"], int)
    assert reply.context_id == "conv-1" and reply.agent == "relay"


async def test_history_is_kept_per_context(spawn) -> None:  # type: ignore[no-untyped-def]
    leaf = RemoteAgent(spawn("leaf"))
    assert (await leaf.ask("one", context_id="a")).data["turns"] == 0
    assert (await leaf.ask("two", context_id="a")).data["turns"] == 2
    assert (await leaf.ask("three", context_id="b")).data["turns"] == 0


async def test_a_failing_handler_yields_a_failed_reply_not_a_hang(spawn) -> None:  # type: ignore[no-untyped-def]
    reply = await RemoteAgent(spawn("leaf")).ask("boom")
    assert reply.state == "failed" and reply.status == "error"
    # The person reads that it failed; the exception's text is in the data (and the log), not the reply text.
    assert "asked to fail" not in reply.text and reply.text.startswith("leaf")
    assert reply.data["error"] == "ValueError: asked to fail"


async def test_an_answer_streams_as_artifact_chunks_and_ends_as_the_whole_reply(spawn) -> None:  # type: ignore[no-untyped-def]
    """`Progress.stream_answer` sends what each call adds as an appended chunk of the answer artifact; the
    client sees each piece (`answer_delta`) and a final text that is the whole reply, not pieces plus reply."""
    events = [e async for e in RemoteAgent(spawn("leaf")).stream("write:one two three four")]
    deltas = [e for e in events if isinstance(e, StatusEvent) and e.stage == "answer_delta"]
    assert [d.data["delta"] for d in deltas] == ["one", " two", " three", " four"]
    assert deltas[-1].data["text"] == "one two three four"
    reply = events[-1]
    assert isinstance(reply, AgentReply) and reply.text == "one two three four\n\nSources: none"


async def test_token_is_required_when_configured(spawn) -> None:  # type: ignore[no-untyped-def]
    url = spawn("secure", token=TOKEN)
    card = (await RemoteAgent(url).card())  # discovery stays public and declares the scheme
    assert "bearer" in card.security_schemes
    person = card.security_schemes["person"].api_key_security_scheme
    assert (person.location, person.name) == ("header", "X-Hub-Identity") and "secure" in person.description
    assert [list(r.schemes) for r in card.security_requirements] == [["bearer"]]  # the person is optional
    with pytest.raises(AgentUnauthorized):
        await RemoteAgent(url).ask("hi")
    with pytest.raises(AgentUnauthorized):
        await RemoteAgent(url, token="wrong-token-000000000").ask("hi")
    assert (await RemoteAgent(url, token=TOKEN).ask("hi")).text == "echo:hi"


async def test_invalid_json_rpc_gets_a_json_rpc_error(spawn) -> None:  # type: ignore[no-untyped-def]
    url = spawn("leaf")
    async with httpx.AsyncClient() as http:
        garbage = await http.post(url + "/", content=b"{not json", headers={"Content-Type": "application/json"})
        assert garbage.status_code < 500 and garbage.json()["error"]["code"] == -32700
        unknown = await http.post(url + "/", json={"jsonrpc": "2.0", "id": 1, "method": "NoSuchMethod", "params": {}})
        assert unknown.json()["error"]["code"] == -32601
        invalid = await http.post(url + "/", json={"jsonrpc": "2.0", "id": 2, "method": "SendMessage",
                                                    "params": {"message": "not an object"}})
        assert "error" in invalid.json()
        # A body not declared JSON (a form, text/plain, none) is refused as such, before it is read.
        for headers in ({"Content-Type": "text/plain"}, {"Content-Type": "application/x-www-form-urlencoded"}, {}):
            wrong = await http.post(url + "/", headers=headers, content=b'{"jsonrpc": "2.0", "id": 3, '
                                    b'"method": "SendMessage", "params": {}}')
            assert wrong.status_code == 415 and wrong.json()["error"]["code"] == -32005
        charset = await http.post(url + "/", content=b"{not json", headers={"Content-Type": "Application/JSON; charset=utf-8"})
        assert charset.json()["error"]["code"] == -32700  # JSON with a charset is JSON


async def test_unreachable_agent_is_a_clear_error() -> None:
    with pytest.raises(AgentUnavailable, match="unreachable"):
        await RemoteAgent(f"http://127.0.0.1:{free_port()}", connect_timeout_s=1).ask("hi")


async def test_file_parts_reach_the_handler_as_base64(spawn) -> None:  # type: ignore[no-untyped-def]
    import base64
    import uuid

    from a2a.client import ClientConfig, ClientFactory
    from a2a.types import Message, Part, Role, SendMessageRequest

    url = spawn("leaf")
    agent = RemoteAgent(url)
    card = await agent.card()
    message = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[
        Part(text="store this"), Part(raw=b"%PDF-1.4 bytes", filename="보고서.pdf", media_type="application/pdf")])
    async with httpx.AsyncClient() as http:
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        responses = [r async for r in client.send_message(SendMessageRequest(message=message))]
    artifacts = [a for r in responses if r.HasField("task") for a in r.task.artifacts]
    from ai_llm.common.a2a.client import _parts

    _, data = _parts(artifacts[0].parts)
    [received] = data["files"]
    assert received["name"] == "보고서.pdf" and received["media_type"] == "application/pdf"
    assert base64.b64decode(received["content_b64"]) == b"%PDF-1.4 bytes"


async def test_agent_process_checks_host_and_origin_and_serves_a_cacheable_card(spawn) -> None:  # type: ignore[no-untyped-def]
    url = spawn("leaf")
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
    async with httpx.AsyncClient(base_url=url) as http:
        rebound = await http.get("/.well-known/agent-card.json", headers={"Host": "evil.example.com"})
        assert rebound.status_code == 421
        cross = await http.post("/", json=rpc, headers={"Origin": "http://evil.example.com", "A2A-Version": "1.0"})
        assert cross.status_code == 403
        card = await http.get("/.well-known/agent-card.json")
        assert card.headers["cache-control"].startswith("public, max-age=") and card.headers["last-modified"]
        cached = await http.get("/.well-known/agent-card.json", headers={"If-None-Match": card.headers["etag"]})
        assert cached.status_code == 304
    assert (await RemoteAgent(url).ask("hi")).text == "echo:hi"  # the A2A client sends neither header


def test_free_port_is_bindable_and_outside_the_range_of_outgoing_connections() -> None:
    """Outgoing connections take their source ports from the kernel's ephemeral range; a port drawn below it
    cannot be taken by one between the check and the child's bind."""
    import socket

    from ai_llm.common.a2a.server import _ephemeral_low

    ports = {free_port() for _ in range(20)}
    assert all(1024 <= p < _ephemeral_low() for p in ports)
    assert len(ports) > 1  # drawn at random, not one fixed port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", ports.pop()))


def test_free_port_never_hands_out_a_port_twice() -> None:
    """Callers bind the ports later, in children: two draws of one port (still free here) would start two
    children on it. 600 random draws from 12,000 ports would repeat one about 15 times."""
    ports = [free_port() for _ in range(600)]
    assert len(set(ports)) == len(ports)


@pytest.mark.parametrize(("setting", "traced"), [(None, "False"), ("true", "True")])
def test_a2a_sdk_tracing_is_off_unless_a_deployment_turns_it_on(setting: str | None, traced: str) -> None:
    """The SDK spans every call of its traced classes when OpenTelemetry's API is importable, with or without a
    tracer: hub processes turn that off by default, and `OTEL_INSTRUMENTATION_A2A_SDK_ENABLED=true` keeps it."""
    env = {k: v for k, v in os.environ.items() if k != "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"}
    if setting is not None:
        env["OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"] = setting
    code = ("import ai_llm.common.a2a.server\nfrom a2a.utils import telemetry\n"
            "print(telemetry.otel_installed, telemetry.otel_enabled)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         check=True).stdout.split()
    assert out == ["True", traced]


async def test_an_agent_that_reads_no_history_keeps_none() -> None:
    """`history_turns=0` (web, file and report agents): no history is read or written for a request."""

    class CountingStore(MemoryConversationStore):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[str] = []

        async def history(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            self.calls.append("history")
            return await super().history(*args, **kwargs)

        async def append(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            self.calls.append("append")
            return await super().append(*args, **kwargs)

    seen: list[int] = []

    async def handler(request: AgentRequest, progress: Progress) -> AgentReply:
        seen.append(len(request.history))
        return AgentReply(text="ok", data={"status": "ok"})

    servers, agents, stores = [], [], []
    for turns in (0, 10):
        store = CountingStore()
        sock = bind_socket("127.0.0.1", 0)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        card = make_card("probe", "test agent", url, [{"id": "echo", "description": "echo"}])
        app = build_agent_app(card, HubAgentExecutor("probe", handler, history_turns=turns, store=store),
                              database_url=None)
        servers.append(asyncio.create_task(serve_app(app, sock)))
        agents.append(RemoteAgent(url))
        stores.append(store)
    try:
        for agent in agents:
            for text in ("one", "two"):
                assert (await agent.ask(text, context_id="conv")).text == "ok"
        assert seen == [0, 0, 0, 2]
        assert stores[0].calls == [] and stores[1].calls == ["history", "append"] * 2
    finally:
        for server in servers:
            server.cancel()
