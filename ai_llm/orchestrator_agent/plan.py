"""The orchestrator's plan: `IntentPlan` / `PlanStep`, validation and repair.

A plan comes from a model (structured output) or from the offline classifier; either way it is checked
before anything runs: known agents only, dependency indices in range, no self-dependency, no cycles.
What can be repaired is repaired (bad steps and edges dropped, each drop noted); a plan that has nothing
left to run for an intent that needs agents is reported as not executable, so the caller re-asks or falls
back instead of running it blindly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

Intent = Literal["INTERNAL_SEARCH", "WEB_SEARCH", "FILE_OPERATION", "HYBRID", "DIRECT"]
INTENTS: tuple[str, ...] = ("INTERNAL_SEARCH", "WEB_SEARCH", "FILE_OPERATION", "HYBRID", "DIRECT")

#: A plan longer than this is cut (a runaway model plan must not fan out without bound).
MAX_STEPS = 8


class PlanStep(BaseModel):
    """One call of one agent.

    Attributes:
        agent: agent name as on its card (`internal_rag`, `web_research`, …).
        instruction: what to ask that agent (its text part).
        depends_on: indices of earlier steps whose results this step needs.
        skill: the agent skill to run (`verify_fact`, …); null lets the agent infer it.
    """

    agent: str
    instruction: str
    # `maxItems` bounds what a model may generate (a grammar-constrained server stops there); validation
    # stays lenient so that `validate_plan` can repair and name what was too long.
    depends_on: list[int] = Field(default_factory=list, json_schema_extra={"maxItems": MAX_STEPS})
    skill: str | None = None


class IntentPlan(BaseModel):
    """The intent of a request and the agent steps that answer it (empty for DIRECT)."""

    intent: Intent
    steps: list[PlanStep] = Field(default_factory=list, json_schema_extra={"maxItems": MAX_STEPS})


@dataclass
class PlanCheck:
    """Outcome of `validate_plan`.

    Attributes:
        plan: the repaired plan (safe to execute when `executable`).
        notes: one line per repair made (empty when the plan was valid as given).
        executable: False when an intent that needs agents has no step left.
    """

    plan: IntentPlan
    notes: list[str] = field(default_factory=list)
    executable: bool = True

    @property
    def valid(self) -> bool:
        """True when nothing had to be repaired."""
        return not self.notes and self.executable


def _reaches(edges: dict[int, set[int]], start: int, target: int) -> bool:
    """True when `target` is reachable from `start` following dependency edges (step -> its deps)."""
    stack, seen = [start], set()
    while stack:
        node = stack.pop()
        if node == target:
            return True
        if node in seen:
            continue
        seen.add(node)
        stack.extend(edges.get(node, ()))
    return False


def validate_plan(plan: IntentPlan, known_agents: Iterable[str], fallback_instruction: str = "") -> PlanCheck:
    """Check and repair a plan.

    Args:
        plan: the plan as produced (not modified).
        known_agents: agents that may be planned (the registry's names).
        fallback_instruction: used for a step whose instruction is empty (the user's message).

    Returns:
        The repaired plan, the notes describing each repair, and whether it can run.
    """
    known = set(known_agents)
    notes: list[str] = []
    if plan.intent == "DIRECT":
        if plan.steps:
            notes.append(f"DIRECT plan had {len(plan.steps)} step(s); dropped (DIRECT calls no agent)")
        return PlanCheck(IntentPlan(intent="DIRECT", steps=[]), notes, True)

    steps = list(plan.steps)
    if len(steps) > MAX_STEPS:
        notes.append(f"plan had {len(steps)} steps; kept the first {MAX_STEPS}")
        steps = steps[:MAX_STEPS]

    # 1. Drop steps naming unknown agents; remember the index mapping old -> new.
    kept: list[tuple[int, PlanStep]] = []
    for index, step in enumerate(steps):
        if step.agent not in known:
            notes.append(f"step {index}: unknown agent {step.agent!r} dropped "
                         f"(known: {', '.join(sorted(known)) or 'none'})")
            continue
        kept.append((index, step))
    new_index = {old: new for new, (old, _) in enumerate(kept)}

    # 2. Rewrite edges: out of range, to dropped steps, self-edges, duplicates, and cycle-closing edges go.
    repaired: list[PlanStep] = []
    edges: dict[int, set[int]] = {}
    for new, (old, step) in enumerate(kept):
        deps: list[int] = []
        for dep in step.depends_on:
            if dep == old:
                notes.append(f"step {old}: self-dependency removed")
                continue
            if not 0 <= dep < len(steps):
                notes.append(f"step {old}: dependency {dep} out of range removed")
                continue
            if dep not in new_index:
                notes.append(f"step {old}: dependency on dropped step {dep} removed")
                continue
            target = new_index[dep]
            if target in deps:
                continue
            if _reaches(edges, target, new):
                notes.append(f"step {old}: dependency on step {dep} would close a cycle; removed")
                continue
            deps.append(target)
            edges.setdefault(new, set()).add(target)
        instruction = step.instruction.strip()
        if not instruction:
            notes.append(f"step {old}: empty instruction replaced by the request")
            instruction = fallback_instruction
        repaired.append(PlanStep(agent=step.agent, instruction=instruction, depends_on=deps, skill=step.skill))

    fixed = IntentPlan(intent=plan.intent, steps=repaired)
    if not repaired:
        notes.append(f"{plan.intent} plan has no executable step")
        return PlanCheck(fixed, notes, False)
    return PlanCheck(fixed, notes, True)


def topological_layers(plan: IntentPlan) -> list[list[int]]:
    """Step indices grouped into layers: every step's dependencies lie in earlier layers.

    The plan must be validated first (no cycles); a chain of any depth gives one layer per link.
    """
    remaining = {i: set(step.depends_on) for i, step in enumerate(plan.steps)}
    done: set[int] = set()
    layers: list[list[int]] = []
    while remaining:
        layer = sorted(i for i, deps in remaining.items() if deps <= done)
        if not layer:  # pragma: no cover - validate_plan removes cycles
            raise ValueError("plan has a dependency cycle; validate it first")
        layers.append(layer)
        done.update(layer)
        for i in layer:
            del remaining[i]
    return layers
