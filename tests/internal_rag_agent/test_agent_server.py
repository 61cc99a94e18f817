"""The RAG agent as a real process over real A2A HTTP: card, streamed indexing stages, a page-cited answer,
a follow-up in the same A2A context, and the file agent's delete skill."""

from __future__ import annotations

import base64

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import AgentReply, StatusEvent
from tests.conftest import AgentProcesses
from tests.internal_rag_agent.conftest import make_pdf, unique_ref

PAGES = ["Onboarding guide for new engineers.\nLaptops are issued on the first day by the IT desk.",
         "VPN access requires the ticket code NET-4471 and manager approval.\nAccess is granted within 2 days."]


async def test_index_search_follow_up_and_delete_over_a2a(agent_processes: AgentProcesses) -> None:
    child = agent_processes.start("internal_rag", "ai_llm.internal_rag_agent")
    assert child.url is not None
    agent = RemoteAgent(child.url, name="internal_rag", timeout_s=120)
    card = await agent.card()
    assert card.name == "internal_rag"
    assert {s.id for s in card.skills} == {"search_documents", "index_document", "delete_document",
                                           "update_document"}

    ref = unique_ref("a2a")
    doc = {"storage_ref": ref, "file_name": "onboarding.pdf", "file_id": "f-1", "file_url": "/api/files/f-1/download",
           "content_b64": base64.b64encode(make_pdf(PAGES)).decode()}
    events: list[StatusEvent] = []
    reply: AgentReply | None = None
    async for item in agent.stream("이 파일을 색인해줘", data={"skill": "index_document", "documents": [doc]}):
        if isinstance(item, StatusEvent):
            events.append(item)
        else:
            reply = item
    assert reply is not None and reply.state == "completed"
    assert reply.data["status"] == "ok"
    assert reply.data["results"] == [{"storage_ref": ref, "file_name": "onboarding.pdf", "status": "success",
                                      "chunks": reply.data["results"][0]["chunks"], "reason": None,
                                      "elapsed_ms": reply.data["results"][0]["elapsed_ms"], "notices": [],
                                      "ocr_pages": 0, "parse_ms": reply.data["results"][0]["parse_ms"],
                                      "code": None}]
    stages = [e.stage for e in events]
    assert stages.index("parsing") < stages.index("embedding") < stages.index("saving")
    assert any("조각" in e.message for e in events if e.stage == "saving")

    answer = await agent.ask("Which ticket code do I need for VPN access?")
    assert answer.data["status"] == "ok"
    source = answer.data["sources"][0]
    assert source["file_name"] == "onboarding.pdf" and 2 in source["pages"] and source["file_id"] == "f-1"
    assert "NET-4471" in answer.text and "**출처:**" in answer.text
    assert f"- **onboarding.pdf** ({source['page_label']})" in answer.text

    follow = await agent.ask("How long does it take to get it?", context_id=answer.context_id)
    assert follow.data["status"] == "ok"
    assert "vpn" in follow.data["context"][0].lower()  # searched with the earlier question as context

    again = await agent.ask("다시 색인해줘", data={"skill": "index_document", "documents": [doc]})
    assert again.data["results"][0]["status"] == "skipped"

    deleted = await agent.ask("색인에서 삭제해줘", data={"skill": "delete_document", "storage_ref": ref})
    assert deleted.data["status"] == "ok" and deleted.data["deleted_chunks"] == reply.data["results"][0]["chunks"]
    gone = await agent.ask("Which ticket code do I need for VPN access?")
    assert all(s["storage_ref"] != ref for s in gone.data.get("sources", []))
