"""Supervision of the hub's processes: the restart policy, each process's state, and the hub status file.

The launcher keeps every process it started running: one that exits while the hub runs (any exit code, any
signal) is restarted after an exponential back-off; one that keeps crashing soon after each start is given
up, and the rest of the hub keeps serving without it.

The state of every supervised process is written to `DATA_DIR/run/hub-status.json` (atomically: a
temporary file renamed over the old one), which the backend's `/api/health` reads to tell an agent that is
being restarted from one that is down. A file rather than an HTTP endpoint, because the launcher forks its
children and must run no other thread while it does (a server would need one), because a file needs no
port, no Host/Origin/token checks of its own, and because a reader tells a stale file from a live one by the
launcher's pid.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from ai_llm.hub.process import Child, pid_alive, stop_child

#: running: started and answering; restarting: exited, waiting out its back-off or started again but not
#: answering yet; gave_up: crashed too often, too soon after each start; no longer restarted.
ProcessState = Literal["running", "restarting", "gave_up"]

STATUS_FILE = "hub-status.json"


@dataclass(frozen=True)
class RestartPolicy:
    """When to restart a process that exited, and when to give up on it.

    Args:
        initial_backoff_s: wait before the first restart after a crash.
        max_backoff_s: the longest wait; the wait doubles with every fast crash in a row up to this.
        crash_window_s: an exit this soon after a start (or before the process ever answered) is a fast crash;
            an exit after a longer run starts the count again.
        max_fast_crashes: fast crashes in a row after which the process is given up.
    """

    initial_backoff_s: float = 0.5
    max_backoff_s: float = 10.0
    crash_window_s: float = 30.0
    max_fast_crashes: int = 5

    def backoff_s(self, fast_crashes: int) -> float:
        """Seconds to wait before the next start after `fast_crashes` fast crashes in a row."""
        return min(self.initial_backoff_s * 2 ** max(0, fast_crashes - 1), self.max_backoff_s)


class ProcessStatus(BaseModel):
    """One supervised process, as written to the status file."""

    name: str
    state: ProcessState
    pid: int | None
    since: float  # Unix time at which it entered `state`
    restarts: int
    port: int | None = None
    url: str | None = None
    log: str
    last_exit_code: int | None = None


class HubStatus(BaseModel):
    """The status file: which launcher wrote it, and every process it supervises."""

    launcher_pid: int
    updated: float
    processes: dict[str, ProcessStatus]


def status_path(data_dir: Path) -> Path:
    """Where the launcher of the hub that uses `data_dir` writes its status."""
    return data_dir / "run" / STATUS_FILE


def write_hub_status(path: Path, status: HubStatus) -> None:
    """Write `status` so that a reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(status.model_dump_json(indent=1), encoding="utf-8")
    os.replace(tmp, path)


def read_hub_status(data_dir: Path) -> HubStatus | None:
    """The status written by the launcher supervising this hub; None when there is none or it has gone."""
    try:
        status = HubStatus.model_validate(json.loads(status_path(data_dir).read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return None
    return status if pid_alive(status.launcher_pid) else None


def describe_exit(code: int | None) -> str:
    """`exit code 1`, `exit code -9 (SIGKILL)`, or `an unknown exit status`."""
    if code is None:
        return "an unknown exit status"
    if code < 0:
        try:
            return f"exit code {code} ({signal.Signals(-code).name})"
        except ValueError:
            pass
    return f"exit code {code}"


@dataclass
class SupervisedProcess:
    """A process the launcher keeps running, and how to start it again.

    Args:
        name: the process's name (`internal_rag`, `postgres`, …).
        child: the running instance (None while waiting to restart, or given up).
        spawn: starts a new instance; raising counts as a crash.
        is_ready: one quick readiness check of an instance (its card or health route answers).
        log_path: where the process writes its log (also named when it is given up).
        stop: stops an instance that never became ready.
    """

    name: str
    child: Child | None
    spawn: Callable[[], Child]
    is_ready: Callable[[Child], bool]
    log_path: Path
    url: str | None = None
    port: int | None = None
    stop: Callable[[Child], None] = stop_child
    state: ProcessState = "running"
    restarts: int = 0
    fast_crashes: int = 0
    last_exit_code: int | None = None
    started_at: float = field(default_factory=time.monotonic)
    ready: bool = True
    retry_at: float = 0.0
    since: float = field(default_factory=time.time)

    def status(self) -> ProcessStatus:
        pid = self.child.proc.pid if self.child else None
        return ProcessStatus(name=self.name, state=self.state, pid=pid, since=self.since, restarts=self.restarts,
                             port=self.port, url=self.url, log=str(self.log_path),
                             last_exit_code=self.last_exit_code)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Supervisor:
    """Restarts the processes that exit, gives up on those that keep crashing, and writes the status file.

    Single-threaded: `tick` is called in a loop by the launcher's main thread, which is also the only thread
    that may fork a new child.

    Args:
        processes: the processes to keep running, all running when supervision starts.
        policy: back-off and give-up rules.
        ready_timeout_s: a restarted instance that does not answer within this is stopped (a fast crash).
        status_file: where to write the status (None: nowhere).
        report: where restart and give-up messages go (default: stderr).
    """

    def __init__(self, processes: list[SupervisedProcess], policy: RestartPolicy | None = None,
                 ready_timeout_s: float = 180.0, status_file: Path | None = None,
                 report: Callable[[str], None] = _stderr) -> None:
        self.processes = {p.name: p for p in processes}
        self.policy = policy or RestartPolicy()
        self.ready_timeout_s = ready_timeout_s
        self.status_file = status_file
        self.report = report

    def tick(self, stopping: Callable[[], bool] = lambda: False) -> None:
        """Check every process once: note exits, start what is due, mark what answers again."""
        changed = False
        for process in self.processes.values():
            if stopping():
                return  # a restart now would only be stopped again
            changed = self._step(process) or changed
        if changed:
            self.write_status()

    def all_gave_up(self) -> bool:
        return bool(self.processes) and all(p.state == "gave_up" for p in self.processes.values())

    def write_status(self) -> None:
        if self.status_file is None:
            return
        write_hub_status(self.status_file, HubStatus(
            launcher_pid=os.getpid(), updated=time.time(),
            processes={name: p.status() for name, p in self.processes.items()}))

    def remove_status(self) -> None:
        if self.status_file is not None:
            self.status_file.unlink(missing_ok=True)

    def _step(self, process: SupervisedProcess) -> bool:
        """Advance one process's state; True when it changed."""
        if process.state == "gave_up":
            return False
        now = time.monotonic()
        child = process.child
        if child is None:
            if now < process.retry_at:
                return False
            self._start_again(process, now)
            return True
        if not child.alive:
            self._on_exit(process, child, now)
            return True
        if process.ready:
            return False
        if process.is_ready(child):
            process.ready = True
            process.state = "running"
            process.since = time.time()
            self.report(f"{process.name} is back (pid {child.proc.pid}, restart {process.restarts}).")
            return True
        if now - process.started_at > self.ready_timeout_s:
            self.report(f"{process.name} did not answer within {self.ready_timeout_s:.0f}s of its restart; "
                        "stopping it.")
            process.stop(child)
            self._on_exit(process, child, now)
            return True
        return False

    def _on_exit(self, process: SupervisedProcess, child: Child, now: float) -> None:
        lived_s = now - process.started_at
        # A process that is not our child (the embedded Postgres's postmaster) has no exit status to read.
        code = child.proc.returncode if getattr(child.proc, "exit_status_known", True) else None
        self._crashed(process, now, f"{process.name} exited with {describe_exit(code)} after {lived_s:.1f}s",
                      fast=not process.ready or lived_s < self.policy.crash_window_s, code=code,
                      tail=child.log_tail())

    def _start_again(self, process: SupervisedProcess, now: float) -> None:
        process.restarts += 1
        process.started_at = now
        process.ready = False
        try:
            process.child = process.spawn()
        except Exception as exc:  # any failure to start is a crash of this process, not of the launcher
            process.child = None
            self._crashed(process, now, f"{process.name} could not be started again ({exc})", fast=True,
                          code=None, tail="")

    def _crashed(self, process: SupervisedProcess, now: float, what: str, *, fast: bool, code: int | None,
                 tail: str) -> None:
        process.child = None
        process.last_exit_code = code
        process.fast_crashes = process.fast_crashes + 1 if fast else 0
        process.since = time.time()
        tail_text = f" Last lines of {process.log_path}:\n{tail}" if tail else ""
        if process.fast_crashes >= self.policy.max_fast_crashes:
            process.state = "gave_up"
            self.report(
                f"{what}.{tail_text}\nGiving up on {process.name}: it crashed {process.fast_crashes} times "
                f"in a row, each within {self.policy.crash_window_s:.0f}s of its start. Its log: "
                f"{process.log_path}. The rest of the hub keeps serving without it.")
            return
        delay = self.policy.backoff_s(process.fast_crashes)
        process.state = "restarting"
        process.retry_at = now + delay
        self.report(f"{what}; restarting it in {delay:.1f}s (restart {process.restarts + 1}).{tail_text}")
