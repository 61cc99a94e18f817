"""What one request cost: LLM calls and tokens, searches and their spend.

Code that calls a model or a search provider notes what it used (`note_llm`, `note_search`); the amounts are
collected for the request being handled (a context variable, as `degraded` does, so nothing is threaded
through call signatures). Every A2A reply carries its request's amounts as `data.usage`, and a caller adds a
sub-agent's `usage` to its own (`add_usage`): the orchestrator's reply holds the whole answer's cost, which the
backend keeps beside the answer.

```python
with collect_usage() as usage:
    reply = await agent.run(request)
reply.data["usage"] = usage.to_dict()   # what `HubAgentExecutor` does for every A2A request
```
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass
class Usage:
    """The amounts of one request.

    `llm_prompt_tokens`/`llm_completion_tokens` are what the model server reported; a streamed reply whose
    server reports no usage counts one completion token per streamed piece (`llm_tokens_estimated`).
    `searches` counts provider calls and cache hits alike; `paid_searches` only the calls that reached a
    provider, and `search_cost_usd` their price.
    """

    llm_calls: int = 0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    llm_tokens_estimated: bool = False
    searches: int = 0
    paid_searches: int = 0
    search_cost_usd: float = 0.0

    def add(self, other: Usage) -> None:
        self.llm_calls += other.llm_calls
        self.llm_prompt_tokens += other.llm_prompt_tokens
        self.llm_completion_tokens += other.llm_completion_tokens
        self.llm_tokens_estimated = self.llm_tokens_estimated or other.llm_tokens_estimated
        self.searches += other.searches
        self.paid_searches += other.paid_searches
        self.search_cost_usd += other.search_cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {"llm_calls": self.llm_calls, "llm_prompt_tokens": self.llm_prompt_tokens,
                "llm_completion_tokens": self.llm_completion_tokens,
                "llm_tokens_estimated": self.llm_tokens_estimated, "searches": self.searches,
                "paid_searches": self.paid_searches, "search_cost_usd": round(self.search_cost_usd, 6)}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Usage:
        """A reported `usage` object; what is missing or not a number counts as nothing."""
        def number(key: str) -> float:
            value = raw.get(key)
            return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
                and value >= 0 else 0.0

        return cls(int(number("llm_calls")), int(number("llm_prompt_tokens")), int(number("llm_completion_tokens")),
                   raw.get("llm_tokens_estimated") is True, int(number("searches")), int(number("paid_searches")),
                   number("search_cost_usd"))


_current: contextvars.ContextVar[Usage | None] = contextvars.ContextVar("hub_usage", default=None)


def note_llm(prompt_tokens: int, completion_tokens: int, *, estimated: bool = False) -> None:
    """Record one model call of the current request."""
    usage = _current.get()
    if usage is not None:
        usage.add(Usage(llm_calls=1, llm_prompt_tokens=max(prompt_tokens, 0),
                        llm_completion_tokens=max(completion_tokens, 0), llm_tokens_estimated=estimated))


def note_search(cost_usd: float, *, paid: bool) -> None:
    """Record one search of the current request (`paid`: it reached a provider rather than the cache)."""
    usage = _current.get()
    if usage is not None:
        usage.add(Usage(searches=1, paid_searches=int(paid), search_cost_usd=max(cost_usd, 0.0)))


def add_usage(raw: object) -> None:
    """Add a sub-agent's reported `usage` to the current request's."""
    usage = _current.get()
    if usage is not None and isinstance(raw, Mapping):
        usage.add(Usage.from_dict(raw))


@contextmanager
def collect_usage() -> Iterator[Usage]:
    """Collect the amounts of the code run inside. A nested collection is its own (an agent served in the
    caller's process reports its usage in its reply, which the caller adds once, through `add_usage`)."""
    usage = Usage()
    token = _current.set(usage)
    try:
        yield usage
    finally:
        _current.reset(token)
