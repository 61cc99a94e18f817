"""`HostOriginGuard`: the Host and Origin checks in front of every HTTP server of the hub (backend, A2A
agents, embedding server, search gateway).

Loopback is no trust boundary against a browser; this middleware closes the two ways in:

- DNS rebinding: a page on `evil.example` re-points its own name at 127.0.0.1 and then reads the hub's
  answers as if same-origin. Its requests still say `Host: evil.example`, so a Host that does not name this
  hub is refused with 421 Misdirected Request (what the MCP transport spec asks of local servers).
- Cross-site requests: any page may POST a form or a multipart upload to 127.0.0.1, and CORS does not stop
  such "simple" requests from being processed. A request whose `Origin` is not an allowed origin is refused
  with 403, and so is a state-changing one (any method but GET/HEAD/OPTIONS/TRACE) without `Origin` whose
  `Referer` is foreign. The app never sees a refused request: nothing is read, stored or indexed.

Requests with neither `Origin` nor `Referer` (the CLI, A2A and MCP clients, server-to-server calls) pass.

Allowed hosts: loopback (every 127.0.0.0/8 address, `localhost`, `[::1]`) on any port, plus the entries given
(`Settings.allowed_hosts`: `HUB_HOST` and `HUB_ALLOWED_HOSTS`), where `name` allows any port and `name:port`
that port only. An allowed origin is `http(s)://` one of those hosts.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

#: Methods that must not change state; every other method is checked against `Referer` too.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
#: Bind addresses that are not names a client can use (listening on every interface).
WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "[::]"})
_NAME = re.compile(r"^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_.])?$")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def split_host(value: str) -> tuple[str, int | None] | None:
    """`host[:port]` (an IPv6 address in brackets) as (lower-case host without brackets, port or None).

    None when the value is not a plain host: a scheme, a path, user info, an empty or invalid port.
    """
    value = value.strip().lower()
    port_text: str | None = None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1:]
        if rest:
            if not rest.startswith(":"):
                return None
            port_text = rest[1:]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
    elif value.count(":") > 1:  # a bare IPv6 address (settings may name one without brackets)
        host = value
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
    else:
        host, sep, port_text_or_empty = value.partition(":")
        port_text = port_text_or_empty if sep else None
        if not _NAME.match(host):
            return None
    if port_text is None:
        return host, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None
    return host, int(port_text)


def is_loopback_host(host: str) -> bool:
    """`localhost`, any 127.0.0.0/8 address, `::1` (and 127/8 written as IPv4-mapped IPv6)."""
    if host == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


class HostAllowList:
    """The hosts a hub server answers to: loopback on any port, plus the given `host` / `host:port` entries.

    Args:
        entries: extra hosts (`Settings.allowed_hosts`); wildcard bind addresses (`0.0.0.0`, `::`) are skipped.

    Raises:
        ValueError: an entry is not a plain `host[:port]`.
    """

    def __init__(self, entries: Iterable[str] = ()) -> None:
        self.any_port: set[str] = set()
        self.exact: set[tuple[str, int]] = set()
        for entry in entries:
            if entry.strip().lower() in WILDCARD_BINDS:
                continue
            parsed = split_host(entry)
            if parsed is None:
                raise ValueError(f"{entry!r} is not a host or host:port")
            host, port = parsed
            if port is None:
                self.any_port.add(host)
            else:
                self.exact.add((host, port))

    def allows(self, host: str, port: int | None) -> bool:
        """Whether `host` (lower case, no brackets) on `port` names this server."""
        if is_loopback_host(host) or host in self.any_port:
            return True
        return port is not None and (host, port) in self.exact

    def allows_host_header(self, value: str | None, default_port: int | None) -> bool:
        """Whether a `Host` header names this server (a missing or malformed one does not)."""
        parsed = split_host(value) if value else None
        if parsed is None:
            return False
        host, port = parsed
        return self.allows(host, port if port is not None else default_port)

    def allows_origin(self, value: str) -> bool:
        """Whether an `Origin` (or `Referer`) URL is an http(s) origin on an allowed host (`null` is not)."""
        try:
            parts = urlsplit(value.strip())
            port = parts.port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        return self.allows(parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS[parts.scheme])


class HostOriginGuard:
    """ASGI middleware: 421 for a foreign `Host`, 403 for a foreign `Origin` / `Referer` (see the module).

    Args:
        app: the wrapped app.
        allowed_hosts: hosts besides loopback (`Settings.allowed_hosts`).
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = HostAllowList(allowed_hosts)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, reason) when the request must be refused, else None."""
        headers = Headers(scope=scope)
        host = headers.get("host")
        if not self.allowed.allows_host_header(host, _DEFAULT_PORTS.get(scope.get("scheme", "http"))):
            return 421, (f"Host {host!r} does not name this hub; add it to HUB_ALLOWED_HOSTS if clients "
                         "reach the hub by that name")
        origin = headers.get("origin")
        if origin is not None:
            if not self.allowed.allows_origin(origin):
                return 403, f"cross-origin request from {origin!r} refused"
            return None
        state_changing = scope["type"] == "websocket" or scope.get("method", "GET") not in SAFE_METHODS
        referer = headers.get("referer")
        if state_changing and referer is not None and not self.allowed.allows_origin(referer):
            return 403, "cross-site request refused (foreign Referer)"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, reason = refused
        log.warning("refused %s %s: %s", scope.get("method", "WEBSOCKET"), scope.get("path", ""), reason)
        if scope["type"] == "websocket":  # closing before accepting answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
            return
        await JSONResponse({"detail": reason}, status_code=status)(scope, receive, send)
