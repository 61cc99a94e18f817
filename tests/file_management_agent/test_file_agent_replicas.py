"""The file agent as replicas sharing the hub database: a multi-file delete confirmation (`input-required`)
started on one replica is completed through another, and after the agent restarts — both as a new message
in the same context (how the orchestrator answers) and as a message in the same A2A task."""

from __future__ import annotations

import asyncio

import httpx

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.store.db import Database
from ai_llm.hub.process import Child
from tests.common.a2a_sdk_calls import get_task, send_to_task, state_name, task_answer
from tests.conftest import AgentProcesses
from tests.file_management_agent.conftest import clear_records

MODULE = "ai_llm.file_management_agent"


async def _upload_settled(url: str, files: dict[str, bytes]) -> dict[str, str]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        ids = {name: (await http.post("/files", params={"name": name}, content=data)).json()["id"]
               for name, data in files.items()}
        for _ in range(400):
            if all(r["index_status"] != "indexing" for r in (await http.get("/files")).json()):
                return ids
            await asyncio.sleep(0.05)
    raise AssertionError("files still indexing")


async def _names(url: str) -> set[str]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        return {r["name"] for r in (await http.get("/files")).json()}


async def test_delete_confirmation_completes_on_another_replica_and_after_a_restart(
        agent_processes: AgentProcesses, test_rag: Child, db: Database) -> None:
    await clear_records(db)
    env = {"RAG_AGENT_URL": test_rag.url or ""}
    one = agent_processes.start("files-1", MODULE, env=env)
    two = agent_processes.start("files-2", MODULE, env=env)
    await _upload_settled(one.url or "", {"q1 report.md": b"# q1", "q2 report.md": b"# q2", "notes.txt": b"n"})

    # Asked on replica one, confirmed on replica two (a new message in the same context).
    ask = await RemoteAgent(one.url or "").ask("delete the reports", data={"language": "en"})
    assert ask.state == "input_required" and ask.data["confirmation_required"] is True
    assert {f["name"] for f in ask.data["files"]} == {"q1 report.md", "q2 report.md"}
    confirmed = await RemoteAgent(two.url or "").ask("yes", context_id=ask.context_id)
    assert confirmed.status == "ok" and {d["name"] for d in confirmed.data["deleted"]} == {"q1 report.md",
                                                                                         "q2 report.md"}
    assert await _names(one.url or "") == {"notes.txt"}
    # The confirmation was used once: another "yes" in that context deletes nothing more.
    again = await RemoteAgent(one.url or "").ask("yes", context_id=ask.context_id)
    assert not again.data.get("deleted") and await _names(two.url or "") == {"notes.txt"}
    # The asking task, run on replica one, is readable on replica two.
    asked_task = await get_task(two.url or "", ask.task_id or "")
    assert state_name(asked_task) == "TASK_STATE_INPUT_REQUIRED"

    # Asked on replica two, answered in the same A2A task after every replica has restarted.
    await _upload_settled(one.url or "", {"a draft.md": b"a", "b draft.md": b"b"})
    pending = await send_to_task(two.url or "", "delete the drafts", context_id="ctx-" + (ask.task_id or ""))
    assert state_name(pending) == "TASK_STATE_INPUT_REQUIRED"
    assert task_answer(pending)[1]["confirmation_required"] is True
    agent_processes.stop_all()
    three = agent_processes.start("files-3", MODULE, env=env)
    done = await send_to_task(three.url or "", "네", context_id=pending.context_id, task_id=pending.id)
    assert done.id == pending.id and state_name(done) == "TASK_STATE_COMPLETED"
    text, data = task_answer(done)
    assert {d["name"] for d in data["deleted"]} == {"a draft.md", "b draft.md"}, text
    assert await _names(three.url or "") == {"notes.txt"}

    # A "no" through a restarted agent cancels, and nothing is deleted.
    await _upload_settled(three.url or "", {"x draft.md": b"x", "y draft.md": b"y"})
    ask = await RemoteAgent(three.url or "").ask("delete the drafts", data={"language": "en"})
    assert ask.state == "input_required"
    agent_processes.stop_all()
    four = agent_processes.start("files-4", MODULE, env=env)
    cancelled = await RemoteAgent(four.url or "").ask("no", context_id=ask.context_id)
    assert cancelled.data.get("cancelled") is True
    assert await _names(four.url or "") == {"notes.txt", "x draft.md", "y draft.md"}
