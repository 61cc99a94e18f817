"""A2A server of the orchestrator agent: card, executor, app."""

from __future__ import annotations

from starlette.applications import Starlette

from ai_llm.common.a2a_server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.events import AgentReply
from ai_llm.common.runtime import HubDeps

AGENT_NAME = "orchestrator"
DESCRIPTION = "Plans each request into an IntentPlan and runs it over the hub's agents."
SKILLS = [{"id": "plan_and_answer", "name": "계획 수립 및 실행", "description": DESCRIPTION, "examples": []}]


def create_app(deps: HubDeps, url: str) -> Starlette:
    """The orchestrator agent's A2A app (placeholder until its capability lands)."""

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        await progress("Orchestrator: plans, fans out and answers. Planning is not built yet (issue: orchestrator).", stage="unavailable")
        return AgentReply(text="Orchestrator: plans, fans out and answers. Planning is not built yet (issue: orchestrator).", data={"status": "error", "error": "not_implemented"})

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle), token=deps.settings.hub_token)
