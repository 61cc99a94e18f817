"""Whether web search can serve right now, for health (`GET /healthz?providers=1`).

A provider in the web chain is usable when its latest search (within `RECENT_S`) was answered, or, with no
recent search, when a TCP connection to its endpoint opens within `PROBE_TIMEOUT_S` (probes are cached for
`PROBE_TTL_S`, so a health poll never costs a search, a key's quota or more than a second). The local corpus
is always usable: it is a file the gateway has already read.

The state of web search:

* `ok`: the first usable provider is a network one, and every provider of the chain is usable;
* `degraded`: some provider of the chain is not usable, another one serves;
* `offline_corpus`: the local corpus is what serves (offline mode);
* `down`: no provider is configured, or none can be reached; `reason` says which and why.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

PROBE_TIMEOUT_S = 1.0
PROBE_TTL_S = 30.0
#: A search outcome younger than this decides over a probe.
RECENT_S = 300.0
LOCAL = "local"

WebState = Literal["ok", "degraded", "offline_corpus", "down"]


def probe_target(provider: Any) -> tuple[str, int] | None:
    """(host, port) a provider's searches go to; None for one without a network endpoint (the local corpus,
    a provider injected by a test)."""
    url = getattr(provider, "endpoint_url", None)
    if not isinstance(url, str) or not url:
        return None
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    return parts.hostname, port


async def connect(host: str, port: int, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """None when a TCP connection to host:port opens in time, else why not."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
    except TimeoutError:
        return f"no answer from {host}:{port} within {timeout_s:g}s"
    except OSError as exc:
        return f"cannot connect to {host}:{port} ({exc.strerror or type(exc).__name__})"
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        pass
    return None


@dataclass
class Outcome:
    at: float
    ok: bool
    reason: str | None = None


@dataclass
class Reachability:
    """Latest search outcome and probe result per provider (in memory, per gateway process)."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    probes: dict[str, Outcome] = field(default_factory=dict)

    def record(self, name: str, ok: bool, reason: str | None = None) -> None:
        """What a search through `name` came to: answered (ok, even with no results) or failed (reason)."""
        self.outcomes[name] = Outcome(time.monotonic(), ok, reason)

    async def _usable(self, name: str, provider: Any) -> str | None:
        """None when `name` can serve, else why not."""
        if name == LOCAL:
            return None
        now = time.monotonic()
        outcome = self.outcomes.get(name)
        if outcome is not None and now - outcome.at < RECENT_S:
            return None if outcome.ok else (outcome.reason or "its last search failed")
        target = probe_target(provider)
        if target is None:
            return None  # nothing to probe: judged by its searches alone
        probe = self.probes.get(name)
        if probe is None or now - probe.at >= PROBE_TTL_S:
            reason = await connect(*target)
            probe = self.probes[name] = Outcome(time.monotonic(), reason is None, reason)
        return None if probe.ok else probe.reason

    async def web(self, chain: list[str], providers: dict[str, Any], skipped: dict[str, str]) -> dict[str, Any]:
        """`{state, reason, serving, unreachable: {name: why}, unconfigured: {name: why}}` of the web chain."""
        reasons = await asyncio.gather(*(self._usable(name, providers[name]) for name in chain))
        unreachable = {name: why for name, why in zip(chain, reasons, strict=True) if why is not None}
        usable = [name for name in chain if name not in unreachable]
        state: WebState
        reason: str | None = None
        if not chain:
            state = "down"
            reason = "no web-search provider is configured: " + (
                "; ".join(f"{n} ({why})" for n, why in skipped.items()) or "the chain is empty")
        elif not usable:
            state = "down"
            reason = "no web-search provider can be reached: " + "; ".join(
                f"{n} ({why})" for n, why in unreachable.items())
        elif usable[0] == LOCAL:
            state = "offline_corpus"
        elif unreachable:
            state = "degraded"
            reason = "unreachable: " + "; ".join(f"{n} ({why})" for n, why in unreachable.items())
        else:
            state = "ok"
        return {"state": state, "reason": reason, "serving": usable[0] if usable else None,
                "unreachable": unreachable, "unconfigured": dict(skipped)}
