"""`hub bench backend`'s own logic: the question mix, the per-stage breakdown, the profile summary, levels,
CPU accounting."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
import typer

from ai_llm.evals.backend.load import DEFAULT_PDF, load_questions, parse_levels, stage_breakdown
from ai_llm.evals.backend.profile import cpu_seconds, summarize_profile

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

def test_every_level_gets_the_same_mix_of_documents_web_and_hybrid() -> None:
    for n in (10, 50, 100, 200):
        kinds = [kind for kind, _ in load_questions(DEFAULT_PDF, n)]
        assert len(kinds) == n
        assert kinds[:3] == ["documents", "web", "hybrid"]
        assert abs(kinds.count("documents") - n / 3) <= 1 and abs(kinds.count("hybrid") - n / 3) <= 1
    small, large = load_questions(DEFAULT_PDF, 10), load_questions(DEFAULT_PDF, 50)
    assert large[:10] == small  # a larger level asks the smaller level's questions first
    assert all(question.strip() for _, question in large)


def test_levels_are_parsed_and_bounded() -> None:
    assert parse_levels("10,50, 100,200") == [10, 50, 100, 200]
    for bad in ("", "ten", "0", "501", "10,,x"):
        with pytest.raises(typer.BadParameter):
            parse_levels(bad)


def _run(kind: str, first: float, planned: float, done: float, answer: float, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "answered": True, "first_status_ms": first, "planned_ms": planned,
            "steps_done_ms": done, "answer_ms": answer, "error": None, "intent": extra.get("intent", "HYBRID"),
            "steps": extra.get("steps", [])}


def test_stage_breakdown_splits_each_chat_by_its_events() -> None:
    runs = [
        _run("documents", 10, 110, 1110, 1150, intent="INTERNAL_SEARCH",
             steps=[{"agent": "internal_rag", "status": "ok", "elapsed_ms": 900}]),
        _run("web", 20, 220, 2220, 2300, intent="WEB_SEARCH",
             steps=[{"agent": "web_research", "status": "ok", "elapsed_ms": 1900}]),
        {"kind": "hybrid", "answered": False, "first_status_ms": 5, "planned_ms": None, "steps_done_ms": None,
         "answer_ms": None, "error": "boom", "intent": None, "steps": []},
    ]
    stages = stage_breakdown(runs)
    assert stages["to_first_status"]["n"] == 2  # only answered chats count
    assert stages["first_status_to_plan"]["p50"] == 150.0
    assert stages["plan_to_last_step_done"]["p50"] == 1500.0
    assert stages["last_step_done_to_answer"]["p50"] == 60.0
    assert stages["agent_steps"] == {"internal_rag": {"p50": 900.0, "p95": 900.0, "n": 1},
                                     "web_research": {"p50": 1900.0, "p95": 1900.0, "n": 1}}
    assert stages["intents"] == {"INTERNAL_SEARCH": 1, "WEB_SEARCH": 1}
    assert stages["answer_by_kind"]["hybrid"]["n"] == 0


def test_profile_summary_sorts_samples_by_kind_of_work() -> None:
    raw = "\n".join([
        "main (app.py:1);run (asyncio/base_events.py:1);Session.run (onnxruntime/capi/session.py:406) 60",
        "main (app.py:1);run (asyncio/base_events.py:1);execute (psycopg/cursor.py:10) 20",
        "main (app.py:1);run (asyncio/base_events.py:1);EpollSelector.select (selectors.py:468) 15",
        "main (app.py:1);handler (ai_llm/x.py:3) 5",
    ])
    summary = summarize_profile(raw)
    assert summary["samples"] == 100
    assert summary["by_kind"] == {"embedding model": 0.6, "SQL (psycopg)": 0.2,
                                  "waiting (epoll, locks: not CPU)": 0.15, "other": 0.05}
    assert summary["top_leaves"][0] == {"frame": "Session.run (onnxruntime/capi/session.py:406)", "share": 0.6}


def test_postgres_cpu_counts_its_backends() -> None:
    """Postgres works in child processes of its postmaster (one backend per connection): the burst's CPU of
    `postgres` sums them; any other process counts only itself."""
    burn = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\ntime.sleep(30)"
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                               f"subprocess.Popen([sys.executable, '-c', {burn!r}])\ntime.sleep(30)"],
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            as_postgres = cpu_seconds({"postgres": parent.pid})["postgres"]
            if as_postgres >= 0.4:
                break
            time.sleep(0.1)
        assert as_postgres >= 0.4
        assert cpu_seconds({"web_research": parent.pid})["web_research"] < 0.3  # the parent itself idles
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
