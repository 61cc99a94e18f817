"""How much work a chat makes: counters read from the hub before and after a load level (`--census`).

CPU seconds per process say where the time goes; these say how many times each kind of work was done, which
is what a change to the call path moves (and what a regression shows first): Postgres transactions (each
autocommitted statement is one, an explicit transaction one for all its statements), A2A tasks (one per hop:
backend → orchestrator, orchestrator → each agent), search-tool calls (the gateway logs one telemetry row
each), and the embedding server's texts (asked, computed, forward passes).

Postgres publishes a backend's transaction counts to `pg_stat_database` at most once a second, and an idle
backend after up to 10 s (`PGSTAT_IDLE_INTERVAL`), so a census waits `STATS_SETTLE_S` before it reads. The
census's own three statements are counted in the next reading: 0.06 transactions per chat at 50 chats.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import psycopg

#: Seconds to wait before reading, so that every idle Postgres backend has published its counts.
STATS_SETTLE_S = 11.0

#: Counter -> SQL returning one number.
_SQL = {
    "postgres_transactions": "SELECT xact_commit + xact_rollback FROM pg_stat_database "
                             "WHERE datname = current_database()",
    "a2a_tasks": "SELECT count(*) FROM a2a_tasks",
    "search_calls": "SELECT count(*) FROM search_telemetry",
}


def read_counters(database_url: str, embedding_url: str | None, *, settle_s: float = STATS_SETTLE_S
                  ) -> dict[str, float]:
    """The hub's work counters now (after `settle_s`); a counter that cannot be read is left out."""
    time.sleep(settle_s)
    out: dict[str, float] = {}
    with psycopg.connect(database_url, autocommit=True) as conn:
        for name, sql in _SQL.items():
            try:
                row = conn.execute(sql).fetchone()
            except psycopg.Error:  # a table this database does not have (an agent never started)
                continue
            if row is not None and row[0] is not None:
                out[name] = float(row[0])
    if embedding_url:
        try:
            stats: dict[str, Any] = httpx.get(embedding_url.rstrip("/") + "/healthz", timeout=10).json()
        except (httpx.HTTPError, ValueError):
            stats = {}
        cache = stats.get("cache") or {}
        if "texts_encoded" in stats:
            out["embedding_texts_asked"] = float(cache.get("hits", 0) + cache.get("misses", 0))
            out["embedding_texts_encoded"] = float(stats["texts_encoded"])
            out["embedding_forward_batches"] = float(stats.get("batches", 0))
    return out


def per_chat(before: dict[str, float], after: dict[str, float], chats: int) -> dict[str, float]:
    """Each counter's growth per chat (counters read on one side only are left out)."""
    return {name: round((after[name] - before[name]) / max(1, chats), 2) for name in after if name in before}
