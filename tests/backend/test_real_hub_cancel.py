"""A browser that leaves mid-chat, against the real hub: the backend cancels the real orchestrator's A2A task."""

from __future__ import annotations

import asyncio
import uuid

import httpx
from a2a.types import TaskState

from ai_llm.common.a2a.client import RemoteAgent
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


async def test_a_cancel_right_after_a_non_blocking_send_stays_cancelled(real_hub: OfflineHub) -> None:
    """CancelTask right after a non-blocking SendMessage, 200 times on the real orchestrator: every task the
    cancel answered CANCELED is still CANCELED when read back after its execution had time to save what it had
    queued (the SDK's legacy handler let a queued WORKING save land over the cancel in a few percent), and the
    orchestrator still answers afterwards."""
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.helpers.proto_helpers import new_message, new_text_part
    from a2a.types import (
        CancelTaskRequest,
        GetTaskRequest,
        Role,
        SendMessageConfiguration,
        SendMessageRequest,
    )
    from a2a.utils.errors import A2AError

    url = real_hub.urls["orchestrator"]
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)

        async def one(i: int) -> tuple[bool, int]:
            # A documents-only question: its plan runs long enough to be cancelled, and the RAG work it leaves
            # behind (an agent's call goes on when its caller's task is cancelled) is small for later tests.
            message = new_message([new_text_part("In our internal documents, what does the infection prevention "
                                                 "guide say about hand hygiene?")],
                                  context_id=f"race-{uuid.uuid4().hex}", role=Role.ROLE_USER)
            message.message_id = str(uuid.uuid4())
            request = SendMessageRequest(message=message, configuration=SendMessageConfiguration(
                return_immediately=True))
            task_id = ""
            async for response in client.send_message(request):
                if response.HasField("task"):
                    task_id = response.task.id
            assert task_id, "a non-blocking send answers with its task"
            try:
                canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
            except A2AError:  # ended before the cancel arrived: not a cancel, nothing to check
                return False, 0
            assert canceled.status.state == TaskState.TASK_STATE_CANCELED
            await asyncio.sleep(0.3)  # the execution's queued events, if any, are saved by now
            later = await client.get_task(GetTaskRequest(id=task_id))
            return True, later.status.state

        results: list[tuple[bool, int]] = []
        for start in range(0, 200, 10):
            results += await asyncio.gather(*(one(i) for i in range(start, start + 10)))
    cancelled = [state for was_cancelled, state in results if was_cancelled]
    assert len(cancelled) >= 150, f"only {len(cancelled)} of 200 sends were still running when cancelled"
    wrong = [TaskState.Name(state) for state in cancelled if state != TaskState.TASK_STATE_CANCELED]
    assert not wrong, f"{len(wrong)} of {len(cancelled)} cancelled tasks later read {sorted(set(wrong))}"
    # After the race the same orchestrator plans and answers the next request (a cancel that reached a
    # statement inside the database pool's hand-over once lost that connection: after the race all eight were
    # out and every later request failed after 30 s).
    agent = RemoteAgent(url, timeout_s=180, name="orchestrator")
    reply = await agent.ask("In our internal documents, what does the infection prevention guide say about hand "
                            "hygiene?", context_id=str(uuid.uuid4()))
    assert reply.state != "failed", reply.data
    assert reply.data.get("intent") == "INTERNAL_SEARCH", reply.data

