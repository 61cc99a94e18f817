"""File records in Postgres (`file_records`, migrations 0004 and 0007)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from ai_llm.common.store.db import Database

INDEXING, INDEXED, SKIPPED, ERROR = "indexing", "indexed", "skipped", "error"
#: What a stored file is: a person's upload, or a report the hub wrote from earlier answers.
UPLOAD, REPORT = "upload", "report"
SOURCE_KINDS = (UPLOAD, REPORT)
_COLUMNS = ("id, name, stored_name, size, content_type, sha256, uploaded_at, index_status, index_error, "
            "chunks, storage_ref, source_kind, owner_id, visibility")


class DuplicateName(Exception):
    """Another record already has this display name."""


@dataclass
class FileRecord:
    """One stored file as the contract describes it (`to_dict`)."""

    id: str
    name: str
    stored_name: str
    size: int
    content_type: str
    sha256: str
    uploaded_at: datetime
    index_status: str
    index_error: str | None
    chunks: int
    storage_ref: str
    source_kind: str = UPLOAD
    owner_id: str | None = None  # the person the file belongs to; None: stored by the service credential
    visibility: str = "everyone"  # private | team:<name> | everyone

    @property
    def download_url(self) -> str:
        return f"/api/files/{self.id}/download"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "size": self.size, "content_type": self.content_type,
                "sha256": self.sha256, "uploaded_at": self.uploaded_at.isoformat(),
                "index_status": self.index_status, "index_error": self.index_error, "chunks": self.chunks,
                "storage_ref": self.storage_ref, "download_url": self.download_url, "source_kind": self.source_kind,
                "owner_id": self.owner_id, "visibility": self.visibility}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FileRecord:
        return cls(**{**row, "id": str(row["id"])})


def _uuid(file_id: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(file_id))
    except ValueError:
        return None


class FileRecords:
    """Repository of file records."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def insert(self, record: FileRecord) -> None:
        """Insert; `DuplicateName` when the name is taken (the caller picks the next suffix)."""
        try:
            await self.db.execute(
                f"INSERT INTO file_records ({_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (record.id, record.name, record.stored_name, record.size, record.content_type, record.sha256,
                 record.uploaded_at, record.index_status, record.index_error, record.chunks,
                 record.storage_ref, record.source_kind, record.owner_id, record.visibility))
        except psycopg.errors.UniqueViolation as exc:
            if "name" in str(exc.diag.constraint_name or ""):
                raise DuplicateName(record.name) from exc
            raise

    async def get(self, file_id: str) -> FileRecord | None:
        key = _uuid(file_id)
        if key is None:
            return None
        row = await self.db.fetchone(f"SELECT {_COLUMNS} FROM file_records WHERE id = %s", (key,))
        return FileRecord.from_row(row) if row else None

    async def all(self) -> list[FileRecord]:
        rows = await self.db.fetch(f"SELECT {_COLUMNS} FROM file_records ORDER BY uploaded_at DESC, name")
        return [FileRecord.from_row(r) for r in rows]

    async def names(self) -> set[str]:
        return {r["name"] for r in await self.db.fetch("SELECT name FROM file_records")}

    async def by_sha256(self, sha256: str) -> list[FileRecord]:
        rows = await self.db.fetch(f"SELECT {_COLUMNS} FROM file_records WHERE sha256 = %s", (sha256,))
        return [FileRecord.from_row(r) for r in rows]

    async def in_status(self, status: str) -> list[FileRecord]:
        rows = await self.db.fetch(f"SELECT {_COLUMNS} FROM file_records WHERE index_status = %s", (status,))
        return [FileRecord.from_row(r) for r in rows]

    async def set_index(self, file_id: str, status: str, error: str | None = None,
                        chunks: int | None = None) -> None:
        await self.db.execute(
            "UPDATE file_records SET index_status = %s, index_error = %s, chunks = COALESCE(%s, chunks) "
            "WHERE id = %s", (status, error, chunks, _uuid(file_id)))

    async def rename(self, file_id: str, name: str) -> None:
        try:
            await self.db.execute("UPDATE file_records SET name = %s WHERE id = %s", (name, _uuid(file_id)))
        except psycopg.errors.UniqueViolation as exc:
            raise DuplicateName(name) from exc

    async def set_visibility(self, file_id: str, visibility: str) -> None:
        await self.db.execute("UPDATE file_records SET visibility = %s WHERE id = %s", (visibility, _uuid(file_id)))

    async def delete(self, file_id: str) -> None:
        await self.db.execute("DELETE FROM file_records WHERE id = %s", (_uuid(file_id),))
