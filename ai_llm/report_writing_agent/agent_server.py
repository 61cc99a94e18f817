"""A2A server of the report_writing agent: card, executor, app."""

from __future__ import annotations

from starlette.applications import Starlette

from ai_llm.common.a2a_server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.events import AgentReply
from ai_llm.common.runtime import HubDeps

AGENT_NAME = "report_writing"
DESCRIPTION = "Writes reports (Markdown, DOCX) from earlier steps' results, citing their sources."
SKILLS = [{"id": "write_report", "name": "보고서 작성", "description": DESCRIPTION, "examples": []}]


def create_app(deps: HubDeps, url: str) -> Starlette:
    """The report_writing agent's A2A app (placeholder until its capability lands)."""

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        await progress("Report writing is not built yet (issue: report-writing agent).", stage="unavailable")
        return AgentReply(text="Report writing is not built yet (issue: report-writing agent).", data={"status": "error", "error": "not_implemented"})

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle), token=deps.settings.hub_token)
