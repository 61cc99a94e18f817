"""Login: with `HUB_TOKEN` set, every backend route needs the token, whatever the bind address.

`POST /api/login {"token"}` checks the hub token and sets an HttpOnly session cookie whose value is an
HMAC of the token (so it survives restarts and changes when the token changes); every other route then
needs that cookie or an `Authorization: Bearer <HUB_TOKEN>` header. Public: login, logout, health (the
launcher's readiness probe) and the UI's static files (so the login page can load). Which route is which is
decided by routing, not by a path prefix, so a route added later is protected unless listed here. Without
`HUB_TOKEN` (only allowed on a loopback bind) no login is needed.
"""

from __future__ import annotations

import hashlib
import hmac
from http.cookies import SimpleCookie

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field
from starlette.responses import JSONResponse
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from backend.api.deps import StateDep
from backend.api.state import BackendState

SESSION_COOKIE = "hub_session"
SESSION_MAX_AGE_S = 12 * 3600
#: Reachable without a session: the login itself and the liveness/health probe the launcher polls.
PUBLIC_API_PATHS = frozenset({"/api/login", "/api/logout", "/api/health"})
#: Name of the catch-all route serving the built UI's files (public: the login page is part of them).
STATIC_UI_ROUTE = "static_ui"

router = APIRouter(prefix="/api", tags=["auth"])


class LoginRequest(BaseModel):
    token: str = Field(min_length=1, max_length=4096, description="the hub's HUB_TOKEN")


class LoginResult(BaseModel):
    ok: bool
    login_required: bool


def session_value(token: str) -> str:
    """The cookie value for a hub token (HMAC, so the token itself never sits in the browser)."""
    return hmac.new(token.encode(), b"agent-hub-session", hashlib.sha256).hexdigest()


def is_authenticated(state: BackendState, authorization: str | None, cookie_header: str | None) -> bool:
    """True when login is not required, or the request carries the bearer token or a valid session."""
    if not state.require_login:
        return True
    token = state.settings.hub_token
    if not token:  # Settings refuses a non-loopback bind without a token; stay closed anyway
        return False
    if authorization and hmac.compare_digest(authorization.encode(), f"Bearer {token}".encode()):
        return True
    if cookie_header:
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(cookie_header)
        except Exception:  # a malformed Cookie header is simply not a session
            return False
        morsel = cookie.get(SESSION_COOKIE)
        if morsel is not None and hmac.compare_digest(morsel.value.encode(), session_value(token).encode()):
            return True
    return False


def is_public(scope: Scope) -> bool:
    """Whether a request may go without a session: the public API paths, or a path that only the static UI
    route serves (any other route matching it, even by path alone, makes it private)."""
    path: str = scope.get("path", "")
    if path in PUBLIC_API_PATHS:
        return True
    if path == "/api" or path.startswith("/api/"):
        return False  # unknown API paths too: their 404 is for logged-in callers only
    for route in scope["app"].router.routes:
        match, _ = route.matches(scope)
        if match is not Match.NONE:
            return getattr(route, "name", None) == STATIC_UI_ROUTE
    return False


class SessionAuthMiddleware:
    """Answers 401 to requests that are not authenticated, except public ones (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state: BackendState | None = getattr(scope["app"].state, "backend", None)
        if scope["type"] == "http" and (state is None or state.require_login) and not is_public(scope):
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers") or []}
            if state is None or not is_authenticated(state, headers.get("authorization"), headers.get("cookie")):
                response = JSONResponse({"detail": "login required: POST /api/login with the hub token"},
                                        status_code=401, headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


@router.post("/login", responses={401: {"description": "wrong token"}})
async def login(body: LoginRequest, request: Request, response: Response, state: StateDep) -> LoginResult:
    """Exchange the hub token for an HttpOnly session cookie."""
    if not state.require_login:
        return LoginResult(ok=True, login_required=False)
    token = state.settings.hub_token or ""
    if not token or not hmac.compare_digest(body.token.encode(), token.encode()):
        raise HTTPException(401, "wrong token")
    response.set_cookie(SESSION_COOKIE, session_value(token), max_age=SESSION_MAX_AGE_S, httponly=True,
                        samesite="strict", secure=request.url.scheme == "https", path="/")
    return LoginResult(ok=True, login_required=True)


@router.post("/logout", status_code=204)
async def logout(response: Response) -> Response:
    """Forget the session cookie."""
    response.status_code = 204
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
