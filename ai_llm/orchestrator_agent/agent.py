"""The orchestrator's flow: plan → execute → compose the answer.

* INTERNAL_SEARCH: the RAG answer as is (prefixed `📄 [사내 문서 기반]`). When RAG's structured status is
  `no_result`, or the RAG step errs, times out or cannot be reached (the notice then says why), the web agent is asked instead (streaming the notice first); its answer is used when its best
  score reaches the relevance threshold, otherwise "관련 정보를 찾을 수 없습니다.". `needs_clarification`
  asks the person to restate.
* WEB_SEARCH / FILE_OPERATION: the agent's answer as is.
* HYBRID: the only re-synthesis (LLM when configured, a structured merge offline); sources of every step
  kept and de-duplicated.
* DIRECT: a direct LLM answer, or offline a short reply saying what the hub can do.

A step that fails (agent down, timeout, error) never fails the request: the answer says what is missing,
in the person's language.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from ai_llm.common.a2a_client import RemoteAgent
from ai_llm.common.a2a_server import AgentRequest, Progress
from ai_llm.common.conversation_store import ConversationStore, MemoryConversationStore
from ai_llm.common.events import (
    STATUS_ERROR,
    STATUS_NEEDS_CLARIFICATION,
    STATUS_NO_RESULT,
    STATUS_OK,
    AgentReply,
)
from ai_llm.common.llm import LLM, LLMError, LocalEngine
from ai_llm.common.text import is_korean, split_sentences
from ai_llm.orchestrator_agent.executor import PREVIOUS_RESULT_CHARS, PlanExecutor, StepResult, agent_label
from ai_llm.orchestrator_agent.plan import IntentPlan, PlanStep
from ai_llm.orchestrator_agent.planner import (
    RAG,
    REPORT,
    WEB,
    OfflineClassifier,
    Planner,
    PlanOutcome,
    describe_plan,
    plan_json,
)
from ai_llm.orchestrator_agent.registry import AgentInfo, AgentRegistry
from ai_llm.orchestrator_agent.synthesis import step_sources, structured_merge, synthesize

log = logging.getLogger(__name__)

#: Turns of conversation sent to the planner and to the agents.
HISTORY_TURNS = 6
#: A request longer than this is refused with a clear message (nothing is planned or sent).
MAX_REQUEST_CHARS = 20_000
#: Conversations whose last answer is remembered (for "save this answer as a report") when it is kept in this
#: process's memory; on the hub database (`AgentRequest.store`) every replica shares it and it expires
#: with the store's retention.
REMEMBERED_CONVERSATIONS = 1000
#: The orchestrator's name in the conversation store and the key of the remembered answer there.
STATE_AGENT = "orchestrator"
REMEMBERED_KEY = "last_answer"
#: Key of the agent whose question (e.g. a delete confirmation) the conversation's next message answers, and how
#: long that question stays open (the file agent keeps its pending delete as long).
PENDING_KEY = "pending_agent"
PENDING_TTL_S = 600.0

MESSAGES: dict[str, dict[str, str]] = {
    "ko": {
        "planning": "🧭 요청을 분석하고 실행 계획을 세우는 중…",
        "planned": "📋 실행 계획: {plan}",
        "fallback": "📄 사내 문서에서 찾지 못했습니다. 웹에서 검색합니다...",
        "fallback_failed": "📄 사내 문서 검색에 실패했습니다({reason}). 웹에서 검색합니다...",
        "standalone": "질문",
        "rag_prefix": "📄 [사내 문서 기반]",
        "web_prefix": "🌐 [웹 검색 기반]",
        "not_found": "관련 정보를 찾을 수 없습니다.",
        "web_down": "사내 문서에서 찾지 못했고, 웹 검색도 사용할 수 없습니다 ({reason}).",
        "restate": "질문을 정확히 이해하지 못했습니다. 무엇을 찾으시는지 조금 더 구체적으로 다시 말씀해 주시겠어요?",
        "synthesis": "🧩 여러 에이전트의 결과를 종합하는 중…",
        "done": "✅ 답변 완료",
        "missing_head": "⚠️ 일부 결과를 가져오지 못했습니다:",
        "missing_line": "- {label}({agent}): {reason}",
        "nothing": "요청을 처리할 수 있는 에이전트의 응답을 받지 못했습니다.",
        "empty": "질문이나 요청 내용을 입력해 주세요.",
        "too_long": "요청이 너무 깁니다 ({n:,}자). {limit:,}자 이내로 줄여서 다시 보내 주세요.",
        "direct": ("안녕하세요! 저는 팀의 업무를 돕는 에이전트 허브입니다. 다음과 같은 일을 할 수 있습니다:\n"
                   "{capabilities}\n예: \"사내 보안 지침에서 비밀번호 규정 찾아줘\", \"오늘 원달러 환율 알려줘\", "
                   "\"우리 규정을 최신 법령과 비교해줘\", \"이 답변을 보고서로 저장해줘\""),
        "unavailable_note": "(현재 연결되지 않음)",
        "previous": "직전 답변의 핵심 문장입니다 (오프라인 모드에서는 원문을 인용합니다):",
        "reason_timeout": "응답 시간 초과",
        "reason_unavailable": "에이전트에 연결할 수 없음",
        "reason_error": "오류",
        "reason_skipped": "앞 단계 결과가 없어 실행하지 않음",
    },
    "en": {
        "planning": "🧭 Analysing the request and planning…",
        "planned": "📋 Plan: {plan}",
        "fallback": "📄 Not found in internal documents. Searching the web...",
        "fallback_failed": "📄 The internal document search failed ({reason}). Searching the web...",
        "standalone": "question",
        "rag_prefix": "📄 [Based on internal documents]",
        "web_prefix": "🌐 [Based on web search]",
        "not_found": "No relevant information found.",
        "web_down": "Nothing was found in the internal documents, and web search is unavailable ({reason}).",
        "restate": "I could not tell exactly what you are looking for. Could you restate the question more specifically?",
        "synthesis": "🧩 Combining the agents' results…",
        "done": "✅ Answer ready",
        "missing_head": "⚠️ Some results are missing:",
        "missing_line": "- {label} ({agent}): {reason}",
        "nothing": "No agent able to handle this request answered.",
        "empty": "Please type a question or request.",
        "too_long": "The request is too long ({n:,} characters). Please shorten it to {limit:,} characters.",
        "direct": ("Hello! I am the team's agent hub. I can:\n{capabilities}\nFor example: \"find the password "
                   "rules in our security guideline\", \"today's USD/KRW exchange rate\", \"compare our policy "
                   "with the latest law\", \"save this answer as a report\"."),
        "unavailable_note": "(currently unreachable)",
        "previous": "The key sentences of the previous answer (offline mode quotes the original):",
        "reason_timeout": "timed out",
        "reason_unavailable": "agent unreachable",
        "reason_error": "error",
        "reason_skipped": "not run: its inputs are missing",
    },
}

CAPABILITIES = {
    "ko": {RAG: "사내 문서(PDF 등)를 검색해 페이지 출처와 함께 답변", WEB: "웹에서 최신 정보를 찾아 출처와 함께 답변",
           "file_management": "업로드한 파일 목록·열람·이름 변경·삭제", REPORT: "검색 결과로 보고서(DOCX) 작성"},
    "en": {RAG: "search internal documents (PDF …) and cite pages", WEB: "research the live web with cited sources",
           "file_management": "list, read, rename and delete uploaded files",
           REPORT: "write reports (DOCX) from search results"},
}

DIRECT_PROMPT = ("You are the assistant of Agent Hub, a multi-agent hub for Korean teams. Answer the user directly "
                 "and briefly in {language_name}. You may rework earlier answers from the conversation. Do not "
                 "invent facts about the team's documents or current events; say the hub can search them. "
                 "The hub can: {capabilities}.")


#: A DIRECT request that reworks the previous answer ("방금 답변을 세 줄로", "shorten your last answer").
_PREVIOUS_ANSWER = re.compile(r"방금|위 (내용|답변)|이전 답변|앞의 답변|요약|짧게|줄로|last answer|previous answer|"
                              r"your answer|shorter|summari[sz]e|bullet")


def _reason(result: StepResult, language: str) -> str:
    text = MESSAGES[language].get(f"reason_{result.status}", result.status)
    if result.error and result.status in ("error", "timeout"):
        text += f" ({result.error[:160]})"
    return text


class Orchestrator:
    """Plans a request, runs the plan over A2A and composes the answer.

    Args:
        llm: the LLM port (`OpenAIChat` online; `LocalEngine` offline).
        agents: name -> `RemoteAgent`, or an `AgentRegistry` (injectable: tests pass their own agents).
        offline_engine: the engine of the offline classifier (defaults to `llm` when it is a `LocalEngine`).
        step_timeout_s: limit of one step.
        agent_timeouts: per-agent step limits overriding `step_timeout_s` (`ORCHESTRATOR_AGENT_TIMEOUTS`).
        planning_model / synthesis_model: model names for the online path.
        relevance_threshold: the web answer's best score needed after a RAG no-result (0.5).
        default_language: `ko` or `en` when the request does not say and its text does not tell.
    """

    def __init__(self, llm: LLM, agents: AgentRegistry | Mapping[str, RemoteAgent], *,
                 offline_engine: LocalEngine | None = None, step_timeout_s: float = 90.0,
                 planning_model: str | None = None, synthesis_model: str | None = None,
                 relevance_threshold: float = 0.5, default_language: str = "ko",
                 agent_timeouts: Mapping[str, float] | None = None) -> None:
        self.llm = llm
        self.agents = agents if isinstance(agents, AgentRegistry) else AgentRegistry(agents)
        engine = offline_engine or (llm if isinstance(llm, LocalEngine) else LocalEngine(None))
        self.planner = Planner(llm, OfflineClassifier(engine), model=planning_model)
        self.executor = PlanExecutor(self.agents, step_timeout_s, on_unreachable=self.agents.forget,
                                     agent_timeouts=agent_timeouts)
        self.synthesis_model = synthesis_model
        self.relevance_threshold = relevance_threshold
        self.default_language = default_language if default_language in MESSAGES else "ko"
        # Remembered answers when a request carries no store (handle called directly, without the executor).
        self._local_store = MemoryConversationStore(REMEMBERED_CONVERSATIONS)

    # -- remembered answers --------------------------------------------------------------------
    def _remembered_in(self, request: AgentRequest) -> ConversationStore:
        return request.store or self._local_store

    async def _recall(self, request: AgentRequest) -> dict[str, Any] | None:
        """The conversation's remembered last answer (`text`, `sources`, `intent`, `question`), if any."""
        if not request.context_id:
            return None
        value = await self._remembered_in(request).get(STATE_AGENT, request.context_id, REMEMBERED_KEY)
        return value if isinstance(value, dict) else None

    # -- request parsing ----------------------------------------------------------------------
    def language_of(self, request: AgentRequest) -> str:
        wanted = request.data.get("language")
        if wanted in MESSAGES:
            return str(wanted)
        if is_korean(request.text):
            return "ko"
        if any("a" <= ch.lower() <= "z" for ch in request.text):
            return "en"
        return self.default_language

    @staticmethod
    def history_of(request: AgentRequest) -> list[dict[str, str]]:
        """The last turns: the request's own `history` data when well-formed, else the A2A context's."""
        raw = request.data.get("history")
        turns: list[dict[str, str]] = []
        source = raw if isinstance(raw, list) else request.history
        for turn in source:
            if isinstance(turn, dict) and isinstance(turn.get("text"), str):
                role = "agent" if turn.get("role") in ("agent", "assistant") else "user"
                turns.append({"role": role, "text": turn["text"]})
        return turns[-HISTORY_TURNS:]

    # -- the flow -------------------------------------------------------------------------------
    async def handle(self, request: AgentRequest, progress: Progress) -> AgentReply:
        language = self.language_of(request)
        m = MESSAGES[language]
        text = request.text.strip()
        if not text:
            return AgentReply(text=m["empty"], data={"status": STATUS_NEEDS_CLARIFICATION, "intent": None,
                                                     "plan": None, "steps": [], "sources": [], "error": "empty"})
        if len(text) > MAX_REQUEST_CHARS:
            return AgentReply(text=m["too_long"].format(n=len(text), limit=MAX_REQUEST_CHARS),
                              data={"status": STATUS_ERROR, "intent": None, "plan": None, "steps": [],
                                    "sources": [], "error": "request_too_long"})
        history = self.history_of(request)
        await progress(m["planning"], stage="planning", progress=0.05)
        infos = await self.agents.infos()
        catalog = await self.agents.catalog()
        # The previous turn of this conversation (intent, question): follow-ups are planned with it.
        previous = await self._recall(request)
        pending_agent = await self._remembered_in(request).take(STATE_AGENT, request.context_id, PENDING_KEY) \
            if request.context_id else None
        if pending_agent and pending_agent in infos:
            # The previous answer was a question of that agent (e.g. a delete confirmation): continue there.
            outcome = PlanOutcome(IntentPlan(intent="FILE_OPERATION",
                                             steps=[PlanStep(agent=pending_agent, instruction=text)]),
                                  "continuation", [f"continuing the conversation with {pending_agent}"])
        else:
            outcome = await self.planner.plan(text, infos, history, catalog, previous)
        plan = outcome.plan
        question = outcome.question or text
        planned = m["planned"].format(plan=describe_plan(plan))
        if question != text:
            planned += f" — {m['standalone']}: {question}"
        await progress(planned, stage="planned", progress=0.1,
                       data={"intent": plan.intent, "plan": plan_json(plan), "planner": outcome.planner,
                             "question": question})

        if plan.intent == "DIRECT":
            last = await self._recall(request)
            answer = await self._direct(text, history, infos, language, last)
            await progress(m["done"], stage="done", progress=1.0)
            return await self._reply(request, answer, STATUS_OK, outcome, [], [], language, question)

        base_data: dict[str, Any] = {"language": language, "history": history}
        last = await self._recall(request)
        run_plan = plan
        if last and len(plan.steps) == 1 and plan.steps[0].agent == REPORT:
            # "Save this answer as a report": the previous answer is the report's input (data and text).
            # `question` is what that answer answered: the report's title names it, not this instruction.
            base_data["previous_results"] = [{"agent": "orchestrator", "text": last["text"][:PREVIOUS_RESULT_CHARS],
                                              "question": last.get("question", ""),
                                              "data": {"sources": last["sources"]}}]
            first = plan.steps[0]
            run_plan = IntentPlan(intent=plan.intent, steps=[first.model_copy(update={
                "instruction": f"{first.instruction}\n\n이전 결과:\n[orchestrator] {last['text'][:PREVIOUS_RESULT_CHARS]}"})])
        results = await self.executor.run_plan(run_plan, base_data=base_data, context_id=request.context_id,
                                               emit=progress)
        answer, status, extra, synthesis = await self._compose(question, plan, results, base_data,
                                                               request.context_id, language, progress)
        all_results = results + extra
        state = "completed"
        for result in all_results:
            if result.state == "input_required" and not result.failed:
                state = "input_required"
                if request.context_id:  # in the shared store: another replica, or a restart, continues there
                    await self._remembered_in(request).put(STATE_AGENT, request.context_id, PENDING_KEY,
                                                           result.agent, ttl_s=PENDING_TTL_S)
        await progress(m["done"], stage="done", progress=1.0)
        reply = await self._reply(request, answer, status, outcome, all_results, step_sources(all_results),
                                  language, question)
        reply.data["synthesis"] = synthesis
        reply.state = state  # type: ignore[assignment]
        return reply

    async def _compose(self, question: str, plan: IntentPlan, results: list[StepResult],
                       base_data: dict[str, Any], context_id: str, language: str,
                       progress: Progress) -> tuple[str, str, list[StepResult], str | None]:
        """The answer text and status for the plan's intent, extra steps run (the web fallback) and the
        synthesis method (`llm` / `merge` / `merge-fallback`; None when nothing was re-synthesized)."""
        m = MESSAGES[language]
        dependents = {d for step in plan.steps for d in step.depends_on}
        sinks = [r for r in results if r.index not in dependents]
        usable_sinks = [r for r in sinks if not r.failed]
        extra: list[StepResult] = []
        method: str | None = None

        if plan.intent == "INTERNAL_SEARCH" and len(sinks) == 1 and sinks[0].agent == RAG:
            rag = sinks[0]
            if rag.status == STATUS_OK:
                body, status = f"{m['rag_prefix']}\n\n{rag.text.strip()}", STATUS_OK
            elif rag.status == STATUS_NEEDS_CLARIFICATION:
                body = m["restate"] + (f"\n\n{rag.text.strip()}" if rag.text.strip() else "")
                status = STATUS_NEEDS_CLARIFICATION
            elif (rag.status == STATUS_NO_RESULT or rag.failed) and WEB in self.agents:
                # Nothing in the documents, or the RAG agent errored, timed out or is unreachable: the web
                # answers instead, and the notice says why.
                notice = m["fallback"] if rag.status == STATUS_NO_RESULT else \
                    m["fallback_failed"].format(reason=_reason(rag, language))
                await progress(notice, stage="fallback", progress=0.6, agent="orchestrator",
                               data={"reason": rag.status})
                web = await self._fallback_web(question, len(plan.steps), base_data, context_id, progress)
                extra.append(web)
                score = _best_score(web)
                if web.status == STATUS_OK and score >= self.relevance_threshold:
                    body, status = f"{m['web_prefix']}\n\n{web.text.strip()}", STATUS_OK
                elif web.failed:  # an outage is reported as an outage, not as "nothing relevant"
                    body, status = m["web_down"].format(reason=_reason(web, language)), STATUS_ERROR
                else:
                    body, status = m["not_found"], STATUS_NO_RESULT
                if rag.failed:
                    body = f"{notice}\n\n{body}"
            elif rag.status == STATUS_NO_RESULT:
                body, status = m["not_found"], STATUS_NO_RESULT
            else:
                body, status = m["nothing"], STATUS_ERROR
        elif plan.intent == "HYBRID" and len(usable_sinks) > 1:
            await progress(m["synthesis"], stage="synthesis", progress=0.9, agent="orchestrator")
            body, method = await synthesize(self.llm, question, usable_sinks, step_sources(results), language,
                                            model=self.synthesis_model)
            status = STATUS_OK
        elif len(usable_sinks) == 1:
            body, status = usable_sinks[0].text.strip(), usable_sinks[0].status
        elif usable_sinks:
            # Several independent answers outside HYBRID: shown side by side, not re-written.
            body, status = structured_merge(usable_sinks, step_sources(results), language), STATUS_OK
        elif len(sinks) == 1 and sinks[0].text.strip():
            # The one agent answered with an error of its own ("웹 검색을 사용할 수 없습니다: …"): say that.
            body, status = sinks[0].text.strip(), STATUS_ERROR
        else:
            body, status = m["nothing"], STATUS_ERROR

        missing = [r for r in results + extra if r.failed]
        if missing:
            lines = [m["missing_head"]] + [m["missing_line"].format(label=agent_label(r.agent, language),
                                                                  agent=r.agent, reason=_reason(r, language))
                                           for r in missing]
            body = f"{body}\n\n" + "\n".join(lines)
        return body, status, extra, method

    async def _fallback_web(self, question: str, index: int, base_data: dict[str, Any], context_id: str,
                            progress: Progress) -> StepResult:
        step = PlanStep(agent=WEB, instruction=question)
        await progress(MESSAGES[base_data["language"]]["planned"].format(plan=f"fallback {index}:{WEB}"),
                       stage="step_start", progress=0.65, agent=WEB, data={"step": index, "fallback": True})
        call = self.executor.build_call(step, [], base_data, context_id)
        result = await self.executor.run_step(index, step, call, progress)
        result.fallback = True
        return result

    async def _direct(self, text: str, history: list[dict[str, str]], infos: dict[str, AgentInfo],
                      language: str, last: dict[str, Any] | None = None) -> str:
        caps = CAPABILITIES[language]
        capability_lines = []
        for name, info in infos.items():
            description = caps.get(name) or info.summary.get("description") or name
            note = "" if info.available else f" {MESSAGES[language]['unavailable_note']}"
            capability_lines.append(f"- {description}{note}")
        if getattr(self.llm, "online", False):
            prompt = DIRECT_PROMPT.format(language_name="Korean" if language == "ko" else "English",
                                          capabilities="; ".join(caps.get(n, n) for n in infos))
            messages = [{"role": "system", "content": prompt}]
            messages += [{"role": "assistant" if t["role"] == "agent" else "user", "content": t["text"]}
                         for t in history]
            messages.append({"role": "user", "content": text})
            try:
                answer = await self.llm.chat(messages, purpose="direct")
                if answer.strip():
                    return answer.strip()
            except LLMError as exc:
                log.warning("direct answer failed, offline reply used: %s", exc)
        if last and _PREVIOUS_ANSWER.search(text.lower()):
            # Offline there is no model to rewrite with: quote the previous answer's key sentences instead.
            sentences = [s for s in split_sentences(last["text"])
                         if len(s) > 8 and not s.lstrip().startswith(("-", "#", "**", "⚠️", "📄 [", "🌐 ["))]
            if sentences:
                return MESSAGES[language]["previous"] + "\n" + "\n".join(f"- {s}" for s in sentences[:3])
        return MESSAGES[language]["direct"].format(capabilities="\n".join(capability_lines))

    async def _reply(self, request: AgentRequest, answer: str, status: str, outcome: PlanOutcome,
                     results: list[StepResult], sources: list[dict[str, Any]], language: str,
                     question: str = "") -> AgentReply:
        data: dict[str, Any] = {
            "status": status,
            "intent": outcome.plan.intent,
            "plan": plan_json(outcome.plan),
            "steps": [r.summary() for r in results],
            "sources": sources,
            "planner": outcome.planner,
            "notes": outcome.notes,
            "language": language,
            "missing": [r.agent for r in results if r.failed],
            "question": question or request.text.strip(),
        }
        if outcome.decision is not None:
            data["classification"] = outcome.decision.to_dict()
        if request.context_id:
            # Remembered in the conversation store (shared by replicas when it is the hub database): the answer
            # for "save this as a report", the intent and standalone question for the next turn's follow-up.
            await self._remembered_in(request).put(
                STATE_AGENT, request.context_id, REMEMBERED_KEY,
                {"text": answer, "sources": sources, "intent": outcome.plan.intent,
                 "question": question or request.text.strip()})
        return AgentReply(text=answer, data=data, agent="orchestrator", context_id=request.context_id)


def _best_score(result: StepResult) -> float:
    """The web answer's best relevance: its `max_score`, else its sources' best score, else 0."""
    value = result.data.get("max_score")
    if isinstance(value, int | float):
        return float(value)
    scores = [float(s["score"]) for s in result.sources if isinstance(s.get("score"), int | float)]
    return max(scores) if scores else 0.0
