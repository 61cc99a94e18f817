"""The LangGraph agent in process, over the real Postgres and embedding server with the offline engine:
multi-query with one batched embedding call, hybrid Korean retrieval, no-result by score, the
contextualize node with and without history, page-cited sources, and the delete/update skills."""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.degraded import collect_degraded
from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.llm import CallRecord, LLMError, LocalEngine
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.answer import GroundedAnswer, page_label
from ai_llm.internal_rag_agent.answer_extraction import find_evidence
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.question import StandaloneQuestion, is_context_dependent, strip_artifacts
from ai_llm.internal_rag_agent.rag_search_service import OTHER_DOCUMENT_FACTOR, QueryPlan, rule_queries
from ai_llm.internal_rag_agent.vector_store import PgVectorStore
from tests.conftest import EMBEDDING_MODEL
from tests.internal_rag_agent.conftest import make_pdf, unique_ref

TRAVEL_PAGES = [
    "Travel policy of the platform team.\nExpense claims must be filed within 14 days after the trip ends.\n"
    "Receipts are required for every expense above 20 dollars.",
    "Hotel costs are reimbursed up to 150 dollars per night.\nThe approval code for business travel is TRV-2291.",
]
KOREAN_TEXT = ("# 보안 점검 지침\n\n서버접근기록은매월첫째주에점검하며,점검결과는정보보호위원회에보고한다.\n"
               "비밀번호는90일마다변경해야한다.")


class Corpus:
    def __init__(self, refs: dict[str, str]) -> None:
        self.refs = refs


@pytest.fixture(scope="module")
async def corpus(pg_url: str, embedding_server: str) -> AsyncIterator[Corpus]:
    settings = Settings(database_url=pg_url, embedding_url=embedding_server, _env_file=None)  # type: ignore[call-arg]
    embeddings = OpenAIEmbeddings(embedding_server, EMBEDDING_MODEL)
    db = await Database(pg_url).open()
    agent = RagAgent(PgVectorStore(db), embeddings, LocalEngine(), settings)
    refs = {"travel": unique_ref("travel"), "security": unique_ref("security")}
    results = await agent.indexing.index_many([
        DocumentInput(refs["travel"], "travel_policy.pdf", file_url="/api/files/t1/download", file_id="t1",
                      content_b64=base64.b64encode(make_pdf(TRAVEL_PAGES)).decode()),
        DocumentInput(refs["security"], "보안지침.md", file_url="/api/files/s1/download", file_id="s1",
                      content_b64=base64.b64encode(KOREAN_TEXT.encode()).decode()),
    ])
    assert [r.status for r in results] == ["success", "success"]
    yield Corpus(refs)
    for ref in refs.values():
        await agent.indexing.delete(ref)
    await db.close()
    await embeddings.close()


async def ask(agent: RagAgent, text: str, **data: Any) -> Any:
    events: list[dict[str, Any]] = []

    async def progress(message: str, **info: Any) -> None:
        events.append({"message": message, **info})

    state = await agent.run_state(AgentRequest(text=text, data=data), progress)
    return state, events


async def test_english_question_is_answered_with_page_cited_sources(rag_agent: RagAgent, corpus: Corpus) -> None:
    state, events = await ask(rag_agent, "How many days do I have to file expense claims after a trip?")
    reply = state["reply"]
    assert reply.data["status"] == "ok"
    top = reply.data["sources"][0]
    assert top["file_name"] == "travel_policy.pdf" and top["storage_ref"] == corpus.refs["travel"]
    assert 1 in top["pages"] and top["page_label"].startswith("p.1") and top["file_id"] == "t1"
    assert 0 < top["score"] <= 1 and reply.data["max_score"] >= top["score"]
    # The answer quotes the whole sentence that answers first, with its file and page (cited once after the last
    # quote from the same place), then the sources.
    quoted = reply.text.split("\n\n", 1)[1]
    assert quoted.startswith("> Expense claims must be filed within 14 days after the trip ends.\n"), reply.text
    assert quoted.split("\n\n")[0].endswith("\n> — travel_policy.pdf, p.1"), reply.text
    assert "**출처:**" in reply.text and "- **travel_policy.pdf** (p.1" in reply.text
    assert "파일 위치: /api/files/t1/download" in reply.text
    # Offline nothing is rewritten and the answer is quoted at once: neither gets a status line.
    assert [e["stage"] for e in events] == ["searching"]
    assert reply.data["queries"] == ["How many days do I have to file expense claims after a trip?"]


async def test_multi_query_embeds_all_queries_in_one_call(rag_agent: RagAgent, corpus: Corpus) -> None:
    embeddings = rag_agent.embeddings
    assert isinstance(embeddings, OpenAIEmbeddings)
    service = rag_agent.search_service
    queries = rule_queries("What is the approval code for business travel?")  # the offline multi-query
    assert len(queries) == 4 and len(set(queries)) == 4
    before = embeddings.calls
    outcome = await service.search("What is the approval code for business travel?", queries=queries)
    assert embeddings.calls - before == 1
    keys = [c.key for c in outcome.chunks]
    assert len(keys) == len(set(keys)) and len(keys) <= rag_agent.settings.rag_top_k
    assert outcome.chunks[0].hit.storage_ref == corpus.refs["travel"] and 2 in outcome.chunks[0].hit.pages


async def test_korean_question_is_found_by_keyword_fusion(rag_agent: RagAgent, corpus: Corpus) -> None:
    state, _ = await ask(rag_agent, "비밀번호는 며칠마다 바꿔야 하나요?")
    reply = state["reply"]
    assert reply.data["status"] == "ok"
    assert reply.data["sources"][0]["file_name"] == "보안지침.md"
    assert "90일" in reply.text.replace(" ", "")


async def test_unrelated_questions_come_back_no_result(rag_agent: RagAgent, corpus: Corpus) -> None:
    for question in ("What's the torque spec for a Tesla Model 3 wheel?", "김치찌개 맛있게 끓이는 방법 좀 알려줘"):
        state, _ = await ask(rag_agent, question)
        reply = state["reply"]
        assert reply.data["status"] == "no_result", (question, reply.data)
        assert reply.data["sources"] == [] and reply.data["max_score"] < rag_agent.settings.rag_min_evidence
        assert "찾지 못했습니다" in reply.text


async def test_a_version_no_document_holds_comes_back_no_result_and_says_which(rag_agent: RagAgent,
                                                                              corpus: Corpus) -> None:
    """The travel policy answers about hotel costs, but not about a version of it that no document has."""
    state, _ = await ask(rag_agent, "How much are hotel costs reimbursed per night?", language="en")
    assert state["reply"].data["status"] == "ok"
    state, _ = await ask(rag_agent, "How much are hotel costs reimbursed per night in travel policy 7.3.1?",
                         language="en")
    reply = state["reply"]
    assert reply.data["status"] == "no_result" and reply.data["unknown"] == ["7.3.1"]
    assert "7.3.1" in reply.text and reply.data["sources"] == []


async def test_contextualize_rewrites_a_follow_up_with_history(rag_agent: RagAgent, corpus: Corpus) -> None:
    history = [{"role": "user", "text": "What does the travel policy say about hotel costs?"},
               {"role": "agent", "text": "Hotel costs are reimbursed up to 150 dollars per night."}]
    state, _ = await ask(rag_agent, "And what is the approval code for it?", history=history)
    # Offline the question stays as asked; the earlier question and answer join the search as context.
    assert state["context_dependent"] and not state["rewritten"]
    assert state["context"][0] == history[0]["text"] and "150 dollars" in state["context"][1]
    assert state["reply"].data["status"] == "ok"
    assert "TRV-2291" in state["reply"].text


async def test_an_llm_rewrites_a_follow_up_into_a_standalone_question(deps: Any, corpus: Corpus) -> None:
    history = [{"role": "user", "text": "What does the travel policy say about hotel costs?"},
               {"role": "agent", "text": "Hotel costs are reimbursed up to 150 dollars per night."}]
    llm = ScriptedLLM()
    agent = RagAgent(PgVectorStore(deps.db), deps.embeddings, llm, deps.settings)  # type: ignore[arg-type]
    state, _ = await ask(agent, "And what is the approval code for it?", history=history)
    assert state["rewritten"] and state["question"] == "What is the approval code for business travel?"
    assert "rag_contextualize" in [c.purpose for c in llm.calls]
    assert "TRV-2291" in state["reply"].text


async def test_follow_up_stays_on_the_conversation_document(rag_agent: RagAgent, corpus: Corpus) -> None:
    """The earlier question is searched alone to find the conversation's document; the follow-up's search
    then ranks other documents' chunks at `OTHER_DOCUMENT_FACTOR` of their relevance."""
    history = [{"role": "user", "text": "서버 접근기록은 언제 점검해?"}, {"role": "agent", "text": "매월 첫째 주입니다."}]
    state, _ = await ask(rag_agent, "그럼 비밀번호는?", history=history)
    assert state["document"] == corpus.refs["security"]
    assert state["reply"].data["sources"][0]["storage_ref"] == corpus.refs["security"]
    plain, _ = await ask(rag_agent, "What is the approval code for business travel?")
    assert plain.get("document") is None  # not a follow-up: no document is preferred
    service = rag_agent.search_service
    question = "How many days, and what is the approval code?"
    free = {c.key: c.relevance for c in (await service.search(question)).chunks}
    kept = await service.search(question, document=corpus.refs["security"])
    assert kept.chunks and any(c.hit.storage_ref != corpus.refs["security"] for c in kept.chunks)
    for chunk in kept.chunks:
        if chunk.key in free:
            factor = 1.0 if chunk.hit.storage_ref == corpus.refs["security"] else OTHER_DOCUMENT_FACTOR
            assert chunk.relevance == pytest.approx(free[chunk.key] * factor, abs=1e-3)


async def test_follow_up_without_history_asks_to_restate(rag_agent: RagAgent, corpus: Corpus) -> None:
    state, _ = await ask(rag_agent, "그것에 대해 좀 더 자세히 알려줘")
    assert state["context_dependent"] and not state["rewritten"]
    assert state["reply"].data["status"] == "needs_clarification"
    assert "다시 말씀해 주세요" in state["reply"].text


async def test_wrapped_history_artifacts_are_stripped_and_used(rag_agent: RagAgent, corpus: Corpus) -> None:
    text = ("[이전 대화]\nuser: 서버 접근기록 점검 주기가 어떻게 돼?\nagent: 매월 첫째 주에 점검합니다.\n"
            "[현재 질문]\n그 점검 결과는 어디에 보고해?\n이전 결과:\n(web) 관련 없음")
    question, history = strip_artifacts(text)
    assert question == "그 점검 결과는 어디에 보고해?" and history[0]["role"] == "user"
    state, _ = await ask(rag_agent, text)
    assert "[현재 질문]" not in state["question"] and "이전 결과" not in state["question"]
    assert state["context_dependent"] and state["context"][0] == "서버 접근기록 점검 주기가 어떻게 돼?"
    assert state["reply"].data["status"] == "ok"
    assert "정보보호위원회" in state["reply"].text.replace(" ", "")


def test_reference_detection_and_page_labels() -> None:
    assert is_context_dependent("방금 말한 규정 다시 알려줘") and is_context_dependent("Can you explain that?")
    assert not is_context_dependent("What protocol does the bus use that supports clock stretching at 400 kHz")
    assert not is_context_dependent("2024년 법인세율 인상 계획은?")
    assert page_label([13, 14, 15]) == "p.13–15" and page_label([8, 3, 7]) == "p.3, 7–8" and page_label([5]) == "p.5"


async def test_delete_and_update_skills(rag_agent: RagAgent, db: Database) -> None:
    ref = unique_ref("skill")
    data = base64.b64encode(b"Quarterly revenue grew by 12 percent.").decode()
    state, events = await ask(rag_agent, "", skill="index_document",
                              documents=[{"storage_ref": ref, "file_name": "q.txt", "content_b64": data}])
    assert state["reply"].data["results"][0]["status"] == "success"
    assert [e["stage"] for e in events] == ["parsing", "embedding", "saving"]
    state, _ = await ask(rag_agent, "", skill="update_document", storage_ref=ref, file_name="q2.txt",
                         file_url="/api/files/q2/download")
    assert state["reply"].data == {"status": "ok", "updated_chunks": 1}
    row = await db.fetchone("SELECT file_name, file_url FROM document_chunks WHERE storage_ref = %s", (ref,))
    assert row == {"file_name": "q2.txt", "file_url": "/api/files/q2/download"}
    state, _ = await ask(rag_agent, "", skill="delete_document", storage_ref=ref)
    assert state["reply"].data == {"status": "ok", "deleted_chunks": 1}
    assert await db.fetchone("SELECT 1 FROM document_chunks WHERE storage_ref = %s", (ref,)) is None
    state, _ = await ask(rag_agent, "", skill="delete_document")
    assert state["reply"].data["status"] == "error"


class ScriptedLLM:
    """An OpenAI-style model for tests: returns scripted structured output and records calls.

    `answerable` scripts the answer step's judgement (the passages state the answer, or only the topic).
    """

    def __init__(self, answerable: bool = True, answer: str = "The approval code is TRV-2291 [{n}].") -> None:
        self.calls: list[CallRecord] = []
        self.answerable = answerable
        self.answer = answer
        self.passages = ""

    async def stream_parse(self, messages: Sequence[dict[str, str]], schema: type, **kw: Any) -> Any:
        """The structured reply as a model streams it: growing partial objects, then the whole one."""
        whole = await self.parse(messages, schema, **kw)
        dumped = whole.model_dump()
        for cut in (len(dumped["answer"]) // 3, 2 * len(dumped["answer"]) // 3):
            yield {"answerable": dumped["answerable"], "answer": dumped["answer"][:cut]}
        yield whole

    async def chat(self, messages: Sequence[dict[str, str]], **_: Any) -> str:
        raise AssertionError("the answer step asks for a structured judgement, not free text")

    async def parse(self, messages: Sequence[dict[str, str]], schema: type, **_: Any) -> Any:
        self.calls.append(CallRecord("parse", "scripted", str(_.get("purpose", "")), 0.0))
        if schema is GroundedAnswer:
            self.passages = messages[-1]["content"]
            if not self.answerable:
                return GroundedAnswer(answerable=False)
            number = next(m.group(1) for m in re.finditer(r"\[(\d)\] \(([^)]*)\) ([^\[]*)", self.passages)
                          if "TRV-2291" in m.group(3))
            return GroundedAnswer(answerable=True, answer=self.answer.format(n=number), cited=[int(number)])
        if schema is StandaloneQuestion:
            return StandaloneQuestion(question="What is the approval code for business travel?")
        assert schema is QueryPlan
        return QueryPlan(rewrite="business travel approval code",
                         variants=["travel approval code", "TRV code for trips", "code approving travel"])


async def test_online_llm_writes_the_variants_and_the_answer(deps: Any, corpus: Corpus) -> None:
    llm = ScriptedLLM()
    agent = RagAgent(PgVectorStore(deps.db), deps.embeddings, llm, deps.settings)  # type: ignore[arg-type]
    before = deps.embeddings.calls
    state, _ = await ask(agent, "Which code approves business trips?")
    # One batched call embeds the question and every variant; the candidate sentences are weighed with their
    # stored line vectors and that call's question vector, so there is no second call.
    assert deps.embeddings.calls - before == 1
    assert state["reply"].data["queries"] == ["Which code approves business trips?", "business travel approval code",
                                              "travel approval code", "TRV code for trips", "code approving travel"]
    reply = state["reply"]
    assert reply.text.startswith("The approval code is TRV-2291 [")
    assert reply.data["status"] == "ok" and reply.data["judged_by"] == "llm" and reply.data["answer_by"] == "llm"
    # The model's answer is followed by the evidence it stands on, quoted as offline, then the sources: the
    # evidence's and the passage the model cited, the one that holds the code.
    offline, _ = await ask(RagAgent(PgVectorStore(deps.db), deps.embeddings, LocalEngine(), deps.settings),
                           "Which code approves business trips?")
    quoted = [line for line in offline["reply"].text.splitlines() if line.startswith("> ")]
    assert quoted and all(line in reply.text.splitlines() for line in quoted)
    assert "travel_policy.pdf" in [s["file_name"] for s in reply.data["sources"]]
    assert [c.purpose for c in llm.calls] == ["rag_query_variants", "rag_generate"]


async def test_the_answer_streams_to_the_a2a_progress_as_the_model_writes_it(deps: Any, corpus: Corpus) -> None:
    """Each growing piece of the model's answer goes to `Progress.stream_answer`; the reply starts with it."""
    agent = RagAgent(PgVectorStore(deps.db), deps.embeddings, ScriptedLLM(), deps.settings)  # type: ignore[arg-type]
    sent: list[dict[str, Any]] = []

    async def sink(payload: dict[str, Any], _message: str) -> None:
        sent.append(payload)

    progress = Progress("internal_rag", sink=sink)
    reply = await agent.run(AgentRequest(text="Which code approves business trips?", data={"language": "en"}),
                            progress)
    deltas = [p["delta"] for p in sent if p.get("stage") == "answer_delta"]
    assert len(deltas) >= 2 and reply.text.startswith("".join(deltas))
    assert "".join(deltas) == progress.streamed and "TRV-2291" in progress.streamed


async def test_the_model_never_takes_an_answer_away(deps: Any, corpus: Corpus) -> None:
    """The evidence answers; the model says the passages do not: the quoted evidence still answers (a model adds
    to answers, it does not remove them), and its judgement is recorded."""
    llm = ScriptedLLM(answerable=False)
    agent = RagAgent(PgVectorStore(deps.db), deps.embeddings, llm, deps.settings)  # type: ignore[arg-type]
    state, _ = await ask(agent, "Which code approves business trips?")
    reply = state["reply"]
    assert "TRV-2291" in llm.passages  # the model was shown the evidence's passage
    assert reply.data["status"] == "ok" and "TRV-2291" in reply.text
    assert reply.data["model_answerable"] is False and reply.data["answer_by"] == "evidence"


async def test_a_draft_stating_a_number_from_elsewhere_is_not_used(deps: Any, corpus: Corpus) -> None:
    """The model writes a number no passage states ("valid for 30 days"): the quoted evidence answers."""
    llm = ScriptedLLM(answer="The approval code is TRV-2291 [{n}], valid for 30 days.")
    agent = RagAgent(PgVectorStore(deps.db), deps.embeddings, llm, deps.settings)  # type: ignore[arg-type]
    state, _ = await ask(agent, "Which code approves business trips?")
    reply = state["reply"]
    assert reply.data["unsupported_numbers"] == ["30"] and reply.data["answer_by"] == "evidence"
    assert "30 days" not in reply.text and "TRV-2291" in reply.text


async def test_a_question_the_evidence_cannot_answer_is_not_sent_to_the_model(deps: Any, corpus: Corpus) -> None:
    llm = ScriptedLLM()
    agent = RagAgent(PgVectorStore(deps.db), deps.embeddings, llm, deps.settings)  # type: ignore[arg-type]
    state, _ = await ask(agent, "What is the airspeed velocity of an unladen swallow?")
    assert state["reply"].data["status"] == "no_result"
    assert "rag_generate" not in [c.purpose for c in llm.calls]


async def test_a_failed_answer_call_falls_back_to_the_offline_evidence(deps: Any, corpus: Corpus) -> None:
    class Failing(ScriptedLLM):
        async def stream_parse(self, messages: Sequence[dict[str, str]], schema: type, **kw: Any) -> Any:
            raise LLMError("model unavailable")
            yield None

    agent = RagAgent(PgVectorStore(deps.db), deps.embeddings, Failing(), deps.settings)  # type: ignore[arg-type]
    with collect_degraded() as skipped:
        state, _ = await ask(agent, "Which code approves business trips?")
    reply = state["reply"]
    assert reply.data["status"] == "ok" and "TRV-2291" in reply.text and "judged_by" not in reply.data
    assert "llm_answer" in skipped


async def test_a_generated_report_never_outranks_the_document_it_quotes(rag_agent: RagAgent) -> None:
    original, report = unique_ref("orig"), unique_ref("report")
    sentence = "Badge photos are retaken every four years at the security desk in building C."
    docs = [DocumentInput(original, "badge_policy.txt", content_b64=base64.b64encode(
                f"Badge policy. {sentence} Lost badges cost 20 dollars.".encode()).decode()),
            DocumentInput(report, "report_badges.md", source_kind="report", content_b64=base64.b64encode(
                f"# Report: badge photos\n\nSummary: {sentence}".encode()).decode())]
    assert [r.status for r in await rag_agent.indexing.index_many(docs)] == ["success", "success"]
    try:
        state, _ = await ask(rag_agent, "How often are badge photos retaken?")
        reply = state["reply"]
        assert reply.data["status"] == "ok" and sentence in reply.text
        assert reply.data["sources"][0]["storage_ref"] == original
        assert all(q.chunk.hit.storage_ref == original for q in state["evidence"].quotes if sentence in q.text)
    finally:
        for ref in (original, report):
            await rag_agent.indexing.delete(ref)


ARTICLE = ("# 행정절차법 일부개정법률안\n\n제46조의4(행정예고 통계와 확인 등) ① 행정청은 매년 자신이 행한 행정예고의 "
           "실시현황과 그 결과에 관한 통계를 작성하고 이를 관보·공보나 인터넷 등의 방법으로 널리 공고하여야 한다.\n"
           "③ 행정안전부장관은 제2항에 따른 확인·점검 및 평가의 결과 행정예고에 소극적이거나 행정예고제도의 운용 "
           "상태가 불량하다고 판단되는 경우 국무총리에게 시정에 필요한 조치를 건의할 수 있다.\n")


async def test_an_english_question_about_a_korean_document_is_judged_across_languages(rag_agent: RagAgent) -> None:
    """Too few of the question's words have a Korean rendering in the glossary for word coverage to decide, so
    only the cross-lingual model can say the Korean article answers (by its sentence cosine, and by the words it
    renders); an English question on another topic stays unanswered."""
    ref = unique_ref("article")
    [result] = await rag_agent.indexing.index_many([DocumentInput(
        ref, "행정절차법_개정안.md", content_b64=base64.b64encode(ARTICLE.encode()).decode())])
    assert result.status == "success"
    try:
        question = ("Under the administrative procedure amendment, to whom may the Minister of the Interior and "
                    "Safety recommend corrective measures when an agency runs its pre-announcements poorly?")
        state, _ = await ask(rag_agent, question)
        evidence, settings, outcome = state["evidence"], rag_agent.settings, state["outcome"]
        alone = find_evidence(question, outcome.query_terms, outcome.stats, outcome.chunks)
        assert not alone.lexical(settings.rag_min_evidence, settings.rag_min_question_coverage)
        assert evidence.cross_similarity >= settings.rag_min_cross_similarity
        reply = state["reply"]
        assert reply.data["status"] == "ok" and reply.data["sources"][0]["file_name"] == "행정절차법_개정안.md"
        assert "국무총리에게 시정에 필요한 조치를 건의할 수 있다" in reply.text
        state, _ = await ask(rag_agent, "What's the torque spec for a Tesla Model 3 wheel?")
        assert state["reply"].data["status"] == "no_result"
        assert state["evidence"].cross_similarity < settings.rag_min_cross_similarity
    finally:
        await rag_agent.indexing.delete(ref)


async def test_warm_up_loads_what_a_first_question_would_wait_for(rag_agent: RagAgent) -> None:
    """The server warms the agent before it reports ready: the multilingual sentence encoder of cross-language
    reading is loaded (a fresh agent has none), and the reader model with it."""
    from ai_llm.internal_rag_agent.reader.model import load_model

    assert rag_agent.cross_judge._model is None
    rag_agent.warm_up()
    assert rag_agent.cross_judge._model is not None
    assert load_model.cache_info().currsize >= 1


async def test_a_reports_retrieval_gathers_what_the_documents_say_on_the_topic(rag_agent: RagAgent,
                                                                                corpus: Corpus) -> None:
    """An answer quotes the sentence that answers and what scores close to it; a report's retrieval
    (`breadth: "report"`, sent by the orchestrator for a report's steps) quotes what the documents say on the topic:
    more of the travel policy's rules, not only the best one."""
    question = "Summarise the travel policy's rules on expenses and hotels"
    answer, _ = await ask(rag_agent, question)
    report, _ = await ask(rag_agent, question, breadth="report")
    said = [q["text"] for q in report["reply"].data["quotes"]]
    assert report["reply"].data["status"] == "ok"
    assert len(said) > len(answer["reply"].data["quotes"]), (said, answer["reply"].data["quotes"])
    facts = ("14 days", "20 dollars", "150 dollars")
    assert sum(any(f in s for s in said) for f in facts) >= 2, said
