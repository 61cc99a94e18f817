"""`http_pools.PoolShards`: an httpx client over several connection pools, against a real HTTP server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from ai_llm.common.a2a.server import bind_socket, serve_app
from ai_llm.common.http.pools import PoolShards, pooled_client


async def streaming_app(scope, receive, send):  # type: ignore[no-untyped-def]
    """Streams back the request's path and Authorization header, then the client's source port, in parts."""
    if scope["type"] != "http":
        return
    headers = dict(scope["headers"])
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    for part in (scope["path"], headers.get(b"authorization", b"-").decode(), str(scope["client"][1])):
        await asyncio.sleep(0.01)
        await send({"type": "http.response.body", "body": f"{part}\n".encode(), "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


@pytest.fixture
async def server_url() -> AsyncIterator[str]:
    sock = bind_socket("127.0.0.1", 0)
    task = asyncio.create_task(serve_app(streaming_app, sock))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    async with httpx.AsyncClient() as probe:
        for _ in range(200):
            try:
                await probe.get(url + "/ready")
                break
            except httpx.TransportError:
                await asyncio.sleep(0.02)
    yield url
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_concurrent_streams_each_get_their_own_response_over_every_pool(server_url: str) -> None:
    """32 streams at once through a 4-pool client: each reads its own response (path and the client's
    headers), and the connections come from all four pools, eight each (each request goes to the pool with
    the fewest in flight)."""
    client = pooled_client(shards=4, headers={"Authorization": "Bearer abc"}, timeout=10.0)
    transport = client._transport
    assert isinstance(transport, PoolShards) and len(transport.pools) == 4

    async def call(i: int) -> tuple[int, list[str]]:
        async with client.stream("GET", f"{server_url}/call/{i}") as response:
            return i, (await response.aread()).decode().split()

    async with client:
        results = await asyncio.gather(*(call(i) for i in range(32)))
        assert all(lines[:3] == [f"/call/{i}", "Bearer", "abc"] for i, lines in results)
        assert len({lines[-1] for _, lines in results}) == 32  # 32 connections at once
        assert [len(pool._pool.connections) for pool in transport.pools] == [8, 8, 8, 8]
        assert transport.in_flight == [0, 0, 0, 0]
        # Kept alive: a second round reuses them instead of opening new ones.
        again = await asyncio.gather(*(call(i) for i in range(32)))
        assert {lines[-1] for _, lines in again} == {lines[-1] for _, lines in results}
    assert all(pool._pool.connections == [] for pool in transport.pools)  # closing the client closed them all


async def test_one_call_at_a_time_keeps_reusing_one_kept_alive_connection(server_url: str) -> None:
    """Sequential calls all go to the first pool (none is busy), so they reuse one connection as a plain
    client would, instead of opening one per pool; every finished call is counted out of its pool."""
    async with pooled_client(shards=3) as client:
        ports = [(await client.get(f"{server_url}/seq/{i}")).text.split()[-1] for i in range(6)]
        async with client.stream("GET", f"{server_url}/streamed") as response:
            await response.aread()
        transport = client._transport
        assert isinstance(transport, PoolShards) and transport.in_flight == [0, 0, 0]
    assert len(set(ports)) == 1
