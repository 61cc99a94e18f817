"""MCP server of the search gateway: `web_search`, `news_search`, `fetch_page`, `fetch_pages` over `SearchGateway`.

Streamable HTTP at `/mcp`, or stdio. Over HTTP it also serves what other hub processes read instead of
the gateway's internals: `GET /healthz` (tools, provider chains, cache state; with `?providers=1` whether web search can serve now) and `GET /telemetry?hours=&recent=`
(the telemetry summary, `telemetry.telemetry_summary`). The hub's Host/Origin guard
(`ai_llm/common/http/guard.py`) answers a foreign `Host` with 421 and a cross-origin request with 403, as
the MCP transport spec asks; with `HUB_TOKEN` set, every call except `/healthz` needs
`Authorization: Bearer <token>`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from mcp.server.fastmcp import FastMCP
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ai_llm.common.a2a.server import BearerTokenMiddleware
from ai_llm.common.http.guard import HostOriginGuard
from ai_llm.common.settings import Settings
from ai_llm.search_gateway.gateway import DEFAULT_FETCH_BUDGET_S, SearchGateway
from ai_llm.search_gateway.telemetry import MAX_HOURS, MAX_RECENT, telemetry_summary

log = logging.getLogger(__name__)

TOOLS = ("web_search", "news_search", "search_many", "fetch_page", "fetch_pages")
TimeRange = Annotated[str | None, Field(description="day | week | month | year | all")]
Agent = Annotated[str | None, Field(description="name of the calling agent, for telemetry")]
Workload = Annotated[str | None, Field(
    description="the caller's kind of work (e.g. research, fact_check, news, latest): picks the provider chain "
                "and default depth configured for it (the default chain when not configured); recorded in "
                "telemetry")]
MaxResults = Annotated[int | None, Field(description="results wanted (1-20); default: the workload's depth, else 6")]


def create_server(settings: Settings, port: int | None = None, gateway: SearchGateway | None = None) -> FastMCP:
    """The gateway's FastMCP server (tools bound to `gateway`, built from settings when not given)."""
    gw = gateway or SearchGateway.create(settings)
    # json_response: one JSON body per call instead of an SSE stream (tools here do not stream progress).
    # Each tool answers with one text block holding its JSON object (`structured_output=False`): as structured
    # content too, under an output schema that can only say "an object", the result was serialised twice and
    # checked against that schema by jsonschema on both sides: about 1 ms of CPU per call in all.
    # FastMCP's own Host/Origin check is off: HostOriginGuard does it for the whole app (`/healthz` too, any
    # bind address, HUB_ALLOWED_HOSTS), the same way as every other hub server.
    mcp = FastMCP("agent-hub-search-gateway", host=settings.hub_host, json_response=True,
                  port=port if port is not None else settings.search_gateway_port,
                  transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
                  instructions="Web search, news search and page fetching through the hub's shared search "
                               "gateway. Results carry a 0-1 relevance score.")

    @mcp.tool(structured_output=False)
    async def web_search(query: str, max_results: MaxResults = None, region: str | None = None,
                         time_range: TimeRange = None, include_domains: list[str] | None = None,
                         exclude_domains: list[str] | None = None, agent: Agent = None,
                         workload: Workload = None) -> dict[str, Any]:
        """Search the web. Returns {query, results: [{title, url, snippet, source, score, published_at}],
        provider, cache (exact|semantic|miss), branch, latency_ms, cost_usd, notice, workload}, plus
        provider_answer (the model's whole answer) when a model vendor's own search served the results."""
        return await gw.search(query, "web", max_results, region, time_range, include_domains, exclude_domains,
                               agent, workload)

    @mcp.tool(structured_output=False)
    async def news_search(query: str, max_results: MaxResults = None, region: str | None = None,
                          time_range: TimeRange = None, agent: Agent = None,
                          workload: Workload = None) -> dict[str, Any]:
        """Search recent news. Same result shape as web_search."""
        return await gw.search(query, "news", max_results, region, time_range, agent=agent, workload=workload)

    @mcp.tool(structured_output=False)
    async def search_many(queries: list[str], kind: Literal["web", "news"] = "web", max_results: MaxResults = None,
                          region: str | None = None, time_range: TimeRange = None,
                          include_domains: list[str] | None = None, exclude_domains: list[str] | None = None,
                          agent: Agent = None, workload: Workload = None) -> dict[str, Any]:
        """Run up to 8 web (or news) searches at once: {responses: [...]}, one web_search result per query in
        the order asked; a query refused comes back as {query, error}."""
        return await gw.search_many(queries, kind, max_results, region, time_range, include_domains,
                                    exclude_domains, agent, workload)

    @mcp.tool(structured_output=False)
    async def fetch_page(url: str, agent: Agent = None) -> dict[str, Any]:
        """Fetch a page's clean main text: {url, title, text, published_at, error}."""
        return await gw.fetch_page(url, agent)

    @mcp.tool(structured_output=False)
    async def fetch_pages(urls: list[str], timeout_s: float = DEFAULT_FETCH_BUDGET_S,
                          agent: Agent = None) -> dict[str, Any]:
        """Fetch up to 20 pages at once within timeout_s seconds: {pages: [{url, title, text, published_at,
        error}]} in the order asked; a page not read in time comes back with an error."""
        return await gw.fetch_pages(urls, timeout_s, agent)

    @mcp.custom_route("/healthz", methods=["GET"])
    async def healthz(request: Request) -> Response:
        """Liveness with the chains and cache state; `?providers=1` adds `web`, whether web search can serve
        now (`reachability.py`: a probe of at most a second, cached)."""
        body = {"ok": True, "tools": list(TOOLS), **gw.describe()}
        if request.query_params.get("providers") in ("1", "true"):
            body["web"] = await gw.web_health()
        return JSONResponse(body)

    @mcp.custom_route("/telemetry", methods=["GET"])
    async def telemetry(request: Request) -> Response:
        """The telemetry summary of the last `hours` (0 < hours <= MAX_HOURS, default 24) with the `recent`
        (1–MAX_RECENT, default 50) latest queries; 422 on bad parameters, 503 without a database."""
        try:
            hours = float(request.query_params.get("hours", 24))
            recent = int(request.query_params.get("recent", 50))
        except ValueError:
            return JSONResponse({"detail": "hours must be a number and recent an integer"}, status_code=422)
        if not 0 < hours <= MAX_HOURS or not 1 <= recent <= MAX_RECENT:
            return JSONResponse({"detail": f"hours must be in (0, {MAX_HOURS}] and recent in [1, {MAX_RECENT}]"},
                                status_code=422)
        if gw.db is None:
            return JSONResponse({"detail": "search telemetry is unavailable: the gateway has no database"},
                                status_code=503)
        return JSONResponse(await telemetry_summary(gw.db, hours=hours, recent=recent))

    mcp._hub_gateway = gw  # type: ignore[attr-defined]  # the app factory and stdio runner open/close it
    return mcp


def gateway_of(mcp: FastMCP) -> SearchGateway:
    return mcp._hub_gateway  # type: ignore[attr-defined,no-any-return]


def create_http_app(settings: Settings, mcp: FastMCP) -> Starlette:
    """Streamable-HTTP app whose lifespan opens the gateway (DB, embeddings) once for all sessions."""
    app = mcp.streamable_http_app()
    inner = app.router.lifespan_context
    gw = gateway_of(mcp)

    @asynccontextmanager
    async def lifespan(a: Starlette) -> AsyncIterator[None]:
        await gw.open()
        try:
            async with inner(a):
                yield
        finally:
            await gw.close()

    app.router.lifespan_context = lifespan
    if settings.hub_token:
        app.add_middleware(BearerTokenMiddleware, token=settings.hub_token, public_paths=("/healthz",))
    app.add_middleware(HostOriginGuard, allowed_hosts=settings.allowed_hosts)  # added last: runs first
    return app


async def run_stdio(mcp: FastMCP) -> None:
    gw = gateway_of(mcp)
    await gw.open()
    try:
        await mcp.run_stdio_async()
    finally:
        await gw.close()
