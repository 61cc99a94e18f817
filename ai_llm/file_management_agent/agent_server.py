"""A2A server of the file-management agent: card, executor, HTTP file routes, app.

The app serves the A2A endpoint and, beside it, the `/files` routes the backend proxies (same bearer
token). The document store, the records and the RAG-index client are created in the lifespan; tests and
benchmarks may pass their own `store` (a `DocumentStore`) and `rag_index` (a `DocumentIndex`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.runtime import HubDeps
from ai_llm.file_management_agent.agent import FileAgent
from ai_llm.file_management_agent.document_store import DocumentStore, make_store
from ai_llm.file_management_agent.file_records import FileRecords
from ai_llm.file_management_agent.file_service import FileService
from ai_llm.file_management_agent.http_routes import file_routes
from ai_llm.file_management_agent.rag_index import DocumentIndex, RagIndex

AGENT_NAME = "file_management"
DESCRIPTION = ("Uploads, lists, reads, renames and deletes documents in the hub's store (PDF and scans, "
               "HWP/HWPX, Word, PowerPoint, Excel/CSV, HTML, Markdown, text, images), keeping the internal-RAG index in step; understands Korean and English file "
               "instructions and asks before deleting several files.")
SKILLS: list[dict[str, Any]] = [
    {"id": "upload", "name": "파일 업로드", "description": "Store a file (data: name, content_b64) and index it.",
     "examples": ["이 파일 올려줘", "upload this report"]},
    {"id": "list", "name": "파일 목록", "description": "List stored files, filtered by name, type or upload time.",
     "examples": ["지난주에 올린 보고서 목록 보여줘", "list the PDF files uploaded today"]},
    {"id": "read", "name": "파일 읽기", "description": "Show a file's text (first part) and download link.",
     "examples": ["'회의록.md' 내용 보여줘", "open the CDC guide"]},
    {"id": "rename", "name": "이름 변경", "description": "Rename a file; its index entries follow.",
     "examples": ["보고서.md 이름을 요약.md로 바꿔줘", "rename report.md to summary.md"]},
    {"id": "delete", "name": "파일 삭제", "description": "Delete files and their index chunks (asks to confirm "
     "when more than one file matches).", "examples": ["CDC 가이드 삭제해줘", "delete the CDC guide"]},
    {"id": "reindex", "name": "다시 색인", "description": "Retry indexing of files marked error.",
     "examples": ["오류 난 파일 다시 색인해줘", "retry indexing the failed files"]},
]


def create_app(deps: HubDeps, url: str, *, store: DocumentStore | None = None,
               rag_index: DocumentIndex | None = None) -> Starlette:
    """The file-management agent's app: A2A + `/files` routes.

    Args:
        store: where file bytes live (default: `make_store(settings)`, opened and closed by the app).
        rag_index: the RAG index kept in step (default: the internal-RAG agent over A2A).
    """
    settings = deps.settings
    state: dict[str, Any] = {}

    def service() -> FileService:
        if "service" not in state:
            raise RuntimeError("file service is not started (app lifespan not run)")
        return state["service"]  # type: ignore[no-any-return]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        db = await deps.open_db()
        file_store = store or make_store(settings)
        for stale in file_store.incoming.glob("*.part"):  # spools of uploads cut off when the process last ended
            stale.unlink(missing_ok=True)
        index = rag_index or RagIndex(settings.agent_urls("internal_rag"), token=settings.hub_token,
                                      timeout_s=max(settings.agent_timeout_s, 300.0), eject_s=settings.agent_eject_s)
        file_service = FileService(FileRecords(db), file_store, index, settings.max_upload_bytes,
                                   settings.ui_language)
        state["service"] = file_service
        state["agent"] = FileAgent(file_service, deps.llm, settings.ui_language, settings.hub_token)
        await file_service.resume()
        try:
            yield
        finally:
            await file_service.close()
            close = getattr(file_store, "close", None)
            if close is not None and store is None:  # an injected store is its owner's to close
                await close()

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        return await state["agent"](request, progress)  # type: ignore[no-any-return]

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(settings.hub_token))
    app = build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle, history_turns=0), token=settings.hub_token,
                          extra_routes=file_routes(service, settings.hub_token), lifespan=lifespan)
    app.state.file_state = state
    return app
