"""A2A server of the orchestrator agent: card, executor, app."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from starlette.applications import Starlette

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.runtime import HubDeps
from ai_llm.orchestrator_agent.agent import Orchestrator
from ai_llm.orchestrator_agent.executor import parse_agent_timeouts
from ai_llm.orchestrator_agent.probe import DocumentProbe
from ai_llm.orchestrator_agent.registry import AgentRegistry, build_registry

AGENT_NAME = "orchestrator"
DESCRIPTION = ("Plans each request into an IntentPlan (INTERNAL_SEARCH, WEB_SEARCH, FILE_OPERATION, HYBRID, "
               "DIRECT), runs the steps over the hub's agents in parallel where possible, falls back from "
               "internal documents to the web, and streams every agent's progress.")
SKILLS = [{
    "id": "plan_and_answer",
    "name": "계획 수립 및 실행",
    "description": DESCRIPTION,
    "tags": ["orchestration", "planning"],
    "examples": ["사내 보안 지침에서 비밀번호 변경 주기 알려줘", "오늘 원달러 환율 알려줘",
                 "우리 재택근무 규정을 최신 근로기준법과 비교해줘", "이 답변을 보고서로 저장해줘",
                 "What can you do?"],
}]


def build_orchestrator(deps: HubDeps, *,
                       agents: AgentRegistry | Mapping[str, RemoteAgent] | None = None) -> Orchestrator:
    """The orchestrator over the hub's agents (or the given ones), configured from `deps.settings`."""
    settings = deps.settings
    # The probe reads the index in the hub's Postgres (opened on first use); Supabase's index is not probed.
    probe = DocumentProbe(deps.open_db) if settings.orchestrator_document_probe and not settings.supabase_url \
        else None
    return Orchestrator(
        deps.llm, agents if agents is not None else build_registry(settings),
        step_timeout_s=settings.orchestrator_step_timeout_s,
        planning_model=settings.llm_model, synthesis_model=settings.synthesis_model,
        relevance_threshold=settings.relevance_threshold, default_language=settings.ui_language,
        agent_timeouts=parse_agent_timeouts(settings.orchestrator_agent_timeouts), hub_token=settings.hub_token,
        probe=probe)


def create_app(deps: HubDeps, url: str, *,
               agents: AgentRegistry | Mapping[str, RemoteAgent] | None = None) -> Starlette:
    """The orchestrator's A2A app. `agents` overrides the registry built from settings (tests)."""
    orchestrator = build_orchestrator(deps, agents=agents)

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        return await orchestrator.handle(request, progress)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if orchestrator.probe is not None:
            orchestrator.probe.start()
        yield
        await deps.close()

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle), token=deps.settings.hub_token,
                           lifespan=lifespan)
