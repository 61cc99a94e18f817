"""Helpers of the orchestrator tests: a scripted LLM (the OpenAI-style path) and a progress recorder."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ai_llm.common.a2a.server import Progress
from ai_llm.common.llm import CallRecord, LLMError

T = TypeVar("T", bound=BaseModel)


class ScriptedLLM:
    """A small fake of the LLM port standing in for OpenAI (unreachable here).

    `parse` returns the next scripted plan (or raises it when it is an exception); `chat` returns a canned
    text built from the request. Every call is recorded in `calls` with its purpose, and the messages in
    `messages`, so tests can assert which paths used a model. `chat_delay_s`: how long a `chat` takes (a model
    writing).
    """

    def __init__(self, plans: Sequence[BaseModel | Exception] | Callable[[str], BaseModel] = (),
                 chat_text: str = "SYNTHESIZED ANSWER", chat_delay_s: float = 0.0) -> None:
        self._plans = plans if callable(plans) else list(plans)
        self.chat_text = chat_text
        self.chat_delay_s = chat_delay_s
        self.calls: list[CallRecord] = []
        self.messages: list[tuple[str, list[dict[str, str]]]] = []

    def purposes(self) -> list[str]:
        return [c.purpose for c in self.calls]

    async def parse(self, messages: Sequence[dict[str, str]], schema: type[T], *, model: str | None = None,
                    purpose: str = "parse", max_tokens: int | None = None) -> T:
        self.calls.append(CallRecord("parse", model or "scripted", purpose, 0.0))
        self.messages.append((purpose, list(messages)))
        if callable(self._plans):
            request = next(m["content"] for m in reversed(messages) if m["content"].startswith("Request: "))
            return self._plans(request.removeprefix("Request: "))  # type: ignore[return-value]
        if not self._plans:
            raise LLMError("no scripted plan left")
        item = self._plans.pop(0)
        if isinstance(item, Exception):
            raise item
        return schema.model_validate(item.model_dump())

    async def chat(self, messages: Sequence[dict[str, str]], *, model: str | None = None,
                   temperature: float = 0.0, purpose: str = "chat") -> str:
        self.calls.append(CallRecord("chat", model or "scripted", purpose, 0.0))
        self.messages.append((purpose, list(messages)))
        if self.chat_delay_s:
            await asyncio.sleep(self.chat_delay_s)
        return f"{self.chat_text} ({purpose})"

    async def stream(self, messages: Sequence[dict[str, str]], *, model: str | None = None,
                     temperature: float = 0.0, purpose: str = "stream") -> AsyncIterator[str]:
        yield await self.chat(messages, model=model, purpose=purpose)


class Recorder:
    """A `Progress` whose events are kept in arrival order (with a monotonic sequence number)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.progress = Progress("orchestrator", sink=self._sink)
        self.hooks: list[Callable[[dict[str, Any]], None]] = []

    async def _sink(self, payload: dict[str, Any], message: str) -> None:
        event = {**payload, "message": message, "seq": len(self.events), "t": time.monotonic()}
        self.events.append(event)
        for hook in self.hooks:
            hook(event)

    def index(self, **match: Any) -> int:
        """Position of the first event matching all given fields (ValueError when none)."""
        for i, event in enumerate(self.events):
            if all(event.get(k) == v for k, v in match.items()):
                return i
        raise ValueError(f"no event matching {match}; events: {[(e.get('agent'), e.get('stage')) for e in self.events]}")
