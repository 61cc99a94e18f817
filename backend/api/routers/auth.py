"""Login: with `HUB_TOKEN` or accounts (`HUB_ADMIN_PASSWORD`, a trusted proxy) every backend route needs a
credential, whatever the bind address, and every request acts for a `Principal` (`backend/accounts.py`).

* `POST /api/login {"username", "password"}` checks an account (argon2) and sets an HttpOnly, SameSite=strict
  session cookie (Secure behind TLS) holding a random token the database knows only by its hash; failed
  attempts are limited per client address and per username (429 with Retry-After).
* `POST /api/login {"token"}` or `Authorization: Bearer <HUB_TOKEN>`: the service credential of scripts and
  direct callers — the `service` principal, which is no person (its cookie is an HMAC of the token).
* `HUB_AUTH_PROXY_HEADER` from a `HUB_AUTH_PROXY_ADDRESSES` client: the person a trusted proxy signed in.

Public: login, logout, health (the launcher's readiness probe) and the UI's static files (so the login page
can load). Which route is which is decided by routing, not by a path prefix, so a route added later is
protected unless listed here. Without any credential configured (only allowed on a loopback bind) no login is
needed and requests act for the `local` principal.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from http.cookies import SimpleCookie
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field, model_validator
from starlette.responses import JSONResponse
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from ai_llm.common import identity
from ai_llm.common.messages import LANGUAGES, language_or_default, message
from ai_llm.common.settings import Settings
from backend.accounts import LOCAL, SERVICE, AccountError, Principal
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
    token: str | None = Field(None, min_length=1, max_length=4096, description="the hub's HUB_TOKEN")
    username: str | None = Field(None, min_length=1, max_length=64)
    password: str | None = Field(None, min_length=1, max_length=1024)

    @model_validator(mode="after")
    def _one_credential(self) -> LoginRequest:
        if self.token is None and (self.username is None or self.password is None):
            raise ValueError("send a username and password, or the hub token")
        return self


class LoginResult(BaseModel):
    ok: bool
    login_required: bool


def session_value(token: str) -> str:
    """The cookie value for a hub token (HMAC, so the token itself never sits in the browser)."""
    return hmac.new(token.encode(), b"agent-hub-session", hashlib.sha256).hexdigest()


def _cookie(cookie_header: str | None) -> str | None:
    if not cookie_header:
        return None
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(cookie_header)
    except Exception:  # a malformed Cookie header is simply not a session
        return None
    morsel = cookie.get(SESSION_COOKIE)
    return morsel.value if morsel is not None else None


def _from_proxy(state: BackendState, client: str | None) -> bool:
    if not state.settings.hub_auth_proxy_header or not client:
        return False
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    return any(address in network for network in state.settings.proxy_networks())


async def resolve_principal(state: BackendState, headers: dict[str, str], client: str | None) -> Principal | None:
    """Who the request acts for, or None when it carries no valid credential (see the module docstring)."""
    if not state.require_login:
        return LOCAL
    token = state.settings.hub_token
    authorization = headers.get("authorization")
    if token and authorization and hmac.compare_digest(authorization.encode(), f"Bearer {token}".encode()):
        return SERVICE
    proxy_header = (state.settings.hub_auth_proxy_header or "").lower()
    if proxy_header and headers.get(proxy_header) and _from_proxy(state, client):
        try:
            return await state.accounts.proxy_user(headers[proxy_header])
        except AccountError:
            return None
    session = _cookie(headers.get("cookie"))
    if session:
        if token and hmac.compare_digest(session.encode(), session_value(token).encode()):
            return SERVICE
        return await state.accounts.session_principal(session)
    return None


def current_principal(request: Request) -> Principal:
    """The principal the middleware resolved for this request."""
    principal = request.scope.get("state", {}).get("principal")
    return principal if isinstance(principal, Principal) else LOCAL


PrincipalDep = Annotated[Principal, Depends(current_principal)]


def _signed(state_token: str | None, principal: Principal, audience: str) -> str | None:
    if not principal.is_user or principal.user_id is None:
        return None
    return identity.issue(state_token, audience, principal.user_id, principal.username, principal.teams,
                          principal.admin)


def identity_headers(settings: Settings, principal: Principal, audience: str) -> dict[str, str]:
    """The header that tells an agent's HTTP routes whom a call acts for (signed for that agent)."""
    token = _signed(settings.hub_token, principal, audience)
    return {identity.HEADER: token} if token else {}


def identity_metadata(settings: Settings, principal: Principal, audience: str) -> dict[str, str]:
    """The A2A message metadata that tells an agent whom a call acts for (signed for that agent)."""
    token = _signed(settings.hub_token, principal, audience)
    return {identity.METADATA_KEY: token} if token else {}


ACCOUNTS_OFF = "accounts_off"


def reader_language(request: Request, default: str) -> str:
    """The reader's language: the first of `Accept-Language` the catalog has, else the hub's `UI_LANGUAGE`."""
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGUAGES:
            return tag
    return language_or_default(default)


async def require_accounts(request: Request, state: StateDep) -> None:
    """Refuses (404, `X-Hub-Error: accounts_off`, the reason from the message catalog) while accounts are off:
    a hub without accounts has no users, teams or audit, and its local caller is no administrator of any."""
    if not state.accounts_on:
        raise HTTPException(404, message("backend.accounts_off", reader_language(request, state.settings.ui_language)),
                            headers={"X-Hub-Error": ACCOUNTS_OFF})


AccountsOn = Depends(require_accounts)


def require_admin(principal: PrincipalDep) -> Principal:
    if not principal.admin:
        raise HTTPException(403, "an administrator account is needed")
    return principal


AdminDep = Annotated[Principal, Depends(require_admin)]


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
        if scope["type"] == "http":
            principal = None
            if state is not None:
                headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
                client = scope.get("client")
                principal = await resolve_principal(state, headers, client[0] if client else None)
            if principal is None and not is_public(scope):
                response = JSONResponse({"detail": "login required: POST /api/login with a username and password "
                                                   "or the hub token"},
                                        status_code=401, headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
            scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)


@router.post("/login", responses={401: {"description": "wrong credentials"}, 429: {"description": "too many"}})
async def login(body: LoginRequest, request: Request, response: Response, state: StateDep) -> LoginResult:
    """Exchange a username and password (or the hub token) for an HttpOnly session cookie."""
    if not state.require_login:
        return LoginResult(ok=True, login_required=False)
    secure = request.url.scheme == "https"
    if body.username is not None and body.password is not None:
        keys = (f"ip:{request.client.host if request.client else '-'}", f"user:{body.username.strip().lower()}")
        wait = state.logins.retry_after(*keys)
        if wait > 0:
            raise HTTPException(429, "too many failed logins; try again shortly",
                                headers={"Retry-After": str(max(1, int(wait + 0.999)))})
        principal = await state.accounts.verify_password(body.username, body.password)
        if principal is None:
            state.logins.failed(*keys)
            raise HTTPException(401, "wrong username or password")
        state.logins.succeeded(*keys)
        session = await state.accounts.open_session(principal)
    else:
        token = state.settings.hub_token or ""
        if not token or not hmac.compare_digest((body.token or "").encode(), token.encode()):
            raise HTTPException(401, "wrong token")
        session = session_value(token)
    response.set_cookie(SESSION_COOKIE, session, max_age=SESSION_MAX_AGE_S, httponly=True,
                        samesite="strict", secure=secure, path="/")
    return LoginResult(ok=True, login_required=True)


@router.post("/logout", status_code=204)
async def logout(request: Request, response: Response, state: StateDep) -> Response:
    """Forget the session cookie (and end the session on the server)."""
    session = _cookie(request.headers.get("cookie"))
    if session:
        await state.accounts.close_session(session)
    response.status_code = 204
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/me")
async def me(principal: PrincipalDep) -> dict[str, Any]:
    """Who this session is: `{kind: user|service|local, username, admin, teams}`."""
    return principal.to_dict()
