"""`tavily` provider through `tavily-python` (AsyncTavilyClient)."""

from __future__ import annotations

from typing import Any

from ai_llm.search_gateway.models import ProviderError, RateLimited, SearchRequest, SearchResult
from ai_llm.search_gateway.providers.base import rank_score


class TavilyProvider:
    """Tavily search API (`/search`, topic general or news).

    Args:
        api_key: `TAVILY_API_KEY`.
        base_url: API base (tests point it at a local server speaking Tavily's wire format).
        cost_per_call: USD per basic search (1 credit ≈ $0.008 on pay-as-you-go).
    """

    name = "tavily"
    partition = "tavily"

    def __init__(self, api_key: str, base_url: str | None = None, cost_per_call: float = 0.008,
                 timeout_s: float = 8.0) -> None:
        from tavily import AsyncTavilyClient

        self._client = AsyncTavilyClient(api_key=api_key, api_base_url=base_url)
        #: Where its searches go (the health probe connects there).
        self.endpoint_url = base_url or "https://api.tavily.com"
        self.cost_per_call = cost_per_call
        self.timeout_s = timeout_s

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        kwargs: dict[str, Any] = {"max_results": request.max_results, "topic": request.kind if request.kind == "news"
                                  else "general", "timeout": self.timeout_s}
        if request.time_range and request.time_range != "all":
            kwargs["time_range"] = request.time_range
        if request.include_domains:
            kwargs["include_domains"] = list(request.include_domains)
        if request.exclude_domains:
            kwargs["exclude_domains"] = list(request.exclude_domains)
        if request.region:
            kwargs["country"] = request.region
        try:
            data = await self._client.search(request.query, **kwargs)
        except Exception as exc:  # tavily raises its own exception types (and httpx ones)
            text = f"{type(exc).__name__}: {exc}"
            if "429" in text or "UsageLimit" in text or "RateLimit" in text or "ForbiddenError" in text:
                raise RateLimited(f"tavily: {text}") from exc
            raise ProviderError(f"tavily: {text}") from exc
        items = data.get("results") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise ProviderError("tavily: malformed response (no 'results' list)")
        out = []
        for rank, item in enumerate(items):
            if not isinstance(item, dict) or not item.get("url"):
                continue
            score = item.get("score")
            out.append(SearchResult(
                title=str(item.get("title") or item["url"]), url=str(item["url"]),
                snippet=str(item.get("content") or "")[:600],
                score=float(score) if isinstance(score, int | float) else rank_score(rank, len(items)),
                published_at=item.get("published_date")))
        return out
