"""Who a request acts for, carried between the hub's processes in a form each one can verify.

The backend signs the person it authenticated into a short-lived token for one audience (the agent it calls);
the orchestrator verifies it and signs a new one for each agent it calls. A token is
`base64url(payload).base64url(HMAC-SHA256(key, payload))` with `{sub, name, teams, admin, aud, exp}`; the key
is derived from `HUB_TOKEN`, which every process of a hub shares. An agent never trusts an unsigned,
expired or other-audience claim: such a request acts for the service credential (`Viewer.service()`), which
sees only documents shared with everyone.

Without `HUB_TOKEN` (a loopback hub with no credential at all) there are no people to tell apart, and every
request sees everything (`Viewer.everything()`), as before accounts.

Documents are `private` (their owner only), `team:<name>` (that team's members) or `everyone`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

#: Message-metadata key (A2A) and HTTP header that carry the signed identity.
METADATA_KEY = "hub_identity"
HEADER = "X-Hub-Identity"
TTL_S = 300
VISIBILITIES = ("private", "everyone")  # and "team:<name>"


class IdentityError(ValueError):
    """A token that is not valid for this audience now (bad signature, expired, other audience, malformed)."""


@dataclass(frozen=True)
class Viewer:
    """Whose documents a request may read: `everything` (no people configured), a user, or the service."""

    everything: bool = False
    user_id: str | None = None
    username: str = ""
    teams: tuple[str, ...] = ()
    admin: bool = False

    @classmethod
    def service(cls) -> Viewer:
        return cls()

    @classmethod
    def all_documents(cls) -> Viewer:
        return cls(everything=True)

    def may_read(self, owner_id: str | None, visibility: str) -> bool:
        """The rule the SQL functions apply too (`migrations/0013_visibility.sql`)."""
        if self.everything or visibility == "everyone":
            return True
        if self.user_id is not None and owner_id == self.user_id:
            return True
        return visibility.startswith("team:") and visibility[5:] in self.teams

    def sql_args(self) -> tuple[bool, str | None, list[str]]:
        """(see everything, viewer id, teams): the viewer parameters of the search functions."""
        return self.everything, self.user_id, list(self.teams)


#: The viewer of the request being handled, for code that serves several entry points (the file agent's HTTP
#: routes and A2A skills set it first). Unset, it is the service's view: only what is shared with everyone.
current_viewer: ContextVar[Viewer] = ContextVar("hub_viewer", default=Viewer())  # noqa: B039 (frozen)


def may_change(viewer: Viewer, owner_id: str | None) -> bool:
    """Whether the viewer may rename, delete or re-share a document: its owner, an admin, or a hub without
    people; a document nobody owns (stored by the service) only by an admin or such a hub."""
    return viewer.everything or viewer.admin or (viewer.user_id is not None and owner_id == viewer.user_id)


def check_visibility(value: str | None, teams: tuple[str, ...] = (), admin: bool = False) -> str:
    """A visibility a person may choose: `private` (default), `everyone`, or `team:<a team of theirs>`."""
    choice = (value or "private").strip()
    if choice in VISIBILITIES:
        return choice
    if choice.startswith("team:") and choice[5:].strip():
        team = choice[5:].strip()
        if admin or team in teams:
            return f"team:{team}"
        raise ValueError(f"you are not a member of the team {team!r}")
    raise ValueError("visibility is private, everyone or team:<name>")


def _key(hub_token: str) -> bytes:
    return hmac.new(hub_token.encode(), b"agent-hub-identity-v1", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def issue(hub_token: str | None, audience: str, user_id: str, username: str, teams: tuple[str, ...] = (),
          admin: bool = False, ttl_s: int = TTL_S) -> str | None:
    """A signed identity for `audience`; None without a hub token (nothing to sign with, nobody to tell apart)."""
    if not hub_token:
        return None
    payload = json.dumps({"sub": user_id, "name": username, "teams": list(teams), "admin": admin, "aud": audience,
                          "exp": int(time.time()) + ttl_s}, separators=(",", ":"), ensure_ascii=False).encode()
    signature = hmac.new(_key(hub_token), payload, hashlib.sha256).digest()
    return f"{_b64(payload)}.{_b64(signature)}"


def verify(hub_token: str, token: str, audience: str) -> Viewer:
    """The viewer a token names, or `IdentityError`."""
    try:
        head, _, tail = token.partition(".")
        payload, signature = _unb64(head), _unb64(tail)
    except (ValueError, TypeError) as exc:
        raise IdentityError("malformed identity") from exc
    if not hmac.compare_digest(signature, hmac.new(_key(hub_token), payload, hashlib.sha256).digest()):
        raise IdentityError("bad signature")
    try:
        claims = json.loads(payload)
    except ValueError as exc:
        raise IdentityError("malformed identity") from exc
    if claims.get("aud") != audience:
        raise IdentityError(f"identity for {claims.get('aud')!r}, not {audience!r}")
    if not isinstance(claims.get("exp"), int) or claims["exp"] < time.time():
        raise IdentityError("expired identity")
    return Viewer(user_id=str(claims["sub"]), username=str(claims.get("name") or ""),
                  teams=tuple(str(t) for t in claims.get("teams") or []), admin=bool(claims.get("admin")))


def viewer_from(hub_token: str | None, audience: str, token: str | None) -> Viewer:
    """Whom a request received by `audience` acts for (see the module docstring)."""
    if not hub_token:
        return Viewer.all_documents()
    if not token:
        return Viewer.service()
    try:
        return verify(hub_token, token, audience)
    except IdentityError as exc:
        log.warning("identity refused (%s): the request acts for the service credential", exc)
        return Viewer.service()


def viewer_of_metadata(hub_token: str | None, audience: str, metadata: Mapping[str, Any] | None) -> Viewer:
    token = (metadata or {}).get(METADATA_KEY)
    return viewer_from(hub_token, audience, token if isinstance(token, str) else None)


def forward(hub_token: str | None, viewer: Viewer, audience: str) -> dict[str, str]:
    """The metadata that carries `viewer` on to `audience` (empty for the service or a hub without people)."""
    if viewer.user_id is None:
        return {}
    token = issue(hub_token, audience, viewer.user_id, viewer.username, viewer.teams, viewer.admin)
    return {METADATA_KEY: token} if token else {}
