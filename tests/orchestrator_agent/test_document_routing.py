"""Questions reach what answers them: the probe of the person's own index before planning (over the session's
real Postgres, the document indexed by the real RAG agent), the web step that falls back to the documents,
reports planned with retrieval before them, and follow-ups whose rewrite is searched, never shown, while a new
question is not merged with the previous one (real A2A agents in a child process)."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from ai_llm.common.a2a.server import AgentRequest
from ai_llm.common.identity import Viewer
from ai_llm.common.llm import LocalEngine
from ai_llm.common.messages import message
from ai_llm.common.runtime import HubDeps
from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.common.store.db import Database
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.vector_store import PgVectorStore
from ai_llm.orchestrator_agent.agent import Orchestrator
from ai_llm.orchestrator_agent.planner import (
    PROBE_MIN_COVERAGE,
    PROBE_MIN_SCORE,
    OfflineClassifier,
    Planner,
    offline_plan,
)
from ai_llm.orchestrator_agent.probe import DocumentProbe
from ai_llm.orchestrator_agent.registry import AgentInfo
from tests.orchestrator_agent.conftest import ScriptedAgents
from tests.orchestrator_agent.helpers import Recorder

AGENTS = {name: AgentInfo(name, True) for name in ("internal_rag", "web_research", "file_management",
                                                    "report_writing")}


@dataclass
class OwnDocument:
    project: str
    code: str
    owner: str
    probe: DocumentProbe


@pytest.fixture
async def own_document(deps: HubDeps, db: Database) -> AsyncIterator[OwnDocument]:
    """A person's private text file, indexed by the real RAG agent: a project's launch code (names nobody else
    uses, so no other test's documents match)."""
    tag = uuid.uuid4().hex[:8]
    project, code, owner = f"Quillon{tag}", f"QX-{tag.upper()}", f"owner-{tag}"
    text = (f"Rollout notes of Project {project}.\nThe launch code of Project {project} is {code}. It is entered "
            "by the release captain when the launch window opens.\nThe launch window opens on 14 April at 06:00.\n")
    agent = RagAgent(PgVectorStore(db, deps.settings.rag_ef_search), deps.embeddings, deps.llm, deps.settings)
    ref = f"probe-{tag}.txt"
    [indexed] = await agent.indexing.index_many([DocumentInput(
        storage_ref=ref, file_name=f"rollout_{tag}.txt", content_b64=base64.b64encode(text.encode()).decode(),
        owner_id=owner, visibility="private")])
    assert indexed.status == "success", indexed

    async def open_db() -> Database:
        return db

    try:
        yield OwnDocument(project, code, owner, DocumentProbe(open_db))
    finally:
        await db.execute("DELETE FROM document_chunks WHERE storage_ref = %s", (ref,))


async def test_the_probe_turns_a_question_about_ones_own_document_to_the_documents(own_document: OwnDocument) -> None:
    question = f"What is the launch code of Project {own_document.project}?"
    owner, other = Viewer(user_id=own_document.owner), Viewer(user_id="someone-else")
    mine = await own_document.probe.probe(question, owner)
    assert mine is not None and mine.file_name.startswith("rollout_")
    assert mine.score >= PROBE_MIN_SCORE and mine.coverage >= PROBE_MIN_COVERAGE, mine
    assert own_document.project.lower() in mine.terms
    # Another person may not read the chunk: the probe finds nothing of it for them.
    theirs = await own_document.probe.probe(question, other)
    assert theirs is not None and theirs.score < PROBE_MIN_SCORE and not theirs.file_name.startswith("rollout_")

    planner = Planner(LocalEngine(), OfflineClassifier())
    without = await planner.plan(question, AGENTS)
    assert without.plan.intent == "WEB_SEARCH"  # phrased without the file's name, the catalog cannot tell
    planned = await planner.plan(question, AGENTS, probe=mine)
    assert planned.plan.intent == "INTERNAL_SEARCH" and planned.plan.steps[0].agent == "internal_rag"
    assert planned.decision is not None and planned.decision.probe is mine
    assert "documents hold its terms" in planned.decision.rule
    assert (await planner.plan(question, AGENTS, probe=theirs)).plan.intent == "WEB_SEARCH"
    # A web question sharing one word with the document stays on the web: the document lacks its named things.
    news = "When is the next SpaceX rocket launch?"
    probe = await own_document.probe.probe(news, owner)
    assert (await planner.plan(news, AGENTS, probe=probe)).plan.intent == "WEB_SEARCH"


async def test_an_unreachable_index_plans_without_the_probe() -> None:
    async def broken() -> Database:
        raise OSError("connection refused")

    probe = DocumentProbe(broken)
    assert await probe.probe("What is the launch code of Project Falcon?", Viewer.all_documents()) is None
    assert await probe.probe("what", Viewer.all_documents()) is not None  # no telling term: nothing to ask


def hub(scripted: ScriptedAgents, rag: str, web: str) -> dict:  # type: ignore[type-arg]
    return scripted.registry(internal_rag=rag, web_research=web, file_management="file_ok",
                             report_writing="report_ok")


async def test_a_web_outage_falls_back_to_the_documents_and_says_so(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub(scripted, "rag_ok", "web_outage"))
    recorder = Recorder()
    reply = await orchestrator.handle(AgentRequest(text="오늘 원달러 환율 알려줘"), recorder.progress)
    assert reply.data["intent"] == "WEB_SEARCH"
    notice = recorder.events[recorder.index(stage="fallback")]["message"]
    assert notice.startswith("🌐 웹 검색을 사용할 수 없습니다(")
    assert recorder.index(stage="fallback") < recorder.index(agent="internal_rag", stage="started")
    assert reply.text.startswith(message("orchestrator.web_fallback_answer"))
    assert message("orchestrator.rag_prefix") in reply.text and "연차는 입사 첫해 15일입니다." in reply.text
    assert reply.data["status"] == "ok"
    assert [(s["agent"], s["status"]) for s in reply.data["steps"]] == [("web_research", "error"),
                                                                         ("internal_rag", "ok")]
    assert reply.data["steps"][1]["fallback"] is True and reply.data["sources"][0]["file_name"] == "guide.pdf"


async def test_an_empty_web_step_asks_the_documents_and_keeps_its_reply_when_they_have_nothing(
        scripted: ScriptedAgents) -> None:
    found = await Orchestrator(LocalEngine(), hub(scripted, "rag_ok", "web_none")).handle(
        AgentRequest(text="What is the exchange rate of the won today?"), Recorder().progress)
    assert found.data["status"] == "ok" and found.text.startswith(message("orchestrator.web_fallback_answer", "en"))
    nothing = await Orchestrator(LocalEngine(), hub(scripted, "rag_none", "web_none")).handle(
        AgentRequest(text="오늘 원달러 환율 알려줘"), Recorder().progress)
    assert nothing.data["status"] == "no_result" and nothing.text == "관련 있는 웹 결과를 찾지 못했습니다."
    assert [s["agent"] for s in nothing.data["steps"]] == ["web_research", "internal_rag"]


def test_a_report_on_a_topic_plans_retrieval_before_it() -> None:
    classifier = OfflineClassifier()

    def agents_of(text: str) -> list[tuple[str, list[int]]]:
        plan = offline_plan(classifier.classify_sync(text), text, AGENTS)
        assert plan.intent == "FILE_OPERATION", (text, plan)
        return [(s.agent, s.depends_on) for s in plan.steps]

    assert agents_of("부장 해외출장 숙박비 한도를 정리한 보고서를 만들어줘") == [
        ("internal_rag", []), ("report_writing", [0])]
    assert agents_of("Write a report on the on-call escalation rules") == [
        ("internal_rag", []), ("report_writing", [0])]
    assert agents_of("최신 뉴스로 AI 규제 동향 보고서 작성해줘") == [
        ("internal_rag", []), ("web_research", []), ("report_writing", [0, 1])]
    # A report of the answer already given searches nothing.
    assert agents_of("이 답변을 보고서로 저장해줘") == [("report_writing", [])]
    assert agents_of("Save this answer as a report") == [("report_writing", [])]


async def test_a_report_is_written_from_the_documents_or_the_web_when_they_have_nothing(
        scripted: ScriptedAgents) -> None:
    text = "출장비 지급 기준을 정리한 보고서를 만들어줘"
    recorder = Recorder()
    reply = await Orchestrator(LocalEngine(), hub(scripted, "rag_ok", "web_high")).handle(
        AgentRequest(text=text), recorder.progress)
    assert [(s["agent"], s["status"]) for s in reply.data["steps"]] == [("internal_rag", "ok"),
                                                                         ("report_writing", "ok")]
    # The report step ran after the documents' answer, on it (the scripted report echoes what it was given).
    assert recorder.index(agent="internal_rag", stage="step_done") < recorder.index(agent="report_writing",
                                                                                    stage="step_start")
    assert "연차는 입사 첫해 15일입니다." in reply.text
    assert not any(e.get("agent") == "web_research" for e in recorder.events)  # the documents had it: no web

    empty = Recorder()
    fallback = await Orchestrator(LocalEngine(), hub(scripted, "rag_none", "web_high")).handle(
        AgentRequest(text=text), empty.progress)
    assert [(s["agent"], s["status"]) for s in fallback.data["steps"]] == [
        ("internal_rag", "no_result"), ("report_writing", "ok"), ("web_research", "ok")]
    assert empty.index(stage="fallback") < empty.index(agent="web_research", stage="started") \
        < empty.index(agent="report_writing", stage="started")
    assert "최신 법령에 따르면" in fallback.text and fallback.data["status"] == "ok"


def test_a_new_question_is_not_merged_with_the_previous_one() -> None:
    planner = Planner(LocalEngine(), OfflineClassifier())
    pairs = [json.loads(line) for line in
             (PROJECT_ROOT / "benchmarks" / "data" / "followup_pairs_dev.jsonl").read_text("utf-8").splitlines()]
    right = sum(planner.refers_back(p["message"], p["previous"]) == p["refers_back"] for p in pairs)
    assert right / len(pairs) >= 0.9, right  # 29 of 30 (the cue alone: 22)
    previous = "부장이 해외출장으로 미국에 가면 숙박비 한도가 얼마야?"
    assert planner.refers_back("과장은?", previous) and planner.refers_back("그럼 일본은?", previous)
    assert not planner.refers_back("동호회 지원금은?", previous)


async def test_the_rewrite_of_a_follow_up_is_searched_never_shown(scripted: ScriptedAgents) -> None:
    orchestrator = Orchestrator(LocalEngine(), hub(scripted, "rag_ok", "web_high"))
    first = await orchestrator.handle(AgentRequest(text="부장이 해외출장으로 미국에 가면 숙박비 한도가 얼마야?",
                                                   context_id="ctx-follow"), Recorder().progress)
    assert first.data["intent"] == "INTERNAL_SEARCH"
    recorder = Recorder()
    follow = await orchestrator.handle(AgentRequest(text="과장은?", context_id="ctx-follow"), recorder.progress)
    searched = follow.data["question"]
    assert searched != "과장은?" and "숙박비" in searched and searched.endswith("과장은?")
    assert all(searched not in str(e["message"]) for e in recorder.events)  # no status line shows the rewrite
    assert searched not in follow.text
    fresh = await orchestrator.handle(AgentRequest(text="동호회 지원금은?", context_id="ctx-follow"),
                                      Recorder().progress)
    assert fresh.data["question"] == "동호회 지원금은?"
