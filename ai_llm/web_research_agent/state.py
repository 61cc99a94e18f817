"""Types of one research run: the request, its limits, the search plan, and what the run has done so far."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

from ai_llm.common.usage import note_search
from ai_llm.web_research_agent.search_tools.results import SearchHit, SearchResponse
from ai_llm.web_research_agent.search_tools.toolset import SearchToolset

Depth = Literal["auto", "snippets", "pages"]
ProgressFn = Callable[..., Awaitable[None]]
ToolsetFactory = Callable[[], AbstractAsyncContextManager[SearchToolset]]


async def silent(*_: Any, **__: Any) -> None:
    """A progress callback that reports nothing."""
    return None


@dataclass
class ResearchRequest:
    """One question to research.

    Attributes:
        question: the normalised question.
        depth: `snippets` (answer from search snippets), `pages` (read pages) or `auto` (decide per question).
        language: the answer's language (`ko` or `en`).
        news: force (`True`) or forbid (`False`) a news search; `None` lets the question's words decide.
        progress: receives status lines while the run goes on.
    """

    question: str
    depth: Depth = "auto"
    language: str = "ko"
    news: bool | None = None
    progress: ProgressFn = silent


@dataclass(frozen=True)
class ResearchLimits:
    """How much one run may read and cite.

    Attributes:
        max_pages: pages read in deep-read mode.
        max_sources: pages cited in an answer (the best-ranked chunks' pages).
        read_budget_s: time budget for reading pages; slower pages are skipped.
        max_results: results asked from each search.
        hops: follow-up searches for entities the best pages name (multi-hop questions).
    """

    max_pages: int = 8
    max_sources: int = 5
    read_budget_s: float = 8.0
    max_results: int = 8
    hops: int = 1


@dataclass
class QueryPlan:
    """How to search for a question: which tool, time range and region."""

    news: bool
    time_range: str | None
    region: str | None

    @property
    def workload(self) -> str:
        """What the gateway serves the search as: `latest` for news (the freshest answers: the model vendors'
        own search first, where the gateway has it), `research` otherwise."""
        return "latest" if self.news else "research"


def source_entry(hit: SearchHit) -> dict[str, Any]:
    """A cited page as the reply's `sources` list holds it."""
    return {"type": "web", "url": hit.url, "title": hit.title, "score": round(hit.score or 0.0, 4),
            "published_at": hit.published_at}


@dataclass
class RunState:
    """What one research run has done so far (becomes the reply's data part)."""

    queries: list[str] = field(default_factory=list)
    cache: dict[str, int] = field(default_factory=lambda: {"exact": 0, "semantic": 0, "miss": 0})
    cost_usd: float = 0.0
    max_score: float = 0.0
    providers: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    seen: dict[str, SearchHit] = field(default_factory=dict)
    skipped_pages: dict[str, str] = field(default_factory=dict)
    pages_read: list[str] = field(default_factory=list)
    outages: list[str] = field(default_factory=list)  # why searches could not run (every provider failed)

    def record(self, response: SearchResponse) -> None:
        self.queries.append(response.query)
        if response.outage:
            self.outages.append(str(response.notice or "search unavailable"))
        self.cache[response.cache] = self.cache.get(response.cache, 0) + 1
        self.cost_usd += response.cost_usd
        if not response.outage:  # a search that ran: from the cache, or paid for at a provider
            note_search(response.cost_usd, paid=response.cache == "miss")
        if response.provider and response.provider not in self.providers:
            self.providers.append(response.provider)
        if response.notice:
            self.notices.append(str(response.notice))

    def data(self, sources: list[SearchHit], depth: str) -> dict[str, Any]:
        """The reply's data part (without `status`): sources, queries, cache, cost, pages read."""
        return {"max_score": round(self.max_score, 4), "sources": [source_entry(h) for h in sources],
                "queries": self.queries, "searches": len(self.queries), "cache": self.cache,
                "cost_usd": round(self.cost_usd, 6), "providers": self.providers, "depth": depth,
                "pages_read": self.pages_read, "skipped_pages": self.skipped_pages}
