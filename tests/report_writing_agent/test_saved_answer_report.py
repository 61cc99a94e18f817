""""이 답변을 보고서로 저장해줘" after the RAG agent's quoted answer: a report with a topical title, the
answer's key sentence as its summary, quotes with file and page, no server path — checked in the DOCX
itself (python-docx: heading styles and their order, reference list, date)."""

from __future__ import annotations

import io
from datetime import datetime
from typing import Any

import docx
import pytest

from ai_llm.common.llm import LocalEngine
from ai_llm.report_writing_agent.report_builder import ReportBuilder, topic_from_question
from ai_llm.report_writing_agent.report_render import to_docx, to_markdown
from tests.report_writing_agent.report_inputs import (
    PDF_NAME,
    SAVE_INSTRUCTION,
    VIAL_QUESTION,
    VIAL_SENTENCE,
    WEB_SOURCES,
    saved_answer_results,
)
from tests.structured_llm import StructuredReplies

HEADINGS = {"ko": ("요약", "결론", "참고 문헌", "내부 문서 검색 결과", "작성일", "질문"),
            "en": ("Summary", "Conclusion", "References", "Internal documents", "Date", "Question")}


def _instruction(question: str) -> str:
    return f"{SAVE_INSTRUCTION}\n\n이전 결과:\n[orchestrator] {saved_answer_results(question)[0]['text']}"


def _paragraphs(content: bytes) -> list[tuple[str, str]]:
    return [(p.style.name if p.style is not None else "", p.text) for p in docx.Document(io.BytesIO(content)).paragraphs]


def _under(paragraphs: list[tuple[str, str]], heading: str) -> list[str]:
    """The texts between `heading` (a Heading 1) and the next heading."""
    start = paragraphs.index(("Heading 1", heading)) + 1
    out = []
    for style, text in paragraphs[start:]:
        if style.startswith(("Heading", "Title")):
            break
        out.append(text)
    return out


@pytest.mark.parametrize("language, title_words", [("ko", ("다회용", "바이알", "개봉")),
                                                   ("en", ("Multi-dose", "vial", "opened"))])
async def test_saved_answer_report_has_topic_quote_page_and_real_headings(language: str,
                                                                          title_words: tuple[str, ...]) -> None:
    question = VIAL_QUESTION[language]
    report = await ReportBuilder(LocalEngine()).build(_instruction(question), saved_answer_results(question),
                                                          language)
    summary, conclusion, references, section, date, asked = HEADINGS[language]
    assert all(w in report.title for w in title_words), report.title
    assert "저장" not in report.title and "답변" not in report.title and "save" not in report.title.lower()
    assert VIAL_SENTENCE in report.summary and "Results gathered" not in report.summary
    assert [s.heading for s in report.sections] == [section]
    [quote] = report.sections[0].quotes
    assert quote.text == VIAL_SENTENCE and quote.page == 33 and report.reference(quote.reference).label == PDF_NAME
    sources = [r.to_source() for r in report.references]
    assert sources[0]["page_label"] == "p.33" and "file_url" not in sources[0] and "storage_ref" not in sources[0]

    content = to_docx(report)
    paragraphs = _paragraphs(content)
    headings = [(style, text) for style, text in paragraphs if style.startswith(("Title", "Heading"))]
    assert headings == [("Title", report.title), ("Heading 1", summary), ("Heading 1", section),
                        ("Heading 1", conclusion), ("Heading 1", references)]
    assert any(VIAL_SENTENCE in text for text in _under(paragraphs, summary))
    body = _under(paragraphs, section)
    assert ("Quote", f"“{VIAL_SENTENCE}”") in [(s, t) for s, t in paragraphs] and f"— {PDF_NAME}, p.33 [1]" in body
    reference_list = [(s, t) for s, t in paragraphs[paragraphs.index(("Heading 1", references)) + 1:]]
    assert reference_list == [("List Number", f"{PDF_NAME}, p.33")]
    assert paragraphs[1][1] == f"{date}: {report.created_at:%Y-%m-%d %H:%M}"
    assert paragraphs[2][1] == f"{asked}: {question}"
    assert datetime.now().strftime("%Y-%m-%d") in paragraphs[1][1]
    xml = docx.Document(io.BytesIO(content)).element.xml
    assert "file://" not in xml and "/srv/hub" not in xml
    markdown = to_markdown(report)
    assert "file://" not in markdown and "/srv/hub" not in markdown
    assert f"> {VIAL_SENTENCE}" in markdown and f"1. **{PDF_NAME}**, p.33" in markdown


@pytest.mark.parametrize("question, topic", [
    ("다회용 바이알 개봉 후 사용 기한은?", "다회용 바이알 개봉 후 사용 기한"),
    ("사내 휴가 규정 알려줘", "사내 휴가 규정"),
    ("2026년 인공지능 예산은 얼마인가요?", "2026년 인공지능 예산"),
    ("What is the retention period for audit logs?", "Retention period audit logs"),
])
def test_topic_from_question_keeps_its_key_terms(question: str, topic: str) -> None:
    assert topic_from_question(question) == topic


async def test_the_rag_agents_question_names_a_hybrid_report() -> None:
    previous = saved_answer_results("")
    previous[0].pop("question")
    previous[0]["agent"] = "internal_rag"
    previous[0]["data"]["question"] = VIAL_QUESTION["ko"]
    report = await ReportBuilder(LocalEngine()).build("위 결과로 보고서 작성해줘", previous)
    assert report.title.startswith("다회용 바이알 개봉") and report.title.endswith("보고서")


async def test_web_answers_are_quoted_by_title_and_url() -> None:
    text = ("Hand hygiene prevents infections.\n\n**상세**\n"
            f"- {WEB_SOURCES[0]['title']}에 따르면: Alcohol-based hand rub should be at every point of care. [1]\n"
            f"- {WEB_SOURCES[1]['title']}에 따르면: Surveillance remains limited. [2]\n\n**출처**\n"
            + "\n".join(f"{i}. [{s['title']}]({s['url']})" for i, s in enumerate(WEB_SOURCES, 1)))
    previous = [{"agent": "web_research", "text": text, "data": {"sources": WEB_SOURCES, "question": "손 위생"}}]
    report = await ReportBuilder(LocalEngine()).build("이 답변을 보고서로 저장해줘", previous)
    quotes = report.sections[0].quotes
    assert [(q.text, q.reference) for q in quotes] == [
        ("Alcohol-based hand rub should be at every point of care.", 1), ("Surveillance remains limited.", 2)]
    markdown = to_markdown(report)
    assert f"— {WEB_SOURCES[0]['title']} ({WEB_SOURCES[0]['url']}) [1]" in markdown
    assert "Hand hygiene prevents infections." in report.sections[0].body


async def test_llm_fills_the_same_structure_and_cannot_invent_quotes() -> None:
    question = VIAL_QUESTION["ko"]
    draft: dict[str, Any] = {
        "title": "다회용 바이알 개봉 후 사용 기한", "summary": "개봉한 다회용 바이알은 28일 안에 폐기합니다 [1].",
        "sections": [{"heading": "내부 지침", "body": "지침은 개봉일 표시를 요구합니다 [1].", "references": [1],
                      "quotes": [{"text": VIAL_SENTENCE, "reference": 1, "page": 33},
                                 {"text": "Vials may be kept for a year.", "reference": 1, "page": 33},
                                 {"text": VIAL_SENTENCE, "reference": 4, "page": 33}]}],
        "conclusion": "개봉일을 기록합니다 [1]."}
    llm = StructuredReplies(draft)
    report = await ReportBuilder(llm).build(_instruction(question), saved_answer_results(question))
    assert report.written_by == "llm" and report.title == "다회용 바이알 개봉 후 사용 기한"
    assert [(q.text, q.reference, q.page) for q in report.sections[0].quotes] == [(VIAL_SENTENCE, 1, 33)]
    prompt = llm.prompts[0][1]["content"]
    assert f"Question answered: {question}" in prompt and f"> {VIAL_SENTENCE} [1] (p.33)" in prompt
    assert "file://" not in prompt and "never the request" in llm.prompts[0][0]["content"]
    paragraphs = _paragraphs(to_docx(report))
    assert ("Quote", f"“{VIAL_SENTENCE}”") in paragraphs
