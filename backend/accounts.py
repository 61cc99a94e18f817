"""People with accounts: users (argon2 password hashes through `argon2-cffi`), teams, server-side sessions.

A session is a random token in an HttpOnly cookie; the database keeps only its SHA-256, so a leaked table
opens nothing and a logout (or a deleted user) ends the session on every backend replica at once. The
first administrator is `admin`, created at start from `HUB_ADMIN_PASSWORD` when no account of that name
exists. `HUB_TOKEN` stays the service credential: a caller holding it acts as the `service` principal, which
owns no conversations and sees no one's private documents.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import uuid
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ai_llm.common.db import Database

USERNAME = re.compile(r"^[\w.@-]{1,64}$")
TEAM = re.compile(r"^[\w.@ -]{1,64}$")
MIN_PASSWORD_CHARS = 8
SESSION_HOURS = 12
ADMIN_USERNAME = "admin"
_HASHER = PasswordHasher()
#: Verified against when a username is unknown, so a wrong name costs as long as a wrong password.
_DUMMY_HASH = _HASHER.hash(secrets.token_urlsafe(16))


class AccountError(ValueError):
    """A request about accounts that cannot be done; `reason` is said to the caller, `status` its HTTP code."""

    def __init__(self, reason: str, status: int = 422) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class Principal:
    """Who a request acts for: a user (with their teams), the service credential, or nobody in particular
    (a loopback hub without any credential configured, which keeps the behaviour of a single-person hub)."""

    kind: str  # user | service | local
    user_id: str | None = None
    username: str = ""
    admin: bool = False
    teams: tuple[str, ...] = ()

    @property
    def is_user(self) -> bool:
        return self.kind == "user"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.user_id, "username": self.username, "admin": self.admin,
                "teams": list(self.teams)}


SERVICE = Principal("service", username="service")
LOCAL = Principal("local", username="local", admin=True)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _check_username(username: str) -> str:
    name = username.strip()
    if not USERNAME.match(name):
        raise AccountError("a username is 1–64 letters, digits or . _ @ -")
    return name


def _check_teams(teams: Sequence[str]) -> list[str]:
    out = sorted({t.strip() for t in teams if t and t.strip()})
    bad = [t for t in out if not TEAM.match(t)]
    if bad:
        raise AccountError(f"team names are 1–64 letters, digits, spaces or . _ @ -: {bad[0]!r}")
    return out


class AccountStore:
    """Users, teams and sessions in the hub database (migration `0012_accounts.sql`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def has_users(self) -> bool:
        return await self.db.fetchone("SELECT 1 AS found FROM users LIMIT 1") is not None

    async def ensure_admin(self, password: str | None) -> bool:
        """Create `admin` with `password` when no account of that name exists; True when it was created."""
        if not password:
            return False
        if await self.db.fetchone("SELECT 1 AS found FROM users WHERE username = %s", (ADMIN_USERNAME,)):
            return False
        await self.create_user(ADMIN_USERNAME, password, admin=True)
        return True

    async def create_user(self, username: str, password: str | None, teams: Sequence[str] = (),
                          admin: bool = False) -> dict[str, Any]:
        """A new account (a password of at least 8 characters; None for a proxy-authenticated person)."""
        name = _check_username(username)
        if password is not None and len(password) < MIN_PASSWORD_CHARS:
            raise AccountError(f"a password has at least {MIN_PASSWORD_CHARS} characters")
        team_names = _check_teams(teams)
        user_id = str(uuid.uuid4())
        hashed = _HASHER.hash(password) if password is not None else None
        async def write(conn: psycopg.AsyncConnection[Any]) -> None:
            cur = await conn.execute(
                "INSERT INTO users (id, username, password_hash, is_admin) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (username) DO NOTHING RETURNING id", (user_id, name, hashed, admin))
            if await cur.fetchone() is None:
                raise AccountError(f"the username {name!r} is taken", 409)
            for team in team_names:
                await conn.execute("INSERT INTO user_teams (user_id, team) VALUES (%s, %s)", (user_id, team))

        await self.db.run(write, transaction=True)
        return {"id": user_id, "username": name, "admin": admin, "teams": team_names}

    async def list_users(self) -> list[dict[str, Any]]:
        rows = await self.db.fetch(
            "SELECT u.id, u.username, u.is_admin, u.created_at, "
            "coalesce(array_agg(t.team ORDER BY t.team) FILTER (WHERE t.team IS NOT NULL), '{}') AS teams "
            "FROM users u LEFT JOIN user_teams t ON t.user_id = u.id GROUP BY u.id ORDER BY u.username")
        return [{"id": r["id"], "username": r["username"], "admin": r["is_admin"], "teams": list(r["teams"]),
                 "created_at": r["created_at"].isoformat()} for r in rows]

    async def _principal(self, where: str, value: str) -> Principal | None:
        row = await self.db.fetchone(
            "SELECT u.id, u.username, u.is_admin, "
            "coalesce(array_agg(t.team ORDER BY t.team) FILTER (WHERE t.team IS NOT NULL), '{}') AS teams "
            f"FROM users u LEFT JOIN user_teams t ON t.user_id = u.id WHERE {where} GROUP BY u.id", (value,))
        if row is None:
            return None
        return Principal("user", row["id"], row["username"], bool(row["is_admin"]), tuple(row["teams"]))

    async def verify_password(self, username: str, password: str) -> Principal | None:
        """The user when the password is theirs; None otherwise (as slow for an unknown name)."""
        row = await self.db.fetchone("SELECT id, password_hash FROM users WHERE username = %s",
                                     (username.strip(),))
        stored = row["password_hash"] if row and row["password_hash"] else _DUMMY_HASH
        try:
            _HASHER.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        if row is None or not row["password_hash"]:
            return None
        if _HASHER.check_needs_rehash(stored):
            await self.db.execute("UPDATE users SET password_hash = %s WHERE id = %s",
                                  (_HASHER.hash(password), row["id"]))
        return await self._principal("u.id = %s", row["id"])

    async def proxy_user(self, username: str) -> Principal:
        """The person a trusted reverse proxy names; their account is made on first sight (no password)."""
        name = _check_username(username)
        found = await self._principal("u.username = %s", name)
        if found is not None:
            return found
        try:
            await self.create_user(name, None)
        except AccountError as exc:
            if exc.status != 409:  # created meanwhile by a concurrent request: read it below
                raise
        principal = await self._principal("u.username = %s", name)
        assert principal is not None
        return principal

    async def open_session(self, principal: Principal) -> str:
        """A new session token for a user (the cookie value)."""
        if principal.user_id is None:
            raise AccountError("only a user has a session", 400)
        token = secrets.token_urlsafe(32)
        expires = datetime.now(UTC) + timedelta(hours=SESSION_HOURS)
        await self.db.execute("INSERT INTO sessions (token_hash, user_id, expires_at) VALUES (%s, %s, %s)",
                              (_token_hash(token), principal.user_id, expires))
        return token

    async def session_principal(self, token: str) -> Principal | None:
        row = await self.db.fetchone("SELECT user_id FROM sessions WHERE token_hash = %s AND expires_at > now()",
                                     (_token_hash(token),))
        return await self._principal("u.id = %s", row["user_id"]) if row else None

    async def close_session(self, token: str) -> None:
        await self.db.execute("DELETE FROM sessions WHERE token_hash = %s OR expires_at <= now()",
                              (_token_hash(token),))


@dataclass
class LoginLimiter:
    """At most `attempts` failed logins per client address and per username within `window_s` seconds."""

    attempts: int = 5
    window_s: float = 60.0
    _failures: dict[str, deque[float]] = field(default_factory=dict)

    def _recent(self, key: str, now: float) -> deque[float]:
        seen = self._failures.setdefault(key, deque())
        while seen and now - seen[0] > self.window_s:
            seen.popleft()
        return seen

    def retry_after(self, *keys: str) -> float:
        """Seconds until a new attempt is allowed (0 when it is)."""
        now = time.monotonic()
        waits = [self.window_s - (now - seen[0]) for key in keys
                 if len(seen := self._recent(key, now)) >= self.attempts]
        return max(waits, default=0.0)

    def failed(self, *keys: str) -> None:
        now = time.monotonic()
        for key in keys:
            self._recent(key, now).append(now)
        if len(self._failures) > 10_000:  # bounded memory under a spray of names
            self._failures = {k: v for k, v in self._failures.items() if v}

    def succeeded(self, *keys: str) -> None:
        for key in keys:
            self._failures.pop(key, None)
