"""Conversations and their turns, persisted in Postgres (migrations `0005_chats.sql`, `0012_accounts.sql`).

Each conversation belongs to the person who started it (`owner_id`; None for the service credential or a hub
without accounts): every read and write names the owner, and another owner's conversation is as absent as an
unknown one."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from ai_llm.common.store.db import Database

TITLE_CHARS = 80


class ConversationNotFound(LookupError):
    """No conversation of that id belongs to the caller."""


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
                          quotes: list[dict[str, Any]] | None = None, owner_id: str | None = None,
                          usage: dict[str, Any] | None = None) -> None:
        """Append one turn, creating the conversation on its first message (one transaction);
        `ConversationNotFound` when the id is another owner's. A chat whose browser leaves cancels its request:
        the turn is still written whole (`Database.run`), and the connection goes back to the pool."""
        async def write(conn: psycopg.AsyncConnection[Any]) -> None:
            cur = await conn.execute(
                "INSERT INTO conversations (id, title, language, owner_id) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET updated_at = now() "
                "WHERE conversations.owner_id IS NOT DISTINCT FROM EXCLUDED.owner_id RETURNING id",
                (conversation_id, text[:TITLE_CHARS] if role == "user" else "", language, owner_id))
            if await cur.fetchone() is None:
                raise ConversationNotFound(conversation_id)
            await conn.execute(
                "INSERT INTO messages (conversation_id, role, text, intent, sources, steps, quotes, usage) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (conversation_id, role, text, intent, Jsonb(sources or []), Jsonb(steps or []),
                 Jsonb(quotes or []), Jsonb(usage or {})))

        await self.db.run(write, transaction=True)

    async def owned(self, conversation_id: str, owner_id: str | None) -> bool | None:
        """True when the conversation is the owner's, False when it is someone else's, None when unknown."""
        row = await self.db.fetchone("SELECT owner_id FROM conversations WHERE id = %s", (conversation_id,))
        return None if row is None else row["owner_id"] == owner_id

    async def history(self, conversation_id: str, limit: int | None = None,
                      owner_id: str | None = None) -> list[dict[str, Any]] | None:
        """The turns of the owner's conversation, oldest first (the last `limit` when given); None when
        unknown or someone else's."""
        exists = await self.db.fetchone("SELECT 1 AS found FROM conversations WHERE id = %s "
                                        "AND owner_id IS NOT DISTINCT FROM %s", (conversation_id, owner_id))
        if exists is None:
            return None
        if limit is None:
            rows = await self.db.fetch(
                "SELECT role, text, intent, sources, steps, quotes, usage, created_at FROM messages "
                "WHERE conversation_id = %s ORDER BY id", (conversation_id,))
        else:
            rows = await self.db.fetch(
                "SELECT * FROM (SELECT id, role, text, intent, sources, steps, quotes, usage, created_at FROM messages "
                "WHERE conversation_id = %s ORDER BY id DESC LIMIT %s) AS last ORDER BY id",
                (conversation_id, limit))
        return [{"role": r["role"], "text": r["text"], "intent": r["intent"], "sources": r["sources"],
                 "steps": r["steps"], "quotes": r["quotes"], "usage": r["usage"], "created_at": _iso(r["created_at"])}
                for r in rows]

    async def audit(self, limit: int = 100, username: str | None = None) -> list[dict[str, Any]]:
        """The latest answers of everyone, newest first, for administrators: who asked (the conversation's
        owner; None for the service credential), the question, the intent, the documents and pages quoted,
        and what the answer cost (`usage`)."""
        rows = await self.db.fetch(
            "SELECT m.id, m.created_at, m.intent, m.quotes, m.sources, m.usage, c.id AS conversation_id, "
            "u.username, (SELECT q.text FROM messages q WHERE q.conversation_id = m.conversation_id "
            "AND q.role = 'user' AND q.id < m.id ORDER BY q.id DESC LIMIT 1) AS question "
            "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
            "LEFT JOIN users u ON u.id = c.owner_id "
            "WHERE m.role = 'assistant' AND (%s::text IS NULL OR u.username = %s) "
            "ORDER BY m.id DESC LIMIT %s", (username, username, limit))
        return [{"time": _iso(r["created_at"]), "username": r["username"], "conversation_id": r["conversation_id"],
                 "question": r["question"] or "", "intent": r["intent"],
                 "documents": documents_read(r["quotes"], r["sources"]), "usage": r["usage"]} for r in rows]


    async def conversations(self, owner_id: str | None, query: str = "", limit: int = 100) -> list[dict[str, Any]]:
        """The owner's conversations, newest first; `query` matches the title or any turn's text."""
        query = query.replace("\x00", "").strip()  # Postgres text holds no NUL
        pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" if query else None
        rows = await self.db.fetch(
            "SELECT c.id, c.title, c.language, c.created_at, c.updated_at FROM conversations c "
            "WHERE c.owner_id IS NOT DISTINCT FROM %s AND (%s::text IS NULL OR c.title ILIKE %s OR EXISTS ("
            "SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.text ILIKE %s)) "
            "ORDER BY c.updated_at DESC LIMIT %s", (owner_id, pattern, pattern, pattern, limit))
        return [{"id": r["id"], "title": r["title"], "language": r["language"],
                 "created_at": _iso(r["created_at"]), "updated_at": _iso(r["updated_at"])} for r in rows]

    async def rename(self, conversation_id: str, owner_id: str | None, title: str) -> bool:
        row = await self.db.fetchone(
            "UPDATE conversations SET title = %s WHERE id = %s AND owner_id IS NOT DISTINCT FROM %s RETURNING id",
            (title.replace("\x00", "").strip()[:TITLE_CHARS], conversation_id, owner_id))
        return row is not None

    async def delete(self, conversation_id: str, owner_id: str | None) -> bool:
        row = await self.db.fetchone(
            "DELETE FROM conversations WHERE id = %s AND owner_id IS NOT DISTINCT FROM %s RETURNING id",
            (conversation_id, owner_id))
        return row is not None


def documents_read(quotes: list[dict[str, Any]], sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documents an answer quoted, each with its pages (or other locations), in the order first quoted;
    web pages are not documents and are left out."""
    read: dict[str, dict[str, Any]] = {}
    for item in [*quotes, *sources]:
        name = item.get("file_name")
        if not isinstance(name, str) or not name:
            continue
        entry = read.setdefault(name, {"file_name": name, "pages": []})
        location = item.get("location")
        pages = [item.get("page"), location.get("page") if isinstance(location, dict) else None,
                 *(item.get("pages") or [])]
        for page in pages:
            if isinstance(page, int) and not isinstance(page, bool) and page not in entry["pages"]:
                entry["pages"].append(page)
    for entry in read.values():
        entry["pages"].sort()
    return list(read.values())


def _iso(value: datetime) -> str:
    return value.isoformat()
