"""Fixtures for the internal-RAG tests: the agent over the session's real Postgres and embedding server, and
PDF builders (reportlab for text PDFs, pypdf for encrypted / image-only ones), and a reader of chosen weights."""

from __future__ import annotations

import io
import uuid

import numpy as np
import pytest
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from ai_llm.common.runtime import HubDeps
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.reader.model import FEATURES, ReaderModel
from ai_llm.internal_rag_agent.vector_store import PgVectorStore


def make_pdf(pages: list[str]) -> bytes:
    """A real text PDF, one string per page (lines split on newlines)."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    for text in pages:
        y = 800
        for line in text.splitlines():
            pdf.drawString(50, y, line)
            y -= 14
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def make_encrypted_pdf(password: str = "s3cret-pass") -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(["Quarterly budget is 42 million won."]))))
    writer.encrypt(user_password=password, owner_password=password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_image_only_pdf() -> bytes:
    """A PDF whose pages hold only drawings (like a scan): no extractable text."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    for _ in range(2):
        pdf.rect(100, 100, 300, 400, fill=1)
        pdf.circle(250, 600, 80, fill=0)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def unique_ref(prefix: str = "test") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def linear_reader(weights: dict[str, float], threshold: float = 0.5, bias: float = 0.0) -> ReaderModel:
    """A logistic reader of chosen weights over the reader's features (no standardising), for reading tests."""
    w = np.zeros((len(FEATURES), 1))
    for name, value in weights.items():
        w[FEATURES.index(name), 0] = value
    return ReaderModel(FEATURES, np.zeros(len(FEATURES)), np.ones(len(FEATURES)), [(w, np.asarray([bias]))],
                       threshold=threshold, band=(0.3, 0.7), design="logistic")


@pytest.fixture
async def rag_agent(deps: HubDeps) -> RagAgent:
    assert deps.db is not None
    return RagAgent(PgVectorStore(deps.db, deps.settings.rag_ef_search), deps.embeddings, deps.llm, deps.settings)
