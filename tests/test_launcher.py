"""The launcher starts every hub process, reports a dying child, and leaves no orphan behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from ai_llm.common.process import pid_alive
from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.launcher import CARD_PATH, SERVICES


@pytest.fixture
def data_dir() -> Iterator[Path]:
    # Outside pytest's tmp root: Postgres runs as the pgserver user there (see tests/conftest.py).
    path = Path(tempfile.mkdtemp(prefix="hub-launcher-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def launch(data_dir: Path, *extra: str) -> tuple[subprocess.Popen[str], dict]:
    ready = data_dir / "ready.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "HUB_TOKEN")}
    proc = subprocess.Popen([sys.executable, "start_agents.py", "--ephemeral", "--data-dir", str(data_dir),
                             "--ready-file", str(ready), *extra], cwd=PROJECT_ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while not ready.exists():
        if proc.poll() is not None:
            pytest.fail(f"launcher exited early ({proc.returncode}): {proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("hub did not become ready in 240 s")
        time.sleep(0.1)
    time.sleep(0.2)  # the file is written in one call; give the writer a moment to close it
    return proc, json.loads(ready.read_text())


def postgres_pids(data_dir: Path) -> list[int]:
    pids = []
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        if proc.info["name"] == "postgres" and str(data_dir) in " ".join(proc.info["cmdline"] or []):
            pids.append(proc.pid)
    return pids


def test_launcher_starts_everything_and_stops_everything(data_dir: Path) -> None:
    proc, info = launch(data_dir)
    services = info["services"]
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
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0
    assert [pid for pid in pids if pid_alive(pid)] == []
    deadline = time.monotonic() + 15
    while postgres_pids(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert postgres_pids(data_dir) == []


@pytest.mark.parametrize("mode", [[], ["--no-fork"]], ids=["forked", "fresh-interpreter"])
def test_a_dying_child_is_reported_and_the_rest_are_stopped(data_dir: Path, mode: list[str]) -> None:
    proc, info = launch(data_dir, "--only", "internal_rag,web_research", *mode)
    services = info["services"]
    assert set(services) == {"internal_rag", "web_research"}
    os.kill(services["web_research"]["pid"], signal.SIGKILL)
    assert proc.wait(60) == 1
    stderr = proc.stderr.read() if proc.stderr else ""
    assert "web_research exited" in stderr and "Last log lines" in stderr
    assert not pid_alive(services["internal_rag"]["pid"])


def test_unknown_service_is_refused(data_dir: Path) -> None:
    result = subprocess.run([sys.executable, "start_agents.py", "--only", "nope", "--data-dir", str(data_dir)],
                            cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unknown service" in result.stderr
