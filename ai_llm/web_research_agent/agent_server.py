"""A2A server of the web_research agent: card, executor, app.

Skills: `web_research` (general web), `news_research` (recent news: `news_search` with a time range) and
`verify_fact` (a numeric fact cross-checked across three independent sources). The request's data part may
carry `skill`, `language` (`ko`/`en`) and `depth` (`auto`, `snippets`, `pages`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette

from ai_llm.common.a2a.events import STATUS_ERROR, AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.runtime import HubDeps
from ai_llm.web_research_agent.agent import WebResearchAgent
from ai_llm.web_research_agent.search_tools.sessions import SearchToolsetPool

AGENT_NAME = "web_research"
DESCRIPTION = ("Answers from the live web through the hub's MCP search gateway (or any MCP search server): "
               "relevance-filtered results, deep page reading, cited sources; cross-checks numeric facts "
               "across three independent sources.")
SKILLS: list[dict[str, Any]] = [
    {"id": "web_research", "name": "웹 검색", "tags": ["web", "search"],
     "description": "General web research with cited sources; says when nothing relevant is found.",
     "examples": ["탄소중립 기본계획의 주요 내용은?", "Who founded the Python Software Foundation?"]},
    {"id": "news_research", "name": "뉴스 검색", "tags": ["news", "latest"],
     "description": "Recent news (news search with a time range).",
     "examples": ["최신 반도체 수출 뉴스 알려줘", "latest news on the EU AI Act"]},
    {"id": "verify_fact", "name": "수치 검증", "tags": ["fact", "numbers", "verification"],
     "description": "Current numbers (indexes, rates, exchange rates, prices, statistics) verified across "
                    "three independent sources with quotes; never an estimate.",
     "examples": ["오늘 코스피 지수 검증해줘", "Verify the Bank of Korea base rate"]},
]
SKILL_IDS = {s["id"] for s in SKILLS}


def create_app(deps: HubDeps, url: str, agent: WebResearchAgent | None = None) -> Starlette:
    """The web_research agent's A2A app.

    Args:
        deps: settings, LLM and embeddings.
        url: the agent's public base URL (for its card).
        agent: a prepared agent (tests inject one with their own toolset); default built from `deps`, its
            MCP sessions kept for the life of the app (`SearchToolsetPool`, closed in the app's lifespan) and
            shared by every request.
    """
    pool: SearchToolsetPool | None = None
    if agent is None:
        pool = SearchToolsetPool(deps.settings, AGENT_NAME)
        research_agent = WebResearchAgent(deps, pool.acquire)
    else:
        research_agent = agent

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        from ai_llm.web_research_agent import fact_verification

        await asyncio.to_thread(fact_verification.warm_up)  # at start, not in the first verification
        try:
            yield
        finally:
            if pool is not None:
                await pool.aclose()

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        data = request.data
        language = str(data.get("language") or deps.settings.ui_language)
        skill = str(data.get("skill") or "web_research")
        if skill not in SKILL_IDS:
            return AgentReply(text=f"unknown skill {skill!r}; choose one of {sorted(SKILL_IDS)}",
                              data={"status": STATUS_ERROR, "error": f"unknown skill {skill!r}"})
        depth = str(data.get("depth") or "auto")
        if depth not in ("auto", "snippets", "pages"):
            return AgentReply(text=f"depth must be auto, snippets or pages, not {depth!r}",
                              data={"status": STATUS_ERROR, "error": f"invalid depth {depth!r}"})
        if skill == "verify_fact":
            from ai_llm.web_research_agent.fact_verification import FactVerifier

            verifier = FactVerifier(deps, research_agent.toolset_factory)
            return await verifier.reply(request.text, language=language, progress=progress,
                                        as_of=data.get("as_of"))
        return await research_agent.research(request.text, depth=depth, language=language,  # type: ignore[arg-type]
                                             progress=progress, news=True if skill == "news_research" else None)

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    app = build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle, history_turns=0), token=deps.settings.hub_token,
                          lifespan=lifespan)
    app.state.search_tools = pool
    return app
