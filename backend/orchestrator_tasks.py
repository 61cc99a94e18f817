"""Cancelling the orchestrator's A2A task of a chat whose browser went away (A2A `tasks/list` + `CancelTask`).

`RemoteAgent.stream` does not hand out the task id, so every chat message carries a tag in its A2A message
metadata (`hub_chat_id`); on a disconnect the backend lists the tasks of the conversation (`context_id`),
finds the one whose first message holds the tag and cancels it. The orchestrator creates the task when the
request arrives, so a client that leaves in the first milliseconds may be faster than the task: the lookup
is retried for a few seconds before it gives up (then no task was ever created, or it already ended).
"""

from __future__ import annotations

import asyncio
import logging
import uuid

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError
from a2a.types import CancelTaskRequest, GetTaskRequest, ListTasksRequest, Task, TaskState

from ai_llm.common.a2a.client import RemoteAgent, RemoteAgentError

log = logging.getLogger(__name__)

#: The A2A message metadata key tagging one chat message (so its task can be found again).
CHAT_TAG = "hub_chat_id"

TERMINAL_STATES = {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED,
                   TaskState.TASK_STATE_REJECTED}

#: Strong references to the cancellations in flight (the request that started them is gone).
_CANCELLING: set[asyncio.Task[str | None]] = set()


def new_chat_tag() -> str:
    return uuid.uuid4().hex


def _tagged(task: Task, tag: str) -> bool:
    return any(message.metadata.fields.get(CHAT_TAG) is not None
               and message.metadata.fields[CHAT_TAG].string_value == tag for message in task.history[:1])


class OrchestratorTasks:
    """Finds and cancels tasks of the orchestrator over A2A (JSON-RPC `ListTasks`, `CancelTask`, `GetTask`).

    Args:
        agent: the backend's client of the orchestrator (URL, token, cached card).
    """

    def __init__(self, agent: RemoteAgent) -> None:
        self.agent = agent

    def _http(self) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {self.agent.token}"} if self.agent.token else {}
        return httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(15.0, connect=5.0))

    async def tasks_of(self, context_id: str) -> list[Task]:
        """The orchestrator's tasks of one conversation, the last updated first (each with its history: the first message is the request)."""
        card = await self.agent.card()
        async with self._http() as http:
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            try:
                page = await client.list_tasks(ListTasksRequest(context_id=context_id))
            finally:
                await client.close()
        return list(page.tasks)

    async def latest(self, context_id: str) -> Task | None:
        """The conversation's last updated task, if any."""
        return next(iter(await self.tasks_of(context_id)), None)

    async def find(self, context_id: str, tag: str) -> Task | None:
        """The task of the chat message tagged `tag` in conversation `context_id`, if it exists yet."""
        return next((task for task in await self.tasks_of(context_id) if _tagged(task, tag)), None)

    async def get(self, task_id: str) -> Task:
        card = await self.agent.card()
        async with self._http() as http:
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            try:
                return await client.get_task(GetTaskRequest(id=task_id))
            finally:
                await client.close()

    async def cancel(self, context_id: str, tag: str, *, wait_s: float = 60.0, interval_s: float = 0.05) -> str | None:
        """Cancel the chat message's task; returns its id, or None when there was nothing left to cancel.

        The task may not exist yet (the request is still on its way), or not yet hold its first message in
        its history: looked up again after `interval_s`, then twice as long each time (at most 1 s), for up
        to `wait_s`.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while True:
            task = await self.find(context_id, tag)
            if task is not None:
                break
            if loop.time() >= deadline:
                log.info("no orchestrator task of conversation %s to cancel (never created)", context_id)
                return None
            await asyncio.sleep(interval_s)
            interval_s = min(interval_s * 2, 1.0)
        if task.status.state in TERMINAL_STATES:
            log.info("orchestrator task %s had already ended; nothing to cancel", task.id)
            return None
        card = await self.agent.card()
        async with self._http() as http:
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            try:
                await client.cancel_task(CancelTaskRequest(id=task.id))
            except A2AClientError as exc:  # it ended between the lookup and the cancel
                log.info("orchestrator task %s not cancelled: %s", task.id, exc)
                return None
            finally:
                await client.close()
        log.info("cancelled orchestrator task %s (conversation %s): the client went away", task.id, context_id)
        return task.id

    def cancel_soon(self, context_id: str, tag: str) -> asyncio.Task[str | None]:
        """Start `cancel` in the background (the request that asks for it is being torn down)."""

        async def run() -> str | None:
            try:
                return await self.cancel(context_id, tag)
            except (RemoteAgentError, A2AClientError, httpx.HTTPError) as exc:
                log.warning("could not cancel the orchestrator task of conversation %s: %s", context_id, exc)
                return None

        task = asyncio.get_running_loop().create_task(run())
        _CANCELLING.add(task)
        task.add_done_callback(_CANCELLING.discard)
        return task
