"""A real OpenAI-compatible server for the LLM-path tests: llama-cpp-python's server with SmolLM2-135M.

One server process per session (the model loads in about a second). The hub talks to it only through its
real `OpenAIChat` adapter, exactly as it would talk to `OPENAI_BASE_URL` in production. When
llama-cpp-python is not installed the fixture installs it (cached wheel under `.data/wheels`, else a source
build with the machine's compiler); the tests skip only when that build is impossible (no gcc/g++).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_llm.common.a2a.server import free_port
from ai_llm.common.llm import OpenAIChat
from ai_llm.hub import local_llm as local_llm_server

#: Generation cap per call: the model is tiny and the tests check wiring and shape, not prose.
MAX_TOKENS = 192


@pytest.fixture(scope="session")
def local_llm(session_dir: Path) -> Iterator[local_llm_server.LocalLLMServer]:
    """The running server (`base_url` ends in `/v1`)."""
    try:
        local_llm_server.install()
    except local_llm_server.BuildToolsMissing as exc:
        pytest.skip(f"local LLM server unavailable: {exc}")
    server = local_llm_server.start_server(free_port(), session_dir / "logs", n_ctx=4096)
    yield server
    server.stop()


@pytest.fixture
def llm(local_llm: local_llm_server.LocalLLMServer) -> OpenAIChat:
    """The hub's OpenAI adapter pointed at the local server (a fresh call log per test)."""
    return OpenAIChat(local_llm.model, base_url=local_llm.base_url, timeout_s=180, max_tokens=MAX_TOKENS)
