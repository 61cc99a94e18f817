"""End to end with the real internal-RAG agent process on the embedded Postgres: a real PDF uploaded
through the file agent is indexed, searchable, renamed (chunks follow) and deleted (gone from search
and from the chunk table)."""

from __future__ import annotations

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.runtime import HubDeps
from tests.conftest import AgentProcesses, eval_pdf
from tests.file_management_agent.conftest import clear_records, file_agent, first_pages

PDF = "lewis2020_rag_paper_arxiv2005.11401.pdf"
QUESTION = "What does retrieval-augmented generation combine with a pre-trained seq2seq model?"


async def _chunks(deps: HubDeps, storage_ref: str) -> list[dict]:
    assert deps.db is not None
    return await deps.db.fetch("SELECT file_name, file_id, file_url FROM document_chunks WHERE storage_ref = %s",
                               (storage_ref,))


async def test_upload_index_search_rename_delete(agent_processes: AgentProcesses, deps: HubDeps) -> None:
    await clear_records(deps.db)
    rag = agent_processes.start("rag", "ai_llm.internal_rag_agent")
    search = RemoteAgent(rag.url or "", name="internal_rag", timeout_s=180)
    data = first_pages(eval_pdf(PDF), 3)
    async with file_agent(deps, rag_agent_url=rag.url) as agent:
        created = (await agent.upload("RAG 논문.pdf", data)).json()
        record = await agent.wait_indexed(created["id"])
        assert record["index_status"] == "indexed", record["index_error"]
        rows = await _chunks(deps, created["storage_ref"])
        assert len(rows) == record["chunks"] > 0
        assert {(r["file_name"], r["file_id"], r["file_url"]) for r in rows} == \
            {("RAG 논문.pdf", created["id"], created["download_url"])}

        found = await search.ask(QUESTION, data={"skill": "search_documents", "language": "en"})
        assert found.status == "ok"
        assert created["id"] in {s.get("file_id") for s in found.sources}

        renamed = await agent.http.patch(f"/files/{created['id']}", json={"name": "lewis2020 RAG.pdf"})
        assert renamed.status_code == 200
        assert {r["file_name"] for r in await _chunks(deps, created["storage_ref"])} == {"lewis2020 RAG.pdf"}
        found = await search.ask(QUESTION, data={"skill": "search_documents", "language": "en"})
        assert "lewis2020 RAG.pdf" in {s.get("file_name") for s in found.sources if s.get("file_id") == created["id"]}

        deleted = await agent.http.delete(f"/files/{created['id']}")
        assert deleted.status_code == 200 and deleted.json()["deleted_chunks"] == record["chunks"]
        assert await _chunks(deps, created["storage_ref"]) == []
        gone = await search.ask(QUESTION, data={"skill": "search_documents", "language": "en"})
        assert created["id"] not in {s.get("file_id") for s in gone.sources}
