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

Replicas (`--replicas rag=2,web=2`): an agent with N > 1 replicas runs as N processes on the same port,
bound to the loopback addresses 127.0.0.2 … 127.0.0.N+1 and named `internal_rag`, `internal_rag-2`, …; each
is supervised on its own. Every child is told the replicas' URLs (`RAG_AGENT_URLS`, …, first replica as
`RAG_AGENT_URL`), and callers that know them (the orchestrator) spread calls over them and eject, for a
cool-down, a replica that refuses or drops connections (`ai_llm.common.a2a.client.RemoteAgent`).
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

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import index_model
from ai_llm.common.heap import freeze_heap
from ai_llm.common.settings import Settings, UnsafeConfigurationError, get_settings
from ai_llm.common.store.db import EmbeddingMismatchError, migrate, start_embedded_postgres
from ai_llm.hub.process import (
    Child,
    ForkedProcess,
    ProcessDied,
    fork_module,
    pid_alive,
    start_module,
    stop_child,
    wait_http,
)
from ai_llm.hub.supervision import RestartPolicy, SupervisedProcess, Supervisor, status_path

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


@dataclass(frozen=True)
class Instance:
    """One process of a service: the service itself, or one of its replicas."""

    service: Service
    replica: int  # 1-based; 1 also when the service is not replicated
    host: str | None  # the loopback address a replica binds (None: HUB_HOST, as every unreplicated process)

    @property
    def name(self) -> str:
        """`internal_rag` for the first (or only) instance, `internal_rag-2`, … for the other replicas."""
        return self.service.name if self.replica == 1 else f"{self.service.name}-{self.replica}"


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


#: Services that may run as several replicas (stateless A2A agents), by the short names `--replicas` takes.
REPLICA_ALIASES = {"orchestrator": "orchestrator", "rag": "internal_rag", "web": "web_research",
                   "file": "file_management", "report": "report_writing"}
#: Agent -> (its `*_URL` setting, its `*_URLS` setting).
URL_SETTINGS = {"orchestrator": ("orchestrator_url", "orchestrator_urls"),
                "web_research": ("web_agent_url", "web_agent_urls"),
                "internal_rag": ("rag_agent_url", "rag_agent_urls"),
                "file_management": ("file_agent_url", "file_agent_urls"),
                "report_writing": ("report_agent_url", "report_agent_urls")}
MAX_REPLICAS = 32


def replica_host(replica: int) -> str:
    """The loopback address of replica `replica` (1-based) of a replicated agent: 127.0.0.2, 127.0.0.3, …"""
    return f"127.0.0.{replica + 1}"


def parse_replicas(raw: str | None) -> dict[str, int]:
    """`rag=2,web=2` (short or full agent names) -> {"internal_rag": 2, "web_research": 2}; clear errors."""
    counts: dict[str, int] = {}
    for item in (raw or "").split(","):
        if not item.strip():
            continue
        name, sep, count = item.partition("=")
        name = name.strip()
        service = REPLICA_ALIASES.get(name) or (name if name in REPLICA_ALIASES.values() else None)
        if not sep or service is None:
            raise LaunchError(f"--replicas: {item.strip()!r} is not AGENT=N; AGENT is one of "
                              + ", ".join(f"{k} ({v})" for k, v in REPLICA_ALIASES.items()))
        try:
            value = int(count)
        except ValueError:
            raise LaunchError(f"--replicas: {item.strip()!r}: N must be a whole number") from None
        if not 1 <= value <= MAX_REPLICAS:
            raise LaunchError(f"--replicas: {item.strip()!r}: N must be between 1 and {MAX_REPLICAS}")
        counts[service] = value
    return counts


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
        replicas: agent name -> number of replicas (see the module docstring; `parse_replicas`).
        freeze_heap: freeze this process's heap after the pre-imports, before forking (`freeze_heap`), so that
            the children's collections never walk, nor copy, the pages they share with it. For a process that
            is the launcher (its command line, a benchmark), not a test that starts a hub in its own process.
    """

    def __init__(self, settings: Settings, only: set[str] | None = None, ephemeral: bool = False,
                 fork: bool = True, policy: RestartPolicy | None = None,
                 replicas: dict[str, int] | None = None, freeze_heap: bool = False) -> None:
        self.settings = settings
        self.freeze_heap = freeze_heap
        self.fork = fork and hasattr(os, "fork")
        self._preloaded: set[str] = set()
        self.only = only
        unknown = (only or set()) - {s.name for s in SERVICES}
        if unknown:
            raise LaunchError(f"unknown service(s) {', '.join(sorted(unknown))}; known: "
                              + ", ".join(s.name for s in SERVICES))
        self.ports = {s.port_setting: (free_port() if ephemeral else getattr(settings, s.port_setting))
                      for s in SERVICES}
        self.replicas = {name: n for name, n in (replicas or {}).items() if n > 1}
        bad = set(self.replicas) - set(REPLICA_ALIASES.values())
        if bad:
            raise LaunchError(f"only the A2A agents can run as replicas, not {', '.join(sorted(bad))}")
        if self.replicas and settings.hub_host not in ("127.0.0.1", "localhost"):
            raise LaunchError(f"replicas bind 127.0.0.2, 127.0.0.3, …; with HUB_HOST={settings.hub_host} run "
                              "one hub per machine and list the replicas in *_AGENT_URLS (docs/deployment.md)")
        self.instances = {i.name: i for s in SERVICES for i in self._instances(s)}
        self.children: list[Child] = []
        self.timings: dict[str, float] = {}
        self._pg_server: Any = None
        self.database_url: str | None = settings.database_url
        self.policy = policy or RestartPolicy()
        self.supervisor: Supervisor | None = None
        self._started_at: dict[str, float] = {}  # time.monotonic() at each process's first start

    def selected(self) -> list[Service]:
        return [s for s in SERVICES if self.only is None or s.name in self.only]

    def _instances(self, service: Service) -> list[Instance]:
        count = self.replicas.get(service.name, 1)
        if count == 1:
            return [Instance(service, 1, None)]
        return [Instance(service, i, replica_host(i)) for i in range(1, count + 1)]

    def selected_instances(self) -> list[Instance]:
        return [i for i in self.instances.values() if self.only is None or i.service.name in self.only]

    def instance_url(self, instance: Instance) -> str:
        return f"http://{instance.host or '127.0.0.1'}:{self.ports[instance.service.port_setting]}"

    def url(self, service: Service) -> str:
        """The URL of the service (of its first replica when it has several)."""
        return self.instance_url(self._instances(service)[0])

    def replica_urls(self) -> dict[str, list[str]]:
        """Replicated agent -> the URLs of its replicas."""
        return {s.name: [self.instance_url(i) for i in self._instances(s)]
                for s in SERVICES if s.name in self.replicas}

    def child_env(self) -> dict[str, str]:
        env = self.settings.child_env()
        for setting, port in self.ports.items():
            env[setting.upper()] = str(port)
        if self.database_url:
            env["DATABASE_URL"] = self.database_url
        for agent, urls in self.replica_urls().items():
            single, many = URL_SETTINGS[agent]
            env[single.upper()], env[many.upper()] = urls[0], ",".join(urls)
        return env

    def _instance_env(self, instance: Instance) -> dict[str, str]:
        """`child_env`, and for a replica its bind address. HUB_HOST also names where the other services are
        (`Settings._url`), so a replica is given every other service's URL explicitly."""
        env = self.child_env()
        if instance.host is None:
            return env
        env["HUB_HOST"] = instance.host
        for agent, (single, _many) in URL_SETTINGS.items():
            service = next(s for s in SERVICES if s.name == agent)
            env.setdefault(single.upper(), self.url(service))
        env.setdefault("SEARCH_GATEWAY_URL", f"http://127.0.0.1:{self.ports['search_gateway_port']}")
        if self.settings.embedding_provider == "local":
            env.setdefault("EMBEDDING_URL", f"http://127.0.0.1:{self.ports['embedding_port']}/v1")
        return env

    def start_database(self) -> None:
        """Start the embedded Postgres (unless DATABASE_URL is set) and apply migrations once."""
        started = time.perf_counter()
        if not self.database_url:
            self._started_at["postgres"] = time.monotonic()
            self._pg_server, self.database_url = start_embedded_postgres(self.settings.pg_dir)
        asyncio.run(migrate(self.database_url, *index_model(self.settings)))
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

    def _spawn(self, instance: Instance) -> Child:
        service = instance.service
        args = ["--port", str(self.ports[service.port_setting])]
        env = self._instance_env(instance)
        if self.fork and service.preload in self._preloaded:
            child = fork_module(instance.name, service.module, args, env, self.settings.logs_dir)
        else:
            child = start_module(instance.name, service.module, args, env, self.settings.logs_dir)
        child.url = self.instance_url(instance)
        return child

    def _start(self, instance: Instance) -> Child:
        self._started_at[instance.name] = time.monotonic()
        child = self._spawn(instance)
        self.children.append(child)
        return child

    def _restart(self, instance: Instance) -> Child:
        """Start `instance` again in place of its exited child (same address, same log, appended to)."""
        index = next(i for i, c in enumerate(self.children) if c.name == instance.name)
        old = self.children[index]
        if all(c.proc.pid != old.proc.pid for c in self.children if c is not old):  # not a reused pid of ours
            try:  # whatever the dead child left in its process group would hold the port or the log
                os.killpg(old.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        with open(old.log_path, "a", encoding="utf-8") as log:
            log.write(f"\n--- restarted by the launcher at {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n")
        child = self._spawn(instance)
        self.children[index] = child
        return child

    def _headers(self) -> dict[str, str] | None:
        return {"Authorization": f"Bearer {self.settings.hub_token}"} if self.settings.hub_token else None

    def _answers(self, instance: Instance) -> bool:
        """One short readiness probe (no connection kept open: the launcher forks children)."""
        try:
            response = httpx.get(self.instance_url(instance) + instance.service.health_path,
                                 headers=self._headers(), timeout=1.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    def _wait(self, instance: Instance, child: Child, started: float, timeout_s: float) -> None:
        wait_http(self.instance_url(instance) + instance.service.health_path, child, timeout_s=timeout_s,
                  headers=self._headers())
        self.timings[instance.name] = time.perf_counter() - started

    def start(self, timeout_s: float = 120.0) -> float:
        """Start every selected service in order; returns seconds until all are ready."""
        t0 = time.perf_counter()
        self.settings.logs_dir.mkdir(parents=True, exist_ok=True)
        self.start_database()
        selected = self.selected_instances()
        background = [(i, self._start(i)) for i in selected if i.service.phase == 0]
        if self.fork:
            self.preload(self.selected())
            if self.freeze_heap:  # the children share the preloaded libraries; their collections leave them be
                freeze_heap()
        for phase in (1, 2, 3):
            instances = [i for i in selected if i.service.phase == phase]
            if not instances:
                continue
            pairs = [(i, self._start(i)) for i in instances]
            with ThreadPoolExecutor(max_workers=len(pairs)) as pool:
                futures = [pool.submit(self._wait, s, c, t0, timeout_s) for s, c in pairs]
                for future in futures:
                    future.result()
        for service, child in background:
            # Cards may answer before the model is warm; the first query then waits for it, not fails.
            self._wait(service, child, t0, timeout_s)
        return time.perf_counter() - t0

    @property
    def postgres_pid(self) -> int | None:
        """The embedded Postgres's postmaster (None with an external `DATABASE_URL`)."""
        return self._pg_server.get_pid() if self._pg_server is not None else None

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
        instance = self.instances[child.name]
        return SupervisedProcess(name=child.name, child=child, spawn=lambda: self._restart(instance),
                                 is_ready=lambda _child: self._answers(instance), log_path=child.log_path,
                                 url=child.url, port=self.ports[instance.service.port_setting],
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

    def child(self, name: str, replica: int | None = None) -> Child:
        """The running process of `name` (`internal_rag`, `rag`, `internal_rag-2`), or of its replica `replica`
        (1-based)."""
        base = REPLICA_ALIASES.get(name, name)
        key = base if replica in (None, 1) else f"{base}-{replica}"
        for child in self.children:
            if child.name == key:
                return child
        raise LaunchError(f"no process {key!r}; running: {', '.join(c.name for c in self.children)}")

    def kill(self, name: str, replica: int | None = None, sig: int = signal.SIGKILL) -> int:
        """Send `sig` (default SIGKILL) to one process, by name or replica index (see `child`); returns its pid.

        Under `supervise` the launcher restarts it like any crash; without supervision (a launcher used only
        for `start`, as the benchmarks do) it stays down, and callers go on with the other replicas."""
        child = self.child(name, replica)
        os.kill(child.proc.pid, sig)
        return child.proc.pid

    def restart(self, name: str, replica: int | None = None, timeout_s: float = 120.0) -> Child:
        """Start one process again (after `kill`, or in place of a running one, which is killed first) at the
        same address, and wait until it answers; for a launcher used without `supervise`."""
        old = self.child(name, replica)
        instance = self.instances[old.name]
        if old.alive:
            os.kill(old.proc.pid, signal.SIGKILL)
            old.proc.wait(timeout=10)
        child = self._restart(instance)
        self._wait(instance, child, time.perf_counter(), timeout_s)
        return child

    def summary(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "services": {c.name: {"url": c.url, "pid": c.proc.pid, "log": str(c.log_path)} for c in self.children},
            "replicas": self.replica_urls(),
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
    parser.add_argument("--replicas", help="run agents as several replicas, e.g. rag=2,web=2 (agents: "
                        + ", ".join(REPLICA_ALIASES) + "); replica k binds 127.0.0.<k+1>, same port")
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
                            policy=policy, replicas=parse_replicas(args.replicas), freeze_heap=True)
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
