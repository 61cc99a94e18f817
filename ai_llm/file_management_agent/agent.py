"""The file-management agent's A2A logic: skills (`upload`, `list`, `read`, `rename`, `delete`,
`reindex`) and natural-language instructions mapped to them.

A destructive operation on more than one file is not performed at once: the agent answers
`input-required` with the list and waits for "네/yes" (or "아니요/no") in the same A2A context. The pending
delete is kept in the conversation store the executor hands over (`AgentRequest.store`: Postgres when the
hub has a database), so another replica, or this one after a restart, can complete it; it expires after
`PENDING_TTL_S`, and only one "yes" can take it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
import logging
from dataclasses import asdict, dataclass
from typing import Any

from ai_llm.common import file_types
from ai_llm.common.a2a.events import (
    STATUS_ERROR,
    STATUS_NEEDS_CLARIFICATION,
    STATUS_NO_RESULT,
    STATUS_OK,
    AgentReply,
)
from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.identity import current_viewer, viewer_of_metadata
from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.messages import message
from ai_llm.common.store.conversations import ConversationStore, MemoryConversationStore
from ai_llm.file_management_agent.file_records import (
    ERROR,
    INDEXED,
    INDEXING,
    NOT_INDEXED,
    SKIPPED,
    FileRecord,
)
from ai_llm.file_management_agent.file_safety import PDF
from ai_llm.file_management_agent.file_service import FileError, FileService
from ai_llm.file_management_agent.http_routes import AUDIENCE
from ai_llm.file_management_agent.instructions import (
    FileCommand,
    FileCommandDraft,
    command_from_draft,
    draft_messages,
    is_no,
    is_yes,
    match_files,
    parse_instruction,
    strip_previous_results,
)

log = logging.getLogger(__name__)

PENDING_TTL_S = 600
#: The agent's name in the conversation store, and the key of a pending delete there.
STATE_AGENT = "file_management"
PENDING_KEY = "pending_delete"
READ_PREVIEW_CHARS = 4000
#: Index statuses the catalog names (`files.status_<status>`); another one is shown as it is.
_LABELLED_STATUSES = frozenset({INDEXING, INDEXED, SKIPPED, ERROR, NOT_INDEXED})

@dataclass
class PendingDeletion:
    """A multi-file delete waiting for "yes" (stored as JSON in the conversation store)."""

    file_ids: list[str]
    names: list[str]

    @classmethod
    def from_json(cls, value: Any) -> PendingDeletion | None:
        if not isinstance(value, dict) or not isinstance(value.get("file_ids"), list):
            return None
        return cls([str(i) for i in value["file_ids"]], [str(n) for n in value.get("names") or []])


class FileAgent:
    """A2A handler of the file-management agent.

    Args:
        service: the file operations.
        default_language: `ko` or `en` when the request does not say.
        llm: the hub's LLM port; it maps natural-language instructions (the rules do offline, and when the
            model fails).
    """

    def __init__(self, service: FileService, llm: LLM, default_language: str = "ko",
                 hub_token: str | None = None) -> None:
        self.hub_token = hub_token
        self.service = service
        self.default_language = default_language
        self.llm = llm
        # Used when a request carries no store (the handler called directly, without the A2A executor).
        self._local_store = MemoryConversationStore()

    async def __call__(self, request: AgentRequest, progress: Progress) -> AgentReply:
        # Every file this request lists, reads or changes is one its verified person may see.
        reset = current_viewer.set(viewer_of_metadata(self.hub_token, AUDIENCE, request.metadata))
        try:
            return await self._handle(request, progress)
        finally:
            current_viewer.reset(reset)

    async def _handle(self, request: AgentRequest, progress: Progress) -> AgentReply:
        lang = str(request.data.get("language") or self.default_language)
        try:
            pending = await self._take_pending(request)
            skill = request.data.get("skill")
            if pending and not skill:
                if is_yes(request.text):
                    return await self._delete(pending.file_ids, progress, lang)
                if is_no(request.text):
                    return AgentReply(message("files.cancelled", lang),
                                      {"status": STATUS_OK, "operation": "delete", "cancelled": True})
            if skill:
                return await self._skill(str(skill), request, progress, lang)
            return await self._instruction(request, progress, lang)
        except FileError as exc:
            return AgentReply(exc.message, {"status": STATUS_ERROR, "error": exc.code, "detail": exc.message})

    def _store(self, request: AgentRequest) -> ConversationStore:
        return request.store or self._local_store

    async def _take_pending(self, request: AgentRequest) -> PendingDeletion | None:
        """The conversation's pending delete, removed (any later message answers it or drops it)."""
        if not request.context_id:
            return None
        value = await self._store(request).take(STATE_AGENT, request.context_id, PENDING_KEY)
        return PendingDeletion.from_json(value)

    # -- skills with structured data ------------------------------------------------------
    async def _resolve(self, data: dict[str, Any]) -> list[FileRecord]:
        ids = list(data.get("file_ids") or []) + ([data["file_id"]] if data.get("file_id") else [])
        if ids:
            return [await self.service.get(str(i)) for i in ids]
        if data.get("name"):
            wanted = str(data["name"]).lower()
            return [r for r in await self.service.all() if r.name.lower() == wanted]
        return []

    async def _skill(self, skill: str, request: AgentRequest, progress: Progress, lang: str) -> AgentReply:
        data = request.data
        if skill == "upload":
            return await self._upload(request, progress, lang)
        if skill == "list":
            command = parse_instruction(str(data.get("query") or request.text or ""))
            command.operation = "list"
            return await self._list(command, progress, lang)
        targets = await self._resolve(data)
        if not targets:
            command = parse_instruction(strip_previous_results(request.text))
            command.operation = skill
            if skill == "rename" and data.get("new_name"):
                command.new_name = str(data["new_name"])
            return await self._run(command, request, progress, lang)
        if skill == "read":
            return await self._read(targets, progress, lang)
        if skill == "rename":
            if not data.get("new_name"):
                return AgentReply(message("files.need_name", lang),
                                  {"status": STATUS_NEEDS_CLARIFICATION, "operation": "rename"})
            return await self._rename(targets, str(data["new_name"]), progress, lang)
        if skill == "delete":
            return await self._confirm_or_delete(targets, request, progress, lang, confirmed=bool(data.get("confirm")))
        if skill == "reindex":
            return await self._reindex(targets, progress, lang)
        return AgentReply(f"unknown skill {skill!r}", {"status": STATUS_ERROR, "error": "unknown_skill"})

    async def _upload(self, request: AgentRequest, progress: Progress, lang: str) -> AgentReply:
        data = dict(request.data)
        if not data.get("content_b64") and data.get("files"):
            # An A2A file part (raw bytes) arrives as data["files"] from the executor.
            first = data["files"][0]
            data.setdefault("name", first.get("name"))
            data["content_b64"] = first.get("content_b64")
        if not data.get("content_b64") or not data.get("name"):
            return AgentReply(message("files.need_upload", lang),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "upload"})
        try:
            content = base64.b64decode(str(data["content_b64"]), validate=True)
        except (binascii.Error, ValueError):
            return AgentReply("content_b64 is not valid base64", {"status": STATUS_ERROR, "error": "bad_base64"})
        await progress(message("files.uploading", lang), stage="upload")
        result = await self.service.upload_bytes(str(data["name"]), content)
        if data.get("wait"):
            await self.service.wait_idle()
            result.record = await self.service.get(result.record.id)
        record = result.record
        text = message("files.uploaded", lang, name=record.name, size=record.size)
        if result.notices:
            text += "\n" + "\n".join(f"- {n}" for n in result.notices)
        return AgentReply(text, {"status": STATUS_OK, "operation": "upload", "files": [result.to_dict()]})

    # -- natural language -----------------------------------------------------------------
    async def _instruction(self, request: AgentRequest, progress: Progress, lang: str) -> AgentReply:
        names = [r.name for r in await self.service.all()]
        try:
            draft = await self.llm.parse(draft_messages(strip_previous_results(request.text), names),
                                         FileCommandDraft, purpose="file_instruction")
            command = command_from_draft(draft)
        except OfflineUnsupported:  # offline mode: the rules map the instruction
            command = parse_instruction(request.text)
        except LLMError as exc:  # the rules still understand the common phrasings
            log.warning("file instruction model failed, using rules: %s", exc)
            command = parse_instruction(request.text)
        return await self._run(command, request, progress, lang)

    async def _run(self, command: FileCommand, request: AgentRequest, progress: Progress,
                   lang: str) -> AgentReply:
        op = command.operation
        if op == "list":
            return await self._list(command, progress, lang)
        if op == "upload":
            return AgentReply(message("files.need_upload", lang),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "upload"})
        if op == "unknown":
            return AgentReply(message("files.unknown", lang),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "unknown"})
        records = await self.service.all()
        if op == "reindex" and not command.has_filter and not command.only_errors:
            command.only_errors = True  # "다시 색인해줘" means the failed ones
        if not command.has_filter and not command.all_files and not command.only_errors:
            names = ", ".join(r.name for r in records[:10])
            return AgentReply(message("files.which", lang, names=names or "-"),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": op})
        targets = match_files(records, command)
        if not targets:
            return AgentReply(message("files.none", lang),
                              {"status": STATUS_NO_RESULT, "operation": op, "files": []})
        if op == "delete":
            return await self._confirm_or_delete(targets, request, progress, lang, confirmed=False)
        if op == "reindex":
            return await self._reindex(targets, progress, lang)
        if len(targets) > 1:
            return AgentReply(message("files.which", lang, names=", ".join(r.name for r in targets)),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": op,
                               "files": [r.to_dict() for r in targets]})
        if op == "read":
            return await self._read(targets, progress, lang)
        if not command.new_name:
            return AgentReply(message("files.need_name", lang),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "rename"})
        return await self._rename(targets, command.new_name, progress, lang)

    # -- operations -----------------------------------------------------------------------
    def _line(self, record: FileRecord, lang: str) -> str:
        status = message(f"files.status_{record.index_status}", lang) if record.index_status in _LABELLED_STATUSES \
            else record.index_status
        when = record.uploaded_at.astimezone().strftime("%Y-%m-%d %H:%M")
        error = f" — {record.index_error}" if record.index_status in (ERROR, INDEXING) and record.index_error else ""
        # A record's other formats (a report's DOCX) are links beside its own.
        formats = "".join(f" · [{a.format.upper()}]({record.download_url}?format={a.format})" for a in record.alternates)
        return f"| [{record.name}]({record.download_url}){formats} | {record.size:,} | {when} | {status}{error} |"

    async def _list(self, command: FileCommand, progress: Progress, lang: str) -> AgentReply:
        await progress(message("files.listing", lang), stage="list")
        records = await self.service.all()
        targets = match_files(records, command)
        if not targets:
            return AgentReply(message("files.none", lang) if records else message("files.empty", lang),
                              {"status": STATUS_NO_RESULT, "operation": "list", "files": []})
        lines = [message("files.list_head", lang, n=len(targets)), "", message("files.list_columns", lang),
                 "| --- | ---: | --- | --- |", *[self._line(r, lang) for r in targets]]
        return AgentReply("\n".join(lines), {"status": STATUS_OK, "operation": "list",
                                             "files": [r.to_dict() for r in targets]})

    async def _confirm_or_delete(self, targets: list[FileRecord], request: AgentRequest, progress: Progress,
                                 lang: str, confirmed: bool) -> AgentReply:
        if len(targets) > 1 and not confirmed:
            if request.context_id:
                pending = PendingDeletion([r.id for r in targets], [r.name for r in targets])
                await self._store(request).put(STATE_AGENT, request.context_id, PENDING_KEY, asdict(pending),
                                               ttl_s=PENDING_TTL_S)
            text = message("files.confirm", lang, n=len(targets)) + "\n" \
                + "\n".join(f"- {r.name}" for r in targets)
            return AgentReply(text, {"status": STATUS_NEEDS_CLARIFICATION, "operation": "delete",
                                     "confirmation_required": True, "files": [r.to_dict() for r in targets]},
                              state="input_required")
        return await self._delete([r.id for r in targets], progress, lang)

    async def _delete(self, file_ids: list[str], progress: Progress, lang: str) -> AgentReply:
        await progress(message("files.deleting", lang), stage="delete")
        done: list[dict[str, Any]] = []
        errors: list[str] = []
        for file_id in file_ids:
            try:
                done.append(await self.service.delete(file_id))
            except FileError as exc:
                errors.append(exc.message)
        chunks = sum(d["deleted_chunks"] for d in done)
        text = message("files.deleted", lang, names=", ".join(d["name"] for d in done) or "-", chunks=chunks)
        if errors:
            text += "\n" + "\n".join(f"- {e}" for e in errors)
        status = STATUS_OK if done and not errors else STATUS_ERROR
        return AgentReply(text, {"status": status, "operation": "delete", "deleted": done, "errors": errors})

    async def _rename(self, targets: list[FileRecord], new_name: str, progress: Progress,
                      lang: str) -> AgentReply:
        if len(targets) != 1:
            return AgentReply(message("files.which", lang, names=", ".join(r.name for r in targets)),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "rename"})
        await progress(message("files.renaming", lang), stage="rename")
        old = targets[0].name
        record = await self.service.rename(targets[0].id, new_name)
        return AgentReply(message("files.renamed", lang, old=old, new=record.name),
                          {"status": STATUS_OK, "operation": "rename", "files": [record.to_dict()]})

    async def _reindex(self, targets: list[FileRecord], progress: Progress, lang: str) -> AgentReply:
        await progress(message("files.reindexing", lang), stage="reindex")
        records = [await self.service.reindex(r.id) for r in targets]
        return AgentReply(message("files.reindexed", lang, names=", ".join(r.name for r in records)),
                          {"status": STATUS_OK, "operation": "reindex", "files": [r.to_dict() for r in records]})

    async def _read(self, targets: list[FileRecord], progress: Progress, lang: str) -> AgentReply:
        if len(targets) != 1:
            return AgentReply(message("files.which", lang, names=", ".join(r.name for r in targets)),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "read"})
        await progress(message("files.reading", lang), stage="read")
        record = targets[0]
        content = await self.service.store.read_all(record.stored_name)
        preview = await asyncio.to_thread(text_preview, content, record.content_type)
        source = {"type": "file", "file_name": record.name, "file_id": record.id, "storage_ref": record.storage_ref,
                  "file_url": record.download_url, "pages": [], "page_label": "", "score": 1.0}
        text = f"**[{record.name}]({record.download_url})** ({record.size:,} bytes)\n\n{preview}"
        return AgentReply(text, {"status": STATUS_OK, "operation": "read", "files": [record.to_dict()],
                                 "sources": [source], "truncated": len(preview) >= READ_PREVIEW_CHARS})


def text_preview(content: bytes, content_type: str, limit: int = READ_PREVIEW_CHARS) -> str:
    """The first `limit` characters of a stored file's text (PDF pages marked `[페이지 N]`)."""
    if content_type == PDF:
        from pypdf import PdfReader

        out: list[str] = []
        size = 0
        for number, page in enumerate(PdfReader(io.BytesIO(content)).pages, start=1):
            text = (page.extract_text() or "").strip()
            out.append(f"[페이지 {number}]\n{text}")
            size += len(text)
            if size >= limit:
                break
        return "\n".join(out)[:limit]
    if content_type in (file_types.PNG, file_types.JPEG, file_types.TIFF):
        return ""  # an image's text comes from OCR at indexing; its search results quote it
    if content_type in file_types.BINARY_TYPES or content_type == file_types.HTML:
        from ai_llm.internal_rag_agent.document_parser import DocumentError, parse_document

        try:
            return parse_document(content, "preview" + file_types.BINARY_TYPES.get(content_type, ".html")).text[:limit]
        except DocumentError as exc:
            return exc.reason
    return content.decode("utf-8", errors="replace")[:limit]
