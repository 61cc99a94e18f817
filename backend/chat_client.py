"""A client of `POST /api/chat` (Server-Sent Events), used by `hub bench backend` and the tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class ChatEvent:
    """One Server-Sent Event of a chat stream."""

    event: str
    data: dict[str, Any]


async def parse_sse(lines: AsyncIterator[str]) -> AsyncIterator[ChatEvent]:
    """Events of a `text/event-stream` (comments and pings skipped; `data` decoded as JSON)."""
    name, data_lines = "message", list[str]()
    async for line in lines:
        if line == "":
            if data_lines:
                raw = "\n".join(data_lines)
                yield ChatEvent(name, json.loads(raw) if raw else {})
            name, data_lines = "message", list[str]()
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data_lines.append(value)
    if data_lines:
        yield ChatEvent(name, json.loads("\n".join(data_lines)))


async def stream_chat(http: httpx.AsyncClient, message: str, conversation_id: str | None = None,
                      language: str = "ko") -> AsyncIterator[ChatEvent]:
    """Send one chat message and yield its events as they arrive (raises on a non-2xx status)."""
    body = {"message": message, "conversation_id": conversation_id, "language": language}
    async with http.stream("POST", "/api/chat", json=body, headers={"Accept": "text/event-stream"}) as response:
        response.raise_for_status()
        async for event in parse_sse(response.aiter_lines()):
            yield event
