"""`hub bench startup`: seconds from launch until every agent card answers (cold, then warm) and the idle
RSS of the whole hub."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import psutil
import typer

from ai_llm.common.settings import PROJECT_ROOT

#: Not a measurement: a launcher that sleeps a fixed time instead of polling readiness (2 s after each of four
#: agents, 5 s for the orchestrator). The ratios against it say how far readiness polling is from those fixed sleeps.
SLEEP_BASELINE_S = 13.0


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    @bench_app.command("startup")
    def bench_startup(
        runs: Annotated[int, typer.Option(help="warm launches after the cold one")] = 1,
        only: Annotated[str | None, typer.Option(help="subset of services (comma-separated)")] = None,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Seconds from launch until every card answers (cold, then warm), beside a 13 s sleep-based launcher,
        and the idle RSS of the whole hub."""
        result = measure_startup(runs=runs, only=only)
        if as_json:
            typer.echo(json.dumps(result, indent=2))
        else:
            typer.echo(f"cold {result['cold_s']:.1f}s, warm {result['warm_s']:.1f}s vs {SLEEP_BASELINE_S:.0f}s "
                       f"of sleeps (ratio {result['warm_ratio_vs_sleep']:.2f}); idle RSS "
                       f"{result['idle_rss_gib']:.2f} GiB")


def _tree_rss(pid: int) -> int:
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def _wait_model_loaded(info: dict[str, Any], timeout_s: float) -> None:
    """Until the hub's embedding server says its model is loaded (`/healthz` ready), or `timeout_s`."""
    import httpx

    url = info.get("services", {}).get("embedding_server", {}).get("url")
    deadline = time.perf_counter() + timeout_s
    while url and time.perf_counter() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2.0).json().get("ready"):
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.2)


def _launch_once(data_dir: Path, only: str | None, timeout_s: float = 300.0) -> dict[str, Any]:
    ready = data_dir / "ready.json"
    ready.unlink(missing_ok=True)
    cmd = [sys.executable, str(PROJECT_ROOT / "start_agents.py"), "--ephemeral", "--data-dir", str(data_dir),
           "--ready-file", str(ready)]
    if only:
        cmd += ["--only", only]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=PROJECT_ROOT,
                            env={**os.environ}, start_new_session=True)
    try:
        while not ready.exists():
            if proc.poll() is not None:
                raise RuntimeError(f"launcher exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
            if time.perf_counter() - started > timeout_s:
                raise TimeoutError("hub did not become ready")
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        info = json.loads(ready.read_text())
        # Idle means the embedding model is loaded (a first start makes its files first, in a child process
        # whose memory is gone once it is done): measure then, not at a fixed delay.
        _wait_model_loaded(info, timeout_s)
        time.sleep(1.0)
        rss = _tree_rss(proc.pid)
        return {"ready_s": elapsed, "rss_bytes": rss, "timings_s": info.get("timings_s", {})}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def measure_startup(runs: int = 1, only: str | None = None) -> dict[str, Any]:
    """Cold launch on a fresh data dir (initdb included), then `runs` warm launches on the same dir."""
    with tempfile.TemporaryDirectory(prefix="hub-bench-") as tmp:
        data_dir = Path(tmp)
        cold = _launch_once(data_dir, only)
        warm = [_launch_once(data_dir, only) for _ in range(max(1, runs))]
    warm_s = sorted(w["ready_s"] for w in warm)[len(warm) // 2]
    rss = max(w["rss_bytes"] for w in [cold, *warm])
    return {
        "cold_s": round(cold["ready_s"], 2),
        "warm_s": round(warm_s, 2),
        "sleep_baseline_s": SLEEP_BASELINE_S,
        "sleep_baseline_note": "a launcher sleeping a fixed 13 s (2 s per agent, 5 s for the orchestrator), not measured in this run",
        "cold_ratio_vs_sleep": round(cold["ready_s"] / SLEEP_BASELINE_S, 3),
        "warm_ratio_vs_sleep": round(warm_s / SLEEP_BASELINE_S, 3),
        "idle_rss_gib": round(rss / 2**30, 3),
        "cold_timings_s": cold["timings_s"],
        "warm_timings_s": warm[0]["timings_s"],
    }
