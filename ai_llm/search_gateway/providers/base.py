"""The provider port: every search backend turns a `SearchRequest` into `SearchResult`s."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import httpx

from ai_llm.search_gateway.models import ProviderError, RateLimited, SearchRequest, SearchResult

_RANGE_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}


class SearchProvider(Protocol):
    """A search backend.

    Attributes:
        name: provider name as used in the config and telemetry (`tavily`, `local`, …).
        partition: cache partition; results of different partitions never mix or overwrite each other.
        cost_per_call: USD charged per search call.
    """

    name: str
    partition: str
    cost_per_call: float

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        """Search; raise `ProviderError` (or a subclass) on failure."""
        ...


def rank_score(rank: int, total: int) -> float:
    """Score for providers that return no relevance score: 1.0 for the first hit, decaying with rank."""
    if total <= 1:
        return 0.9
    return round(0.9 - 0.5 * rank / (total - 1), 4)


def range_cutoff(time_range: str | None, now: datetime | None = None) -> datetime | None:
    """Oldest publication time allowed by `time_range` (None for `all`/unset)."""
    if not time_range or time_range not in _RANGE_DAYS:
        return None
    return (now or datetime.now(UTC)) - timedelta(days=_RANGE_DAYS[time_range])


def parse_date(value: str | None) -> datetime | None:
    """Parse an ISO-ish date (`2026-11-29`, `2026-11-29T10:00:00Z`); None when unknown."""
    if not value:
        return None
    text = str(value).strip().replace("Z", "+00:00")
    for candidate in (text, text[:10]):
        try:
            parsed = datetime.fromisoformat(candidate)
        except ValueError:
            continue
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def passes_filters(url: str, host: str, request: SearchRequest) -> bool:
    """Whether a result at `url` (on `host`) passes the request's domain filters and is a web URL."""
    if request.include_domains and not any(host == d or host.endswith("." + d) for d in request.include_domains):
        return False
    if any(host == d or host.endswith("." + d) for d in request.exclude_domains):
        return False
    return bool(url) and url.startswith(("http://", "https://"))


def filter_results(results: list[SearchResult], request: SearchRequest) -> list[SearchResult]:
    """Apply domain filters and the result count, whatever the provider honoured itself."""
    return [result for result in results if passes_filters(result.url, result.source, request)][: request.max_results]


async def request_json(name: str, method: str, url: str, *, timeout_s: float, headers: dict[str, str] | None = None,
                       body: Any = None, params: dict[str, Any] | None = None) -> Any:
    """One HTTP call of provider `name`; the JSON it answered, or the gateway's usual provider errors (429 →
    `RateLimited`; other HTTP errors, timeouts, transport failures and a reply that is not JSON →
    `ProviderError`)."""
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            response = await client.request(method, url, headers=headers, json=body, params=params)
    except httpx.TimeoutException as exc:
        raise ProviderError(f"{name}: timed out") from exc
    except httpx.HTTPError as exc:
        raise ProviderError(f"{name}: {type(exc).__name__}: {exc}") from exc
    if response.status_code == 429:
        raise RateLimited(f"{name}: HTTP 429 rate limited")
    if response.status_code >= 400:
        raise ProviderError(f"{name}: HTTP {response.status_code}: {response.text[:200]}")
    try:
        return response.json()
    except (json.JSONDecodeError, ValueError) as exc:
        raise ProviderError(f"{name}: malformed response: not JSON") from exc
