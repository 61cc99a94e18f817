"""`hub bench backend --census`: the work counters read from a real Postgres and the real embedding server."""

from __future__ import annotations

import time
import uuid

import httpx
import psycopg
import pytest

from ai_llm.common.store.db import migrate
from ai_llm.evals.backend.census import STATS_SETTLE_S, per_chat, read_counters
from tests.conftest import EMBEDDING_DIM, EMBEDDING_MODEL


@pytest.fixture
async def census_db(pg_url: str) -> str:
    """A database of its own on the session's Postgres, migrated: `pg_stat_database` counts per database, so
    no other test's statements reach these counters."""
    name = f"census_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = psycopg.conninfo.make_conninfo(pg_url, dbname=name)
    await migrate(url, EMBEDDING_MODEL, EMBEDDING_DIM)
    return url


def test_counters_grow_by_the_work_done_between_two_readings(census_db: str, embedding_server: str) -> None:
    base = embedding_server.removesuffix("/v1")
    before = read_counters(census_db, base, settle_s=0)
    with psycopg.connect(census_db, autocommit=True) as conn:
        for query in ("first", "second"):  # two search calls, as the gateway logs them
            conn.execute("INSERT INTO search_telemetry (tool, query, cache, latency_ms) VALUES "
                         "('web_search', %s, 'miss', 1.0)", (query,))
        conn.execute("INSERT INTO a2a_tasks (id, context_id, status) VALUES (%s, 'c', '{}')", (str(uuid.uuid4()),))
    # Three texts asked, two of them the same: the server computes two.
    texts = [f"census probe {uuid.uuid4()}", f"another probe {uuid.uuid4()}"]
    response = httpx.post(embedding_server + "/embeddings",
                          json={"model": EMBEDDING_MODEL, "input": [texts[0], texts[1], texts[0]]}, timeout=60)
    response.raise_for_status()
    # A closed connection's backend publishes its counts as it exits, a moment after the client closes.
    deadline = time.monotonic() + STATS_SETTLE_S
    while True:
        after = read_counters(census_db, base, settle_s=0)
        if after["postgres_transactions"] - before["postgres_transactions"] >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.2)

    growth = {name: after[name] - before[name] for name in after}
    assert growth["search_calls"] == 2
    assert growth["a2a_tasks"] == 1
    # The three inserts, plus the statements of the earlier readings.
    assert 3 <= growth["postgres_transactions"] <= 3 + 3 * 80
    assert growth["embedding_texts_asked"] == 3
    assert growth["embedding_texts_encoded"] == 2
    assert growth["embedding_forward_batches"] >= 1


def test_work_per_chat_divides_the_growth_and_skips_one_sided_counters() -> None:
    before = {"a2a_tasks": 10.0, "search_calls": 4.0, "only_before": 1.0}
    after = {"a2a_tasks": 135.0, "search_calls": 4.0, "only_after": 7.0}
    assert per_chat(before, after, 50) == {"a2a_tasks": 2.5, "search_calls": 0.0}
    assert per_chat(before, after, 0) == {"a2a_tasks": 125.0, "search_calls": 0.0}  # never divides by zero


def test_unreadable_counters_are_left_out(census_db: str) -> None:
    """No embedding server: only the database's counters; a database without the gateway's table: no
    `search_calls`, the others still read."""
    with psycopg.connect(census_db, autocommit=True) as conn:
        conn.execute("DROP TABLE search_telemetry")
    counters = read_counters(census_db, "http://127.0.0.1:9", settle_s=0)
    assert set(counters) == {"postgres_transactions", "a2a_tasks"}
