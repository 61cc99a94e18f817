"""The launcher starts every hub process, restarts one that dies while the others keep serving, gives up on
one that keeps crashing, and leaves no orphan behind when it is stopped."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import psutil
import psycopg
import pytest

from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.hub.launcher import CARD_PATH, SERVICES
from ai_llm.hub.process import pid_alive
from ai_llm.hub.supervision import status_path

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

T = TypeVar("T")
#: Generous: the machine may be busy; tests wait for behaviour, they do not time it.
WAIT_S = 180.0


@pytest.fixture
def data_dir() -> Iterator[Path]:
    # Outside pytest's tmp root: Postgres runs as the pgserver user there (see tests/conftest.py).
    path = Path(tempfile.mkdtemp(prefix="hub-launcher-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@dataclass
class Hub:
    """A launcher process started by a test, and what it reported."""

    proc: subprocess.Popen[bytes]
    info: dict[str, Any]
    data_dir: Path

    def url(self, name: str) -> str:
        return str(self.info["services"][name]["url"])

    def pid(self, name: str) -> int:
        return int(self.info["services"][name]["pid"])

    def stderr(self) -> str:
        return (self.data_dir / "launcher.err").read_text(errors="replace")

    def status(self) -> dict[str, Any]:
        """The launcher's status file: every supervised process by name."""
        try:
            return dict(json.loads(status_path(self.data_dir).read_text())["processes"])
        except (OSError, ValueError):  # replaced atomically, but it may not exist yet
            return {}

    def wait_until(self, what: str, condition: Callable[[], T | None],
                   meanwhile: Callable[[], None] = lambda: None) -> T:
        """Poll `condition` until it returns something truthy, calling `meanwhile` (assertions) every round."""
        deadline = time.monotonic() + WAIT_S
        while True:
            meanwhile()
            value = condition()
            if value:
                return value
            assert self.proc.poll() is None, f"the launcher exited while waiting for {what}:\n{self.stderr()}"
            if time.monotonic() > deadline:
                pytest.fail(f"{what}: not within {WAIT_S:.0f}s\n{self.stderr()}")
            time.sleep(0.2)

    def process(self, name: str, state: str) -> dict[str, Any] | None:
        """The status file's record of `name` when it is in `state`."""
        record = self.status().get(name)
        return dict(record) if record and record["state"] == state else None

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(60)


def launch(data_dir: Path, *extra: str) -> Hub:
    ready = data_dir / "ready.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "HUB_TOKEN")}
    # Output to files, not pipes: a launcher reporting restarts must never block on a pipe nobody reads.
    with open(data_dir / "launcher.out", "wb") as out, open(data_dir / "launcher.err", "wb") as err:
        proc = subprocess.Popen([sys.executable, "start_agents.py", "--ephemeral", "--data-dir", str(data_dir),
                                 "--ready-file", str(ready), *extra], cwd=PROJECT_ROOT, env=env,
                                stdout=out, stderr=err)
    hub = Hub(proc, {}, data_dir)
    deadline = time.monotonic() + 240
    while not ready.exists():
        if proc.poll() is not None:
            pytest.fail(f"launcher exited early ({proc.returncode}): {hub.stderr()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("hub did not become ready in 240 s")
        time.sleep(0.1)
    time.sleep(0.2)  # the file is written in one call; give the writer a moment to close it
    hub.info = json.loads(ready.read_text())
    return hub


def card_answers(url: str, name: str) -> bool:
    try:
        response = httpx.get(url + CARD_PATH, timeout=10)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and response.json()["name"] == name


def assert_answers(url: str, name: str) -> None:
    assert card_answers(url, name), f"{name} stopped answering"


def postgres_pids(data_dir: Path) -> list[int]:
    pids = []
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        if proc.info["name"] == "postgres" and str(data_dir) in " ".join(proc.info["cmdline"] or []):
            pids.append(proc.pid)
    return pids


def kill_and_wait(pid: int) -> None:
    """SIGKILL `pid` and wait until it is gone (its sockets closed)."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while pid_alive(pid):
        assert time.monotonic() < deadline, f"{pid} survived SIGKILL"
        time.sleep(0.01)


def hold_port(port: int) -> socket.socket:
    """Listen on `port`, so that a process restarted on it fails to bind (a real, repeatable crash).

    A killed server's leader thread turns zombie (what `kill_and_wait` sees) before its other threads have
    exited and its descriptors are closed, so its listening socket can outlive it by a few milliseconds: the
    bind is retried meanwhile (well inside the launcher's 0.5 s before a restart)."""
    deadline = time.monotonic() + 0.3
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past the killed server's TIME_WAITs
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)
            continue
        sock.listen(1)
        return sock


def test_launcher_starts_everything_and_stops_everything(data_dir: Path) -> None:
    hub = launch(data_dir)
    services = hub.info["services"]
    assert set(services) == {s.name for s in SERVICES}
    with httpx.Client(timeout=10) as http:
        for service in SERVICES:
            path = CARD_PATH if service.health_path == CARD_PATH else service.health_path
            response = http.get(services[service.name]["url"] + path)
            assert response.status_code == 200, service.name
            if path == CARD_PATH:
                assert response.json()["name"] == service.name
    pids = [s["pid"] for s in services.values()]
    assert all(pid_alive(pid) for pid in pids)
    assert postgres_pids(data_dir), "the embedded Postgres should be running"
    status = hub.wait_until("the status file", hub.status)
    assert set(status) == {s.name for s in SERVICES} | {"postgres"}
    assert {p["state"] for p in status.values()} == {"running"}
    assert hub.stop() == 0
    assert [pid for pid in pids if pid_alive(pid)] == []
    assert not status_path(data_dir).exists()
    deadline = time.monotonic() + 15
    while postgres_pids(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert postgres_pids(data_dir) == []


@pytest.mark.parametrize("mode", [[], ["--no-fork"]], ids=["forked", "fresh-interpreter"])
def test_a_killed_agent_is_restarted_while_the_others_keep_serving(data_dir: Path, mode: list[str]) -> None:
    hub = launch(data_dir, "--only", "internal_rag,web_research", *mode)
    killed = hub.pid("internal_rag")
    kill_and_wait(killed)

    def internal_rag_is_back() -> dict[str, Any] | None:
        process = hub.process("internal_rag", "running")
        if process and process["pid"] != killed and card_answers(hub.url("internal_rag"), "internal_rag"):
            return process
        return None

    back = hub.wait_until("internal_rag back", internal_rag_is_back,
                          meanwhile=lambda: assert_answers(hub.url("web_research"), "web_research"))
    assert back["restarts"] == 1 and back["last_exit_code"] == -9
    assert hub.status()["web_research"]["restarts"] == 0
    stderr = hub.stderr()
    assert "internal_rag exited with exit code -9 (SIGKILL)" in stderr and "restarting it in" in stderr
    assert f"Last lines of {back['log']}" in stderr
    assert "internal_rag is back" in stderr
    assert hub.proc.poll() is None, "the hub keeps running"

    pids = [back["pid"], hub.pid("web_research")]
    assert hub.stop() == 0
    assert [pid for pid in pids if pid_alive(pid)] == []


def test_an_agent_that_keeps_crashing_is_given_up_and_the_others_keep_serving(data_dir: Path) -> None:
    # A wide crash window: every crash counts, however slowly this machine restarts it.
    hub = launch(data_dir, "--only", "internal_rag,web_research", "--max-crashes", "3",
                 "--crash-window", "3600")
    port = hub.status()["web_research"]["port"]
    kill_and_wait(hub.pid("web_research"))
    with hold_port(port):  # each restart now fails to bind its port
        gave_up = hub.wait_until("web_research given up", lambda: hub.process("web_research", "gave_up"),
                                 meanwhile=lambda: assert_answers(hub.url("internal_rag"), "internal_rag"))
    assert gave_up["restarts"] == 2 and gave_up["pid"] is None  # the kill, then two failed restarts
    stderr = hub.stderr()
    assert "Giving up on web_research: it crashed 3 times in a row" in stderr
    assert f"Its log: {gave_up['log']}" in stderr and "The rest of the hub keeps serving" in stderr
    assert "Address already in use" in stderr  # the log tail says why
    assert card_answers(hub.url("internal_rag"), "internal_rag")
    assert hub.status()["internal_rag"]["state"] == "running"
    assert hub.proc.poll() is None, "the hub stays up, degraded"

    rag_pid = hub.pid("internal_rag")
    assert hub.stop() == 0
    assert not pid_alive(rag_pid)


def test_health_says_restarting_until_the_agent_is_back(data_dir: Path) -> None:
    hub = launch(data_dir, "--only", "web_research,backend", "--max-crashes", "1000", "--crash-window", "3600")
    port = hub.status()["web_research"]["port"]

    def health(state: str) -> dict[str, Any] | None:
        """web_research in /api/health when it has `state`."""
        response = httpx.get(hub.url("backend") + "/api/health", timeout=30)
        assert response.status_code == 200, "the backend stopped answering"
        agent = response.json()["agents"]["web_research"]
        return dict(agent) if agent["state"] == state else None

    assert health("ok")
    kill_and_wait(hub.pid("web_research"))
    with hold_port(port):  # it cannot come back while the port is taken, so "restarting" lasts
        restarting = hub.wait_until("health: restarting", lambda: health("restarting"))
        assert restarting["ok"] is False and restarting["restarts"] >= 1
    back = hub.wait_until("health: ok again", lambda: health("ok"))
    assert back["restarts"] >= 1
    assert card_answers(hub.url("web_research"), "web_research")
    assert back["url"] == hub.url("web_research")

    pids = [hub.status()["web_research"]["pid"], hub.pid("backend")]
    assert hub.stop() == 0
    assert [pid for pid in pids if pid_alive(pid)] == []


def test_a_killed_embedded_postgres_is_restarted(data_dir: Path) -> None:
    hub = launch(data_dir, "--only", "web_research")
    killed = hub.status()["postgres"]["pid"]
    kill_and_wait(killed)

    def database_answers() -> dict[str, Any] | None:
        process = hub.process("postgres", "running")
        if not process or process["pid"] == killed:
            return None
        try:
            with psycopg.connect(hub.info["database_url"], connect_timeout=10) as conn:
                return process if conn.execute("SELECT 1").fetchone() == (1,) else None
        except psycopg.OperationalError:
            return None

    back = hub.wait_until("Postgres back", database_answers,
                          meanwhile=lambda: assert_answers(hub.url("web_research"), "web_research"))
    assert back["restarts"] >= 1  # a restart can fail while the killed server's backends exit
    assert "postgres exited" in hub.stderr() and "postgres is back" in hub.stderr()

    assert hub.stop() == 0
    deadline = time.monotonic() + 15
    while postgres_pids(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert postgres_pids(data_dir) == []


def test_unknown_service_is_refused(data_dir: Path) -> None:
    result = subprocess.run([sys.executable, "start_agents.py", "--only", "nope", "--data-dir", str(data_dir)],
                            cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unknown service" in result.stderr


def test_replicas_start_on_distinct_addresses_and_a_killed_one_is_restarted(data_dir: Path) -> None:
    hub = launch(data_dir, "--only", "internal_rag,web_research", "--replicas", "rag=2")
    urls = hub.info["replicas"]["internal_rag"]
    assert urls == [hub.url("internal_rag"), hub.url("internal_rag-2")]
    hosts = {httpx.URL(u).host for u in urls}
    ports = {httpx.URL(u).port for u in urls}
    assert hosts == {"127.0.0.2", "127.0.0.3"} and len(ports) == 1  # same port, distinct loopback addresses
    for url in urls:
        assert card_answers(url, "internal_rag")
        card = httpx.get(url + CARD_PATH, timeout=10).json()
        assert card["supportedInterfaces"][0]["url"].startswith(url)  # each replica's card names itself
    assert hub.url("web_research").startswith("http://127.0.0.1:")  # an unreplicated agent stays put

    killed = hub.pid("internal_rag-2")
    kill_and_wait(killed)

    def replica_is_back() -> dict[str, Any] | None:
        process = hub.process("internal_rag-2", "running")
        if process and process["pid"] != killed and card_answers(urls[1], "internal_rag"):
            return process
        return None

    back = hub.wait_until("internal_rag-2 back", replica_is_back,
                          meanwhile=lambda: assert_answers(urls[0], "internal_rag"))
    assert back["restarts"] == 1 and back["last_exit_code"] == -9
    assert hub.status()["internal_rag"]["restarts"] == 0
    assert "internal_rag-2 exited with exit code -9 (SIGKILL)" in hub.stderr()
    assert hub.stop() == 0


def test_replicas_of_a_service_that_is_not_an_agent_are_refused(data_dir: Path) -> None:
    result = subprocess.run([sys.executable, "start_agents.py", "--replicas", "backend=2", "--data-dir",
                             str(data_dir)], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--replicas" in result.stderr
