"""A2A server of the file_management agent: card, executor, app."""

from __future__ import annotations

from starlette.applications import Starlette

from ai_llm.common.a2a_server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.events import AgentReply
from ai_llm.common.runtime import HubDeps

AGENT_NAME = "file_management"
DESCRIPTION = "Uploads, lists, reads, renames and deletes documents in the hub's store, keeping the RAG index in step."
SKILLS = [{"id": "list", "name": "파일 목록", "description": DESCRIPTION, "examples": []}]


def create_app(deps: HubDeps, url: str) -> Starlette:
    """The file_management agent's A2A app (placeholder until its capability lands)."""

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        await progress("File management is not built yet (issue: file-management agent).", stage="unavailable")
        return AgentReply(text="File management is not built yet (issue: file-management agent).", data={"status": "error", "error": "not_implemented"})

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle), token=deps.settings.hub_token)
