"""A real A2A agent for state tests: `python -m tests.common.state_agent --port N`.

It keeps nothing itself: each reply shows the conversation history the executor handed over, a counter
kept in the conversation store (`AgentRequest.store`), and the process id. "ask" answers input-required;
the next message of that task is answered `answered:<text>`. With `DATABASE_URL` set, tasks, history and
the counter live in Postgres (the launcher's setup).
"""

from __future__ import annotations

import argparse
import asyncio
import os

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import (
    AgentRequest,
    HubAgentExecutor,
    Progress,
    base_url,
    bind_socket,
    build_agent_app,
    make_card,
    serve_app,
)

NAME = "state_probe"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    sock = bind_socket("127.0.0.1", args.port)
    url = base_url("127.0.0.1", sock.getsockname()[1])

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        assert request.store is not None
        count = int(await request.store.get(NAME, request.context_id, "count") or 0) + 1
        await request.store.put(NAME, request.context_id, "count", count)
        data = {"status": "ok", "pid": os.getpid(), "count": count, "history": request.history,
                "task_id": request.task_id}
        if request.text == "ask":
            await request.store.put(NAME, request.context_id, "question", request.task_id)
            return AgentReply(text="which one?", data=data, state="input_required")
        asked_in = await request.store.take(NAME, request.context_id, "question")
        if asked_in:
            data["asked_in"] = asked_in
            return AgentReply(text=f"answered:{request.text}", data=data)
        return AgentReply(text=f"echo:{request.text}", data=data)

    card = make_card(NAME, "state test agent", url, [{"id": "probe", "description": "shows its state"}])
    asyncio.run(serve_app(build_agent_app(card, HubAgentExecutor(NAME, handle)), sock))


if __name__ == "__main__":
    main()
