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

from ai_llm.common.a2a_server import AgentRequest, Progress
from ai_llm.common.conversation_store import ConversationStore, MemoryConversationStore
from ai_llm.common.events import (
    STATUS_ERROR,
    STATUS_NEEDS_CLARIFICATION,
    STATUS_NO_RESULT,
    STATUS_OK,
    AgentReply,
)
from ai_llm.common.llm import LLMError
from ai_llm.file_management_agent.file_records import FileRecord
from ai_llm.file_management_agent.file_safety import DOCX, PDF
from ai_llm.file_management_agent.file_service import FileError, FileService
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

MESSAGES = {
    "ko": {
        "listing": "📂 파일 목록을 확인하는 중…", "uploading": "📤 파일을 저장하는 중…",
        "deleting": "🗑️ 파일을 삭제하는 중…", "renaming": "✏️ 파일 이름을 바꾸는 중…",
        "reading": "📖 파일을 읽는 중…", "reindexing": "🔄 다시 색인하는 중…",
        "none": "조건에 맞는 파일이 없습니다.", "empty": "저장된 파일이 없습니다.",
        "list_head": "파일 {n}개:", "confirm": "다음 파일 {n}개를 삭제할까요? 진행하려면 '네', 취소하려면 '아니요'라고 답해 주세요.",
        "deleted": "삭제했습니다: {names} (색인 청크 {chunks}개 제거)", "cancelled": "삭제를 취소했습니다.",
        "renamed": "이름을 바꿨습니다: {old} → {new}", "uploaded": "저장했습니다: {name} ({size} bytes). 색인 중입니다.",
        "which": "어느 파일인지 알려 주세요: {names}", "unknown": "파일 작업을 이해하지 못했습니다. 예: '파일 목록 보여줘', "
        "'CDC 가이드 삭제해줘', '보고서.md 이름을 요약.md로 바꿔줘'.",
        "need_name": "바꿀 새 이름을 알려 주세요 (예: 'A.pdf 이름을 B.pdf로 바꿔줘').",
        "need_upload": "업로드할 파일을 함께 보내 주세요 (data: name, content_b64).",
        "reindexed": "다시 색인을 시작했습니다: {names}", "status": {"indexing": "색인 중", "indexed": "색인 완료",
                                                          "skipped": "건너뜀(동일 내용)", "error": "오류"},
    },
    "en": {
        "listing": "📂 Checking the file list…", "uploading": "📤 Storing the file…", "deleting": "🗑️ Deleting…",
        "renaming": "✏️ Renaming…", "reading": "📖 Reading the file…", "reindexing": "🔄 Re-indexing…",
        "none": "No file matches.", "empty": "No files are stored.", "list_head": "{n} file(s):",
        "confirm": "Delete these {n} files? Answer 'yes' to proceed or 'no' to cancel.",
        "deleted": "Deleted: {names} ({chunks} index chunks removed)", "cancelled": "Deletion cancelled.",
        "renamed": "Renamed: {old} → {new}", "uploaded": "Stored {name} ({size} bytes); indexing.",
        "which": "Which file do you mean? {names}", "unknown": "I did not understand the file operation. "
        "Examples: 'list files', 'delete the CDC guide', 'rename report.md to summary.md'.",
        "need_name": "Tell me the new name (e.g. 'rename A.pdf to B.pdf').",
        "need_upload": "Send the file with the request (data: name, content_b64).",
        "reindexed": "Re-indexing started: {names}",
        "status": {"indexing": "indexing", "indexed": "indexed", "skipped": "skipped (same content)",
                   "error": "error"},
    },
}


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
        llm: with an online model, instructions are mapped by it (rules on failure); offline, by rules.
    """

    def __init__(self, service: FileService, default_language: str = "ko", llm: Any = None) -> None:
        self.service = service
        self.default_language = default_language
        self.llm = llm
        # Used when a request carries no store (the handler called directly, without the A2A executor).
        self._local_store = MemoryConversationStore()

    def _m(self, lang: str) -> dict[str, Any]:
        return MESSAGES.get(lang, MESSAGES["ko"])

    async def __call__(self, request: AgentRequest, progress: Progress) -> AgentReply:
        lang = str(request.data.get("language") or self.default_language)
        m = self._m(lang)
        try:
            pending = await self._take_pending(request)
            skill = request.data.get("skill")
            if pending and not skill:
                if is_yes(request.text):
                    return await self._delete(pending.file_ids, progress, m)
                if is_no(request.text):
                    return AgentReply(m["cancelled"], {"status": STATUS_OK, "operation": "delete", "cancelled": True})
            if skill:
                return await self._skill(str(skill), request, progress, m)
            return await self._instruction(request, progress, m)
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

    async def _skill(self, skill: str, request: AgentRequest, progress: Progress, m: dict[str, Any]) -> AgentReply:
        data = request.data
        if skill == "upload":
            return await self._upload(request, progress, m)
        if skill == "list":
            command = parse_instruction(str(data.get("query") or request.text or ""))
            command.operation = "list"
            return await self._list(command, progress, m)
        targets = await self._resolve(data)
        if not targets:
            command = parse_instruction(strip_previous_results(request.text))
            command.operation = skill
            if skill == "rename" and data.get("new_name"):
                command.new_name = str(data["new_name"])
            return await self._run(command, request, progress, m)
        if skill == "read":
            return await self._read(targets, progress, m)
        if skill == "rename":
            if not data.get("new_name"):
                return AgentReply(m["need_name"], {"status": STATUS_NEEDS_CLARIFICATION, "operation": "rename"})
            return await self._rename(targets, str(data["new_name"]), progress, m)
        if skill == "delete":
            return await self._confirm_or_delete(targets, request, progress, m, confirmed=bool(data.get("confirm")))
        if skill == "reindex":
            return await self._reindex(targets, progress, m)
        return AgentReply(f"unknown skill {skill!r}", {"status": STATUS_ERROR, "error": "unknown_skill"})

    async def _upload(self, request: AgentRequest, progress: Progress, m: dict[str, Any]) -> AgentReply:
        data = dict(request.data)
        if not data.get("content_b64") and data.get("files"):
            # An A2A file part (raw bytes) arrives as data["files"] from the executor.
            first = data["files"][0]
            data.setdefault("name", first.get("name"))
            data["content_b64"] = first.get("content_b64")
        if not data.get("content_b64") or not data.get("name"):
            return AgentReply(m["need_upload"], {"status": STATUS_NEEDS_CLARIFICATION, "operation": "upload"})
        try:
            content = base64.b64decode(str(data["content_b64"]), validate=True)
        except (binascii.Error, ValueError):
            return AgentReply("content_b64 is not valid base64", {"status": STATUS_ERROR, "error": "bad_base64"})
        await progress(m["uploading"], stage="upload")
        result = await self.service.upload_bytes(str(data["name"]), content)
        if data.get("wait"):
            await self.service.wait_idle()
            result.record = await self.service.get(result.record.id)
        record = result.record
        text = m["uploaded"].format(name=record.name, size=record.size)
        if result.notices:
            text += "\n" + "\n".join(f"- {n}" for n in result.notices)
        return AgentReply(text, {"status": STATUS_OK, "operation": "upload", "files": [result.to_dict()]})

    # -- natural language -----------------------------------------------------------------
    async def _instruction(self, request: AgentRequest, progress: Progress, m: dict[str, Any]) -> AgentReply:
        command = parse_instruction(request.text)
        if self.llm is not None and getattr(self.llm, "online", False):
            names = [r.name for r in await self.service.all()]
            try:
                draft = await self.llm.parse(draft_messages(strip_previous_results(request.text), names),
                                             FileCommandDraft, purpose="file_instruction")
                command = command_from_draft(draft)
            except LLMError as exc:  # the rules still understand the common phrasings
                log.warning("file instruction model failed, using rules: %s", exc)
        return await self._run(command, request, progress, m)

    async def _run(self, command: FileCommand, request: AgentRequest, progress: Progress,
                   m: dict[str, Any]) -> AgentReply:
        op = command.operation
        if op == "list":
            return await self._list(command, progress, m)
        if op == "upload":
            return AgentReply(m["need_upload"], {"status": STATUS_NEEDS_CLARIFICATION, "operation": "upload"})
        if op == "unknown":
            return AgentReply(m["unknown"], {"status": STATUS_NEEDS_CLARIFICATION, "operation": "unknown"})
        records = await self.service.all()
        if op == "reindex" and not command.has_filter and not command.only_errors:
            command.only_errors = True  # "다시 색인해줘" means the failed ones
        if not command.has_filter and not command.all_files and not command.only_errors:
            names = ", ".join(r.name for r in records[:10])
            return AgentReply(m["which"].format(names=names or "-"),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": op})
        targets = match_files(records, command)
        if not targets:
            return AgentReply(m["none"], {"status": STATUS_NO_RESULT, "operation": op, "files": []})
        if op == "delete":
            return await self._confirm_or_delete(targets, request, progress, m, confirmed=False)
        if op == "reindex":
            return await self._reindex(targets, progress, m)
        if len(targets) > 1:
            return AgentReply(m["which"].format(names=", ".join(r.name for r in targets)),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": op,
                               "files": [r.to_dict() for r in targets]})
        if op == "read":
            return await self._read(targets, progress, m)
        if not command.new_name:
            return AgentReply(m["need_name"], {"status": STATUS_NEEDS_CLARIFICATION, "operation": "rename"})
        return await self._rename(targets, command.new_name, progress, m)

    # -- operations -----------------------------------------------------------------------
    def _line(self, record: FileRecord, m: dict[str, Any]) -> str:
        status = m["status"].get(record.index_status, record.index_status)
        when = record.uploaded_at.astimezone().strftime("%Y-%m-%d %H:%M")
        error = f" — {record.index_error}" if record.index_status == "error" and record.index_error else ""
        return f"| [{record.name}]({record.download_url}) | {record.size:,} | {when} | {status}{error} |"

    async def _list(self, command: FileCommand, progress: Progress, m: dict[str, Any]) -> AgentReply:
        await progress(m["listing"], stage="list")
        records = await self.service.all()
        targets = match_files(records, command)
        if not targets:
            return AgentReply(m["none"] if records else m["empty"],
                              {"status": STATUS_NO_RESULT, "operation": "list", "files": []})
        lines = [m["list_head"].format(n=len(targets)), "", "| name | bytes | uploaded | index |",
                 "| --- | ---: | --- | --- |", *[self._line(r, m) for r in targets]]
        return AgentReply("\n".join(lines), {"status": STATUS_OK, "operation": "list",
                                             "files": [r.to_dict() for r in targets]})

    async def _confirm_or_delete(self, targets: list[FileRecord], request: AgentRequest, progress: Progress,
                                 m: dict[str, Any], confirmed: bool) -> AgentReply:
        if len(targets) > 1 and not confirmed:
            if request.context_id:
                pending = PendingDeletion([r.id for r in targets], [r.name for r in targets])
                await self._store(request).put(STATE_AGENT, request.context_id, PENDING_KEY, asdict(pending),
                                               ttl_s=PENDING_TTL_S)
            text = m["confirm"].format(n=len(targets)) + "\n" + "\n".join(f"- {r.name}" for r in targets)
            return AgentReply(text, {"status": STATUS_NEEDS_CLARIFICATION, "operation": "delete",
                                     "confirmation_required": True, "files": [r.to_dict() for r in targets]},
                              state="input_required")
        return await self._delete([r.id for r in targets], progress, m)

    async def _delete(self, file_ids: list[str], progress: Progress, m: dict[str, Any]) -> AgentReply:
        await progress(m["deleting"], stage="delete")
        done: list[dict[str, Any]] = []
        errors: list[str] = []
        for file_id in file_ids:
            try:
                done.append(await self.service.delete(file_id))
            except FileError as exc:
                errors.append(exc.message)
        chunks = sum(d["deleted_chunks"] for d in done)
        text = m["deleted"].format(names=", ".join(d["name"] for d in done) or "-", chunks=chunks)
        if errors:
            text += "\n" + "\n".join(f"- {e}" for e in errors)
        status = STATUS_OK if done and not errors else STATUS_ERROR
        return AgentReply(text, {"status": status, "operation": "delete", "deleted": done, "errors": errors})

    async def _rename(self, targets: list[FileRecord], new_name: str, progress: Progress,
                      m: dict[str, Any]) -> AgentReply:
        if len(targets) != 1:
            return AgentReply(m["which"].format(names=", ".join(r.name for r in targets)),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "rename"})
        await progress(m["renaming"], stage="rename")
        old = targets[0].name
        record = await self.service.rename(targets[0].id, new_name)
        return AgentReply(m["renamed"].format(old=old, new=record.name),
                          {"status": STATUS_OK, "operation": "rename", "files": [record.to_dict()]})

    async def _reindex(self, targets: list[FileRecord], progress: Progress, m: dict[str, Any]) -> AgentReply:
        await progress(m["reindexing"], stage="reindex")
        records = [await self.service.reindex(r.id) for r in targets]
        return AgentReply(m["reindexed"].format(names=", ".join(r.name for r in records)),
                          {"status": STATUS_OK, "operation": "reindex", "files": [r.to_dict() for r in records]})

    async def _read(self, targets: list[FileRecord], progress: Progress, m: dict[str, Any]) -> AgentReply:
        if len(targets) != 1:
            return AgentReply(m["which"].format(names=", ".join(r.name for r in targets)),
                              {"status": STATUS_NEEDS_CLARIFICATION, "operation": "read"})
        await progress(m["reading"], stage="read")
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
    if content_type == DOCX:
        import docx

        document = docx.Document(io.BytesIO(content))
        return "\n".join(p.text for p in document.paragraphs if p.text.strip())[:limit]
    return content.decode("utf-8", errors="replace")[:limit]
