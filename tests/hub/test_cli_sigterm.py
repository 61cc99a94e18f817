"""A `hub` command stopped with SIGTERM cleans up what it started: `hub eval rag` runs an embedded Postgres
and an embedding server in a temporary folder, and a SIGTERM used to kill the command with both left running
and the folder left behind. It now exits with 143 after its cleanup ran."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ai_llm.hub.process import pid_alive


def test_a_sigterm_stops_the_evaluations_postgres_and_removes_its_folder(tmp_path: Path) -> None:
    docs, scratch = tmp_path / "docs", tmp_path / "tmp"
    docs.mkdir()
    scratch.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe review takes three days.\n", encoding="utf-8")
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "q1", "file": "guide.md", "question": "How long does the review take?",
                              "answer": "three days", "pages": [1]}) + "\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "ai_llm.hub.cli", "eval", "rag", "--docs", str(docs),
                             "--qa", str(qa), "--json"], env={**os.environ, "TMPDIR": str(scratch)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    postmaster = 0
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not postmaster and proc.poll() is None:
            for pid_file in scratch.glob("hub-rag-*/pg/postmaster.pid"):
                first = pid_file.read_text().split()[:1]  # empty while the server is still writing it
                postmaster = int(first[0]) if first and first[0].isdigit() else 0
            time.sleep(0.2)
        assert postmaster, "the evaluation never started its Postgres"
        assert pid_alive(postmaster)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 128 + signal.SIGTERM
        for _ in range(100):
            if not pid_alive(postmaster):
                break
            time.sleep(0.1)
        assert not pid_alive(postmaster), "the embedded Postgres outlived the command"
        assert not list(scratch.glob("hub-rag-*")), "the temporary folder was left behind"
    finally:
        if proc.poll() is None:
            proc.kill()
        if postmaster and pid_alive(postmaster):  # what a failing run left: stopped, not left to later tests
            os.kill(postmaster, signal.SIGINT)
