"""A2A calls the hub's `RemoteAgent` does not make, through the a2a-sdk client: a message that continues a
given task (the A2A way to answer `input-required`), `GetTask` and `SubscribeToTask`."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_data_parts, get_text_parts, new_message, new_text_part
from a2a.types import GetTaskRequest, Role, SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task
from google.protobuf.json_format import MessageToDict


async def send_to_task(url: str, text: str, *, context_id: str, task_id: str | None = None) -> Task:
    """Send `text` (in `task_id` when given) without streaming; the task as the agent left it."""
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        message = new_message([new_text_part(text)], context_id=context_id, role=Role.ROLE_USER)
        message.message_id = str(uuid.uuid4())
        if task_id:
            message.task_id = task_id
        task: Task | None = None
        async for response in client.send_message(SendMessageRequest(message=message)):
            if response.HasField("task"):
                task = response.task
        assert task is not None, "the agent answered without a task"
        return task


async def get_task(url: str, task_id: str) -> Task:
    """`GetTask` on the agent at `url`."""
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        return await client.get_task(GetTaskRequest(id=task_id))


async def subscribe(url: str, task_id: str) -> list[StreamResponse]:
    """`SubscribeToTask` on the agent at `url`: every event until the agent ends the stream."""
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        return [event async for event in client.subscribe(SubscribeToTaskRequest(id=task_id))]


def task_answer(task: Task) -> tuple[str, dict[str, Any]]:
    """The text and merged data of a task's artifacts, else of its status message."""
    parts = [p for artifact in task.artifacts for p in artifact.parts] or list(task.status.message.parts)
    data: dict[str, Any] = {}
    for part in get_data_parts(parts):
        if isinstance(part, dict):
            data.update(part)
    return "\n".join(get_text_parts(parts)), data


def state_name(task: Task) -> str:
    return str(MessageToDict(task.status).get("state", ""))
