"""`ai_llm.evals.hub_control` over a real supervised hub: two replicas of the real RAG agent, one killed with SIGKILL in
the middle of a series of A2A calls. Behaviour only: no durations are asserted."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.evals.hub_control import HubProcess, process_name, replicas_arg, start_hub

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

WAIT_S = 180.0


@pytest.fixture
def hub() -> Iterator[HubProcess]:
    # Outside pytest's tmp root: Postgres runs as the pgserver user there (see tests/conftest.py).
    data_dir = Path(tempfile.mkdtemp(prefix="hub-control-"))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "HUB_TOKEN")}
    running = start_hub(data_dir, replicas={"rag": 2}, only=["internal_rag"], env=env)
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def test_names_and_the_replicas_option() -> None:
    assert process_name("rag") == "internal_rag" and process_name("rag", 1) == "internal_rag"
    assert process_name("rag", 2) == "internal_rag-2" and process_name("web_research", 3) == "web_research-3"
    assert replicas_arg({"rag": 2, "web": 2}) == "rag=2,web=2" and replicas_arg("rag=3") == "rag=3"


async def test_a_killed_rag_replica_costs_no_failed_call_and_is_back_after_its_restart(hub: HubProcess) -> None:
    urls = hub.replica_urls("rag")
    assert [httpx.URL(u).host for u in urls] == ["127.0.0.2", "127.0.0.3"]
    assert urls == [hub.url("rag"), hub.url("rag", replica=2)]
    agent = RemoteAgent(urls, name="internal_rag", timeout_s=120, eject_s=0.5)
    question = "what do the documents say about the budget?"

    replies = [await agent.ask(question) for _ in range(2)]
    assert [h["calls"] for h in agent.health()] == [1, 1]  # both replicas answered

    in_flight = [asyncio.create_task(agent.ask(question)) for _ in range(4)]
    killed = await asyncio.to_thread(hub.kill, "rag", 1)  # SIGKILL while the calls run
    replies += await asyncio.gather(*in_flight)
    replies += [await agent.ask(question) for _ in range(4)]
    assert len(replies) == 10
    assert all(r.state == "completed" and r.data.get("status") in ("ok", "no_result") for r in replies)

    record = await asyncio.to_thread(hub.wait_running, "rag", 1, not_pid=killed, timeout_s=WAIT_S)
    assert record["restarts"] == 1 and record["last_exit_code"] == -9
    calls_before = agent.health()[0]["calls"]
    deadline = time.monotonic() + WAIT_S
    while agent.health()[0]["calls"] == calls_before:  # the restarted replica is in the rotation again
        assert time.monotonic() < deadline, f"the restarted replica got no call: {agent.health()}"
        assert (await agent.ask(question)).state == "completed"
        await asyncio.sleep(0.2)
    assert agent.health()[0]["failures"] == 0
