"""The backend app in-process (httpx ASGI transport, real Postgres, real search-gateway processes): login/401
on every route, the Host check, health, search telemetry, the built UI at `/` and the OpenAPI docs."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts

from ai_llm.common.a2a.server import free_port
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.search_gateway.telemetry import TelemetryRow, record
from backend.api.main import create_app
from backend.chat_client import stream_chat
from tests.backend.conftest import Processes, start_search_gateway

TOKEN = "a-very-secret-hub-token-42"
ADMIN_PASSWORD = "admin-password-for-tests"
#: Reachable without the token: the login itself, the health probe and the UI's static files.
PUBLIC_ROUTES = {("POST", "/api/login"), ("POST", "/api/logout"), ("GET", "/api/health"), ("GET", "/{path:path}")}


@asynccontextmanager
async def client(settings: Settings, db: Database, **kwargs: object) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, db=db, **kwargs)  # type: ignore[arg-type]
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        yield http


def make_settings(tmp_path: Path, **overrides: object) -> Settings:
    return Settings(data_dir=tmp_path, _env_file=None, **overrides)  # type: ignore[arg-type, call-arg]


def routes_of(app: FastAPI) -> list[tuple[str, str]]:
    """Every (method, path template) the app serves, included routers flattened (HEAD is GET's twin)."""
    return sorted({(method, route.path) for route in iter_route_contexts(app.routes)
                   for method in route.methods or () if method != "HEAD"})


def concrete(template: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)(:\w+)?\}", lambda m: values[m.group(1)], template)


@pytest.mark.parametrize("hub_host", ["127.0.0.1", "0.0.0.0"])
async def test_backend_with_a_token_requires_login(db: Database, tmp_path: Path, hub_host: str) -> None:
    settings = make_settings(tmp_path, hub_host=hub_host, hub_token=TOKEN)
    unknown_chat = "/api/chats/0123456789abcdef0123456789abcdef"
    async with client(settings, db) as http:
        for path in (unknown_chat, "/api/files", "/api/search/telemetry", "/openapi.json", "/docs"):
            response = await http.get(path)
            assert response.status_code == 401, path
            assert "login" in response.json()["detail"]
        assert (await http.post("/api/chat", json={"message": "hi"})).status_code == 401
        # The UI shell and the health probe stay reachable so the login page can load.
        assert (await http.get("/")).status_code == 200
        assert (await http.get("/api/health")).json()["login_required"] is True

        wrong = await http.post("/api/login", json={"token": "not-the-token-at-all"})
        assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
        assert (await http.post("/api/login", json={})).status_code == 422

        bearer = await http.get(unknown_chat, headers={"Authorization": f"Bearer {TOKEN}"})
        assert bearer.status_code == 404  # past the login check
        assert (await http.get(unknown_chat, headers={"Authorization": "Bearer wrong"})).status_code == 401

        ok = await http.post("/api/login", json={"token": TOKEN})
        assert ok.status_code == 200 and ok.json() == {"ok": True, "login_required": True}
        cookie = ok.headers["set-cookie"]
        assert "hub_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert TOKEN not in cookie
        assert (await http.get(unknown_chat)).status_code == 404  # the client now sends the cookie
        assert (await http.get("/openapi.json")).status_code == 200

        http.cookies.set("hub_session", "forged")
        assert (await http.get(unknown_chat)).status_code == 401
        assert (await http.post("/api/logout")).status_code == 204


async def test_backend_without_a_token_needs_no_login(db: Database, tmp_path: Path) -> None:
    async with client(make_settings(tmp_path), db) as http:
        assert (await http.get("/api/chats/0123456789abcdef0123456789abcdef")).status_code == 404
        assert (await http.post("/api/login", json={"token": "anything"})).json()["login_required"] is False
        assert (await http.get("/api/health")).json()["login_required"] is False


async def test_every_route_but_login_health_and_ui_needs_the_token(
        db: Database, tmp_path: Path, stand_in_orchestrator: str, stand_in_file_agent: str,
        backend_procs: Processes, stand_in_env: dict[str, str]) -> None:
    """Iterates over the app's own routes, so a route added later is covered without editing this test:
    401 without a credential on a loopback bind, 2xx with an administrator's session (the search gateway
    requiring the token too)."""
    gateway = start_search_gateway(backend_procs, {**stand_in_env, "HUB_TOKEN": TOKEN,
                                                   "DATA_DIR": str(tmp_path / "gateway")}, "search-gateway-token")
    settings = make_settings(tmp_path, hub_token=TOKEN, orchestrator_url=stand_in_orchestrator,
                             file_agent_url=stand_in_file_agent, search_gateway_url=gateway,
                             hub_admin_password=ADMIN_PASSWORD)
    app = create_app(settings, db=db, static_dir=tmp_path / "no-ui")
    routes = routes_of(app)
    assert ("POST", "/api/files") in routes and ("GET", "/api/search/telemetry") in routes
    assert PUBLIC_ROUTES <= set(routes)
    placeholders = {"file_id": "0123456789abcdef", "conversation_id": uuid.uuid4().hex, "path": "",
                    "user_id": str(uuid.uuid4())}
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1", timeout=30) as http:
        for method, template in routes:
            response = await http.request(method, concrete(template, placeholders))
            if (method, template) in PUBLIC_ROUTES:
                assert response.status_code != 401, (method, template)
            else:
                assert response.status_code == 401, (method, template)

        admin = {"username": "admin", "password": ADMIN_PASSWORD}
        assert (await http.post("/api/login", json=admin)).status_code == 200
        uploaded = await http.post("/api/files", files={"file": ("note.txt", b"hello", "text/plain")})
        assert uploaded.status_code == 201
        conversation = uuid.uuid4().hex
        events = [e async for e in stream_chat(http, "hello", conversation)]
        assert [e.event for e in events][-2:] == ["answer", "done"]
        person = await http.post("/api/users", json={"username": f"p-{uuid.uuid4().hex[:8]}", "password": "password-42"})
        assert person.status_code == 201
        values = {"file_id": uploaded.json()["id"], "conversation_id": conversation, "path": "",
                  "user_id": person.json()["id"]}
        calls: dict[tuple[str, str], dict[str, Any]] = {
            ("POST", "/api/files"): {"files": {"file": ("again.txt", b"again", "text/plain")}},
            ("POST", "/api/chat"): {"json": {"message": "hello again", "conversation_id": conversation}},
            ("POST", "/api/login"): {"json": admin},
            ("POST", "/api/users"): {"json": {"username": f"u-{uuid.uuid4().hex[:8]}", "password": "password-42"}},
            ("PATCH", "/api/chats/{conversation_id}"): {"json": {"title": "renamed"}},
            ("PATCH", "/api/files/{file_id}"): {"json": {"visibility": "everyone"}},
            ("PATCH", "/api/users/{user_id}"): {"json": {"teams": ["qa"]}},
        }
        # After every other use of the uploaded file and the conversation; logging out last of all.
        last = [("DELETE", "/api/files/{file_id}"), ("DELETE", "/api/chats/{conversation_id}"),
                ("DELETE", "/api/users/{user_id}"), ("POST", "/api/logout")]
        for method, template in sorted(routes, key=lambda r: last.index(r) if r in last else -1):
            response = await http.request(method, concrete(template, values), **calls.get((method, template), {}))
            assert 200 <= response.status_code < 300, (method, template, response.status_code, response.text[:200])


async def test_foreign_host_is_refused(db: Database, tmp_path: Path) -> None:
    async with client(make_settings(tmp_path, hub_allowed_hosts="hub.example.com"), db) as http:
        for path in ("/api/health", "/", "/api/files"):
            refused = await http.get(path, headers={"Host": "evil.example.com"})
            assert refused.status_code == 421 and "HUB_ALLOWED_HOSTS" in refused.json()["detail"]
        assert (await http.get("/api/health", headers={"Host": "hub.example.com:8000"})).status_code == 200
        assert (await http.get("/api/health", headers={"Host": "127.0.0.2:8000"})).status_code == 200


async def test_agent_calls_carry_the_hub_token(backend_procs: Processes, stand_in_env: dict[str, str],
                                                db: Database, tmp_path: Path) -> None:
    """A file agent that requires HUB_TOKEN accepts the backend's calls only when the backend has it."""
    agent = backend_procs.start("file-agent-token", "tests.backend.servers.file_agent_stand_in",
                                {**stand_in_env, "HUB_TOKEN": TOKEN}, "/healthz", ["--dir", str(tmp_path / "f")])
    async with client(make_settings(tmp_path, file_agent_url=agent.url, hub_token=TOKEN), db) as http:
        assert (await http.get("/api/files", headers={"Authorization": f"Bearer {TOKEN}"})).status_code == 200
    async with client(make_settings(tmp_path, file_agent_url=agent.url), db) as http:
        refused = await http.get("/api/files")
        assert refused.status_code == 401 and "token" in refused.json()["detail"]


async def test_health_reports_agents_database_llm_and_search(backend_url: str, stand_in_orchestrator: str,
                                                             search_gateway: str) -> None:
    async with httpx.AsyncClient(base_url=backend_url, timeout=10) as http:
        body = (await http.get("/api/health")).json()
    assert set(body["agents"]) == {"orchestrator", "web_research", "internal_rag", "file_management",
                                   "report_writing"}
    assert body["agents"]["orchestrator"] == {"url": stand_in_orchestrator, "ok": True, "state": "ok",
                                              "restarts": 0}
    assert body["database"] == {"ok": True, "state": "ok", "restarts": 0}
    assert body["llm"] == {"mode": "offline", "model": "local-engine"}
    assert body["search"]["providers"] == ["duckduckgo"]
    assert body["search"]["gateway"] == {"url": search_gateway, "ok": True, "state": "ok", "restarts": 0}
    assert body["login_required"] is False


async def test_health_marks_unreachable_agents(db: Database, tmp_path: Path, backend_procs: Processes,
                                               stand_in_env: dict[str, str]) -> None:
    """The providers are the chain the gateway itself reports (its own keys decide it); none while it is down."""
    dead = f"http://127.0.0.1:{free_port()}"
    gateway = start_search_gateway(backend_procs, {**stand_in_env, "TAVILY_API_KEY": "tvly-test",
                                                   "DATA_DIR": str(tmp_path / "gateway")}, "search-gateway-tavily")
    settings = make_settings(tmp_path, orchestrator_url=dead, rag_agent_url=dead, search_gateway_url=gateway)
    async with client(settings, db) as http:
        body = (await http.get("/api/health")).json()
        # The page's check waits 1.5 s for the gateway, whose first provider probe may take longer on a loaded
        # machine (then it shows no providers); the probe's answer is cached for the next check.
        for _ in range(20):
            if body["search"]["providers"]:
                break
            await asyncio.sleep(0.5)
            body = (await http.get("/api/health")).json()
    assert body["agents"]["orchestrator"] == {"url": dead, "ok": False, "state": "down", "restarts": 0}
    assert body["agents"]["internal_rag"]["ok"] is False
    assert body["search"]["providers"] == ["tavily", "duckduckgo"]
    async with client(make_settings(tmp_path, search_gateway_url=dead), db) as http:
        body = (await http.get("/api/health")).json()
    assert body["search"] == {"providers": [], "gateway": {"url": dead, "ok": False, "state": "down",
                                                           "restarts": 0},
                              "state": "down", "reason": f"the search gateway does not answer at {dead}",
                              "unreachable": []}


async def test_health_says_web_search_is_down_while_no_provider_can_be_reached(
        db: Database, tmp_path: Path, backend_procs: Processes, stand_in_env: dict[str, str]) -> None:
    """A gateway that answers but whose only provider's endpoint does not: web search is down, with the
    reason, never `ok`."""
    config = tmp_path / "search_config.yaml"
    config.write_text(f"chain: [tavily]\nproviders:\n  tavily:\n    base_url: http://127.0.0.1:{free_port()}\n",
                      encoding="utf-8")
    gateway = start_search_gateway(backend_procs, {**stand_in_env, "TAVILY_API_KEY": "tvly-test",
                                                   "SEARCH_CONFIG": str(config),
                                                   "DATA_DIR": str(tmp_path / "gateway")}, "search-gateway-unreachable")
    async with client(make_settings(tmp_path, search_gateway_url=gateway), db) as http:
        search = (await http.get("/api/health")).json()["search"]
    assert search["gateway"]["ok"] is True and search["providers"] == ["tavily"]
    assert search["state"] == "down" and search["unreachable"] == ["tavily"], search
    assert search["reason"].startswith("no web-search provider can be reached: tavily (cannot connect to 127.0.0.1:")


async def test_search_telemetry_summarises_recorded_queries(db: Database, tmp_path: Path,
                                                            search_gateway: str) -> None:
    """The backend relays the gateway's `GET /telemetry` (the gateway reads the rows recorded here)."""
    provider = f"test-{uuid.uuid4().hex[:8]}"
    for cache, latency in (("miss", 100.0), ("exact", 2.0), ("miss", 300.0), ("semantic", 4.0)):
        await record(db, TelemetryRow(tool="web_search", query=f"q {cache}", agent="web_research",
                                      provider=provider, cache=cache, branch=0, depth=0, latency_ms=latency,
                                      cost_usd=0.008 if cache == "miss" else 0.0, results=5))
    async with client(make_settings(tmp_path, search_gateway_url=search_gateway), db) as http:
        body = (await http.get("/api/search/telemetry", params={"hours": 1})).json()
        bad = await http.get("/api/search/telemetry", params={"hours": -1})
    assert bad.status_code == 422
    mine = next(p for p in body["providers"] if p["provider"] == provider)
    assert mine["requests"] == 4 and mine["hit_rate"] == 0.5
    assert mine["spend_usd"] == pytest.approx(0.016)
    assert sum(s["requests"] for s in body["series"] if s["provider"] == provider) == 4
    recent = [r for r in body["recent"] if r["provider"] == provider]
    assert {r["cache"] for r in recent} == {"miss", "exact", "semantic"}
    assert set(recent[0]) >= {"time", "agent", "query", "provider", "cache", "latency_ms", "cost_usd", "results"}


async def test_search_telemetry_without_the_gateway_is_a_clear_503(db: Database, tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    async with client(make_settings(tmp_path, search_gateway_url=dead), db) as http:
        response = await http.get("/api/search/telemetry")
    assert response.status_code == 503
    assert response.json()["detail"].startswith(f"the search gateway is unreachable at {dead}")


async def test_serves_the_built_ui_with_spa_fallback(db: Database, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<div id=app>hub-ui</div>", encoding="utf-8")
    (dist / "assets" / "app.js").write_text("console.log('hub')", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    async with client(make_settings(tmp_path), db, static_dir=dist) as http:
        assert "hub-ui" in (await http.get("/")).text
        assert "hub-ui" in (await http.get("/search")).text  # client-side route
        js = await http.get("/assets/app.js")
        assert js.status_code == 200 and "javascript" in js.headers["content-type"]
        assert "outside" not in (await http.get("/..%2Fsecret.txt")).text
        missing_api = await http.get("/api/no-such-route")
        assert missing_api.status_code == 404 and missing_api.headers["content-type"] == "application/json"
        docs = await http.get("/docs")
        assert docs.status_code == 200 and "swagger" in docs.text.lower()
        paths = (await http.get("/openapi.json")).json()["paths"]
    assert {"/api/chat", "/api/chats/{conversation_id}", "/api/files", "/api/files/{file_id}",
            "/api/files/{file_id}/download", "/api/search/telemetry", "/api/health", "/api/login"} <= set(paths)
    assert "multipart/form-data" in paths["/api/files"]["post"]["requestBody"]["content"]


async def test_without_a_build_the_root_explains_how_to_build(db: Database, tmp_path: Path) -> None:
    async with client(make_settings(tmp_path), db, static_dir=tmp_path / "nothing") as http:
        page = await http.get("/")
    assert page.status_code == 200 and "make ui" in page.text
