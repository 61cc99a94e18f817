"""Turning a request into an `IntentPlan`.

* `LLMPlanner`: structured output through the LLM port (`gpt-4o-mini` by default) under a system prompt
  that lists the agents from their **live cards** (names, descriptions, skills, examples), so a new agent
  is plannable without code changes. Every plan is validated; an invalid one is re-asked once with the
  problems named, and whatever is still wrong is repaired. A model failure falls back to the offline plan.
* `OfflineClassifier` + `offline_plan`: the offline mode. The local engine's `classify` supplies keyword
  hits (Korean and English patterns) and, for English, embedding similarity to example requests; a few
  rules combine them (internal + web signals → HYBRID, a file operation or a report → FILE_OPERATION …).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ai_llm.common.llm import LLM, LLMError, LocalEngine
from ai_llm.common.text import is_korean, normalize
from ai_llm.orchestrator_agent import intents
from ai_llm.orchestrator_agent.plan import IntentPlan, PlanStep, validate_plan
from ai_llm.orchestrator_agent.registry import AgentInfo

log = logging.getLogger(__name__)

RAG, WEB, FILES, REPORT = "internal_rag", "web_research", "file_management", "report_writing"
VERIFY_FACT = "verify_fact"

#: Keyword groups given to `LocalEngine.classify` (label -> patterns).
KEYWORDS: dict[str, Sequence[str]] = {
    "INTERNAL_SEARCH": intents.INTERNAL,
    "WEB_SEARCH": intents.WEB,
    "FILE_OPERATION": intents.FILE,
    "DIRECT": intents.DIRECT,
    "HYBRID": intents.COMPARE,
}

#: Token budget of one structured planning call: a plan of MAX_STEPS steps with sentence-long instructions
#: fits; a reply cut at the budget is an error the planner survives (offline plan, with a note).
PLAN_MAX_TOKENS = 1024

#: Below this best cosine similarity an English request without keyword hits is not trusted to the examples.
EMBEDDING_FLOOR = 0.35


def _matches(text: str, patterns: Sequence[str]) -> list[str]:
    lowered = normalize(text).lower()
    out = []
    for pattern in patterns:
        if pattern.startswith("re:"):
            if re.search(pattern[3:], lowered):
                out.append(pattern)
        elif pattern.lower() in lowered:
            out.append(pattern)
    return out


@dataclass
class IntentDecision:
    """The offline classifier's verdict and why."""

    intent: str
    rule: str
    hits: dict[str, list[str]] = field(default_factory=dict)
    embedding_scores: dict[str, float] = field(default_factory=dict)
    current_number: bool = False
    report: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"intent": self.intent, "rule": self.rule, "keyword_hits": self.hits,
                "embedding_scores": {k: round(v, 4) for k, v in self.embedding_scores.items()},
                "current_number": self.current_number, "report": self.report}


class OfflineClassifier:
    """Keyword + embedding intent classifier over `LocalEngine.classify` (Korean and English).

    Args:
        engine: the offline engine (its embeddings may be None: keywords only).
    """

    def __init__(self, engine: LocalEngine) -> None:
        self.engine = engine
        self._keywords_only = LocalEngine(None)

    async def classify(self, text: str) -> IntentDecision:
        # keyword_weight=0: the engine's scores are then pure embedding similarities, while the keyword
        # hits are still reported; the rules below weigh the two themselves. Korean skips the embedding
        # call: the offline model is English-only, its similarities would be noise.
        korean = is_korean(text)
        engine = self._keywords_only if korean else self.engine
        result = await engine.classify(text, intents.EXAMPLES, KEYWORDS, keyword_weight=0.0)
        hits = result.keyword_hits
        emb = {} if korean else dict(result.scores)
        internal, web = bool(hits.get("INTERNAL_SEARCH")), bool(hits.get("WEB_SEARCH"))
        weak_web = bool(_matches(text, intents.WEB_WEAK))
        file_op, direct = bool(hits.get("FILE_OPERATION")), bool(hits.get("DIRECT"))
        compare = bool(hits.get("HYBRID"))
        report = bool(_matches(text, intents.REPORT))
        current_number = bool(_matches(text, intents.CURRENT_NUMBER))
        if weak_web:
            hits.setdefault("WEB_SEARCH", []).extend(f"weak:{p}" for p in _matches(text, intents.WEB_WEAK))

        def decide(intent: str, rule: str) -> IntentDecision:
            return IntentDecision(intent, rule, hits, emb, current_number, report)

        if file_op:
            return decide("FILE_OPERATION", "file operation or report keywords")
        if direct and not (internal and web):
            return decide("DIRECT", "small talk / about the hub / transform the previous answer")
        if internal and web:
            return decide("HYBRID", "internal and web signals")
        external = bool(_matches(text, intents.EXTERNAL))
        if compare and (internal or web) and (web or weak_web or external):
            # Comparing the team's material with the outside world needs both sources.
            return decide("HYBRID", "comparison of internal material with the outside")
        if internal:
            return decide("INTERNAL_SEARCH", "internal-document keywords")
        if web or weak_web:
            return decide("WEB_SEARCH", "web / recency keywords")
        if emb and max(emb.values()) >= EMBEDDING_FLOOR:
            best = max(emb, key=lambda k: emb[k])
            return decide(best, "nearest example")
        # Nothing points at the team's documents, the web or the file store: a general request the
        # assistant answers itself (DIRECT tells the person what the hub can look up).
        return decide("DIRECT", "no signal")


def offline_plan(decision: IntentDecision, text: str, agents: dict[str, AgentInfo]) -> IntentPlan:
    """The plan for an offline decision: which agents, in what order, with which skill."""
    web_skill = VERIFY_FACT if decision.current_number and VERIFY_FACT in agents.get(WEB, AgentInfo(WEB, False)).skills \
        else None
    intent = decision.intent
    if intent == "DIRECT":
        return IntentPlan(intent="DIRECT", steps=[])
    if intent == "INTERNAL_SEARCH":
        return IntentPlan(intent="INTERNAL_SEARCH", steps=[PlanStep(agent=RAG, instruction=text)])
    if intent == "WEB_SEARCH":
        return IntentPlan(intent="WEB_SEARCH", steps=[PlanStep(agent=WEB, instruction=text, skill=web_skill)])
    if intent == "HYBRID":
        steps = [PlanStep(agent=RAG, instruction=text), PlanStep(agent=WEB, instruction=text, skill=web_skill)]
        if decision.report:
            steps.append(PlanStep(agent=REPORT, instruction=text, depends_on=[0, 1]))
        return IntentPlan(intent="HYBRID", steps=steps)
    # FILE_OPERATION: a report (possibly fed by searches named in the request) or a file-store operation.
    if decision.report:
        steps = []
        if decision.hits.get("INTERNAL_SEARCH") and not decision.hits.get("DIRECT"):
            steps.append(PlanStep(agent=RAG, instruction=text))
        if decision.hits.get("WEB_SEARCH") and not decision.hits.get("DIRECT"):
            steps.append(PlanStep(agent=WEB, instruction=text, skill=web_skill))
        steps.append(PlanStep(agent=REPORT, instruction=text, depends_on=list(range(len(steps)))))
        return IntentPlan(intent="FILE_OPERATION", steps=steps)
    return IntentPlan(intent="FILE_OPERATION", steps=[PlanStep(agent=FILES, instruction=text)])


@dataclass
class PlanOutcome:
    """A validated plan and how it was made."""

    plan: IntentPlan
    planner: str  # "llm" | "offline"
    notes: list[str] = field(default_factory=list)
    decision: IntentDecision | None = None
    attempts: int = 0


INTENT_GUIDE = """Intents:
- INTERNAL_SEARCH: the answer is in the team's own documents (policies, guidelines, manuals, uploaded files).
- WEB_SEARCH: the answer is on the live web (news, recent events, current figures, other organisations).
- FILE_OPERATION: list/upload/read/rename/delete stored files, or write/save a report document.
- HYBRID: needs both the team's documents and the web (e.g. "compare our policy with the latest law").
- DIRECT: small talk, questions about this assistant, or reworking the previous answer; no agent, no steps.

Rules:
- Use only the agents listed above, by their exact name. Steps run in parallel unless `depends_on` lists
  earlier step indices (0-based) whose results the step needs; a step never depends on itself or a later step.
- Requests for current numbers (exchange rates, interest rates, stock indexes, prices, statistics) go to the
  web agent with skill "verify_fact" when it lists that skill.
- A report built from searches: search steps first, the report step depends on them.
- Keep each instruction in the user's language and self-contained (resolve "it"/"that" from the history).
- DIRECT has an empty step list."""


def planner_system_prompt(agents: dict[str, AgentInfo]) -> str:
    """The planner's system prompt, listing the agents from their live cards."""
    lines = ["You are the planner of Agent Hub, a multi-agent assistant for Korean teams.",
             "Turn the user's request into an IntentPlan (JSON).", "", "Agents (from their live agent cards):"]
    for name, info in agents.items():
        if not info.available:
            lines.append(f"- {name}: currently unreachable (plan it only if nothing else can answer)")
            continue
        lines.append(f"- {name}: {info.summary.get('description', '')}")
        for skill in info.summary.get("skills", []):
            examples = "; ".join(skill.get("examples", [])[:4])
            lines.append(f"    skill {skill.get('id')}: {skill.get('description', '')}"
                         + (f" (examples: {examples})" if examples else ""))
    lines += ["", INTENT_GUIDE]
    return "\n".join(lines)


def _history_block(history: Sequence[dict[str, str]]) -> str:
    return "\n".join(f"{turn.get('role', 'user')}: {turn.get('text', '')[:500]}" for turn in history)


class Planner:
    """Plans with the LLM when one is configured, else (or when it fails) with the offline classifier.

    Args:
        llm: the LLM port (`online` decides the path).
        offline: the offline classifier (also the fallback of the LLM path).
        model: model for planning (`LLM_MODEL`, `gpt-4o-mini` by default).
    """

    def __init__(self, llm: LLM, offline: OfflineClassifier, model: str | None = None) -> None:
        self.llm = llm
        self.offline = offline
        self.model = model

    async def plan(self, text: str, agents: dict[str, AgentInfo],
                   history: Sequence[dict[str, str]] = ()) -> PlanOutcome:
        if getattr(self.llm, "online", False):
            try:
                return await self._plan_llm(text, agents, history)
            except LLMError as exc:
                log.warning("LLM planning failed, using the offline planner: %s", exc)
                outcome = await self._plan_offline(text, agents)
                outcome.notes.insert(0, f"LLM planner failed ({str(exc)[:120]}); offline plan used")
                return outcome
        return await self._plan_offline(text, agents)

    async def _plan_offline(self, text: str, agents: dict[str, AgentInfo]) -> PlanOutcome:
        decision = await self.offline.classify(text)
        plan = offline_plan(decision, text, agents)
        check = validate_plan(plan, agents, fallback_instruction=text)
        if not check.executable:
            # e.g. the only agent this intent needs is not registered: answer directly, say why.
            return PlanOutcome(IntentPlan(intent="DIRECT"), "offline", check.notes, decision)
        return PlanOutcome(check.plan, "offline", check.notes, decision)

    async def _plan_llm(self, text: str, agents: dict[str, AgentInfo],
                        history: Sequence[dict[str, str]]) -> PlanOutcome:
        messages = [{"role": "system", "content": planner_system_prompt(agents)}]
        if history:
            messages.append({"role": "user", "content": "Conversation so far:\n" + _history_block(history)})
        messages.append({"role": "user", "content": f"Request: {text}"})
        first = await self.llm.parse(messages, IntentPlan, model=self.model, purpose="plan",
                                     max_tokens=PLAN_MAX_TOKENS)
        check = validate_plan(first, agents, fallback_instruction=text)
        if check.valid:
            return PlanOutcome(check.plan, "llm", [], attempts=1)
        # Re-ask once, naming the problems; keep the better of the two (valid > repaired > unusable).
        retry_messages = [*messages,
                          {"role": "assistant", "content": first.model_dump_json()},
                          {"role": "user", "content": "That plan is invalid: " + "; ".join(check.notes)
                           + ". Return a corrected IntentPlan using only the listed agents."}]
        try:
            second = await self.llm.parse(retry_messages, IntentPlan, model=self.model, purpose="plan-retry",
                                          max_tokens=PLAN_MAX_TOKENS)
        except LLMError as exc:
            second = None
            check.notes.append(f"re-ask failed: {str(exc)[:120]}")
        notes = [f"first plan: {n}" for n in check.notes]
        if second is not None:
            check2 = validate_plan(second, agents, fallback_instruction=text)
            if check2.valid:
                return PlanOutcome(check2.plan, "llm", [*notes, "re-asked once: corrected plan used"], attempts=2)
            notes += [f"second plan: {n}" for n in check2.notes]
            if check2.executable:
                return PlanOutcome(check2.plan, "llm", [*notes, "repaired second plan used"], attempts=2)
        if check.executable:
            return PlanOutcome(check.plan, "llm", [*notes, "repaired first plan used"], attempts=2)
        outcome = await self._plan_offline(text, agents)
        outcome.notes = [*notes, "no usable LLM plan; offline plan used", *outcome.notes]
        outcome.attempts = 2
        return outcome


def describe_plan(plan: IntentPlan) -> str:
    """A one-line summary for status events (`HYBRID: internal_rag ∥ web_research → report_writing`)."""
    if not plan.steps:
        return plan.intent
    parts = []
    for i, step in enumerate(plan.steps):
        label = step.agent + (f"/{step.skill}" if step.skill else "")
        if step.depends_on:
            label += "←" + ",".join(str(d) for d in step.depends_on)
        parts.append(f"{i}:{label}")
    return f"{plan.intent}: " + " ".join(parts)


def plan_json(plan: IntentPlan) -> dict[str, Any]:
    """The plan as the reply's `plan` object (contract: intent + steps of agent/instruction/depends_on)."""
    return json.loads(plan.model_dump_json())
