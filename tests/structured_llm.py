"""A scripted stand-in for an online model that only answers structured output (OpenAI is unreachable here).

It implements the `LLM` protocol: `parse` returns the scripted replies in order, validated against the asked
schema (an exception instance is raised instead), and records every prompt; the other calls fail the test,
because the code under test must use structured output.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from pydantic import BaseModel

from ai_llm.common.llm import CallRecord


class StructuredReplies:
    def __init__(self, *replies: dict[str, Any] | Exception) -> None:
        self.replies = list(replies)
        self.calls: list[CallRecord] = []
        self.prompts: list[list[dict[str, str]]] = []

    async def parse(self, messages: Sequence[dict[str, str]], schema: type[BaseModel], *, purpose: str = "parse",
                    **_: Any) -> Any:
        self.prompts.append(list(messages))
        self.calls.append(CallRecord("parse", "scripted", purpose, 0.0))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return schema.model_validate(reply)

    async def chat(self, messages: Sequence[dict[str, str]], **_: Any) -> str:
        raise AssertionError("only structured output is expected here")

    async def stream(self, messages: Sequence[dict[str, str]], **_: Any) -> AsyncIterator[str]:
        raise AssertionError("only structured output is expected here")
        yield ""

    def langchain_model(self, model: str | None = None, temperature: float = 0.0) -> Any:
        raise AssertionError("only structured output is expected here")
