"""Child-process helpers shared by the launcher, the benchmarks and the tests."""

from __future__ import annotations

import os
import runpy
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from ai_llm.common.settings import PROJECT_ROOT


class ProcessDied(RuntimeError):
    """A child exited while we were waiting for it."""


class ForkedProcess:
    """The `subprocess.Popen` surface the launcher uses (`pid`, `poll`, `wait`, `returncode`) for a child
    made with `os.fork`."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -1
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired([str(self.pid)], timeout or 0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode


@dataclass
class Child:
    """A started hub process and where its output goes."""

    name: str
    proc: subprocess.Popen[bytes] | ForkedProcess
    log_path: Path
    url: str | None = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None


def start_module(name: str, module: str, args: list[str], env: Mapping[str, str], log_dir: Path) -> Child:
    """Start `python -m module args…` in its own process group with stdout+stderr to `log_dir/name.log`."""
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
    full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), full_env.get("PYTHONPATH")]))
    with open(log_path, "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", module, *args], env=full_env, cwd=PROJECT_ROOT,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    return Child(name, proc, log_path)


def fork_module(name: str, module: str, args: list[str], env: Mapping[str, str], log_dir: Path) -> Child:
    """Like `start_module`, but fork this process and run the module in the child.

    The launcher imports the agents' libraries once before forking, so each child skips seconds of
    imports (copy-on-write). Call only while this process runs no other threads and no event loop.
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, observed through its log and exit code
        code = 1
        try:
            os.setsid()
            fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            sys.stdout = open(1, "w", buffering=1, closefd=False)
            sys.stderr = open(2, "w", buffering=1, closefd=False)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.environ.update(env)
            os.environ["PYTHONUNBUFFERED"] = "1"
            from ai_llm.common.settings import get_settings

            get_settings.cache_clear()  # the parent's settings were read before this child's environment
            sys.argv = [module, *args]
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    return Child(name, ForkedProcess(pid), log_path)


def wait_http(url: str, child: Child | None = None, timeout_s: float = 60.0, interval_s: float = 0.05,
              headers: Mapping[str, str] | None = None) -> float:
    """Poll `url` until it answers 200; returns seconds waited. Raises if the child dies or time runs out."""
    started = time.perf_counter()
    delay = interval_s
    with httpx.Client(timeout=2.0, headers=dict(headers or {})) as http:
        while True:
            if child is not None and not child.alive:
                raise ProcessDied(f"{child.name} exited with code {child.proc.returncode}:\n{child.log_tail()}")
            try:
                if http.get(url).status_code == 200:
                    return time.perf_counter() - started
            except httpx.HTTPError:
                pass
            if time.perf_counter() - started > timeout_s:
                tail = child.log_tail() if child else ""
                raise TimeoutError(f"{url} did not answer within {timeout_s:.0f}s\n{tail}")
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)


def stop_child(child: Child, grace_s: float = 8.0) -> None:
    """SIGTERM the child's process group, then SIGKILL what is left after `grace_s`."""
    if child.proc.poll() is not None:
        return
    try:
        os.killpg(child.proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        child.proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(child.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.proc.wait(5)


def pid_alive(pid: int) -> bool:
    """True when a process with this pid exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _healthy(base_url: str) -> bool:
    root = base_url[:-3] if base_url.rstrip("/").endswith("/v1") else base_url
    try:
        return httpx.get(root.rstrip("/") + "/healthz", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def embedding_server(url: str | None = None, *, token: str | None = None, log_dir: Path | None = None,
                     env: Mapping[str, str] | None = None, timeout_s: float = 120.0) -> Iterator[str]:
    """The OpenAI-wire base URL (`…/v1`) of a working local embedding server.

    Args:
        url: an embedding server to use when it answers its health check (nothing is started then).
        token: the hub token the started server requires (`HUB_TOKEN`).
        log_dir: where the started server logs (a temporary folder by default).
        env: extra environment of the started server (`EMBEDDING_RUNTIME`, …).
    """
    if url and _healthy(url):
        yield url
        return
    with tempfile.TemporaryDirectory(prefix="hub-embed-") as tmp:
        from ai_llm.common.a2a.server import free_port  # imported when used: the A2A server is heavy

        port = free_port()
        child = start_module("embedding_server", "ai_llm.embedding_server", ["--port", str(port)],
                             {"HUB_TOKEN": token or "", **(env or {})}, log_dir or Path(tmp))
        try:
            wait_http(f"http://127.0.0.1:{port}/healthz", child, timeout_s=timeout_s)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            stop_child(child)
