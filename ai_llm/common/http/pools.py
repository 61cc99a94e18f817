"""HTTP clients whose kept-alive connections are spread over several small httpx pools.

httpcore 1.x (the pool under httpx 0.28) re-examines every connection of a pool each time a request starts or
ends: it probes each idle connection's socket, and for every idle connection counts the whole pool again. The
work per request grows with the square of the connections open, and a hub process under a burst of chats holds
one connection per concurrent call. Client CPU per streamed call with 50 / 100 / 200 at once (`hub bench
pools`): one pool 2.0 / 12.5 / 10.3 ms, eight pools 1.3–1.4 ms at every level.

`PoolShards` is a transport over several `httpx.AsyncHTTPTransport`s that hands each request to the one with
the fewest requests in flight, so under load each pool holds an eighth of the connections. A response stays
with the pool that made it; closing the client closes them all. Everything else (headers, timeouts, auth,
redirects) is the `httpx.AsyncClient`'s.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

#: Pools per client. Eight took most of the gain at 50–200 concurrent calls (four: 1.5–1.9 ms per call,
#: sixteen: 1.4 ms).
SHARDS = 8
#: Each pool's limits unless told otherwise: those of a plain `httpx.AsyncClient`.
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)


class PoolShards(httpx.AsyncBaseTransport):
    """An httpx transport over `shards` connection pools: each request goes to the pool with the fewest
    requests in flight (the first such), so one call at a time keeps reusing the first pool's kept-alive
    connection, as a single pool would, and concurrent calls spread evenly.

    Args:
        shards: how many pools.
        limits: each pool's limits (`httpx.Limits`).
        verify: TLS verification (an `ssl.SSLContext`, or a bool as httpx takes it).
    """

    def __init__(self, shards: int = SHARDS, *, limits: httpx.Limits = DEFAULT_LIMITS,
                 verify: ssl.SSLContext | bool = True) -> None:
        self.pools = [httpx.AsyncHTTPTransport(limits=limits, verify=verify) for _ in range(max(1, shards))]
        self.in_flight = [0] * len(self.pools)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index = min(range(len(self.pools)), key=self.in_flight.__getitem__)
        self.in_flight[index] += 1
        try:
            response = await self.pools[index].handle_async_request(request)
        except BaseException:
            self.in_flight[index] -= 1
            raise
        response.stream = _Released(response.stream, lambda: self._release(index))
        return response

    def _release(self, index: int) -> None:
        self.in_flight[index] -= 1

    async def aclose(self) -> None:
        for pool in self.pools:
            await pool.aclose()


class _Released(httpx.AsyncByteStream):
    """A response body that calls `done` once, when it is closed (read to its end or given up)."""

    def __init__(self, stream: Any, done: Callable[[], None]) -> None:
        self._stream = stream
        self._done: Callable[[], None] | None = done

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            done, self._done = self._done, None
            if done is not None:
                done()


def pooled_client(*, shards: int = SHARDS, limits: httpx.Limits = DEFAULT_LIMITS,
                  verify: ssl.SSLContext | bool = True, **client_kwargs: Any) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` over `PoolShards` (`client_kwargs`: headers, timeout, auth, …)."""
    return httpx.AsyncClient(transport=PoolShards(shards, limits=limits, verify=verify), **client_kwargs)
