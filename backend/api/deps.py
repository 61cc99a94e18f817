"""`Annotated[..., Depends(...)]` aliases the routers declare their needs with."""

from __future__ import annotations

from typing import Annotated

import httpx
from fastapi import Depends, Request

from ai_llm.common.a2a_client import RemoteAgent
from ai_llm.common.db import Database
from ai_llm.common.settings import Settings
from backend.api.state import BackendState
from backend.chat_store import ChatStore


def get_state(request: Request) -> BackendState:
    state: BackendState = request.app.state.backend
    return state


def get_settings_dep(state: Annotated[BackendState, Depends(get_state)]) -> Settings:
    return state.settings


def get_db(state: Annotated[BackendState, Depends(get_state)]) -> Database:
    return state.db


def get_chats(state: Annotated[BackendState, Depends(get_state)]) -> ChatStore:
    return state.chats


def get_orchestrator(state: Annotated[BackendState, Depends(get_state)]) -> RemoteAgent:
    return state.orchestrator


def get_file_agent(state: Annotated[BackendState, Depends(get_state)]) -> httpx.AsyncClient:
    return state.files


StateDep = Annotated[BackendState, Depends(get_state)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
DbDep = Annotated[Database, Depends(get_db)]
ChatStoreDep = Annotated[ChatStore, Depends(get_chats)]
OrchestratorDep = Annotated[RemoteAgent, Depends(get_orchestrator)]
FileAgentDep = Annotated[httpx.AsyncClient, Depends(get_file_agent)]
