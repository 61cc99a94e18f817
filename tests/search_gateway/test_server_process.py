"""The gateway as a real process: MCP over streamable HTTP and stdio, bearer token, its telemetry over HTTP,
start-up errors."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

from ai_llm.common.settings import PROJECT_ROOT, get_settings
from ai_llm.search_gateway import __main__ as gateway_main
from tests.conftest import AgentProcesses

TOKEN = "gateway-test-token-0123456789"


def _config(tmp_path: Path, text: str = "chain: auto\n") -> str:
    path = tmp_path / "search_config.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


async def _call(session: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool's JSON object: one text block (no structured copy of it to serialise and validate twice)."""
    result = await session.call_tool(tool, args)
    assert not result.isError, result.content
    assert len(result.content) == 1 and result.structuredContent is None
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


async def test_http_tools_cache_token_and_errors(agent_processes: AgentProcesses, corpus: Path,
                                                 tmp_path: Path) -> None:
    child = agent_processes.start("gateway", "ai_llm.search_gateway", health_path="/healthz", env={
        "LOCAL_CORPUS": str(corpus), "SEARCH_CONFIG": _config(tmp_path), "HUB_TOKEN": TOKEN})
    async with httpx.AsyncClient() as http:
        health = (await http.get(f"{child.url}/healthz")).json()  # public: the launcher polls it
        denied = await http.post(f"{child.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        rebound = await http.get(f"{child.url}/healthz", headers={"Host": "evil.example.com"})
        cross = await http.post(f"{child.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                headers={"Origin": "http://evil.example.com", "Authorization": f"Bearer {TOKEN}"})
    assert health["chains"]["web"] == ["local"] and health["local_corpus_pages"] == 6 and health["cache"]
    assert denied.status_code == 401
    assert rebound.status_code == 421 and cross.status_code == 403  # DNS rebinding / cross-site page
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with streamablehttp_client(f"{child.url}/mcp", headers=headers) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {"web_search", "news_search", "search_many", "fetch_page", "fetch_pages"}
            assert all(t.outputSchema is None for t in tools.values())
            assert {"query", "max_results", "time_range", "include_domains", "agent"} <= set(
                tools["web_search"].inputSchema["properties"])
            first = await _call(session, "web_search", {"query": "KTX 고속철도 서울 부산", "agent": "web_research"})
            assert set(first) >= {"query", "results", "provider", "cache", "branch", "latency_ms", "cost_usd",
                                  "notice"}
            assert first["cache"] == "miss" and first["results"][0]["url"] == "https://example.kr/ktx"
            assert set(first["results"][0]) == {"title", "url", "snippet", "source", "score", "published_at"}
            second = await _call(session, "web_search", {"query": "ktx 고속철도 서울 부산!", "agent": "web_research"})
            assert second["cache"] == "exact" and second["results"] == first["results"]
            many = await _call(session, "search_many", {"queries": ["KTX 고속철도 서울 부산", "semiconductor exports"],
                                                         "kind": "news", "agent": "web_research"})
            assert [r["query"] for r in many["responses"]] == ["KTX 고속철도 서울 부산", "semiconductor exports"]
            assert many["responses"][1]["results"][0]["url"] == "https://news.example.com/chip-exports"
            too_many = await session.call_tool("search_many", {"queries": ["q"] * 9})
            assert too_many.isError and "1 to 8" in too_many.content[0].text  # type: ignore[union-attr]
            news = await _call(session, "news_search", {"query": "semiconductor exports", "time_range": "month"})
            assert news["results"][0]["url"] == "https://news.example.com/chip-exports"
            page = await _call(session, "fetch_page", {"url": "https://example.org/kimchi"})
            assert page["title"] == "Kimchi" and "napa cabbage" in page["text"] and page["error"] is None
            refused = await _call(session, "fetch_page", {"url": "http://127.0.0.1:1/admin"})
            assert refused["text"] == "" and "refused" in refused["error"]
            bad = await session.call_tool("web_search", {"query": "   "})
            assert bad.isError and "query is empty" in bad.content[0].text  # type: ignore[union-attr]
    # The telemetry summary (what the backend's dashboard shows) is served over HTTP, with the token only.
    assert child.url
    async with httpx.AsyncClient(base_url=child.url, timeout=10) as http:
        assert (await http.get("/telemetry")).status_code == 401
        for _ in range(50):  # telemetry rows are written off the response path
            summary = await http.get("/telemetry", params={"hours": 1, "recent": 500}, headers=headers)
            assert summary.status_code == 200
            mine = [r for r in summary.json()["recent"] if "고속철도 서울 부산" in r["query"]]
            if len(mine) >= 2:
                break
            await asyncio.sleep(0.2)
        body = summary.json()
    assert {r["cache"] for r in mine} >= {"miss", "exact"}
    assert set(body) >= {"hours", "bucket", "providers", "series", "recent"} and body["bucket"] == "minute"
    assert any(p["provider"] == "local" for p in body["providers"])


async def test_stdio_transport(hub_env: dict[str, str], corpus: Path, tmp_path: Path) -> None:
    env = {**os.environ, **hub_env, "LOCAL_CORPUS": str(corpus),
           "SEARCH_CONFIG": _config(tmp_path, "chain: [local]\ncache: {enabled: false}\n"),
           "PYTHONPATH": str(PROJECT_ROOT)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "ai_llm.search_gateway", "--stdio"],
                                   env=env, cwd=str(PROJECT_ROOT))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            out = await _call(session, "web_search", {"query": "Kimchi fermented vegetables", "max_results": 1})
    assert [r["url"] for r in out["results"]] == ["https://example.org/kimchi"] and out["provider"] == "local"


@pytest.mark.parametrize("config_text,corpus_text,expected", [
    ("chain: [local, googol]\n", None, r"search_config\.yaml:1: unknown provider 'googol'"),
    ("chain: auto\n", "{broken\n", r"corpus\.jsonl:1: not valid JSON"),
])
def test_bad_configuration_stops_start_up_with_file_and_line(
        tmp_path: Path, corpus: Path, config_text: str, corpus_text: str | None, expected: str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The process entry point (`main`) run in-process: exit code 2 and a message naming file and line."""
    if corpus_text is not None:
        corpus.write_text(corpus_text, encoding="utf-8")
    monkeypatch.setenv("LOCAL_CORPUS", str(corpus))
    monkeypatch.setenv("SEARCH_CONFIG", _config(tmp_path, config_text))
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "argv", ["search_gateway", "--port", "0"])
    get_settings.cache_clear()
    try:
        with pytest.raises(SystemExit) as exit_info:
            gateway_main.main()
    finally:
        get_settings.cache_clear()
    assert exit_info.value.code == 2
    assert re.search(expected, capsys.readouterr().err)
