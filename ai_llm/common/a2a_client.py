"""Client-side A2A plumbing: `RemoteAgent` discovers a card, sends a message, streams status updates
and returns the final text + structured data, with timeouts and the hub token."""

from __future__ import annotations

import asyncio
import functools
import ssl
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError
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

from ai_llm.common.events import AgentReply, StatusEvent, normalize_numbers


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
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every call: building one loads the CA bundle (100+ ms on a busy machine), which
    made up nearly all of an A2A hop when each call built its own (measured by `hub bench orchestrator`)."""
    return httpx.create_ssl_context()


class RemoteAgent:
    """An A2A agent reached over HTTP.

    Args:
        url: base URL (the card is at `<url>/.well-known/agent-card.json`).
        token: bearer token sent on every call (`HUB_TOKEN`).
        timeout_s: the whole call (stream included) must finish within this.
        connect_timeout_s: how long to wait for a connection.
        name: label for errors and status events (defaults to the card's name).
    """

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 120.0,
                 connect_timeout_s: float = 5.0, name: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.name = name or self.url
        self._card: AgentCard | None = None
        self._pooled: httpx.AsyncClient | None = None
        self._pooled_loop: asyncio.AbstractEventLoop | None = None

    def _http(self) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        timeout = httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s)
        return httpx.AsyncClient(headers=headers, timeout=timeout, verify=_tls_context())

    def _pooled_http(self) -> httpx.AsyncClient:
        """A keep-alive client reused across calls on the same event loop (saves a TCP handshake per hop)."""
        loop = asyncio.get_running_loop()
        if self._pooled is None or self._pooled.is_closed or self._pooled_loop is not loop:
            self._pooled = self._http()
            self._pooled_loop = loop
        return self._pooled

    async def aclose(self) -> None:
        """Close the pooled connections (optional: they also close with the process)."""
        if self._pooled is not None and not self._pooled.is_closed:
            await self._pooled.aclose()
        self._pooled = None

    async def card(self, refresh: bool = False) -> AgentCard:
        """Fetch (and cache) the agent card."""
        if self._card is None or refresh:
            async with self._http() as http:
                try:
                    self._card = await A2ACardResolver(http, self.url).get_agent_card()
                except (httpx.HTTPError, A2AClientError) as exc:
                    raise AgentUnavailable(f"{self.name}: agent card unreachable at {self.url} ({exc})") from exc
            if self.name == self.url:
                self.name = self._card.name
        return self._card

    async def stream(self, text: str, data: dict[str, Any] | None = None, context_id: str | None = None,
                     metadata: dict[str, Any] | None = None,
                     files: list[tuple[str, bytes, str]] | None = None) -> AsyncIterator[StatusEvent | AgentReply]:
        """Send a message; yield `StatusEvent`s as they arrive and finally one `AgentReply`.

        Args:
            files: `(filename, bytes, media_type)` sent as A2A file parts.
        """
        card = await self.card()
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
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        http = self._pooled_http()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        text_out: list[str] = []
        data_out: dict[str, Any] = {}
        state = "completed"
        task_id: str | None = None
        ctx: str | None = context_id
        try:
            iterator = client.send_message(request).__aiter__()
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise AgentTimeout(f"{self.name} did not answer within {self.timeout_s:.0f}s")
                try:
                    response: StreamResponse = await asyncio.wait_for(iterator.__anext__(), remaining)
                except StopAsyncIteration:
                    break
                except TimeoutError as exc:
                    raise AgentTimeout(f"{self.name} did not answer within {self.timeout_s:.0f}s") from exc
                if response.HasField("message"):
                    t, d = _parts(response.message.parts)
                    text_out.append(t)
                    data_out.update(d)
                    ctx = response.message.context_id or ctx
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
                    t, d = _parts(response.artifact_update.artifact.parts)
                    if t:
                        text_out.append(t)
                    data_out.update(d)
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
                        break
                    if msg_text or msg_data:
                        yield StatusEvent(agent=str(msg_data.get("agent") or self.name), message=msg_text,
                                          stage=str(msg_data.get("stage") or ""),
                                          progress=msg_data.get("progress"), data=msg_data)
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise AgentUnavailable(f"{self.name} is unreachable at {self.url}: {exc}") from exc
        except A2AClientError as exc:
            cause = exc.__cause__
            if isinstance(cause, httpx.TimeoutException) or "timeout" in str(exc).lower():
                raise AgentTimeout(f"{self.name} timed out: {exc}") from exc
            if "401" in str(exc):
                raise AgentUnauthorized(f"{self.name} refused the call: missing or wrong HUB_TOKEN") from exc
            if isinstance(cause, httpx.ConnectError) or "connect" in str(exc).lower():
                raise AgentUnavailable(f"{self.name} is unreachable at {self.url}: {exc}") from exc
            raise RemoteAgentError(f"{self.name} call failed: {exc}") from exc
        except httpx.TimeoutException as exc:
            raise AgentTimeout(f"{self.name} timed out: {exc}") from exc
        finally:
            await client.close()  # the pooled httpx client stays open (the factory treats it as shared)
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
