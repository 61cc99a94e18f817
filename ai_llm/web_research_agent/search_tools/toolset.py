"""`SearchToolset`: the MCP search tools of whatever servers are configured, mapped onto three canonical
operations (`web_search`, `news_search`, `fetch_page`; see the package docstring), with one session per server
for the life of a context."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools

from ai_llm.common.a2a.client import shared_tls_context
from ai_llm.common.a2a.events import gather_within
from ai_llm.common.http.pools import pooled_client
from ai_llm.common.settings import Settings
from ai_llm.web_research_agent.search_tools.results import (
    PageContent,
    SearchResponse,
    ToolCallLog,
    ToolsUnavailable,
    _payload,
    parse_page_payload,
    parse_pages_payload,
    parse_search_payload,
)

if TYPE_CHECKING:
    from ai_llm.web_research_agent.search_tools.sessions import SearchToolsetPool, _Sessions

log = logging.getLogger(__name__)


#: Canonical operation -> tool names recognised for it, most specific first.
TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "web_search": ("web_search", "tavily-search", "tavily_search", "search", "brave_web_search"),
    "news_search": ("news_search", "tavily-news", "tavily_news", "search_news"),
    "fetch_page": ("fetch_page", "tavily-extract", "tavily_extract", "fetch", "extract"),
    "fetch_pages": ("fetch_pages",),  # the hub gateway's batch fetch (optional: pages are fetched one by one)
    "search_many": ("search_many",),  # the hub gateway's batch search (optional: one call per query)
}
#: Seconds a batch fetch may run past its budget before the caller stops waiting for the server.
FETCH_GRACE_S = 2.0
#: Pages per `fetch_pages` call, and the longest deadline sent (the gateway takes up to 20 pages and 60 s).
FETCH_BATCH = 10
#: Queries per `search_many` call (the gateway takes up to 8).
SEARCH_BATCH = 8
FETCH_MAX_TIMEOUT_S = 60.0

_TIME_RANGES = {"day", "week", "month", "year"}


def _check_time_range(time_range: str | None) -> None:
    if time_range is not None and time_range not in _TIME_RANGES:
        raise ValueError(f"time_range must be one of {sorted(_TIME_RANGES)}, not {time_range!r}")


def mcp_connections(settings: Settings) -> dict[str, dict[str, Any]]:
    """The MCP servers to use: `MCP_SERVERS` when set, else the hub's search gateway (streamable HTTP)."""
    if settings.mcp_servers:
        parsed: dict[str, dict[str, Any]] = json.loads(settings.mcp_servers)
        return parsed
    connection: dict[str, Any] = {"transport": "streamable_http", "url": settings.search_gateway_mcp_url}
    if settings.hub_token:
        connection["headers"] = {"Authorization": f"Bearer {settings.hub_token}"}
    return {"hub": connection}


_HTTP_TRANSPORTS = {"streamable_http", "streamable-http", "http", "sse"}


def mcp_http_client(headers: dict[str, str] | None = None, timeout: httpx.Timeout | None = None,
                    auth: httpx.Auth | None = None) -> httpx.AsyncClient:
    """`mcp`'s `create_mcp_http_client`, with the process's shared TLS context instead of a new one per client,
    and its connections spread over several pools (`http_pools`: the web agent's calls to the gateway run
    dozens at once under load)."""
    kwargs: dict[str, Any] = {"timeout": timeout or httpx.Timeout(30.0, read=300.0), "verify": shared_tls_context()}
    if headers is not None:
        kwargs["headers"] = headers
    if auth is not None:
        kwargs["auth"] = auth
    return pooled_client(**kwargs)


def _client_connections(settings: Settings) -> dict[str, dict[str, Any]]:
    """`mcp_connections` with the shared-TLS client factory on every HTTP connection that names none."""
    connections = mcp_connections(settings)
    for connection in connections.values():
        if connection.get("transport") in _HTTP_TRANSPORTS and not connection.get("httpx_client_factory"):
            connection["httpx_client_factory"] = mcp_http_client
    return connections


def _root_cause(exc: BaseException) -> str:
    """The innermost message of an exception (task groups wrap transport errors in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def _schema_properties(tool: BaseTool) -> set[str]:
    schema = tool.args_schema
    if isinstance(schema, dict):
        return set((schema.get("properties") or {}).keys())
    if schema is not None and hasattr(schema, "model_json_schema"):
        return set(schema.model_json_schema().get("properties", {}))
    return set()



@dataclass
class _Bound:
    tool: BaseTool
    server: str
    params: set[str] = field(default_factory=set)


def _bind(tools_by_server: dict[str, list[BaseTool]]) -> dict[str, _Bound]:
    """Canonical operation -> the tool that provides it (ToolsUnavailable without a search tool)."""
    bound: dict[str, _Bound] = {}
    for operation, aliases in TOOL_ALIASES.items():
        for alias in aliases:
            found = next(((server, tool) for server, tools in tools_by_server.items() for tool in tools
                          if tool.name == alias), None)
            if found:
                bound[operation] = _Bound(found[1], found[0], _schema_properties(found[1]))
                break
    if "web_search" not in bound:
        names = sorted(t.name for tools in tools_by_server.values() for t in tools)
        raise ToolsUnavailable(f"no search tool among the configured MCP tools: {names}")
    return bound


async def _invoke(bound: _Bound, args: dict[str, Any]) -> Any:
    """Call a tool; a `ToolMessage` (status "error" when the tool answered with an error).

    An MCP tool from langchain-mcp-adapters is called through its coroutine: `ainvoke` around it (callback
    manager, run bookkeeping, the coroutine's type hints resolved anew on every call) cost the web agent more
    CPU than the MCP call itself — a tenth of its CPU under load. The ReAct agent still uses the tools as
    LangChain tools.
    """
    call_id = uuid.uuid4().hex
    coroutine = getattr(bound.tool, "coroutine", None)
    if coroutine is None or getattr(bound.tool, "response_format", None) != "content_and_artifact":
        return await bound.tool.ainvoke({"type": "tool_call", "id": call_id, "name": bound.tool.name, "args": args})
    try:
        content, artifact = await coroutine(**args)
    except ToolException as exc:  # the MCP answer was an error (isError)
        return ToolMessage(content=str(exc), tool_call_id=call_id, name=bound.tool.name, status="error")
    return ToolMessage(content=content, artifact=artifact, tool_call_id=call_id, name=bound.tool.name)


async def _open_sessions(connections: dict[str, dict[str, Any]],
                         stack: AsyncExitStack) -> dict[str, list[BaseTool]]:
    """Open a session to every configured MCP server on `stack` and load its tools (server -> tools)."""
    client = MultiServerMCPClient(connections)  # type: ignore[arg-type]
    tools_by_server: dict[str, list[BaseTool]] = {}
    for name in client.connections:
        try:
            session = await stack.enter_async_context(client.session(name))
            tools_by_server[name] = await load_mcp_tools(session, server_name=name)
        except Exception as exc:  # unreachable server: a clear error, not a stack trace
            raise ToolsUnavailable(f"MCP server {name!r} is unreachable: {_root_cause(exc)}") from exc
    return tools_by_server


class SearchToolset:
    """The three canonical operations over whichever MCP tools are configured.

    Build it with `SearchToolset.open(settings)` (one MCP session per server for the life of the context),
    with `SearchToolsetPool.acquire()` (the pool's long-lived shared sessions), or from already-loaded
    LangChain tools with `SearchToolset(tools_by_server)`.

    Args:
        tools_by_server: server name -> the LangChain tools `load_mcp_tools` produced for it.
        agent_name: sent as the gateway's `agent` argument (telemetry) where the tool accepts it.
        fetch_from: page URL -> the address `fetch_page` reads it from instead (a local copy of a site, as
            evaluations and tests serve their pages); the page keeps the URL it was asked for.
    """

    def __init__(self, tools_by_server: dict[str, list[BaseTool]], agent_name: str = "web_research", *,
                 fetch_from: Mapping[str, str] | None = None) -> None:
        self.agent_name = agent_name
        self.calls: list[ToolCallLog] = []
        self.bound: dict[str, _Bound] = _bind(tools_by_server)
        self.fetch_from: dict[str, str] = dict(fetch_from or {})
        self._pool: SearchToolsetPool | None = None
        self._sessions: _Sessions | None = None

    @classmethod
    def _pooled(cls, pool: SearchToolsetPool, sessions: _Sessions, agent_name: str) -> SearchToolset:
        """A request's toolset over a pool's shared sessions (its own call log; the bindings are shared)."""
        toolset = cls.__new__(cls)
        toolset.agent_name = agent_name
        toolset.calls = []
        toolset.bound = sessions.bound
        toolset.fetch_from = {}
        toolset._pool = pool
        toolset._sessions = sessions
        return toolset

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings, agent_name: str = "web_research", *,
                   fetch_from: Mapping[str, str] | None = None) -> AsyncIterator[SearchToolset]:
        """Connect to every configured MCP server for the duration of the context (`fetch_from`: see the class)."""
        stack = AsyncExitStack()
        try:
            tools_by_server = await _open_sessions(_client_connections(settings), stack)
            body_failed = False
            try:
                yield cls(tools_by_server, agent_name, fetch_from=fetch_from)
            except BaseException:
                body_failed = True
                raise
        finally:
            try:
                await stack.aclose()
            except Exception as exc:
                if body_failed:
                    # A broken transport cancels the calls in flight; report the cause, not a bare cancellation.
                    raise ToolsUnavailable(f"MCP session failed: {_root_cause(exc)}") from exc
                log.warning("closing MCP sessions failed: %s", _root_cause(exc))  # the answer is complete

    @property
    def has_news(self) -> bool:
        return "news_search" in self.bound

    @property
    def has_fetch(self) -> bool:
        return "fetch_page" in self.bound

    def _args(self, bound: _Bound, wanted: dict[str, Any]) -> dict[str, Any]:
        # Send only what the tool declares (Tavily has no `agent`, `region`; the hub has no `topic`).
        return {k: v for k, v in wanted.items() if v is not None and (not bound.params or k in bound.params)}

    async def _call(self, operation: str, bound: _Bound, args: dict[str, Any]) -> Any:
        self.calls.append(ToolCallLog(operation, bound.tool.name, bound.server, args))
        if self._pool is None:
            message = await _invoke(bound, args)
        else:
            message = await self._pool._call(self, bound, args)
        if not isinstance(message, ToolMessage):
            return message
        if message.status == "error":
            raise RuntimeError(f"{bound.tool.name} failed: {str(message.content)[:300]}")
        return _payload(message)

    async def search(self, query: str, *, news: bool = False, max_results: int = 6, region: str | None = None,
                     time_range: str | None = None, include_domains: list[str] | None = None,
                     exclude_domains: list[str] | None = None, workload: str | None = None) -> SearchResponse:
        """Run a web (or news) search; news falls back to the search tool's `topic="news"`. `workload` names
        what the search serves (`research`, `latest`, `fact_check`: the hub gateway routes and bills by it; a
        server whose tool does not declare it never receives it)."""
        _check_time_range(time_range)
        operation = "news_search" if news and self.has_news else "web_search"
        bound = self.bound[operation]
        wanted: dict[str, Any] = {"query": query, "max_results": max_results, "region": region,
                                  "time_range": time_range, "agent": self.agent_name, "workload": workload,
                                  "include_domains": include_domains, "exclude_domains": exclude_domains}
        if news and operation == "web_search":
            wanted["topic"] = "news"
        started = time.perf_counter()
        payload = await self._call("news_search" if news else "web_search", bound, self._args(bound, wanted))
        response = parse_search_payload(payload, query, bound.tool.name)
        if not response.latency_ms:
            response.latency_ms = (time.perf_counter() - started) * 1000
        return response

    async def search_many(self, queries: Sequence[str], *, news: bool = False, max_results: int = 6,
                          region: str | None = None, time_range: str | None = None,
                          return_exceptions: bool = False, workload: str | None = None) -> list[Any]:
        """Run a round of searches; their responses in `queries` order.

        One `search_many` call (per SEARCH_BATCH queries) when the server offers it: each MCP call is a round
        of work on both sides, and the gateway shares the round's cache work. Otherwise one `search` per query,
        in parallel. Like `asyncio.gather`: the first failure is raised, or with `return_exceptions` a failed
        query's item is its exception.
        """
        queries = list(queries)
        bound = self.bound.get("search_many")
        if bound is None or len(queries) < 2:
            return list(await asyncio.gather(*(self.search(q, news=news, max_results=max_results, region=region,
                                                           time_range=time_range, workload=workload)
                                               for q in queries),
                                             return_exceptions=return_exceptions))
        _check_time_range(time_range)
        batches = [queries[i:i + SEARCH_BATCH] for i in range(0, len(queries), SEARCH_BATCH)]
        wanted = {"kind": "news" if news else "web", "max_results": max_results, "region": region,
                  "time_range": time_range, "agent": self.agent_name, "workload": workload}
        answers = await asyncio.gather(*(self._search_batch(bound, batch, wanted) for batch in batches),
                                       return_exceptions=return_exceptions)
        out: list[Any] = []
        for batch, answer in zip(batches, answers, strict=True):
            out.extend([answer] * len(batch) if isinstance(answer, BaseException) else answer)
        if not return_exceptions:
            failed = next((item for item in out if isinstance(item, BaseException)), None)
            if failed is not None:
                raise failed
        return out

    async def _search_batch(self, bound: _Bound, queries: list[str], wanted: dict[str, Any]) -> list[Any]:
        """One `search_many` call: a `SearchResponse` per query, or a `RuntimeError` for a query refused."""
        started = time.perf_counter()
        payload = await self._call("search_many", bound, self._args(bound, {"queries": queries, **wanted}))
        rows = payload.get("responses") if isinstance(payload, dict) else None
        if not isinstance(rows, list) or len(rows) != len(queries):
            raise RuntimeError(f"{bound.tool.name} did not answer each of its {len(queries)} queries")
        elapsed_ms = (time.perf_counter() - started) * 1000
        out: list[Any] = []
        for query, row in zip(queries, rows, strict=True):
            if isinstance(row, dict) and row.get("error") and "results" not in row:
                out.append(RuntimeError(f"{bound.tool.name} failed for {query!r}: {str(row['error'])[:300]}"))
                continue
            response = parse_search_payload(row, query, bound.tool.name)
            response.latency_ms = response.latency_ms or elapsed_ms
            out.append(response)
        return out

    async def fetch_page(self, url: str) -> PageContent:
        """Fetch one page's text (an error page, never an exception, when it cannot be read)."""
        source = self.fetch_from.get(url)
        if source is not None:
            page = await self._fetch(source)
            page.url = url
            return page
        return await self._fetch(url)

    async def fetch_pages(self, urls: Sequence[str], budget_s: float) -> dict[str, PageContent]:
        """Fetch `urls` within `budget_s` seconds: url -> page, in `urls` order; a page not read in time is an
        error page ("not read within the …s budget"), never an exception.

        One `fetch_pages` call when the server offers it (each call is a round of MCP work on both sides: a
        deep read fetched five to eight pages one call each); otherwise one `fetch_page` call per page, in
        parallel. Pages served from a local copy (`fetch_from`) are fetched one by one.
        """
        urls = list(dict.fromkeys(urls))
        if not urls:
            return {}
        late = f"not read within the {budget_s:.0f}s budget"
        bound = self.bound.get("fetch_pages")
        if bound is not None and not any(u in self.fetch_from for u in urls):
            batches = [urls[i:i + FETCH_BATCH] for i in range(0, len(urls), FETCH_BATCH)]
            answers = await asyncio.gather(*(self._fetch_batch(bound, b, budget_s, late) for b in batches))
            return {url: page for answer in answers for url, page in answer.items()}
        fetched = await gather_within({u: self.fetch_page(u) for u in urls}, budget_s)
        return {url: page if isinstance(page, PageContent)
                else PageContent(url=url, error=late if page is None else str(page)[:300])
                for url, page in fetched.items()}

    async def _fetch_batch(self, bound: _Bound, urls: list[str], budget_s: float,
                           late: str) -> dict[str, PageContent]:
        timeout_s = min(max(budget_s, 0.1), FETCH_MAX_TIMEOUT_S)
        args = self._args(bound, {"urls": urls, "timeout_s": timeout_s, "agent": self.agent_name})
        try:
            payload = await asyncio.wait_for(self._call("fetch_pages", bound, args), budget_s + FETCH_GRACE_S)
        except TimeoutError:
            return {u: PageContent(url=u, error=late) for u in urls}
        except Exception as exc:
            return {u: PageContent(url=u, error=str(exc)[:300]) for u in urls}
        return parse_pages_payload(payload, urls)

    async def _fetch(self, url: str) -> PageContent:
        bound = self.bound.get("fetch_page")
        if bound is None:
            return PageContent(url=url, error="no fetch tool configured")
        if "urls" in bound.params:
            args = {"urls": [url]}
        else:
            args = self._args(bound, {"url": url, "agent": self.agent_name})
        try:
            payload = await self._call("fetch_page", bound, args)
        except Exception as exc:
            return PageContent(url=url, error=str(exc)[:300])
        return parse_page_payload(payload, url)
