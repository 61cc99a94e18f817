"""HTTP clients whose kept-alive connections are spread over several small httpx pools.

httpcore 1.x (the pool under httpx 0.28) re-examines every connection of a pool each time a request starts or
ends: it probes each idle connection's socket, and for every idle connection counts the whole pool again. The
work per request grows with the square of the connections open, and a hub process under a burst of chats holds
one connection per concurrent call. Client CPU per streamed call with 50 / 100 / 200 at once (`hub bench
pools`): one pool 2.0 / 12.5 / 10.3 ms, eight pools 1.3–1.4 ms at every level.

`PoolShards` is a transport that hands each request to the next of several `httpx.AsyncHTTPTransport`s in
turn, so each pool holds an eighth of the connections. A response stays with the pool that made it; closing
the client closes them all. Everything else (headers, timeouts, auth, redirects) is the `httpx.AsyncClient`'s.
"""

from __future__ import annotations

import itertools
import ssl
from typing import Any

import httpx

#: Pools per client. Eight took most of the gain at 50–200 concurrent calls (four: 1.5–1.9 ms per call,
#: sixteen: 1.4 ms). One call at a time to a server still opens up to this many connections to it, one per
#: pool, each closed once idle for the keep-alive expiry.
SHARDS = 8
#: Each pool's limits unless told otherwise: those of a plain `httpx.AsyncClient`.
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)


class PoolShards(httpx.AsyncBaseTransport):
    """An httpx transport over `shards` connection pools, used in turn.

    Args:
        shards: how many pools.
        limits: each pool's limits (`httpx.Limits`).
        verify: TLS verification (an `ssl.SSLContext`, or a bool as httpx takes it).
    """

    def __init__(self, shards: int = SHARDS, *, limits: httpx.Limits = DEFAULT_LIMITS,
                 verify: ssl.SSLContext | bool = True) -> None:
        self.pools = [httpx.AsyncHTTPTransport(limits=limits, verify=verify) for _ in range(max(1, shards))]
        self._turn = itertools.cycle(self.pools)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await next(self._turn).handle_async_request(request)

    async def aclose(self) -> None:
        for pool in self.pools:
            await pool.aclose()


def pooled_client(*, shards: int = SHARDS, limits: httpx.Limits = DEFAULT_LIMITS,
                  verify: ssl.SSLContext | bool = True, **client_kwargs: Any) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` over `PoolShards` (`client_kwargs`: headers, timeout, auth, …)."""
    return httpx.AsyncClient(transport=PoolShards(shards, limits=limits, verify=verify), **client_kwargs)
