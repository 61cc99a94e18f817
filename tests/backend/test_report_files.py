"""A report as its person finds it through the backend, with accounts on: real processes of the backend, the file
agent, the report agent and a RAG-contract test agent, on the session's Postgres. The report is one file record of
the asker's (the Markdown, with the DOCX as its other format, each downloadable through `/api/files/{id}/download`),
private, kept out of the index until its person adds it with `POST /api/files/{id}/index` (another person: 404 while
it is private, 403 once shared; 409 when it is in the documents already); then it answers searches like an upload;
a delete removes both formats."""

from __future__ import annotations

import asyncio
import io
import uuid
from collections.abc import Iterator
from pathlib import Path

import docx
import httpx
import pytest

from ai_llm.common import identity
from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.store.db import Database
from backend.accounts import AccountStore
from tests.backend.conftest import TEAM_HUB_ADMIN_PASSWORD
from tests.conftest import AgentProcesses
from tests.file_management_agent.conftest import clear_records
from tests.report_writing_agent.report_inputs import hybrid_results

TOKEN = "report-files-test-token"


@pytest.fixture
def hub(pg_url: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    procs = AgentProcesses({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "data"), "HUB_TOKEN": TOKEN},
                           tmp_path / "logs")
    try:
        rag = procs.start("rag", "tests.file_management_agent.rag_test_agent", {"HUB_TOKEN": ""})
        files = procs.start("files", "ai_llm.file_management_agent", {"RAG_AGENT_URL": rag.url or ""})
        reports = procs.start("reports", "ai_llm.report_writing_agent", {"FILE_AGENT_URL": files.url or ""})
        backend = procs.start("backend", "backend", {"FILE_AGENT_URL": files.url or "",
                                                     "ORCHESTRATOR_URL": rag.url or "",
                                                     "HUB_ADMIN_PASSWORD": TEAM_HUB_ADMIN_PASSWORD}, "/api/health")
        yield {"rag": rag.url or "", "reports": reports.url or "", "backend": backend.url or ""}
    finally:
        procs.stop_all()


async def _person(db: Database, http: httpx.AsyncClient, name: str) -> str:
    user = await AccountStore(db).create_user(name, f"{name}-password")
    response = await http.post("/api/login", json={"username": name, "password": f"{name}-password"})
    assert response.status_code == 200, response.text
    return str(user["id"])


async def test_a_report_is_one_record_added_to_the_documents_by_its_person(hub: dict[str, str],
                                                                           db: Database) -> None:
    await clear_records(db)
    suffix = uuid.uuid4().hex[:6]
    async with httpx.AsyncClient(base_url=hub["backend"], timeout=60) as alice, \
            httpx.AsyncClient(base_url=hub["backend"], timeout=60) as bob:
        alice_id = await _person(db, alice, f"alice-{suffix}")
        await _person(db, bob, f"bob-{suffix}")
        # As the orchestrator asks it: the report is written for the signed person.
        signed = identity.issue(TOKEN, "report_writing", alice_id, f"alice-{suffix}")
        reply = await RemoteAgent(hub["reports"], token=TOKEN, name="report_writing").ask(
            "외래 감염 예방과 손 위생에 대한 보고서 작성해줘",
            data={"skill": "write_report", "previous_results": hybrid_results()},
            metadata={identity.METADATA_KEY: signed})
        assert reply.status == "ok", reply.text
        [entry] = reply.data["files"]
        file_id = entry["id"]

        [record] = (await alice.get("/api/files")).json()
        assert record["id"] == file_id and record["owner_id"] == alice_id and record["visibility"] == "private"
        assert record["index_status"] == "not_indexed" and record["source_kind"] == "report"
        assert [(a["format"], a["download_url"]) for a in record["alternates"]] == [
            ("docx", f"/api/files/{file_id}/download?format=docx")]
        markdown = await alice.get(f"/api/files/{file_id}/download")
        assert markdown.status_code == 200 and markdown.headers["content-type"].startswith("text/markdown")
        word = await alice.get(f"/api/files/{file_id}/download", params={"format": "docx"})
        assert word.status_code == 200 and word.headers["content-type"].endswith("wordprocessingml.document")
        assert docx.Document(io.BytesIO(word.content)).paragraphs[0].text == reply.data["title"]
        assert (await alice.get(f"/api/files/{file_id}/download", params={"format": "pdf"})).status_code == 404
        assert (await alice.get(f"/api/files/{file_id}/download", params={"format": "../x"})).status_code == 422

        # Another person: the private report is unknown to them, its other format too; shared, it is not theirs
        # to add.
        assert (await bob.get(f"/api/files/{file_id}/download", params={"format": "docx"})).status_code == 404
        assert (await bob.post(f"/api/files/{file_id}/index")).status_code == 404
        assert (await alice.patch(f"/api/files/{file_id}", json={"visibility": "everyone"})).status_code == 200
        refused = await bob.post(f"/api/files/{file_id}/index")
        assert refused.status_code == 403 and refused.headers["x-hub-error"] == "forbidden"
        assert (await alice.post(f"/api/files/{uuid.uuid4()}/index")).status_code == 404

        rag = RemoteAgent(hub["rag"], name="internal_rag")
        found = await rag.ask("hand hygiene", data={"skill": "search_documents"})
        assert file_id not in {s.get("file_id") for s in found.data.get("sources") or []}
        added = await alice.post(f"/api/files/{file_id}/index")
        assert added.status_code == 202 and added.json()["index_status"] == "indexing"
        for _ in range(200):
            record = (await alice.get(f"/api/files/{file_id}")).json()
            if record["index_status"] != "indexing":
                break
            await asyncio.sleep(0.1)
        assert record["index_status"] == "indexed" and record["chunks"] > 0
        again = await alice.post(f"/api/files/{file_id}/index")
        assert again.status_code == 409 and again.headers["x-hub-error"] == "already_indexed"
        found = await rag.ask("hand hygiene", data={"skill": "search_documents"})
        assert file_id in {s.get("file_id") for s in found.data.get("sources") or []}

        assert (await alice.delete(f"/api/files/{file_id}")).status_code == 204
        for params in ({}, {"format": "docx"}):
            assert (await alice.get(f"/api/files/{file_id}/download", params=params)).status_code == 404
