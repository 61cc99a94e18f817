"""Report structure offline and with a scripted LLM; rendering to Markdown and DOCX."""

from __future__ import annotations

import io
import re

import docx
import pytest

from ai_llm.common.a2a.server import AgentRequest, Progress, free_port
from ai_llm.common.llm import LLMError, LocalEngine
from ai_llm.common.messages import message
from ai_llm.common.text import split_sentences
from ai_llm.report_writing_agent.agent import ReportAgent
from ai_llm.report_writing_agent.file_store_client import FileStoreClient
from ai_llm.report_writing_agent.report_builder import (
    CONTEXT_BUDGET_CHARS,
    SECTION_BUDGET_CHARS,
    ReportBuilder,
    topic_of,
)
from ai_llm.report_writing_agent.report_render import to_docx, to_markdown
from tests.report_writing_agent.report_inputs import (
    PDF_NAME,
    WEB_SOURCES,
    expected_reference_texts,
    hybrid_results,
)
from tests.structured_llm import StructuredReplies

INSTRUCTION = "외래 감염 예방 hand hygiene 결과를 바탕으로 보고서 작성해줘"


def _docx_text(content: bytes) -> str:
    document = docx.Document(io.BytesIO(content))
    return "\n".join(p.text for p in document.paragraphs)


async def test_offline_hybrid_report_cites_documents_and_web_pages() -> None:
    previous = hybrid_results()
    report = await ReportBuilder(LocalEngine()).build(INSTRUCTION, previous)
    assert report.written_by == "offline" and not report.empty
    assert [r.type for r in report.references] == ["file", "web", "web"]
    pdf_ref = report.references[0]
    assert pdf_ref.label == PDF_NAME and pdf_ref.page_label == "p.5–7"  # one file cited twice: pages merged
    assert [r.url for r in report.references[1:]] == [s["url"] for s in WEB_SOURCES]
    assert [s.heading for s in report.sections] == ["내부 문서 검색 결과", "웹 조사 결과"]
    assert report.sections[0].body.endswith("[1]") and report.sections[1].body.endswith("[2][3]")
    assert "출처" not in report.sections[0].body and "Sources:" not in report.sections[1].body
    # Offline prose only quotes the inputs: every summary sentence is in an input.
    inputs = " ".join(" ".join(r["text"].split()) for r in previous)
    assert report.summary
    for sentence in split_sentences(report.summary):
        assert " ".join(sentence.split()) in inputs
    markdown = to_markdown(report)
    document = _docx_text(to_docx(report))
    for text in expected_reference_texts():
        assert text in markdown and text in document
    assert re.search(r"^## 참고 문헌$", markdown, re.M) and "p.5–7" in document
    assert "/api/files/" not in markdown and "/api/files/" not in document  # a file is cited by name and page
    # The closing line names what the report quotes, not how many steps it had.
    assert report.conclusion.startswith("이 보고서의 내용은") and f"{PDF_NAME} (p.5–7)" in report.conclusion
    assert WEB_SOURCES[0]["title"] in report.conclusion and "단계" not in report.conclusion
    assert report.title.endswith("보고서") and "작성해줘" not in report.title


async def test_empty_inputs_give_a_nothing_to_report_report() -> None:
    for previous in ([], [{"agent": "internal_rag", "text": "  ", "data": {"status": "no_result"}}]):
        report = await ReportBuilder(LocalEngine()).build("보고서 작성해줘", previous)
        assert report.empty and report.sections == [] and "보고할 내용이 없습니다" in report.summary
        assert "보고할 내용이 없습니다" in _docx_text(to_docx(report))
    english = await ReportBuilder(LocalEngine()).build("write a report", [], language="en")
    assert "nothing to report" in english.summary


async def test_long_inputs_are_condensed_within_the_budget() -> None:
    filler = " ".join(f"Routine filler sentence number {i} about scheduling." for i in range(6000))
    key = "Needle disposal containers must be replaced when three quarters full."
    previous = [{"agent": "internal_rag", "text": f"{filler} {key} {filler}",
                 "data": {"sources": [{"type": "file", "file_name": "big.pdf", "pages": [3]}]}}]
    assert len(previous[0]["text"]) > 10 * CONTEXT_BUDGET_CHARS
    offline = await ReportBuilder(LocalEngine()).build("needle disposal containers report", previous)
    assert len(offline.sections[0].body) <= SECTION_BUDGET_CHARS + 10
    assert key in offline.sections[0].body  # the relevant sentence survives condensing
    llm = StructuredReplies({"title": "t", "summary": "s [1]", "sections": [{"heading": "h", "body": "b [1]"}],
                       "conclusion": "c"})
    await ReportBuilder(llm).build("needle disposal containers report", previous)
    prompt = "\n".join(m["content"] for m in llm.prompts[0])
    assert len(prompt) < CONTEXT_BUDGET_CHARS + 2000 and key in prompt


async def test_llm_writes_prose_from_the_inputs_and_cannot_add_sources() -> None:
    draft = {"title": "외래 감염 예방 보고서", "summary": "손 위생이 핵심입니다 [2]. 근거 없는 주장 [9].",
             "sections": [{"heading": "내부 지침", "body": "지침은 표준 예방 조치를 요구합니다 [1].", "references": [1, 7]},
                          {"heading": "웹", "body": "손 소독제 비치가 권고됩니다 [2][3].", "references": [2, 3]}],
             "conclusion": "표준 예방 조치와 손 위생을 지킵니다 [1][2]."}
    llm = StructuredReplies(draft)
    report = await ReportBuilder(llm).build(INSTRUCTION, hybrid_results())
    assert report.written_by == "llm" and len(llm.prompts) == 1
    assert "[9]" not in report.summary and "[2]" in report.summary
    assert report.sections[0].references == [1]
    assert [r.label for r in report.references] == [PDF_NAME, *[s["title"] for s in WEB_SOURCES]]
    prompt = llm.prompts[0][1]["content"]
    assert "Hand hygiene is the single most effective measure" in prompt
    assert all(s["url"] in prompt for s in WEB_SOURCES) and "invent no facts" in llm.prompts[0][0]["content"]

    fallback = await ReportBuilder(StructuredReplies(LLMError("scripted outage"))).build(INSTRUCTION, hybrid_results())
    assert fallback.written_by == "offline" and len(fallback.references) == 3


@pytest.mark.parametrize("instruction, topic", [
    ("외래 감염 예방에 대한 보고서 작성해줘", "외래 감염 예방"),
    ("외래 감염 예방과 손 위생에 대한 보고서 작성해줘", "외래 감염 예방과 손 위생"),
    ("write a report on hand hygiene", "hand hygiene"),
    ("이 답변을 보고서로 저장해줘", ""),  # no subject of its own: the title comes from the question
    ("save this answer as a report", ""),
    ("위 결과로 보고서 작성해줘", ""),
])
def test_topic_is_the_subject_without_request_words(instruction: str, topic: str) -> None:
    assert topic_of(instruction) == topic


async def test_unreachable_file_store_still_returns_the_report() -> None:
    agent = ReportAgent(ReportBuilder(LocalEngine()), FileStoreClient(f"http://127.0.0.1:{free_port()}"))
    reply = await agent(AgentRequest(text=INSTRUCTION, data={"previous_results": hybrid_results()}),
                        Progress("report_writing"))
    assert reply.data["status"] == "error" and reply.data["files"] == []
    # The person reads what happened and what to do (the catalog's words), never the connection error's text.
    assert reply.data["error"] == message("report.save_failed_detail", "ko") and "127.0.0.1" not in reply.text
    assert WEB_SOURCES[0]["url"] in reply.text
    assert "## 참고 문헌" in reply.text  # the whole Markdown report is in the answer


def test_the_closing_line_names_the_first_sources_and_counts_the_rest() -> None:
    from ai_llm.report_writing_agent.report_builder import Reference, basis

    refs = [Reference(i, "web", f"Page {i}", f"https://example.org/{i}") for i in range(1, 6)]
    assert basis(refs, "en") == "Everything in this report is quoted from Page 1, Page 2, Page 3 and 2 more source(s)."
    assert basis(refs[:1], "ko") == "이 보고서의 내용은 Page 1에서 인용했습니다."
    assert "출처가 표시되지 않았습니다" in basis([], "ko")


def test_quotes_from_slides_sheets_and_articles_keep_their_source_and_location() -> None:
    from ai_llm.report_writing_agent.report_builder import Reference, parse_answer

    deck = Reference(1, "file", "q3.pptx", "/api/files/d/download", [],
                     {"type": "file", "file_name": "q3.pptx", "pages": [], "page_label": "슬라이드 2"})
    rule = Reference(2, "file", "여비규정.hwpx", "/api/files/r/download", [],
                     {"type": "file", "file_name": "여비규정.hwpx", "pages": [], "page_label": "제2장 > 제2조(일비)"})
    text = ("문서에서 찾은 답변입니다:\n\n> Revenue grew 12 percent.\n> — q3.pptx, 슬라이드 2\n\n"
            "> 일비는 하루 3만 원이다.\n> — 여비규정.hwpx, 제2장 > 제2조(일비)\n")
    _, quotes = parse_answer(text, [deck, rule], [])
    assert [(q.text, q.reference) for q in quotes] == [("Revenue grew 12 percent.", 1), ("일비는 하루 3만 원이다.", 2)]
    assert deck.cite() == "q3.pptx, 슬라이드 2" and deck.to_source()["page_label"] == "슬라이드 2"
