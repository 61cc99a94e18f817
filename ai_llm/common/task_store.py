"""Where an agent's A2A tasks live: the a2a-sdk's `DatabaseTaskStore` on the hub's Postgres (table
`a2a_tasks`, migration 0008), behind `WriteOnStateChange`, which saves a task when its state changes and keeps
the progress events in between in this process.

The SDK saves the whole task (history and artifacts included, a growing JSON document) on every event. A chat
through the orchestrator forwards a dozen status lines, and those writes were most of the orchestrator's CPU under
load. What other replicas need from the shared store is the task's state — that it exists, that it waits for
input, that it ended and with what — so only those writes go to Postgres; the `working` updates in between
(the first one too: a task submitted and a task working are both running, to anyone else) are served from
memory by this process (`get`), and the final save carries the full history and artifacts.
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any

import psycopg
from a2a.server.tasks import TaskStore
from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task, TaskState

from ai_llm.common.db import socket_has_news

if TYPE_CHECKING:  # SQLAlchemy (≈1 s to import) is loaded only by a process that has a database
    from a2a.server.context import ServerCallContext
    from sqlalchemy.ext.asyncio import AsyncEngine

#: Name of the SDK task table (migration 0008).
TASK_TABLE = "a2a_tasks"
#: Seconds a task save waits for a pooled connection: a burst of chats (200 at once) queues here; waiting is
#: right, failing the chat after SQLAlchemy's default 30 s is not.
TASK_POOL_TIMEOUT_S = 300.0
#: Seconds a task looked up and not found is answered "not found" from memory (until this process saves it).
#: The SDK looks a new task up three times before saving it; an id is a server-made UUID, so no other replica
#: creates the same one meanwhile.
ABSENT_S = 2.0


_RUNNING = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)


class WriteOnStateChange(TaskStore):
    """A `TaskStore` that writes through on a change of state and keeps same-state updates in memory.

    A save is written to `inner` when the task is new to this process, or when it is not `working`
    (submitted, input-required, auth-required and every terminal state are always written). A `working` save
    of a task last written as submitted or working is kept here instead, and `get` returns it, until the next
    write: other replicas learn that the task runs from its submitted row, and how it ended from the final one.
    A task `inner` did not have stays "not found" here for ABSENT_S seconds or until it is saved.
    `writes` and `kept` count both kinds (for benchmarks and tests).
    """

    def __init__(self, inner: TaskStore) -> None:
        self.inner = inner
        self._running: set[str] = set()  # tasks whose last write was submitted or working
        self._kept: dict[str, Task] = {}
        self._absent: dict[str, float] = {}
        self.writes = 0
        self.kept = 0

    async def save(self, task: Task, context: ServerCallContext) -> None:
        state = task.status.state
        if state == TaskState.TASK_STATE_WORKING and task.id in self._running:
            copy = Task()
            copy.CopyFrom(task)
            self._kept[task.id] = copy
            self.kept += 1
            return
        await self.inner.save(task, context)
        self.writes += 1
        self._absent.pop(task.id, None)
        self._kept.pop(task.id, None)
        if state in _RUNNING:
            self._running.add(task.id)
        else:  # waiting or ended: the next save of this task (a follow-up) is written whatever its state
            self._running.discard(task.id)

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        kept = self._kept.get(task_id)
        if kept is None:
            now = time.monotonic()
            if now - self._absent.get(task_id, float("-inf")) < ABSENT_S:
                return None
            found = await self.inner.get(task_id, context)
            if found is None:  # a new task: the SDK asks three times before its first save
                if len(self._absent) > 1000:
                    self._absent = {k: t for k, t in self._absent.items() if now - t < ABSENT_S}
                self._absent[task_id] = now
            return found
        copy = Task()
        copy.CopyFrom(kept)
        return copy

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        return await self.inner.list(params, context)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        self._kept.pop(task_id, None)
        self._running.discard(task_id)
        await self.inner.delete(task_id, context)


@functools.cache
def _task_model() -> Any:
    """The SDK's task model on `a2a_tasks`, declared once per process in a registry of its own (the SDK's
    `create_task_model` on its shared base would clash with its default model's class name)."""
    from a2a.server.models import create_task_model
    from sqlalchemy.orm import DeclarativeBase

    class TaskBase(DeclarativeBase):
        pass

    return create_task_model(TASK_TABLE, TaskBase)


def database_task_store(engine: AsyncEngine) -> TaskStore:
    """The a2a-sdk's `DatabaseTaskStore` on the table `a2a_tasks` that migration 0008 creates, saving with one
    upsert (`UpsertTaskStore`)."""
    store = _upsert_store_class()(engine, create_table=False)
    store.task_model = _task_model()
    return store


@functools.cache
def _upsert_store_class() -> type:
    from a2a.server.tasks import DatabaseTaskStore
    from sqlalchemy import inspect
    from sqlalchemy.dialects.postgresql import insert

    class UpsertTaskStore(DatabaseTaskStore):
        """The SDK's store, whose `save` is one `INSERT … ON CONFLICT (id) DO UPDATE` of the row the SDK builds.

        The SDK saves through an ORM session's `merge`: a SELECT of the row, then an INSERT or an UPDATE, and
        the session's bookkeeping — a third of an agent's task-store CPU. The row, and so every read (the SDK's
        own `get` and `list`), is the same.
        """

        _upsert: Any = None

        async def save(self, task: Task, context: ServerCallContext) -> None:
            await self._ensure_initialized()
            row = self._to_orm(task, self.owner_resolver(context))
            if self._upsert is None:
                # Built once: building `excluded` and its columns for every save was 2 ms of CPU each time.
                columns = [(attr.key, attr.columns[0]) for attr in inspect(self.task_model).column_attrs]
                stmt = insert(self.task_model)
                stmt = stmt.on_conflict_do_update(
                    index_elements=["id"], set_={col.name: stmt.excluded[col.name] for _, col in columns
                                                 if col.name != "id"})
                self._upsert = (stmt, columns)
            stmt, columns = self._upsert
            async with self.engine.begin() as conn:
                await conn.execute(stmt, {col.key: getattr(row, key) for key, col in columns})

    return UpsertTaskStore


def task_engine(url: str, pool_size: int = 6, max_overflow: int = 2) -> AsyncEngine:
    """An SQLAlchemy async engine on `url` (any libpq URL) through the psycopg 3 driver.

    The URL is handed to psycopg as is (Unix-socket hosts, `sslmode` and other libpq parameters included)
    instead of being translated into an SQLAlchemy URL. The pool stays small (Postgres allows 100 connections
    by default and every hub process and replica has one) and saves wait their turn (`TASK_POOL_TIMEOUT_S`).
    Most of it is kept: connections over `pool_size` are closed when given back, and with 3 kept of 8 a burst of
    50 chats opened 60–80 new Postgres sessions (a backend process forked, authenticated and set up each time);
    with 6 of 8, about 13.
    Autocommit: the store's reads and writes are single statements (a save's merge is a read and a write that
    a transaction would not make atomic either), so BEGIN and COMMIT were two round trips of four.
    """
    from sqlalchemy import event
    from sqlalchemy.exc import DisconnectionError
    from sqlalchemy.ext.asyncio import create_async_engine

    async def connect() -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(url)

    engine = create_async_engine("postgresql+psycopg://", async_creator=connect, pool_size=pool_size,
                                 max_overflow=max_overflow, pool_timeout=TASK_POOL_TIMEOUT_S,
                                 isolation_level="AUTOCOMMIT")

    @event.listens_for(engine.sync_engine, "checkout")
    def _test_on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        # Instead of `pool_pre_ping` (a round trip per checkout): a connection whose socket has news (the
        # server ended it) is dropped, and the pool checks out another.
        if socket_has_news(dbapi_connection.driver_connection):
            raise DisconnectionError("the database ended this pooled connection")

    return engine
