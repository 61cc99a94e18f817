"""`Annotated[..., Depends(...)]` aliases the routers declare their needs with.

Every dependency is `async def`: FastAPI runs a plain `def` dependency in its thread pool, one thread hop per
dependency per request, and under a burst of chats those hops (40 threads, the GIL, a lock each) delayed
the first status by seconds (`hub bench backend`).
"""

from __future__ import annotations

from typing import Annotated

import httpx
from fastapi import Depends, Request

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from backend.api.state import BackendState
from backend.chat_store import ChatStore
from backend.orchestrator_tasks import OrchestratorTasks


async def get_state(request: Request) -> BackendState:
    state: BackendState = request.app.state.backend
    return state


async def get_settings_dep(state: Annotated[BackendState, Depends(get_state)]) -> Settings:
    return state.settings


async def get_db(state: Annotated[BackendState, Depends(get_state)]) -> Database:
    return state.db


async def get_chats(state: Annotated[BackendState, Depends(get_state)]) -> ChatStore:
    return state.chats


async def get_orchestrator(state: Annotated[BackendState, Depends(get_state)]) -> RemoteAgent:
    return state.orchestrator


async def get_orchestrator_tasks(state: Annotated[BackendState, Depends(get_state)]) -> OrchestratorTasks:
    return state.tasks


async def get_file_agent(state: Annotated[BackendState, Depends(get_state)]) -> httpx.AsyncClient:
    return state.files


async def get_search_gateway(state: Annotated[BackendState, Depends(get_state)]) -> httpx.AsyncClient:
    return state.gateway


StateDep = Annotated[BackendState, Depends(get_state)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
DbDep = Annotated[Database, Depends(get_db)]
ChatStoreDep = Annotated[ChatStore, Depends(get_chats)]
OrchestratorDep = Annotated[RemoteAgent, Depends(get_orchestrator)]
OrchestratorTasksDep = Annotated[OrchestratorTasks, Depends(get_orchestrator_tasks)]
FileAgentDep = Annotated[httpx.AsyncClient, Depends(get_file_agent)]
SearchGatewayDep = Annotated[httpx.AsyncClient, Depends(get_search_gateway)]
