"""What the search tools return, normalised: `SearchHit` (`title, url, snippet, source, score, published_at`)
inside a `SearchResponse` carrying the gateway envelope (`provider, cache, branch, latency_ms, cost_usd, notice`),
pages as `PageContent` (`url, title, text, published_at, error`), whatever server answered and however it
shaped its payload."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from langchain_core.messages import ToolMessage


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
