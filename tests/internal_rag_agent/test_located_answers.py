"""Answers from slides, sheets and HWP articles, through the real agent, embedded Postgres and embedding
server: each quote is cited where a person finds it (slide, sheet rows, article), as text and as data."""

from __future__ import annotations

import base64
from pathlib import Path

from ai_llm.common.a2a.server import AgentRequest
from ai_llm.common.store.db import Database
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from tests.internal_rag_agent.conftest import unique_ref
from tests.internal_rag_agent.documents import make_deck, make_regulation, make_workbook


async def test_quotes_carry_the_slide_the_sheet_rows_and_the_article(rag_agent: RagAgent, db: Database,
                                                                      tmp_path: Path) -> None:
    refs = {"deck": unique_ref("deck"), "sheet": unique_ref("sheet"), "rule": unique_ref("rule")}
    files = {"deck": ("q3_review.pptx", make_deck()), "sheet": ("budget.xlsx", make_workbook()),
             "rule": ("여비규정.hwpx", make_regulation(tmp_path / "rule.hwpx").read_bytes())}
    results = await rag_agent.indexing.index_many([
        DocumentInput(refs[key], name, file_id=key, file_url=f"/api/files/{key}/download",
                      content_b64=base64.b64encode(data).decode()) for key, (name, data) in files.items()])
    assert [r.status for r in results] == ["success"] * 3
    stored = await db.fetch("SELECT DISTINCT location FROM document_chunks WHERE storage_ref = %s", (refs["deck"],))
    assert sorted(r["location"]["slide"] for r in stored) == [1, 2]
    try:
        cases = [
            ("How much did revenue grow over the quarter?", "deck", {"kind": "slide", "slide": 1,
                                                                     "title": "Quarterly results"}, "슬라이드 1"),
            ("국내 출장 일비는 하루 얼마인가요?", "rule", {"kind": "heading", "heading": "제2장 여비 > 제2조(일비)"},
             "제2장 여비 > 제2조(일비)"),
        ]
        for question, key, location, label in cases:
            state = await rag_agent.run_state(AgentRequest(text=question, data={"language": "ko"}))
            reply = state["reply"]
            assert reply.data["status"] == "ok", question
            top = reply.data["sources"][0]
            assert top["file_id"] == key and top["pages"] == [] and location in top["locations"]
            assert label in top["page_label"]
            quote = reply.data["quotes"][0]
            assert quote["file_id"] == key and quote["location"] == location and quote["label"] == label
            assert quote["text"] in reply.text and f"— {files[key][0]}, {label}" in reply.text
        state = await rag_agent.run_state(AgentRequest(text="예산에서 비고가 검토인 항목은?", data={"language": "ko"}))
        data = state["reply"].data
        # The row is the reader's best sentence; whether it answers is the reader's call (this question sits at
        # its threshold): quoted, or named as the closest place, the row is located the same way.
        assert state["evidence"].quotes[0].text == "항목: 항목33; 금액: 33000; 비고: 검토"
        if data["status"] == "ok":
            quotes = [q for q in data["quotes"] if q["file_id"] == "sheet"]
            assert quotes and quotes[0]["location"]["sheet"] == "예산"
            assert "항목: 항목33; 금액: 33000; 비고: 검토" in quotes[0]["text"] and quotes[0]["label"] == "예산!34 (항목33)"
        else:
            assert data["closest"]["file_name"] == "budget.xlsx" and data["closest"]["label"] == "예산!34 (항목33)"
            assert "budget.xlsx" in state["reply"].text and "항목33" not in state["reply"].text
    finally:
        for ref in refs.values():
            await rag_agent.indexing.delete(ref)
