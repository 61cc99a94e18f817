"""Agent state in Postgres: the conversation store (memory and Postgres alike), and real agent processes
sharing the real embedded Postgres — history, A2A tasks and per-conversation values seen by another
replica and after a restart (one of them a `kill -9`)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToDict

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.store.conversations import (
    ConversationStore,
    MemoryConversationStore,
    PostgresConversationStore,
)
from ai_llm.common.store.db import Database
from ai_llm.hub.process import Child
from tests.common.a2a_sdk_calls import get_task, send_to_task, state_name, subscribe, task_answer
from tests.conftest import AgentProcesses

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

STATE_AGENT = "tests.common.state_agent"


@pytest.fixture(params=["memory", "postgres"])
async def store(request: pytest.FixtureRequest, pg_url: str) -> AsyncIterator[ConversationStore]:
    if request.param == "memory":
        yield MemoryConversationStore()
        return
    async with Database(pg_url) as db:
        pg_store = PostgresConversationStore(db)
        await pg_store.open()
        yield pg_store


async def test_history_keeps_the_last_turns_per_agent_and_conversation(store: ConversationStore) -> None:
    ctx = str(uuid.uuid4())
    for n in range(4):
        await store.append("a", ctx, [{"role": "user", "text": f"q{n}"}, {"role": "agent", "text": f"r{n}"}],
                           keep=6)
    assert await store.history("a", ctx, 10) == [
        {"role": "user", "text": "q1"}, {"role": "agent", "text": "r1"}, {"role": "user", "text": "q2"},
        {"role": "agent", "text": "r2"}, {"role": "user", "text": "q3"}, {"role": "agent", "text": "r3"}]
    assert await store.history("a", ctx, 2) == [{"role": "user", "text": "q3"}, {"role": "agent", "text": "r3"}]
    # The same context id seen by another agent is another conversation.
    assert await store.history("b", ctx, 10) == []
    assert await store.history("a", str(uuid.uuid4()), 10) == []


async def test_history_keep_smaller_than_the_turns_added(store: ConversationStore) -> None:
    ctx = str(uuid.uuid4())
    await store.append("a", ctx, [{"role": "user", "text": "q0"}, {"role": "agent", "text": "r0"}], keep=4)
    await store.append("a", ctx, [{"role": "user", "text": "q1"}, {"role": "agent", "text": "r1"}], keep=1)
    assert await store.history("a", ctx, 10) == [{"role": "agent", "text": "r1"}]
    await store.append("a", ctx, [{"role": "user", "text": "q2"}], keep=0)
    assert await store.history("a", ctx, 10) == []


async def test_values_put_get_take_and_expire(store: ConversationStore) -> None:
    ctx = str(uuid.uuid4())
    value = {"file_ids": ["1", "2"], "names": ["가.pdf", "b.md"], "score": 0.5}
    assert await store.get("a", ctx, "k") is None
    await store.put("a", ctx, "k", value)
    assert await store.get("a", ctx, "k") == value
    assert await store.get("b", ctx, "k") is None
    await store.put("a", ctx, "k", {"v": 2})  # replaces
    assert await store.take("a", ctx, "k") == {"v": 2}
    assert await store.take("a", ctx, "k") is None and await store.get("a", ctx, "k") is None
    await store.put("a", ctx, "gone", {"v": 3}, ttl_s=0)  # expired as soon as written
    assert await store.get("a", ctx, "gone") is None
    assert await store.take("a", ctx, "gone") is None


async def test_a_value_is_taken_once_by_concurrent_takers(db: Database) -> None:
    stores = [PostgresConversationStore(db) for _ in range(8)]
    ctx = str(uuid.uuid4())
    await stores[0].put("files", ctx, "pending", {"file_ids": ["x"]})
    taken = await asyncio.gather(*(s.take("files", ctx, "pending") for s in stores))
    assert [t for t in taken if t is not None] == [{"file_ids": ["x"]}]


async def test_without_a_database_the_app_keeps_state_in_memory() -> None:
    async def handle(_: AgentRequest, __: Progress) -> AgentReply:
        return AgentReply(text="ok")

    card = make_card("probe", "probe", "http://127.0.0.1:9", [{"id": "p", "description": "p"}])
    executor = HubAgentExecutor("probe", handle)
    app = build_agent_app(card, executor, database_url=None)
    async with app.router.lifespan_context(app):  # opens nothing: no database to reach
        assert isinstance(executor.store, MemoryConversationStore)


@pytest.fixture
def db_processes(pg_url: str, tmp_path: Path) -> Iterator[AgentProcesses]:
    """Agent processes on the session's Postgres (as the launcher starts them: DATABASE_URL set)."""
    procs = AgentProcesses({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "data")}, tmp_path / "logs")
    yield procs
    procs.stop_all()


def kill_hard(child: Child) -> None:
    """`kill -9`: nothing is flushed at shutdown, so what survives was written as it happened."""
    os.killpg(child.proc.pid, signal.SIGKILL)
    child.proc.wait(30)


async def test_history_tasks_and_values_are_shared_by_replicas_and_survive_restarts(
        db_processes: AgentProcesses) -> None:
    one = db_processes.start("state-1", STATE_AGENT)
    two = db_processes.start("state-2", STATE_AGENT)
    ctx = str(uuid.uuid4())

    first = await RemoteAgent(one.url or "").ask("first", context_id=ctx)
    assert first.text == "echo:first" and first.data["history"] == [] and first.data["count"] == 1
    # The second turn reaches the other replica: it sees the first turn and the counter.
    second = await RemoteAgent(two.url or "").ask("second", context_id=ctx)
    assert second.data["pid"] != first.data["pid"]
    assert second.data["history"] == [{"role": "user", "text": "first"}, {"role": "agent", "text": "echo:first"}]
    assert second.data["count"] == 2
    # A task run by one replica is fetched from the other.
    fetched = await get_task(two.url or "", first.task_id or "")
    assert fetched.context_id == ctx and state_name(fetched) == "TASK_STATE_COMPLETED"
    assert task_answer(fetched)[0].startswith("echo:first")

    # input-required on one replica, answered in the same task through the other.
    asked = await send_to_task(one.url or "", "ask", context_id=ctx)
    assert state_name(asked) == "TASK_STATE_INPUT_REQUIRED"
    answered = await send_to_task(two.url or "", "the blue one", context_id=ctx, task_id=asked.id)
    assert answered.id == asked.id and state_name(answered) == "TASK_STATE_COMPLETED"
    text, data = task_answer(answered)
    assert text.startswith("answered:the blue one") and data["asked_in"] == asked.id

    # Both replicas die without a chance to flush anything; a new one has it all.
    kill_hard(one)
    kill_hard(two)
    three = db_processes.start("state-3", STATE_AGENT)
    third = await RemoteAgent(three.url or "").ask("third", context_id=ctx)
    assert [t["text"] for t in third.data["history"]] == [
        "first", "echo:first", "second", "echo:second", "ask", "which one?", "the blue one",
        "answered:the blue one"]
    assert third.data["count"] == 5
    assert state_name(await get_task(three.url or "", first.task_id or "")) == "TASK_STATE_COMPLETED"
    assert state_name(await get_task(three.url or "", asked.id)) == "TASK_STATE_COMPLETED"

    # input-required left open across a restart (graceful this time) is answered afterwards.
    pending = await send_to_task(three.url or "", "ask", context_id=ctx)
    db_processes.stop_all()
    four = db_processes.start("state-4", STATE_AGENT)
    resumed = await send_to_task(four.url or "", "later", context_id=ctx, task_id=pending.id)
    assert state_name(resumed) == "TASK_STATE_COMPLETED" and task_answer(resumed)[0].startswith("answered:later")


async def test_the_orchestrators_remembered_answer_is_shared_through_the_database(db: Database) -> None:
    """Two orchestrator instances (replicas, or one before and after a restart) on one database: the
    second quotes the answer the first gave in that conversation, and in no other."""
    from ai_llm.common.llm import LocalEngine
    from ai_llm.common.messages import message
    from ai_llm.orchestrator_agent.agent import Orchestrator
    from tests.orchestrator_agent.helpers import Recorder

    store = PostgresConversationStore(db)
    ctx = str(uuid.uuid4())
    first = Orchestrator(LocalEngine(), {})
    hello = await first.handle(AgentRequest(text="안녕하세요", context_id=ctx, store=store), Recorder().progress)
    assert hello.data["intent"] == "DIRECT"
    second = Orchestrator(LocalEngine(), {})
    again = "방금 답변을 세 줄로 요약해줘"
    short = await second.handle(AgentRequest(text=again, context_id=ctx, store=store), Recorder().progress)
    assert short.text.startswith(message("orchestrator.previous"))
    quoted = [line.removeprefix("- ") for line in short.text.splitlines()[1:]]
    assert quoted and all(q in hello.text for q in quoted)  # sentences of the first instance's answer
    other = await second.handle(AgentRequest(text=again, context_id=str(uuid.uuid4()), store=store),
                                Recorder().progress)
    assert not other.text.startswith(message("orchestrator.previous"))


async def test_an_agent_alone_on_an_unmigrated_database_creates_its_tables_with_the_recorded_model() -> None:
    """Started by hand on a database the launcher never migrated: the state tables are created, and the
    embedding model already recorded there is kept (no false mismatch)."""
    from ai_llm.common.store.conversations import AgentState
    from ai_llm.common.store.db import start_embedded_postgres
    from tests.conftest import pg_data_dir

    data_dir = pg_data_dir()
    server, url = start_embedded_postgres(data_dir / "pg")
    try:
        async with Database(url) as fresh:
            await fresh.execute("CREATE TABLE hub_meta (key text PRIMARY KEY, value text NOT NULL)")
            await fresh.execute("INSERT INTO hub_meta VALUES ('embedding_model', 'recorded-model'), "
                                "('embedding_dim', '3')")
        state = AgentState(url, "all-MiniLM-L6-v2", 384)
        await state.open()
        try:
            ctx = str(uuid.uuid4())
            await state.conversations.put("a", ctx, "k", {"v": 1})
            assert await state.conversations.get("a", ctx, "k") == {"v": 1}
            meta = {r["key"]: r["value"] for r in await state.db.fetch("SELECT key, value FROM hub_meta")}
            assert meta == {"embedding_model": "recorded-model", "embedding_dim": "3"}
            assert await state.db.fetchone("SELECT 1 AS one FROM schema_migrations WHERE version = "
                                           "'0008_agent_state'") == {"one": 1}
        finally:
            await state.close()
    finally:
        server.cleanup()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.mark.parametrize("answered_by", ["same replica", "other replica"])
async def test_a_subscriber_to_a_task_waiting_for_input_follows_it_to_its_end(
        db_processes: AgentProcesses, answered_by: str) -> None:
    """A2A §3.1.6: SubscribeToTask works on any task not ended, and its stream ends when the task does. The
    task waits for input (no execution runs) when the subscriber comes; a follow-up asks again (the task
    pauses a second time: the stream goes on), then the answer ends it, run on this replica (its events are
    followed) or on another (its end is found in the shared store)."""
    one = db_processes.start("sub-1", STATE_AGENT)
    two = db_processes.start("sub-2", STATE_AGENT) if answered_by == "other replica" else one
    ctx = str(uuid.uuid4())
    asked = await send_to_task(one.url or "", "ask", context_id=ctx)
    assert state_name(asked) == "TASK_STATE_INPUT_REQUIRED"

    subscription = asyncio.create_task(subscribe(one.url or "", asked.id))
    await asyncio.sleep(0.5)
    assert not subscription.done()  # the task has not ended, so neither has its stream
    again = await send_to_task(two.url or "", "ask", context_id=ctx, task_id=asked.id)
    assert state_name(again) == "TASK_STATE_INPUT_REQUIRED"
    await asyncio.sleep(0.5)
    assert not subscription.done()
    answered = await send_to_task(two.url or "", "the red one", context_id=ctx, task_id=asked.id)
    assert state_name(answered) == "TASK_STATE_COMPLETED"
    events = await asyncio.wait_for(subscription, 30)

    assert events[0].HasField("task") and events[0].task.id == asked.id
    assert state_name(events[0].task) == "TASK_STATE_INPUT_REQUIRED"
    last = events[-1]
    final = last.task.status if last.HasField("task") else last.status_update.status
    assert last.HasField("task") or last.HasField("status_update")
    assert MessageToDict(final).get("state") == "TASK_STATE_COMPLETED"
