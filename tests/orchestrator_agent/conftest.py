"""Fixtures of the orchestrator tests: small real A2A agents in one child process (ephemeral ports)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.server import free_port
from ai_llm.hub.process import Child, start_module, stop_child, wait_http

FILE_SOURCE = {"type": "file", "file_name": "guide.pdf", "file_id": "f-1", "storage_ref": "docs/guide.pdf",
               "pages": [3, 4], "page_label": "p.3–4", "file_url": "/api/files/f-1/download", "score": 0.82}
WEB_SOURCE = {"type": "web", "url": "https://example.org/law", "title": "Labour law 2026", "score": 0.91,
              "published_at": "2026-11-01"}

#: name -> behaviour of the scripted agents (see scripted_agents.py).
SPECS: dict[str, dict[str, Any]] = {
    "rag_ok": {"status": "ok", "text": "연차는 입사 첫해 15일입니다. (guide.pdf p.3–4)",
               "sources": [FILE_SOURCE, dict(FILE_SOURCE, score=0.5)], "max_score": 0.82,
               "skills": [{"id": "search_documents", "description": "search internal documents",
                           "examples": ["사내 규정 찾아줘"]}]},
    "rag_none": {"status": "no_result", "text": "관련 문서를 찾지 못했습니다.", "max_score": 0.12},
    "rag_clarify": {"status": "needs_clarification", "text": "무엇을 가리키는지 알 수 없습니다."},
    "web_high": {"status": "ok", "text": "최신 법령에 따르면 연차는 15일 이상입니다.", "max_score": 0.91,
                 "sources": [WEB_SOURCE, dict(WEB_SOURCE, url="https://example.org/law/", score=0.7)],
                 "skills": [{"id": "web_research", "description": "search the web"},
                            {"id": "verify_fact", "description": "verify current numbers"}]},
    "web_low": {"status": "ok", "text": "아마도 관련 없는 페이지입니다.", "max_score": 0.3,
                "sources": [dict(WEB_SOURCE, url="https://example.org/unrelated", score=0.3)]},
    "web_outage": {"status": "error", "text": "웹 검색을 사용할 수 없습니다 (연결 안 됨)", "outage": True,
                   "outage_kind": "unreachable", "error": "search unavailable: serper: ConnectError: connection refused"},
    "web_none": {"status": "no_result", "text": "관련 있는 웹 결과를 찾지 못했습니다.", "max_score": 0.1},
    "rag_history": {"status": "ok", "show_history": True, "sources": [FILE_SOURCE]},
    "echo_a": {"status": "ok"},
    "echo_b": {"status": "ok"},
    "echo_c": {"status": "ok"},
    "file_ok": {"status": "ok", "text": "파일 3개: a.pdf, b.pdf, c.pdf"},
    "report_ok": {"status": "ok"},
    "bar_1": {"status": "ok", "barrier": "layer", "barrier_size": 2},
    "bar_2": {"status": "ok", "barrier": "layer", "barrier_size": 2},
    "slow": {"status": "ok", "delay": 60},
    "failing": {"fail": True},
    "confirm": {"status": "ok", "input_required": True, "text": "파일 2개를 삭제할까요? (예/아니오)"},
    "translator": {"status": "ok", "description": "Translates text between Korean and English",
                   "skills": [{"id": "translate", "description": "translate a text",
                               "examples": ["이 문장을 영어로 번역해줘"]}]},
}


class ScriptedAgents:
    """Real A2A test agents; `remote(name, as_name)` gives a `RemoteAgent` for one of them."""

    def __init__(self, urls: dict[str, str], child: Child) -> None:
        self.urls = urls
        self.child = child

    def remote(self, name: str, as_name: str | None = None, timeout_s: float = 30.0) -> RemoteAgent:
        return RemoteAgent(self.urls[name], name=as_name or name, timeout_s=timeout_s, connect_timeout_s=2.0)

    def registry(self, **mapping: str) -> dict[str, RemoteAgent]:
        """`registry(internal_rag="rag_none", web_research="web_high")` -> name -> RemoteAgent."""
        return {as_name: self.remote(name, as_name) for as_name, name in mapping.items()}


def start_scripted(specs: dict[str, dict[str, Any]], log_dir: Path, label: str) -> tuple[dict[str, str], Child]:
    with_ports = {name: {**spec, "port": free_port()} for name, spec in specs.items()}
    child = start_module(label, "tests.orchestrator_agent.scripted_agents", ["--spec", json.dumps(with_ports)], {},
                         log_dir)
    urls = {name: f"http://127.0.0.1:{spec['port']}" for name, spec in with_ports.items()}
    try:
        for url in urls.values():
            wait_http(url + "/.well-known/agent-card.json", child, timeout_s=60)
    except BaseException:
        stop_child(child)
        raise
    return urls, child


@pytest.fixture(scope="session")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedAgents]:
    urls, child = start_scripted(SPECS, tmp_path_factory.mktemp("orch-logs"), "scripted-agents")
    try:
        yield ScriptedAgents(urls, child)
    finally:
        stop_child(child)


@pytest.fixture
def victim(tmp_path: Path) -> Iterator[ScriptedAgents]:
    """One agent in its own process that hangs after its first status event (to be killed by the test)."""
    urls, child = start_scripted({"victim": {"status": "ok", "hang": True}}, tmp_path, "victim")
    try:
        yield ScriptedAgents(urls, child)
    finally:
        stop_child(child, grace_s=1)
