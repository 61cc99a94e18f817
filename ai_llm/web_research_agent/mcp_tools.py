"""MCP search tools behind one small interface, whatever server provides them.

The web agent talks to its tools through `langchain-mcp-adapters`' `MultiServerMCPClient`. The servers are
configuration (`MCP_SERVERS`, langchain-mcp-adapters format); by default the hub's search gateway. Servers
name their tools and shape their results differently, so this module maps what it sees onto three
canonical operations:

* `web_search` — the hub gateway's `web_search`, Tavily's `tavily-search` / `tavily_search`, or any tool
  called `search`;
* `news_search` — the gateway's `news_search`, else the search tool with Tavily's `topic="news"`;
* `fetch_page` — the gateway's `fetch_page`, Tavily's `tavily-extract` / `tavily_extract`, or `fetch`.

Results are normalised to `SearchHit` (`title, url, snippet, source, score, published_at`) inside a
`SearchResponse` carrying the gateway envelope (`provider, cache, branch, latency_ms, cost_usd, notice`),
and pages to `PageContent` (`url, title, text, published_at, error`).

Sessions: `SearchToolset.open(settings)` opens one MCP session per server for the life of a context (tests,
evals, the CLI). A long-lived process (the web agent's A2A server) keeps them instead in a
`SearchToolsetPool`: the sessions and their tools are opened once, shared by concurrent requests (an MCP
`ClientSession` multiplexes requests by id; the streamable-HTTP transport posts each one in its own task), and
replaced when they break — a request never starts on a session known broken, and a call that fails because
its session died (server restarted or gone) is retried once on a new session.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import anyio
import httpx
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED

from ai_llm.common.a2a_client import shared_tls_context
from ai_llm.common.events import gather_within
from ai_llm.common.http_pools import pooled_client
from ai_llm.common.settings import Settings

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


class ToolsUnavailable(RuntimeError):
    """No configured MCP server offers a search tool (or the servers cannot be reached)."""


@dataclass
class SearchHit:
    """One search result in the hub's shape."""

    title: str
    url: str
    snippet: str
    source: str = ""
    score: float | None = None
    published_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SearchResponse:
    """A search tool's answer: results plus the gateway envelope (defaults when the server has none)."""

    query: str
    hits: list[SearchHit]
    tool: str
    provider: str = ""
    cache: str = "miss"
    branch: str = ""
    latency_ms: float = 0.0
    cost_usd: float = 0.0
    notice: str | None = None
    outage: bool = False  # the search server could not search at all (every provider failed)


@dataclass
class PageContent:
    """A fetched page (`error` set and `text` empty when it could not be read)."""

    url: str
    title: str = ""
    text: str = ""
    published_at: str | None = None
    error: str | None = None


@dataclass
class ToolCallLog:
    """What the toolset sent, for status lines, telemetry and tests."""

    operation: str
    tool: str
    server: str
    args: dict[str, Any]


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


def _first(record: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = record.get(key)
        if value not in (None, ""):
            return value
    return None


def _as_float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _domain(url: str) -> str:
    match = re.match(r"https?://([^/:]+)", url)
    return match.group(1).lower().removeprefix("www.") if match else ""


_TEXT_RESULT = re.compile(r"Title:\s*(?P<title>.*?)\nURL:\s*(?P<url>\S+)\n(?:Content:\s*(?P<content>.*?))?(?=\nTitle:|\Z)",
                          re.S)


def _payload(message: ToolMessage) -> Any:
    """The JSON object a tool returned: its structured content, else its text parsed as JSON."""
    artifact = message.artifact
    if isinstance(artifact, dict) and isinstance(artifact.get("structured_content"), dict):
        structured = artifact["structured_content"]
        # FastMCP wraps non-object returns as {"result": …}.
        if set(structured) == {"result"}:
            return structured["result"]
        return structured
    content = message.content
    if isinstance(content, list):
        text = "\n".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in content)
    else:
        text = str(content)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_search_payload(payload: Any, query: str, tool: str) -> SearchResponse:
    """Normalise a search tool's result (hub envelope, Tavily JSON, Tavily text, bare list)."""
    if isinstance(payload, str):
        # Tavily's MCP server may answer in text blocks: "Title: …\nURL: …\nContent: …".
        rows: list[Any] = [{"title": m["title"].strip(), "url": m["url"].strip(),
                            "content": (m["content"] or "").strip()} for m in _TEXT_RESULT.finditer(payload)]
        envelope: dict[str, Any] = {}
    elif isinstance(payload, list):
        rows, envelope = payload, {}
    elif isinstance(payload, dict):
        rows, envelope = list(payload.get("results") or []), payload
    else:
        rows, envelope = [], {}
    hits: list[SearchHit] = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        url = str(_first(row, "url", "link", "href") or "")
        if not url:
            continue
        hits.append(SearchHit(
            title=str(_first(row, "title", "name") or url),
            url=url,
            snippet=str(_first(row, "snippet", "content", "description", "body", "text") or ""),
            source=str(_first(row, "source") or _domain(url)),
            score=_as_float(_first(row, "score", "relevance_score", "relevance")),
            published_at=_first(row, "published_at", "published_date", "date"),
        ))
    return SearchResponse(
        query=str(envelope.get("query") or query), hits=hits, tool=tool,
        provider=str(envelope.get("provider") or tool),
        cache=str(envelope.get("cache") or "miss"),
        branch=str(envelope.get("branch") or ""),
        latency_ms=_as_float(envelope.get("latency_ms")) or 0.0,
        cost_usd=_as_float(envelope.get("cost_usd")) or 0.0,
        notice=envelope.get("notice"),
        outage=bool(envelope.get("outage")) and not hits,
    )


def parse_page_payload(payload: Any, url: str) -> PageContent:
    """Normalise a fetch tool's result (hub `fetch_page`, Tavily extract, plain text)."""
    if isinstance(payload, str):
        return PageContent(url=url, text=payload, error=None if payload.strip() else "empty page")
    if not isinstance(payload, dict):
        return PageContent(url=url, error="unreadable fetch result")
    if "results" in payload:  # Tavily extract: {"results": [{url, raw_content}], "failed_results": [...]}
        rows = [r for r in payload.get("results") or [] if isinstance(r, dict)]
        if not rows:
            failed = payload.get("failed_results") or [{}]
            reason = failed[0].get("error") if isinstance(failed[0], dict) else None
            return PageContent(url=url, error=str(reason or "page could not be extracted"))
        row = rows[0]
        return PageContent(url=str(row.get("url") or url), title=str(row.get("title") or ""),
                           text=str(_first(row, "raw_content", "content", "text") or ""),
                           published_at=_first(row, "published_at", "published_date"))
    error = payload.get("error")
    return PageContent(url=str(payload.get("url") or url), title=str(payload.get("title") or ""),
                       text=str(_first(payload, "text", "content", "raw_content") or ""),
                       published_at=_first(payload, "published_at", "published_date"),
                       error=str(error) if error else None)


def parse_pages_payload(payload: Any, urls: Sequence[str]) -> dict[str, PageContent]:
    """`fetch_pages`'s answer (`{"pages": [...]}`, one page per URL asked, in that order) as url -> page.

    Pages are matched by position, not by their `url`: a redirected page carries the address it ended on. An
    answer of another length is an error page for every URL."""
    rows = payload.get("pages") if isinstance(payload, dict) else None
    if not isinstance(rows, list) or len(rows) != len(urls):
        return {u: PageContent(url=u, error="unreadable fetch_pages answer") for u in urls}
    return {u: parse_page_payload(row, u) for u, row in zip(urls, rows, strict=True)}


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
                     exclude_domains: list[str] | None = None) -> SearchResponse:
        """Run a web (or news) search; news falls back to the search tool's `topic="news"`."""
        _check_time_range(time_range)
        operation = "news_search" if news and self.has_news else "web_search"
        bound = self.bound[operation]
        wanted: dict[str, Any] = {"query": query, "max_results": max_results, "region": region,
                                  "time_range": time_range, "agent": self.agent_name,
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
                          return_exceptions: bool = False) -> list[Any]:
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
                                                           time_range=time_range) for q in queries),
                                             return_exceptions=return_exceptions))
        _check_time_range(time_range)
        batches = [queries[i:i + SEARCH_BATCH] for i in range(0, len(queries), SEARCH_BATCH)]
        wanted = {"kind": "news" if news else "web", "max_results": max_results, "region": region,
                  "time_range": time_range, "agent": self.agent_name}
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
