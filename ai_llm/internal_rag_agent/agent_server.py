"""A2A server of the internal-RAG agent: card, executor, app."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.identity import HEADER, viewer_from
from ai_llm.common.runtime import HubDeps
from ai_llm.internal_rag_agent.agent import AGENT_NAME, RagAgent
from ai_llm.internal_rag_agent.catalog import DocumentCatalog
from ai_llm.internal_rag_agent.vector_store import make_vector_store

DESCRIPTION = ("Searches the team's internal documents (PDF, text, markdown, docx) and answers with page-cited "
               "sources; indexes, deletes and renames documents in the search index.")
SKILLS: list[dict[str, Any]] = [
    {"id": "search_documents", "name": "사내 문서 검색",
     "description": "Answer a question from the indexed internal documents, citing file and pages.",
     "tags": ["rag", "search", "documents"],
     "examples": ["출장비 정산 규정 알려줘", "What does the CDC guide say about multi-dose vials?"]},
    {"id": "index_document", "name": "문서 색인",
     "description": "Index documents given as data {documents: [{storage_ref, file_name, file_url, file_id, "
                    "path | content_b64}]}.",
     "tags": ["index"], "examples": []},
    {"id": "delete_document", "name": "색인 삭제",
     "description": "Remove a document's chunks: data {storage_ref}.", "tags": ["index"], "examples": []},
    {"id": "update_document", "name": "색인 정보 갱신",
     "description": "Rename a document in the index: data {storage_ref, file_name, file_url}.",
     "tags": ["index"], "examples": []},
]


def create_app(deps: HubDeps, url: str) -> Starlette:
    """The internal-RAG agent's A2A app; the database opens (and migrates) in the lifespan.

    Besides A2A it serves `GET /catalog` (bearer-checked like A2A): the indexed documents with titles,
    languages and key terms, which the orchestrator's planner reads.
    """
    holder: dict[str, RagAgent] = {}
    catalogs: dict[str, DocumentCatalog] = {}

    async def get_agent() -> RagAgent:
        if "agent" not in holder:
            db = None if deps.settings.supabase_url else await deps.open_db()
            store = make_vector_store(deps.settings, db)
            holder["agent"] = RagAgent(store, deps.embeddings, deps.llm, deps.settings)
            catalogs["catalog"] = DocumentCatalog(db)
        return holder["agent"]

    async def catalog(request: Request) -> JSONResponse:
        await get_agent()
        # The documents the person the orchestrator signed for may read (the service: everyone's only).
        viewer = viewer_from(deps.settings.hub_token, AGENT_NAME, request.headers.get(HEADER))
        entries = await catalogs["catalog"].entries(viewer)
        return JSONResponse({"documents": [e.to_dict() for e in entries]})

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # Ready only once warm: a first question must not wait for the models (a pod's readiness probe, or the
        # launcher's, passes after this).
        await asyncio.to_thread((await get_agent()).warm_up)
        try:
            yield
        finally:
            await deps.close()

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        agent = await get_agent()
        return await agent.run(request, progress)

    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, handle), token=deps.settings.hub_token,
                           extra_routes=[Route("/catalog", catalog, methods=["GET"])], lifespan=lifespan)
