"""A browser that leaves mid-chat, against the real hub: the backend cancels the real orchestrator's A2A task."""

from __future__ import annotations

import asyncio
import uuid

import httpx
from a2a.types import TaskState

from ai_llm.common.a2a_client import RemoteAgent
from ai_llm.evals.backend.hub import OfflineHub
from backend.chat_client import parse_sse
from backend.orchestrator_tasks import OrchestratorTasks


async def test_disconnect_mid_chat_cancels_the_real_orchestrator_task(real_hub: OfflineHub) -> None:
    conversation_id = f"leave-{uuid.uuid4().hex}"
    tasks = OrchestratorTasks(RemoteAgent(real_hub.urls["orchestrator"], name="orchestrator"))
    body = {"message": "Compare our infection prevention guide with the latest WHO hand hygiene guidance",
            "conversation_id": conversation_id, "language": "en"}
    seen: list[str] = []
    async with httpx.AsyncClient(base_url=real_hub.backend_url, timeout=120) as http, \
            http.stream("POST", "/api/chat", json=body) as response:
        assert response.status_code == 200
        async for event in parse_sse(response.aiter_lines()):
            seen.append(event.event)
            # Leave once the orchestrator is working on it (its plan arrived), before any answer.
            if event.event == "status" and event.data.get("stage") in ("planned", "step_start"):
                break
    assert "answer" not in seen and seen[0] == "status"
    state = None
    for _ in range(300):
        task = await tasks.latest(conversation_id)
        state = task.status.state if task is not None else None
        if state in (TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED):
            break
        await asyncio.sleep(0.1)
    assert state == TaskState.TASK_STATE_CANCELED
    # The conversation keeps the question; no answer was saved for a client that left.
    async with httpx.AsyncClient(base_url=real_hub.backend_url, timeout=30) as http:
        history = (await http.get(f"/api/chats/{conversation_id}")).json()
    assert [m["role"] for m in history["messages"]] == ["user"]
