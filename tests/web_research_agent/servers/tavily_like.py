"""A local MCP server exposing the official Tavily MCP server's tool names and result shape.

Tavily's API cannot be reached here, so this stands in for `npx -y tavily-mcp`: tools `tavily-search`
(`query, max_results, topic, time_range, include_domains, exclude_domains, search_depth`) answering
`{"query", "results": [{"title", "url", "content", "score", "published_date"}], "response_time"}` and
`tavily-extract` (`urls`) answering `{"results": [{"url", "raw_content"}], "failed_results": [...]}`.
Run: `python -m tests.web_research_agent.servers.tavily_like --port N --corpus pages.jsonl --log calls.jsonl`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from mcp.server.fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.web_research_agent.servers.corpus import Corpus

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--corpus")
parser.add_argument("--log", required=True)
args = parser.parse_args()
corpus = Corpus(args.corpus)
mcp = FastMCP("tavily-like", host="127.0.0.1", port=args.port)


def log(tool: str, arguments: dict[str, Any]) -> None:
    with open(args.log, "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "args": arguments}) + "\n")


@mcp.tool(name="tavily-search")
def tavily_search(query: str, max_results: int = 5, topic: str = "general", time_range: str | None = None,
                  search_depth: str = "basic", include_domains: list[str] | None = None,
                  exclude_domains: list[str] | None = None) -> dict[str, Any]:
    """Tavily web search."""
    log("tavily-search", {"query": query, "max_results": max_results, "topic": topic, "time_range": time_range})
    return {"query": query, "response_time": 0.01,
            "results": [{"title": p["title"], "url": p["url"], "content": p["content"][:300], "score": score,
                         "published_date": p.get("published_at")} for score, p in corpus.search(query, max_results)]}


@mcp.tool(name="tavily-extract")
def tavily_extract(urls: list[str], extract_depth: str = "basic") -> dict[str, Any]:
    """Tavily page extraction."""
    log("tavily-extract", {"urls": urls})
    found = [{"url": u, "raw_content": corpus.by_url[u]["content"]} for u in urls if u in corpus.by_url]
    failed = [{"url": u, "error": "not found"} for u in urls if u not in corpus.by_url]
    return {"results": found, "failed_results": failed}


@mcp.custom_route("/healthz", methods=["GET"])
async def healthz(_: Request) -> Response:
    return JSONResponse({"ok": True})


mcp.run(transport="streamable-http")
