"""The A2A request handler of every hub agent: the a2a-sdk's `LegacyRequestHandler`, whose SubscribeToTask
also follows a task that waits for input.

Why not the SDK's default, `DefaultRequestHandlerV2`: the same JSON-RPC methods and events at about two thirds
of the server CPU per streamed call, and no task kept in memory between messages, so a follow-up to a task that
waits for input is rebuilt from the store on whichever replica it reaches (docs/adr/0007-legacy-request-handler.md).

What the legacy handler lacked: SubscribeToTask taps the queue of the task's running execution, and a task
parked in `input-required` has none, so its subscriber got the task and then the end of the stream although
the task had not ended. A2A §3.1.6 says the stream ends when the task reaches a terminal state (the
a2a-tck's STREAM-SUB-002, a MUST). `HubRequestHandler` follows each execution of the task in turn and ends at
a terminal state, which it also finds in the task store: a follow-up answered by another replica, or one that
ran to its end before the subscriber could tap its queue.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncGenerator
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.events import Event, EventConsumer
from a2a.server.request_handlers import LegacyRequestHandler
from a2a.server.request_handlers.default_request_handler import TERMINAL_TASK_STATES
from a2a.server.request_handlers.request_handler import validate, validate_request_params
from a2a.server.tasks import ResultAggregator, TaskManager
from a2a.types.a2a_pb2 import SubscribeToTaskRequest, Task, TaskState, TaskStatusUpdateEvent
from a2a.utils.errors import TaskNotFoundError, UnsupportedOperationError

#: Seconds a subscriber to a task with no running execution waits before it looks at the store again.
SUBSCRIBE_POLL_S = 1.0


def _ends_task(event: Event) -> bool:
    """Whether `event` carries a terminal state of its task."""
    if isinstance(event, Task | TaskStatusUpdateEvent):
        return event.status.state in TERMINAL_TASK_STATES
    return False


class HubRequestHandler(LegacyRequestHandler):
    """`LegacyRequestHandler` with a SubscribeToTask that lasts until the task ends (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # task id -> set when an execution of that task starts; held by the subscribers waiting for one.
        self._started: weakref.WeakValueDictionary[str, asyncio.Event] = weakref.WeakValueDictionary()

    async def _register_producer(self, task_id: str, producer_task: asyncio.Task[Any]) -> None:
        await super()._register_producer(task_id, producer_task)
        started = self._started.pop(task_id, None)
        if started is not None:
            started.set()

    @validate_request_params
    @validate(lambda self: self._agent_card.capabilities.streaming, "Streaming is not supported by the agent")
    async def on_subscribe_to_task(self, params: SubscribeToTaskRequest, context: ServerCallContext
                                   ) -> AsyncGenerator[Event, None]:
        task = await self.task_store.get(params.id, context)
        if task is None:
            raise TaskNotFoundError
        if task.status.state in TERMINAL_TASK_STATES:
            raise UnsupportedOperationError(
                message=f"Task {task.id} is in terminal state: {TaskState.Name(task.status.state)}")
        yield task  # A2A §3.1.6: the task first
        while True:
            started = self._started.get(task.id)
            if started is None:
                started = self._started[task.id] = asyncio.Event()
            # The running execution's queue, unless it has closed already: an execution's queue stays
            # registered for a moment after it closes, and a tap of a closed queue would never close.
            running = await self._queue_manager.get(task.id)
            queue = await running.tap() if running is not None and not running.is_closed() else None
            if queue is not None:  # an execution runs: its events, until it ends or pauses
                manager = TaskManager(task_id=task.id, context_id=task.context_id, task_store=self.task_store,
                                      initial_message=None, context=context)
                async for event in ResultAggregator(manager).consume_and_emit(EventConsumer(queue)):
                    yield event
                    if _ends_task(event):
                        return
            else:  # the task waits for a message: until one starts an execution here, or a while
                try:
                    async with asyncio.timeout(SUBSCRIBE_POLL_S):
                        await started.wait()
                except TimeoutError:
                    pass
            current = await self.task_store.get(task.id, context)
            if current is None:
                raise TaskNotFoundError
            if current.status.state in TERMINAL_TASK_STATES:  # ended elsewhere, or before its queue was tapped
                yield TaskStatusUpdateEvent(task_id=current.id, context_id=current.context_id,
                                            status=current.status)
                return
