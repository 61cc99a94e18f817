"""The orchestrator's flow: plan → execute → compose the answer.

* INTERNAL_SEARCH: the RAG answer as is (prefixed `📄 [사내 문서 기반]`). When RAG's structured status is
  `no_result`, or the RAG step errs, times out or cannot be reached (the notice then says why), the web agent is asked instead (streaming the notice first); its answer is used when its best
  score reaches the relevance threshold, otherwise "관련 정보를 찾을 수 없습니다.". `needs_clarification`
  asks the person to restate.
* WEB_SEARCH: the web agent's answer as is. When it finds nothing (`no_result`), or the web step errs, times
  out or cannot be reached, the person's documents are asked instead (the notice first, and the answer says
  it comes from the documents); when they have nothing either, the web's own reply (or outage) stands.
* Before planning, the person's own index is probed (`probe.py`): the planner learns whether their
  documents hold the request's terms, not only their names.
* FILE_OPERATION: the agent's answer as is.
* HYBRID: the only re-synthesis (LLM when configured, a structured merge offline); sources of every step
  kept and de-duplicated.
* DIRECT: a direct LLM answer, or offline a short reply saying what the hub can do.

A step that fails (agent down, timeout, error) never fails the request: the answer says what is missing,
in the person's language.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ai_llm.common import identity
from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import (
    STATUS_ERROR,
    STATUS_NEEDS_CLARIFICATION,
    STATUS_NO_RESULT,
    STATUS_OK,
    AgentReply,
    announce_if_slow,
)
from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.identity import viewer_of_metadata
from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.messages import LANGUAGES, language_or_default, message
from ai_llm.common.messages import catalog as message_catalog
from ai_llm.common.store.conversations import ConversationStore, MemoryConversationStore
from ai_llm.common.text import is_korean, split_sentences
from ai_llm.orchestrator_agent.executor import (
    ANSWER_RELAY,
    FAILED_STATUSES,
    PREVIOUS_RESULT_CHARS,
    STATUS_SKIPPED,
    PlanExecutor,
    StepResult,
    agent_label,
)
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
from ai_llm.orchestrator_agent.probe import DocumentProbe, ProbeMatch
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

DIRECT_PROMPT = ("You are the assistant of Agent Hub, a multi-agent hub for Korean teams. Answer the user directly "
                 "and briefly in {language_name}. You may rework earlier answers from the conversation. Do not "
                 "invent facts about the team's documents or current events; say the hub can search them. "
                 "The hub can: {capabilities}.")


#: A DIRECT request that reworks the previous answer ("방금 답변을 세 줄로", "shorten your last answer").
_PREVIOUS_ANSWER = re.compile(r"방금|위 (내용|답변)|이전 답변|앞의 답변|요약|짧게|줄로|last answer|previous answer|"
                              r"your answer|shorter|summari[sz]e|bullet")


def _capability(agent: str, language: str) -> str | None:
    """What a known agent can do, in the person's words (None for an agent the catalog does not describe)."""
    key = f"orchestrator.capability_{agent}"
    return message(key, language) if key in message_catalog() else None


def _reason(result: StepResult, language: str) -> str:
    """Why a step has no answer, in the person's words: the web agent's kind of outage when it named one, else
    the step's status. The raw error stays in the log and the reply's data, never in the text."""
    kind = str((result.data or {}).get("outage_kind") or "")
    if kind and f"web.outage_{kind}" in message_catalog():
        return message(f"web.outage_{kind}", language)
    if result.error:
        log.info("step %s (%s) %s: %s", result.index, result.agent, result.status, result.error[:500])
    return message(f"orchestrator.reason_{result.status}", language) if result.status in FAILED_STATUSES \
        else result.status


class Orchestrator:
    """Plans a request, runs the plan over A2A and composes the answer.

    Args:
        llm: the LLM port (`OpenAIChat` online; `LocalEngine` offline).
        agents: name -> `RemoteAgent`, or an `AgentRegistry` (injectable: tests pass their own agents).
        step_timeout_s: limit of one step.
        agent_timeouts: per-agent step limits overriding `step_timeout_s` (`ORCHESTRATOR_AGENT_TIMEOUTS`).
        planning_model / synthesis_model: model names for the online path.
        relevance_threshold: the web answer's best score needed after a RAG no-result (0.5).
        default_language: `ko` or `en` when the request does not say and its text does not tell.
        probe: the probe of the hub's document index asked before planning (None: plan from the catalog only).
    """

    def __init__(self, llm: LLM, agents: AgentRegistry | Mapping[str, RemoteAgent], *,
                 step_timeout_s: float = 90.0,
                 planning_model: str | None = None, synthesis_model: str | None = None,
                 relevance_threshold: float = 0.5, default_language: str = "ko",
                 agent_timeouts: Mapping[str, float] | None = None, hub_token: str | None = None,
                 probe: DocumentProbe | None = None) -> None:
        self.llm = llm
        self.probe = probe
        self.hub_token = hub_token
        self.agents = agents if isinstance(agents, AgentRegistry) else AgentRegistry(agents)
        self.planner = Planner(llm, OfflineClassifier(), model=planning_model)
        self.executor = PlanExecutor(self.agents, step_timeout_s, on_unreachable=self.agents.forget,
                                     agent_timeouts=agent_timeouts, hub_token=hub_token)
        self.synthesis_model = synthesis_model
        self.relevance_threshold = relevance_threshold
        self.default_language = language_or_default(default_language)
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
        if wanted in LANGUAGES:
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
        text = request.text.strip()
        if not text:
            return AgentReply(text=message("orchestrator.empty", language),
                              data={"status": STATUS_NEEDS_CLARIFICATION, "intent": None, "plan": None, "steps": [],
                                    "sources": [], "error": "empty"})
        if len(text) > MAX_REQUEST_CHARS:
            return AgentReply(text=message("orchestrator.too_long", language, n=len(text), limit=MAX_REQUEST_CHARS),
                              data={"status": STATUS_ERROR, "intent": None, "plan": None, "steps": [],
                                    "sources": [], "error": "request_too_long"})
        history = self.history_of(request)
        await progress(message("orchestrator.planning", language), stage="planning", progress=0.05)
        infos = await self.agents.infos()
        # The person the backend signed for this request: the planner sees only their documents, and each
        # step's agent gets its own signed copy.
        viewer = viewer_of_metadata(self.hub_token, "orchestrator", request.metadata)
        rag_identity = identity.forward(self.hub_token, viewer, "internal_rag")
        catalog = await self.agents.catalog({identity.HEADER: rag_identity[identity.METADATA_KEY]}
                                            if rag_identity else None, viewer.user_id)
        # The previous turn of this conversation (its answer, intent, question): follow-ups are planned with it,
        # and a DIRECT rework or a report of the last answer starts from it.
        last = await self._recall(request)
        pending_agent = await self._remembered_in(request).take(STATE_AGENT, request.context_id, PENDING_KEY) \
            if request.context_id else None
        if pending_agent and pending_agent in infos:
            # The previous answer was a question of that agent (e.g. a delete confirmation): continue there.
            outcome = PlanOutcome(IntentPlan(intent="FILE_OPERATION",
                                             steps=[PlanStep(agent=pending_agent, instruction=text)]),
                                  "continuation", [f"continuing the conversation with {pending_agent}"])
        else:
            match = await self._probe(text, viewer)
            outcome = await self.planner.plan(text, infos, history, catalog, last, probe=match)
        plan = outcome.plan
        # The standalone rewrite of a follow-up is what the agents search with; the person sees their own words.
        question = outcome.question or text
        planned = message("orchestrator.planned", language, plan=describe_plan(plan))
        await progress(planned, stage="planned", progress=0.1,
                       data={"intent": plan.intent, "plan": plan_json(plan), "planner": outcome.planner,
                             "question": question})

        if plan.intent == "DIRECT":
            answer = await self._direct(text, history, infos, language, last)
            return await self._reply(request, answer, STATUS_OK, outcome, [], [], language, question)

        base_data: dict[str, Any] = {"language": language, "history": history}
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
        if any(step.agent == REPORT for step in run_plan.steps):
            # A report's retrieval gathers what the documents say on its topic, not the one sentence that answers.
            base_data["breadth"] = "report"
        relay = ANSWER_RELAY.set(self._answer_relay(plan, language, progress))
        try:
            if _report_on_documents(run_plan) and WEB in self.agents:
                run_plan, results = await self._run_report(run_plan, question, base_data, request.context_id,
                                                           progress, viewer)
            else:
                results = await self.executor.run_plan(run_plan, base_data=base_data, context_id=request.context_id,
                                                       emit=progress, viewer=viewer)
        finally:
            ANSWER_RELAY.reset(relay)
        answer, status, extra, synthesis = await self._compose(question, run_plan, results, base_data,
                                                               request.context_id, language, progress, viewer)
        all_results = results + extra
        state = "completed"
        for result in all_results:
            if result.state == "input_required" and not result.failed:
                state = "input_required"
                if request.context_id:  # in the shared store: another replica, or a restart, continues there
                    await self._remembered_in(request).put(STATE_AGENT, request.context_id, PENDING_KEY,
                                                           result.agent, ttl_s=PENDING_TTL_S)
        # No "answer ready" line: the answer follows at once and says so itself (every status line costs an event
        # on each hop to the browser).
        reply = await self._reply(request, answer, status, outcome, all_results, step_sources(all_results),
                                  language, question)
        reply.data["synthesis"] = synthesis
        reply.state = state  # type: ignore[assignment]
        return reply

    async def _run_report(self, plan: IntentPlan, question: str, base_data: dict[str, Any], context_id: str,
                          progress: Progress, viewer: identity.Viewer) -> tuple[IntentPlan, list[StepResult]]:
        """A report on documents: the retrieval steps, then, when the documents have nothing (no result, or the
        step failed), the web as one more input, then the report step on whatever was found. Returns the plan
        as run (the web step added, the report depending on it) and one result per step."""
        *searches, report = plan.steps
        results = await self.executor.run_plan(IntentPlan(intent=plan.intent, steps=searches), base_data=base_data,
                                               context_id=context_id, emit=progress, viewer=viewer)
        if all(r.failed or r.status == STATUS_NO_RESULT for r in results):
            rag = next(r for r in results if r.agent == RAG)
            notice = message("orchestrator.fallback", base_data["language"]) if rag.status == STATUS_NO_RESULT \
                else message("orchestrator.fallback_failed", base_data["language"], reason=_reason(rag, base_data["language"]))
            await progress(notice, stage="fallback", progress=0.5, agent="orchestrator", data={"reason": rag.status})
            web = await self._fallback(WEB, searches[0].instruction, len(plan.steps), base_data, context_id, progress,
                                       viewer)
            results.append(web)
            report = report.model_copy(update={"depends_on": [*report.depends_on, web.index]})
        report_index = len(searches)
        usable = [r for r in results if r.index in report.depends_on and not r.failed]
        language = base_data["language"]
        if usable:
            await progress(message("orchestrator.step_start", language, label=agent_label(REPORT, language),
                                   agent=REPORT), stage="step_start", progress=0.7, agent=REPORT,
                           data={"step": report_index})
            call = self.executor.build_call(report, usable, base_data, context_id, viewer)
            written = await self.executor.run_step(report_index, report, call, progress)
        else:  # every input failed: as the executor does, the report is skipped rather than written on nothing
            missing = ", ".join(f"{r.agent} (step {r.index})" for r in results)
            written = StepResult(report_index, REPORT, STATUS_SKIPPED, error=f"inputs unavailable: {missing}")
        await progress(message("orchestrator.step_failed" if written.failed else "orchestrator.step_done", language,
                               label=agent_label(REPORT, language), agent=REPORT, status=written.status,
                               seconds=written.elapsed_ms / 1000),
                       stage="step_done", progress=0.85, agent=REPORT, data={"step": report_index,
                                                                             "status": written.status})
        steps = [*searches, report] + ([PlanStep(agent=WEB, instruction=searches[0].instruction)]
                                       if len(results) > len(searches) else [])
        ordered = sorted([*results, written], key=lambda r: r.index)
        return IntentPlan(intent=plan.intent, steps=steps), ordered

    async def _probe(self, text: str, viewer: identity.Viewer) -> ProbeMatch | None:
        """What the person's documents hold of the request (None without a probe)."""
        return None if self.probe is None else await self.probe.probe(text, viewer)

    @staticmethod
    def _answer_relay(plan: IntentPlan, language: str, progress: Progress
                      ) -> Callable[[int, str], Awaitable[None]] | None:
        """For a plan whose answer is its one step's text, a relay that streams that step's answer as it is
        written (behind the prefix `_compose` puts before it); None for plans whose answer is composed after
        every step (HYBRID, several steps), which then arrives whole."""
        stream = getattr(progress, "stream_answer", None)
        if stream is None or len(plan.steps) != 1:
            return None
        documents = plan.intent == "INTERNAL_SEARCH" and plan.steps[0].agent == RAG

        async def relay(index: int, text: str) -> None:
            if index == 0:
                await stream(_documents_answer(text, language) if documents else text.strip())

        return relay

    async def _compose(self, question: str, plan: IntentPlan, results: list[StepResult],
                       base_data: dict[str, Any], context_id: str, language: str,
                       progress: Progress, viewer: identity.Viewer | None = None
                       ) -> tuple[str, str, list[StepResult], str | None]:
        """The answer text and status for the plan's intent, extra steps run (the web fallback) and the
        synthesis method (`llm` / `merge` / `merge-fallback`; None when nothing was re-synthesized)."""
        dependents = {d for step in plan.steps for d in step.depends_on}
        sinks = [r for r in results if r.index not in dependents]
        usable_sinks = [r for r in sinks if not r.failed]
        extra: list[StepResult] = []
        method: str | None = None

        if plan.intent == "INTERNAL_SEARCH" and len(sinks) == 1 and sinks[0].agent == RAG:
            rag = sinks[0]
            if rag.status == STATUS_OK:
                body, status = _documents_answer(rag.text, language), STATUS_OK
            elif rag.status == STATUS_NEEDS_CLARIFICATION:
                body = message("orchestrator.restate", language) \
                    + (f"\n\n{rag.text.strip()}" if rag.text.strip() else "")
                status = STATUS_NEEDS_CLARIFICATION
            elif (rag.status == STATUS_NO_RESULT or rag.failed) and WEB in self.agents:
                # Nothing in the documents, or the RAG agent errored, timed out or is unreachable: the web
                # answers instead, and the notice says why.
                notice = message("orchestrator.fallback", language) if rag.status == STATUS_NO_RESULT else \
                    message("orchestrator.fallback_failed", language, reason=_reason(rag, language))
                await progress(notice, stage="fallback", progress=0.6, agent="orchestrator",
                               data={"reason": rag.status})
                web = await self._fallback(WEB, question, len(plan.steps), base_data, context_id, progress, viewer)
                extra.append(web)
                score = _best_score(web)
                if web.status == STATUS_OK and score >= self.relevance_threshold:
                    body, status = f"{message('orchestrator.web_prefix', language)}\n\n{web.text.strip()}", STATUS_OK
                elif web.failed:  # an outage is reported as an outage, not as "nothing relevant"
                    body = message("orchestrator.web_down", language, reason=_reason(web, language))
                    status = STATUS_ERROR
                else:
                    body, status = message("orchestrator.not_found", language), STATUS_NO_RESULT
                if rag.failed:
                    body = f"{notice}\n\n{body}"
            elif rag.status == STATUS_NO_RESULT:
                body, status = message("orchestrator.not_found", language), STATUS_NO_RESULT
            else:
                body, status = message("orchestrator.nothing", language), STATUS_ERROR
        elif plan.intent == "WEB_SEARCH" and len(sinks) == 1 and sinks[0].agent == WEB \
                and (sinks[0].status == STATUS_NO_RESULT or sinks[0].failed) and RAG in self.agents:
            # Nothing on the web, or the web step errored, timed out or is unavailable: the person's documents
            # are asked, and the answer says so. Without an answer there, the web's own reply stands.
            web = sinks[0]
            notice = message("orchestrator.web_fallback", language) if web.status == STATUS_NO_RESULT else \
                message("orchestrator.web_fallback_failed", language, reason=_reason(web, language))
            await progress(notice, stage="fallback", progress=0.6, agent="orchestrator", data={"reason": web.status})
            rag = await self._fallback(RAG, question, len(plan.steps), base_data, context_id, progress, viewer)
            extra.append(rag)
            if rag.status == STATUS_OK:
                body = (f"{message('orchestrator.web_fallback_answer', language)}\n\n"
                        f"{_documents_answer(rag.text, language)}")
                status = STATUS_OK
            elif web.failed:
                body = web.text.strip() or message("orchestrator.nothing", language)
                status = STATUS_ERROR
            else:
                body, status = web.text.strip() or message("orchestrator.not_found", language), STATUS_NO_RESULT
        elif plan.intent == "HYBRID" and len(usable_sinks) > 1:
            # Announced when it takes a while (a model writing); the offline merge is over at once.
            body, method = await announce_if_slow(
                synthesize(self.llm, question, usable_sinks, step_sources(results), language,
                           model=self.synthesis_model),
                lambda: progress(message("orchestrator.synthesis", language), stage="synthesis", progress=0.9,
                                 agent="orchestrator"))
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
            body, status = message("orchestrator.nothing", language), STATUS_ERROR

        missing = [r for r in results + extra if r.failed]
        if missing:
            lines = [message("orchestrator.missing_head", language)]
            lines += [message("orchestrator.missing_line", language, label=agent_label(r.agent, language),
                              agent=r.agent, reason=_reason(r, language)) for r in missing]
            body = f"{body}\n\n" + "\n".join(lines)
        return body, status, extra, method

    async def _fallback(self, agent: str, question: str, index: int, base_data: dict[str, Any], context_id: str,
                        progress: Progress, viewer: identity.Viewer | None) -> StepResult:
        """One extra step for `agent` (the web after the documents, the documents after the web), for the
        request's person."""
        step = PlanStep(agent=agent, instruction=question)
        await progress(message("orchestrator.planned", base_data["language"], plan=f"fallback {index}:{agent}"),
                       stage="step_start", progress=0.65, agent=agent, data={"step": index, "fallback": True})
        call = self.executor.build_call(step, [], base_data, context_id, viewer)
        result = await self.executor.run_step(index, step, call, progress)
        result.fallback = True
        return result

    async def _direct(self, text: str, history: list[dict[str, str]], infos: dict[str, AgentInfo],
                      language: str, last: dict[str, Any] | None = None) -> str:
        capability_lines = []
        for name, info in infos.items():
            description = _capability(name, language) or info.summary.get("description") or name
            note = "" if info.available else f" {message('orchestrator.unavailable_note', language)}"
            capability_lines.append(f"- {description}{note}")
        prompt = DIRECT_PROMPT.format(language_name="Korean" if language == "ko" else "English",
                                      capabilities="; ".join(_capability(n, language) or n for n in infos))
        messages = [{"role": "system", "content": prompt}]
        messages += [{"role": "assistant" if t["role"] == "agent" else "user", "content": t["text"]}
                     for t in history]
        messages.append({"role": "user", "content": text})
        try:
            answer = await self.llm.chat(messages, purpose="direct")
            if answer.strip():
                return answer.strip()
        except OfflineUnsupported:
            pass  # offline mode: the reply below is the answer
        except LLMError as exc:
            log.warning("direct answer failed, offline reply used: %s", exc)
        if last and _PREVIOUS_ANSWER.search(text.lower()):
            # Offline there is no model to rewrite with: quote the previous answer's key sentences instead.
            sentences = [s for s in split_sentences(last["text"])
                         if len(s) > 8 and not s.lstrip().startswith(("-", "#", "**", "⚠️", "📄 [", "🌐 ["))]
            if sentences:
                return message("orchestrator.previous", language) + "\n" + "\n".join(f"- {s}" for s in sentences[:3])
        return message("orchestrator.direct", language, capabilities="\n".join(capability_lines))

    async def _reply(self, request: AgentRequest, answer: str, status: str, outcome: PlanOutcome,
                     results: list[StepResult], sources: list[dict[str, Any]], language: str,
                     question: str = "") -> AgentReply:
        data: dict[str, Any] = {
            "status": status,
            "intent": outcome.plan.intent,
            "plan": plan_json(outcome.plan),
            "steps": [r.summary() for r in results],
            "sources": sources,
            # Each agent's quoted text with its file and location, as data (the page renders these).
            "quotes": [{**q, "agent": r.agent} for r in results if not r.failed
                       for q in (r.data.get("quotes") or []) if isinstance(q, dict)],
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


def _report_on_documents(plan: IntentPlan) -> bool:
    """A plan of searches the documents' step among them and no web step, then a report on their results."""
    if len(plan.steps) < 2:
        return False
    *searches, last = plan.steps
    return last.agent == REPORT \
        and any(s.agent == RAG for s in searches) and not any(s.agent == WEB for s in searches) \
        and all(s.agent != REPORT for s in searches)


def _documents_answer(text: str, language: str) -> str:
    """The documents agent's answer as the orchestrator gives it: behind the line saying where it comes from."""
    return f"{message('orchestrator.rag_prefix', language)}\n\n{text.strip()}"


def _best_score(result: StepResult) -> float:
    """The web answer's best relevance: its `max_score`, else its sources' best score, else 0."""
    value = result.data.get("max_score")
    if isinstance(value, int | float):
        return float(value)
    scores = [float(s["score"]) for s in result.sources if isinstance(s.get("score"), int | float)]
    return max(scores) if scores else 0.0
