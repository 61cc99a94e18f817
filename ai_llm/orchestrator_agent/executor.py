"""Running an `IntentPlan` over A2A.

Steps run in topological layers: a layer's steps run concurrently (`asyncio.gather`), a dependent step
gets its predecessors' results appended to its text after a line `이전 결과:` and as
`data.previous_results`. Each step has a timeout and one retry on a connection error; a step that fails
becomes a `StepResult` with the reason (never an exception out of `run_plan`). Sub-agent status updates are
forwarded through the orchestrator's `Progress`, tagged with the sub-agent's name and the step index.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ai_llm.common import identity
from ai_llm.common.a2a.client import AgentTimeout, AgentUnavailable, RemoteAgent, RemoteAgentError
from ai_llm.common.a2a.events import ANSWER_DELTA, STATUS_ERROR, STATUS_OK, StatusEvent
from ai_llm.common.degraded import add_degraded
from ai_llm.common.identity import Viewer
from ai_llm.common.messages import DEFAULT_LANGUAGE, catalog, message
from ai_llm.common.usage import add_usage
from ai_llm.orchestrator_agent.plan import IntentPlan, PlanStep, topological_layers

#: Step statuses beyond the agents' own (`ok`, `no_result`, `needs_clarification`, `error`).
STATUS_TIMEOUT = "timeout"
STATUS_UNAVAILABLE = "unavailable"
STATUS_SKIPPED = "skipped"
FAILED_STATUSES = {STATUS_ERROR, STATUS_TIMEOUT, STATUS_UNAVAILABLE, STATUS_SKIPPED}

#: Characters of one predecessor's answer passed on to a dependent step.
PREVIOUS_RESULT_CHARS = 6000

Emit = Callable[..., Awaitable[None]]
#: Where a step's answer, as its agent writes it, goes (step index, the answer so far); set by the orchestrator
#: for the request whose answer is that one step's (`Orchestrator._answer_relay`), unset otherwise.
ANSWER_RELAY: contextvars.ContextVar[Callable[[int, str], Awaitable[None]] | None] = contextvars.ContextVar(
    "answer_relay", default=None)


@dataclass
class StepResult:
    """What one plan step produced."""

    index: int
    agent: str
    status: str
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    error: str = ""
    attempts: int = 0
    state: str = "completed"
    fallback: bool = False

    @property
    def failed(self) -> bool:
        return self.status in FAILED_STATUSES

    @property
    def sources(self) -> list[dict[str, Any]]:
        return list(self.data.get("sources") or [])

    def summary(self) -> dict[str, Any]:
        """The reply's per-step entry (contract: index, agent, status, elapsed_ms, error)."""
        out: dict[str, Any] = {"index": self.index, "agent": self.agent, "status": self.status,
                               "elapsed_ms": round(self.elapsed_ms, 1), "error": self.error or None}
        if self.fallback:
            out["fallback"] = True
        return out


def sub_context_id(context_id: str, agent: str) -> str:
    """A stable conversation id per (orchestrator conversation, agent), so each agent keeps its own history."""
    if not context_id:
        return str(uuid.uuid4())
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"agent-hub:{context_id}:{agent}"))


def previous_block(results: list[StepResult]) -> str:
    """The text appended to a dependent step after `이전 결과:`."""
    lines = ["이전 결과:"]
    for result in results:
        body = result.text.strip()[:PREVIOUS_RESULT_CHARS] or f"({result.status})"
        lines.append(f"[{result.agent} / step {result.index}] {body}")
    return "\n".join(lines)


@dataclass
class StepCall:
    """Everything one step sends to its agent."""

    text: str
    data: dict[str, Any]
    context_id: str
    metadata: dict[str, Any] = field(default_factory=dict)  # the signed identity for this agent


class PlanExecutor:
    """Executes validated plans against a registry of agents.

    Args:
        agents: name -> `RemoteAgent` (the registry).
        step_timeout_s: limit for one step, retry included.
        on_unreachable: called with an agent's name after a connection error (drops its cached card).
        agent_timeouts: per-agent limits overriding `step_timeout_s` (`ORCHESTRATOR_AGENT_TIMEOUTS`).
    """

    def __init__(self, agents: Mapping[str, RemoteAgent], step_timeout_s: float = 90.0,
                 on_unreachable: Callable[[str], None] | None = None,
                 agent_timeouts: Mapping[str, float] | None = None, hub_token: str | None = None) -> None:
        self.agents = agents
        self.hub_token = hub_token
        self.step_timeout_s = step_timeout_s
        self.on_unreachable = on_unreachable
        self.agent_timeouts = dict(agent_timeouts or {})

    def timeout_for(self, agent: str) -> float:
        """The step limit of one agent."""
        return self.agent_timeouts.get(agent, self.step_timeout_s)

    def build_call(self, step: PlanStep, deps: list[StepResult], base_data: dict[str, Any],
                   context_id: str, viewer: Viewer | None = None) -> StepCall:
        data = dict(base_data)
        if step.skill:
            data["skill"] = step.skill
        text = step.instruction
        if deps:
            text = f"{text}\n\n{previous_block(deps)}"
            data["previous_results"] = [{"agent": r.agent, "text": r.text[:PREVIOUS_RESULT_CHARS], "data": r.data,
                                         "step": r.index} for r in deps]
        metadata = identity.forward(self.hub_token, viewer, step.agent) if viewer is not None else {}
        return StepCall(text, data, sub_context_id(context_id, step.agent), metadata)

    async def run_step(self, index: int, step: PlanStep, call: StepCall, emit: Emit | None) -> StepResult:
        """Call one agent: timeout, one retry on a connection error, forwarded status events."""
        agent = self.agents.get(step.agent)
        started = time.perf_counter()
        if agent is None:  # validate_plan prevents this; kept so a bad caller gets a result, not a KeyError
            return StepResult(index, step.agent, STATUS_UNAVAILABLE, error=f"unknown agent {step.agent!r}")

        async def forward(event: StatusEvent) -> None:
            if event.stage == ANSWER_DELTA:  # a piece of the answer: to the relay, never a status line
                relay = ANSWER_RELAY.get()
                if relay is not None:
                    await relay(index, str(event.data.get("text") or ""))
                return
            # Tagged with the name the plan uses for the agent; what the agent called itself is kept beside.
            if emit is not None:
                await emit(event.message, stage=event.stage, progress=event.progress, agent=step.agent,
                           data={"step": index, "forwarded": True, "source_agent": event.agent})

        attempts = 0
        last_error = ""
        status = STATUS_UNAVAILABLE
        try:
            async with asyncio.timeout(self.timeout_for(step.agent)):
                while attempts < 2:
                    attempts += 1
                    try:
                        reply = await agent.ask(call.text, data=call.data, context_id=call.context_id,
                                                metadata=call.metadata or None, on_status=forward)
                    except AgentTimeout as exc:
                        status, last_error = STATUS_TIMEOUT, str(exc)
                        break
                    except AgentUnavailable as exc:
                        status, last_error = STATUS_UNAVAILABLE, str(exc)
                        if self.on_unreachable is not None:
                            self.on_unreachable(step.agent)
                        continue  # one retry on a connection error
                    except RemoteAgentError as exc:
                        status, last_error = STATUS_ERROR, str(exc)
                        break
                    add_degraded(reply.data.get("degraded") or [])  # the agent's fallbacks are the answer's too
                    add_usage(reply.data.get("usage"))  # and so is what it cost
                    result_status = reply.status
                    if reply.state == "failed" and result_status == STATUS_OK:
                        result_status = STATUS_ERROR
                    error = str(reply.data.get("error") or "") if result_status == STATUS_ERROR else ""
                    if result_status == STATUS_ERROR and not error:
                        error = reply.text[:300]
                    return StepResult(index, step.agent, result_status, reply.text, reply.data,
                                      (time.perf_counter() - started) * 1000, error, attempts, reply.state)
        except TimeoutError:
            status = STATUS_TIMEOUT
            last_error = f"{step.agent} did not answer within {self.timeout_for(step.agent):g}s"
        return StepResult(index, step.agent, status, elapsed_ms=(time.perf_counter() - started) * 1000,
                          error=last_error, attempts=attempts, state="failed")

    async def run_plan(self, plan: IntentPlan, *, base_data: dict[str, Any] | None = None,
                       context_id: str = "", emit: Emit | None = None,
                       on_step_done: Callable[[StepResult], Awaitable[None]] | None = None,
                       viewer: Viewer | None = None) -> list[StepResult]:
        """Run every step of a validated plan; returns one result per step, in plan order.

        A step whose predecessors all failed is skipped (its input is gone); with at least one usable
        predecessor it runs on what is there.
        """
        results: dict[int, StepResult] = {}
        base = dict(base_data or {})
        total = max(len(plan.steps), 1)

        async def one(index: int) -> StepResult:
            step = plan.steps[index]
            deps = [results[d] for d in step.depends_on]
            usable = [r for r in deps if not r.failed]
            if deps and not usable:
                missing = ", ".join(f"{r.agent} (step {r.index})" for r in deps)
                result = StepResult(index, step.agent, STATUS_SKIPPED, error=f"inputs unavailable: {missing}")
            else:
                if emit is not None:
                    await emit(_start_message(step.agent, base.get("language", DEFAULT_LANGUAGE)), stage="step_start",
                               progress=round(0.1 + 0.75 * len(results) / total, 3), agent=step.agent,
                               data={"step": index})
                call = self.build_call(step, usable, base, context_id, viewer)
                result = await self.run_step(index, step, call, emit)
            results[index] = result
            if emit is not None:
                await emit(_done_message(result, base.get("language", DEFAULT_LANGUAGE)), stage="step_done",
                           progress=round(0.1 + 0.75 * len(results) / total, 3), agent=step.agent,
                           data={"step": index, "status": result.status})
            if on_step_done is not None:
                await on_step_done(result)
            return result

        for layer in topological_layers(plan):
            await asyncio.gather(*(one(i) for i in layer))
        return [results[i] for i in range(len(plan.steps))]


def parse_agent_timeouts(raw: str | None) -> dict[str, float]:
    """`ORCHESTRATOR_AGENT_TIMEOUTS` (`internal_rag=20,web_research=90`) as name -> seconds; a clear error
    when malformed."""
    out: dict[str, float] = {}
    for part in (raw or "").split(","):
        if not part.strip():
            continue
        name, sep, value = part.partition("=")
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not sep or not name.strip() or seconds <= 0:
            raise ValueError(f"ORCHESTRATOR_AGENT_TIMEOUTS: {part.strip()!r} is not agent=seconds (positive)")
        out[name.strip()] = seconds
    return out


def agent_label(agent: str, language: str) -> str:
    """A person-readable name of an agent (`사내 문서 검색`), falling back to the agent name."""
    key = f"orchestrator.agent_{agent}"
    return message(key, language) if key in catalog() else agent


def _start_message(agent: str, language: str) -> str:
    return message("orchestrator.step_start", language, label=agent_label(agent, language), agent=agent)


def _done_message(result: StepResult, language: str) -> str:
    fields = {"label": agent_label(result.agent, language), "agent": result.agent, "status": result.status}
    if result.failed:
        return message("orchestrator.step_failed", language, **fields)
    return message("orchestrator.step_done", language, seconds=result.elapsed_ms / 1000, **fields)
