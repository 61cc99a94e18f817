"""Inputs of the report tests: a HYBRID plan's earlier results built from a real PDF's pages (the RAG
step) and web pages (the web step), in the shape the orchestrator sends (`previous_results`)."""

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
    return [PDF_NAME, "/api/files/f1/download", *[s["url"] for s in WEB_SOURCES]]
