"""The restart policy and the hub status file (the launcher's use of them runs in tests/hub/test_launcher.py)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from ai_llm.hub.supervision import (
    HubStatus,
    ProcessStatus,
    RestartPolicy,
    describe_exit,
    read_hub_status,
    status_path,
    write_hub_status,
)


def test_back_off_doubles_from_half_a_second_up_to_ten() -> None:
    policy = RestartPolicy()
    assert [policy.backoff_s(n) for n in range(8)] == [0.5, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_exit_descriptions_name_the_signal() -> None:
    assert describe_exit(-9) == "exit code -9 (SIGKILL)"
    assert describe_exit(1) == "exit code 1"
    assert describe_exit(None) == "an unknown exit status"


def status(launcher_pid: int) -> HubStatus:
    rag = ProcessStatus(name="internal_rag", state="restarting", pid=None, since=time.time(), restarts=1,
                        port=10012, url="http://127.0.0.1:10012", log="/logs/internal_rag.log", last_exit_code=-9)
    return HubStatus(launcher_pid=launcher_pid, updated=time.time(), processes={"internal_rag": rag})


def test_status_file_round_trips_and_replaces_the_old_one_whole(tmp_path: Path) -> None:
    assert read_hub_status(tmp_path) is None
    write_hub_status(status_path(tmp_path), status(os.getpid()))
    write_hub_status(status_path(tmp_path), status(os.getpid()))
    read = read_hub_status(tmp_path)
    assert read is not None and read.processes["internal_rag"].state == "restarting"
    assert [p.name for p in status_path(tmp_path).parent.iterdir()] == ["hub-status.json"]  # no temporary left


def test_a_status_file_whose_launcher_is_gone_or_that_is_garbage_is_ignored(tmp_path: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    write_hub_status(status_path(tmp_path), status(gone.pid))
    assert read_hub_status(tmp_path) is None
    status_path(tmp_path).write_text("{not json")
    assert read_hub_status(tmp_path) is None
