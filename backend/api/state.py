"""What the backend holds for its lifetime: settings, database, chat store and clients of the agents and of
the search gateway."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from backend.accounts import AccountStore, LoginLimiter
from backend.chat_store import ChatStore
from backend.orchestrator_tasks import OrchestratorTasks

#: Seconds to wait for a connection to the orchestrator.
CONNECT_TIMEOUT_S = 15.0


def agent_headers(settings: Settings) -> dict[str, str]:
    """Headers every backend→agent call carries (the hub token when one is set)."""
    return {"Authorization": f"Bearer {settings.hub_token}"} if settings.hub_token else {}


def search_gateway_url(settings: Settings) -> str:
    """Base URL of the search gateway's HTTP app (its MCP endpoint without `/mcp`)."""
    return settings.search_gateway_mcp_url.removesuffix("/mcp")


def login_required(settings: Settings) -> bool:
    """With a hub token or accounts every caller must present a credential, whatever the bind address:
    loopback is no trust boundary (any local process, any page through a rebinding name)."""
    return bool(settings.hub_token or settings.hub_admin_password or settings.hub_auth_proxy_header)


def accounts_enabled(settings: Settings) -> bool:
    """Whether people have accounts (`HUB_ADMIN_PASSWORD` or a trusted sign-on proxy). Without them the hub
    has no users, teams or audit to manage: a `HUB_TOKEN` alone is a service credential, not an account."""
    return bool(settings.hub_admin_password or settings.hub_auth_proxy_header)


@dataclass
class BackendState:
    """Long-lived resources of one backend process (opened in the app's lifespan)."""

    settings: Settings
    db: Database
    chats: ChatStore
    orchestrator: RemoteAgent
    files: httpx.AsyncClient
    gateway: httpx.AsyncClient
    require_login: bool
    accounts_on: bool = False
    accounts: AccountStore = field(init=False)
    logins: LoginLimiter = field(default_factory=LoginLimiter)
    tasks: OrchestratorTasks = field(init=False)

    @classmethod
    def build(cls, settings: Settings, db: Database) -> BackendState:
        file_agent = settings.agent_url("file_management")
        # Reads may be long (a download streams a whole PDF); connecting must be quick.
        files = httpx.AsyncClient(base_url=file_agent, headers=agent_headers(settings),
                                  timeout=httpx.Timeout(settings.agent_timeout_s, connect=5.0))
        # The gateway's own HTTP routes (`/telemetry`), never its database or modules.
        gateway = httpx.AsyncClient(base_url=search_gateway_url(settings), headers=agent_headers(settings),
                                    timeout=httpx.Timeout(30.0, connect=5.0))
        # A loaded orchestrator may accept slowly; refusing the 40th of 50 parallel chats is worse.
        # Every orchestrator replica (ORCHESTRATOR_URLS), with ejection of one that refuses connections.
        orchestrator = RemoteAgent(settings.agent_urls("orchestrator"), token=settings.hub_token,
                                   timeout_s=settings.agent_timeout_s, connect_timeout_s=CONNECT_TIMEOUT_S,
                                   name="orchestrator", eject_s=settings.agent_eject_s)
        return cls(settings=settings, db=db, chats=ChatStore(db), orchestrator=orchestrator, files=files,
                   gateway=gateway, require_login=login_required(settings),
                   accounts_on=accounts_enabled(settings))

    def __post_init__(self) -> None:
        self.tasks = OrchestratorTasks(self.orchestrator)
        self.accounts = AccountStore(self.db)

    async def close(self) -> None:
        await self.files.aclose()
        await self.gateway.aclose()
        await self.orchestrator.aclose()
