"""Server-side A2A plumbing: card builder, executor adapter, app builder, process runner.

An agent is a `Handler`: `async (AgentRequest, Progress) -> AgentReply`. `HubAgentExecutor` adapts it to
the a2a-sdk `AgentExecutor` (task creation, streamed status updates, the answer artifact, failures as a
failed task with a readable message), `build_agent_app` wraps it in a Starlette app with the agent card
at `/.well-known/agent-card.json` (cacheable, with 304s), JSON-RPC at `/`, the Host/Origin guard and a
bearer-token check when `HUB_TOKEN` is set.

State: with a database configured (`DATABASE_URL`, which the launcher always sets), A2A tasks live in the
a2a-sdk's `DatabaseTaskStore` and per-conversation history in Postgres (`conversation_store.AgentState`), so
replicas of an agent share them and a restart keeps them; without one, both stay in this process's memory.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import logging
import random
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import EllipsisType
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from a2a.helpers.proto_helpers import (
    get_data_parts,
    get_text_parts,
    new_data_part,
    new_message,
    new_task_from_user_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    TaskState,
)
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ai_llm.common import identity
from ai_llm.common.a2a.card_route import agent_card_route
from ai_llm.common.a2a.events import STATUS_ERROR, AgentReply, normalize_numbers
from ai_llm.common.a2a.request_handler import HubRequestHandler
from ai_llm.common.degraded import collect_degraded
from ai_llm.common.heap import freeze_heap
from ai_llm.common.http.guard import HostOriginGuard
from ai_llm.common.settings import get_settings
from ai_llm.common.store.conversations import AgentState, ConversationStore, MemoryConversationStore
from ai_llm.common.usage import collect_usage

log = logging.getLogger(__name__)

HISTORY_TURNS = 10


@dataclass
class AgentRequest:
    """What an agent handler receives.

    Attributes:
        text: the user's text (all text parts joined).
        data: the merged data parts of the message (e.g. `{"skill": "verify_fact"}`).
        context_id: the A2A conversation id.
        history: earlier turns of this conversation, oldest first: `{"role": "user"|"agent", "text"}`.
        metadata: the message metadata.
        store: the agent's conversation store (Postgres when a database is configured, so every replica
            sees the same values); None when the handler is called directly (tests).
    """

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    context_id: str = ""
    task_id: str = ""
    history: list[dict[str, str]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    store: ConversationStore | None = None


class Progress:
    """Callable given to a handler to stream status updates.

    `await progress("🔍 검색 중…", stage="search", progress=0.3)`; the orchestrator forwards sub-agent
    events with `agent=` set to the sub-agent's name.
    """

    def __init__(self, agent: str, updater: TaskUpdater | None = None,
                 sink: Callable[[dict[str, Any], str], Awaitable[None]] | None = None) -> None:
        self.agent = agent
        self._updater = updater
        self._sink = sink
        self.events: list[dict[str, Any]] = []
        self.streamed = ""  # the answer text sent so far (`stream_answer`)
        self.answer_artifact_id = f"answer-{uuid.uuid4().hex}"
        self.deltas = 0

    async def stream_answer(self, text: str) -> None:
        """Send the answer as it is written: `text` is the whole answer so far; what it adds to the text already
        sent goes out as a chunk of the `answer` artifact (`append`, `lastChunk: false`). The final reply
        replaces that artifact whole (`HubAgentExecutor.execute`), so a reply that ends differently from what
        was streamed (a rejected draft) still ends right. A text that does not extend what was sent waits for
        the final reply."""
        if not text.startswith(self.streamed) or len(text) == len(self.streamed):
            return
        delta, first = text[len(self.streamed):], not self.streamed
        self.streamed = text
        self.deltas += 1
        if self._sink is not None:
            await self._sink({"agent": self.agent, "stage": "answer_delta", "progress": None, "delta": delta}, "")
        if self._updater is not None:
            await self._updater.add_artifact([new_text_part(delta, media_type="text/markdown")],
                                             artifact_id=self.answer_artifact_id, name="answer",
                                             append=not first, last_chunk=False)

    async def __call__(self, message: str, *, stage: str = "", progress: float | None = None,
                       agent: str | None = None, data: dict[str, Any] | None = None) -> None:
        payload: dict[str, Any] = {"agent": agent or self.agent, "stage": stage, "progress": progress}
        if data:
            payload.update(data)
        self.events.append({**payload, "message": message})
        if self._sink is not None:
            await self._sink(payload, message)
        if self._updater is not None:
            status_message = new_message([new_text_part(message), new_data_part(payload)],
                                         context_id=self._updater.context_id, task_id=self._updater.task_id)
            await self._updater.update_status(TaskState.TASK_STATE_WORKING, message=status_message)


Handler = Callable[[AgentRequest, Progress], Awaitable[AgentReply]]


class HubAgentExecutor(AgentExecutor):
    """Adapts a `Handler` to the a2a-sdk executor interface.

    Args:
        name: the agent's name (tags status events).
        handler: the agent logic.
        history_turns: turns of history kept per `context_id`; 0 for an agent whose handler reads no
            history (it is then neither read nor written: two SQL statements fewer per request).
        store: where history (and the handler's per-conversation values) live; `build_agent_app` puts
            the Postgres store here when a database is configured. Default: this process's memory.
    """

    def __init__(self, name: str, handler: Handler, history_turns: int = HISTORY_TURNS,
                 store: ConversationStore | None = None) -> None:
        self.name = name
        self.handler = handler
        self.history_turns = history_turns
        self.store: ConversationStore = store or MemoryConversationStore()

    async def _history(self, context_id: str) -> list[dict[str, str]]:
        if not self.history_turns:
            return []
        try:
            return await self.store.history(self.name, context_id, self.history_turns * 2)
        except Exception as exc:  # history is context, not the request: an outage of it costs only context
            log.warning("%s: history of %s unavailable: %s", self.name, context_id, exc)
            return []

    async def _remember_turn(self, context_id: str, text: str, answer: str) -> None:
        if not self.history_turns:
            return
        try:
            await self.store.append(self.name, context_id, [{"role": "user", "text": text},
                                                            {"role": "agent", "text": answer}],
                                    keep=self.history_turns * 2)
        except Exception as exc:
            log.warning("%s: history of %s not saved: %s", self.name, context_id, exc)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        text = "\n".join(get_text_parts(message.parts))
        data: dict[str, Any] = {}
        for part in get_data_parts(message.parts):
            if isinstance(part, dict):
                data.update(normalize_numbers(part))
        # File parts (raw bytes) reach handlers as data["files"], base64 like the `content_b64` contract.
        files = [{"name": part.filename or "upload", "media_type": part.media_type or "",
                  "content_b64": base64.b64encode(part.raw).decode("ascii")}
                 for part in message.parts if part.HasField("raw")]
        if files:
            data.setdefault("files", []).extend(files)
        # The message's own metadata (where the hub's clients put a call's signed identity) and the request's.
        metadata = {**(json_format.MessageToDict(message.metadata) if message.HasField("metadata") else {}),
                    **(context.metadata or {})}
        history = await self._history(task.context_id)
        request = AgentRequest(text=text, data=data, context_id=task.context_id, task_id=task.id,
                               history=history, metadata=metadata, store=self.store)
        progress = Progress(self.name, updater)
        try:
            with collect_degraded() as skipped, collect_usage() as usage:
                reply = await self.handler(request, progress)
            if skipped:  # a fallback ran for this request: the reply says what it did without
                reply.data = {**(reply.data or {}), "degraded": sorted(skipped)}
            if usage.llm_calls or usage.searches:  # what the request cost: model calls and tokens, searches
                reply.data = {**(reply.data or {}), "usage": usage.to_dict()}
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the agent failed: a readable failed task, never a stack trace
            # The person reads what failed, not the exception; its text goes to the log and the reply's data.
            log.exception("%s failed", self.name)
            reply = AgentReply(text=f"{self.name} 처리 중 오류가 발생했습니다 / {self.name} failed",
                               data={"status": STATUS_ERROR, "error": f"{type(exc).__name__}: {exc}"[:500]},
                               state="failed")
        await self._remember_turn(task.context_id, text, reply.text)
        parts = [new_text_part(reply.text, media_type="text/markdown"), new_data_part(reply.data or {})]
        if reply.state == "input_required":
            await updater.requires_input(new_message(parts, context_id=task.context_id, task_id=task.id))
            return
        # The whole answer, last chunk: it replaces what `stream_answer` sent (same artifact) when it streamed.
        await updater.add_artifact(parts, artifact_id=progress.answer_artifact_id, name="answer", append=False,
                                   last_chunk=True)
        final = new_message([new_text_part(reply.text)], context_id=task.context_id, task_id=task.id)
        if reply.state == "failed":
            await updater.failed(final)
        elif reply.state == "rejected":
            await updater.reject(final)
        else:
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.current_task is not None:
            updater = TaskUpdater(event_queue, context.current_task.id, context.current_task.context_id)
            await updater.cancel()


def make_card(name: str, description: str, url: str, skills: Sequence[AgentSkill | dict[str, Any]],
              *, token_required: bool = False, version: str = "0.1.0", streaming: bool = True) -> AgentCard:
    """Build an agent card.

    Args:
        name: agent name (`internal_rag`, …) — the orchestrator plans by it.
        description: what the agent does (shown to the planner).
        url: base URL where the JSON-RPC endpoint lives.
        skills: `AgentSkill`s or dicts with `id`, `name`, `description`, `tags`, `examples`.
        token_required: declare the bearer scheme (the app enforces it).
    """
    skill_objs = [s if isinstance(s, AgentSkill) else AgentSkill(
        id=s["id"], name=s.get("name", s["id"]), description=s.get("description", ""),
        tags=list(s.get("tags") or [s["id"]]), examples=list(s.get("examples", [])),
        input_modes=["text/plain", "application/json"], output_modes=["text/markdown", "application/json"],
    ) for s in skills]
    card = AgentCard(
        name=name,
        description=description,
        version=version,
        provider=AgentProvider(organization="Agent Hub", url="https://github.com/agent-hub"),
        supported_interfaces=[AgentInterface(url=url.rstrip("/") + "/", protocol_binding="JSONRPC",
                                             protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True if streaming else False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/markdown", "application/json"],
        skills=skill_objs,
    )
    if token_required:
        card.security_schemes["bearer"].CopyFrom(SecurityScheme(
            http_auth_security_scheme=HTTPAuthSecurityScheme(
                scheme="bearer", description="HUB_TOKEN of this hub")))
        requirement = SecurityRequirement()
        requirement.schemes["bearer"].SetInParent()
        card.security_requirements.append(requirement)
        # Optional beside the bearer token: the person a call acts for, signed for this agent. Without it a
        # call acts for the service credential and reads only what is shared with everyone.
        card.security_schemes["person"].CopyFrom(SecurityScheme(
            api_key_security_scheme=APIKeySecurityScheme(
                location="header", name=identity.HEADER,
                description=f"signed, short-lived identity of the person (ai_llm/common/identity.py), for this "
                            f"agent ('{name}'); A2A messages may carry it as metadata '{identity.METADATA_KEY}'")))
    return card


class BearerTokenMiddleware:
    """Refuses every request without `Authorization: Bearer <token>`, except the listed public paths."""

    def __init__(self, app: ASGIApp, token: str | None, public_paths: Sequence[str] = ()) -> None:
        self.app = app
        self.token = token
        self.public_paths = set(public_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token and scope["type"] == "http" and scope.get("path") not in self.public_paths:
            headers = dict(scope.get("headers") or [])
            supplied = headers.get(b"authorization", b"").decode("latin-1")
            expected = f"Bearer {self.token}"
            if not hmac.compare_digest(supplied.encode(), expected.encode()):
                response = JSONResponse({"error": "unauthorized",
                                         "detail": "missing or wrong bearer token (HUB_TOKEN)"},
                                        status_code=401, headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class JsonRpcContentType:
    """Answers a POST to the JSON-RPC endpoint whose body is not declared JSON with the JSON-RPC error
    ContentTypeNotSupportedError (-32005, HTTP 415) before anything reads it. The a2a-sdk would try to parse
    it and answer a parse error (-32700); the a2a-tck's JSONRPC-SSE-002 asks for -32005. It also closes the
    one kind of cross-site POST a browser sends without asking first (`text/plain`, forms), which the
    Origin check refuses as well."""

    def __init__(self, app: ASGIApp, path: str = "/") -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") == self.path:
            headers = dict(scope.get("headers") or [])
            media_type = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
            if media_type != "application/json":
                response = JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
                    "code": -32005, "message": f"Content-Type must be application/json, not {media_type or 'none'}"}},
                    status_code=415)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _health(_: Request) -> Response:
    return JSONResponse({"ok": True})


def build_agent_app(card: AgentCard, executor: AgentExecutor, token: str | None = None,
                    extra_routes: Sequence[Route] = (), lifespan: Any = None,
                    allowed_hosts: Sequence[str] | None = None,
                    database_url: str | None | EllipsisType = ...) -> Starlette:
    """The agent's ASGI app: card + JSON-RPC (+ extra routes), Host/Origin guard, bearer check with `token`.

    `allowed_hosts`: hosts besides loopback it answers to (default: `Settings.allowed_hosts` of this process);
    the hosts of the card's own URLs always are.
    `database_url`: where A2A tasks and conversation history live (default: `Settings.database_url` of this
    process, which the launcher sets; None: this process's memory). The database's pools open and close
    with the app's lifespan, around the agent's own `lifespan`.
    """
    settings = get_settings()
    url = settings.database_url if isinstance(database_url, EllipsisType) else database_url
    state: AgentState | None = None
    task_store: TaskStore = InMemoryTaskStore()
    if url:
        from ai_llm.common.embeddings import index_model

        state = AgentState(url, *index_model(settings))
        task_store = state.task_store
        if isinstance(executor, HubAgentExecutor):
            executor.store = state.conversations
    handler = HubRequestHandler(agent_executor=executor, task_store=task_store, agent_card=card)

    @asynccontextmanager
    async def app_lifespan(app: Starlette) -> AsyncIterator[None]:
        if state is not None:
            await state.open()
        try:
            if lifespan is None:
                yield
            else:
                async with lifespan(app):
                    yield
        finally:
            if state is not None:
                await state.close()

    own_hosts = [netloc for i in card.supported_interfaces if (netloc := urlsplit(i.url).netloc)]
    hosts = [*(get_settings().allowed_hosts if allowed_hosts is None else allowed_hosts), *own_hosts]
    routes = [
        agent_card_route(card),
        *create_jsonrpc_routes(handler, rpc_url="/"),
        Route("/healthz", _health, methods=["GET"]),
        *extra_routes,
    ]
    middleware = [
        Middleware(HostOriginGuard, allowed_hosts=hosts),  # type: ignore[arg-type]
        Middleware(BearerTokenMiddleware, token=token,  # type: ignore[arg-type]
                   public_paths=[AGENT_CARD_WELL_KNOWN_PATH, "/healthz"]),
        Middleware(JsonRpcContentType, path="/"),  # type: ignore[arg-type]
    ]
    return Starlette(routes=routes, middleware=middleware, lifespan=app_lifespan)


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind a listening socket first, so a port of 0 yields a real port before the card is built.

    The protocol is named (IPPROTO_TCP): asyncio turns Nagle off (TCP_NODELAY) only on connections accepted from
    such a socket; with protocol 0 a kept-alive response written in two parts waits ~40 ms for a delayed ACK.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(256)
    sock.set_inheritable(True)
    return sock


#: Ports `free_port` draws from sit just below the kernel's ephemeral range (this many of them).
FREE_PORT_SPAN = 12_000


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):  # not Linux: the IANA dynamic range
        return 49152


#: Ports `free_port` has handed out in this process: never handed out twice.
_handed_out: set[int] = set()


def free_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago (tests and the launcher's ephemeral mode start processes on such ports).

    Drawn at random from just below the kernel's ephemeral range: a port that `bind(…, 0)` hands out comes from
    the range the source ports of outgoing connections use, so between this check and the child's own bind any
    process's connection could take it ("Address already in use" in a child, seen in a clean-clone test run).
    A port is never handed out twice by one process: the callers bind later, in children, so a second draw of a
    port still free here would give two children the same port (20 draws from 12,000 ports repeat one in about
    1.6 % of runs, which failed a test fixture that starts 20 agents). Falls back to the kernel's choice when no
    drawn port is free.
    """
    high = _ephemeral_low() - 1
    for _ in range(50):
        port = random.randint(max(1024, high - FREE_PORT_SPAN), high)
        if port in _handed_out:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((host, 0))
            port = int(s.getsockname()[1])
        if port not in _handed_out:
            _handed_out.add(port)
            return port


async def serve_app(app: ASGIApp, sock: socket.socket, log_level: str = "warning", *,
                    freeze: bool = False) -> None:
    """Serve an ASGI app on a bound socket until cancelled or signalled (httptools parses HTTP when installed).

    `freeze`: `freeze_heap` once the app has started — for a process that is this server and nothing else
    (`run_server`); a test or a tool that serves an app in its own process keeps its heap as it is.
    """
    config = uvicorn.Config(app, log_level=log_level, lifespan="on", timeout_graceful_shutdown=3)
    server = _FreezingServer(config) if freeze else uvicorn.Server(config)
    await server.serve(sockets=[sock])


class _FreezingServer(uvicorn.Server):
    """uvicorn's server, which freezes the process's heap (`freeze_heap`) once the app has started."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if not self.should_exit:
            freeze_heap()


def run_server(app: ASGIApp, sock: socket.socket, log_level: str = "warning") -> None:
    """A server process's main loop: `serve_app` on uvloop (libuv) when installed, else asyncio's loop; the
    process's heap is frozen once the app has started (`freeze_heap`).

    With httptools, about 12 % less CPU per A2A call than asyncio's loop with h11 (`benchmarks/README.md`).
    """
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a runtime requirement; a platform without it still runs
        asyncio.run(serve_app(app, sock, log_level, freeze=True))
        return
    uvloop.run(serve_app(app, sock, log_level, freeze=True))


def base_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://{shown}:{port}"
