"""Conversations and their turns, persisted in Postgres (migration `0005_chats.sql`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from ai_llm.common.db import Database

TITLE_CHARS = 80


class ChatStore:
    """Reads and writes chat history.

    Args:
        db: the hub database (migrated).
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_message(self, conversation_id: str, role: str, text: str, *, language: str = "ko",
                          intent: str | None = None, sources: list[dict[str, Any]] | None = None,
                          steps: list[dict[str, Any]] | None = None,
                          quotes: list[dict[str, Any]] | None = None) -> None:
        """Append one turn, creating the conversation on its first message (one transaction)."""
        async with self.db.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO conversations (id, title, language) VALUES (%s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET updated_at = now()",
                (conversation_id, text[:TITLE_CHARS] if role == "user" else "", language))
            await conn.execute(
                "INSERT INTO messages (conversation_id, role, text, intent, sources, steps, quotes) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (conversation_id, role, text, intent, Jsonb(sources or []), Jsonb(steps or []),
                 Jsonb(quotes or [])))

    async def history(self, conversation_id: str, limit: int | None = None) -> list[dict[str, Any]] | None:
        """The turns of a conversation, oldest first (the last `limit` when given); None when unknown."""
        exists = await self.db.fetchone("SELECT 1 AS found FROM conversations WHERE id = %s", (conversation_id,))
        if exists is None:
            return None
        if limit is None:
            rows = await self.db.fetch(
                "SELECT role, text, intent, sources, steps, quotes, created_at FROM messages "
                "WHERE conversation_id = %s ORDER BY id", (conversation_id,))
        else:
            rows = await self.db.fetch(
                "SELECT * FROM (SELECT id, role, text, intent, sources, steps, quotes, created_at FROM messages "
                "WHERE conversation_id = %s ORDER BY id DESC LIMIT %s) AS last ORDER BY id",
                (conversation_id, limit))
        return [{"role": r["role"], "text": r["text"], "intent": r["intent"], "sources": r["sources"],
                 "steps": r["steps"], "quotes": r["quotes"], "created_at": _iso(r["created_at"])} for r in rows]


def _iso(value: datetime) -> str:
    return value.isoformat()
