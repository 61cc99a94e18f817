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
import uuid
from collections import defaultdict
from collections.abc import AsyncIterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ai_llm.common.identity import check_visibility, current_viewer, may_change
from ai_llm.common.messages import message
from ai_llm.file_management_agent.document_store import DocumentStore, StoreError, UnsafePath
from ai_llm.file_management_agent.file_records import (
    ERROR,
    INDEXED,
    INDEXING,
    REPORT,
    SKIPPED,
    SOURCE_KINDS,
    UPLOAD,
    DuplicateName,
    FileRecord,
    FileRecords,
)
from ai_llm.file_management_agent.file_safety import (
    InvalidFileName,
    UnsupportedContent,
    detect_type,
    next_free_name,
    sanitize_name,
    split_ext,
)
from ai_llm.file_management_agent.rag_index import DocumentIndex, IndexUnavailable

log = logging.getLogger(__name__)

#: Why a report's record says `skipped`: a report is its person's file, not a source of answers, until they add it
#: to the documents (`FileService.reindex`).
REPORT_NOT_INDEXED = "a report of the hub: not a search source until added to the documents (reindex)"


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


@dataclass
class UploadResult:
    """A stored file plus what the person should know about it."""

    record: FileRecord
    notices: list[str] = field(default_factory=list)
    duplicate_of: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**self.record.to_dict(), "notices": self.notices, "duplicate_of": self.duplicate_of}


class FileService:
    """Upload, list, read, rename, delete and re-index files.

    Args:
        records: the file-record repository.
        store: where the bytes live.
        index: the RAG index kept in step (`RagIndex`: the RAG agent's indexing skills).
        max_bytes: upload size limit (`settings.max_upload_bytes`).
        language: the language of the index messages a person reads in a record (`settings.ui_language`).

    Indexing survives an outage of the RAG agent: when it is unreachable, drops the connection or fails the task,
    the record stays `indexing` with a message saying it will be retried (the error's own text goes to the log),
    the agent is asked again after `retry_s`, doubling up to `retry_max_s`, and the document is sent again once
    the agent answers. Only a document sent `max_attempts` times in a row without a result ends as `error` (after
    the first, a try is made only when the agent answers: such a document may be what brings it down); a bad
    document ends as `error` at once, with the agent's reason.
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
        (`reindex`, `POST /files/{id}/reindex`); its record says `skipped` with the reason `REPORT_NOT_INDEXED`.
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
                detected = await asyncio.to_thread(detect_type, spool, clean)
            except UnsupportedContent as exc:
                raise UnsupportedFile(str(exc)) from exc
            file_id = str(uuid.uuid4())
            key = uuid.UUID(file_id).hex + detected.extension
            try:
                await self.store.put_file(spool, key, detected.content_type)
            except StoreError as exc:
                raise StoreFailure(str(exc)) from exc
        finally:
            spool.unlink(missing_ok=True)
        sha256 = digest.hexdigest()
        notices: list[str] = []
        if detected.corrected:
            notices.append(f"content is {detected.content_type}; stored as {detected.name}")
        duplicates = [r.name for r in await self.records.by_sha256(sha256) if viewer.may_read(r.owner_id, r.visibility)]
        report = source_kind == REPORT
        record = FileRecord(id=file_id, name=detected.name, stored_name=key, size=size,
                            content_type=detected.content_type, sha256=sha256, uploaded_at=datetime.now(UTC),
                            index_status=SKIPPED if report else INDEXING,
                            index_error=REPORT_NOT_INDEXED if report else None, chunks=0,
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
        """Index until the file is done (`indexed`, `skipped`, `error`) or gone, waiting out an agent outage."""
        attempts = 0  # tries in a row without a result
        delay = self.retry_s
        while True:
            failure = await self._index_once(file_id, attempts + 1)
            if failure is None:
                return
            attempts += 1
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

    async def _index_once(self, file_id: str, attempt: int) -> IndexUnavailable | None:
        """One try; returns the transient failure when the file is to be tried again, else None (the record
        says how it ended, or the file is gone)."""
        async with self._locks[file_id]:
            record = await self.records.get(file_id)
            if record is None or record.index_status != INDEXING:
                return None
            try:
                path = self.store.local_path(record.stored_name)
                content = None if path is not None else await self.store.read_all(record.stored_name)
                result = await self.index.index(storage_ref=record.storage_ref, file_name=record.name,
                                                file_url=record.download_url, file_id=record.id, path=path,
                                                content=content, source_kind=record.source_kind,
                                                owner_id=record.owner_id, visibility=record.visibility)
            except IndexUnavailable as exc:
                if exc.transient and attempt < self.max_attempts:
                    log.warning("indexing %s: the RAG agent is unavailable (try %d); retrying: %s",
                                file_id, attempt, exc)
                    await self.records.set_index(file_id, INDEXING, message("files.index_waiting", self.language))
                    return exc
                log.error("indexing %s failed (try %d): %s", file_id, attempt, exc)
                await self.records.set_index(file_id, ERROR, message(
                    "files.index_gave_up" if exc.transient else "files.index_failed", self.language))
            except StoreError as exc:
                log.error("indexing %s failed: the stored file could not be read: %s", file_id, exc)
                await self.records.set_index(file_id, ERROR, message("files.index_failed", self.language))
            except Exception:  # never leave a record stuck in `indexing`
                log.exception("indexing %s failed", file_id)
                await self.records.set_index(file_id, ERROR, message("files.index_failed", self.language))
            else:
                if result.status == "success":
                    await self.records.set_index(file_id, INDEXED, None, result.chunks)
                elif result.status == "skipped":
                    await self.records.set_index(file_id, SKIPPED, result.reason or None,
                                                 result.chunks or None)
                else:
                    await self.records.set_index(
                        file_id, ERROR, result.reason or message("files.index_failed", self.language), 0)
            finally:
                self.index_runs += 1
            return None

    async def reindex(self, file_id: str) -> FileRecord:
        """Retry indexing (a file marked `error`, or a forced refresh)."""
        async with self._locks[file_id]:
            record = await self._get(file_id, change=True)
            if record.index_status == INDEXING and file_id in self._tasks:
                if file_id in self._waiting:  # waiting for the RAG agent: try again now
                    self._waiting[file_id].set()
                return record
            await self.records.set_index(file_id, INDEXING, None)
            record.index_status, record.index_error = INDEXING, None
        self.start_indexing(file_id)
        return record

    async def resume(self) -> int:
        """Restart indexing of records a previous process left in `indexing` (cut off, or waiting for the RAG
        agent); returns how many."""
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
        """Delete the file's chunks, its bytes and its record (in that order)."""
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
            try:
                await self.store.delete(record.stored_name)
            except UnsafePath:
                log.warning("refused to delete unsafe object for %s", file_id)
            except StoreError as exc:
                raise StoreFailure(str(exc)) from exc
            await self.records.delete(file_id)
        self._locks.pop(file_id, None)
        return {"id": file_id, "name": record.name, "deleted": True, "deleted_chunks": deleted_chunks}
