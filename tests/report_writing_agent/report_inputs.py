"""Inputs of the report tests: a HYBRID plan's earlier results built from a real PDF's pages (the RAG
step) and web pages (the web step), and a saved answer ("이 답변을 보고서로 저장해줘" after the RAG agent's
offline answer), in the shape the orchestrator sends (`previous_results`)."""

from __future__ import annotations

from typing import Any

from pypdf import PdfReader

from tests.conftest import eval_pdf

PDF_NAME = "cdc_outpatient_infection_prevention_guide.pdf"
WEB_SOURCES = [
    {"type": "web", "url": "https://www.who.int/news-room/fact-sheets/detail/hand-hygiene",
     "title": "Hand hygiene fact sheet", "score": 0.91, "published_at": "2026-05-05"},
    {"type": "web", "url": "https://example.org/outpatient-ipc-news", "title": "Outpatient IPC news", "score": 0.74},
]


def hybrid_results() -> list[dict[str, Any]]:
    reader = PdfReader(eval_pdf(PDF_NAME))
    pages = {n: " ".join((reader.pages[n - 1].extract_text() or "").split()) for n in (5, 6, 7)}
    rag_text = (f"{pages[5][:900]} {pages[6][:900]}\n\n**출처:**\n- **{PDF_NAME}** (p.5–6)\n  파일 위치: /api/files/f1/download")
    rag_sources = [
        {"type": "file", "file_name": PDF_NAME, "file_id": "f1", "storage_ref": "local://f1.pdf", "pages": [5, 6],
         "page_label": "p.5–6", "file_url": "/api/files/f1/download", "score": 0.82},
        {"type": "file", "file_name": PDF_NAME, "file_id": "f1", "storage_ref": "local://f1.pdf", "pages": [7],
         "page_label": "p.7", "file_url": "/api/files/f1/download", "score": 0.7},
    ]
    web_text = ("Hand hygiene is the single most effective measure to prevent infections in health care. "
                "Outpatient clinics should provide alcohol-based hand rub at every point of care. "
                "Surveillance of infections in outpatient settings remains limited.\n\nSources:\n"
                "- Hand hygiene fact sheet")
    return [
        {"agent": "internal_rag", "text": rag_text, "data": {"status": "ok", "sources": rag_sources}},
        {"agent": "web_research", "text": web_text, "data": {"status": "ok", "sources": WEB_SOURCES}},
    ]


def expected_reference_texts() -> list[str]:
    return [PDF_NAME, "p.5–7", *[s["url"] for s in WEB_SOURCES]]


VIAL_SENTENCE = ("Multi-dose vials are dated by HCP when they are first opened and discarded within 28 days unless "
                 "the manufacturer specifies a different (shorter or longer) date for that opened vial.")
VIAL_QUESTION = {"ko": "다회용 바이알을 개봉한 후 얼마나 오래 사용할 수 있나요?",
                 "en": "Once a multi-dose vial has been opened, how long can we keep using it?"}
SAVE_INSTRUCTION = "이 답변을 보고서로 저장해줘"


def saved_answer_results(question: str) -> list[dict[str, Any]]:
    """The orchestrator's `previous_results` for "save this answer as a report" after the RAG agent's
    offline answer to `question` (page 33 of the CDC guide), indexed from a server path (`file://`)."""
    text = (f"📄 [사내 문서 기반]\n\n문서에서 찾은 답변입니다:\n\n> {VIAL_SENTENCE}\n> — {PDF_NAME}, p.33\n\n"
            f"**출처:**\n- **{PDF_NAME}** (p.33)")
    source = {"type": "file", "file_name": PDF_NAME, "file_id": None, "pages": [33], "page_label": "p.33",
              "storage_ref": f"/srv/hub/pdfs/{PDF_NAME}", "file_url": f"file:///srv/hub/pdfs/{PDF_NAME}",
              "score": 0.81, "agent": "internal_rag"}
    return [{"agent": "orchestrator", "text": text, "question": question, "data": {"sources": [source]}}]
