"""Where an agent's A2A tasks live: the a2a-sdk's `DatabaseTaskStore` on the hub's Postgres (table
`a2a_tasks`, migration 0008), behind `WriteOnStateChange`, which saves a task when its state changes and keeps
the progress events in between in this process.

The SDK saves the whole task (history and artifacts included, a growing JSON document) on every event. A chat
through the orchestrator forwards a dozen status lines, and those writes were most of the orchestrator's CPU under
load. What other replicas need from the shared store is the task's state — that it exists, that it waits for
input, that it ended and with what — so only those writes go to Postgres; the `working` updates in between
(the first one too: a task submitted and a task working are both running, to anyone else) are served from
memory by this process (`get`), and the final save carries the full history and artifacts.

Those writes, and the reads, run on a psycopg pool of their own (`PsycopgTaskStore`); the SDK's SQLAlchemy
engine is left its rare `list` and `delete`.

A terminal state is never overwritten. The SDK's legacy handler saves a CANCELED task from `CancelTask` while
the execution's own consumer may still be saving the WORKING events it had queued; without a guard, one of those
lands after the cancel and GetTask shows the task working for good. `WriteOnStateChange` drops a save that
would change the state of a task it saw end, and `PsycopgTaskStore`'s upsert leaves a row in a terminal state
unchanged unless the new save keeps that state (another replica's late save included).
"""

from __future__ import annotations

import functools
import time
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import psycopg
from a2a.server.tasks import TaskStore
from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task, TaskState

from ai_llm.common.store.db import Database, socket_has_news

if TYPE_CHECKING:  # SQLAlchemy (≈1 s to import) is loaded only by a process that has a database
    from a2a.server.context import ServerCallContext
    from sqlalchemy.ext.asyncio import AsyncEngine

#: Name of the SDK task table (migration 0008).
TASK_TABLE = "a2a_tasks"
#: Seconds a task save waits for a pooled connection: a burst of chats (200 at once) queues here; waiting is
#: right, failing the chat after a pool's default 30 s is not.
TASK_POOL_TIMEOUT_S = 300.0
#: Seconds a task looked up and not found is answered "not found" from memory (until this process saves it).
#: The SDK's V2 request handler looked a new task up three times before saving it (the legacy one the hub runs,
#: `request_handler.HubRequestHandler`, does not look it up); an id is a server-made UUID, so no other replica
#: creates the same one meanwhile.
ABSENT_S = 2.0


_RUNNING = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
#: States a task never leaves (A2A §4.1.3).
TERMINAL = frozenset({TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED,
                      TaskState.TASK_STATE_REJECTED})
#: How many ended tasks a process remembers to refuse late saves for (the store's upsert guards the rest).
ENDED_REMEMBERED = 10_000


class WriteOnStateChange(TaskStore):
    """A `TaskStore` that writes through on a change of state and keeps same-state updates in memory.

    A save is written to `inner` when the task is new to this process, or when it is not `working`
    (submitted, input-required, auth-required and every terminal state are always written). A `working` save
    of a task last written as submitted or working is kept here instead, and `get` returns it, until the next
    write: other replicas learn that the task runs from its submitted row, and how it ended from the final one.
    A task `inner` did not have stays "not found" here for ABSENT_S seconds or until it is saved.
    A save that would change the state of a task this process saw end is dropped (`refused` counts them).
    `writes` and `kept` count both kinds (for benchmarks and tests).
    """

    def __init__(self, inner: TaskStore) -> None:
        self.inner = inner
        self._running: set[str] = set()  # tasks whose last write was submitted or working
        self._kept: dict[str, Task] = {}
        self._absent: dict[str, float] = {}
        self._ended: dict[str, int] = {}  # task id -> the terminal state it was saved in (insertion-ordered)
        self.writes = 0
        self.kept = 0
        self.refused = 0

    async def save(self, task: Task, context: ServerCallContext) -> None:
        state = task.status.state
        ended = self._ended.get(task.id)
        if ended is not None and ended != state:
            self.refused += 1  # a late save of a task that ended (a queued WORKING event after CancelTask)
            return
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
            if state in TERMINAL:
                self._ended[task.id] = state
                if len(self._ended) > ENDED_REMEMBERED:
                    del self._ended[next(iter(self._ended))]

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        kept = self._kept.get(task_id)
        if kept is None:
            now = time.monotonic()
            if now - self._absent.get(task_id, float("-inf")) < ABSENT_S:
                return None
            found = await self.inner.get(task_id, context)
            if found is None:  # a new task, asked for before its first save
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
        self._ended.pop(task_id, None)
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


def database_task_store(engine: AsyncEngine, db: Database) -> TaskStore:
    """The a2a-sdk's `DatabaseTaskStore` on the table `a2a_tasks` that migration 0008 creates, saving and
    reading through psycopg on `db` (`PsycopgTaskStore`); `engine` serves the SDK's own `list` and `delete`."""
    store = _psycopg_store_class()(engine, create_table=False)
    store.task_model = _task_model()
    store.db = db
    return store


@functools.cache
def _psycopg_store_class() -> type:
    from a2a.server.tasks import DatabaseTaskStore
    from psycopg.types.json import Json
    from sqlalchemy import JSON, inspect

    class PsycopgTaskStore(DatabaseTaskStore):
        """The SDK's store, whose `save` and `get` — a task's every write and read — run on a psycopg pool.

        `save` is one `INSERT … ON CONFLICT (id) DO UPDATE` of the row the SDK builds (`_to_orm`), `get` one
        SELECT whose row the SDK turns back into a task (`_from_orm`): the rows are the SDK's own, and its
        `list` and `delete` (on SQLAlchemy, rarely called) read them as they are. Through SQLAlchemy's async
        engine the same two statements cost 0.46 and 0.75 ms of CPU each, through psycopg 0.12 and 0.10 ms;
        a chat makes about five task writes and two reads.
        """

        db: Database
        _sql: tuple[list[tuple[str, str, bool]], str, str] | None = None

        def _statements(self) -> tuple[list[tuple[str, str, bool]], str, str]:
            """(attribute, column, JSON?) of each column of the task model, the upsert and the SELECT."""
            if self._sql is None:
                columns = [(attr.key, attr.columns[0].name, isinstance(attr.columns[0].type, JSON))
                           for attr in inspect(self.task_model).column_attrs]
                names = ", ".join(column for _, column, _ in columns)
                updates = ", ".join(f"{column} = EXCLUDED.{column}" for _, column, _ in columns if column != "id")
                # A row in a terminal state changes only by a save in that same state (see the module).
                ended = ", ".join(f"'{TaskState.Name(state)}'" for state in sorted(TERMINAL))
                guard = (f"WHERE {TASK_TABLE}.status->>'state' IS NULL OR {TASK_TABLE}.status->>'state' NOT IN "
                         f"({ended}) OR {TASK_TABLE}.status->>'state' = EXCLUDED.status->>'state'")
                self._sql = (columns,
                             f"INSERT INTO {TASK_TABLE} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"
                             f" ON CONFLICT (id) DO UPDATE SET {updates} {guard}",
                             f"SELECT {names} FROM {TASK_TABLE} WHERE id = %s AND owner IS NOT DISTINCT FROM %s")
            return self._sql

        async def save(self, task: Task, context: ServerCallContext) -> None:
            row = self._to_orm(task, self.owner_resolver(context))
            columns, upsert, _ = self._statements()
            # JSON columns as SQLAlchemy's JSON type writes them (None too, as JSON null).
            await self.db.execute(upsert, [Json(getattr(row, key)) if is_json else getattr(row, key)
                                           for key, _, is_json in columns])

        async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
            columns, _, select = self._statements()
            found = await self.db.fetchone(select, (task_id, self.owner_resolver(context)))
            if found is None:
                return None
            # `_from_orm` reads the row's attributes only: the selected columns, named as on the model.
            return self._from_orm(SimpleNamespace(**{key: found[column] for key, column, _ in columns}))  # type: ignore[arg-type]

    return PsycopgTaskStore


def task_engine(url: str, pool_size: int = 1, max_overflow: int = 0) -> AsyncEngine:
    """An SQLAlchemy async engine on `url` (any libpq URL) through the psycopg 3 driver, for the SDK's `list`
    and `delete` (saves and reads go through psycopg: `database_task_store`).

    The URL is handed to psycopg as is (Unix-socket hosts, `sslmode` and other libpq parameters included)
    instead of being translated into an SQLAlchemy URL. One connection: those calls are rare, and wait their
    turn (`TASK_POOL_TIMEOUT_S`).
    Autocommit: the SDK's statements here are single statements, so BEGIN and COMMIT would be two more round
    trips each.
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
