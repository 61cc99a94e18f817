"""Indexing through an outage of the RAG agent, against real RAG-contract agent processes: a file whose
agent was killed mid-indexing waits (in words from the message catalog) and is indexed once the agent is back;
a file left waiting by a stopped file agent is picked up by the next one, its count of tries continued from
Postgres; the RAG agent's database restarting and the file records' Postgres away are waited out; a bad file ends
as `error` at once, in words; a document the agent fails every time ends as `error` after a bounded number of
tries; a failed file is indexed again on request."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from pathlib import Path
from typing import Any

import psycopg

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
        # What happened and what to do, in the catalog's words (not the agent's English reason).
        assert record["index_status"] == "error"
        assert record["index_error"] == message("files.index_no_text", agent.settings.ui_language)
        assert record["index_reason"] == "files.index_no_text"  # the backend says it in each reader's language
        assert agent.service.index_runs == 1 and record["index_attempts"] == 0  # a verdict is not retried


async def test_a_document_the_agent_fails_every_time_ends_as_error_after_bounded_tries(
        deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        agent.service.retry_s = agent.service.retry_max_s = 0.1
        agent.service.max_attempts = 3
        created = (await agent.upload("poison.txt", b"FAIL-ALWAYS wombat")).json()
        record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
        assert record["index_status"] == "error"
        assert record["index_error"] == message("files.index_gave_up", agent.settings.ui_language, n=3)
        assert record["index_reason"] == "files.index_gave_up"
        assert agent.service.index_runs == 3 and record["index_attempts"] == 3


async def test_tries_recorded_before_a_file_agent_restart_are_continued_after_it(
        deps: HubDeps, test_rag: Child) -> None:
    """The count of tries lives in the file record in Postgres: a file agent stopped after two tries leaves a
    next one three more (of five), not five; the file then ends as `error`, saying so in words."""
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        agent.service.retry_s, agent.service.retry_max_s = 1.0, 60.0  # a second between the 2nd and 3rd try
        created = (await agent.upload("quokka.txt", b"FAIL-ALWAYS quokka survey")).json()
        record = await until(agent, created["id"], lambda r: r["index_attempts"] >= 2)
        assert record["index_status"] == "indexing" and record["index_attempts"] == 2, record
    assert deps.db is not None
    row = await deps.db.fetchone("SELECT index_status, index_attempts FROM file_records WHERE id = %s",
                                 (created["id"],))
    assert row == {"index_status": "indexing", "index_attempts": 2}
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        agent.service.retry_s = agent.service.retry_max_s = 0.1
        record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
        assert agent.service.index_runs == 3  # tries 3, 4 and 5: the count went on
        assert record["index_status"] == "error" and record["index_attempts"] == 5
        assert record["index_error"] == message("files.index_gave_up", agent.settings.ui_language, n=5)


async def test_a_file_whose_tries_were_spent_before_a_restart_is_not_sent_again(
        deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        created = (await agent.upload("tapir.txt", b"tapir notes")).json()
        await agent.wait_indexed(created["id"])
    assert deps.db is not None  # as if the fifth try had been cut off by the restart
    await deps.db.execute("UPDATE file_records SET index_status = 'indexing', index_attempts = 5 WHERE id = %s",
                          (created["id"],))
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
        assert record["index_status"] == "error" and agent.service.index_runs == 0
        # The person's "다시 색인" starts a new count, and the file is indexed.
        again = await agent.http.post(f"/files/{created['id']}/index")
        assert again.status_code == 202 and again.json()["index_attempts"] == 0
        record = await agent.wait_indexed(created["id"])
        assert record["index_status"] in ("indexed", "skipped") and record["index_attempts"] == 0


async def test_the_rag_agents_database_restarting_is_a_reason_that_passes(
        deps: HubDeps, tmp_path: Path) -> None:
    """The RAG agent answers "saving failed: …" while its Postgres restarts: the file waits (in words) and is
    indexed on the next try, instead of ending as `error` with the database's message."""
    await clear_records(deps.db)
    marks = tmp_path / "marks"
    marks.mkdir()
    rag = start_test_rag(tmp_path / "logs", env={"TEST_RAG_MARK_DIR": str(marks)})
    try:
        async with file_agent(deps, rag_agent_url=rag.url) as agent:
            agent.service.retry_s = agent.service.retry_max_s = 0.2
            created = (await agent.upload("dugong.md", b"# Dugong\nSAVE-FAILS-ONCE dugong grazing")).json()
            record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
            assert record["index_status"] == "indexed" and record["index_error"] is None
            assert agent.service.index_runs == 2 and record["index_attempts"] == 0
            assert any(marks.glob("*.save-failed"))
    finally:
        stop_child(rag)


async def test_postgres_away_while_indexing_is_waited_out(deps: HubDeps, test_rag: Child) -> None:
    """The file records cannot be read for a while (Postgres restarting): the indexing task waits and goes on,
    rather than ending with the record stuck `indexing`."""
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        agent.service.retry_s = agent.service.retry_max_s = 0.1
        records = agent.service.records
        real_get = records.get
        failures = iter([psycopg.OperationalError("the database system is shutting down")] * 2)

        async def flaky_get(file_id: str) -> Any:
            task = asyncio.current_task()
            if task is not None and task.get_name().startswith("index-"):  # the indexing task's reads only
                failure = next(failures, None)
                if failure is not None:
                    raise failure
            return await real_get(file_id)

        records.get = flaky_get  # type: ignore[method-assign]
        try:
            created = (await agent.upload("manatee.txt", b"manatee counts")).json()
            record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
        finally:
            records.get = real_get  # type: ignore[method-assign]
        assert next(failures, None) is None  # both failures were met
        assert record["index_status"] == "indexed" and record["index_attempts"] == 0


async def test_a_failed_file_is_indexed_again_on_request_and_an_indexed_one_is_refused(
        deps: HubDeps, test_rag: Child) -> None:
    """`POST /files/{id}/index` ("다시 색인" of a failed file, "문서에 추가" of a report): 202 and indexing for a file
    in `error`, 409 for one indexed or being indexed."""
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        failed = (await agent.upload("blank.pdf", _blank_pdf())).json()
        assert (await agent.wait_indexed(failed["id"]))["index_status"] == "error"
        fine = (await agent.upload("ibis.txt", b"ibis nesting")).json()
        await agent.wait_indexed(fine["id"])
        refused = await agent.http.post(f"/files/{fine['id']}/index")
        assert refused.status_code == 409 and refused.json()["error"] == "already_indexed"
        retried = await agent.http.post(f"/files/{failed['id']}/index")
        assert retried.status_code == 202 and retried.json()["index_status"] == "indexing"
        busy = await agent.http.post(f"/files/{failed['id']}/index")
        assert busy.status_code == 409 and busy.json()["error"] == "indexing"
        assert (await agent.wait_indexed(failed["id"]))["index_status"] == "error"  # the same verdict again
        assert agent.service.index_runs == 3
        assert (await agent.http.post("/files/00000000-0000-0000-0000-000000000000/index")).status_code == 404
