"""Indexing through an outage of the RAG agent, against real RAG-contract agent processes: a file whose
agent was killed mid-indexing waits (in words from the message catalog) and is indexed once the agent is back;
a file left waiting by a stopped file agent is picked up by the next one; a bad file ends as `error` at once;
a document the agent fails every time ends as `error` after a bounded number of tries."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from pathlib import Path

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.server import free_port
from ai_llm.common.messages import message
from ai_llm.common.runtime import HubDeps
from ai_llm.hub.process import Child, stop_child
from tests.file_management_agent.conftest import clear_records, file_agent, start_test_rag, until


def _waiting(record: dict, language: str) -> bool:
    return record["index_status"] == "indexing" and record["index_error"] == message("files.index_waiting", language)


async def _names_found(rag: Child, text: str) -> list[str]:
    reply = await RemoteAgent(rag.url or "").ask(text, data={"skill": "search_documents"})
    return [s["file_name"] for s in reply.data.get("sources") or []]


def _blank_pdf() -> bytes:
    """A well-formed PDF with no text on its page (nothing to index)."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _received(marks: Path) -> bool:
    return any(marks.glob("*.received"))


async def _wait_for_mark(marks: Path, timeout_s: float = 60.0) -> None:
    """Until the test RAG agent says a document arrived (it then holds it without answering)."""
    for _ in range(int(timeout_s * 10)):
        if _received(marks):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the test RAG agent never received the document")


async def test_rag_agent_killed_mid_indexing_then_back_indexes_the_file_without_a_new_upload(
        deps: HubDeps, tmp_path: Path) -> None:
    await clear_records(deps.db)
    port = free_port()
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {"TEST_RAG_MARK_DIR": str(marks)}
    rag = start_test_rag(tmp_path / "logs", port, env)
    try:
        async with file_agent(deps, rag_agent_url=rag.url) as agent:
            agent.service.retry_s = agent.service.retry_max_s = 0.2
            lang = agent.settings.ui_language
            created = (await agent.upload("narwhal.md", b"# Notes\nHANG-ONCE narwhal migration notes")).json()
            await _wait_for_mark(marks)
            os.killpg(rag.proc.pid, signal.SIGKILL)  # kill -9 while the document is being indexed
            rag.proc.wait()
            record = await until(agent, created["id"], lambda r: r["index_error"] is not None)
            assert _waiting(record, lang), record  # not `error`, and not the connection error's text
            rag = start_test_rag(tmp_path / "logs", port, env)
            record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
            assert record["index_status"] == "indexed" and record["index_error"] is None and record["chunks"] > 0
            assert await _names_found(rag, "narwhal") == ["narwhal.md"]
    finally:
        stop_child(rag)


async def test_a_file_left_waiting_is_indexed_by_the_next_file_agent(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=f"http://127.0.0.1:{free_port()}") as agent:
        created = (await agent.upload("okapi.txt", b"okapi field observations")).json()
        await until(agent, created["id"], lambda r: _waiting(r, agent.settings.ui_language))
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
        assert record["index_status"] == "indexed" and record["index_error"] is None
    assert "okapi.txt" in await _names_found(test_rag, "okapi")


async def test_a_bad_file_ends_as_error_at_once(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        agent.service.retry_s = agent.service.retry_max_s = 0.2
        created = (await agent.upload("blank.pdf", _blank_pdf())).json()
        record = await agent.wait_indexed(created["id"])
        assert record["index_status"] == "error" and record["index_error"] == "no extractable text"
        assert agent.service.index_runs == 1  # the agent's verdict on the document is not retried


async def test_a_document_the_agent_fails_every_time_ends_as_error_after_bounded_tries(
        deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        agent.service.retry_s = agent.service.retry_max_s = 0.1
        agent.service.max_attempts = 3
        created = (await agent.upload("poison.txt", b"FAIL-ALWAYS wombat")).json()
        record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
        assert record["index_status"] == "error"
        assert record["index_error"] == message("files.index_gave_up", agent.settings.ui_language)
        assert agent.service.index_runs == 3
