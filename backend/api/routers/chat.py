"""`POST /api/chat` (Server-Sent Events relayed from the orchestrator) and `GET /api/chats/{id}`."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field, field_validator
from sse_starlette import EventSourceResponse, ServerSentEvent

from ai_llm.common.a2a.client import AgentTimeout, AgentUnauthorized, AgentUnavailable, RemoteAgentError
from ai_llm.common.a2a.events import ANSWER_DELTA, AgentReply, StatusEvent
from ai_llm.common.messages import message
from ai_llm.common.usage import Usage
from backend.api.deps import ChatStoreDep, OrchestratorDep, OrchestratorTasksDep, SettingsDep
from backend.api.routers.auth import PrincipalDep, identity_metadata
from backend.orchestrator_tasks import CHAT_TAG, new_chat_tag

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api", tags=["chat"])

CONVERSATION_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
#: Earlier turns sent to the orchestrator with each message (A2A data part `history`).
HISTORY_TURNS = 10
MAX_MESSAGE_CHARS = 8000
_PENDING_SAVES: set[asyncio.Task[None]] = set()

class ChatRequest(BaseModel):
    """One user message."""

    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
    conversation_id: str | None = Field(None, pattern=CONVERSATION_ID_PATTERN,
                                        description="continue this conversation; null starts a new one")
    language: Literal["ko", "en"] = "ko"

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message must not be blank")
        if "\x00" in value:  # Postgres text cannot hold NUL, and no keyboard types one
            raise ValueError("message must not contain NUL characters")
        return value.strip()


class ChatMessage(BaseModel):
    role: Literal["user", "assistant"]
    text: str
    intent: str | None
    sources: list[dict[str, Any]]
    steps: list[dict[str, Any]] = []
    quotes: list[dict[str, Any]] = []
    created_at: str


class ChatHistory(BaseModel):
    id: str
    messages: list[ChatMessage]


def public_source(source: dict[str, Any]) -> dict[str, Any] | None:
    """An orchestrator source in the shape the UI shows (file → download link, web → URL + title)."""
    if source.get("type") == "web" or (source.get("url") and not source.get("file_id")
                                        and source.get("type") != "file"):
        url = str(source.get("url") or "")
        if not url:
            return None
        return {"type": "web", "url": url, "title": str(source.get("title") or url)}
    file_id = source.get("file_id")
    url = f"/api/files/{file_id}/download" if file_id else str(source.get("file_url") or "")
    if not url:
        return None
    pages = [int(p) for p in source.get("pages") or [] if isinstance(p, int | float)]
    return {"type": "file", "file_id": str(file_id) if file_id else None, "file_name": source.get("file_name"),
            "pages": pages, "page_label": source.get("page_label") or _page_label(pages), "url": url,
            "locations": [_public_location(x) for x in source.get("locations") or [] if isinstance(x, dict)]}


_LOCATION_FIELDS = {"kind": str, "page": int, "label": str, "annex": str, "slide": int, "title": str, "sheet": str,
                   "rows": str, "row_number": str, "row": str, "heading": str}


def _public_location(location: dict[str, Any]) -> dict[str, Any]:
    """A location with only its known fields, each of its type (page and its printed label or annex, slide,
    sheet + rows + row label, heading)."""
    return {k: location[k] for k, kind in _LOCATION_FIELDS.items() if isinstance(location.get(k), kind)}


def public_quote(quote: dict[str, Any]) -> dict[str, Any] | None:
    """A quoted passage as the UI shows it: text, file, location and the file's download link."""
    text, file_id = quote.get("text"), quote.get("file_id")
    if not isinstance(text, str) or not text.strip() or not file_id:
        return None
    location = quote.get("location")
    return {"text": text, "file_id": str(file_id), "file_name": quote.get("file_name"),
            "location": _public_location(location) if isinstance(location, dict) else None,
            "label": str(quote.get("label") or ""), "url": f"/api/files/{file_id}/download"}


def _page_label(pages: list[int]) -> str:
    if not pages:
        return ""
    return f"p.{pages[0]}" if len(pages) == 1 else f"p.{min(pages)}–{max(pages)}"


def public_steps(steps: Any) -> list[dict[str, Any]]:
    return [{"agent": s.get("agent"), "status": s.get("status"), "elapsed_ms": s.get("elapsed_ms")}
            for s in steps or [] if isinstance(s, dict)]


def answer_payload(reply: AgentReply, conversation_id: str) -> dict[str, Any]:
    sources = [s for s in (public_source(x) for x in reply.sources if isinstance(x, dict)) if s is not None]
    intent = reply.data.get("intent") or (reply.data.get("plan") or {}).get("intent")
    quotes = [q for q in (public_quote(x) for x in reply.data.get("quotes") or [] if isinstance(x, dict))
              if q is not None]
    raw_usage = reply.data.get("usage")
    return {"text": reply.text, "intent": intent, "conversation_id": conversation_id, "sources": sources,
            "quotes": quotes, "steps": public_steps(reply.data.get("steps")),
            # What the answer cost: model calls and tokens, searches and their spend (`ai_llm.common.usage`).
            "usage": Usage.from_dict(raw_usage if isinstance(raw_usage, dict) else {}).to_dict()}


def _event(name: str, data: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps(data, ensure_ascii=False), event=name)


def planning_status(language: str) -> dict[str, Any]:
    """The first status of every chat, sent by the backend itself (the orchestrator's own is not relayed)."""
    return {"agent": "orchestrator", "stage": "planning", "message": message("orchestrator.planning", language),
            "progress": 0.0}


@router.post("/chat", response_class=EventSourceResponse, responses={
    200: {"description": "`status` events (the first, `planning`, sent before any work starts), `delta` events "
                         "(`{text}`: the next piece of an answer being written), then `answer` (the whole answer, "
                         "which replaces the pieces) or `error`, then `done`",
          "content": {"text/event-stream": {"schema": {"type": "string"}}}}})
async def chat(body: ChatRequest, chats: ChatStoreDep, orchestrator: OrchestratorDep, tasks: OrchestratorTasksDep,
               settings: SettingsDep, principal: PrincipalDep) -> EventSourceResponse:
    """Ask the hub; the orchestrator's progress is relayed live as Server-Sent Events.

    The first status is the backend's own and goes out before anything else is done (no database read, no
    A2A call), so the person sees at once that the request is being handled. When the client goes away
    before the answer, the orchestrator's A2A task is cancelled (`CancelTask`).
    """
    conversation_id = body.conversation_id or uuid.uuid4().hex
    language = body.language
    chat_tag = new_chat_tag()

    def error(key: str, **fields: Any) -> ServerSentEvent:
        return _event("error", {"message": message(f"backend.{key}", language, **fields),
                                "conversation_id": conversation_id})

    async def events() -> AsyncIterator[ServerSentEvent]:
        yield _event("status", planning_status(language))
        # Let the other chats that arrived together send their first status before this one builds its A2A
        # call (under a burst of requests, their first line should not wait behind others' work).
        await asyncio.sleep(0)
        called = False  # the A2A call was started
        finished = False  # the orchestrator's task reached an end (answer, error)
        # Earlier turns are read before this one is saved; the question is saved beside the orchestrator
        # call, so no status event waits on the database; it is saved before the answer (turn order) and
        # before `done` in every case.
        history: list[dict[str, Any]] = []
        owner = principal.user_id
        if body.conversation_id:
            try:
                if await chats.owned(conversation_id, owner) is False:
                    # Someone else's conversation: as unknown as any other id, and nothing goes on.
                    yield error("not_found")
                    yield _event("done", {})
                    return
                history = await chats.history(conversation_id, limit=HISTORY_TURNS * 2, owner_id=owner) or []
            except Exception:  # the question is still answered, without its earlier turns
                log.exception("could not read the history of conversation %s", conversation_id)
        saved_question = asyncio.create_task(
            chats.add_message(conversation_id, "user", body.message, language=language, owner_id=owner))
        _PENDING_SAVES.add(saved_question)  # a strong reference until done, even if the client leaves
        saved_question.add_done_callback(_PENDING_SAVES.discard)
        try:
            data = {"language": language,
                    "history": [{"role": "user" if h["role"] == "user" else "agent", "text": h["text"]}
                                for h in history]}
            planning_relayed = False
            called = True  # from here on the orchestrator may hold a task for this message
            async for event in orchestrator.stream(body.message, data=data, context_id=conversation_id,
                                                   metadata={CHAT_TAG: chat_tag,
                                                             **identity_metadata(settings, principal, "orchestrator")}):
                if isinstance(event, StatusEvent):
                    if event.stage == ANSWER_DELTA:  # the answer as it is written: `delta` events
                        yield _event("delta", {"text": str(event.data.get("delta") or "")})
                        continue
                    if not planning_relayed and event.agent == "orchestrator" and event.stage == "planning":
                        planning_relayed = True  # the client already has this line, from the backend
                        continue
                    yield _event("status", event.to_dict())
                    continue
                finished = True
                if event.state in ("failed", "canceled", "rejected"):
                    # The agent's own words (never an exception's: `a2a_server` keeps those in the data).
                    detail = event.text.strip() or event.state
                    yield error("failed", detail=detail)
                    break
                payload = answer_payload(event, conversation_id)
                await saved_question
                await chats.add_message(conversation_id, "assistant", payload["text"], language=language,
                                        intent=payload["intent"], sources=payload["sources"],
                                        steps=payload["steps"], quotes=payload["quotes"], owner_id=owner,
                                        usage=payload["usage"])
                yield _event("answer", payload)
            finished = True
        except AgentUnauthorized:
            finished = True
            yield error("unauthorized")
        except AgentTimeout:
            yield error("timeout")
        except AgentUnavailable:
            finished = True
            yield error("unavailable")
        except RemoteAgentError as exc:  # the call's error text is for the log, not the person
            log.warning("chat call failed for conversation %s: %s", conversation_id, exc)
            yield error("failed", detail=message("backend.call_failed", language))
        except Exception:  # a readable error event instead of a silently dropped stream
            log.exception("chat stream failed")
            yield error("internal")
        finally:
            if called and not finished:
                # The client went away (or the stream broke) before the orchestrator's task ended: stop it,
                # so its agents do not keep working for nobody. Runs in the background: this request is
                # being torn down, and a cancelled scope cannot await.
                tasks.cancel_soon(conversation_id, chat_tag)
        try:
            await saved_question
        except Exception:  # already reported above when the answer needed it; the stream still ends
            log.exception("could not save the question of conversation %s", conversation_id)
        yield _event("done", {})

    return EventSourceResponse(events(), ping=15, headers={"X-Accel-Buffering": "no",
                                                            "Cache-Control": "no-cache"})


ConversationId = Annotated[str, Path(pattern=CONVERSATION_ID_PATTERN)]


class ConversationSummary(BaseModel):
    id: str
    title: str
    language: str
    created_at: str
    updated_at: str


class Rename(BaseModel):
    title: str = Field(min_length=1, max_length=200)


@router.get("/chats")
async def my_conversations(chats: ChatStoreDep, principal: PrincipalDep,
                           q: Annotated[str, Query(max_length=200)] = "") -> list[ConversationSummary]:
    """My conversations, newest first; `q` searches their titles and turns."""
    return [ConversationSummary(**c) for c in await chats.conversations(principal.user_id, q)]


@router.get("/chats/{conversation_id}", responses={404: {"description": "unknown conversation"}})
async def chat_history(conversation_id: ConversationId, chats: ChatStoreDep, principal: PrincipalDep) -> ChatHistory:
    """A conversation's turns, oldest first (only its owner's: anyone else gets 404)."""
    messages = await chats.history(conversation_id, owner_id=principal.user_id)
    if messages is None:
        raise HTTPException(404, f"conversation {conversation_id} not found")
    return ChatHistory(id=conversation_id, messages=[ChatMessage(**m) for m in messages])


@router.patch("/chats/{conversation_id}", responses={404: {"description": "unknown conversation"}})
async def rename_conversation(conversation_id: ConversationId, body: Rename, chats: ChatStoreDep,
                              principal: PrincipalDep) -> dict[str, str]:
    """Rename my conversation."""
    if not await chats.rename(conversation_id, principal.user_id, body.title):
        raise HTTPException(404, f"conversation {conversation_id} not found")
    return {"id": conversation_id, "title": body.title.strip()[:80]}


@router.delete("/chats/{conversation_id}", status_code=204, responses={404: {"description": "unknown conversation"}})
async def delete_conversation(conversation_id: ConversationId, chats: ChatStoreDep,
                              principal: PrincipalDep) -> Response:
    """Delete my conversation and its turns."""
    if not await chats.delete(conversation_id, principal.user_id):
        raise HTTPException(404, f"conversation {conversation_id} not found")
    return Response(status_code=204)
