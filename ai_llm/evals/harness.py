"""What an evaluation or benchmark run starts, on ephemeral ports, and always cleans up."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from ai_llm.common.a2a_server import free_port
from ai_llm.common.process import Child, start_module, stop_child, wait_http


def _healthy(base_url: str) -> bool:
    root = base_url[:-3] if base_url.rstrip("/").endswith("/v1") else base_url
    try:
        return httpx.get(root.rstrip("/") + "/healthz", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def embedding_server(url: str | None = None, *, token: str | None = None, log_dir: Path | None = None,
                     env: Mapping[str, str] | None = None, timeout_s: float = 120.0) -> Iterator[str]:
    """The OpenAI-wire base URL (`…/v1`) of a working local embedding server.

    Args:
        url: an embedding server to use when it answers its health check (nothing is started then).
        token: the hub token the started server requires (`HUB_TOKEN`).
        log_dir: where the started server logs (a temporary folder by default).
        env: extra environment of the started server (`EMBEDDING_RUNTIME`, …).
    """
    if url and _healthy(url):
        yield url
        return
    with tempfile.TemporaryDirectory(prefix="hub-embed-") as tmp:
        port = free_port()
        child = start_module("embedding_server", "ai_llm.embedding_server", ["--port", str(port)],
                             {"HUB_TOKEN": token or "", **(env or {})}, log_dir or Path(tmp))
        try:
            wait_http(f"http://127.0.0.1:{port}/healthz", child, timeout_s=timeout_s)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            stop_child(child)


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
