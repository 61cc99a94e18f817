"""The gateway's HTTP app in-process: the hub's Host/Origin guard in front of `/mcp`, `/healthz` and
`/telemetry`, and `/telemetry`'s answers without a database."""

from __future__ import annotations

import httpx

from ai_llm.common.settings import Settings
from ai_llm.search_gateway.server import create_http_app, create_server

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


async def test_foreign_host_and_cross_origin_calls_are_refused(offline_settings: Settings) -> None:
    settings = offline_settings.model_copy(update={"hub_allowed_hosts": "search.example.com"})
    app = create_http_app(settings, create_server(settings))  # lifespan not run: refusals come first
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:10015") as http:
        for path in ("/healthz", "/mcp"):
            assert (await http.get(path, headers={"Host": "evil.example.com:10015"})).status_code == 421
        rebound = await http.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Host": "evil.example.com"})
        assert rebound.status_code == 421
        cross = await http.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Origin": "http://evil.example.com"})
        assert cross.status_code == 403
        # Loopback names (all of 127.0.0.0/8) and HUB_ALLOWED_HOSTS pass on any port.
        for host in ("127.0.0.1:10015", "127.0.0.9:10015", "localhost", "search.example.com:443"):
            health = await http.get("/healthz", headers={"Host": host})
            assert health.status_code == 200 and health.json()["ok"] is True, host


async def test_telemetry_checks_its_parameters_and_needs_a_database(offline_settings: Settings) -> None:
    app = create_http_app(offline_settings, create_server(offline_settings))  # lifespan not run: no database
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:10015") as http:
        for params in ({"hours": "0"}, {"hours": "2161"}, {"hours": "nan"}, {"recent": "0"}, {"recent": "501"},
                       {"hours": "soon"}, {"recent": "1.5"}):
            bad = await http.get("/telemetry", params=params)
            assert bad.status_code == 422 and "hours" in bad.json()["detail"], params
        unavailable = await http.get("/telemetry", params={"hours": "1", "recent": "5"})
    assert unavailable.status_code == 503 and "no database" in unavailable.json()["detail"]
