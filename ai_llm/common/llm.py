"""LLM port: structured output, plain chat and streaming, behind one small interface.

Two adapters:

* `OpenAIChat` — the `openai` SDK against OpenAI or any OpenAI-compatible server (`OPENAI_BASE_URL`:
  Ollama, vLLM, llama.cpp). Structured output tries the SDK's `parse`, then a `json_schema` response
  format, then a JSON-object prompt validated by pydantic, so older compatible servers still work. The
  JSON-object request also carries the schema as `response_format.schema` (the extension llama-cpp-python's
  server uses to constrain decoding with a grammar; it rejects `json_schema`, with an HTTP 500 naming
  `response_format`, which counts as a rejected format); a server that refuses that key gets a plain
  `json_object`. Tool-calling models from `langchain_model` send `tool_choice="auto"`
  explicitly (OpenAI's default; llama-cpp-python ignores tools without it).
* `LocalEngine` — the offline mode, chosen when no key or base URL is configured. It generates nothing:
  every call raises `OfflineUnsupported`, and callers take their rule-based path in that branch
  (`ai_llm.common.text.rules`, extractive answers). Callers use both adapters the same way; only the
  composition root (`ai_llm.common.runtime`) knows which one it built.

```python
try:
    plan = await llm.parse(messages, IntentPlan, purpose="plan")
except OfflineUnsupported:
    plan = offline_plan(text)                       # no model configured: the rules decide
except LLMError as exc:
    note_degraded("llm", exc); plan = offline_plan(text)   # the model failed: same rules, counted
```

Every call is recorded in `calls` so tests and telemetry can see which paths used a model.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

import openai
import pydantic_core
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from pydantic import BaseModel, ValidationError

from ai_llm.common.settings import Settings
from ai_llm.common.usage import note_llm

T = TypeVar("T", bound=BaseModel)
Message = dict[str, str]


class LLMError(RuntimeError):
    """The model call failed or returned something unusable."""


class OfflineUnsupported(LLMError):
    """No language model is configured (offline mode): take the rule-based path. Not a failure."""


class StructuredOutputTruncated(LLMError):
    """The model stopped at its token budget before closing the structured reply (no valid object).

    Another structured-output format would hit the same budget, so the adapter raises at once instead of
    falling through; callers fall back (the planner to its offline plan) and say why.
    """


@dataclass
class CallRecord:
    """One model call, kept for tests and diagnostics."""

    kind: str
    model: str
    purpose: str
    elapsed_ms: float
    note: str = ""


class LLM(Protocol):
    """The language-model port every agent depends on (`OpenAIChat` online, `LocalEngine` offline).

    Every method raises `OfflineUnsupported` when no model is configured and `LLMError` when the model failed.
    """

    calls: list[CallRecord]

    async def chat(self, messages: Sequence[Message], *, model: str | None = None,
                   temperature: float = 0.0, purpose: str = "chat") -> str:
        """Plain completion: the assistant's text."""
        ...

    def stream(self, messages: Sequence[Message], *, model: str | None = None,
               temperature: float = 0.0, purpose: str = "stream") -> AsyncIterator[str]:
        """Completion as text deltas."""
        ...

    async def parse(self, messages: Sequence[Message], schema: type[T], *, model: str | None = None,
                    purpose: str = "parse", max_tokens: int | None = None) -> T:
        """Structured output: a validated instance of `schema` (`max_tokens`: this call's token budget)."""
        ...

    def stream_parse(self, messages: Sequence[Message], schema: type[T], *, model: str | None = None,
                     purpose: str = "stream_parse", max_tokens: int | None = None) -> AsyncIterator[dict[str, Any] | T]:
        """Structured output as it is written: the partial object (a dict whose last string may be cut) each
        time it grows, then the validated instance of `schema`, last."""
        ...

    def langchain_model(self, model: str | None = None, temperature: float = 0.0) -> Any:
        """A LangChain chat model on the same endpoint (for tool-calling agents)."""
        ...


# ------------------------------------------------------------------------------------------
# OpenAI-compatible adapter
# ------------------------------------------------------------------------------------------


def _strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """JSON schema for `response_format` (additionalProperties off everywhere, all fields required)."""
    raw = schema.model_json_schema()

    def fix(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            for value in node.values():
                fix(value)
        elif isinstance(node, list):
            for value in node:
                fix(value)

    fix(raw)
    return raw


def _wire(messages: Sequence[Message]) -> list[ChatCompletionMessageParam]:
    """Role/content dicts as the SDK's message type (they are that shape already)."""
    return cast("list[ChatCompletionMessageParam]", list(messages))


def _format_rejected(exc: openai.OpenAIError) -> bool:
    """A server error that is really a rejected `response_format` (llama-cpp-python answers 500 for one)."""
    return isinstance(exc, openai.InternalServerError) and "response_format" in str(exc)


def _extract_json(text: str) -> str:
    """The first JSON object in a model reply (models sometimes wrap it in prose or fences)."""
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    if fenced:
        return fenced.group(1)
    start = text.find("{")
    end = text.rfind("}")
    if start == -1 or end <= start:
        raise LLMError(f"model reply holds no JSON object: {text[:200]!r}")
    return text[start:end + 1]


def partial_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object a reply has written so far (a cut last string kept as written), or None before it starts."""
    start = text.find("{")
    if start == -1:
        return None
    try:
        value = pydantic_core.from_json(text[start:], allow_partial="trailing-strings")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _validated(response: ChatCompletion, schema: type[T], budget: int | openai.Omit) -> T:
    """The reply's JSON object validated against `schema`; a reply cut by the token budget is named as such."""
    choice = response.choices[0]
    content = choice.message.content or ""
    if choice.finish_reason == "length":
        raise StructuredOutputTruncated(f"{schema.__name__} reply cut at the token budget ({budget}) after "
                                        f"{len(content)} characters")
    return schema.model_validate_json(_extract_json(content))


class OpenAIChat:
    """Chat model through the `openai` SDK (OpenAI or any compatible server).

    Args:
        model: default model id (`gpt-4o-mini`).
        api_key: OpenAI key; a placeholder is sent to keyless compatible servers.
        base_url: compatible server URL, e.g. `http://127.0.0.1:8080/v1`.
        timeout_s: per request.
        max_tokens: cap on generated tokens per call (None: the server's default).
    """

    def __init__(self, model: str, api_key: str | None = None, base_url: str | None = None,
                 timeout_s: float = 60.0, max_tokens: int | None = None) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.api_key = api_key or "not-needed"
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.calls: list[CallRecord] = []
        self.structured_mode: str | None = None  # which structured-output path the server accepted
        self._json_object_schema = True  # False once the server refused `response_format.schema`
        self._client = openai.AsyncOpenAI(api_key=self.api_key, base_url=base_url, timeout=timeout_s,
                                          max_retries=1)

    def _max_tokens(self) -> int | openai.Omit:
        return self.max_tokens if self.max_tokens else openai.omit

    def _record(self, kind: str, model: str, purpose: str, started: float, note: str = "") -> None:
        self.calls.append(CallRecord(kind, model, purpose, (time.perf_counter() - started) * 1000, note))

    async def chat(self, messages: Sequence[Message], *, model: str | None = None,
                   temperature: float = 0.0, purpose: str = "chat") -> str:
        started = time.perf_counter()
        model = model or self.model
        try:
            response = await self._client.chat.completions.create(
                model=model, messages=_wire(messages), temperature=temperature,
                max_tokens=self._max_tokens())
        except openai.OpenAIError as exc:
            raise LLMError(f"chat call failed: {exc}") from exc
        finally:
            self._record("chat", model, purpose, started)
        _note_usage(response)
        return response.choices[0].message.content or ""

    async def stream(self, messages: Sequence[Message], *, model: str | None = None,
                     temperature: float = 0.0, purpose: str = "stream") -> AsyncIterator[str]:
        started = time.perf_counter()
        model = model or self.model
        counted = _StreamUsage()
        try:
            response = await self._client.chat.completions.create(
                model=model, messages=_wire(messages), temperature=temperature,
                stream=True, max_tokens=self._max_tokens())
            async for chunk in response:
                counted.see(chunk)
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except openai.OpenAIError as exc:
            raise LLMError(f"streaming call failed: {exc}") from exc
        finally:
            counted.note()
            self._record("stream", model, purpose, started)

    async def parse(self, messages: Sequence[Message], schema: type[T], *, model: str | None = None,
                    purpose: str = "parse", max_tokens: int | None = None) -> T:
        """Structured output, trying the formats the server may accept (see the module docstring).

        Args:
            max_tokens: this call's token budget (a structured reply must fit in it whole); defaults to the
                adapter's cap.

        Raises:
            StructuredOutputTruncated: the reply hit the token budget before the object was closed.
            LLMError: no format worked, or the call failed.
        """
        model = model or self.model
        modes = [self.structured_mode] if self.structured_mode else ["parse", "json_schema", "json_prompt"]
        budget: int | openai.Omit = max_tokens or self._max_tokens()
        last_error: Exception | None = None
        for mode in modes:
            started = time.perf_counter()
            try:
                result = await self._parse_with(mode, list(messages), schema, model, budget)
            except StructuredOutputTruncated as exc:
                self._record("parse", model, purpose, started, note=f"{mode} truncated: {str(exc)[:120]}")
                raise
            except (openai.BadRequestError, openai.UnprocessableEntityError, openai.NotFoundError,
                    LLMError, ValidationError, json.JSONDecodeError) as exc:
                # Compatible servers differ in what they accept; fall through to the next format.
                last_error = exc
                self._record("parse", model, purpose, started, note=f"{mode} failed: {str(exc)[:120]}")
                continue
            except openai.OpenAIError as exc:
                if _format_rejected(exc):
                    last_error = exc
                    self._record("parse", model, purpose, started, note=f"{mode} failed: {str(exc)[:120]}")
                    continue
                self._record("parse", model, purpose, started, note=f"{mode} error")
                raise LLMError(f"structured call failed: {exc}") from exc
            self._record("parse", model, purpose, started, note=mode)
            self.structured_mode = mode
            return result
        raise LLMError(f"no structured-output format worked for {schema.__name__}: {last_error}")

    async def _parse_with(self, mode: str, messages: list[Message], schema: type[T], model: str,
                          budget: int | openai.Omit) -> T:
        if mode == "parse":
            try:
                completion = await self._client.chat.completions.parse(
                    model=model, messages=_wire(messages), response_format=schema, temperature=0,
                    max_tokens=budget)
            except openai.LengthFinishReasonError as exc:
                _note_usage(exc.completion)
                raise StructuredOutputTruncated(
                    f"{schema.__name__} reply cut at the token budget ({budget})") from exc
            _note_usage(completion)
            parsed = completion.choices[0].message.parsed
            if parsed is None:
                raise LLMError("parse returned no object")
            return parsed
        if mode == "json_schema":
            response = await self._client.chat.completions.create(
                model=model, messages=_wire(messages), temperature=0,
                response_format={"type": "json_schema", "json_schema": {
                    "name": schema.__name__, "schema": _strict_schema(schema), "strict": True}},
                max_tokens=budget)
            _note_usage(response)
            return _validated(response, schema, budget)
        instruction = {
            "role": "system",
            "content": "Reply with one JSON object only, matching this JSON schema:\n"
                       + json.dumps(schema.model_json_schema(), ensure_ascii=False),
        }
        prompt = [instruction, *messages]
        reply: ChatCompletion | None = None
        if self._json_object_schema:
            try:
                reply = await self._client.chat.completions.create(
                    model=model, messages=_wire(prompt), temperature=0, max_tokens=budget,
                    extra_body={"response_format": {"type": "json_object", "schema": _strict_schema(schema)}})
            except openai.OpenAIError as exc:
                if not isinstance(exc, (openai.BadRequestError, openai.UnprocessableEntityError)) \
                        and not _format_rejected(exc):
                    raise
                self._json_object_schema = False  # the server knows no `schema` key: plain JSON mode
        if reply is None:
            reply = await self._client.chat.completions.create(
                model=model, messages=_wire(prompt), temperature=0,
                response_format={"type": "json_object"}, max_tokens=budget)
        _note_usage(reply)
        return _validated(reply, schema, budget)

    async def stream_parse(self, messages: Sequence[Message], schema: type[T], *, model: str | None = None,
                           purpose: str = "stream_parse", max_tokens: int | None = None
                           ) -> AsyncIterator[dict[str, Any] | T]:
        """Structured output streamed: a `json_schema` response format (OpenAI, vLLM, Ollama), else the JSON-object
        prompt with the schema (llama-cpp-python; what `parse` settled on is tried first). The partial object is
        read from the text so far with pydantic-core's partial JSON parser; the last item is the validated one.

        Raises:
            StructuredOutputTruncated: the reply hit the token budget before the object was closed.
            LLMError: no format worked, the call failed, or the whole reply is not a valid `schema`.
        """
        model = model or self.model
        budget: int | openai.Omit = max_tokens or self._max_tokens()
        modes = ["json_prompt"] if self.structured_mode == "json_prompt" else ["json_schema", "json_prompt"]
        last_error: Exception | None = None
        for mode in modes:
            started = time.perf_counter()
            prompt, extra = self._stream_format(mode, list(messages), schema)
            try:
                response = await self._client.chat.completions.create(
                    model=model, messages=_wire(prompt), temperature=0, stream=True, max_tokens=budget, **extra)
            except openai.OpenAIError as exc:
                if isinstance(exc, (openai.BadRequestError, openai.UnprocessableEntityError, openai.NotFoundError)) \
                        or _format_rejected(exc):
                    last_error = exc
                    self._record("stream_parse", model, purpose, started, note=f"{mode} failed: {str(exc)[:120]}")
                    if mode == "json_prompt" and self._json_object_schema:
                        self._json_object_schema = False
                        modes.append("json_prompt")  # once more, as plain JSON mode
                    continue
                self._record("stream_parse", model, purpose, started, note=f"{mode} error")
                raise LLMError(f"structured streaming call failed: {exc}") from exc
            text, finish, shown = "", None, None
            counted = _StreamUsage()
            try:
                async for chunk in response:
                    counted.see(chunk)
                    if not chunk.choices:
                        continue
                    choice = chunk.choices[0]
                    if choice.delta.content:
                        text += choice.delta.content
                        partial = partial_json_object(text)
                        if partial is not None and partial != shown:
                            shown = partial
                            yield partial
                    finish = choice.finish_reason or finish
            except openai.OpenAIError as exc:
                raise LLMError(f"structured streaming call failed: {exc}") from exc
            finally:
                counted.note()
                self._record("stream_parse", model, purpose, started, note=mode)
            if finish == "length":
                raise StructuredOutputTruncated(f"{schema.__name__} reply cut at the token budget ({budget}) after "
                                                f"{len(text)} characters")
            try:
                yield schema.model_validate_json(_extract_json(text))
            except (ValidationError, LLMError) as exc:
                raise LLMError(f"streamed {schema.__name__} reply is not valid: {str(exc)[:200]}") from exc
            return
        raise LLMError(f"no structured-output format worked for a streamed {schema.__name__}: {last_error}")

    def _stream_format(self, mode: str, messages: list[Message], schema: type[BaseModel]
                       ) -> tuple[list[Message], dict[str, Any]]:
        """The prompt and request arguments of one structured-output format (see `stream_parse`)."""
        if mode == "json_schema":
            return messages, {"response_format": {"type": "json_schema", "json_schema": {
                "name": schema.__name__, "schema": _strict_schema(schema), "strict": True}}}
        instruction = {"role": "system", "content": "Reply with one JSON object only, matching this JSON schema:\n"
                       + json.dumps(schema.model_json_schema(), ensure_ascii=False)}
        response_format: dict[str, Any] = {"type": "json_object"}
        if self._json_object_schema:
            response_format["schema"] = _strict_schema(schema)
        return [instruction, *messages], {"extra_body": {"response_format": response_format}}

    def langchain_model(self, model: str | None = None, temperature: float = 0.0) -> Any:
        """A LangChain chat model on the same endpoint (for tool-calling agents).

        Binding tools without a `tool_choice` sends `"auto"` explicitly: OpenAI's documented default, and
        what llama-cpp-python's server needs to consider the tools at all. A `max_tokens` cap is sent as
        `max_completion_tokens` (LangChain's spelling) and, to a compatible server, also as `max_tokens`; a
        compatible server also gets `""` instead of `null` as the content of tool-calling assistant turns.
        """
        limits: dict[str, Any] = {}
        if self.max_tokens:
            limits["max_completion_tokens"] = self.max_tokens
            if self.base_url:  # compatible servers (llama-cpp-python) may know only the older spelling
                limits["extra_body"] = {"max_tokens": self.max_tokens}
        return _auto_tool_chat_openai()(model=model or self.model, api_key=self.api_key, base_url=self.base_url,
                                        temperature=temperature, timeout=self.timeout_s, **limits)


@functools.cache
def _auto_tool_chat_openai() -> Any:
    """`ChatOpenAI` whose `bind_tools` defaults `tool_choice` to "auto" (imported lazily: LangChain is heavy)."""
    from langchain_openai import ChatOpenAI

    class AutoToolChatOpenAI(ChatOpenAI):
        def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
            if tool_choice is None and tools:
                tool_choice = "auto"
            return super().bind_tools(tools, tool_choice=tool_choice, **kwargs)

        def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
            payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
            if self.openai_api_base:
                # A tool-calling assistant turn has `content: null`; llama-cpp-python's server only accepts a
                # string there, so compatible servers get "" (same meaning).
                for message in payload.get("messages") or []:
                    if message.get("role") == "assistant" and message.get("content") is None:
                        message["content"] = ""
            return payload

    return AutoToolChatOpenAI


# ------------------------------------------------------------------------------------------
# Offline engine
# ------------------------------------------------------------------------------------------


class LocalEngine:
    """The offline adapter (the hub's "offline mode", chosen when no key or base URL is configured).

    It generates nothing: every generation method raises `OfflineUnsupported` at once, so callers use it
    exactly like the online adapter and take their rule-based path (`ai_llm.common.text.rules`, the
    intent model, extractive answers) in the `except OfflineUnsupported` branch. Only the composition root
    (`runtime.py`) knows which adapter it built.
    """

    def __init__(self) -> None:
        self.calls: list[CallRecord] = []

    def _refuse(self, what: str) -> OfflineUnsupported:
        return OfflineUnsupported(f"offline mode has no language model for {what}")

    async def chat(self, messages: Sequence[Message], *, model: str | None = None,
                   temperature: float = 0.0, purpose: str = "chat") -> str:
        raise self._refuse(purpose)

    async def stream(self, messages: Sequence[Message], *, model: str | None = None,
                     temperature: float = 0.0, purpose: str = "stream") -> AsyncIterator[str]:
        raise self._refuse(purpose)
        yield ""  # pragma: no cover - makes this an async generator like the online adapter's

    async def parse(self, messages: Sequence[Message], schema: type[T], *, model: str | None = None,
                    purpose: str = "parse", max_tokens: int | None = None) -> T:
        raise self._refuse(schema.__name__)

    async def stream_parse(self, messages: Sequence[Message], schema: type[T], *, model: str | None = None,
                           purpose: str = "stream_parse", max_tokens: int | None = None
                           ) -> AsyncIterator[dict[str, Any] | T]:
        raise self._refuse(schema.__name__)
        yield {}  # pragma: no cover - makes this an async generator like the online adapter's

    def langchain_model(self, model: str | None = None, temperature: float = 0.0) -> Any:
        raise self._refuse("a tool-calling agent")


def make_llm(settings: Settings) -> LLM:
    """The LLM adapter chosen by settings: OpenAI-compatible when a key/base URL is set, else offline."""
    if settings.llm_online:
        return OpenAIChat(settings.llm_model, api_key=settings.openai_api_key,
                          base_url=settings.openai_base_url, timeout_s=settings.llm_timeout_s,
                          max_tokens=settings.llm_max_tokens)
    return LocalEngine()


def _note_usage(response: object) -> None:
    """Record a completion's reported token usage for the current request (`usage.note_llm`)."""
    _note_reported(getattr(response, "usage", None))


def _note_reported(usage: object) -> None:
    note_llm(int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0),
             estimated=usage is None)


class _StreamUsage:
    """The usage of a streamed reply: the server's own figures when a chunk carries them, else one completion
    token per content piece (llama.cpp and OpenAI stream one token per piece), marked as estimated."""

    def __init__(self) -> None:
        self.pieces = 0
        self.reported: object = None

    def see(self, chunk: Any) -> None:
        if getattr(chunk, "usage", None) is not None:
            self.reported = chunk.usage
        if chunk.choices and chunk.choices[0].delta.content:
            self.pieces += 1

    def note(self) -> None:
        if self.reported is not None:
            _note_reported(self.reported)
        elif self.pieces:  # nothing when the call failed before a token arrived
            note_llm(0, self.pieces, estimated=True)
