"""Embedded Postgres + pgvector: start, migrate idempotently, survive a restart, nearest-neighbour query."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest
from sqlalchemy import text

from ai_llm.common.a2a.task_store import task_engine
from ai_llm.common.store.db import (
    Database,
    EmbeddingMismatchError,
    migrate,
    socket_has_news,
    start_embedded_postgres,
)
from tests.conftest import pg_data_dir

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

async def test_migrations_are_idempotent_and_record_the_embedding_model() -> None:
    tmp_path = pg_data_dir()
    server, url = start_embedded_postgres(tmp_path / "pg")
    try:
        first = await migrate(url, "all-MiniLM-L6-v2", 384)
        second = await migrate(url, "all-MiniLM-L6-v2", 384)
        assert "0001_core" in first
        assert second == []
        async with Database(url) as db:
            meta = {r["key"]: r["value"] for r in await db.fetch("SELECT key, value FROM hub_meta")}
            assert meta == {"embedding_model": "all-MiniLM-L6-v2", "embedding_dim": "384"}
        with pytest.raises(EmbeddingMismatchError, match="hub reindex"):
            await migrate(url, "text-embedding-3-small", 1536)
    finally:
        server.cleanup()


async def test_data_survives_a_restart() -> None:
    tmp_path = pg_data_dir()
    server, url = start_embedded_postgres(tmp_path / "pg")
    await migrate(url, "m", 3)
    async with Database(url) as db:
        await db.execute("CREATE TABLE notes (id int PRIMARY KEY, body text)")
        await db.execute("INSERT INTO notes VALUES (1, '안녕하세요')")
    server.cleanup()  # stops the server
    with pytest.raises(psycopg.OperationalError):
        await psycopg.AsyncConnection.connect(url, connect_timeout=2)
    server2, url2 = start_embedded_postgres(tmp_path / "pg")
    try:
        async with Database(url2) as db:
            assert await db.fetch("SELECT body FROM notes") == [{"body": "안녕하세요"}]
    finally:
        server2.cleanup()


async def test_pgvector_returns_the_nearest_row(db: Database) -> None:
    async with db.connection() as conn:
        await conn.execute("CREATE TEMP TABLE vecs (name text, v vector(3))")
        await conn.execute("INSERT INTO vecs VALUES ('x', '[1,0,0]'), ('y', '[0,1,0]'), ('xy', '[0.7,0.7,0]')")
        cur = await conn.execute("SELECT name FROM vecs ORDER BY v <=> %s::vector LIMIT 1", ("[0.9,0.2,0]",))
        assert (await cur.fetchone())["name"] == "x"
        cur = await conn.execute("SELECT name FROM vecs ORDER BY v <=> %s::vector LIMIT 1", ("[0.5,0.6,0]",))
        assert (await cur.fetchone())["name"] == "xy"


async def test_an_open_pool_survives_a_database_restart() -> None:
    """The launcher restarts a crashed Postgres; agents keep their pool and must not fail on stale connections."""
    tmp_path = pg_data_dir()
    server, url = start_embedded_postgres(tmp_path / "pg")
    db = await Database(url, min_size=2, max_size=2).open()
    tasks = task_engine(url, pool_size=2, max_overflow=0)  # the A2A task store's SQLAlchemy pool
    try:
        assert await db.fetch("SELECT 1 AS one") == [{"one": 1}]
        for _ in range(2):
            async with tasks.connect() as conn:
                assert (await conn.execute(text("SELECT 1"))).scalar() == 1
        server.cleanup()  # the database goes away under open pools ...
        server, url2 = start_embedded_postgres(tmp_path / "pg")  # ... and comes back
        assert url2 == url
        for _ in range(3):  # every pooled connection was stale; each is checked and replaced, none fails
            assert await db.fetch("SELECT 1 AS one") == [{"one": 1}]
            async with tasks.connect() as conn:
                assert (await conn.execute(text("SELECT 1"))).scalar() == 1
    finally:
        await tasks.dispose()
        await db.close()
        server.cleanup()


async def test_a_connection_the_server_ended_is_told_without_a_round_trip(pg_url: str) -> None:
    """The pools test a connection only when its socket has news; a live idle one has none, one whose backend
    the server terminated has, and so does a closed one."""
    conn = await psycopg.AsyncConnection.connect(pg_url, autocommit=True)
    admin = await psycopg.AsyncConnection.connect(pg_url, autocommit=True)
    try:
        await conn.execute("SELECT 1")
        assert not socket_has_news(conn)
        await admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
        for _ in range(100):
            if socket_has_news(conn):
                break
            await asyncio.sleep(0.05)
        assert socket_has_news(conn)
        with pytest.raises(psycopg.OperationalError):
            await conn.execute("SELECT 1")
    finally:
        await conn.close()
        await admin.close()
    assert socket_has_news(conn)


async def test_a_cancelled_caller_leaves_its_statement_to_finish_and_the_pool_whole(pg_url: str) -> None:
    """A caller cancelled while its statement runs gets CancelledError at once; the statement still ends (its
    row is written) and every connection is back in the pool afterwards."""
    db = await Database(pg_url, max_size=2, timeout_s=5).open()
    table = f"cancel_probe_{uuid.uuid4().hex[:8]}"
    try:
        await db.execute(f"CREATE TABLE {table} (n int)")
        callers = [asyncio.create_task(db.execute(f"INSERT INTO {table} SELECT %s FROM pg_sleep(0.2)", (n,)))
                   for n in range(6)]
        await asyncio.sleep(0.05)
        for caller in callers:
            caller.cancel()
        outcomes = await asyncio.gather(*callers, return_exceptions=True)
        assert all(isinstance(outcome, asyncio.CancelledError) for outcome in outcomes)
        for _ in range(100):  # the six statements, two at a time, finish on their own
            written = await db.fetchone(f"SELECT count(*) AS n FROM {table}")
            if written and written["n"] == 6:
                break
            await asyncio.sleep(0.05)
        assert written == {"n": 6}
        stats = db.pool.get_stats()
        assert stats["pool_available"] == stats["pool_size"] and not stats.get("requests_waiting")
    finally:
        await db.execute(f"DROP TABLE IF EXISTS {table}")
        await db.close()


async def test_a_transaction_whose_caller_is_cancelled_is_written_whole_or_not_at_all(pg_url: str) -> None:
    """`Database.run(..., transaction=True)`: a caller cancelled between two statements of one transaction
    leaves both written (the work runs to its end), and a failing second statement leaves neither."""
    db = await Database(pg_url, max_size=2, timeout_s=5).open()
    table = f"cancel_tx_{uuid.uuid4().hex[:8]}"
    second_started = asyncio.Event()

    async def two_rows(conn: Any) -> None:
        await conn.execute(f"INSERT INTO {table} VALUES (1)")
        second_started.set()
        await conn.execute(f"INSERT INTO {table} SELECT 2 FROM pg_sleep(0.2)")

    async def broken(conn: Any) -> None:
        await conn.execute(f"INSERT INTO {table} VALUES (3)")
        await conn.execute(f"INSERT INTO {table} VALUES ('not a number')")

    try:
        await db.execute(f"CREATE TABLE {table} (n int)")
        caller = asyncio.create_task(db.run(two_rows, transaction=True))
        await second_started.wait()
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        for _ in range(100):
            rows = await db.fetch(f"SELECT n FROM {table} ORDER BY n")
            if len(rows) == 2:
                break
            await asyncio.sleep(0.05)
        assert [row["n"] for row in rows] == [1, 2]
        with pytest.raises(psycopg.errors.InvalidTextRepresentation):
            await db.run(broken, transaction=True)
        assert [row["n"] for row in await db.fetch(f"SELECT n FROM {table} ORDER BY n")] == [1, 2]
        stats = db.pool.get_stats()
        assert stats["pool_available"] == stats["pool_size"] and not stats.get("requests_waiting")
    finally:
        await db.execute(f"DROP TABLE IF EXISTS {table}")
        await db.close()
