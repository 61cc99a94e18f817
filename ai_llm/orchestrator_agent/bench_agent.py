"""A real A2A agent that sleeps a fixed time, for `hub bench orchestrator`.

`python -m ai_llm.orchestrator_agent.bench_agent --port N --name sleeper_0 --delay 0.5` serves a card and a
handler that emits one status event, sleeps `delay` seconds (asyncio) and replies with `work_ms` — the
agent's own time — so the benchmark can subtract it from the round trip.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from ai_llm.common.a2a_server import (
    AgentRequest,
    HubAgentExecutor,
    Progress,
    base_url,
    bind_socket,
    build_agent_app,
    make_card,
    serve_app,
)
from ai_llm.common.events import AgentReply


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m ai_llm.orchestrator_agent.bench_agent")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", default="sleeper")
    parser.add_argument("--delay", type=float, default=0.5)
    args = parser.parse_args()

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        started = time.perf_counter()
        await progress("sleeping", stage="work", progress=0.0)
        if args.delay > 0:
            await asyncio.sleep(args.delay)
        return AgentReply(text=f"{args.name} done", data={"status": "ok",
                                                           "work_ms": (time.perf_counter() - started) * 1000})

    sock = bind_socket("127.0.0.1", args.port)
    url = base_url("127.0.0.1", sock.getsockname()[1])
    card = make_card(args.name, f"benchmark agent sleeping {args.delay}s", url,
                     [{"id": "sleep", "description": "sleeps a fixed time"}])
    asyncio.run(serve_app(build_agent_app(card, HubAgentExecutor(args.name, handle)), sock))


if __name__ == "__main__":
    main()
