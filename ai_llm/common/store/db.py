"""Database: psycopg 3 async pool + pgvector, embedded Postgres, versioned SQL migrations.

With no `DATABASE_URL`, the embedded Postgres 16 + pgvector from `pgserver` runs with its data under
`.data/pg` (persisting across restarts). Migrations are the numbered `.sql` files in
`ai_llm/common/store/migrations/`, applied once each under an advisory lock (so concurrent processes are safe)
and recorded in `schema_migrations`. `{{EMBEDDING_DIM}}` in a migration is replaced by the configured
embedding dimension, which is recorded in `hub_meta`; a later start with another model or dimension is
refused with a message naming the re-index command.
"""

from __future__ import annotations

import asyncio
import logging
import select
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from ai_llm.common.settings import Settings

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_LOCK = 7_314_159  # arbitrary advisory-lock key shared by every hub process


class EmbeddingMismatchError(RuntimeError):
    """The database was indexed with another embedding model or dimension."""


def start_embedded_postgres(pg_dir: Path) -> tuple[Any, str]:
    """Start (or attach to) the embedded Postgres under `pg_dir`; returns (server, url).

    `pgserver` shares one server between processes that use the same directory and stops it when the
    last of them exits.
    """
    import pgserver

    pg_dir.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(pg_dir, cleanup_mode="stop")
    return server, server.get_uri()


def resolve_database_url(settings: Settings) -> tuple[str, Any]:
    """`DATABASE_URL` when set, else the embedded server's URL (server handle returned to keep it alive)."""
    if settings.database_url:
        return settings.database_url, None
    server, url = start_embedded_postgres(settings.pg_dir)
    return url, server


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    try:
        await register_vector_async(conn)
    except psycopg.ProgrammingError:
        # The extension does not exist yet (first start, before migrations): nothing to register.
        await conn.rollback()


def socket_has_news(conn: psycopg.AsyncConnection[Any]) -> bool:
    """Whether an idle connection must be tested before use: it is closed or broken, or its socket is readable.

    An idle connection's server sends nothing unasked, except when it ends the connection: a Postgres that
    stops or restarts tells each backend to quit (a FATAL notice, then the socket closes), and a backend whose
    postmaster was killed exits at once. Either way the socket turns readable, which `select` sees without a
    round trip to the server (the pool's own check, an empty query, cost a round trip per statement: a tenth of
    the search gateway's and the orchestrator's CPU under load).
    """
    if conn.closed or conn.broken:
        return True
    try:
        readable, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    except (OSError, ValueError, psycopg.OperationalError):
        return True
    return bool(readable)


async def check_pooled(conn: psycopg.AsyncConnection[Any]) -> None:
    """The pool's `check`: a round trip only for a connection whose socket says something happened to it
    (raises, and the pool replaces the connection, when it no longer works)."""
    if socket_has_news(conn):
        await AsyncConnectionPool.check_connection(conn)


#: A FROM item that turns the WAL flush at commit off for the one autocommit statement it is part of
#: (`synchronous_commit` is read when the statement's transaction commits): for rows whose loss in a Postgres
#: crash costs nothing (search telemetry, cache rows), one statement instead of BEGIN, SET LOCAL, the write and
#: COMMIT.
ASYNC_COMMIT = "(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit"

#: Pools shared inside one process: (url, event loop id) -> [pool, users]. See `open_shared`.
_SHARED: dict[tuple[str, int], list[Any]] = {}


async def open_shared(url: str) -> Database:
    """This process's pool on `url`, opened on first use; every user closes it with `close_shared`.

    An agent's own queries (its index, telemetry) and its A2A state (conversations) share one pool, so a
    process holds one set of connections per database, whatever its parts ask for. Keyed by event loop too: a
    pool belongs to the loop it was opened on.
    """
    key = (url, id(asyncio.get_running_loop()))
    entry = _SHARED.get(key)
    if entry is None:
        db = Database(url)
        # Users that arrive while the pool opens wait for the same opening.
        entry = _SHARED[key] = [db, 0, asyncio.ensure_future(db.open())]
    entry[1] += 1
    try:
        await asyncio.shield(entry[2])
    except BaseException:
        entry[1] -= 1
        failed = entry[2].done() and (entry[2].cancelled() or entry[2].exception() is not None)
        if _SHARED.get(key) is entry and failed:
            del _SHARED[key]
        raise
    return entry[0]


async def close_shared(db: Database) -> None:
    """Give back a pool from `open_shared`; the last user closes it (a pool not from there is just closed)."""
    for key, entry in list(_SHARED.items()):
        if entry[0] is db:
            entry[1] -= 1
            if entry[1] <= 0:
                del _SHARED[key]
                await db.close()
            return
    await db.close()


T = TypeVar("T")

#: Statements whose caller was cancelled, running to their end (a reference, so that none is collected).
_FINISHING: set[asyncio.Task[Any]] = set()


def _finished(task: asyncio.Task[Any]) -> None:
    _FINISHING.discard(task)
    if not task.cancelled() and task.exception() is not None:  # its caller is gone: the log is the only reader
        log.warning("a statement whose caller was cancelled failed: %s", task.exception())


async def run_to_end(statement: Coroutine[Any, Any, T]) -> T:
    """Await one short statement that a cancellation of the caller does not interrupt: the caller gets its
    `CancelledError` at once, and the statement finishes on its own and gives its connection back.

    A cancelled request (A2A CancelTask, a chat whose browser left) cancels its task at whatever it awaits;
    inside the pool's hand-over of a connection that lost the connection: after 200 cancelled chats in a row
    the orchestrator's pool had all eight connections out and none in use, and every later request waited
    its 30 s for one (`tests/backend/test_real_hub_cancel.py`).
    """
    task = asyncio.ensure_future(statement)
    _FINISHING.add(task)
    task.add_done_callback(_finished)
    return await asyncio.shield(task)


class Database:
    """Async connection pool with pgvector types registered.

    Args:
        url: a libpq URL.
        min_size/max_size: pool bounds.
        timeout_s: how long a statement waits for a pooled connection before it fails.
    """

    def __init__(self, url: str, min_size: int = 1, max_size: int = 8, timeout_s: float = 30.0) -> None:
        self.url = url
        # `check`: a pooled connection is tested before it is handed out, so after the launcher restarts a
        # crashed Postgres the agents reconnect instead of failing once per stale connection (a restart can take
        # under a second, so even a connection used a moment ago is tested; `check_pooled` asks its socket, and
        # pings the server only when the socket has news). Autocommit: a single statement is
        # its own transaction (no BEGIN and COMMIT round trips); statements that must hold together use
        # `conn.transaction()`.
        self.pool = AsyncConnectionPool(url, min_size=min_size, max_size=max_size, open=False,
                                        configure=_configure, kwargs={"row_factory": dict_row, "autocommit": True},
                                        check=check_pooled, timeout=timeout_s)

    async def open(self) -> Database:
        await self.pool.open(wait=True, timeout=30)
        return self

    async def close(self) -> None:
        await self.pool.close()

    async def __aenter__(self) -> Database:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection in autocommit mode, for tools and benchmarks. A request path uses `run` (or
        `fetch`/`execute`), which a cancelled caller does not interrupt."""
        async with self.pool.connection() as conn:
            yield conn

    async def run(self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]], *,
                  transaction: bool = False) -> T:
        """Run `work` on one pooled connection (inside one transaction when asked) to its end, even when the
        caller is cancelled (`run_to_end`): the statements that must hold together are never cut apart, and
        the connection always goes back to the pool."""
        return await run_to_end(self._run(work, transaction))

    async def _run(self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]], transaction: bool) -> T:
        async with self.pool.connection() as conn:
            if not transaction:
                return await work(conn)
            async with conn.transaction():
                return await work(conn)

    async def fetch(self, query: str, params: Any = None) -> list[dict[str, Any]]:
        async def rows(conn: psycopg.AsyncConnection[Any]) -> list[dict[str, Any]]:
            cur = await conn.execute(query, params)
            return list(await cur.fetchall()) if cur.description else []

        return await self.run(rows)

    async def fetchone(self, query: str, params: Any = None) -> dict[str, Any] | None:
        rows = await self.fetch(query, params)
        return rows[0] if rows else None

    async def execute(self, query: str, params: Any = None) -> None:
        async def statement(conn: psycopg.AsyncConnection[Any]) -> None:
            await conn.execute(query, params)

        await self.run(statement)

    async def migrate(self, embedding_model: str, dimension: int) -> list[str]:
        """Apply pending migrations; returns the versions applied now. Idempotent and concurrency-safe."""
        return await migrate(self.url, embedding_model, dimension)


def _migration_files() -> list[Path]:
    return sorted(MIGRATIONS_DIR.glob("[0-9][0-9][0-9][0-9]_*.sql"))


async def migrate(url: str, embedding_model: str, dimension: int) -> list[str]:
    """Apply pending migrations to the database at `url` (see module docstring)."""
    applied: list[str] = []
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
        try:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS hub_meta (key text PRIMARY KEY, value text NOT NULL)")
            cur = await conn.execute("SELECT key, value FROM hub_meta WHERE key IN "
                                     "('embedding_model', 'embedding_dim')")
            meta = {row[0]: row[1] for row in await cur.fetchall()}
            if meta:
                if meta.get("embedding_model") != embedding_model or meta.get("embedding_dim") != str(dimension):
                    raise EmbeddingMismatchError(
                        f"the database was indexed with {meta.get('embedding_model')} "
                        f"({meta.get('embedding_dim')} dims) but the hub is configured for {embedding_model} "
                        f"({dimension} dims). Run `hub reindex` to re-embed every document with the new "
                        "model, or set EMBEDDING_PROVIDER/EMBEDDING_MODEL back.")
            else:
                await conn.execute(
                    "INSERT INTO hub_meta (key, value) VALUES ('embedding_model', %s), ('embedding_dim', %s)"
                    " ON CONFLICT (key) DO NOTHING", (embedding_model, str(dimension)))
            cur = await conn.execute("SELECT version FROM schema_migrations")
            done = {row[0] for row in await cur.fetchall()}
            for path in _migration_files():
                version = path.stem
                if version in done:
                    continue
                sql = path.read_text(encoding="utf-8").replace("{{EMBEDDING_DIM}}", str(dimension))
                async with conn.transaction():
                    await conn.execute(sql)  # type: ignore[arg-type]
                    await conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                applied.append(version)
                log.info("applied migration %s", version)
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
    return applied


async def set_embedding_meta(url: str, embedding_model: str, dimension: int) -> None:
    """Record a new embedding model (used by `hub reindex` after re-embedding)."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "INSERT INTO hub_meta (key, value) VALUES ('embedding_model', %s), ('embedding_dim', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (embedding_model, str(dimension)))
