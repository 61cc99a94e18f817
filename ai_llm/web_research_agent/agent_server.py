"""A2A server of the web_research agent: card, executor, app."""

from __future__ import annotations

from starlette.applications import Starlette

from ai_llm.common.a2a_server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.events import AgentReply
from ai_llm.common.runtime import HubDeps

AGENT_NAME = "web_research"
DESCRIPTION = "Answers from the live web through the hub's MCP search gateway, with cited sources."
SKILLS = [{"id": "web_research", "name": "웹 검색", "description": DESCRIPTION, "examples": []}]


def create_app(deps: HubDeps, url: str) -> Starlette:
    """The web_research agent's A2A app (placeholder until its capability lands)."""

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        await progress("Web research over the search gateway is not built yet (issue: web-research agent).", stage="unavailable")
        return AgentReply(text="Web research over the search gateway is not built yet (issue: web-research agent).", data={"status": "error", "error": "not_implemented"})

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle), token=deps.settings.hub_token)
