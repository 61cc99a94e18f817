"""Silent fallbacks are counted: replies carry `degraded`, evaluations count degraded items, logs warn once."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from ai_llm.common import degraded
from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import (
    AgentRequest,
    HubAgentExecutor,
    Progress,
    bind_socket,
    build_agent_app,
    make_card,
    serve_app,
)
from ai_llm.common.degraded import add_degraded, collect_degraded, note_degraded
from ai_llm.common.settings import Settings
from ai_llm.evals.rag.evaluation import evaluate, rag_environment
from ai_llm.internal_rag_agent.indexing_service import DocumentInput

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

def test_fallbacks_are_collected_per_request_and_nested_collections_feed_the_outer_one() -> None:
    note_degraded("outside-any-request")  # no collection open: only logged, never an error
    with collect_degraded() as outer:
        note_degraded("embeddings", "connection refused")
        with collect_degraded() as inner:
            add_degraded(["semantic_cache", "", 3])  # type: ignore[list-item]
        assert inner == {"semantic_cache"}
    assert outer == {"embeddings", "semantic_cache"}
    with collect_degraded() as fresh:
        pass
    assert fresh == set()


async def test_concurrent_requests_do_not_share_their_fallbacks() -> None:
    async def request(name: str | None) -> set[str]:
        with collect_degraded() as found:
            await asyncio.sleep(0.01)
            if name:
                note_degraded(name)
            await asyncio.sleep(0.01)
        return found

    assert await asyncio.gather(request("a"), request(None), request("b")) == [{"a"}, set(), {"b"}]


def test_the_log_warns_once_per_cool_down(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(degraded, "_last_warned", {})
    with caplog.at_level(logging.WARNING, logger="ai_llm.common.degraded"):
        for _ in range(5):
            note_degraded("embeddings", "down")
        monkeypatch.setattr(degraded, "WARN_COOLDOWN_S", 0.0)
        note_degraded("embeddings", "still down")
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == ["degraded: embeddings skipped"] * 2


async def test_an_a2a_reply_names_what_its_request_skipped() -> None:
    async def handler(request: AgentRequest, progress: Progress) -> AgentReply:
        if "fallback" in request.text:
            note_degraded("embeddings", "test")
        return AgentReply(text="ok", data={"status": "ok"})

    sock = bind_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    card = make_card("probe", "test agent", url, [{"id": "echo", "description": "echo"}])
    server = asyncio.create_task(serve_app(build_agent_app(card, HubAgentExecutor("probe", handler)), sock))
    try:
        agent = RemoteAgent(url)
        assert (await agent.ask("with fallback")).data["degraded"] == ["embeddings"]
        assert "degraded" not in (await agent.ask("plain")).data
    finally:
        server.cancel()


async def test_rag_eval_with_the_embedding_server_stopped_mid_run_reports_degraded_items(tmp_path: Path) -> None:
    base = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    doc = tmp_path / "policy.txt"
    doc.write_text("Travel policy. Employees book economy class for flights shorter than six hours. "
                   "Hotel costs are reimbursed up to 120 dollars per night.", encoding="utf-8")
    qa = [{"id": "q1", "file": "policy.txt", "question": "How much is reimbursed per hotel night?",
           "answer": "120 dollars", "pages": [1]},
          {"id": "q2", "file": "policy.txt", "question": "Which class do employees fly on short flights?",
           "answer": "economy class", "pages": [1]}]
    async with rag_environment(base, tmp_path / "env") as env:
        [indexed] = await env.agent.indexing.index_many([DocumentInput(storage_ref="policy.txt",
                                                                       file_name="policy.txt", path=str(doc))])
        assert indexed.status == "success"
        before = await evaluate(env.agent, qa[:1], details=True)
        assert before["degraded_items"] == 0
        assert env.stop_embedding_server is not None
        env.stop_embedding_server()  # the embedding server dies in the middle of the evaluation
        after = await evaluate(env.agent, qa[1:], details=True)
    # The question was still answered (keyword search), and the figure says it ran without embeddings.
    assert after["degraded_items"] == 1 and after["degraded"] == ["embeddings"]
    assert after["items"][0]["degraded"] == ["embeddings"]
    assert after["items"][0]["status"] == "ok" and after["page_recall"] == 1.0
