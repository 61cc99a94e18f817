"""File records in Postgres (`file_records`, migrations 0004, 0007, 0014 and 0017)."""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import psycopg

from ai_llm.common.store.db import Database

INDEXING, INDEXED, SKIPPED, ERROR = "indexing", "indexed", "skipped", "error"
#: A file kept out of the index on purpose: a report, until its person adds it to the documents.
NOT_INDEXED = "not_indexed"
INDEX_STATUSES = (INDEXING, INDEXED, SKIPPED, ERROR, NOT_INDEXED)
#: What a stored file is: a person's upload, or a report the hub wrote from earlier answers.
UPLOAD, REPORT = "upload", "report"
SOURCE_KINDS = (UPLOAD, REPORT)
_COLUMNS = ("id, name, stored_name, size, content_type, sha256, uploaded_at, index_status, index_error, "
            "chunks, storage_ref, source_kind, owner_id, visibility, index_attempts, alternates, index_reason")


class DuplicateName(Exception):
    """Another record already has this display name."""


@dataclass
class Alternate:
    """The record's document in another format (a report's DOCX), stored beside the record's own bytes."""

    format: str  # the extension without its dot: `docx`
    stored_name: str
    content_type: str
    size: int
    sha256: str

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Alternate:
        return cls(str(value["format"]), str(value["stored_name"]), str(value["content_type"]),
                   int(value["size"]), str(value["sha256"]))


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
    index_attempts: int = 0  # tries in a row without a result (see migration 0017)
    alternates: list[Alternate] = field(default_factory=list)
    index_reason: str | None = None  # the catalog key of `index_error` (see migration 0018)

    @property
    def download_url(self) -> str:
        return f"/api/files/{self.id}/download"

    def alternate(self, fmt: str) -> Alternate | None:
        return next((a for a in self.alternates if a.format == fmt), None)

    def alternate_name(self, fmt: str) -> str:
        """The record's name with the alternate's extension: `보고서.md` → `보고서.docx`."""
        stem, dot, _ = self.name.rpartition(".")
        return f"{stem if dot else self.name}.{fmt}"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "size": self.size, "content_type": self.content_type,
                "sha256": self.sha256, "uploaded_at": self.uploaded_at.isoformat(),
                "index_status": self.index_status, "index_error": self.index_error, "chunks": self.chunks,
                "storage_ref": self.storage_ref, "download_url": self.download_url, "source_kind": self.source_kind,
                "owner_id": self.owner_id, "visibility": self.visibility, "index_attempts": self.index_attempts,
                "index_reason": self.index_reason,
                "alternates": [{"format": a.format, "name": self.alternate_name(a.format), "size": a.size,
                                "content_type": a.content_type,
                                "download_url": f"{self.download_url}?format={a.format}"} for a in self.alternates]}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FileRecord:
        alternates = row.get("alternates") or []
        if isinstance(alternates, str):
            alternates = json.loads(alternates)
        return cls(**{**row, "id": str(row["id"]), "index_attempts": int(row.get("index_attempts") or 0),
                      "alternates": [Alternate.from_json(a) for a in alternates if isinstance(a, dict)]})


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
                f"INSERT INTO file_records ({_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (record.id, record.name, record.stored_name, record.size, record.content_type, record.sha256,
                 record.uploaded_at, record.index_status, record.index_error, record.chunks,
                 record.storage_ref, record.source_kind, record.owner_id, record.visibility, record.index_attempts,
                 json.dumps([asdict(a) for a in record.alternates]), record.index_reason))
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
                        chunks: int | None = None, attempts: int | None = None, reason: str | None = None) -> None:
        """Set the index status and the message a person reads (`error`, with its catalog key `reason`);
        `chunks` and `attempts` when given."""
        await self.db.execute(
            "UPDATE file_records SET index_status = %s, index_error = %s, index_reason = %s, "
            "chunks = COALESCE(%s, chunks), index_attempts = COALESCE(%s, index_attempts) WHERE id = %s",
            (status, error, reason, chunks, attempts, _uuid(file_id)))

    async def count_attempt(self, file_id: str) -> int | None:
        """Record one more try of a file being indexed, before the document is sent; returns the try's number
        (None when the file is gone or no longer `indexing`)."""
        row = await self.db.fetchone(
            "UPDATE file_records SET index_attempts = index_attempts + 1 WHERE id = %s AND index_status = %s "
            "RETURNING index_attempts", (_uuid(file_id), INDEXING))
        return int(row["index_attempts"]) if row else None

    async def add_alternate(self, file_id: str, alternate: Alternate) -> None:
        """Add (or replace) the record's alternate of `alternate.format`."""
        await self.db.execute(
            "UPDATE file_records SET alternates = (SELECT coalesce(jsonb_agg(a), '[]'::jsonb) "
            "FROM jsonb_array_elements(alternates) a WHERE a->>'format' <> %s) || jsonb_build_array(%s::jsonb) "
            "WHERE id = %s", (alternate.format, json.dumps(asdict(alternate)), _uuid(file_id)))

    async def rename(self, file_id: str, name: str) -> None:
        try:
            await self.db.execute("UPDATE file_records SET name = %s WHERE id = %s", (name, _uuid(file_id)))
        except psycopg.errors.UniqueViolation as exc:
            raise DuplicateName(name) from exc

    async def set_visibility(self, file_id: str, visibility: str) -> None:
        await self.db.execute("UPDATE file_records SET visibility = %s WHERE id = %s", (visibility, _uuid(file_id)))

    async def delete(self, file_id: str) -> None:
        await self.db.execute("DELETE FROM file_records WHERE id = %s", (_uuid(file_id),))
