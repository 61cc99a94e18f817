"""`POST /api/chat` and `GET /api/chats/{id}` against the backend process and a real A2A stand-in
orchestrator process (tests/backend/servers/orchestrator_stand_in.py)."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from a2a.types import TaskState

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.server import free_port
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from backend.api.main import create_app
from backend.chat_client import ChatEvent, parse_sse, stream_chat
from backend.orchestrator_tasks import OrchestratorTasks

#: How long the tests wait for something that must happen (never a speed assertion: busy CI machines).
PATIENCE_S = 90.0
STAND_IN_FILE_ID = "3f2c8a61-0b7e-4c1d-9a55-5b0d2c7e9f10"


@pytest.fixture
async def api(backend_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=backend_url, timeout=30) as http:
        yield http


async def collect(http: httpx.AsyncClient, message: str, conversation_id: str | None = None,
                  language: str = "ko") -> list[ChatEvent]:
    return [e async for e in stream_chat(http, message, conversation_id, language)]


async def test_status_events_then_answer_then_done(api: httpx.AsyncClient) -> None:
    events = await collect(api, "CDC 손 위생 지침을 최신 권고와 비교해줘")
    names = [e.event for e in events]
    assert names[-2:] == ["answer", "done"]
    assert set(names[:-2]) == {"status"} and len(names) >= 3
    statuses = [e.data for e in events if e.event == "status"]
    assert all(set(s) == {"agent", "stage", "message", "progress"} for s in statuses)
    # The backend's own planning line first (the orchestrator's duplicate of it is not relayed); sub-agent
    # events forwarded by the orchestrator keep the sub-agent's name, in order.
    assert statuses[0] == {"agent": "orchestrator", "stage": "planning",
                           "message": "🧭 요청을 분석하고 실행 계획을 세우는 중…", "progress": 0.0}
    assert [s["agent"] for s in statuses] == ["orchestrator", "orchestrator", "internal_rag", "web_research"]
    assert [s["stage"] for s in statuses].count("planning") == 1
    assert statuses[3]["stage"] == "fallback" and "웹 검색" in statuses[3]["message"]
    answer = events[-2].data
    assert answer["intent"] == "HYBRID"
    assert re.fullmatch(r"[0-9a-f]{32}", answer["conversation_id"])
    assert answer["sources"] == [
        {"type": "file", "file_id": STAND_IN_FILE_ID, "file_name": "guide.pdf", "pages": [13, 14, 15],
         "page_label": "p.13–15", "url": f"/api/files/{STAND_IN_FILE_ID}/download", "locations": []},
        {"type": "web", "url": "https://example.org/cdc", "title": "CDC page"},
    ]
    assert answer["steps"] == [{"agent": "internal_rag", "status": "no_result", "elapsed_ms": 12},
                               {"agent": "web_research", "status": "ok", "elapsed_ms": 34}]
    assert "language=ko" in answer["text"]


async def test_status_reaches_the_client_before_the_answer_exists(api: httpx.AsyncClient, tmp_path: Path) -> None:
    """The stand-in holds its answer until a file appears; we create it only after seeing a status event."""
    gate = tmp_path / "go"
    seen: list[str] = []
    async for event in stream_chat(api, f"wait for gate:{gate}", language="en"):
        seen.append(event.event)
        if event.event == "status" and not gate.exists():
            assert "answer" not in seen
            gate.touch()
    assert gate.exists()
    assert seen[0] == "status" and seen[-2:] == ["answer", "done"]


async def test_conversation_is_persisted_and_continued(api: httpx.AsyncClient) -> None:
    first = await collect(api, "첫 번째 질문")
    conversation_id = first[-2].data["conversation_id"]
    second = await collect(api, "second question", conversation_id, language="en")
    answer = second[-2].data
    assert answer["conversation_id"] == conversation_id
    # The conversation id is the A2A context id, and the earlier turns travel with the message.
    assert f"context={conversation_id}" in answer["text"]
    assert "history_turns=2" in answer["text"] and "language=en" in answer["text"]

    response = await api.get(f"/api/chats/{conversation_id}")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == conversation_id
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert [m["text"] for m in messages[::2]] == ["첫 번째 질문", "second question"]
    assert messages[3]["text"] == answer["text"]
    assert messages[3]["intent"] == "HYBRID" and messages[3]["sources"] == answer["sources"]
    assert messages[0]["intent"] is None and messages[0]["sources"] == []
    assert all(m["created_at"] for m in messages)


async def test_agent_failure_is_a_readable_localized_error_event(api: httpx.AsyncClient) -> None:
    events = await collect(api, "please explode", language="en")
    assert [e.event for e in events][-2:] == ["error", "done"]
    assert "answer" not in [e.event for e in events]
    error = events[-2].data
    assert error["message"].startswith("The request could not be completed")
    # The agent says it failed; the exception's own text ("… exploded") is for the log, not the person.
    assert "failed" in error["message"] and "exploded" not in error["message"]
    # The user's turn is kept even though no answer came.
    history = (await api.get(f"/api/chats/{error['conversation_id']}")).json()["messages"]
    assert [(m["role"], m["text"]) for m in history] == [("user", "please explode")]


async def test_unknown_and_malformed_conversation_ids(api: httpx.AsyncClient) -> None:
    assert (await api.get("/api/chats/0123456789abcdef0123456789abcdef")).status_code == 404
    assert (await api.get("/api/chats/not.a.valid.id")).status_code == 422
    assert (await api.get(f"/api/chats/{'a' * 65}")).status_code == 422


@pytest.mark.parametrize("body", [
    {},
    {"message": ""},
    {"message": "   \n "},
    {"message": "hi", "language": "fr"},
    {"message": "hi", "conversation_id": "../../etc"},
    {"message": 42},
    {"message": "x" * 8001},
    {"message": "nul\u0000byte"},
])
async def test_bad_chat_bodies_are_422(api: httpx.AsyncClient, body: dict[str, object]) -> None:
    response = await api.post("/api/chat", json=body)
    assert response.status_code == 422
    assert response.json()["detail"]


async def test_lone_surrogate_in_message_is_422(api: httpx.AsyncClient) -> None:
    body = b'{"message": "broken \\ud800 text"}'
    response = await api.post("/api/chat", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and "unicode" in response.text.lower()


async def test_non_json_chat_body_is_422(api: httpx.AsyncClient) -> None:
    response = await api.post("/api/chat", content=b"message=hi", headers={"Content-Type": "text/plain"})
    assert response.status_code == 422


async def test_orchestrator_down_gives_an_error_event(db: Database, tmp_path: Path) -> None:
    """In-process app (ASGI transport) whose orchestrator URL points at a closed port."""
    settings = Settings(orchestrator_url=f"http://127.0.0.1:{free_port()}", data_dir=tmp_path,
                        _env_file=None)  # type: ignore[call-arg]
    app = create_app(settings, db=db)
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        ko = await collect(http, "안녕하세요")
        en = await collect(http, "hello", language="en")
    # The planning status goes out before the orchestrator is called; then the error.
    assert [e.event for e in ko] == ["status", "error", "done"]
    assert "오케스트레이터에 연결할 수 없습니다" in ko[1].data["message"]
    assert "orchestrator is unreachable" in en[1].data["message"]


async def test_first_status_comes_from_the_backend_before_the_orchestrator_says_anything(
        api: httpx.AsyncClient, tmp_path: Path) -> None:
    """The stand-in sends nothing until the gate file exists; the planning status must already be there."""
    hold = tmp_path / "hold"
    body = {"message": f"hold:{hold}", "conversation_id": None, "language": "en"}
    events: list[ChatEvent] = []
    async with api.stream("POST", "/api/chat", json=body) as response:
        assert response.status_code == 200
        async for event in parse_sse(response.aiter_lines()):
            events.append(event)
            if len(events) == 1:
                assert not hold.exists()  # the orchestrator has not sent a single event yet
                hold.touch()
    assert events[0].event == "status"
    assert events[0].data == {"agent": "orchestrator", "stage": "planning",
                              "message": "🧭 Analysing the request and planning…", "progress": 0.0}
    assert [e.event for e in events][-2:] == ["answer", "done"]


async def test_client_disconnect_cancels_the_orchestrator_task(
        api: httpx.AsyncClient, stand_in_orchestrator: str, tmp_path: Path) -> None:
    """A browser that leaves mid-chat: the backend cancels the orchestrator's A2A task (CancelTask), the
    orchestrator's handler stops, and the task ends `canceled` (read back over A2A)."""
    hold = tmp_path / "hold"
    conversation_id = f"cancel-{uuid.uuid4().hex}"
    body = {"message": f"hold:{hold}", "conversation_id": conversation_id, "language": "en"}
    tasks = OrchestratorTasks(RemoteAgent(stand_in_orchestrator, name="orchestrator"))
    async with api.stream("POST", "/api/chat", json=body) as response:
        # Keep the event iterator referenced while waiting: a dropped async generator is finalised (closed) at
        # once, which closes the HTTP stream — a disconnect before the test means one.
        events = aiter(parse_sse(response.aiter_lines()))
        first = await anext(events)
        assert first.event == "status"
        # Wait until the orchestrator's handler runs (not merely until its task is listed: a cancel before the
        # handler starts stops the task too, but the stand-in could not report it), then leave.
        holding = hold.with_name("hold.holding")
        deadline = time.monotonic() + PATIENCE_S  # generous: CI machines may be busy; nothing asserts speed
        while time.monotonic() < deadline:
            if holding.exists():
                break
            await asyncio.sleep(0.05)
        assert holding.read_text() == conversation_id
        await events.aclose()  # type: ignore[attr-defined]
    # The stream is closed here, before any answer: the browser went away.
    cancelled = hold.with_name("hold.cancelled")
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if cancelled.exists():
            break
        await asyncio.sleep(0.05)
    assert cancelled.read_text() == conversation_id  # the orchestrator's handler was stopped
    task = await tasks.latest(conversation_id)
    assert task is not None
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        task = await tasks.get(task.id)
        if task.status.state == TaskState.TASK_STATE_CANCELED:
            break
        await asyncio.sleep(0.05)
    assert task.status.state == TaskState.TASK_STATE_CANCELED
    hold.touch()  # nothing is left waiting on it


async def test_cancel_finds_only_the_tagged_task(api: httpx.AsyncClient, stand_in_orchestrator: str) -> None:
    """A finished chat of the same conversation is not touched; an unknown tag cancels nothing."""
    conversation_id = f"done-{uuid.uuid4().hex}"
    events = await collect(api, "first question", conversation_id, language="en")
    assert [e.event for e in events][-2:] == ["answer", "done"]
    tasks = OrchestratorTasks(RemoteAgent(stand_in_orchestrator, name="orchestrator"))
    assert await tasks.cancel(conversation_id, "no-such-tag", wait_s=0.2) is None
    finished = await tasks.latest(conversation_id)
    assert finished is not None and finished.status.state == TaskState.TASK_STATE_COMPLETED
