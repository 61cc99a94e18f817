"""Accounts, for administrators: `POST /api/users {"username", "password", "teams", "admin"}` and the list."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from backend.accounts import AccountError
from backend.api.deps import StateDep
from backend.api.routers.auth import AdminDep

router = APIRouter(prefix="/api/users", tags=["users"])


class NewUser(BaseModel):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)
    teams: list[str] = Field(default_factory=list, max_length=50)
    admin: bool = False


@router.post("", status_code=201, responses={403: {"description": "not an administrator"},
                                             409: {"description": "the username is taken"}})
async def create_user(body: NewUser, state: StateDep, _: AdminDep) -> dict[str, Any]:
    """A new account (administrators only)."""
    try:
        return await state.accounts.create_user(body.username, body.password, body.teams, body.admin)
    except AccountError as exc:
        raise HTTPException(exc.status, exc.reason) from exc


@router.get("", responses={403: {"description": "not an administrator"}})
async def list_users(state: StateDep, _: AdminDep) -> list[dict[str, Any]]:
    """Every account with its teams (administrators only)."""
    return await state.accounts.list_users()
