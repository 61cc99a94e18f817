"""`SearchToolsetPool`: long-lived MCP sessions for a long-running process (the web agent's A2A server), shared
by concurrent requests and replaced when they break; a call whose session died is retried once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import httpx
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED

from ai_llm.common.settings import Settings
from ai_llm.web_research_agent.search_tools.results import ToolsUnavailable
from ai_llm.web_research_agent.search_tools.toolset import (
    SearchToolset,
    _bind,
    _Bound,
    _client_connections,
    _invoke,
    _open_sessions,
    _root_cause,
)

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------------------ long-lived sessions
#: mcp's client answers a request whose session id the server no longer knows (HTTP 404: the server restarted
#: or expired the session) with this code ("Session terminated").
_SESSION_TERMINATED = 32600


class _SessionDied(RuntimeError):
    """The MCP session ended while a call was waiting for its answer."""


def _session_failure(exc: BaseException) -> bool:
    """Whether a call failed because its MCP session is dead, not because the tool (or its arguments) failed."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError):
        return exc.error.code in (CONNECTION_CLOSED, _SESSION_TERMINATED)
    return isinstance(exc, (_SessionDied, httpx.TransportError, anyio.ClosedResourceError,
                            anyio.BrokenResourceError, anyio.EndOfStream))


def _unavailable(exc: BaseException) -> ToolsUnavailable:
    """The ToolsUnavailable inside `exc` (task groups wrap it), else one naming the root cause."""
    pending = [exc]
    while pending:
        current = pending.pop()
        if isinstance(current, ToolsUnavailable):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
    return ToolsUnavailable(f"MCP session failed: {_root_cause(exc)}")


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # an abandoned call's failure is not an unhandled error


class _Sessions:
    """One MCP session per configured server and their tools, opened and closed by one background task.

    The transport's anyio task group cancels the task that entered it when the connection fails, and must be
    left by that same task; so the sessions live in a task of their own, and requests only send calls through
    them (`ClientSession` matches answers to requests by id, and the streamable-HTTP transport posts each
    request from its own task, so concurrent calls share a session safely).
    """

    def __init__(self, connections: dict[str, dict[str, Any]], number: int) -> None:
        self.number = number
        self.loop = asyncio.get_running_loop()
        self.bound: dict[str, _Bound] = {}
        self.broken = False  # set when a call saw the session fail, or once it is closing or ended
        self.ended: asyncio.Future[None] = self.loop.create_future()
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[None] = self.loop.create_future()
        self._ready.add_done_callback(_retrieve)
        self.task = self.loop.create_task(self._run(connections), name=f"mcp-sessions-{number}")

    async def wait_ready(self) -> None:
        """Until every session is initialised and its tools listed (ToolsUnavailable when one cannot be)."""
        await asyncio.shield(self._ready)

    def close(self) -> None:
        """Mark broken and let the owning task close the sessions (in the background)."""
        self.broken = True
        self._stop.set()

    async def _run(self, connections: dict[str, dict[str, Any]]) -> None:
        try:
            async with AsyncExitStack() as stack:
                self.bound = _bind(await _open_sessions(connections, stack))
                self._ready.set_result(None)
                await self._stop.wait()
                self.broken = True  # closing: no new call may start on it
        except Exception as exc:
            if not self._ready.done():
                self._ready.set_exception(_unavailable(exc))
            elif self._stop.is_set():
                log.debug("closing MCP sessions #%d failed: %s", self.number, _root_cause(exc))
            else:
                log.warning("MCP sessions #%d broke: %s", self.number, _root_cause(exc))
        finally:
            self.broken = True
            if not self._ready.done():
                self._ready.set_exception(ToolsUnavailable("MCP session closed before it was ready"))
            if not self.ended.done():
                self.ended.set_result(None)

    async def call(self, bound: _Bound, args: dict[str, Any]) -> Any:
        """Invoke a tool on these sessions; `_SessionDied` when they end before the answer comes."""
        if self.ended.done():
            raise _SessionDied(f"MCP sessions #{self.number} have ended")
        call = asyncio.ensure_future(_invoke(bound, args))
        call.add_done_callback(_retrieve)
        try:
            # A transport that dies cancels its own tasks and may never answer the calls in flight: race them.
            await asyncio.wait((call, self.ended), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            call.cancel()
            raise
        if call.done():
            return call.result()
        call.cancel()
        raise _SessionDied(f"MCP sessions #{self.number} ended while a call was in flight")


class SearchToolsetPool:
    """The MCP sessions (and their tools) of a long-lived process, shared by every request.

    Opened on first use and kept; `acquire()` hands each request its own `SearchToolset` (its own call log)
    over the shared sessions. A request never starts on sessions known broken: they are replaced first. A call
    that fails because its session died (server restarted or unreachable) marks the sessions broken and is
    retried once on new ones. Concurrent requests that find no live sessions wait for one shared opening,
    which fails for all of them alike (`ToolsUnavailable`) when a server cannot be reached; the next request
    tries again. `aclose()` closes the sessions (the web agent's app lifespan calls it).

    Args:
        settings: the MCP servers (`MCP_SERVERS`, else the hub's search gateway).
        agent_name: sent as the gateway's `agent` argument.
    """

    def __init__(self, settings: Settings, agent_name: str = "web_research") -> None:
        self.agent_name = agent_name
        self._connections = _client_connections(settings)
        self._current: _Sessions | None = None
        self._opening: asyncio.Task[_Sessions] | None = None
        self._open_sessions: set[_Sessions] = set()  # not yet ended
        self.sessions_opened = 0  # session sets opened (each ran one initialize handshake per server)
        self.retries = 0  # calls retried on new sessions after theirs died
        self.closed = False

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[SearchToolset]:
        """A toolset over the live sessions (opened, or replaced when broken, first)."""
        sessions = await self._live()
        yield SearchToolset._pooled(self, sessions, self.agent_name)

    async def _live(self) -> _Sessions:
        if self.closed:
            raise ToolsUnavailable("the search tools are closed (the agent is shutting down)")
        loop = asyncio.get_running_loop()
        current = self._current
        if current is not None and not current.broken and current.loop is loop:
            return current
        opening = self._opening
        if opening is None or opening.get_loop() is not loop:
            opening = self._opening = loop.create_task(self._open(), name="mcp-sessions-open")
            opening.add_done_callback(self._opened)
        try:
            return await asyncio.shield(opening)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if opening.cancelled() and task is not None and not task.cancelling():  # aclose() stopped it
                raise ToolsUnavailable("the search tools are closed (the agent is shutting down)") from None
            raise

    def _opened(self, task: asyncio.Task[_Sessions]) -> None:
        if self._opening is task:
            self._opening = None
        _retrieve(task)

    async def _open(self) -> _Sessions:
        if self._current is not None:
            self._retire(self._current)
        sessions = _Sessions(self._connections, self.sessions_opened + 1)
        self._open_sessions.add(sessions)
        sessions.ended.add_done_callback(lambda _: self._open_sessions.discard(sessions))
        await sessions.wait_ready()
        self.sessions_opened += 1
        self._current = sessions
        log.info("MCP sessions #%d open (%s)", sessions.number, ", ".join(self._connections))
        return sessions

    def _retire(self, sessions: _Sessions) -> None:
        if self._current is sessions:
            self._current = None
        if sessions.loop is asyncio.get_running_loop():
            sessions.close()
        else:  # a loop that is gone (tests): nothing left to close there
            sessions.broken = True
            self._open_sessions.discard(sessions)

    async def _call(self, toolset: SearchToolset, bound: _Bound, args: dict[str, Any]) -> Any:
        sessions = toolset._sessions
        assert sessions is not None
        for attempt in (1, 2):
            if sessions.broken:  # never send a call on sessions known broken
                sessions = await self._live()
                bound = _same_tool(sessions, bound)
                toolset._sessions, toolset.bound = sessions, sessions.bound
            try:
                return await sessions.call(bound, args)
            except Exception as exc:
                if not (sessions.broken or _session_failure(exc)):
                    raise  # the tool failed, not the session
                self._retire(sessions)
                if attempt == 2:
                    raise ToolsUnavailable(f"MCP session failed: {_root_cause(exc)}") from exc
                self.retries += 1
                log.info("MCP session #%d failed (%s); retrying %s on a new session", sessions.number,
                         _root_cause(exc), bound.tool.name)
        raise AssertionError("unreachable")

    async def aclose(self, timeout_s: float = 10.0) -> None:
        """Close the sessions (waits up to `timeout_s` for their owners to end, then cancels them)."""
        self.closed = True
        if self._opening is not None:
            self._opening.cancel()
        loop = asyncio.get_running_loop()
        owned = [s for s in self._open_sessions if s.loop is loop]
        for sessions in owned:
            sessions.close()
        self._current = None
        if owned:
            _, pending = await asyncio.wait([s.task for s in owned], timeout=timeout_s)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        self._open_sessions.clear()


def _same_tool(sessions: _Sessions, bound: _Bound) -> _Bound:
    """The tool of the new sessions that replaces `bound` (same server, same name)."""
    for candidate in sessions.bound.values():
        if candidate.tool.name == bound.tool.name and candidate.server == bound.server:
            return candidate
    raise ToolsUnavailable(f"MCP server {bound.server!r} no longer offers {bound.tool.name!r}")
