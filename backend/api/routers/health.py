"""`GET /api/health`: which agents answer, whether the database is up, which models and providers run.

Reachability is checked here; the search providers are the web chain the search gateway reports on its
`GET /healthz?providers=1` (none while it does not answer), with whether web search can serve now: `down`
with the reason while no provider is configured or none can be reached, `offline_corpus` when the local corpus
serves; whether a process that does not answer is being restarted (rather than down)
comes from the launcher's status file (`ai_llm.hub.supervision`), when a launcher supervises this hub.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
from fastapi import APIRouter
from pydantic import BaseModel, Field

from ai_llm.common.settings import AGENT_MODULES
from ai_llm.hub.supervision import HubStatus, ProcessStatus, read_hub_status
from backend.api.deps import StateDep
from backend.api.state import agent_headers, search_gateway_url

router = APIRouter(prefix="/api", tags=["health"])

CARD_PATH = "/.well-known/agent-card.json"
#: Short, so the page (and the launcher's readiness poll) never waits on an agent that is down.
CHECK_TIMEOUT_S = 1.5


#: ok: answers; restarting: does not answer, and the launcher is starting it again; down: does not answer.
HealthState = Literal["ok", "restarting", "down"]
STATE_DOC = "ok: answers; restarting: down, and the launcher is restarting it; down: not answering"
RESTARTS_DOC = "times the launcher has restarted it since the hub started"


class Reachability(BaseModel):
    url: str
    ok: bool
    state: HealthState = Field(description=STATE_DOC)
    restarts: int = Field(0, description=RESTARTS_DOC)


class DatabaseHealth(BaseModel):
    ok: bool
    state: HealthState = Field(description=STATE_DOC)
    restarts: int = Field(0, description=RESTARTS_DOC)


class LlmHealth(BaseModel):
    mode: str
    model: str


#: ok: the network providers serve; degraded: one serves, another cannot be reached; offline_corpus: the
#: local corpus serves (offline mode); down: no provider is configured or none can be reached, or no gateway.
WebSearchState = Literal["ok", "degraded", "offline_corpus", "down"]


class SearchHealth(BaseModel):
    providers: list[str] = Field(description="the gateway's web-search providers, in fallback order "
                                             "(empty while the gateway does not answer)")
    gateway: Reachability
    state: WebSearchState = Field("down", description="whether web search can serve now: ok, degraded, "
                                                      "offline_corpus (the local corpus serves) or down")
    reason: str | None = Field(None, description="why it is degraded or down (English, for the log and the API)")
    unreachable: list[str] = Field(default_factory=list, description="providers of the chain that cannot be "
                                                                     "reached now")


class Health(BaseModel):
    agents: dict[str, Reachability]
    database: DatabaseHealth
    llm: LlmHealth
    search: SearchHealth
    login_required: bool
    accounts: bool = Field(description="people have accounts (users, teams and the audit exist); off in local mode")


async def _reachable(http: httpx.AsyncClient, url: str) -> bool:
    try:
        return (await http.get(url)).status_code == 200
    except httpx.HTTPError:
        return False


async def _gateway_health(http: httpx.AsyncClient, url: str) -> dict[str, Any] | None:
    """The gateway's `/healthz?providers=1` (the web chain and whether it can serve); None when it does not
    answer."""
    try:
        response = await http.get(url + "/healthz", params={"providers": "1"})
        if response.status_code != 200:
            return None
        body = response.json()
    except (httpx.HTTPError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def _search_health(body: dict[str, Any] | None, gateway: Reachability) -> SearchHealth:
    if body is None:
        return SearchHealth(providers=[], gateway=gateway, state="down",
                            reason=f"the search gateway does not answer at {gateway.url}")
    chains = body.get("chains")
    providers = [str(name) for name in chains.get("web") or []] if isinstance(chains, dict) else []
    web = body.get("web")
    if not isinstance(web, dict):
        web = {}
    state = web.get("state")
    reason: str | None = str(web["reason"]) if web.get("reason") else None
    if state not in ("ok", "degraded", "offline_corpus", "down"):
        state, reason = "down", "the search gateway did not say whether its providers can be reached"
    unreachable = [str(name) for name in web.get("unreachable") or {}]
    return SearchHealth(providers=providers, gateway=gateway, state=state, reason=reason, unreachable=unreachable)


async def _database_ok(state: Any) -> bool:
    try:
        row = await asyncio.wait_for(state.db.fetchone("SELECT 1 AS ok"), CHECK_TIMEOUT_S)
    except Exception:  # any failure means "down" here; the detail is in the database's own log
        return False
    return bool(row and row["ok"] == 1)


def _supervised(status: HubStatus | None, name: str, url: str) -> ProcessStatus | None:
    """The launcher's record of the process `name`, if it is the one serving `url` (same port)."""
    process = status.processes.get(name) if status else None
    if process is None or process.port is None or urlsplit(url).port != process.port:
        return None
    return process


def _state(ok: bool, process: ProcessStatus | None) -> HealthState:
    if ok:
        return "ok"  # what answers is up, whatever the status file last said
    return "restarting" if process is not None and process.state == "restarting" else "down"


def _reachability(url: str, ok: bool, process: ProcessStatus | None) -> Reachability:
    return Reachability(url=url, ok=ok, state=_state(ok, process), restarts=process.restarts if process else 0)


@router.get("/health")
async def health(state: StateDep) -> Health:
    """Reachability of every agent card (checked concurrently), the database, the LLM and search set-up;
    `state` tells an agent the launcher is restarting from one that is down."""
    settings = state.settings
    urls = {name: settings.agent_url(name) for name in AGENT_MODULES}
    gateway = search_gateway_url(settings)
    async with httpx.AsyncClient(timeout=CHECK_TIMEOUT_S, headers=agent_headers(settings)) as http:
        agents_ok, gateway_body, db_ok = await asyncio.gather(
            asyncio.gather(*(_reachable(http, url + CARD_PATH) for url in urls.values())),
            _gateway_health(http, gateway), _database_ok(state))
    gateway_ok = gateway_body is not None
    supervised = read_hub_status(settings.data_dir)
    postgres = supervised.processes.get("postgres") if supervised else None
    if postgres is not None and postgres.url != settings.database_url:
        postgres = None  # the launcher's embedded Postgres is not the database this backend uses
    online = settings.llm_online
    return Health(
        agents={name: _reachability(url, ok, _supervised(supervised, name, url))
                for (name, url), ok in zip(urls.items(), agents_ok, strict=True)},
        database=DatabaseHealth(ok=db_ok, state=_state(db_ok, postgres),
                                restarts=postgres.restarts if postgres else 0),
        llm=LlmHealth(mode="openai" if online else "offline",
                      model=settings.llm_model if online else "local-engine"),
        search=_search_health(gateway_body, _reachability(
            gateway, gateway_ok, _supervised(supervised, "search_gateway", gateway))),
        login_required=state.require_login,
        accounts=state.accounts_on,
    )
