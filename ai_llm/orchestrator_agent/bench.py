"""`hub bench orchestrator`: fan-out ratio and A2A hop overhead against real agent processes.

* Fan-out: a plan of k independent steps against k agent processes that each sleep a fixed time; the ratio
  wall time / slowest step (goal ≤ 1.2) beside the same steps run as a chain (the serial baseline, ≈ k).
* Hop overhead: an orchestrator→agent round trip (the executor's own call path: card cached, new HTTP
  connection, JSON-RPC + SSE stream) minus the agent's reported work time, p50/p95 (goal p50 ≤ 10 ms),
  beside a plain HTTP GET of the same server as baseline.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from ai_llm.common.a2a_client import RemoteAgent
from ai_llm.common.a2a_server import free_port
from ai_llm.common.process import Child, start_module, stop_child, wait_http
from ai_llm.orchestrator_agent.executor import PlanExecutor
from ai_llm.orchestrator_agent.plan import IntentPlan, PlanStep


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def start_sleepers(count: int, delay: float, log_dir: Path, prefix: str = "sleeper") -> list[Child]:
    """Start `count` sleeping agents as processes (in parallel) and wait until each card answers."""
    children = []
    for i in range(count):
        port = free_port()
        child = start_module(f"{prefix}_{i}", "ai_llm.orchestrator_agent.bench_agent",
                             ["--port", str(port), "--name", f"{prefix}_{i}", "--delay", str(delay)], {}, log_dir)
        child.url = f"http://127.0.0.1:{port}"
        children.append(child)
    try:
        for child in children:
            assert child.url is not None
            wait_http(child.url + "/.well-known/agent-card.json", child, timeout_s=90)
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


async def hop_overhead(executor: PlanExecutor, name: str, url: str, n: int) -> dict[str, Any]:
    step = PlanStep(agent=name, instruction="ping")
    call = executor.build_call(step, [], {}, "")
    await executor.run_step(0, step, call, None)  # warm-up
    overheads, http_ms = [], []
    for _ in range(n):
        result = await executor.run_step(0, step, call, None)
        if result.failed:
            raise RuntimeError(f"hop call failed: {result.error}")
        overheads.append(result.elapsed_ms - float(result.data.get("work_ms", 0.0)))
    for _ in range(n):
        started = time.perf_counter()
        # A new connection each time, like the A2A call (plain http: no TLS context to build).
        async with httpx.AsyncClient(timeout=10, verify=False) as http:
            (await http.get(url + "/healthz")).raise_for_status()
        http_ms.append((time.perf_counter() - started) * 1000)
    p50 = statistics.median(overheads)
    base = statistics.median(http_ms)
    return {"n": n, "overhead_p50_ms": round(p50, 2), "overhead_p95_ms": round(_percentile(overheads, 0.95), 2),
            "plain_http_p50_ms": round(base, 2), "ratio_vs_plain_http": round(p50 / base, 2) if base else None,
            "goal_met": p50 <= 10.0}


async def run_bench(ks: list[int], delay: float, repeats: int, hops: int) -> dict[str, Any]:
    """Start the agents, measure, stop them; one JSON-able report."""
    count = max(ks)
    with tempfile.TemporaryDirectory(prefix="hub-bench-orch-") as tmp:
        sleepers = start_sleepers(count, delay, Path(tmp))
        instant = start_sleepers(1, 0.0, Path(tmp), prefix="instant")[0]
        try:
            agents = {c.name: RemoteAgent(c.url or "", name=c.name, timeout_s=60) for c in [*sleepers, instant]}
            executor = PlanExecutor(agents, step_timeout_s=60)
            fan = await fan_out(executor, [c.name for c in sleepers], ks, repeats)
            hop = await hop_overhead(executor, instant.name, instant.url or "", hops)
        finally:
            for child in [*sleepers, instant]:
                stop_child(child)
    return {"agent_delay_s": delay, "repeats": repeats, "fan_out": fan, "hop": hop,
            "goals": {"fan_out_ratio_max": 1.2, "hop_overhead_p50_ms_max": 10.0}}
