"""`WriteOnStateChange`: the shared task store learns that a task runs, waits or ended; progress stays local."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.tasks import InMemoryTaskStore, TaskStore
from a2a.types.a2a_pb2 import Message, Part, Role, Task, TaskState, TaskStatus

from ai_llm.common.a2a import task_store
from ai_llm.common.a2a.task_store import WriteOnStateChange, database_task_store, task_engine
from ai_llm.common.store.db import Database, close_shared, open_shared


class CountingStore(InMemoryTaskStore):
    """The SDK's in-memory store, counting the saves that reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.saved: list[int] = []
        self.gets = 0

    async def get(self, task_id: str, context: Any = None) -> Task | None:
        self.gets += 1
        return await super().get(task_id, context)

    async def save(self, task: Task, context: Any = None) -> None:
        self.saved.append(task.status.state)
        await super().save(task, context)


def _task(state: int, note: str, history: int = 0) -> Task:
    task = Task(id="t1", context_id="c1", status=TaskStatus(state=state, message=Message(
        message_id=f"m-{note}", role=Role.ROLE_AGENT, parts=[Part(text=note)])))
    for i in range(history):
        task.history.append(Message(message_id=f"h{i}", role=Role.ROLE_USER, parts=[Part(text=f"turn {i}")]))
    return task


def _note(task: Task | None) -> str:
    assert task is not None
    return task.status.message.parts[0].text


async def test_progress_stays_local_and_every_state_change_is_written() -> None:
    inner = CountingStore()
    store: TaskStore = WriteOnStateChange(inner)
    ctx = ServerCallContext()
    await store.save(_task(TaskState.TASK_STATE_SUBMITTED, "submitted"), ctx)
    await store.save(_task(TaskState.TASK_STATE_WORKING, "planning"), ctx)
    for step in ("rag", "web", "merge"):
        await store.save(_task(TaskState.TASK_STATE_WORKING, step), ctx)
    # the shared store knows the task runs (submitted) but has no progress line; this process sees the latest
    assert inner.saved == [TaskState.TASK_STATE_SUBMITTED]
    assert _note(await inner.get("t1", ctx)) == "submitted"
    assert _note(await store.get("t1", ctx)) == "merge"
    await store.save(_task(TaskState.TASK_STATE_COMPLETED, "answer", history=3), ctx)
    final = await inner.get("t1", ctx)
    assert final is not None and final.status.state == TaskState.TASK_STATE_COMPLETED and len(final.history) == 3
    assert _note(await store.get("t1", ctx)) == "answer"
    # an ended task stays ended: a late working save (an event queued before the end) is dropped
    await store.save(_task(TaskState.TASK_STATE_WORKING, "late"), ctx)
    assert _note(await inner.get("t1", ctx)) == "answer" and _note(await store.get("t1", ctx)) == "answer"
    assert isinstance(store, WriteOnStateChange) and store.writes == 2 and store.kept == 4 and store.refused == 1


async def test_a_follow_up_after_input_required_is_written_and_a_cancel_is_final() -> None:
    """A task that waited for input runs again (its first working save is written); once canceled, no later
    save of another state reaches the store, and a save in the same terminal state still does."""
    inner = CountingStore()
    store = WriteOnStateChange(inner)
    ctx = ServerCallContext()
    await store.save(_task(TaskState.TASK_STATE_WORKING, "w"), ctx)
    await store.save(_task(TaskState.TASK_STATE_INPUT_REQUIRED, "confirm?"), ctx)
    await store.save(_task(TaskState.TASK_STATE_WORKING, "again"), ctx)
    assert _note(await inner.get("t1", ctx)) == "again"
    await store.save(_task(TaskState.TASK_STATE_CANCELED, "canceled"), ctx)
    for late in (TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_INPUT_REQUIRED):
        await store.save(_task(late, "late"), ctx)
    assert _note(await inner.get("t1", ctx)) == "canceled" and store.refused == 3
    await store.save(_task(TaskState.TASK_STATE_CANCELED, "canceled, with its history", history=2), ctx)
    assert _note(await inner.get("t1", ctx)) == "canceled, with its history"


async def test_waiting_for_input_is_always_written() -> None:
    inner = CountingStore()
    store = WriteOnStateChange(inner)
    ctx = ServerCallContext()
    await store.save(_task(TaskState.TASK_STATE_WORKING, "w"), ctx)
    await store.save(_task(TaskState.TASK_STATE_INPUT_REQUIRED, "confirm?"), ctx)
    await store.save(_task(TaskState.TASK_STATE_INPUT_REQUIRED, "confirm again?"), ctx)
    assert inner.saved == [TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED,
                           TaskState.TASK_STATE_INPUT_REQUIRED]
    await store.delete("t1", ctx)
    assert await store.get("t1", ctx) is None


async def test_a_task_not_found_is_not_looked_up_again_until_saved(monkeypatch: Any) -> None:
    """A new task looked up again and again before its first save (the SDK's V2 handler did, three times): only
    the first lookup reaches the store."""
    inner = CountingStore()
    store = WriteOnStateChange(inner)
    ctx = ServerCallContext()
    assert [await store.get("t1", ctx) for _ in range(3)] == [None, None, None]
    assert inner.gets == 1
    await store.save(_task(TaskState.TASK_STATE_SUBMITTED, "submitted"), ctx)
    assert _note(await store.get("t1", ctx)) == "submitted" and inner.gets == 2
    # an id looked up long enough ago is asked for again (another replica may have created it since)
    assert await store.get("t2", ctx) is None and inner.gets == 3
    monkeypatch.setattr(task_store, "ABSENT_S", 0.0)
    assert await store.get("t2", ctx) is None and inner.gets == 4


async def test_one_process_shares_one_pool_per_database(pg_url: str) -> None:
    """The agent's own queries and its A2A state use the same pool; it closes with its last user."""
    first, second = await asyncio.gather(open_shared(pg_url), open_shared(pg_url))
    assert first is second
    assert await first.fetchone("SELECT 1 AS one") == {"one": 1}
    await close_shared(first)
    assert await second.fetchone("SELECT 2 AS two") == {"two": 2}  # still open for the other user
    await close_shared(second)
    assert second.pool.closed
    third = await open_shared(pg_url)
    assert third is not first
    await close_shared(third)


async def test_the_store_writes_and_reads_through_psycopg_the_rows_the_sdk_reads(pg_url: str) -> None:
    """Our store saves with one upsert and reads with one SELECT on a psycopg pool instead of the SDK's ORM
    session: a new task is inserted, a later save replaces every column (history, artifacts, metadata,
    status), the SDK's own store reads our rows as saved and we read its rows, and a task is found only for
    its owner."""
    from a2a.auth.user import User
    from a2a.server.tasks import DatabaseTaskStore
    from a2a.types.a2a_pb2 import Artifact

    class Named(User):
        def __init__(self, name: str) -> None:
            self.name = name

        @property
        def is_authenticated(self) -> bool:
            return True

        @property
        def user_name(self) -> str:
            return self.name

    engine = task_engine(pg_url, pool_size=1, max_overflow=0)
    db = await Database(pg_url, max_size=2).open()
    try:
        store = database_task_store(engine, db)
        plain = DatabaseTaskStore(engine, create_table=False)
        plain.task_model = store.task_model  # type: ignore[attr-defined]
        ctx = ServerCallContext()
        task = _task(TaskState.TASK_STATE_SUBMITTED, "submitted")
        task.id = f"upsert-{uuid.uuid4().hex[:8]}"
        await store.save(task, ctx)
        assert await plain.get(task.id, ctx) == task
        done = _task(TaskState.TASK_STATE_COMPLETED, "answer", history=2)
        done.id = task.id
        done.artifacts.append(Artifact(artifact_id="a1", parts=[Part(text="the answer")]))
        done.metadata.update({"intent": "HYBRID"})
        await store.save(done, ctx)
        assert await plain.get(task.id, ctx) == done and await store.get(task.id, ctx) == done
        assert await store.get("no-such-task", ctx) is None
        # Rows the SDK wrote (its ORM merge) read back the same through ours.
        theirs = _task(TaskState.TASK_STATE_INPUT_REQUIRED, "confirm?", history=1)
        theirs.id = f"sdk-{uuid.uuid4().hex[:8]}"
        await plain.save(theirs, ctx)
        assert await store.get(theirs.id, ctx) == theirs
        # Owners: a task saved for alice is not found for bob, nor for an unauthenticated caller.
        alice, bob = ServerCallContext(user=Named("alice")), ServerCallContext(user=Named("bob"))
        owned = _task(TaskState.TASK_STATE_WORKING, "alice's")
        owned.id = f"owned-{uuid.uuid4().hex[:8]}"
        await store.save(owned, alice)
        assert await store.get(owned.id, alice) == owned
        assert await store.get(owned.id, bob) is None and await store.get(owned.id, ctx) is None
        assert await plain.get(owned.id, alice) == owned
        # A row in a terminal state keeps it against a later save of another state, even from a process that
        # never saw it end (another replica: a fresh store); a save in the same state still updates it.
        ended = _task(TaskState.TASK_STATE_CANCELED, "canceled")
        ended.id = f"ended-{uuid.uuid4().hex[:8]}"
        await store.save(ended, ctx)
        other_replica = database_task_store(engine, db)
        late = _task(TaskState.TASK_STATE_WORKING, "late")
        late.id = ended.id
        await other_replica.save(late, ctx)
        assert _note(await store.get(ended.id, ctx)) == "canceled"
        again = _task(TaskState.TASK_STATE_CANCELED, "canceled again", history=1)
        again.id = ended.id
        await other_replica.save(again, ctx)
        assert await store.get(ended.id, ctx) == again
    finally:
        await db.close()
        await engine.dispose()
