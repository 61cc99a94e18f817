"""The gateway's one result shape, whatever provider answered (see docs/contracts.md "Search gateway")."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

Kind = Literal["web", "news"]
CacheResult = Literal["exact", "semantic", "miss"]
TIME_RANGES = ("day", "week", "month", "year", "all")


class ProviderError(RuntimeError):
    """A provider failed (HTTP error, malformed response, unreachable); the chain falls through."""


class RateLimited(ProviderError):
    """The provider answered 429 / quota exhausted."""


class ProviderTimeout(ProviderError):
    """The provider did not answer within its configured timeout."""


def domain_of(url: str) -> str:
    """Host of a URL without a leading `www.` (the result's `source`)."""
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


@dataclass
class SearchResult:
    """One hit: `score` is 0–1 (provider score normalised, or rank-derived when the provider has none)."""

    title: str
    url: str
    snippet: str
    source: str = ""
    score: float = 0.0
    published_at: str | None = None

    def __post_init__(self) -> None:
        if not self.source:
            self.source = domain_of(self.url)
        self.score = round(min(1.0, max(0.0, float(self.score))), 4)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchRequest:
    """A normalised search request; `query` is already cleaned and truncated."""

    query: str
    kind: Kind = "web"
    max_results: int = 6
    region: str | None = None
    time_range: str | None = None
    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    #: The caller's workload: it picks the provider chain (and the TTL class), never the cache key.
    workload: str | None = None
    ttl_class: str | None = None  # general | fresh, from the workload; None = by kind and time range

    @property
    def fresh(self) -> bool:
        """News and day-range searches go stale fast: they get the short cache TTL (or as the workload says)."""
        if self.ttl_class is not None:
            return self.ttl_class == "fresh"
        return self.kind == "news" or self.time_range == "day"

    def params_key(self) -> str:
        """Canonical parameter string (sorted, order-independent) used in cache keys."""
        parts = [
            f"kind={self.kind}", f"n={self.max_results}", f"region={self.region or ''}",
            f"time={self.time_range or 'all'}",
            f"inc={','.join(sorted(self.include_domains))}", f"exc={','.join(sorted(self.exclude_domains))}",
        ]
        return "&".join(parts)


@dataclass
class SearchResponse:
    """Envelope returned by `web_search` / `news_search`."""

    query: str
    results: list[SearchResult] = field(default_factory=list)
    provider: str | None = None
    cache: CacheResult = "miss"
    branch: int = 0
    latency_ms: float = 0.0
    cost_usd: float = 0.0
    notice: str | None = None
    errors: list[str] = field(default_factory=list)
    cached_query: str | None = None
    outage: bool = False  # no provider could search at all (each failed): not the same as "nothing found"
    tokens: int = 0  # model tokens the providers billed (native search providers), for telemetry
    workload: str | None = None
    #: The whole answer of the model whose search served the results (native search providers only): apart
    #: from the results, whose snippets hold only the spans that cite each source.
    provider_answer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "query": self.query, "results": [r.to_dict() for r in self.results], "provider": self.provider,
            "cache": self.cache, "branch": self.branch, "latency_ms": round(self.latency_ms, 2),
            "cost_usd": round(self.cost_usd, 6), "notice": self.notice, "errors": self.errors,
            "cached_query": self.cached_query, "outage": self.outage, "workload": self.workload,
        }
        if self.provider_answer is not None:  # only when a native search provider served
            out["provider_answer"] = self.provider_answer
        return out
