"""The hub launcher (`python start_agents.py` / `hub up`).

Start-up order: the embedded Postgres (once, migrated; `pg_ctl` runs it as a daemon) → the embedding
server (loads its model in the background) → the search gateway and the four remote agents in parallel →
the orchestrator → the backend. Readiness is polled (agent cards, health routes), never slept for. A
process that dies or does not answer in time *during start-up* fails the start: its log tail is printed,
everything started so far is stopped, and the exit status is 1.

Once the hub is up, the launcher supervises: a process that exits (any code, any signal), the embedded
Postgres included, is restarted after a back-off (0.5 s, doubling to 10 s), each restart reported with the
exit code and the tail of its log. After 5 crashes in a row, each within 30 s of its start
(`--max-crashes`, `--crash-window`), that process is given up with a message naming it and its log, and the
rest of the hub keeps serving. Every process's state is kept in DATA_DIR/run/hub-status.json, which the
backend's `/api/health` reads. Ctrl-C / SIGTERM stops everything (status 0).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ai_llm.common.a2a_server import free_port
from ai_llm.common.db import EmbeddingMismatchError, migrate, start_embedded_postgres
from ai_llm.common.embeddings import KNOWN_DIMENSIONS
from ai_llm.common.process import (
    Child,
    ForkedProcess,
    ProcessDied,
    fork_module,
    pid_alive,
    start_module,
    stop_child,
    wait_http,
)
from ai_llm.common.settings import Settings, UnsafeConfigurationError, get_settings
from ai_llm.supervision import RestartPolicy, SupervisedProcess, Supervisor, status_path

CARD_PATH = "/.well-known/agent-card.json"


@dataclass(frozen=True)
class Service:
    """One hub process."""

    name: str
    module: str
    port_setting: str
    health_path: str
    phase: int  # 0: background (not waited for before others), 1: parallel, 2: orchestrator, 3: backend
    label: str
    preload: str | None = None  # module imported once in the launcher before forking this service


SERVICES = [
    Service("embedding_server", "ai_llm.embedding_server", "embedding_port", "/healthz", 0, "Embedding server"),
    Service("search_gateway", "ai_llm.search_gateway", "search_gateway_port", "/healthz", 1, "Search gateway (MCP)",
            "ai_llm.search_gateway.server"),
    Service("internal_rag", "ai_llm.internal_rag_agent", "rag_agent_port", CARD_PATH, 1, "Internal-RAG agent",
            "ai_llm.internal_rag_agent.agent_server"),
    Service("web_research", "ai_llm.web_research_agent", "web_agent_port", CARD_PATH, 1, "Web-research agent",
            "ai_llm.web_research_agent.agent_server"),
    Service("file_management", "ai_llm.file_management_agent", "file_agent_port", CARD_PATH, 1,
            "File-management agent", "ai_llm.file_management_agent.agent_server"),
    Service("report_writing", "ai_llm.report_writing_agent", "report_agent_port", CARD_PATH, 1,
            "Report-writing agent", "ai_llm.report_writing_agent.agent_server"),
    Service("orchestrator", "ai_llm.orchestrator_agent", "orchestrator_port", CARD_PATH, 2, "Orchestrator",
            "ai_llm.orchestrator_agent.agent_server"),
    Service("backend", "backend", "backend_port", "/openapi.json", 3, "Backend + chat UI", "backend.api.main"),
]


class LaunchError(RuntimeError):
    """The hub could not start; the message says which process and why."""


class PostmasterProcess(ForkedProcess):
    """The embedded Postgres's postmaster, with the surface of a child process (`pid`, `poll`, `wait`).

    `pg_ctl` starts it as a daemon, so it is not the launcher's child: it is watched by pid, and its exit
    status cannot be read (`exit_status_known`; `returncode` is -1 once it is gone).
    """

    exit_status_known = False

    def poll(self) -> int | None:
        if self.returncode is None and not pid_alive(self.pid):
            self.returncode = -1
        return self.returncode


class Launcher:
    """Starts and supervises the hub's processes.

    Args:
        settings: hub settings (ports, data dir, …).
        only: names of services to start (default: all).
        ephemeral: pick free ports instead of the configured ones (benchmarks, tests).
        fork: fork pre-imported children (False: a fresh interpreter per process).
        policy: when `supervise` restarts a process and when it gives up on one.
    """

    def __init__(self, settings: Settings, only: set[str] | None = None, ephemeral: bool = False,
                 fork: bool = True, policy: RestartPolicy | None = None) -> None:
        self.settings = settings
        self.fork = fork and hasattr(os, "fork")
        self._preloaded: set[str] = set()
        self.only = only
        unknown = (only or set()) - {s.name for s in SERVICES}
        if unknown:
            raise LaunchError(f"unknown service(s) {', '.join(sorted(unknown))}; known: "
                              + ", ".join(s.name for s in SERVICES))
        self.ports = {s.port_setting: (free_port() if ephemeral else getattr(settings, s.port_setting))
                      for s in SERVICES}
        self.children: list[Child] = []
        self.timings: dict[str, float] = {}
        self._pg_server: Any = None
        self.database_url: str | None = settings.database_url
        self.policy = policy or RestartPolicy()
        self.supervisor: Supervisor | None = None
        self._started_at: dict[str, float] = {}  # time.monotonic() at each process's first start

    def selected(self) -> list[Service]:
        return [s for s in SERVICES if self.only is None or s.name in self.only]

    def url(self, service: Service) -> str:
        return f"http://127.0.0.1:{self.ports[service.port_setting]}"

    def child_env(self) -> dict[str, str]:
        env = self.settings.child_env()
        for setting, port in self.ports.items():
            env[setting.upper()] = str(port)
        if self.database_url:
            env["DATABASE_URL"] = self.database_url
        return env

    def start_database(self) -> None:
        """Start the embedded Postgres (unless DATABASE_URL is set) and apply migrations once."""
        started = time.perf_counter()
        if not self.database_url:
            self._started_at["postgres"] = time.monotonic()
            self._pg_server, self.database_url = start_embedded_postgres(self.settings.pg_dir)
        model = self.settings.embedding_model_name
        asyncio.run(migrate(self.database_url, model, KNOWN_DIMENSIONS.get(model, 0)))
        self.timings["database"] = time.perf_counter() - started

    def preload(self, services: list[Service]) -> None:
        """Import the services' modules once here, so forked children start without re-importing them.

        A module that fails to import is left to its child, which reports the error in its own log.
        """
        for service in services:
            if service.preload and service.preload not in self._preloaded:
                try:
                    importlib.import_module(service.preload)
                except Exception:
                    continue
                self._preloaded.add(service.preload)

    def _spawn(self, service: Service) -> Child:
        args = ["--port", str(self.ports[service.port_setting])]
        if self.fork and service.preload in self._preloaded:
            child = fork_module(service.name, service.module, args, self.child_env(), self.settings.logs_dir)
        else:
            child = start_module(service.name, service.module, args, self.child_env(), self.settings.logs_dir)
        child.url = self.url(service)
        return child

    def _start(self, service: Service) -> Child:
        self._started_at[service.name] = time.monotonic()
        child = self._spawn(service)
        self.children.append(child)
        return child

    def _restart(self, service: Service) -> Child:
        """Start `service` again in place of its exited child (same port, same log, appended to)."""
        index = next(i for i, c in enumerate(self.children) if c.name == service.name)
        old = self.children[index]
        if all(c.proc.pid != old.proc.pid for c in self.children if c is not old):  # not a reused pid of ours
            try:  # whatever the dead child left in its process group would hold the port or the log
                os.killpg(old.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        with open(old.log_path, "a", encoding="utf-8") as log:
            log.write(f"\n--- restarted by the launcher at {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n")
        child = self._spawn(service)
        self.children[index] = child
        return child

    def _headers(self) -> dict[str, str] | None:
        return {"Authorization": f"Bearer {self.settings.hub_token}"} if self.settings.hub_token else None

    def _answers(self, service: Service) -> bool:
        """One short readiness probe (no connection kept open: the launcher forks children)."""
        try:
            response = httpx.get(self.url(service) + service.health_path, headers=self._headers(),
                                 timeout=1.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    def _wait(self, service: Service, child: Child, started: float, timeout_s: float) -> None:
        wait_http(self.url(service) + service.health_path, child, timeout_s=timeout_s,
                  headers=self._headers())
        self.timings[service.name] = time.perf_counter() - started

    def start(self, timeout_s: float = 120.0) -> float:
        """Start every selected service in order; returns seconds until all are ready."""
        t0 = time.perf_counter()
        self.settings.logs_dir.mkdir(parents=True, exist_ok=True)
        self.start_database()
        selected = self.selected()
        background = [(s, self._start(s)) for s in selected if s.phase == 0]
        if self.fork:
            self.preload(selected)
        for phase in (1, 2, 3):
            services = [s for s in selected if s.phase == phase]
            if not services:
                continue
            pairs = [(s, self._start(s)) for s in services]
            with ThreadPoolExecutor(max_workers=len(pairs)) as pool:
                futures = [pool.submit(self._wait, s, c, t0, timeout_s) for s, c in pairs]
                for future in futures:
                    future.result()
        for service, child in background:
            # Cards may answer before the model is warm; the first query then waits for it, not fails.
            self._wait(service, child, t0, timeout_s)
        return time.perf_counter() - t0

    def _postmaster(self) -> Child:
        return Child("postgres", PostmasterProcess(self._pg_server.get_pid()), self.settings.pg_dir / "log",
                     url=self.database_url)

    def _restart_postgres(self) -> Child:
        """Start the embedded Postgres again after its postmaster died (same data, same socket, same URL)."""
        pid_file = self.settings.pg_dir / "postmaster.pid"
        try:
            lines = pid_file.read_text().splitlines()
            old_pid = int(lines[0])
        except (OSError, ValueError, IndexError):
            lines, old_pid = [], None
        if old_pid is not None and not pid_alive(old_pid):
            # A dead postmaster that nobody has reaped yet (a zombie) still "exists": Postgres would take its
            # lock files for a running server's and refuse to start.
            socket_dir = Path(lines[4]) if len(lines) > 4 and lines[4].strip() else None
            for lock in socket_dir.glob(".s.PGSQL.*.lock") if socket_dir else []:
                with contextlib.suppress(OSError):
                    if lock.read_text().split()[:1] == [str(old_pid)]:
                        lock.unlink()
            pid_file.unlink(missing_ok=True)
        server = self._pg_server
        with server._lock:  # pgserver's own inter-process lock around starting a server
            server.ensure_postgres_running()
        if server.get_uri() != self.database_url:
            print(f"warning: the restarted Postgres answers at {server.get_uri()}, not {self.database_url}; "
                  "restart the hub", file=sys.stderr, flush=True)
        return self._postmaster()

    def _supervised(self, child: Child) -> SupervisedProcess:
        service = next(s for s in SERVICES if s.name == child.name)
        return SupervisedProcess(name=child.name, child=child, spawn=lambda: self._restart(service),
                                 is_ready=lambda _child: self._answers(service), log_path=child.log_path,
                                 url=child.url, port=self.ports[service.port_setting],
                                 started_at=self._started_at.get(child.name, time.monotonic()))

    def watch(self, ready_timeout_s: float = 180.0) -> Supervisor:
        """Take every started process (and the embedded Postgres) under supervision; writes the status file.

        Args:
            ready_timeout_s: how long a restarted process may take to answer before it counts as crashed.
        """
        processes = [self._supervised(child) for child in self.children]
        if self._pg_server is not None:
            postmaster = self._postmaster()
            processes.insert(0, SupervisedProcess(
                name="postgres", child=postmaster, spawn=self._restart_postgres, is_ready=lambda c: c.alive,
                log_path=postmaster.log_path, url=self.database_url, stop=lambda _c: None,
                started_at=self._started_at.get("postgres", time.monotonic())))
        self.supervisor = Supervisor(processes, self.policy, ready_timeout_s=ready_timeout_s,
                                     status_file=status_path(self.settings.data_dir))
        self.supervisor.write_status()
        return self.supervisor

    def supervise(self, stopping: Callable[[], bool], interval_s: float = 0.2) -> bool:
        """Keep every started process running until `stopping()` says so (see the module docstring).

        Call from the main thread once `start` (and `watch`, else it is called here) has returned, with no
        other thread running: restarts fork.

        Returns:
            True when stopped on request, False when every process was given up.
        """
        supervisor = self.supervisor or self.watch()
        while not stopping():
            supervisor.tick(stopping)
            if supervisor.all_gave_up():
                return False
            time.sleep(interval_s)
        return True

    def stop(self) -> None:
        """Stop every child (reverse order), then the embedded Postgres; remove the status file."""
        for child in reversed(self.children):
            stop_child(child)
        if self._pg_server is not None:
            self._pg_server.cleanup()
            self._pg_server = None
        if self.supervisor is not None:
            self.supervisor.remove_status()

    def summary(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "services": {c.name: {"url": c.url, "pid": c.proc.pid, "log": str(c.log_path)} for c in self.children},
            "timings_s": {k: round(v, 3) for k, v in self.timings.items()},
            "database_url": self.database_url,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="start_agents.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated services to start: " + ", ".join(s.name for s in SERVICES))
    parser.add_argument("--ephemeral", action="store_true", help="use free ports instead of the configured ones")
    parser.add_argument("--data-dir", type=Path, help="override DATA_DIR")
    parser.add_argument("--ready-file", type=Path, help="write a JSON summary here once everything is ready")
    parser.add_argument("--timeout", type=float, default=180.0,
                        help="seconds to wait for each phase at start, and for a restarted process to answer")
    parser.add_argument("--no-fork", action="store_true",
                        help="start every process with a fresh interpreter instead of forking after pre-importing")
    defaults = RestartPolicy()
    parser.add_argument("--max-crashes", type=int, default=defaults.max_fast_crashes,
                        help="give a process up after this many crashes in a row, each within --crash-window "
                             "seconds of its start (default %(default)s)")
    parser.add_argument("--crash-window", type=float, default=defaults.crash_window_s,
                        help="seconds: an exit this soon after a start counts towards --max-crashes "
                             "(default %(default)s)")
    args = parser.parse_args(argv)
    try:
        settings = get_settings()
        if args.data_dir:
            settings = settings.model_copy(update={"data_dir": args.data_dir.resolve()})
    except (UnsafeConfigurationError, ValueError) as exc:
        print(f"configuration refused: {exc}", file=sys.stderr)
        return 2
    only = {s.strip() for s in args.only.split(",") if s.strip()} if args.only else None
    policy = RestartPolicy(max_fast_crashes=max(1, args.max_crashes), crash_window_s=args.crash_window)
    try:
        launcher = Launcher(settings, only=only, ephemeral=args.ephemeral, fork=not args.no_fork,
                            policy=policy)
    except LaunchError as exc:
        print(str(exc), file=sys.stderr)
        return 2

    # During start-up a signal interrupts whatever runs; while supervising it only sets the flag, so that it
    # never lands between a fork and the bookkeeping of the new child.
    stop = {"requested": False, "supervising": False}

    def on_signal(signum: int, _frame: Any) -> None:
        stop["requested"] = True
        if not stop["supervising"]:
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        try:
            elapsed = launcher.start(timeout_s=args.timeout)
        except (ProcessDied, TimeoutError, EmbeddingMismatchError) as exc:
            print(f"\nhub failed to start: {exc}", file=sys.stderr)
            return 1
        print(f"\nAgent Hub ready in {elapsed:.1f}s", flush=True)
        for child in launcher.children:
            print(f"  {child.name:<18} {child.url}   (log: {child.log_path})", flush=True)
        backend = next((c for c in launcher.children if c.name == "backend"), None)
        if backend is not None:
            print(f"\n  Open the chat UI: {backend.url}\n", flush=True)
        launcher.watch(ready_timeout_s=args.timeout)  # the status file exists once the ready file does
        if args.ready_file:
            args.ready_file.write_text(json.dumps({"ready_s": elapsed, **launcher.summary()}), encoding="utf-8")
        stop["supervising"] = True
        if stop["requested"]:
            raise KeyboardInterrupt
        if not launcher.supervise(lambda: stop["requested"]):
            print("\nevery process was given up; stopping the hub.", file=sys.stderr, flush=True)
            return 1
        print("\nstopping the hub…", file=sys.stderr, flush=True)
        return 0
    except KeyboardInterrupt:
        print("\nstopping the hub…", file=sys.stderr, flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        launcher.stop()
