"""File operations that keep the store, the records and the RAG index in step.

Every operation on one file runs under that file's lock, so an upload's background indexing, a rename
and a delete never interleave: a delete waits for indexing to finish and then removes the chunks, a
rename updates the chunks' `file_name`/`file_url` in the same critical section as the record.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import uuid
from collections import defaultdict
from collections.abc import AsyncIterable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import psycopg

from ai_llm.common.identity import check_visibility, current_viewer, may_change
from ai_llm.common.messages import message
from ai_llm.file_management_agent.document_store import DocumentStore, StoreError, UnsafePath
from ai_llm.file_management_agent.file_records import (
    ERROR,
    INDEXED,
    INDEXING,
    NOT_INDEXED,
    REPORT,
    SKIPPED,
    SOURCE_KINDS,
    UPLOAD,
    Alternate,
    DuplicateName,
    FileRecord,
    FileRecords,
)
from ai_llm.file_management_agent.file_safety import (
    DetectedType,
    InvalidFileName,
    UnsupportedContent,
    detect_type,
    next_free_name,
    sanitize_name,
    split_ext,
)
from ai_llm.file_management_agent.index_reasons import index_error_reason, skipped_reason_key
from ai_llm.file_management_agent.rag_index import DocumentIndex, IndexUnavailable

log = logging.getLogger(__name__)

#: An alternate format's name: lowercase letters and digits, as an extension without its dot (`docx`).
FORMAT_NAME = re.compile(r"[a-z0-9]{1,10}")


class FileError(Exception):
    """A file operation refused or failed; `status_code` is its HTTP status, `code` a stable id."""

    status_code = 400
    code = "bad_request"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadFileName(FileError):
    code = "invalid_name"


class BadSourceKind(FileError):
    code = "invalid_source_kind"


class EmptyFile(FileError):
    code = "empty_file"


class FileTooLarge(FileError):
    status_code = 413
    code = "too_large"


class UnsupportedFile(FileError):
    status_code = 415
    code = "unsupported_type"


class BadVisibility(FileError):
    status_code = 422
    code = "invalid_visibility"


class NotYours(FileError):
    status_code = 403
    code = "forbidden"


class FileNotFound(FileError):
    status_code = 404
    code = "not_found"


class IndexOutOfStep(FileError):
    """The RAG agent could not be told about the change, so nothing was changed."""

    status_code = 502
    code = "index_unavailable"


class StoreFailure(FileError):
    status_code = 500
    code = "store_error"


class FormatNotFound(FileError):
    status_code = 404
    code = "format_not_found"


class BadFormat(FileError):
    status_code = 415
    code = "bad_format"


class FormatExists(FileError):
    status_code = 409
    code = "format_exists"


class AlreadyIndexed(FileError):
    """`add_to_documents` of a file that is indexed (or whose same content is) already."""

    status_code = 409
    code = "already_indexed"


class StillIndexing(FileError):
    """`add_to_documents` of a file being indexed now."""

    status_code = 409
    code = "indexing"


@dataclass
class StoredObject:
    """What `content` serves: one format of a record's document."""

    name: str
    stored_name: str
    content_type: str
    size: int
    sha256: str


@dataclass
class UploadResult:
    """A stored file plus what the person should know about it."""

    record: FileRecord
    notices: list[str] = field(default_factory=list)
    duplicate_of: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**self.record.to_dict(), "notices": self.notices, "duplicate_of": self.duplicate_of}


class FileService:
    """Upload, list, read, rename, delete and index files; a record may hold other formats of its document.

    Args:
        records: the file-record repository.
        store: where the bytes live.
        index: the RAG index kept in step (`RagIndex`: the RAG agent's indexing skills).
        max_bytes: upload size limit (`settings.max_upload_bytes`).
        language: the language of the index messages a person reads in a record (`settings.ui_language`).

    Indexing survives an outage: when the RAG agent is unreachable, drops the connection or fails the task, when it
    answers that its own machinery failed (its embedding server or database away), when the store cannot be read,
    the record stays `indexing` with a message saying it will be retried (the cause's own text goes to the log),
    the agent is asked again after `retry_s`, doubling up to `retry_max_s`, and the document is sent again once
    the agent answers; Postgres away is waited out the same way. Each try is counted in the record before the
    document is sent (`index_attempts`), so a restart of the file agent or of Postgres continues the count: only a
    document tried `max_attempts` times in a row without a result ends as `error` (after the first, a try is made
    only when the agent answers: such a document may be what brings it down). A document the agent refuses
    (no text, damaged, password) ends as `error` at once. Every message is the catalog's (`files.index_*`): what
    happened and what the person can do.
    """

    retry_s = 2.0
    retry_max_s = 60.0
    max_attempts = 5

    def __init__(self, records: FileRecords, store: DocumentStore, index: DocumentIndex, max_bytes: int,
                 language: str = "ko") -> None:
        self.records = records
        self.store = store
        self.index = index
        self.max_bytes = max_bytes
        self.language = language
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._waiting: dict[str, asyncio.Event] = {}  # files between two tries; set to try again now
        self.index_runs = 0  # indexing attempts finished (tests and telemetry)

    # -- upload ---------------------------------------------------------------------------
    async def upload(self, name: str, chunks: AsyncIterable[bytes], declared_size: int | None = None,
                     source_kind: str = UPLOAD, visibility: str | None = None) -> UploadResult:
        """Stream `chunks` into the store as `name`; indexing starts in the background.

        The size limit is enforced while reading (nothing over the limit is kept), the type is decided
        by content, a taken name gets a ` (n)` suffix. `source_kind` is `upload` (a person's document) or
        `report` (the hub's own report); it is recorded and sent to the RAG index with the document. A report
        is not indexed: it is its person's file, not a source of answers, until they add it to the documents
        (`add_to_documents`, `POST /files/{id}/index`); until then its record says `not_indexed`.
        """
        if source_kind not in SOURCE_KINDS:
            raise BadSourceKind(f"source_kind must be one of {', '.join(SOURCE_KINDS)}, not {source_kind!r}")
        viewer = current_viewer.get()
        # A person's upload is private unless they say otherwise; the service's (a script, a hub without
        # people) is everyone's, as files were before owners.
        try:
            chosen = check_visibility(visibility or ("private" if viewer.user_id else "everyone"), viewer.teams,
                                      viewer.admin or viewer.user_id is None)
        except ValueError as exc:
            raise BadVisibility(str(exc)) from exc
        try:
            clean = sanitize_name(name)
        except InvalidFileName as exc:
            raise BadFileName(str(exc)) from exc
        file_id = str(uuid.uuid4())
        detected, size, sha256, key = await self._receive(
            clean, chunks, declared_size, lambda found: uuid.UUID(file_id).hex + found.extension)
        notices: list[str] = []
        if detected.corrected:
            notices.append(f"content is {detected.content_type}; stored as {detected.name}")
        duplicates = [r.name for r in await self.records.by_sha256(sha256) if viewer.may_read(r.owner_id, r.visibility)]
        report = source_kind == REPORT
        record = FileRecord(id=file_id, name=detected.name, stored_name=key, size=size,
                            content_type=detected.content_type, sha256=sha256, uploaded_at=datetime.now(UTC),
                            index_status=NOT_INDEXED if report else INDEXING, index_error=None, chunks=0,
                            storage_ref=self.store.storage_ref(key), source_kind=source_kind,
                            owner_id=viewer.user_id, visibility=chosen)
        try:
            await self._insert_with_free_name(record)
        except BaseException:
            await self.store.delete(key)
            raise
        if record.name != detected.name:
            notices.append(f"a file named {detected.name} exists; stored as {record.name}")
        if not report:
            self.start_indexing(record.id)
        return UploadResult(record, notices, duplicates)

    async def _receive(self, name: str, chunks: AsyncIterable[bytes], declared_size: int | None,
                       key_of: Callable[[DetectedType], str]) -> tuple[DetectedType, int, str, str]:
        """Spool `chunks` (the size limit enforced while reading), decide the type by content, and store the
        bytes under `key_of(type)` (which may refuse the type); returns (type, size, sha256, key)."""
        if declared_size is not None and declared_size > self.max_bytes:
            raise FileTooLarge(self._too_large_message())
        spool = self.store.incoming / f"{uuid.uuid4().hex}.part"
        digest = hashlib.sha256()
        size = 0
        try:
            fd = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                async for chunk in chunks:
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FileTooLarge(self._too_large_message())
                    digest.update(chunk)
                    out.write(chunk)
            if size == 0:
                raise EmptyFile("the file is empty")
            try:
                detected = await asyncio.to_thread(detect_type, spool, name)
            except UnsupportedContent as exc:
                raise UnsupportedFile(str(exc)) from exc
            key = key_of(detected)
            try:
                await self.store.put_file(spool, key, detected.content_type)
            except StoreError as exc:
                raise StoreFailure(str(exc)) from exc
        finally:
            spool.unlink(missing_ok=True)
        return detected, size, digest.hexdigest(), key

    async def add_format(self, file_id: str, fmt: str, chunks: AsyncIterable[bytes],
                         declared_size: int | None = None) -> FileRecord:
        """Store the record's document in another format (`docx` beside a report's Markdown) as an alternate of
        the same record: its owner's (or an admin's) to add, served with `?format=`, deleted with the record,
        never indexed (the record's own bytes are what is indexed). The bytes must be of that format."""
        if not FORMAT_NAME.fullmatch(fmt):
            raise BadFormat(f"a format is an extension such as docx, not {fmt!r}")
        async with self._locks[file_id]:
            record = await self._get(file_id, change=True)
            if split_ext(record.stored_name)[1] == f".{fmt}" or record.alternate(fmt):
                raise FormatExists(f"{record.name} already has its {fmt} format")

            def key_of(found: DetectedType) -> str:
                if found.extension != f".{fmt}":
                    raise BadFormat(f"the content is {found.content_type}, not {fmt}")
                return f"{uuid.UUID(record.id).hex}-alt.{fmt}"

            detected, size, sha256, key = await self._receive(record.alternate_name(fmt), chunks, declared_size,
                                                              key_of)
            alternate = Alternate(fmt, key, detected.content_type, size, sha256)
            try:
                await self.records.add_alternate(file_id, alternate)
            except BaseException:
                await self.store.delete(key)
                raise
            record.alternates.append(alternate)
            return record

    async def stored_object(self, file_id: str, fmt: str | None = None) -> StoredObject:
        """The bytes to serve for the record (`fmt` None) or for its alternate `fmt`, if the viewer may read it."""
        record = await self._get(file_id)
        if not fmt or f".{fmt}" == split_ext(record.stored_name)[1]:
            return StoredObject(record.name, record.stored_name, record.content_type, record.size, record.sha256)
        alternate = record.alternate(fmt)
        if alternate is None:
            raise FormatNotFound(f"{record.name} has no {fmt} format")
        return StoredObject(record.alternate_name(fmt), alternate.stored_name, alternate.content_type,
                            alternate.size, alternate.sha256)

    async def upload_bytes(self, name: str, data: bytes, source_kind: str = UPLOAD) -> UploadResult:
        """Upload from memory (A2A `content_b64`, reports)."""

        async def one() -> Any:
            yield data

        return await self.upload(name, one(), len(data), source_kind)

    def _too_large_message(self) -> str:
        return f"the file is larger than the upload limit of {self.max_bytes / (1024 * 1024):g} MB"

    async def _insert_with_free_name(self, record: FileRecord) -> None:
        wanted = record.name
        for _ in range(50):
            record.name = next_free_name(wanted, await self.records.names())
            try:
                await self.records.insert(record)
                return
            except DuplicateName:
                continue  # another upload took the name meanwhile; pick the next suffix
        raise StoreFailure(f"could not find a free name for {wanted}")

    # -- indexing -------------------------------------------------------------------------
    def start_indexing(self, file_id: str) -> None:
        """Index the file in the background (the record says `indexing` until it is done)."""
        task = asyncio.create_task(self._index(file_id), name=f"index-{file_id}")
        self._tasks[file_id] = task
        task.add_done_callback(lambda t: self._tasks.pop(file_id, None) if self._tasks.get(file_id) is t else None)

    async def _index(self, file_id: str) -> None:
        """Index until the file is done (`indexed`, `skipped`, `error`) or gone, waiting out an outage of the
        RAG agent, of the store or of Postgres."""
        delay = self.retry_s
        while True:
            if not await self._index_once(file_id):
                return
            while True:  # wait, then try again only once the agent answers
                wake = self._waiting[file_id] = asyncio.Event()
                try:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), delay)
                finally:
                    self._waiting.pop(file_id, None)
                delay = min(delay * 2, self.retry_max_s)
                if wake.is_set() or await self._index_reachable():
                    break

    async def _index_reachable(self) -> bool:
        probe = getattr(self.index, "reachable", None)
        if probe is None:
            return True
        try:
            return bool(await probe())
        except Exception:  # a probe that fails says the agent is not back
            log.debug("RAG agent probe failed", exc_info=True)
            return False

    async def _index_once(self, file_id: str) -> bool:
        """One try; True when the file is to be tried again later (the record says why), False when the record
        says how it ended or the file is gone. Postgres away is waited out like the RAG agent (nothing about the
        file is known then; the try it began, if any, is already counted)."""
        async with self._locks[file_id]:
            try:
                return await self._try_index(file_id)
            except psycopg.Error as exc:  # the records' database is away (a restart): try again when it is back
                log.warning("indexing %s waits: the file records cannot be reached: %s", file_id, exc)
                return True

    async def _try_index(self, file_id: str) -> bool:
        record = await self.records.get(file_id)
        if record is None or record.index_status != INDEXING:
            return False
        if record.index_attempts >= self.max_attempts:  # the last try was cut off (a restart): the bound holds
            return await self._passing(file_id, record.index_attempts)
        attempt = await self.records.count_attempt(file_id)  # counted before the document is sent
        if attempt is None:
            return False
        try:
            path = self.store.local_path(record.stored_name)
            content = None if path is not None else await self.store.read_all(record.stored_name)
            result = await self.index.index(storage_ref=record.storage_ref, file_name=record.name,
                                            file_url=record.download_url, file_id=record.id, path=path,
                                            content=content, source_kind=record.source_kind,
                                            owner_id=record.owner_id, visibility=record.visibility)
        except IndexUnavailable as exc:
            if exc.transient:
                log.warning("indexing %s: the RAG agent is unavailable (try %d): %s", file_id, attempt, exc)
                return await self._passing(file_id, attempt)
            log.error("indexing %s failed (try %d): %s", file_id, attempt, exc)
            await self._ended(file_id, ERROR, "files.index_failed", 0)
        except StoreError as exc:  # the store away (Supabase unreachable), or an object gone
            log.warning("indexing %s: the stored file could not be read (try %d): %s", file_id, attempt, exc)
            return await self._passing(file_id, attempt)
        except psycopg.Error:
            raise
        except Exception:  # never leave a record stuck in `indexing`
            log.exception("indexing %s failed", file_id)
            await self._ended(file_id, ERROR, "files.index_failed", 0)
        else:
            if result.status == "success":
                await self._ended(file_id, INDEXED, None, result.chunks)
            elif result.status == "skipped":
                await self._ended(file_id, SKIPPED, skipped_reason_key(result.code),
                                  result.chunks or None)
            else:
                reason = index_error_reason(result.code)
                if reason.passing:
                    log.warning("indexing %s: the RAG agent could not finish (try %d): %s", file_id, attempt,
                                result.reason)
                    return await self._passing(file_id, attempt)
                log.info("indexing %s: the RAG agent refused the document: %s", file_id, result.reason)
                await self._ended(file_id, ERROR, reason.key, 0)
        finally:
            self.index_runs += 1
        return False

    async def _passing(self, file_id: str, attempt: int) -> bool:
        """A try failed for a reason that passes: wait and try again, unless `max_attempts` tries were made."""
        if attempt < self.max_attempts:
            await self.records.set_index(file_id, INDEXING, message("files.index_waiting", self.language),
                                         reason="files.index_waiting")
            return True
        log.error("indexing %s gave up after %d tries", file_id, attempt)
        await self.records.set_index(file_id, ERROR, message("files.index_gave_up", self.language, n=attempt),
                                     reason="files.index_gave_up")
        return False

    async def _ended(self, file_id: str, status: str, key: str | None, chunks: int | None) -> None:
        """The try had a result: the record says it (the catalog message `key`, if any), and the count of tries
        without one starts again."""
        text = message(key, self.language) if key else None
        await self.records.set_index(file_id, status, text, chunks, attempts=0, reason=key)

    async def reindex(self, file_id: str) -> FileRecord:
        """Index again (a forced refresh, or the file agent's `reindex` skill): a file waiting for the RAG agent
        is tried now; any other starts a new count of tries."""
        async with self._locks[file_id]:
            record = await self._get(file_id, change=True)
            if record.index_status == INDEXING and file_id in self._tasks:
                if file_id in self._waiting:  # waiting for the RAG agent: try again now
                    self._waiting[file_id].set()
                return record
            await self.records.set_index(file_id, INDEXING, None, attempts=0)
            record.index_status, record.index_error, record.index_attempts = INDEXING, None, 0
        self.start_indexing(file_id)
        return record

    async def add_to_documents(self, file_id: str) -> FileRecord:
        """A person adds their file to the documents that answer questions (`POST /files/{id}/index`): a file
        kept out of the index (a report: `not_indexed`) or one whose indexing failed (`error`: "다시 색인") is
        indexed now, with a new count of tries. Its owner's (or an admin's) to ask; `AlreadyIndexed` for a file
        indexed already (or whose same content is), `StillIndexing` for one being indexed."""
        async with self._locks[file_id]:
            record = await self._get(file_id, change=True)
            if record.index_status == INDEXING:
                raise StillIndexing(f"{record.name} is being indexed")
            if record.index_status in (INDEXED, SKIPPED):
                raise AlreadyIndexed(f"{record.name} is already in the documents")
            await self.records.set_index(file_id, INDEXING, None, attempts=0)
            record.index_status, record.index_error, record.index_attempts = INDEXING, None, 0
        self.start_indexing(file_id)
        return record

    async def resume(self) -> int:
        """Continue the indexing a previous process left (cut off mid-try, or waiting for the RAG agent, the store
        or Postgres): every record `indexing` in Postgres, each from its recorded count of tries; returns how
        many."""
        pending = await self.records.in_status(INDEXING)
        for record in pending:
            if record.id not in self._tasks:
                self.start_indexing(record.id)
        return len(pending)

    async def wait_idle(self) -> None:
        """Wait until no background indexing runs (a file waiting for the RAG agent to come back is idle)."""
        while True:
            busy = [task for file_id, task in self._tasks.items() if file_id not in self._waiting]
            if not busy:
                return
            await asyncio.wait(busy, timeout=0.1)

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    # -- queries --------------------------------------------------------------------------
    async def _get(self, file_id: str, change: bool = False) -> FileRecord:
        """The record, when the request's viewer may read it (else as unknown as a missing one); `change`:
        also when they may change it (owner or admin), else `NotYours`."""
        record = await self.records.get(file_id)
        viewer = current_viewer.get()
        if record is None or not viewer.may_read(record.owner_id, record.visibility):
            raise FileNotFound(f"no file with id {file_id}")
        if change and not may_change(viewer, record.owner_id):
            raise NotYours("only the file's owner (or an administrator) may change it")
        return record

    async def get(self, file_id: str) -> FileRecord:
        return await self._get(file_id)

    async def all(self) -> list[FileRecord]:
        """The files the request's viewer may read."""
        viewer = current_viewer.get()
        return [r for r in await self.records.all() if viewer.may_read(r.owner_id, r.visibility)]

    async def set_visibility(self, file_id: str, visibility: str) -> FileRecord:
        """Share a file differently (its owner or an admin); its chunks follow at once."""
        async with self._locks[file_id]:
            record = await self._get(file_id, change=True)
            viewer = current_viewer.get()
            try:
                chosen = check_visibility(visibility, viewer.teams, viewer.admin or viewer.everything)
            except ValueError as exc:
                raise BadVisibility(str(exc)) from exc
            if record.index_status in (INDEXED, SKIPPED):
                try:
                    await self.index.update(record.storage_ref, record.name, record.download_url, chosen)
                except IndexUnavailable as exc:
                    raise IndexOutOfStep(f"not changed: the RAG index could not be updated ({exc})") from exc
            await self.records.set_visibility(file_id, chosen)
            record.visibility = chosen
            return record

    # -- rename / delete ------------------------------------------------------------------
    async def rename(self, file_id: str, new_name: str) -> FileRecord:
        """Rename a file (its type's extension is kept); chunks get the new `file_name`."""
        try:
            clean = sanitize_name(new_name)
        except InvalidFileName as exc:
            raise BadFileName(str(exc)) from exc
        async with self._locks[file_id]:
            record = await self._get(file_id, change=True)
            stored_ext = split_ext(record.stored_name)[1]
            ext = split_ext(clean)[1]
            if ext != stored_ext:
                if ext and stored_ext != ".txt":
                    raise BadFileName(f"the extension must stay {stored_ext} (the content is {record.content_type})")
                clean = clean + stored_ext
            if clean == record.name:
                return record
            old = record.name
            for _ in range(50):
                candidate = next_free_name(clean, await self.records.names() - {old})
                try:
                    await self.records.rename(file_id, candidate)
                    break
                except DuplicateName:
                    continue
            else:
                raise StoreFailure(f"could not find a free name for {clean}")
            if record.index_status in (INDEXED, SKIPPED):
                try:
                    await self.index.update(record.storage_ref, candidate, record.download_url)
                except IndexUnavailable as exc:
                    await self.records.rename(file_id, old)
                    raise IndexOutOfStep(f"rename not done: the RAG index could not be updated ({exc})") from exc
            record.name = candidate
            return record

    async def delete(self, file_id: str) -> dict[str, Any]:
        """Delete the file's chunks, its bytes (every format's) and its record (in that order)."""
        async with self._locks[file_id]:
            record = await self._get(file_id, change=True)
            deleted_chunks = 0
            try:
                deleted_chunks = await self.index.delete(record.storage_ref)
            except IndexUnavailable as exc:
                if record.index_status in (INDEXED, SKIPPED):
                    raise IndexOutOfStep(
                        f"file kept: its chunks could not be removed from the RAG index ({exc})") from exc
                log.warning("chunks of %s not confirmed deleted (never indexed): %s", file_id, exc)
            for key in [record.stored_name, *(a.stored_name for a in record.alternates)]:
                try:
                    await self.store.delete(key)
                except UnsafePath:
                    log.warning("refused to delete unsafe object for %s", file_id)
                except StoreError as exc:
                    raise StoreFailure(str(exc)) from exc
            await self.records.delete(file_id)
        self._locks.pop(file_id, None)
        return {"id": file_id, "name": record.name, "deleted": True, "deleted_chunks": deleted_chunks}
