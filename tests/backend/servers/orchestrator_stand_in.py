"""A small real A2A agent standing in for the orchestrator in the backend's tests.

It runs as its own process (`python -m tests.backend.servers.orchestrator_stand_in --port N`) on the hub's
A2A plumbing and answers with the orchestrator's reply shape (docs/contracts.md "Orchestrator reply data"),
so the backend's relay is tested over real HTTP without depending on the planner's behaviour.

Message conventions:
* `explode` in the text: the handler raises (a failed A2A task).
* `gate:<path>` in the text: after the first status event, wait until `<path>` exists (lets a test prove
  that status events reach the browser before the answer is computed).
* `hold:<path>` in the text: before anything (no status event either), write `<path>.holding` and wait until
  `<path>` exists; when the task is cancelled meanwhile, write `<path>.cancelled` (lets a test see the A2A
  task stop; `.holding` tells it the handler runs, which is later than the task's first appearance).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from starlette.applications import Starlette

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.runtime import HubDeps, run_agent

FILE_ID = "3f2c8a61-0b7e-4c1d-9a55-5b0d2c7e9f10"


def create_app(deps: HubDeps, url: str) -> Starlette:
    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        hold = re.search(r"hold:(\S+)", request.text)
        if hold:
            path = Path(hold.group(1))
            path.with_name(path.name + ".holding").write_text(request.context_id)
            try:
                for _ in range(1200):
                    if await asyncio.to_thread(path.exists):
                        break
                    await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                path.with_name(path.name + ".cancelled").write_text(request.context_id)
                raise
        # Like the real orchestrator: its own planning line first (the backend has sent that line already).
        await progress("🧭 요청을 분석하고 실행 계획을 세우는 중…", stage="planning", progress=0.05)
        await progress("📋 요청을 분석하는 중…", stage="plan", progress=0.1)
        gate = re.search(r"gate:(\S+)", request.text)
        if gate:
            path = Path(gate.group(1))
            for _ in range(600):
                if await asyncio.to_thread(path.exists):
                    break
                await asyncio.sleep(0.05)
        if "explode" in request.text:
            raise RuntimeError("stand-in planner exploded")
        await progress("🔍 사내 문서를 검색하는 중…", stage="search", progress=0.4, agent="internal_rag")
        await progress("↪️ 사내 문서에 결과가 없어 웹 검색으로 전환합니다", stage="fallback", progress=0.6,
                       agent="web_research")
        history = request.data.get("history") or []
        text = (f"**answer** to: {request.text}\n\ncontext={request.context_id} history_turns={len(history)} "
                f"language={request.data.get('language')}")
        data = {
            "status": "ok", "intent": "HYBRID",
            "plan": {"intent": "HYBRID", "steps": [{"agent": "internal_rag", "instruction": request.text,
                                                     "depends_on": []}]},
            "steps": [{"index": 0, "agent": "internal_rag", "status": "no_result", "elapsed_ms": 12, "error": None},
                      {"index": 1, "agent": "web_research", "status": "ok", "elapsed_ms": 34, "error": None}],
            "sources": [
                {"type": "file", "file_name": "guide.pdf", "file_id": FILE_ID, "storage_ref": "guide.pdf",
                 "pages": [13, 14, 15], "page_label": "p.13–15", "file_url": f"/api/files/{FILE_ID}/download",
                 "score": 0.82},
                {"type": "web", "url": "https://example.org/cdc", "title": "CDC page", "score": 0.91},
            ],
        }
        return AgentReply(text=text, data=data)

    card = make_card("orchestrator", "stand-in orchestrator for backend tests", url,
                     [{"id": "plan_and_answer", "name": "answer", "description": "answers"}],
                     token_required=bool(deps.settings.hub_token))
    return build_agent_app(card, HubAgentExecutor("orchestrator", handle), token=deps.settings.hub_token)


if __name__ == "__main__":
    run_agent("orchestrator", create_app)
