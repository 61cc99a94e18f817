"""A stand-in MCP server speaking the hub search gateway's contract (docs/contracts.md, "Search gateway").

Run as a real process: `python contract_gateway.py --port N --corpus pages.jsonl --log calls.jsonl`.
Tools `web_search`, `news_search`, `fetch_page` return the gateway envelope; `fetch_page` serves corpus pages
by URL and fetches other URLs over HTTP (the tests' local page server). Every call is appended to `--log`.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import httpx
from corpus import Corpus
from mcp.server.fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--corpus")
parser.add_argument("--log", required=True)
args = parser.parse_args()
corpus = Corpus(args.corpus)
mcp = FastMCP("contract-gateway", host="127.0.0.1", port=args.port)


def log(tool: str, arguments: dict[str, Any]) -> None:
    with open(args.log, "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "args": arguments}) + "\n")


def envelope(query: str, max_results: int, **extra: Any) -> dict[str, Any]:
    started = time.perf_counter()
    results = [{"title": p["title"], "url": p["url"], "snippet": p["content"][:300], "source": p["url"].split("/")[2],
                "score": score, "published_at": p.get("published_at")} for score, p in corpus.search(query, max_results)]
    return {"query": query, "results": results, "provider": "local", "cache": "miss", "branch": "primary",
            "latency_ms": (time.perf_counter() - started) * 1000, "cost_usd": 0.0, "notice": None}


@mcp.tool()
def web_search(query: str, max_results: int = 6, region: str | None = None, time_range: str | None = None,
               include_domains: list[str] | None = None, exclude_domains: list[str] | None = None,
               agent: str | None = None) -> dict[str, Any]:
    """Search the web."""
    log("web_search", {"query": query, "max_results": max_results, "region": region, "time_range": time_range,
                       "agent": agent})
    return envelope(query, max_results)


@mcp.tool()
def news_search(query: str, max_results: int = 6, region: str | None = None, time_range: str | None = None,
                agent: str | None = None) -> dict[str, Any]:
    """Search news."""
    log("news_search", {"query": query, "max_results": max_results, "region": region, "time_range": time_range,
                        "agent": agent})
    return envelope(query, max_results)


@mcp.tool()
async def fetch_page(url: str, agent: str | None = None) -> dict[str, Any]:
    """Fetch a page's text."""
    log("fetch_page", {"url": url, "agent": agent})
    page = corpus.by_url.get(url)
    if page is not None:
        return {"url": url, "title": page["title"], "text": page["content"], "published_at": page.get("published_at"),
                "error": None}
    try:
        async with httpx.AsyncClient(timeout=60) as http:
            response = await http.get(url)
        response.raise_for_status()
        return {"url": url, "title": "", "text": response.text, "published_at": None, "error": None}
    except httpx.HTTPError as exc:
        return {"url": url, "title": "", "text": "", "published_at": None, "error": f"fetch failed: {exc!r}"}


@mcp.custom_route("/healthz", methods=["GET"])
async def healthz(_: Request) -> Response:
    return JSONResponse({"ok": True})


mcp.run(transport="streamable-http")
