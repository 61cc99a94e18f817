"""Accounts and teams, for administrators.

* `POST /api/users {"username", "password", "teams", "admin"}` makes an account; `GET /api/users` lists them
  (with teams, whether the account signs in with a password, and how many files it owns).
* `PATCH /api/users/{id} {"password"?, "teams"?, "admin"?}` changes one: a new password ends that person's
  sessions; the last administrator keeps the role.
* `DELETE /api/users/{id}?transfer_to={id}` deletes one with its sessions and conversations; a person who owns
  files is refused (409) unless `transfer_to` names who receives them. Nobody deletes themselves.
* `GET /api/teams`: every team with its members and the number of files shared with it. A team exists while
  someone belongs to it.

While accounts are off (no `HUB_ADMIN_PASSWORD`, no sign-on proxy) every route here answers 404 with the
reason, named `accounts_off`. A refusal carries a stable name in the `X-Hub-Error` header (`username_taken`, `last_admin`, `owns_documents`,
`self_delete`, `unknown_user`, …) that the UI says in the reader's language.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field

from backend.accounts import AccountError
from backend.api.deps import StateDep
from backend.api.routers.auth import AccountsOn, AdminDep

#: Refused (404 `accounts_off`) while accounts are off, before the administrator check.
router = APIRouter(prefix="/api", tags=["users"], dependencies=[AccountsOn],
                   responses={404: {"description": "accounts are off on this hub (`accounts_off`)"}})

UserId = Annotated[str, Path(min_length=1, max_length=64)]
ERRORS: dict[int | str, dict[str, Any]] = {403: {"description": "not an administrator"},
                                           404: {"description": "unknown user"}}


class NewUser(BaseModel):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)
    teams: list[str] = Field(default_factory=list, max_length=50)
    admin: bool = False


class UserChange(BaseModel):
    password: str | None = Field(None, min_length=1, max_length=1024)
    teams: list[str] | None = Field(None, max_length=50)
    admin: bool | None = None


def _refused(exc: AccountError) -> HTTPException:
    return HTTPException(exc.status, exc.reason, headers={"X-Hub-Error": exc.code})


@router.post("/users", status_code=201, responses={403: {"description": "not an administrator"},
                                                   409: {"description": "the username is taken"}})
async def create_user(body: NewUser, state: StateDep, _: AdminDep) -> dict[str, Any]:
    """A new account (administrators only)."""
    try:
        return await state.accounts.create_user(body.username, body.password, body.teams, body.admin)
    except AccountError as exc:
        raise _refused(exc) from exc


@router.get("/users", responses={403: {"description": "not an administrator"}})
async def list_users(state: StateDep, _: AdminDep) -> list[dict[str, Any]]:
    """Every account with its teams (administrators only)."""
    return await state.accounts.list_users()


@router.patch("/users/{user_id}", responses={**ERRORS, 409: {"description": "the last administrator"}})
async def change_user(user_id: UserId, body: UserChange, state: StateDep, _: AdminDep) -> dict[str, Any]:
    """Reset a password, set the teams or the administrator role of an account (administrators only)."""
    try:
        return await state.accounts.update_user(user_id, password=body.password, teams=body.teams,
                                                admin=body.admin)
    except AccountError as exc:
        raise _refused(exc) from exc


@router.delete("/users/{user_id}", status_code=204, responses={
    **ERRORS, 409: {"description": "yourself, the last administrator, or files without a receiver"}})
async def delete_user(user_id: UserId, state: StateDep, acting: AdminDep,
                      transfer_to: Annotated[str | None, Query(min_length=1, max_length=64)] = None) -> Response:
    """Delete an account, handing its files to `transfer_to` (administrators only)."""
    try:
        await state.accounts.delete_user(user_id, acting, transfer_to)
    except AccountError as exc:
        raise _refused(exc) from exc
    return Response(status_code=204)


@router.get("/teams", responses={403: {"description": "not an administrator"}})
async def list_teams(state: StateDep, _: AdminDep) -> list[dict[str, Any]]:
    """Every team with its members and how many files are shared with it (administrators only)."""
    return await state.accounts.list_teams()
