"""`hub bench pools`: the client CPU of a streamed HTTP call through one httpx pool and through `PoolShards`.

A plain streaming server (`bench_agent --mode plain`, `GET /stream`: eight events 20 ms apart, as an agent
streams its status lines) runs in its own process; this process opens N streams at once, their starts spread
over a few milliseconds as a burst of chats spreads them, and counts its own CPU per stream. Each level
alternates the two clients round by round (the machine's noise falls on both); the report gives the median
of each and their ratio. Both clients have the hub's A2A limits (`a2a_client.POOL_LIMITS`).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from ai_llm.common.a2a.client import POOL_LIMITS
from ai_llm.common.http.pools import SHARDS, pooled_client
from ai_llm.evals.orchestrator.bench import start_sleepers
from ai_llm.hub.process import stop_child

#: Seconds between two stream starts within a round.
STAGGER_S = 0.002


async def _round(client: httpx.AsyncClient, url: str, n: int) -> float:
    """CPU seconds of this process for `n` concurrent streams (each read to the end)."""
    async def one(i: int) -> None:
        await asyncio.sleep(i * STAGGER_S)
        async with client.stream("GET", url) as response:
            response.raise_for_status()
            async for _ in response.aiter_bytes():
                pass

    started = time.process_time()
    await asyncio.gather(*(one(i) for i in range(n)))
    return time.process_time() - started


async def measure(url: str, levels: list[int], rounds: int, shards: int = SHARDS) -> list[dict[str, Any]]:
    """For each level: client CPU ms per stream, one pool vs `shards` pools, alternating round by round."""
    out = []
    for n in levels:
        clients = {"one_pool": httpx.AsyncClient(limits=POOL_LIMITS),
                   "pool_shards": pooled_client(shards=shards, limits=POOL_LIMITS)}
        per_stream: dict[str, list[float]] = {name: [] for name in clients}
        try:
            for client in clients.values():  # connections opened before measuring
                await _round(client, url, n)
            for _ in range(rounds):
                for name, client in clients.items():
                    per_stream[name].append(await _round(client, url, n) / n * 1000)
        finally:
            for client in clients.values():
                await client.aclose()
        one, sharded = (statistics.median(per_stream[k]) for k in ("one_pool", "pool_shards"))
        out.append({"concurrent": n, "one_pool_cpu_ms": round(one, 3), "pool_shards_cpu_ms": round(sharded, 3),
                    "ratio": round(one / sharded, 2) if sharded else None})
    return out


async def run_bench(levels: list[int], rounds: int) -> dict[str, Any]:
    """Start the streaming server, measure every level, stop it; one JSON-able report."""
    with tempfile.TemporaryDirectory(prefix="hub-bench-pools-") as tmp:
        server = start_sleepers(1, 0.0, Path(tmp), prefix="stream", extra=("--mode", "plain"))[0]
        try:
            rows = await measure(f"{server.url}/stream", levels, rounds)
        finally:
            stop_child(server)
    return {"shards": SHARDS, "rounds": rounds, "events_per_stream": 8, "levels": rows}
