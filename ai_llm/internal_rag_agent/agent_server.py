"""A2A server of the internal_rag agent: card, executor, app."""

from __future__ import annotations

from starlette.applications import Starlette

from ai_llm.common.a2a_server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.events import AgentReply
from ai_llm.common.runtime import HubDeps

AGENT_NAME = "internal_rag"
DESCRIPTION = "Searches the team's internal documents (PDF, text, markdown, docx) and answers with page-cited sources."
SKILLS = [{"id": "search_documents", "name": "사내 문서 검색", "description": DESCRIPTION, "examples": []}]


def create_app(deps: HubDeps, url: str) -> Starlette:
    """The internal_rag agent's A2A app (placeholder until its capability lands)."""

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        await progress("Document search is not built yet (issue: internal-RAG agent).", stage="unavailable")
        return AgentReply(text="Document search is not built yet (issue: internal-RAG agent).", data={"status": "error", "error": "not_implemented"})

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle), token=deps.settings.hub_token)
