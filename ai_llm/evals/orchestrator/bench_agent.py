"""Small real servers for `hub bench orchestrator`: a hub agent that sleeps, and two echo floors.

`python -m ai_llm.evals.orchestrator.bench_agent --port N [--mode hub|bare|plain] [--name …] [--delay …]`

* `hub` (default): a hub A2A agent (`build_agent_app`: Host/Origin guard, token middleware, the hub's
  executor with task, status and artifact events) whose handler emits one status event, sleeps `delay`
  seconds (asyncio) and replies with `work_ms` — its own time — so the benchmark can subtract it from the
  round trip. With `--delay 0` it emits no status of its own: an echo through the hub's whole stack.
* `bare`: the floor of the a2a-sdk itself: its JSON-RPC routes and default request handler, no middleware,
  an executor that answers every message with one echo `Message` (the least a streamed A2A call can carry).
* `plain`: no A2A at all: `POST /echo` returns the JSON body it was sent, `GET /stream` streams eight small
  events 20 ms apart, as an agent streams its status lines (and `GET /healthz`).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import time
from collections.abc import AsyncIterator

from a2a.helpers.proto_helpers import get_text_parts, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.routes.agent_card_routes import create_agent_card_routes
from a2a.server.tasks import InMemoryTaskStore
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import (
    AgentRequest,
    HubAgentExecutor,
    Progress,
    base_url,
    bind_socket,
    build_agent_app,
    make_card,
    run_server,
)

MODES = ("hub", "bare", "plain")


class EchoExecutor(AgentExecutor):
    """Answers every message with one `Message` echoing its text (no task, no status events)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = "\n".join(get_text_parts(context.message.parts)) if context.message else ""
        await event_queue.enqueue_event(new_text_message(text, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


async def _health(_: Request) -> Response:
    return JSONResponse({"ok": True})


async def _echo(request: Request) -> Response:
    return JSONResponse(await request.json())


def bare_app(name: str, url: str) -> Starlette:
    """The a2a-sdk's own server for an echo executor: card route + JSON-RPC, nothing of the hub's."""
    card = make_card(name, "bare a2a-sdk echo agent", url, [{"id": "echo", "description": "echoes"}])
    handler = DefaultRequestHandlerV2(agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(),
                                      agent_card=card)
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/"),
              Route("/healthz", _health, methods=["GET"])]
    return Starlette(routes=routes)


async def _stream(_: Request) -> Response:
    async def events() -> AsyncIterator[bytes]:
        for i in range(8):
            await asyncio.sleep(0.02)
            yield b"data: %d\n\n" % i

    return StreamingResponse(events(), media_type="text/event-stream")


def plain_app() -> Starlette:
    """Plain HTTP: `POST /echo` returns its JSON body; `GET /stream` streams eight events."""
    return Starlette(routes=[Route("/echo", _echo, methods=["POST"]), Route("/stream", _stream, methods=["GET"]),
                             Route("/healthz", _health, methods=["GET"])])


def tcp_socket(host: str, port: int) -> socket.socket:
    """A listening socket as uvicorn binds its own: protocol IPPROTO_TCP, which is what asyncio checks before it
    sets TCP_NODELAY on each accepted connection (a protocol of 0 leaves Nagle on, and a keep-alive response
    written in two parts then waits for the client's delayed ACK, about 40 ms)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(256)
    return sock


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m ai_llm.evals.orchestrator.bench_agent")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--mode", choices=MODES, default="hub")
    parser.add_argument("--name", default="sleeper")
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--socket", choices=("hub", "tcp"), default=None,
                        help="hub: the hub's own bind_socket (default for --mode hub); tcp: a socket made as "
                             "uvicorn makes its own (IPPROTO_TCP, so asyncio sets TCP_NODELAY; default for the "
                             "echo floors)")
    args = parser.parse_args()

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        started = time.perf_counter()
        if args.delay > 0:  # an instant agent is an echo through the hub's stack: no status of its own
            await progress("sleeping", stage="work", progress=0.0)
            await asyncio.sleep(args.delay)
        return AgentReply(text=f"{args.name} done", data={"status": "ok",
                                                           "work_ms": (time.perf_counter() - started) * 1000})

    own = args.socket == "hub" or (args.socket is None and args.mode == "hub")
    sock = bind_socket(args.host, args.port) if own else tcp_socket(args.host, args.port)
    url = base_url(args.host, sock.getsockname()[1])
    if args.mode == "bare":
        app = bare_app(args.name, url)
    elif args.mode == "plain":
        app = plain_app()
    else:
        card = make_card(args.name, f"benchmark agent sleeping {args.delay}s", url,
                         [{"id": "sleep", "description": "sleeps a fixed time"}])
        app = build_agent_app(card, HubAgentExecutor(args.name, handle))
    run_server(app, sock)  # the loop every hub process serves on (uvloop)


if __name__ == "__main__":
    main()
