"""State of the A2A agents beside their code: per-conversation history, small per-conversation values, and
the a2a-sdk's task store — in memory, or on the hub's Postgres so that every replica of an agent shares it
and a restart keeps it.

* `ConversationStore`: history turns and keyed values per `(agent, context_id)`. `MemoryConversationStore`
  (one process, bounded) and `PostgresConversationStore` (tables `agent_history` and
  `agent_conversation_state` of migration 0008) implement it. `take` is atomic: of two replicas answering
  "yes" to the same pending delete, only one gets it.
* `AgentState`: what an agent app opens when a database is configured (`DATABASE_URL`, which the launcher
  always sets): the SDK's task store (`task_store.py`: table `a2a_tasks`, written on a change of state) on an
  SQLAlchemy async engine over the psycopg 3 driver, and a `PostgresConversationStore` on the process's shared
  `Database` pool (`db.open_shared`, the pool the agent's own queries use too).
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from psycopg.types.json import Jsonb

from ai_llm.common.a2a.task_store import (
    TASK_POOL_TIMEOUT_S,
    TASK_TABLE,
    WriteOnStateChange,
    database_task_store,
    task_engine,
)
from ai_llm.common.store.db import Database, close_shared, migrate, open_shared

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

#: How long history turns, tasks and values without their own expiry are kept in Postgres.
RETENTION_S = 30 * 24 * 3600
#: Conversations kept per agent by the in-memory store (least recently used dropped first).
MEMORY_CONVERSATIONS = 1000


class ConversationStore(ABC):
    """History and keyed values of each agent's conversations (A2A `context_id`)."""

    async def open(self) -> None:  # noqa: B027 - optional hook
        """Prepare the store (connections, clean-up of expired rows)."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release what `open` acquired."""

    @abstractmethod
    async def history(self, agent: str, context_id: str, limit: int) -> list[dict[str, str]]:
        """The last `limit` turns (`{"role": "user"|"agent", "text"}`), oldest first."""

    @abstractmethod
    async def append(self, agent: str, context_id: str, turns: list[dict[str, str]], keep: int) -> None:
        """Add turns; only the last `keep` turns of the conversation are kept."""

    @abstractmethod
    async def get(self, agent: str, context_id: str, key: str) -> Any:
        """The value stored under `key`, or None (absent or expired)."""

    @abstractmethod
    async def put(self, agent: str, context_id: str, key: str, value: Any, ttl_s: float | None = None) -> None:
        """Store a JSON-serializable value, replacing any earlier one; `ttl_s` bounds its life."""

    @abstractmethod
    async def take(self, agent: str, context_id: str, key: str) -> Any:
        """Remove and return the value (None when absent or expired); atomic across replicas."""


class MemoryConversationStore(ConversationStore):
    """One process's store: what an agent without a database, or a test, uses.

    Args:
        max_conversations: conversations kept per agent; the least recently used go first.
    """

    def __init__(self, max_conversations: int = MEMORY_CONVERSATIONS) -> None:
        self.max_conversations = max_conversations
        self._history: OrderedDict[tuple[str, str], list[dict[str, str]]] = OrderedDict()
        self._values: OrderedDict[tuple[str, str], dict[str, tuple[Any, float | None]]] = OrderedDict()

    @staticmethod
    def _touch(table: OrderedDict[tuple[str, str], Any], key: tuple[str, str], limit: int) -> None:
        table.move_to_end(key)
        while len(table) > limit:
            table.popitem(last=False)

    async def history(self, agent: str, context_id: str, limit: int) -> list[dict[str, str]]:
        turns = self._history.get((agent, context_id), [])
        return [dict(t) for t in turns[-limit:]] if limit > 0 else []

    async def append(self, agent: str, context_id: str, turns: list[dict[str, str]], keep: int) -> None:
        key = (agent, context_id)
        kept = [*self._history.get(key, []), *({"role": t["role"], "text": t["text"]} for t in turns)]
        self._history[key] = kept[-keep:] if keep > 0 else []
        self._touch(self._history, key, self.max_conversations)

    def _live(self, agent: str, context_id: str, key: str) -> tuple[Any, float | None] | None:
        entry = self._values.get((agent, context_id), {}).get(key)
        if entry is None:
            return None
        if entry[1] is not None and time.monotonic() >= entry[1]:
            self._values[(agent, context_id)].pop(key, None)
            return None
        return entry

    async def get(self, agent: str, context_id: str, key: str) -> Any:
        entry = self._live(agent, context_id, key)
        return None if entry is None else entry[0]

    async def put(self, agent: str, context_id: str, key: str, value: Any, ttl_s: float | None = None) -> None:
        conversation = (agent, context_id)
        expires = time.monotonic() + ttl_s if ttl_s is not None else None
        self._values.setdefault(conversation, {})[key] = (value, expires)
        self._touch(self._values, conversation, self.max_conversations)

    async def take(self, agent: str, context_id: str, key: str) -> Any:
        entry = self._live(agent, context_id, key)
        if entry is None:
            return None
        self._values[(agent, context_id)].pop(key, None)
        return entry[0]


class PostgresConversationStore(ConversationStore):
    """The store on the hub database, shared by replicas and kept across restarts.

    Args:
        db: an open pool on a database migrated to 0008 (its owner opens and closes it; `AgentState` uses the
            process's shared pool).
        retention_s: life of history turns and of values stored without `ttl_s`.
    """

    def __init__(self, db: Database, retention_s: float = RETENTION_S) -> None:
        self.db = db
        self.retention_s = retention_s

    async def open(self) -> None:
        await self.purge_expired()

    async def purge_expired(self) -> None:
        """Delete expired values and history older than the retention."""
        await self.db.execute("DELETE FROM agent_conversation_state WHERE expires_at <= now()")
        await self.db.execute("DELETE FROM agent_history WHERE created_at < now() - make_interval(secs => %s)",
                              (self.retention_s,))

    async def history(self, agent: str, context_id: str, limit: int) -> list[dict[str, str]]:
        if limit <= 0:
            return []
        rows = await self.db.fetch(
            "SELECT role, text FROM (SELECT id, role, text FROM agent_history WHERE agent = %s AND context_id = %s"
            " ORDER BY id DESC LIMIT %s) AS last ORDER BY id", (agent, context_id, limit))
        return [{"role": str(r["role"]), "text": str(r["text"])} for r in rows]

    async def append(self, agent: str, context_id: str, turns: list[dict[str, str]], keep: int) -> None:
        # One statement (every task of every agent appends a turn): the DELETE sees the rows from before this
        # statement's INSERT, so it keeps `keep - len(turns)` of those.
        turns = turns[-keep:] if keep > 0 else []
        await self.db.execute(
            "WITH added AS (INSERT INTO agent_history (agent, context_id, role, text)"
            " SELECT %(agent)s, %(context)s, t.role, t.text"
            " FROM unnest(%(roles)s::text[], %(texts)s::text[]) WITH ORDINALITY AS t(role, text, n) ORDER BY t.n)"
            " DELETE FROM agent_history WHERE agent = %(agent)s AND context_id = %(context)s AND id <= ("
            " SELECT id FROM agent_history WHERE agent = %(agent)s AND context_id = %(context)s"
            " ORDER BY id DESC OFFSET %(offset)s LIMIT 1)",
            {"agent": agent, "context": context_id, "roles": [t["role"] for t in turns],
             "texts": [t["text"] for t in turns], "offset": keep - len(turns) if keep > 0 else 0})

    async def get(self, agent: str, context_id: str, key: str) -> Any:
        row = await self.db.fetchone(
            "SELECT value FROM agent_conversation_state WHERE agent = %s AND context_id = %s AND key = %s"
            " AND (expires_at IS NULL OR expires_at > now())", (agent, context_id, key))
        return None if row is None else row["value"]

    async def put(self, agent: str, context_id: str, key: str, value: Any, ttl_s: float | None = None) -> None:
        await self.db.execute(
            "INSERT INTO agent_conversation_state (agent, context_id, key, value, updated_at, expires_at)"
            " VALUES (%s, %s, %s, %s, now(), now() + make_interval(secs => %s))"
            " ON CONFLICT (agent, context_id, key) DO UPDATE SET value = EXCLUDED.value,"
            " updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at",
            (agent, context_id, key, Jsonb(value), self.retention_s if ttl_s is None else ttl_s))

    async def take(self, agent: str, context_id: str, key: str) -> Any:
        # One statement: of two concurrent takers only one gets the row.
        row = await self.db.fetchone(
            "DELETE FROM agent_conversation_state WHERE agent = %s AND context_id = %s AND key = %s"
            " RETURNING value, expires_at IS NULL OR expires_at > now() AS live", (agent, context_id, key))
        return row["value"] if row is not None and row["live"] else None


async def ensure_state_schema(db: Database, default_model: str, default_dimension: int) -> None:
    """Apply pending migrations when the state tables are missing (an agent started alone on a database).

    The embedding model recorded in the database is reused, so this never trips the model check; on a
    fresh database the configured model is recorded, as the launcher does.
    """
    row = await db.fetchone("SELECT to_regclass('a2a_tasks') IS NOT NULL AND "
                            "to_regclass('agent_conversation_state') IS NOT NULL AS ready, "
                            "to_regclass('hub_meta') IS NOT NULL AS has_meta")
    if row is not None and row["ready"]:
        return
    model, dimension = default_model, default_dimension
    if row is not None and row["has_meta"]:
        meta = {r["key"]: r["value"] for r in await db.fetch(
            "SELECT key, value FROM hub_meta WHERE key IN ('embedding_model', 'embedding_dim')")}
        if meta.get("embedding_model") and str(meta.get("embedding_dim", "")).isdigit():
            model, dimension = str(meta["embedding_model"]), int(meta["embedding_dim"])
    await migrate(db.url, model, dimension)


class AgentState:
    """An agent app's state on the hub database: the SDK task store and the conversation store.

    Args:
        url: the hub database (libpq URL).
        embedding_model / embedding_dim: recorded on a fresh database if this process has to migrate it.
    """

    def __init__(self, url: str, embedding_model: str = "", embedding_dim: int = 0) -> None:
        self.url = url
        self.embedding_model = embedding_model
        self.embedding_dim = embedding_dim
        # Tasks: a pool of their own (up to 7 connections, kept open while in use: a burst does not reconnect;
        # a burst's saves wait their turn), and an SQLAlchemy engine of one connection for the SDK's rare `list`
        # and `delete` — 8 in all, as before (Postgres allows 100 and every process and replica has its pools);
        # conversations: the process's shared pool.
        self.task_db = Database(url, max_size=7, timeout_s=TASK_POOL_TIMEOUT_S)
        self.engine = task_engine(url)
        self.task_store = WriteOnStateChange(database_task_store(self.engine, self.task_db))
        self.db = Database(url)  # replaced by the shared pool in `open`
        self.conversations = PostgresConversationStore(self.db)

    async def open(self) -> None:
        self.db = self.conversations.db = await open_shared(self.url)
        try:
            await self.task_db.open()
            await ensure_state_schema(self.db, self.embedding_model, self.embedding_dim)
            await self.conversations.open()
            await self.db.execute(f"DELETE FROM {TASK_TABLE} WHERE last_updated < "
                                  "(now() AT TIME ZONE 'utc') - make_interval(secs => %s)", (RETENTION_S,))
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        await close_shared(self.db)
        await self.task_db.close()
        await self.engine.dispose()
