"""`hub bench orchestrator`: fan-out ratio and A2A hop overhead against real agent processes.

* Fan-out: a plan of k independent steps against k agent processes that each sleep a fixed time; the ratio
  wall time / slowest step (goal ≤ 1.2) beside the same steps run as a chain (the serial baseline, ≈ k).
* Hop overhead: an orchestrator→agent round trip (the executor's own call path: card cached, the process's
  kept-alive connection pool, JSON-RPC + SSE stream) minus the agent's reported work time, p50/p95, beside
  two floors measured in the same run, interleaved call by call: a plain HTTP echo (`POST /echo` over a
  kept-alive connection, no A2A) and a bare a2a-sdk echo agent called with the a2a-sdk's own client (its
  routes and default request handler, one `Message` back, no hub code on either side). Goal: hop p50 ≤ 10 ms,
  or ≤ the bare a2a-sdk floor of the same run where that floor is higher (the machine is slower or busy).
  A second hub agent served from a socket made as uvicorn makes its own (`--socket tcp`: TCP_NODELAY on each
  connection) shows what the hub's own listening socket costs.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import new_message, new_text_part
from a2a.types import Role, SendMessageRequest

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.server import free_port
from ai_llm.hub.process import Child, start_module, stop_child, wait_http
from ai_llm.orchestrator_agent.executor import PlanExecutor
from ai_llm.orchestrator_agent.plan import IntentPlan, PlanStep


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def start_sleepers(count: int, delay: float, log_dir: Path, prefix: str = "sleeper",
                   extra: tuple[str, ...] = ()) -> list[Child]:
    """Start `count` benchmark servers (`bench_agent`, sleeping agents by default; `extra`: more options such
    as `--mode bare`) as processes, in parallel, and wait until each answers."""
    children = []
    for i in range(count):
        port = free_port()
        child = start_module(f"{prefix}_{i}", "ai_llm.evals.orchestrator.bench_agent",
                             ["--port", str(port), "--name", f"{prefix}_{i}", "--delay", str(delay), *extra],
                             {}, log_dir)
        child.url = f"http://127.0.0.1:{port}"
        children.append(child)
    try:
        for child in children:
            assert child.url is not None
            wait_http(child.url + "/healthz", child, timeout_s=90)
    except BaseException:
        for child in children:
            stop_child(child)
        raise
    return children


async def fan_out(executor: PlanExecutor, names: list[str], ks: list[int], repeats: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in ks:
        parallel = IntentPlan(intent="HYBRID", steps=[PlanStep(agent=n, instruction="bench") for n in names[:k]])
        chain = IntentPlan(intent="HYBRID", steps=[PlanStep(agent=n, instruction="bench",
                                                             depends_on=[i - 1] if i else [])
                                                    for i, n in enumerate(names[:k])])
        await executor.run_plan(parallel)  # warm-up: cards fetched, connections set up once
        ratios, walls, slowest, serial = [], [], [], []
        for _ in range(repeats):
            started = time.perf_counter()
            results = await executor.run_plan(parallel)
            wall = (time.perf_counter() - started) * 1000
            if any(r.failed for r in results):
                raise RuntimeError(f"fan-out k={k}: a step failed: {[r.error for r in results if r.failed]}")
            step_max = max(r.elapsed_ms for r in results)
            walls.append(wall)
            slowest.append(step_max)
            ratios.append(wall / step_max)
        started = time.perf_counter()
        chained = await executor.run_plan(chain)
        serial_wall = (time.perf_counter() - started) * 1000
        serial.append(serial_wall / max(r.elapsed_ms for r in chained))
        out[f"k{k}"] = {
            "k": k,
            "wall_ms": round(statistics.median(walls), 1),
            "slowest_step_ms": round(statistics.median(slowest), 1),
            "ratio": round(statistics.median(ratios), 3),
            "serial_baseline_ratio": round(serial[0], 3),
            "goal_met": statistics.median(ratios) <= 1.2,
        }
    return out


def _stats(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(values), 2), "p95_ms": round(_percentile(values, 0.95), 2)}


async def hop_overhead(executor: PlanExecutor, name: str, n: int, *, bare_url: str, plain_url: str,
                       nodelay: tuple[PlanExecutor, str] | None = None,
                       server_pids: dict[str, int] | None = None) -> dict[str, Any]:
    """The hop through `executor` to agent `name`, beside the floors, one call of each per round.

    Args:
        bare_url: a bare a2a-sdk echo agent (`bench_agent --mode bare`).
        plain_url: a plain HTTP echo server (`bench_agent --mode plain`).
        nodelay: the same hub agent served from a TCP_NODELAY socket (`--socket tcp`), with its executor.
        server_pids: measure (`hop`, `a2a_sdk_echo`, `plain_http_echo`, `hop_nodelay_socket`) -> the pid of
            the server it calls; each measure then also reports the CPU milliseconds per call of this process
            (the caller) and of that server, summed over the calls and divided by their number (the servers
            are idle between their own calls, as the calls run one at a time).
    """
    http = httpx.AsyncClient(timeout=30)  # kept alive, like the hub's shared pool
    try:
        card = await A2ACardResolver(http, bare_url).get_agent_card()
        sdk_client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)

        async def sdk_echo() -> float:
            request = SendMessageRequest(message=new_message([new_text_part("ping")], context_id=str(uuid.uuid4()),
                                                             role=Role.ROLE_USER))
            started = time.perf_counter()
            async for _ in sdk_client.send_message(request):
                pass
            return (time.perf_counter() - started) * 1000

        async def plain_echo() -> float:
            started = time.perf_counter()
            (await http.post(plain_url + "/echo", json={"text": "ping"})).raise_for_status()
            return (time.perf_counter() - started) * 1000

        def hop_of(run: PlanExecutor, agent: str) -> Callable[[], Awaitable[float]]:
            step = PlanStep(agent=agent, instruction="ping")
            call = run.build_call(step, [], {}, "")

            async def hop() -> float:
                result = await run.run_step(0, step, call, None)
                if result.failed:
                    raise RuntimeError(f"hop call failed: {result.error}")
                return result.elapsed_ms - float(result.data.get("work_ms", 0.0))
            return hop

        measures: dict[str, Callable[[], Awaitable[float]]] = {
            "hop": hop_of(executor, name), "a2a_sdk_echo": sdk_echo, "plain_http_echo": plain_echo}
        if nodelay is not None:
            measures["hop_nodelay_socket"] = hop_of(*nodelay)
        samples: dict[str, list[float]] = {key: [] for key in measures}
        servers = {key: psutil.Process(pid) for key, pid in (server_pids or {}).items() if key in measures}
        client_cpu = dict.fromkeys(measures, 0.0)
        server_cpu = dict.fromkeys(servers, 0.0)
        for _ in range(3):  # warm-up: cards fetched, connections open
            for measure in measures.values():
                await measure()
        for _ in range(n):  # interleaved: a busy moment of the machine weighs on every column alike
            for key, measure in measures.items():
                server_before = _cpu_s(servers[key]) if key in servers else 0.0
                started = time.process_time()
                samples[key].append(await measure())
                client_cpu[key] += time.process_time() - started
                if key in servers:
                    server_cpu[key] += _cpu_s(servers[key]) - server_before
    finally:
        await http.aclose()
    stats: dict[str, dict[str, float]] = {key: _stats(values) for key, values in samples.items()}
    for key in measures:
        stats[key]["client_cpu_ms"] = round(client_cpu[key] / n * 1000, 2)
        if key in server_cpu:
            stats[key]["server_cpu_ms"] = round(server_cpu[key] / n * 1000, 2)
    hop, floor = stats["hop"], stats["a2a_sdk_echo"]
    goal_ms = max(10.0, floor["p50_ms"])
    report: dict[str, Any] = {
        "n": n,
        "overhead_p50_ms": hop["p50_ms"], "overhead_p95_ms": hop["p95_ms"],
        "a2a_sdk_echo_p50_ms": floor["p50_ms"], "a2a_sdk_echo_p95_ms": floor["p95_ms"],
        "plain_http_p50_ms": stats["plain_http_echo"]["p50_ms"],
        "plain_http_p95_ms": stats["plain_http_echo"]["p95_ms"],
        "ratio_vs_a2a_sdk_echo": round(hop["p50_ms"] / floor["p50_ms"], 2) if floor["p50_ms"] else None,
        "goal_p50_ms": goal_ms, "goal_met": hop["p50_ms"] <= goal_ms,
    }
    if "hop_nodelay_socket" in stats:
        report["nodelay_socket_p50_ms"] = stats["hop_nodelay_socket"]["p50_ms"]
        report["nodelay_socket_p95_ms"] = stats["hop_nodelay_socket"]["p95_ms"]
    # CPU per call: what a hop costs the two cores under load, where wall time hides nothing of it.
    report["cpu_ms_per_call"] = {key: {side: stats[key][f"{side}_cpu_ms"] for side in ("client", "server")
                                       if f"{side}_cpu_ms" in stats[key]} for key in measures}
    return report


def _cpu_s(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


async def run_bench(ks: list[int], delay: float, repeats: int, hops: int) -> dict[str, Any]:
    """Start the agents, measure, stop them; one JSON-able report."""
    count = max(ks)
    with tempfile.TemporaryDirectory(prefix="hub-bench-orch-") as tmp:
        sleepers = start_sleepers(count, delay, Path(tmp))
        instant = start_sleepers(1, 0.0, Path(tmp), prefix="instant")[0]
        nodelay = start_sleepers(1, 0.0, Path(tmp), prefix="nodelay", extra=("--socket", "tcp"))[0]
        bare = start_sleepers(1, 0.0, Path(tmp), prefix="bare", extra=("--mode", "bare"))[0]
        plain = start_sleepers(1, 0.0, Path(tmp), prefix="plain", extra=("--mode", "plain"))[0]
        children = [*sleepers, instant, nodelay, bare, plain]
        try:
            agents = {c.name: RemoteAgent(c.url or "", name=c.name, timeout_s=60) for c in [*sleepers, instant]}
            executor = PlanExecutor(agents, step_timeout_s=60)
            fan = await fan_out(executor, [c.name for c in sleepers], ks, repeats)
            nodelay_executor = PlanExecutor({nodelay.name: RemoteAgent(nodelay.url or "", name=nodelay.name,
                                                                       timeout_s=60)}, step_timeout_s=60)
            hop = await hop_overhead(executor, instant.name, hops, bare_url=bare.url or "",
                                     plain_url=plain.url or "", nodelay=(nodelay_executor, nodelay.name),
                                     server_pids={"hop": instant.proc.pid, "a2a_sdk_echo": bare.proc.pid,
                                                  "plain_http_echo": plain.proc.pid,
                                                  "hop_nodelay_socket": nodelay.proc.pid})
        finally:
            for child in children:
                stop_child(child)
    return {"agent_delay_s": delay, "repeats": repeats, "fan_out": fan, "hop": hop,
            "goals": {"fan_out_ratio_max": 1.2,
                      "hop_overhead_p50_ms_max": "10, or the bare a2a-sdk echo p50 of the same run if higher"}}
