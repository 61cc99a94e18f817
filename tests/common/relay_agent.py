"""A tiny real A2A agent for plumbing tests: `python -m tests.common.relay_agent --port N [--peer URL]`.

Without a peer it answers `echo:<text>` after two status updates; with a peer it forwards the message to
the peer over A2A, re-emits the peer's status updates tagged with the peer's name, and wraps its answer.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import AgentReply, StatusEvent
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--peer")
    parser.add_argument("--name", default="relay")
    args = parser.parse_args()
    token = os.environ.get("TEST_AGENT_TOKEN") or None
    sock = bind_socket("127.0.0.1", args.port)
    url = base_url("127.0.0.1", sock.getsockname()[1])

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        if request.text == "boom":
            raise ValueError("asked to fail")
        if request.text.startswith("write:"):  # the answer as it is written, then the whole reply
            words = request.text.removeprefix("write:").split()
            for n in range(1, len(words) + 1):
                await progress.stream_answer(" ".join(words[:n]))
            return AgentReply(text=" ".join(words) + "\n\nSources: none", data={"status": "ok"})
        if request.data.get("files"):
            return AgentReply(text="files", data={"status": "ok", "files": request.data["files"]})
        if not args.peer:
            await progress("step one", stage="one", progress=0.5)
            await progress("step two", stage="two", progress=1.0)
            return AgentReply(text=f"echo:{request.text}",
                              data={"status": "ok", "pid": os.getpid(), "turns": len(request.history)})
        peer = RemoteAgent(args.peer, token=token, timeout_s=30)

        async def forward(event: StatusEvent) -> None:
            await progress(event.message, stage=event.stage, progress=event.progress, agent=event.agent)

        reply = await peer.ask(request.text, on_status=forward)
        return AgentReply(text=f"relayed[{reply.text}]", data={"status": reply.status, "peer": reply.data})

    card = make_card(args.name, "relay test agent", url, [{"id": "relay", "description": "relays"}],
                     token_required=bool(token))
    app = build_agent_app(card, HubAgentExecutor(args.name, handle), token=token)
    asyncio.run(serve_app(app, sock))


if __name__ == "__main__":
    main()
