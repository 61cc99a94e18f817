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

from ai_llm.common.store.db import Database

USERNAME = re.compile(r"^[\w.@-]{1,64}$")
TEAM = re.compile(r"^[\w.@ -]{1,64}$")
MIN_PASSWORD_CHARS = 8
SESSION_HOURS = 12
ADMIN_USERNAME = "admin"
_HASHER = PasswordHasher()
#: Verified against when a username is unknown, so a wrong name costs as long as a wrong password.
_DUMMY_HASH = _HASHER.hash(secrets.token_urlsafe(16))


class AccountError(ValueError):
    """A request about accounts that cannot be done: `reason` is said to the caller, `status` is its HTTP
    code and `code` a stable name the UI translates (`X-Hub-Error` header)."""

    def __init__(self, reason: str, status: int = 422, code: str = "invalid") -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.code = code


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
        raise AccountError("a username is 1–64 letters, digits or . _ @ -", code="bad_username")
    return name


def _check_teams(teams: Sequence[str]) -> list[str]:
    out = sorted({t.strip() for t in teams if t and t.strip()})
    bad = [t for t in out if not TEAM.match(t)]
    if bad:
        raise AccountError(f"team names are 1–64 letters, digits, spaces or . _ @ -: {bad[0]!r}", code="bad_team")
    return out


def _check_password(password: str | None) -> None:
    if password is not None and len(password) < MIN_PASSWORD_CHARS:
        raise AccountError(f"a password has at least {MIN_PASSWORD_CHARS} characters", code="password_short")


async def _write_teams(conn: psycopg.AsyncConnection[Any], user_id: str, teams: Sequence[str]) -> None:
    for team in teams:
        await conn.execute("INSERT INTO user_teams (user_id, team) VALUES (%s, %s)", (user_id, team))


async def _lock_user(conn: psycopg.AsyncConnection[Any], user_id: str) -> None:
    """Lock the account's row until the transaction ends; `unknown_user` (404) when there is none."""
    cur = await conn.execute("SELECT id FROM users WHERE id = %s FOR UPDATE", (user_id,))
    if await cur.fetchone() is None:
        raise AccountError("no such user", 404, "unknown_user")


async def _lock_admins(conn: psycopg.AsyncConnection[Any]) -> set[str]:
    """The administrators' ids, their rows locked until the transaction ends, so two concurrent demotions or
    deletions cannot both pass the last-administrator check."""
    cur = await conn.execute("SELECT id FROM users WHERE is_admin ORDER BY id FOR UPDATE")
    return {row["id"] for row in await cur.fetchall()}


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
        _check_password(password)
        team_names = _check_teams(teams)
        user_id = str(uuid.uuid4())
        hashed = _HASHER.hash(password) if password is not None else None
        async def write(conn: psycopg.AsyncConnection[Any]) -> None:
            cur = await conn.execute(
                "INSERT INTO users (id, username, password_hash, is_admin) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (username) DO NOTHING RETURNING id", (user_id, name, hashed, admin))
            if await cur.fetchone() is None:
                raise AccountError(f"the username {name!r} is taken", 409, "username_taken")
            await _write_teams(conn, user_id, team_names)

        await self.db.run(write, transaction=True)
        return {"id": user_id, "username": name, "admin": admin, "teams": team_names}

    async def list_users(self) -> list[dict[str, Any]]:
        """Every account with its teams, whether it signs in with a password (False: through the proxy) and
        how many stored files it owns (what a deletion would have to hand over)."""
        return await self._users()

    async def get_user(self, user_id: str) -> dict[str, Any]:
        """One account, as `list_users` shows it."""
        found = await self._users("WHERE u.id = %s", (user_id,))
        if not found:
            raise AccountError("no such user", 404, "unknown_user")
        return found[0]

    async def _users(self, where: str = "", params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        rows = await self.db.fetch(
            "SELECT u.id, u.username, u.is_admin, u.created_at, u.password_hash IS NOT NULL AS has_password, "
            "coalesce(array_agg(t.team ORDER BY t.team) FILTER (WHERE t.team IS NOT NULL), '{}') AS teams, "
            "(SELECT count(*) FROM file_records f WHERE f.owner_id = u.id) AS documents "
            f"FROM users u LEFT JOIN user_teams t ON t.user_id = u.id {where} GROUP BY u.id ORDER BY u.username",
            params or None)
        return [{"id": r["id"], "username": r["username"], "admin": r["is_admin"], "teams": list(r["teams"]),
                 "password": r["has_password"], "documents": int(r["documents"]),
                 "created_at": r["created_at"].isoformat()} for r in rows]

    async def list_teams(self) -> list[dict[str, Any]]:
        """Every team someone belongs to, with its members and how many stored files are shared with it."""
        rows = await self.db.fetch(
            "SELECT t.team, array_agg(u.username ORDER BY u.username) AS members, "
            "(SELECT count(*) FROM file_records f WHERE f.visibility = 'team:' || t.team) AS documents "
            "FROM user_teams t JOIN users u ON u.id = t.user_id GROUP BY t.team ORDER BY t.team")
        return [{"name": r["team"], "members": list(r["members"]), "documents": int(r["documents"])}
                for r in rows]

    async def update_user(self, user_id: str, *, password: str | None = None,
                          teams: Sequence[str] | None = None, admin: bool | None = None) -> dict[str, Any]:
        """Change an account: a new password (which ends every session of that person), its teams (effective at
        their next request), its administrator role (the last administrator cannot lose it). Fields left
        None stay as they are."""
        _check_password(password)
        team_names = _check_teams(teams) if teams is not None else None

        async def write(conn: psycopg.AsyncConnection[Any]) -> None:
            admins = await _lock_admins(conn)
            await _lock_user(conn, user_id)
            if admin is False and admins == {user_id}:
                raise AccountError("the last administrator keeps the role: make another one first", 409,
                                   "last_admin")
            if admin is not None:
                await conn.execute("UPDATE users SET is_admin = %s WHERE id = %s", (admin, user_id))
            if password is not None:
                await conn.execute("UPDATE users SET password_hash = %s WHERE id = %s",
                                   (_HASHER.hash(password), user_id))
                await conn.execute("DELETE FROM sessions WHERE user_id = %s", (user_id,))
            if team_names is not None:
                await conn.execute("DELETE FROM user_teams WHERE user_id = %s", (user_id,))
                await _write_teams(conn, user_id, team_names)

        await self.db.run(write, transaction=True)
        return await self.get_user(user_id)

    async def delete_user(self, user_id: str, acting: Principal, transfer_to: str | None = None) -> int:
        """Delete an account with its sessions and conversations. Files it owns must go somewhere: without
        `transfer_to` a person owning any is refused (409, with the count), with it they (and their indexed
        chunks) belong to that person from the same transaction on. Nobody deletes themselves, and the last
        administrator stays. Returns how many files were handed over."""
        if acting.user_id == user_id:
            raise AccountError("you cannot delete your own account", 409, "self_delete")
        if transfer_to == user_id:
            raise AccountError("files cannot be handed to the account being deleted", 422, "bad_transfer")

        async def write(conn: psycopg.AsyncConnection[Any]) -> int:
            admins = await _lock_admins(conn)
            await _lock_user(conn, user_id)
            if admins == {user_id}:
                raise AccountError("the last administrator cannot be deleted", 409, "last_admin")
            cur = await conn.execute("SELECT count(*) AS n FROM file_records WHERE owner_id = %s", (user_id,))
            owned = int(((await cur.fetchone()) or {"n": 0})["n"])
            if owned and transfer_to is None:
                raise AccountError(f"this person owns {owned} files: choose who receives them", 409,
                                   "owns_documents")
            if owned:
                cur = await conn.execute("SELECT id FROM users WHERE id = %s FOR SHARE", (transfer_to,))
                if await cur.fetchone() is None:
                    raise AccountError("the person to receive the files does not exist", 422, "bad_transfer")
                await conn.execute("UPDATE file_records SET owner_id = %s WHERE owner_id = %s",
                                   (transfer_to, user_id))
                # updated_at moves so the RAG catalog, which caches who may read what, recomputes.
                await conn.execute("UPDATE document_chunks SET owner_id = %s, updated_at = now() "
                                   "WHERE owner_id = %s", (transfer_to, user_id))
            await conn.execute("DELETE FROM users WHERE id = %s", (user_id,))
            return owned

        return await self.db.run(write, transaction=True)

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
