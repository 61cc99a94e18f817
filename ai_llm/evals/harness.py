"""What an evaluation or benchmark run starts, on ephemeral ports, and always cleans up."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from ai_llm.common.settings import Settings
from ai_llm.hub.process import Child, start_module, stop_child, wait_http

#: The least time an evaluation gives one call to a model server it was pointed at: a local model on two
#: cores can take minutes over a long prompt.
EVAL_LLM_TIMEOUT_S = 300.0


@contextmanager
def module_process(name: str, module: str, args: list[str], env: Mapping[str, str], log_dir: Path,
                   health_url: str, timeout_s: float = 120.0) -> Iterator[Child]:
    """A `python -m module` child, ready when `health_url` answers, stopped on exit."""
    child = start_module(name, module, args, env, log_dir)
    try:
        wait_http(health_url, child, timeout_s=timeout_s)
        yield child
    finally:
        stop_child(child)


@contextmanager
def local_http_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A threaded HTTP server on 127.0.0.1 and an ephemeral port; yields its base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def with_model_server(settings: Settings, llm_url: str, llm_model: str | None = None) -> Settings:
    """`settings` pointed at an OpenAI-compatible model server (`--llm-url`, `--llm-model`), with a call
    timeout of at least `EVAL_LLM_TIMEOUT_S`."""
    return settings.model_copy(update={"openai_base_url": llm_url, "llm_model": llm_model or settings.llm_model,
                                       "llm_timeout_s": max(settings.llm_timeout_s, EVAL_LLM_TIMEOUT_S)})
