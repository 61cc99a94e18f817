"""LLM port: the offline engine, and the OpenAI adapter's structured-output fallbacks.

The OpenAI API cannot be reached from here, so `OpenAIChat` is tested against a local HTTP server that
speaks the documented Chat Completions wire format (`POST /v1/chat/completions`), including a variant that
rejects `json_schema` response formats the way older compatible servers do.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Literal

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel

from ai_llm.common.a2a.server import bind_socket, serve_app
from ai_llm.common.llm import LLMError, LocalEngine, OfflineUnsupported, OpenAIChat
from ai_llm.common.text import rules as text_rules


class Verdict(BaseModel):
    intent: Literal["WEB_SEARCH", "INTERNAL_SEARCH"]
    confidence: float


def completion(content: str) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def openai_compatible_app(accept_json_schema: bool, log: list[dict[str, Any]]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        body = await request.json()
        log.append(body)
        fmt = (body.get("response_format") or {}).get("type")
        if fmt == "json_schema" and not accept_json_schema:
            return JSONResponse({"error": {"message": "response_format json_schema not supported",
                                           "type": "invalid_request_error"}}, status_code=400)
        if fmt in ("json_schema", "json_object") and not body.get("stream"):
            return completion('Sure: {"intent": "WEB_SEARCH", "confidence": 0.9}')
        if body.get("stream"):
            pieces = ['{"intent": "WEB', '_SEARCH", "confi', 'dence": 0.9', '}'] if fmt else ["안녕", "하세요", "!"]

            async def chunks() -> AsyncIterator[bytes]:
                for piece in pieces:
                    delta = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                             "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                    yield f"data: {json.dumps(delta)}\n\n".encode()
                yield b"data: [DONE]\n\n"
            return StreamingResponse(chunks(), media_type="text/event-stream")
        return completion("plain answer")

    return app


@pytest.fixture
async def compatible_server() -> AsyncIterator[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    log: list[dict[str, Any]] = []
    state = {"accept": True}
    servers = {}
    urls = {}
    for accept in (True, False):
        sock = bind_socket("127.0.0.1", 0)
        urls[accept] = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        servers[accept] = asyncio.create_task(serve_app(openai_compatible_app(accept, log), sock))
    await asyncio.sleep(0.3)
    yield urls[True], log, {"legacy_url": urls[False], **state}
    for task in servers.values():
        task.cancel()


async def test_openai_adapter_parse_chat_and_stream(compatible_server: Any) -> None:
    url, log, _ = compatible_server
    llm = OpenAIChat("m", base_url=url)
    verdict = await llm.parse([{"role": "user", "content": "환율?"}], Verdict)
    assert verdict == Verdict(intent="WEB_SEARCH", confidence=0.9)
    assert await llm.chat([{"role": "user", "content": "hi"}]) == "plain answer"
    assert "".join([p async for p in llm.stream([{"role": "user", "content": "hi"}])]) == "안녕하세요!"
    assert [c.kind for c in llm.calls][-2:] == ["chat", "stream"]


async def test_openai_adapter_falls_back_when_json_schema_is_rejected(compatible_server: Any) -> None:
    _, log, extra = compatible_server
    llm = OpenAIChat("m", base_url=extra["legacy_url"])
    verdict = await llm.parse([{"role": "user", "content": "x"}], Verdict)
    assert verdict.intent == "WEB_SEARCH"
    assert llm.structured_mode == "json_prompt"
    formats = [(b.get("response_format") or {}).get("type") for b in log]
    assert "json_schema" in formats and formats[-1] == "json_object"
    # the next call goes straight to the format that worked
    log.clear()
    await llm.parse([{"role": "user", "content": "y"}], Verdict)
    assert len(log) == 1


async def test_structured_output_streams_as_growing_partial_objects_then_the_validated_one(
        compatible_server: Any) -> None:
    """`stream_parse`: each chunk that grows the JSON yields the object so far (a cut string kept as written),
    the last item is the validated model; a server that refuses `json_schema` gets the JSON-object prompt."""
    url, log, extra = compatible_server
    items = [item async for item in OpenAIChat("m", base_url=url).stream_parse(
        [{"role": "user", "content": "환율?"}], Verdict)]
    assert items[-1] == Verdict(intent="WEB_SEARCH", confidence=0.9)
    partials = items[:-1]
    assert partials[0] == {"intent": "WEB"} and {"intent": "WEB_SEARCH"} in partials and len(partials) >= 3
    assert (log[-1].get("response_format") or {}).get("type") == "json_schema" and log[-1]["stream"] is True
    log.clear()
    legacy = OpenAIChat("m", base_url=extra["legacy_url"])
    items = [item async for item in legacy.stream_parse([{"role": "user", "content": "x"}], Verdict)]
    assert items[-1] == Verdict(intent="WEB_SEARCH", confidence=0.9)
    assert [(b.get("response_format") or {}).get("type") for b in log] == ["json_schema", "json_object"]


async def test_a_streamed_reply_that_is_not_the_schema_is_an_error(compatible_server: Any) -> None:
    class Other(BaseModel):
        city: str

    url, _, _ = compatible_server
    with pytest.raises(LLMError):
        async for _ in OpenAIChat("m", base_url=url).stream_parse([{"role": "user", "content": "x"}], Other):
            pass


def test_text_rules_variants_and_extractive_answers() -> None:
    rewrite = text_rules.rewrite_query("손 위생 지침은 무엇인가요?")
    assert "위생" in rewrite and "무엇" not in rewrite
    variants = text_rules.query_variants("What is the maximum clock speed of I2C fast mode?")
    assert len(variants) == 3 and len(set(variants)) == 3
    assert text_rules.rewrite_query("What is the maximum clock speed of I2C fast mode?") not in variants
    passages = ["Fast-mode devices can transfer at up to 400 kbit/s. Unrelated sentence about bananas.",
                "Standard-mode is 100 kbit/s."]
    answer = text_rules.extract_answer("What is the fast-mode bit rate?", passages, max_sentences=1)
    assert answer == "Fast-mode devices can transfer at up to 400 kbit/s."
    assert text_rules.extract_answer("quantum chromodynamics", passages) == ""


async def test_offline_engine_refuses_every_generation_the_same_way() -> None:
    """Offline, every call of the port raises OfflineUnsupported (a LLMError), so callers need no probing."""
    engine = LocalEngine()
    messages = [{"role": "user", "content": "x"}]
    with pytest.raises(OfflineUnsupported):
        await engine.parse(messages, Verdict)
    with pytest.raises(OfflineUnsupported):
        await engine.chat(messages)
    with pytest.raises(OfflineUnsupported):
        async for _ in engine.stream(messages):
            pass
    with pytest.raises(OfflineUnsupported):
        async for _ in engine.stream_parse(messages, Verdict):
            pass
    with pytest.raises(OfflineUnsupported):
        engine.langchain_model()
    assert issubclass(OfflineUnsupported, LLMError)
