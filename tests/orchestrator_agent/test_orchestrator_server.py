"""The orchestrator as a real process (`python -m ai_llm.orchestrator_agent`), called the way the backend
calls it (`RemoteAgent.stream`): forwarded progress over the wire, the contract's reply data, and the
conversation history keyed by `context_id` reaching the RAG agent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import AgentReply, StatusEvent
from ai_llm.common.a2a.server import free_port
from ai_llm.hub.process import Child, start_module, stop_child, wait_http
from tests.orchestrator_agent.conftest import FILE_SOURCE, ScriptedAgents


@pytest.fixture
def orchestrator_process(scripted: ScriptedAgents, embedding_server: str, tmp_path: Path) -> Iterator[Child]:
    port = free_port()
    env = {"RAG_AGENT_URL": scripted.urls["rag_history"], "WEB_AGENT_URL": scripted.urls["web_high"],
           "FILE_AGENT_URL": scripted.urls["file_ok"], "REPORT_AGENT_URL": scripted.urls["report_ok"],
           "EMBEDDING_URL": embedding_server, "DATA_DIR": str(tmp_path / "data"), "UI_LANGUAGE": "ko"}
    child = start_module("orchestrator", "ai_llm.orchestrator_agent", ["--port", str(port)], env, tmp_path)
    child.url = f"http://127.0.0.1:{port}"
    try:
        wait_http(child.url + "/.well-known/agent-card.json", child, timeout_s=60)
        yield child
    finally:
        stop_child(child)


async def ask(agent: RemoteAgent, text: str, context_id: str) -> tuple[list[StatusEvent], AgentReply]:
    events: list[StatusEvent] = []
    reply: AgentReply | None = None
    async for item in agent.stream(text, context_id=context_id):
        if isinstance(item, StatusEvent):
            events.append(item)
        else:
            reply = item
    assert reply is not None
    return events, reply


async def test_streamed_progress_contract_data_and_history(orchestrator_process: Child) -> None:
    remote = RemoteAgent(orchestrator_process.url or "", timeout_s=60)
    card = await remote.card()
    assert card.name == "orchestrator" and card.skills[0].examples

    events, reply = await ask(remote, "사내 휴가 규정에서 연차 일수 알려줘", "conv-1")
    stages = [(e.agent, e.stage) for e in events]
    assert stages[0] == ("orchestrator", "planning")
    # The RAG agent's own status updates arrive as the orchestrator's, tagged with the sub-agent's name,
    # between the step's start and its end.
    start = stages.index(("internal_rag", "step_start"))
    forwarded = stages.index(("internal_rag", "started"))
    done = stages.index(("internal_rag", "step_done"))
    assert start < forwarded < done
    assert events[forwarded].message == "rag_history started" and events[forwarded].data["step"] == 0
    assert all(e.message for e in events)

    data = reply.data
    assert {"status", "intent", "plan", "steps", "sources"} <= set(data)
    assert data["intent"] == "INTERNAL_SEARCH" and data["status"] == "ok"
    assert data["plan"] == {"intent": "INTERNAL_SEARCH", "steps": [
        {"agent": "internal_rag", "instruction": "사내 휴가 규정에서 연차 일수 알려줘", "depends_on": [], "skill": None}]}
    assert set(data["steps"][0]) >= {"index", "agent", "status", "elapsed_ms", "error"}
    assert data["sources"][0]["file_url"] == FILE_SOURCE["file_url"]
    assert data["sources"][0]["pages"] == FILE_SOURCE["pages"]
    assert reply.text.startswith("📄 [사내 문서 기반]")

    _, second = await ask(remote, "그 규정 문서에서 반차 기준도 알려줘", "conv-1")
    # The first turn (question and answer) reached the RAG agent as history of the same conversation.
    assert "history: 사내 휴가 규정에서 연차 일수 알려줘" in second.text
    _, other = await ask(remote, "사내 규정 문서에서 출장비 기준 알려줘", "conv-2")
    assert "연차 일수" not in other.text  # another conversation has its own history
