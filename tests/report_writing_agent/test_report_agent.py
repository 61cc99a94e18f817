"""The report agent as a real process: writes a HYBRID report, saves it through a real file-agent process as
one file record (the Markdown, with the DOCX as its other format; tagged `source_kind: report`, not indexed by the
real RAG-contract agent process until the person adds it), links both formats for download."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import docx
import httpx
import pytest

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.store.db import Database
from ai_llm.hub.process import Child, stop_child
from tests.conftest import AgentProcesses
from tests.file_management_agent.conftest import clear_records, start_test_rag
from tests.report_writing_agent.report_inputs import PDF_NAME, expected_reference_texts, hybrid_results


@pytest.fixture
def test_rag(tmp_path: Path) -> Iterator[Child]:
    child = start_test_rag(tmp_path / "rag-logs")
    yield child
    stop_child(child)


async def test_report_is_saved_listed_and_downloadable(agent_processes: AgentProcesses, test_rag: Child,
                                                      db: Database) -> None:
    await clear_records(db)
    files = agent_processes.start("files", "ai_llm.file_management_agent", env={"RAG_AGENT_URL": test_rag.url or ""})
    reports = agent_processes.start("report", "ai_llm.report_writing_agent", env={"FILE_AGENT_URL": files.url or ""})
    agent = RemoteAgent(reports.url or "", name="report_writing")
    events = []

    async def on_status(event: object) -> None:
        events.append(event)

    reply = await agent.ask("외래 감염 예방과 손 위생에 대한 보고서 작성해줘\n\n이전 결과:\n(생략)",
                            data={"skill": "write_report", "previous_results": hybrid_results()}, on_status=on_status)
    assert reply.status == "ok", reply.text
    assert [e.stage for e in events] == ["writing", "saving"]
    # One file record holds the report: the Markdown, with the DOCX as its other format; the reply links both.
    [report] = reply.data["files"]
    assert report["name"].endswith(".md") and report["download_url"] == f"/api/files/{report['id']}/download"
    assert [(f["format"], f["download_url"]) for f in report["formats"]] == [
        ("md", f"/api/files/{report['id']}/download"), ("docx", f"/api/files/{report['id']}/download?format=docx")]
    assert report["formats"][1]["name"] == report["name"][:-3] + ".docx"
    for f in report["formats"]:
        assert f"[{f['name']}]({f['download_url']})" in reply.text
    assert {s["type"] for s in reply.data["sources"]} == {"file", "web"}
    assert reply.data["sources"][0]["file_name"] == PDF_NAME and reply.data["sources"][0]["page_label"] == "p.5–7"
    async with httpx.AsyncClient(base_url=files.url or "", timeout=30) as http:
        [listed] = (await http.get("/files")).json()
        assert listed["id"] == report["id"] and listed["content_type"].startswith("text/markdown")
        assert [a["format"] for a in listed["alternates"]] == ["docx"]
        assert listed["alternates"][0]["content_type"].endswith("wordprocessingml.document")
        docx_bytes = (await http.get(f"/files/{report['id']}/content", params={"format": "docx"})).content
        document = docx.Document(io.BytesIO(docx_bytes))
        text = "\n".join(p.text for p in document.paragraphs)
        markdown = (await http.get(f"/files/{report['id']}/content")).text
        for reference in expected_reference_texts():
            assert reference in text and reference in markdown
        assert document.paragraphs[0].text == reply.data["title"]
        # The asker's own file, tagged as the hub's report, and not a source of answers (not indexed) until
        # the person adds it to the documents.
        assert listed["index_status"] == "not_indexed" and listed["source_kind"] == "report"
    found = await RemoteAgent(test_rag.url or "", name="internal_rag").ask(
        "hand hygiene", data={"skill": "search_documents"})
    assert report["id"] not in {s.get("file_id") for s in found.data.get("sources") or []}

    empty = await agent.ask("보고서 작성해줘", data={"skill": "write_report", "previous_results": []})
    assert empty.status == "no_result" and "보고할 내용이 없습니다" in empty.text
    assert empty.data["files"] == [] and empty.data["sources"] == []  # nothing to report: no file is saved
