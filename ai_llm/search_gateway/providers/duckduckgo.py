"""`duckduckgo` provider through `ddgs` (no key; the default when online)."""

from __future__ import annotations

import asyncio
from typing import Any

from ai_llm.search_gateway.models import ProviderError, RateLimited, SearchRequest, SearchResult
from ai_llm.search_gateway.providers.base import rank_score

_TIMELIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}


def map_ddgs(items: list[dict[str, Any]], kind: str) -> list[SearchResult]:
    """ddgs rows (`title`, `href`|`url`, `body`, `date`) as results with rank-derived scores."""
    out = []
    for rank, item in enumerate(items):
        url = item.get("href") or item.get("url")
        if not url:
            continue
        out.append(SearchResult(title=str(item.get("title") or url), url=str(url),
                                snippet=str(item.get("body") or "")[:600], score=rank_score(rank, len(items)),
                                published_at=item.get("date") if kind == "news" else None))
    return out


class DuckDuckGoProvider:
    """Metasearch through `ddgs` (runs the blocking client in a thread)."""

    name = "duckduckgo"
    partition = "duckduckgo"
    #: Where its searches go (the health probe connects there).
    endpoint_url = "https://duckduckgo.com"

    def __init__(self, cost_per_call: float = 0.0, timeout_s: float = 8.0) -> None:
        self.cost_per_call = cost_per_call
        self.timeout_s = timeout_s

    def _search_sync(self, request: SearchRequest) -> list[dict[str, Any]]:
        from ddgs import DDGS
        from ddgs.exceptions import RatelimitException

        query = request.query
        if request.include_domains:
            query += " " + " OR ".join(f"site:{d}" for d in request.include_domains)
        kwargs: dict[str, Any] = {"max_results": request.max_results, "region": request.region or "wt-wt"}
        if request.time_range in _TIMELIMIT:
            kwargs["timelimit"] = _TIMELIMIT[request.time_range]
        try:
            client = DDGS(timeout=int(self.timeout_s))
            if request.kind == "news":
                return list(client.news(query, **kwargs))
            return list(client.text(query, **kwargs))
        except RatelimitException as exc:
            raise RateLimited(f"duckduckgo: {exc}") from exc
        except Exception as exc:
            raise ProviderError(f"duckduckgo: {type(exc).__name__}: {exc}") from exc

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        items = await asyncio.to_thread(self._search_sync, request)
        return map_ddgs(items, request.kind)
