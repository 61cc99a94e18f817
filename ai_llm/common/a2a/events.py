"""Event schema shared by agents, the orchestrator, the backend and the UI.

An agent's work is a stream of `StatusEvent`s followed by one `AgentReply`. Over A2A a status event is
a task status update whose message carries a text part (the human-readable line) and a data part
(`{"agent", "stage", "progress"}`); the reply is an artifact with a text part (markdown) and a data part
(the structured result: at least `status`, usually `sources`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

T = TypeVar("T")
K = TypeVar("K")

ReplyState = Literal["completed", "failed", "input_required", "canceled", "rejected"]

#: Structured statuses agents put in `AgentReply.data["status"]`.
STATUS_OK = "ok"
STATUS_NO_RESULT = "no_result"
STATUS_NEEDS_CLARIFICATION = "needs_clarification"
STATUS_ERROR = "error"

#: A step announced with `announce_if_slow` gets its status line only when it runs longer than this.
ANNOUNCE_AFTER_S = 0.05


async def announce_if_slow(step: Awaitable[T], announce: Callable[[], Awaitable[None]],
                           after_s: float = ANNOUNCE_AFTER_S) -> T:
    """Run `step`; send its status line (`announce`) only if it has not finished within `after_s`.

    A line for a step that is over at once (the offline query rewrite, which has no model to call; an
    extractive answer) tells the user nothing, yet costs an event on every hop to the browser; a model call
    takes long enough to be announced. Cancelling the caller cancels the step.
    """
    task = asyncio.ensure_future(step)
    try:
        done, _ = await asyncio.wait({task}, timeout=after_s)
        if not done:
            await announce()
        return await task
    finally:
        if not task.done():
            task.cancel()


#: The stage of a `StatusEvent` that carries a piece of an answer being written (`data`: `delta`, the new text;
#: `text`, the whole answer so far) rather than a progress line.
ANSWER_DELTA = "answer_delta"


@dataclass
class StatusEvent:
    """A progress line from an agent (possibly forwarded by the orchestrator for a sub-agent)."""

    agent: str
    message: str
    stage: str = ""
    progress: float | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "stage": self.stage, "message": self.message, "progress": self.progress}


@dataclass
class AgentReply:
    """The final answer of an agent: markdown text plus a structured part."""

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    state: ReplyState = "completed"
    agent: str = ""
    context_id: str | None = None
    task_id: str | None = None

    @property
    def status(self) -> str:
        """The structured status (`ok`, `no_result`, `needs_clarification`, `error`)."""
        if "status" in self.data:
            return str(self.data["status"])
        return STATUS_OK if self.state == "completed" else STATUS_ERROR

    @property
    def sources(self) -> list[dict[str, Any]]:
        return list(self.data.get("sources") or [])


def normalize_numbers(value: Any) -> Any:
    """Turn whole floats back into ints (protobuf `Value` stores every number as a double)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: normalize_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize_numbers(v) for v in value]
    return value


async def gather_within(calls: Mapping[K, Awaitable[T]], timeout_s: float) -> dict[K, T | BaseException | None]:
    """Run `calls` concurrently for at most `timeout_s` seconds; those still running then are cancelled.

    Returns key -> the call's result, the exception it raised, or None when it had not finished in time (so a
    call must not itself return None)."""
    tasks = {key: asyncio.ensure_future(call) for key, call in calls.items()}
    if not tasks:
        return {}
    done, pending = await asyncio.wait(tasks.values(), timeout=timeout_s)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    return {key: (None if task not in done else task.exception() or task.result()) for key, task in tasks.items()}
