"""Routing as a new user meets it: the real orchestrator process plans with the real RAG agent's catalog of the
four shared PDFs (uploaded through the backend), for the messages the routing issue names, and for follow-ups
in Korean and English."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.evals.backend.hub import OfflineHub, upload_and_wait
from tests.conftest import eval_pdf

PDFS = ["cdc_outpatient_infection_prevention_guide.pdf", "infineon_i2c_protocol_v2.02.pdf",
        "lewis2020_rag_paper_arxiv2005.11401.pdf", "ko_mohw_health_bigdata_platform_pilot_plan_2017.pdf"]


@pytest.fixture(scope="module")
async def orchestrator(real_hub: OfflineHub) -> AsyncIterator[RemoteAgent]:
    async with httpx.AsyncClient(base_url=real_hub.backend_url, timeout=300) as http:
        records = [await upload_and_wait(http, eval_pdf(name)) for name in PDFS]
        yield RemoteAgent(real_hub.urls["orchestrator"], timeout_s=180, name="orchestrator")
        for record in records:
            await http.delete(f"/api/files/{record['id']}")


async def _ask(agent: RemoteAgent, text: str, context_id: str | None = None) -> Any:
    return await agent.ask(text, context_id=context_id or str(uuid.uuid4()))


@pytest.mark.parametrize("message", [
    "What does the CDC outpatient guide say about how long an opened multi-dose vial can be used?",
    "What BLEU score did RAG get on WMT14 English-German?",
    "I2C에서 클럭 스트레칭이 뭐야?",
    "CDC 가이드에서 다회용 바이알은 개봉 후 며칠까지 쓸 수 있어?",
])
async def test_questions_about_indexed_documents_go_to_the_documents(orchestrator: RemoteAgent, message: str) -> None:
    reply = await _ask(orchestrator, message)
    assert reply.data["intent"] == "INTERNAL_SEARCH", (message, reply.data.get("classification"))
    assert "I can:" not in reply.text and "할 수 있습니다:" not in reply.text  # never the capability text


@pytest.mark.parametrize(("first", "follow_up"), [
    ("I2C 프로토콜에서 클럭 스트레칭은 어떻게 동작해?", "그럼 최대 클럭 속도는?"),
    ("What does the CDC guide say about multi-dose vials?", "what about single-dose vials?"),
])
async def test_a_follow_up_keeps_the_conversation_on_the_documents(orchestrator: RemoteAgent, first: str,
                                                                   follow_up: str) -> None:
    conversation = str(uuid.uuid4())
    opening = await _ask(orchestrator, first, conversation)
    assert opening.data["intent"] == "INTERNAL_SEARCH"
    reply = await _ask(orchestrator, follow_up, conversation)
    assert reply.data["intent"] == "INTERNAL_SEARCH", reply.data.get("classification")
    assert "I can:" not in reply.text and "할 수 있습니다:" not in reply.text
