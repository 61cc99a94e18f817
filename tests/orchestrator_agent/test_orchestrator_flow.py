"""The orchestrator against real A2A agents (child processes on ephemeral ports): execution, fallback,
synthesis, partial answers, forwarded progress.

The OpenAI-style path uses `ScriptedLLM` (OpenAI is unreachable here); everything else is real: A2A HTTP,
streaming status updates, processes that are killed.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

from ai_llm.common.a2a.server import AgentRequest
from ai_llm.common.llm import LocalEngine
from ai_llm.common.messages import message
from ai_llm.orchestrator_agent.agent import Orchestrator
from ai_llm.orchestrator_agent.executor import PlanExecutor
from ai_llm.orchestrator_agent.plan import IntentPlan, PlanStep
from tests.orchestrator_agent.conftest import FILE_SOURCE, WEB_SOURCE, ScriptedAgents
from tests.orchestrator_agent.helpers import Recorder, ScriptedLLM


def hub_registry(scripted: ScriptedAgents, rag: str = "rag_ok", web: str = "web_high") -> dict:  # type: ignore[type-arg]
    return scripted.registry(internal_rag=rag, web_research=web, file_management="file_ok",
                             report_writing="report_ok")


def request(text: str, context_id: str = "", **data: object) -> AgentRequest:
    return AgentRequest(text=text, data=dict(data), context_id=context_id)


async def test_chain_passes_results_on_through_every_link(scripted: ScriptedAgents) -> None:
    agents = scripted.registry(a="echo_a", b="echo_b", c="echo_c")
    plan = IntentPlan(intent="HYBRID", steps=[
        PlanStep(agent="c", instruction="third", depends_on=[1]),
        PlanStep(agent="b", instruction="second", depends_on=[2]),
        PlanStep(agent="a", instruction="first"),
    ])
    recorder = Recorder()
    results = await PlanExecutor(agents).run_plan(plan, base_data={"language": "en"}, emit=recorder.progress)
    assert [r.status for r in results] == ["ok", "ok", "ok"]
    received_b = results[1].data["received"]
    received_c = results[0].data["received"]
    assert "이전 결과:" in received_b["text"] and "[echo_a] answer to: first" in received_b["text"]
    assert [p["agent"] for p in received_b["data"]["previous_results"]] == ["a"]
    assert received_c["data"]["previous_results"][0]["text"].startswith("[echo_b] answer to: second")
    assert "[echo_a] answer to: first" in received_c["text"]  # A's answer travelled through B into C
    assert results[0].data["seq"] > results[1].data["seq"] > results[2].data["seq"]
    # The chain ran link after link: each step started after its predecessor finished.
    assert recorder.index(agent="a", stage="step_done") < recorder.index(agent="b", stage="step_start")
    assert recorder.index(agent="b", stage="step_done") < recorder.index(agent="c", stage="step_start")


async def test_independent_steps_of_a_layer_run_in_parallel(scripted: ScriptedAgents) -> None:
    """bar_1 and bar_2 each wait until both requests are in flight; run one after the other they fail."""
    agents = scripted.registry(first="bar_1", second="bar_2")
    plan = IntentPlan(intent="HYBRID", steps=[PlanStep(agent="first", instruction="x"),
                                              PlanStep(agent="second", instruction="y")])
    recorder = Recorder()
    results = await PlanExecutor(agents, step_timeout_s=40).run_plan(plan, emit=recorder.progress)
    # Both ok proves the overlap: each agent answered only once the other's request was in flight.
    assert [r.status for r in results] == ["ok", "ok"]
    started = [recorder.index(agent=a, stage="started") for a in ("first", "second")]
    # Each step's own "started" arrives before its own end (the two streams' relative order is not fixed:
    # one agent's forwarded status may reach the orchestrator after the other step already finished).
    assert all(recorder.index(agent=a, stage="step_done") > s for a, s in zip(("first", "second"), started,
                                                                             strict=True))
    forwarded = recorder.events[started[0]]
    assert forwarded["forwarded"] is True and forwarded["step"] == 0 and forwarded["message"] == "bar_1 started"


async def test_internal_search_answer_is_passed_through_with_its_sources(scripted: ScriptedAgents) -> None:
    llm = LocalEngine()
    orchestrator = Orchestrator(llm, hub_registry(scripted))
    recorder = Recorder()
    reply = await orchestrator.handle(request("사내 휴가 규정에서 연차 일수 알려줘"), recorder.progress)
    assert reply.text.startswith(message("orchestrator.rag_prefix")) and "연차는 입사 첫해 15일입니다." in reply.text
    data = reply.data
    assert data["status"] == "ok" and data["intent"] == "INTERNAL_SEARCH"
    assert data["plan"]["steps"][0]["agent"] == "internal_rag"
    assert data["steps"][0]["agent"] == "internal_rag" and data["steps"][0]["status"] == "ok"
    assert data["steps"][0]["elapsed_ms"] > 0
    assert len(data["sources"]) == 1  # the two identical file sources were merged
    for key in ("file_id", "pages", "page_label", "file_url"):
        assert data["sources"][0][key] == FILE_SOURCE[key]
    assert not any(c.purpose == "synthesis" for c in llm.calls)


async def test_rag_no_result_falls_back_to_the_web(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub_registry(scripted, rag="rag_none", web="web_high"))
    recorder = Recorder()
    reply = await orchestrator.handle(request("사내 규정에서 반려동물 동반 출근 기준 알려줘"), recorder.progress)
    notice = recorder.index(stage="fallback")
    assert recorder.events[notice]["message"] == "📄 사내 문서에서 찾지 못했습니다. 웹에서 검색합니다..."
    assert notice < recorder.index(agent="web_research", stage="started")
    assert reply.text.startswith("🌐 [웹 검색 기반]") and "최신 법령에 따르면" in reply.text
    assert reply.data["status"] == "ok"
    assert [(s["agent"], s["status"]) for s in reply.data["steps"]] == [("internal_rag", "no_result"),
                                                                         ("web_research", "ok")]
    assert reply.data["steps"][1]["fallback"] is True
    assert [s["url"] for s in reply.data["sources"]] == [WEB_SOURCE["url"]]


async def test_low_web_score_after_rag_no_result_says_not_found(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub_registry(scripted, rag="rag_none", web="web_low"))
    reply = await orchestrator.handle(request("사내 규정에서 반려동물 동반 출근 기준 알려줘"), Recorder().progress)
    assert reply.text == "관련 정보를 찾을 수 없습니다."
    assert reply.data["status"] == "no_result"
    english = await orchestrator.handle(request("What does our policy say about pets at work?"),
                                        Recorder().progress)
    assert english.text == "No relevant information found."


async def test_a_web_outage_is_reported_as_an_outage_not_as_nothing_found(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub_registry(scripted, rag="rag_none", web="web_outage"))
    reply = await orchestrator.handle(request("사내 규정에서 반려동물 동반 출근 기준 알려줘"), Recorder().progress)
    assert reply.text.startswith("사내 문서에서 찾지 못했고, 웹 검색도 사용할 수 없습니다 (연결 안 됨)")
    # the raw error (provider, exception) is for the log and the data, never the person
    assert "serper" not in reply.text and "ConnectError" not in reply.text
    assert "관련 정보를 찾을 수 없습니다" not in reply.text
    assert reply.data["status"] == "error"


async def test_rag_needs_clarification_asks_to_restate(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub_registry(scripted, rag="rag_clarify"))
    reply = await orchestrator.handle(request("그 규정 문서에서 그거 알려줘"), Recorder().progress)
    assert reply.text.startswith(message("orchestrator.restate")) and reply.data["status"] == "needs_clarification"
    assert len(reply.data["steps"]) == 1  # no web fallback for an unclear question


async def test_hybrid_is_the_only_path_that_calls_the_synthesis_llm(scripted: ScriptedAgents) -> None:
    # Requests the offline classifier places as the scripted model does (it overrules a plan it is sure is wrong).
    plans = {
        "사내 연차 규정 알려줘": IntentPlan(intent="INTERNAL_SEARCH", steps=[PlanStep(agent="internal_rag", instruction="i")]),
        "오늘 원달러 환율 얼마야?": IntentPlan(intent="WEB_SEARCH", steps=[PlanStep(agent="web_research", instruction="w")]),
        "파일 목록 보여줘": IntentPlan(intent="FILE_OPERATION", steps=[PlanStep(agent="file_management", instruction="f")]),
        "안녕하세요!": IntentPlan(intent="DIRECT", steps=[]),
        "우리 연차 규정을 최신 근로기준법과 비교해줘": IntentPlan(intent="HYBRID", steps=[PlanStep(agent="internal_rag", instruction="i"),
                                                       PlanStep(agent="web_research", instruction="w")]),
    }
    llm = ScriptedLLM(lambda text: plans[text], chat_delay_s=0.2)
    orchestrator = Orchestrator(llm, hub_registry(scripted), synthesis_model="gpt-4o")
    replies = {}
    for text in ["사내 연차 규정 알려줘", "오늘 원달러 환율 얼마야?", "파일 목록 보여줘", "안녕하세요!"]:
        replies[text] = await orchestrator.handle(request(text, language="ko"), Recorder().progress)
        assert "synthesis" not in llm.purposes(), text
    assert replies["오늘 원달러 환율 얼마야?"].text == "최신 법령에 따르면 연차는 15일 이상입니다."  # passed through untouched
    assert replies["파일 목록 보여줘"].text == "파일 3개: a.pdf, b.pdf, c.pdf"
    assert replies["안녕하세요!"].text.startswith("SYNTHESIZED ANSWER (direct)")
    recorder = Recorder()
    hybrid = await orchestrator.handle(request("우리 연차 규정을 최신 근로기준법과 비교해줘", language="ko"), recorder.progress)
    assert llm.purposes().count("synthesis") == 1
    # A model writing takes a while: its status line is sent (once), before the answer.
    assert [e["message"] for e in recorder.events if e.get("stage") == "synthesis"] == \
        [message("orchestrator.synthesis", "ko")]
    synthesis_call = next(c for c in llm.calls if c.purpose == "synthesis")
    assert synthesis_call.model == "gpt-4o"
    prompt = next(m for p, m in llm.messages if p == "synthesis")
    assert "연차는 입사 첫해 15일입니다." in prompt[1]["content"] and "최신 법령에 따르면" in prompt[1]["content"]
    assert hybrid.data["synthesis"] == "llm" and hybrid.text.startswith("SYNTHESIZED ANSWER")
    # Sources of both steps kept, de-duplicated, and appended when the model dropped them.
    assert {s.get("url") or s.get("file_id") for s in hybrid.data["sources"]} == {WEB_SOURCE["url"], "f-1"}
    assert WEB_SOURCE["url"] in hybrid.text and "guide.pdf" in hybrid.text


async def test_offline_hybrid_is_a_structured_merge_per_agent(scripted: ScriptedAgents) -> None:
    llm = LocalEngine()
    orchestrator = Orchestrator(llm, hub_registry(scripted))
    recorder = Recorder()
    reply = await orchestrator.handle(request("우리 연차 규정을 최신 근로기준법과 비교해줘"), recorder.progress)
    assert reply.data["intent"] == "HYBRID" and reply.data["synthesis"] == "merge"
    # The merge is over at once: no "combining" line, and no "answer ready" line before the answer itself.
    stages = [e.get("stage") for e in recorder.events]
    assert "synthesis" not in stages and "done" not in stages and stages[-1] == "step_done", stages
    assert "### 📄 사내 문서 검색 (internal_rag)" in reply.text and "### 🌐 웹 검색 (web_research)" in reply.text
    assert reply.text.index("연차는 입사 첫해") < reply.text.index("최신 법령에 따르면")
    assert "**출처:**" in reply.text and reply.text.count(WEB_SOURCE["url"]) == 1
    assert all(c.kind == "classify" for c in llm.calls)  # no chat/synthesis call, only classification


async def test_killed_agent_mid_plan_gives_a_partial_answer(scripted: ScriptedAgents,
                                                            victim: ScriptedAgents) -> None:
    agents = {**scripted.registry(internal_rag="rag_ok"), "web_research": victim.remote("victim", "web_research")}
    plans = [IntentPlan(intent="HYBRID", steps=[PlanStep(agent="internal_rag", instruction="i"),
                                                PlanStep(agent="web_research", instruction="w")])]
    orchestrator = Orchestrator(ScriptedLLM(plans), agents, step_timeout_s=120)
    recorder = Recorder()

    def kill_when_started(event: dict) -> None:  # type: ignore[type-arg]
        if event.get("agent") == "web_research" and event.get("stage") == "started":
            os.killpg(victim.child.proc.pid, signal.SIGKILL)

    recorder.hooks.append(kill_when_started)
    reply = await asyncio.wait_for(orchestrator.handle(request("compare", language="en"), recorder.progress), 60)
    steps = {s["agent"]: s for s in reply.data["steps"]}
    assert steps["internal_rag"]["status"] == "ok"
    assert steps["web_research"]["status"] in ("unavailable", "error") and steps["web_research"]["error"]
    assert reply.data["missing"] == ["web_research"] and reply.data["status"] == "ok"
    assert "⚠️ Some results are missing:" in reply.text and "web research (web_research)" in reply.text
    assert "연차는 입사 첫해 15일입니다." in reply.text  # what did arrive is still answered
    assert "Traceback" not in reply.text


async def test_step_timeout_and_failing_agent_are_reported_in_the_users_language(scripted: ScriptedAgents) -> None:
    agents = {**scripted.registry(internal_rag="rag_ok"), "web_research": scripted.remote("slow", "web_research"),
              "report_writing": scripted.remote("failing", "report_writing")}
    plans = [IntentPlan(intent="HYBRID", steps=[PlanStep(agent="internal_rag", instruction="i"),
                                                PlanStep(agent="web_research", instruction="w"),
                                                PlanStep(agent="report_writing", instruction="r")])]
    orchestrator = Orchestrator(ScriptedLLM(plans), agents, step_timeout_s=2)
    reply = await orchestrator.handle(request("우리 규정과 최신 법령 비교 보고서"), Recorder().progress)
    steps = {s["agent"]: s for s in reply.data["steps"]}
    assert steps["web_research"]["status"] == "timeout"
    assert steps["report_writing"]["status"] == "error" and "exploded on purpose" in steps["report_writing"]["error"]
    assert "⚠️ 일부 결과를 가져오지 못했습니다:" in reply.text and "응답 시간 초과" in reply.text
    assert sorted(reply.data["missing"]) == ["report_writing", "web_research"]


async def test_dependent_step_of_a_failed_step_is_skipped_not_hung(scripted: ScriptedAgents) -> None:
    agents = {"internal_rag": scripted.remote("failing", "internal_rag"),
              **scripted.registry(report_writing="report_ok")}
    plan = IntentPlan(intent="FILE_OPERATION", steps=[PlanStep(agent="internal_rag", instruction="i"),
                                                      PlanStep(agent="report_writing", instruction="r",
                                                               depends_on=[0])])
    results = await PlanExecutor(agents).run_plan(plan)
    assert [r.status for r in results] == ["error", "skipped"]
    assert "internal_rag (step 0)" in results[1].error


async def test_unknown_agent_in_an_llm_plan_is_never_called(scripted: ScriptedAgents) -> None:
    plans = [IntentPlan(intent="WEB_SEARCH", steps=[PlanStep(agent="ghost", instruction="g"),
                                                    PlanStep(agent="web_research", instruction="w")])] * 2
    llm = ScriptedLLM(list(plans))
    orchestrator = Orchestrator(llm, hub_registry(scripted))
    recorder = Recorder()
    reply = await orchestrator.handle(request("latest news", language="en"), recorder.progress)
    assert [s["agent"] for s in reply.data["steps"]] == ["web_research"]
    assert not any(e.get("agent") == "ghost" for e in recorder.events)
    assert any("unknown agent 'ghost'" in n for n in reply.data["notes"])
    assert llm.purposes() == ["plan", "plan-retry"]


async def test_bad_input_gets_a_clear_reply(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub_registry(scripted))
    empty = await orchestrator.handle(request("   "), Recorder().progress)
    assert empty.data["status"] == "needs_clarification" and empty.text == message("orchestrator.empty")
    long = await orchestrator.handle(request("가" * 20_001), Recorder().progress)
    assert long.data["status"] == "error" and "20,001" in long.text
    odd = await orchestrator.handle(request("사내 휴가 규정 알려줘", language="fr", history="not a list"),
                                    Recorder().progress)
    assert odd.data["language"] == "ko" and odd.data["status"] == "ok"
    english = await orchestrator.handle(request("   ", language="en"), Recorder().progress)
    assert english.text == message("orchestrator.empty", "en")


async def test_direct_offline_reply_lists_what_the_hub_can_do(scripted: ScriptedAgents) -> None:
    agents = {**hub_registry(scripted), "web_research": scripted.remote("rag_ok", "web_research")}
    agents["file_management"] = type(agents["web_research"])("http://127.0.0.1:9", name="file_management",
                                                              connect_timeout_s=1)
    orchestrator = Orchestrator(LocalEngine(), agents)
    reply = await orchestrator.handle(request("안녕하세요"), Recorder().progress)
    assert reply.data["intent"] == "DIRECT" and reply.data["steps"] == []
    assert "사내 문서(PDF 등)를 검색" in reply.text and "(현재 연결되지 않음)" in reply.text


async def test_input_required_is_passed_up_and_the_next_turn_continues_there(scripted: ScriptedAgents) -> None:
    agents = {**hub_registry(scripted), "file_management": scripted.remote("confirm", "file_management")}
    orchestrator = Orchestrator(LocalEngine(), agents)
    first = await orchestrator.handle(request("중복된 파일 삭제해줘", context_id="ctx-1"), Recorder().progress)
    assert first.state == "input_required" and "삭제할까요" in first.text
    second = await orchestrator.handle(request("예", context_id="ctx-1"), Recorder().progress)
    assert second.data["planner"] == "continuation" and second.data["steps"][0]["agent"] == "file_management"
    received = second.data["steps"][0]
    assert received["status"] == "ok"


async def test_save_this_answer_as_a_report_sends_the_previous_answer(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub_registry(scripted))
    sent: list[dict[str, Any]] = []
    run_plan = orchestrator.executor.run_plan

    async def recording_run_plan(plan: IntentPlan, **kwargs: Any) -> Any:
        sent.append(kwargs["base_data"])
        return await run_plan(plan, **kwargs)

    orchestrator.executor.run_plan = recording_run_plan  # type: ignore[method-assign]
    await orchestrator.handle(request("사내 휴가 규정 알려줘", context_id="ctx-2"), Recorder().progress)
    report = await orchestrator.handle(request("이 답변을 보고서로 저장해줘", context_id="ctx-2"),
                                       Recorder().progress)
    # The question that answer answered travels along: the report's title names it, not the instruction.
    [previous] = sent[-1]["previous_results"]
    assert previous["question"] == "사내 휴가 규정 알려줘" and "연차는 입사 첫해 15일입니다." in previous["text"]
    assert report.data["intent"] == "FILE_OPERATION"
    assert [s["agent"] for s in report.data["steps"]] == ["report_writing"]
    # The report agent echoes what it received: the previous answer came along after "이전 결과:".
    assert report.text.startswith("[report_ok] answer to: 이 답변을 보고서로 저장해줘")
    assert "이전 결과:" in report.text and "연차는 입사 첫해 15일입니다." in report.text


async def test_offline_direct_rework_quotes_the_previous_answer(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub_registry(scripted))
    await orchestrator.handle(request("사내 휴가 규정 알려줘", context_id="ctx-3"), Recorder().progress)
    short = await orchestrator.handle(request("방금 답변을 세 줄로 요약해줘", context_id="ctx-3"), Recorder().progress)
    assert short.data["intent"] == "DIRECT" and short.data["steps"] == []
    assert short.text.startswith(message("orchestrator.previous")) and "- 연차는 입사 첫해 15일입니다." in short.text
    fresh = await orchestrator.handle(request("방금 답변을 세 줄로 요약해줘", context_id="ctx-4"), Recorder().progress)
    assert "사내 문서(PDF 등)를 검색" in fresh.text  # no previous answer in this conversation


async def test_rag_killed_or_hung_mid_request_falls_back_to_the_web(scripted: ScriptedAgents,
                                                                    victim: ScriptedAgents) -> None:
    """A RAG agent that stops answering (SIGSTOP, then SIGKILL) gives the web answer with a notice saying why,
    within its own short step limit (not the general one)."""
    agents = {"internal_rag": victim.remote("victim", "internal_rag"), **scripted.registry(web_research="web_high")}
    orchestrator = Orchestrator(LocalEngine(), agents, step_timeout_s=120, agent_timeouts={"internal_rag": 2})
    recorder = Recorder()

    def stop_when_started(event: dict) -> None:  # type: ignore[type-arg]
        if event.get("agent") == "internal_rag" and event.get("stage") == "started":
            os.killpg(victim.child.proc.pid, signal.SIGSTOP)

    recorder.hooks.append(stop_when_started)
    text = "I2C에서 클럭 스트레칭이 뭐야?"
    reply = await asyncio.wait_for(orchestrator.handle(request(text), recorder.progress), 30)
    assert reply.data["intent"] == "INTERNAL_SEARCH"
    steps = {s["agent"]: s for s in reply.data["steps"]}
    assert steps["internal_rag"]["status"] == "timeout"
    assert steps["web_research"].get("fallback") is True and steps["web_research"]["status"] == "ok"
    assert reply.text.startswith("📄 사내 문서 검색에 실패했습니다(응답 시간 초과")
    assert "🌐 [웹 검색 기반]" in reply.text and "최신 법령에 따르면" in reply.text
    assert any(e.get("stage") == "fallback" and "응답 시간 초과" in e["message"] for e in recorder.events)

    os.killpg(victim.child.proc.pid, signal.SIGKILL)  # now unreachable: the same fallback, in English
    os.killpg(victim.child.proc.pid, signal.SIGCONT)
    reply = await asyncio.wait_for(orchestrator.handle(request("What is clock stretching in I2C?", language="en"),
                                                       Recorder().progress), 30)
    assert reply.data["steps"][0]["status"] in ("unavailable", "error")
    assert reply.text.startswith("📄 The internal document search failed") and "🌐 [Based on web search]" in reply.text
