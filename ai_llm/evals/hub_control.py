"""Start a supervised hub in a child process and act on it: for load runs and tests with real processes.

    from ai_llm.evals.hub_control import start_hub

    with start_hub(data_dir, replicas={"rag": 2, "web": 2}) as hub:
        backend = hub.url("backend")
        ...                                # run the load
        pid = hub.kill("rag", replica=2)    # SIGKILL one replica mid-run
        hub.wait_running("rag", replica=2, not_pid=pid)  # the launcher restarted it

The hub is `start_agents.py` (the same launcher as `hub up`), so what is killed is restarted with back-off
exactly as in production, and calls meanwhile go to the other replicas. Its output goes to
`data_dir/launcher.out` and `data_dir/launcher.err`; the launcher's status file (`ai_llm.hub.supervision`) says
which pid serves each process now.

Without supervision (a `Launcher` used in-process, as `ai_llm/evals/backend/hub.py` does), `Launcher(…, replicas=
{"internal_rag": 2})` and `Launcher.kill(name, replica)` do the same, and the killed replica stays down.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.hub.launcher import REPLICA_ALIASES
from ai_llm.hub.supervision import status_path


class HubError(RuntimeError):
    """The hub did not start, or a process did not reach the asked state in time."""


def process_name(name: str, replica: int | None = None) -> str:
    """The launcher's name of a process: `rag` / `internal_rag` -> `internal_rag`; replica 2 -> `internal_rag-2`."""
    base = REPLICA_ALIASES.get(name, name)
    return base if replica in (None, 1) else f"{base}-{replica}"


def replicas_arg(replicas: Mapping[str, int] | str | None) -> str:
    """`{"rag": 2, "web": 2}` -> `rag=2,web=2` (a string passes through)."""
    if replicas is None or isinstance(replicas, str):
        return replicas or ""
    return ",".join(f"{name}={count}" for name, count in replicas.items())


@dataclass
class HubProcess:
    """A running launcher (`start_agents.py`) and what it reported when ready."""

    proc: subprocess.Popen[bytes]
    data_dir: Path
    info: dict[str, Any] = field(default_factory=dict)

    def __enter__(self) -> HubProcess:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def url(self, name: str, replica: int | None = None) -> str:
        """Base URL of a process (`backend`, `rag`, `internal_rag-2`, or `rag` with `replica=2`)."""
        return str(self.info["services"][process_name(name, replica)]["url"])

    def replica_urls(self, name: str) -> list[str]:
        """The URLs of every replica of an agent (one URL when it runs once)."""
        agent = REPLICA_ALIASES.get(name, name)
        return list(self.info.get("replicas", {}).get(agent) or [self.url(agent)])

    def status(self) -> dict[str, dict[str, Any]]:
        """The launcher's status file: every supervised process by name (state, pid, restarts, …)."""
        try:
            return dict(json.loads(status_path(self.data_dir).read_text(encoding="utf-8"))["processes"])
        except (OSError, ValueError, KeyError):  # replaced atomically, but it may not exist yet
            return {}

    def pid(self, name: str, replica: int | None = None) -> int | None:
        """The pid serving the process now (None while it is being restarted)."""
        key = process_name(name, replica)
        record = self.status().get(key)
        if record is not None:
            return int(record["pid"]) if record.get("pid") else None
        return int(self.info["services"][key]["pid"])

    def kill(self, name: str, replica: int | None = None, sig: int = signal.SIGKILL) -> int:
        """Send `sig` (default SIGKILL) to one process, e.g. `kill("rag", replica=2)`; returns the pid killed."""
        pid = self.pid(name, replica)
        if pid is None:
            raise HubError(f"{process_name(name, replica)} has no running process to kill")
        os.kill(pid, sig)
        return pid

    def wait_running(self, name: str, replica: int | None = None, *, not_pid: int | None = None,
                     timeout_s: float = 180.0) -> dict[str, Any]:
        """Wait until the launcher reports the process running (and, with `not_pid`, as a new process)."""
        key = process_name(name, replica)
        deadline = time.monotonic() + timeout_s
        while True:
            record = self.status().get(key)
            if record and record["state"] == "running" and record.get("pid") and record["pid"] != not_pid:
                return record
            if self.proc.poll() is not None:
                raise HubError(f"the launcher exited ({self.proc.returncode}) while waiting for {key}:\n"
                               + self.stderr()[-3000:])
            if time.monotonic() > deadline:
                raise HubError(f"{key} was not running again within {timeout_s:.0f}s (status: {record})")
            time.sleep(0.1)

    def stderr(self) -> str:
        try:
            return (self.data_dir / "launcher.err").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def stop(self, timeout_s: float = 60.0) -> int | None:
        """SIGTERM the launcher (it stops every process it started); SIGKILL its group after `timeout_s`."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        return self.proc.returncode


def start_hub(data_dir: Path, *, replicas: Mapping[str, int] | str | None = None,
              only: Sequence[str] | None = None, ephemeral: bool = True, env: Mapping[str, str] | None = None,
              extra_args: Sequence[str] = (), timeout_s: float = 300.0) -> HubProcess:
    """Start `start_agents.py` in its own process group and wait until every process answers.

    Args:
        data_dir: the hub's data directory (embedded Postgres, files, logs, status file, launcher output).
        replicas: agent -> replicas, e.g. `{"rag": 2, "web": 2}` or `"rag=2,web=2"`.
        only: the services to start (default: all).
        ephemeral: free ports instead of the configured ones.
        env: environment of the launcher (default: this process's), e.g. offline settings; its children get it.
        extra_args: more launcher options (`--max-crashes`, `--no-fork`, …).
        timeout_s: how long the whole start may take.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    ready = data_dir / "ready.json"
    ready.unlink(missing_ok=True)
    cmd = [sys.executable, str(PROJECT_ROOT / "start_agents.py"), "--data-dir", str(data_dir),
           "--ready-file", str(ready), "--timeout", str(timeout_s)]
    if ephemeral:
        cmd.append("--ephemeral")
    if replicas:
        cmd += ["--replicas", replicas_arg(replicas)]
    if only:
        cmd += ["--only", ",".join(only)]
    cmd += list(extra_args)
    # Output to files, not pipes: a launcher reporting restarts must never block on a pipe nobody reads.
    with open(data_dir / "launcher.out", "wb") as out, open(data_dir / "launcher.err", "wb") as err:
        proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=dict(os.environ if env is None else env),
                                stdout=out, stderr=err, start_new_session=True)
    hub = HubProcess(proc, data_dir)
    deadline = time.monotonic() + timeout_s
    while not ready.exists():
        if proc.poll() is not None:
            raise HubError(f"the launcher exited ({proc.returncode}) before the hub was ready:\n"
                           + hub.stderr()[-3000:])
        if time.monotonic() > deadline:
            hub.stop()
            raise HubError(f"the hub was not ready within {timeout_s:.0f}s:\n" + hub.stderr()[-3000:])
        time.sleep(0.1)
    for _ in range(50):  # written in one call; read it once it parses
        try:
            hub.info = json.loads(ready.read_text(encoding="utf-8"))
            break
        except ValueError:
            time.sleep(0.1)
    return hub
