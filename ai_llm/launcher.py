"""The hub launcher (`python start_agents.py` / `hub up`).

Order: the embedded Postgres (once, in this process; migrated) → the embedding server (loads its model
in the background) → the search gateway and the four remote agents in parallel → the orchestrator →
the backend. Readiness is polled (agent cards, health routes), never slept for. A child that dies is
reported with its log tail and every other child is stopped; Ctrl-C / SIGTERM stops them all.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai_llm.common.a2a_server import free_port
from ai_llm.common.db import EmbeddingMismatchError, migrate, start_embedded_postgres
from ai_llm.common.embeddings import KNOWN_DIMENSIONS
from ai_llm.common.process import Child, ProcessDied, fork_module, start_module, stop_child, wait_http
from ai_llm.common.settings import Settings, UnsafeConfigurationError, get_settings

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


class Launcher:
    """Starts and supervises the hub's processes.

    Args:
        settings: hub settings (ports, data dir, …).
        only: names of services to start (default: all).
        ephemeral: pick free ports instead of the configured ones (benchmarks, tests).
    """

    def __init__(self, settings: Settings, only: set[str] | None = None, ephemeral: bool = False,
                 fork: bool = True) -> None:
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

    def _start(self, service: Service) -> Child:
        args = ["--port", str(self.ports[service.port_setting])]
        if self.fork and service.preload in self._preloaded:
            child = fork_module(service.name, service.module, args, self.child_env(), self.settings.logs_dir)
        else:
            child = start_module(service.name, service.module, args, self.child_env(), self.settings.logs_dir)
        child.url = self.url(service)
        self.children.append(child)
        return child

    def _wait(self, service: Service, child: Child, started: float, timeout_s: float) -> None:
        headers = {"Authorization": f"Bearer {self.settings.hub_token}"} if self.settings.hub_token else None
        wait_http(self.url(service) + service.health_path, child, timeout_s=timeout_s, headers=headers)
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

    def check_children(self) -> Child | None:
        """The first child that has exited, if any."""
        return next((c for c in self.children if not c.alive), None)

    def stop(self) -> None:
        """Stop every child (reverse order), then the embedded Postgres."""
        for child in reversed(self.children):
            stop_child(child)
        if self._pg_server is not None:
            self._pg_server.cleanup()
            self._pg_server = None

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
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for each phase")
    parser.add_argument("--no-fork", action="store_true",
                        help="start every process with a fresh interpreter instead of forking after pre-importing")
    args = parser.parse_args(argv)
    try:
        settings = get_settings()
        if args.data_dir:
            settings = settings.model_copy(update={"data_dir": args.data_dir.resolve()})
    except (UnsafeConfigurationError, ValueError) as exc:
        print(f"configuration refused: {exc}", file=sys.stderr)
        return 2
    only = {s.strip() for s in args.only.split(",") if s.strip()} if args.only else None
    try:
        launcher = Launcher(settings, only=only, ephemeral=args.ephemeral, fork=not args.no_fork)
    except LaunchError as exc:
        print(str(exc), file=sys.stderr)
        return 2

    stopping = {"flag": False}

    def on_signal(signum: int, _frame: Any) -> None:
        stopping["flag"] = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
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
        if args.ready_file:
            args.ready_file.write_text(json.dumps({"ready_s": elapsed, **launcher.summary()}), encoding="utf-8")
        while True:
            dead = launcher.check_children()
            if dead is not None:
                print(f"\n{dead.name} exited with code {dead.proc.returncode}; stopping the hub. Last log lines:\n"
                      f"{dead.log_tail()}", file=sys.stderr, flush=True)
                return 1
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("\nstopping the hub…", file=sys.stderr, flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        launcher.stop()
