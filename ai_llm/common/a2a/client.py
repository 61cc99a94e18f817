"""Client-side A2A plumbing: `RemoteAgent` discovers a card, sends a message, streams status updates
and returns the final text + structured data, with timeouts and the hub token.

Load balancing is client-side: a `RemoteAgent` given the URLs of an agent's replicas spreads its calls over
them and ejects, for a cool-down, a replica that refuses or drops connections (see `RemoteAgent`). Why not a
load balancer in front: the hub has no process to put one in (one more process to supervise, one more hop of
about a millisecond on every call), and only the caller can retry a call that a dying replica dropped halfway
(a proxy sees a reset after it has forwarded the start of the stream). Behind a real load balancer (a
Kubernetes Service, nginx) the same client works with that one URL; see docs/deployment.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import ssl
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError, A2AClientTimeoutError, AgentCardResolutionError
from a2a.helpers.proto_helpers import (
    get_data_parts,
    get_text_parts,
    new_data_part,
    new_message,
    new_text_part,
)
from a2a.types import (
    AgentCard,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from google.protobuf.json_format import MessageToDict

from ai_llm.common.a2a.events import ANSWER_DELTA, AgentReply, StatusEvent, normalize_numbers
from ai_llm.common.http.pools import pooled_client


class RemoteAgentError(RuntimeError):
    """An agent could not be reached or failed to answer."""


class AgentUnavailable(RemoteAgentError):
    """Connection refused / card unreachable."""


class AgentTimeout(RemoteAgentError):
    """The agent did not finish within the timeout."""


class AgentUnauthorized(RemoteAgentError):
    """The agent refused the call (missing or wrong HUB_TOKEN)."""


_TERMINAL = {
    TaskState.TASK_STATE_COMPLETED: "completed",
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_CANCELED: "canceled",
    TaskState.TASK_STATE_REJECTED: "rejected",
    TaskState.TASK_STATE_INPUT_REQUIRED: "input_required",
}


def _parts(parts: Any) -> tuple[str, dict[str, Any]]:
    text = "\n".join(get_text_parts(parts))
    data: dict[str, Any] = {}
    for item in get_data_parts(parts):
        if isinstance(item, dict):
            data.update(normalize_numbers(item))
    return text, data


def card_summary(card: AgentCard) -> dict[str, Any]:
    """The planner's view of a card: name, description, skills with examples."""
    return {
        "name": card.name,
        "description": card.description,
        "skills": [{"id": s.id, "name": s.name, "description": s.description, "examples": list(s.examples)}
                   for s in card.skills],
    }


def card_to_dict(card: AgentCard) -> dict[str, Any]:
    return MessageToDict(card)


@functools.lru_cache(maxsize=1)
def shared_tls_context() -> ssl.SSLContext:
    """One TLS context for every HTTP client of this process (A2A calls, MCP sessions): building one loads the
    CA bundle (100+ ms on a busy machine), which made up nearly all of an A2A hop when each call built its own
    (measured by `hub bench orchestrator`). httpx's own defaults: certifi, or SSL_CERT_FILE / SSL_CERT_DIR."""
    return httpx.create_ssl_context()


#: One kept-alive HTTP client per event loop (so per process, in the hub), keyed by connect timeout; its
#: connections are spread over several pools (`http_pools.PoolShards`).
_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[float, httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary())
#: Connections kept open per pool (each client has `http_pools.SHARDS` of them): enough for every concurrent
#: step of a busy orchestrator. An idle connection is dropped before the hub's servers (uvicorn: 5 s
#: keep-alive) close it, so a call never lands on a connection the server is closing.
POOL_LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=200, keepalive_expiry=4.0)
#: How long the rest of a finished stream (the server's end of the response) is awaited so that its
#: connection goes back to the pool instead of being dropped (A2A servers end the stream after the final
#: event; one that does not costs this much once per call).
DRAIN_S = 1.0
#: HTTP statuses of a replica that is there but cannot serve (shutting down, a proxy without upstream).
_UNAVAILABLE_STATUSES = {502, 503, 504}
_TRANSPORT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError,
                     httpx.WriteError)


def shared_http(connect_timeout_s: float = 5.0) -> httpx.AsyncClient:
    """The process's kept-alive HTTP client for A2A calls on the running event loop.

    No per-client headers and no read timeout: each call sends its own token, and `RemoteAgent` enforces its
    whole-call deadline itself.
    """
    loop = asyncio.get_running_loop()
    pools = _POOLS.setdefault(loop, {})
    client = pools.get(connect_timeout_s)
    if client is None or client.is_closed:
        client = pooled_client(timeout=httpx.Timeout(None, connect=connect_timeout_s), limits=POOL_LIMITS,
                               verify=shared_tls_context())
        pools[connect_timeout_s] = client
    return client


async def close_shared_http() -> None:
    """Close this event loop's pooled connections (optional: they close with the loop's process)."""
    pools = _POOLS.pop(asyncio.get_running_loop(), {})
    for client in pools.values():
        await client.aclose()


def _local_host(host: str) -> bool:
    if host in ("localhost", "0.0.0.0", "::", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def reachable_card(card: AgentCard, url: str) -> AgentCard:
    """`card`, its interfaces moved to `url`'s scheme and host where they name a loopback or wildcard host and
    `url` does not (an agent bound to 0.0.0.0 on another machine announces 127.0.0.1; calls must go where its
    card was found). The paths are kept."""
    target = urlsplit(url)
    if _local_host(target.hostname or ""):
        return card
    moved = AgentCard()
    moved.CopyFrom(card)
    for interface in moved.supported_interfaces:
        parts = urlsplit(interface.url)
        if _local_host(parts.hostname or ""):
            interface.url = urlunsplit((target.scheme, target.netloc, parts.path, parts.query, parts.fragment))
    return moved


def is_transport_failure(exc: BaseException) -> bool:
    """True when `exc` (or what it wraps) says the replica was not reachable or dropped the connection:
    refused, reset, closed mid-response, or a 502/503/504 in front of it. Timeouts are not: a hung agent is
    the caller's fallback, not a reason to run the same work twice."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (*_TRANSPORT_ERRORS, AgentUnavailable)):
            return True
        if isinstance(current, httpx.HTTPStatusError):
            return current.response.status_code in _UNAVAILABLE_STATUSES
        if isinstance(current, AgentCardResolutionError) and current.status_code in _UNAVAILABLE_STATUSES:
            return True
        current = current.__cause__
    return False


@dataclass
class Replica:
    """One instance of an agent: its URL, its cached card, and whether calls avoid it for now."""

    url: str
    card: AgentCard | None = None
    ejected_until: float = 0.0  # time.monotonic(); 0: in rotation
    failures: int = 0  # transport failures in a row
    inflight: int = 0
    calls: int = 0  # calls that reached it and ended (any answer)
    client: Any = None  # the a2a-sdk client built from `card`, for `client_loop`
    client_loop: asyncio.AbstractEventLoop | None = None

    def ejected(self, now: float) -> bool:
        return now < self.ejected_until


class RemoteAgent:
    """An A2A agent reached over HTTP, possibly as several replicas.

    With several URLs the calls are spread over the replicas (the least busy first, in turn among equals); a
    replica whose connection is refused or dropped (or that answers 502/503/504) is ejected for `eject_s`
    seconds and the call is retried on the next replica, so a killed replica costs no failed call. After the
    cool-down an ejected replica is tried again; when every replica is ejected they are all still tried, the
    soonest back first. Each replica's card is fetched once and kept (fetched again after a failure), and
    every call goes over the process's one kept-alive connection pool (`shared_http`).

    Args:
        url: base URL (the card is at `<url>/.well-known/agent-card.json`), or the URLs of its replicas.
        token: bearer token sent on every call (`HUB_TOKEN`).
        timeout_s: the whole call (stream included, retries included) must finish within this.
        connect_timeout_s: how long to wait for a connection.
        name: label for errors and status events (defaults to the card's name).
        eject_s: how long a replica that failed at transport level is left out of the rotation.
    """

    def __init__(self, url: str | Sequence[str], token: str | None = None, timeout_s: float = 120.0,
                 connect_timeout_s: float = 5.0, name: str | None = None, eject_s: float = 5.0) -> None:
        urls = [url] if isinstance(url, str) else list(url)
        urls = list(dict.fromkeys(u.rstrip("/") for u in urls if u and u.strip()))
        if not urls:
            raise ValueError("RemoteAgent needs at least one URL")
        self.replicas = [Replica(u) for u in urls]
        self.url = urls[0]
        self.token = token
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.eject_s = eject_s
        self.name = name or self.url
        self._turn = 0

    @property
    def urls(self) -> list[str]:
        return [r.url for r in self.replicas]

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def aclose(self) -> None:
        """Forget the per-replica clients (the shared pool stays: see `close_shared_http`)."""
        for replica in self.replicas:
            replica.client = None
            replica.client_loop = None

    # --- replica choice ---------------------------------------------------------------------------------
    def _order(self, exclude: Sequence[Replica] = ()) -> list[Replica]:
        """Replicas to try, best first: those in rotation (least in flight, in turn among equals), then the
        ejected ones, soonest back first."""
        now = time.monotonic()
        candidates = [r for r in self.replicas if r not in exclude]
        self._turn = (self._turn + 1) % len(self.replicas)
        rotated = sorted(candidates, key=lambda r: (self.replicas.index(r) - self._turn) % len(self.replicas))
        healthy = sorted((r for r in rotated if not r.ejected(now)), key=lambda r: r.inflight)
        ejected = sorted((r for r in rotated if r.ejected(now)), key=lambda r: r.ejected_until)
        return healthy + ejected

    def eject(self, replica: Replica) -> None:
        """Leave `replica` out of the rotation for `eject_s` (a single URL is never left out: nothing else
        could answer) and drop its card and client (it may come back as a new version)."""
        replica.failures += 1
        replica.card = None
        replica.client = None
        if len(self.replicas) > 1:
            replica.ejected_until = time.monotonic() + self.eject_s

    @staticmethod
    def _restore(replica: Replica) -> None:
        replica.failures = 0
        replica.ejected_until = 0.0

    def health(self) -> list[dict[str, Any]]:
        """Each replica's URL, whether it is in rotation, its transport failures in a row and calls so far."""
        now = time.monotonic()
        return [{"url": r.url, "ejected": r.ejected(now), "failures": r.failures, "inflight": r.inflight,
                 "calls": r.calls} for r in self.replicas]

    # --- cards ------------------------------------------------------------------------------------------
    async def _replica_card(self, replica: Replica) -> AgentCard:
        if replica.card is None:
            http = shared_http(self.connect_timeout_s)
            try:
                replica.card = await A2ACardResolver(http, replica.url).get_agent_card(http_kwargs={
                    "headers": self._headers(),
                    "timeout": httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s)})
            except (httpx.HTTPError, A2AClientError) as exc:
                raise AgentUnavailable(f"{self.name}: agent card unreachable at {replica.url} ({exc})") from exc
            if self.name == self.url:
                self.name = replica.card.name
        return replica.card

    async def card(self, refresh: bool = False) -> AgentCard:
        """The agent's card (cached; `refresh` fetches it again), from the first replica that answers."""
        errors: list[str] = []
        for replica in self._order():
            if refresh:
                replica.card = None
                replica.client = None
            try:
                card = await self._replica_card(replica)
            except AgentUnavailable as exc:
                self.eject(replica)
                errors.append(str(exc))
                continue
            self._restore(replica)
            return card
        raise AgentUnavailable("; ".join(errors))

    def _client(self, replica: Replica, card: AgentCard) -> Any:
        loop = asyncio.get_running_loop()
        if replica.client is None or replica.client_loop is not loop:
            http = shared_http(self.connect_timeout_s)
            replica.client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(
                reachable_card(card, replica.url))
            replica.client_loop = loop
        return replica.client

    async def get(self, path: str, timeout_s: float = 5.0, headers: dict[str, str] | None = None) -> httpx.Response:
        """`GET <replica><path>` (a plain route beside the A2A endpoint, such as `/catalog`) on the first
        replica that answers, with the same ejection as calls."""
        last: Exception | None = None
        for replica in self._order():
            try:
                response = await shared_http(self.connect_timeout_s).get(
                    replica.url + path, headers={**self._headers(), **(headers or {})}, timeout=timeout_s)
                if response.status_code in _UNAVAILABLE_STATUSES:
                    response.raise_for_status()
            except httpx.HTTPError as exc:
                if not is_transport_failure(exc):
                    raise
                self.eject(replica)
                last = exc
                continue
            self._restore(replica)
            return response
        raise AgentUnavailable(f"{self.name} is unreachable at {', '.join(self.urls)}: {last}")

    # --- calls ------------------------------------------------------------------------------------------
    async def stream(self, text: str, data: dict[str, Any] | None = None, context_id: str | None = None,
                     metadata: dict[str, Any] | None = None,
                     files: list[tuple[str, bytes, str]] | None = None) -> AsyncIterator[StatusEvent | AgentReply]:
        """Send a message; yield `StatusEvent`s as they arrive and finally one `AgentReply`.

        A replica that fails at transport level (before or during the stream) is ejected and the message
        is sent to the next one; the status events already yielded stay (the next replica sends its own).

        Args:
            files: `(filename, bytes, media_type)` sent as A2A file parts.
        """
        parts = [new_text_part(text)]
        if data:
            parts.append(new_data_part(data))
        for filename, content, media_type in files or []:
            parts.append(Part(raw=content, filename=filename, media_type=media_type))
        message = new_message(parts, context_id=context_id or str(uuid.uuid4()), role=Role.ROLE_USER)
        if metadata:
            message.metadata.update(metadata)
        request = SendMessageRequest(message=message, configuration=SendMessageConfiguration(
            accepted_output_modes=["text/markdown", "text/plain", "application/json"]))
        deadline = asyncio.get_running_loop().time() + self.timeout_s
        tried: list[Replica] = []
        errors: list[str] = []
        while True:
            order = self._order(exclude=tried)
            if not order:
                raise AgentUnavailable("; ".join(errors) or f"{self.name} is unreachable")
            replica = order[0]
            tried.append(replica)
            replica.inflight += 1
            try:
                async for event in self._stream_once(replica, request, context_id, deadline):
                    yield event
            except AgentUnavailable as exc:
                self.eject(replica)
                errors.append(str(exc))
                continue
            finally:
                replica.inflight -= 1
            return

    async def _stream_once(self, replica: Replica, request: SendMessageRequest, context_id: str | None,
                           deadline: float) -> AsyncIterator[StatusEvent | AgentReply]:
        """One attempt on one replica; transport failures raise `AgentUnavailable`."""
        loop = asyncio.get_running_loop()
        card = await self._replica_card(replica)
        client = self._client(replica, card)
        context = ClientCallContext(service_parameters=self._headers()) if self.token else None
        text_out: list[str] = []
        streamed: dict[str, list[str]] = {}  # artifact id -> its text chunks (an `append` chunk extends, else replaces)
        data_out: dict[str, Any] = {}
        state = "completed"
        task_id: str | None = None
        ctx: str | None = context_id

        async def next_event() -> StreamResponse | None:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AgentTimeout(f"{self.name} did not answer within {self.timeout_s:.0f}s")
            try:
                async with asyncio.timeout(remaining):
                    return await iterator.__anext__()
            except StopAsyncIteration:
                return None
            except TimeoutError as exc:
                raise AgentTimeout(f"{self.name} did not answer within {self.timeout_s:.0f}s") from exc

        iterator = client.send_message(request, context=context).__aiter__()
        finished = False
        try:
            while (response := await next_event()) is not None:
                if response.HasField("message"):
                    t, d = _parts(response.message.parts)
                    text_out.append(t)
                    data_out.update(d)
                    ctx = response.message.context_id or ctx
                    finished = True
                    break
                if response.HasField("task"):
                    task_id, ctx = response.task.id, response.task.context_id
                    for artifact in response.task.artifacts:
                        t, d = _parts(artifact.parts)
                        if t:
                            text_out.append(t)
                        data_out.update(d)
                    continue
                if response.HasField("artifact_update"):
                    update = response.artifact_update
                    t, d = _parts(update.artifact.parts)
                    chunks = streamed.setdefault(update.artifact.artifact_id, [])
                    if not update.append:
                        chunks.clear()
                    if t:
                        chunks.append(t)
                    data_out.update(d)
                    if t and not update.last_chunk:  # a piece of an answer being written
                        yield StatusEvent(agent=self.name, message="", stage=ANSWER_DELTA, progress=None,
                                          data={"delta": t, "text": "".join(chunks),
                                                "artifact_id": update.artifact.artifact_id})
                    continue
                if response.HasField("status_update"):
                    status = response.status_update.status
                    task_id = response.status_update.task_id or task_id
                    ctx = response.status_update.context_id or ctx
                    msg_text, msg_data = _parts(status.message.parts) if status.HasField("message") else ("", {})
                    if status.state in _TERMINAL:
                        state = _TERMINAL[status.state]
                        if state != "completed" and not text_out:
                            text_out.append(msg_text)
                            data_out.update(msg_data)
                        finished = True
                        break
                    if msg_text or msg_data:
                        yield StatusEvent(agent=str(msg_data.get("agent") or self.name), message=msg_text,
                                          stage=str(msg_data.get("stage") or ""),
                                          progress=msg_data.get("progress"), data=msg_data)
            if finished:
                # Read the server's end of the stream, so that the connection returns to the pool (a response
                # closed half-read takes its connection with it: one new TCP connection per call).
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(min(DRAIN_S, max(0.0, deadline - loop.time()))):
                        async for _ in iterator:
                            pass
        except AgentTimeout:
            raise
        except A2AClientError as exc:
            if is_transport_failure(exc):
                raise AgentUnavailable(f"{self.name} is unreachable at {replica.url}: {exc}") from exc
            cause = exc.__cause__
            if isinstance(exc, A2AClientTimeoutError) or isinstance(cause, httpx.TimeoutException):
                raise AgentTimeout(f"{self.name} timed out: {exc}") from exc
            if "401" in str(exc):
                raise AgentUnauthorized(f"{self.name} refused the call: missing or wrong HUB_TOKEN") from exc
            raise RemoteAgentError(f"{self.name} call failed: {exc}") from exc
        except _TRANSPORT_ERRORS as exc:
            raise AgentUnavailable(f"{self.name} is unreachable at {replica.url}: {exc}") from exc
        except httpx.TimeoutException as exc:
            raise AgentTimeout(f"{self.name} timed out: {exc}") from exc
        finally:
            with contextlib.suppress(Exception):
                await iterator.aclose()  # type: ignore[attr-defined]
        self._restore(replica)
        replica.calls += 1
        text_out += ["".join(chunks) for chunks in streamed.values()]
        yield AgentReply(text="\n".join(t for t in text_out if t), data=data_out, state=state,  # type: ignore[arg-type]
                         agent=card.name, context_id=ctx, task_id=task_id)

    async def ask(self, text: str, data: dict[str, Any] | None = None, context_id: str | None = None,
                  on_status: Callable[[StatusEvent], Awaitable[None]] | None = None,
                  metadata: dict[str, Any] | None = None,
                  files: list[tuple[str, bytes, str]] | None = None) -> AgentReply:
        """Send a message and return the final reply (status events go to `on_status`)."""
        reply: AgentReply | None = None
        async for event in self.stream(text, data=data, context_id=context_id, metadata=metadata, files=files):
            if isinstance(event, StatusEvent):
                if on_status is not None:
                    await on_status(event)
            else:
                reply = event
        if reply is None:  # pragma: no cover - stream always ends with a reply
            raise RemoteAgentError(f"{self.name} returned no reply")
        return reply
