"""`GET /api/health`: which agents answer, whether the database is up, which models and providers run."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import APIRouter
from pydantic import BaseModel

from ai_llm.common.settings import AGENT_MODULES, Settings
from ai_llm.search_gateway.config import ConfigError, load_config, resolve_chain
from backend.api.deps import StateDep
from backend.api.state import agent_headers

router = APIRouter(prefix="/api", tags=["health"])

CARD_PATH = "/.well-known/agent-card.json"
#: Short, so the page (and the launcher's readiness poll) never waits on an agent that is down.
CHECK_TIMEOUT_S = 1.5


class Reachability(BaseModel):
    url: str
    ok: bool


class DatabaseHealth(BaseModel):
    ok: bool


class LlmHealth(BaseModel):
    mode: str
    model: str


class SearchHealth(BaseModel):
    providers: list[str]
    gateway: Reachability


class Health(BaseModel):
    agents: dict[str, Reachability]
    database: DatabaseHealth
    llm: LlmHealth
    search: SearchHealth
    login_required: bool


def search_providers(settings: Settings) -> list[str]:
    """The search gateway's web-search provider chain under these settings, in fallback order."""
    try:
        return resolve_chain(load_config(settings.search_config), settings, "web")
    except (ConfigError, OSError) as exc:
        return [f"invalid search configuration: {exc}"]


async def _reachable(http: httpx.AsyncClient, url: str) -> bool:
    try:
        return (await http.get(url)).status_code == 200
    except httpx.HTTPError:
        return False


async def _database_ok(state: Any) -> bool:
    try:
        row = await asyncio.wait_for(state.db.fetchone("SELECT 1 AS ok"), CHECK_TIMEOUT_S)
    except Exception:  # any failure means "down" here; the detail is in the database's own log
        return False
    return bool(row and row["ok"] == 1)


@router.get("/health")
async def health(state: StateDep) -> Health:
    """Reachability of every agent card (checked concurrently), the database, the LLM and search set-up."""
    settings = state.settings
    urls = {name: settings.agent_url(name) for name in AGENT_MODULES}
    gateway = settings.search_gateway_mcp_url.removesuffix("/mcp")
    async with httpx.AsyncClient(timeout=CHECK_TIMEOUT_S, headers=agent_headers(settings)) as http:
        checks = await asyncio.gather(*(_reachable(http, url + CARD_PATH) for url in urls.values()),
                                      _reachable(http, gateway + "/healthz"), _database_ok(state))
    *agents_ok, gateway_ok, db_ok = checks
    online = settings.llm_online
    return Health(
        agents={name: Reachability(url=url, ok=ok) for (name, url), ok in zip(urls.items(), agents_ok, strict=True)},
        database=DatabaseHealth(ok=db_ok),
        llm=LlmHealth(mode="openai" if online else "offline",
                      model=settings.llm_model if online else "local-engine"),
        search=SearchHealth(providers=search_providers(settings), gateway=Reachability(url=gateway, ok=gateway_ok)),
        login_required=state.require_login,
    )
