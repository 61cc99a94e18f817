"""MCP server of the search gateway (placeholder until the gateway issue lands: it serves a health
route and no search tools yet)."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ai_llm.common.settings import Settings


def create_server(settings: Settings, port: int | None = None) -> FastMCP:
    """The gateway's FastMCP server."""
    mcp = FastMCP("agent-hub-search-gateway", host=settings.hub_host,
                  port=port if port is not None else settings.search_gateway_port)

    @mcp.custom_route("/healthz", methods=["GET"])
    async def healthz(_: Request) -> Response:
        return JSONResponse({"ok": True, "tools": []})

    return mcp
