"""Event schema shared by agents, the orchestrator, the backend and the UI.

An agent's work is a stream of `StatusEvent`s followed by one `AgentReply`. Over A2A a status event is
a task status update whose message carries a text part (the human-readable line) and a data part
(`{"agent", "stage", "progress"}`); the reply is an artifact with a text part (markdown) and a data part
(the structured result: at least `status`, usually `sources`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ReplyState = Literal["completed", "failed", "input_required", "canceled", "rejected"]

#: Structured statuses agents put in `AgentReply.data["status"]`.
STATUS_OK = "ok"
STATUS_NO_RESULT = "no_result"
STATUS_NEEDS_CLARIFICATION = "needs_clarification"
STATUS_ERROR = "error"


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
