"""The agents the orchestrator may plan for: name -> `RemoteAgent`, with their live cards.

The registry is injectable (tests point it at small real A2A agents); in the hub it is built from settings:
the four standard agents plus any listed in `ORCHESTRATOR_EXTRA_AGENTS`, so a new agent is plannable by
configuration alone — the planner reads what it can do from its card.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ai_llm.common.a2a.client import RemoteAgent, RemoteAgentError, card_summary
from ai_llm.common.settings import Settings
from ai_llm.orchestrator_agent.executor import parse_agent_timeouts

STANDARD_AGENTS = ("internal_rag", "web_research", "file_management", "report_writing")
#: The agent that serves the document catalog (`GET /catalog`).
CATALOG_AGENT = "internal_rag"


@dataclass
class AgentInfo:
    """What the planner knows about one agent right now."""

    name: str
    available: bool
    summary: dict[str, Any] = field(default_factory=dict)
    error: str = ""

    @property
    def skills(self) -> set[str]:
        return {str(s.get("id")) for s in self.summary.get("skills", [])}


class AgentRegistry(Mapping[str, RemoteAgent]):
    """Agents by name, with their cards fetched concurrently and cached for `card_ttl_s`.

    Args:
        agents: name -> `RemoteAgent` (the name is what plans refer to).
        card_ttl_s: how long a fetched card (or an unreachable verdict) is reused.
        card_timeout_s: how long to wait for one card.
    """

    def __init__(self, agents: Mapping[str, RemoteAgent], card_ttl_s: float = 30.0,
                 card_timeout_s: float = 3.0, catalog_ttl_s: float = 20.0) -> None:
        self._agents = dict(agents)
        self.card_ttl_s = card_ttl_s
        self.card_timeout_s = card_timeout_s
        self.catalog_ttl_s = catalog_ttl_s
        self._infos: dict[str, tuple[float, AgentInfo]] = {}
        #: Per viewer (a user id; None for the service): (fetched at, documents that viewer may read).
        self._catalogs: dict[str | None, tuple[float, list[dict[str, Any]]]] = {}

    async def catalog(self, identity_headers: dict[str, str] | None = None,
                      viewer_key: str | None = None) -> list[dict[str, Any]]:
        """The RAG agent's document catalog (`GET /catalog`) as one viewer may see it (`identity_headers`
        signed for the RAG agent; `viewer_key` names whose it is), reused for `catalog_ttl_s`; when the
        fetch fails that viewer's last one is kept (an empty list before the first success)."""
        agent = self._agents.get(CATALOG_AGENT)
        now = time.monotonic()
        at, documents = self._catalogs.get(viewer_key, (None, []))
        if agent is None or (at is not None and now - at < self.catalog_ttl_s):
            return documents
        self._catalogs[viewer_key] = (now, documents)
        if len(self._catalogs) > 1000:  # bounded: the oldest viewers' catalogs go
            for key, _ in sorted(self._catalogs.items(), key=lambda item: item[1][0])[:500]:
                self._catalogs.pop(key, None)
        try:  # from whichever replica answers, over the shared kept-alive pool
            response = await agent.get("/catalog", timeout_s=self.card_timeout_s, headers=identity_headers)
            response.raise_for_status()
            fetched = response.json().get("documents")
            if isinstance(fetched, list):
                documents = [d for d in fetched if isinstance(d, dict)]
                self._catalogs[viewer_key] = (now, documents)
        except (httpx.HTTPError, RemoteAgentError, ValueError, AttributeError):
            pass  # an agent without the route, down or hung: plan with the last catalog
        return documents

    def __getitem__(self, name: str) -> RemoteAgent:
        return self._agents[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._agents)

    def __len__(self) -> int:
        return len(self._agents)

    async def _info(self, name: str) -> AgentInfo:
        now = time.monotonic()
        cached = self._infos.get(name)
        if cached is not None and now - cached[0] < self.card_ttl_s:
            return cached[1]
        agent = self._agents[name]
        try:
            card = await asyncio.wait_for(agent.card(refresh=cached is not None), self.card_timeout_s)
            info = AgentInfo(name, True, card_summary(card))
        except (RemoteAgentError, TimeoutError) as exc:
            info = AgentInfo(name, False, error=str(exc) or "card timeout")
        self._infos[name] = (now, info)
        return info

    async def infos(self) -> dict[str, AgentInfo]:
        """Every agent's live card summary (or why it is unavailable), fetched concurrently."""
        names = list(self._agents)
        results = await asyncio.gather(*(self._info(n) for n in names))
        return dict(zip(names, results, strict=True))

    def forget(self, name: str) -> None:
        """Drop a cached card summary (after a connection error the agent may have restarted elsewhere).

        The planner's summary only: the call path keeps each replica's card until that replica fails, so a
        failure of one replica does not make every call fetch cards again."""
        self._infos.pop(name, None)


def parse_extra_agents(raw: str | None) -> dict[str, str]:
    """`ORCHESTRATOR_EXTRA_AGENTS` (JSON object name -> base URL) as a dict; a clear error when malformed."""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"ORCHESTRATOR_EXTRA_AGENTS is not valid JSON: {exc}") from exc
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError('ORCHESTRATOR_EXTRA_AGENTS must be a JSON object {"agent_name": "http://host:port"}')
    return value


def build_registry(settings: Settings) -> AgentRegistry:
    """The hub's registry: the standard agents at their configured URLs (every replica of each: `*_URLS`)
    plus the extra agents."""
    urls: dict[str, str | list[str]] = {name: settings.agent_urls(name) for name in STANDARD_AGENTS}
    urls.update(parse_extra_agents(settings.orchestrator_extra_agents))
    timeouts = parse_agent_timeouts(settings.orchestrator_agent_timeouts)
    return AgentRegistry({name: RemoteAgent(url, token=settings.hub_token,
                                            timeout_s=timeouts.get(name, settings.orchestrator_step_timeout_s),
                                            name=name, eject_s=settings.agent_eject_s)
                          for name, url in urls.items()})
