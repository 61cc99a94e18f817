"""Small real A2A agents for the orchestrator's tests, served from one process (one socket per agent).

`python -m tests.orchestrator_agent.scripted_agents --spec '{"rag_ok": {"port": 1234, "status": "ok"}, …}'`

Each agent is a real a2a-sdk server built with `ai_llm.common.a2a.server` (card, JSON-RPC, streaming). Its
behaviour comes from its spec entry:

* `status` (ok / no_result / needs_clarification / error), `text`, `sources`, `max_score`, `error`, `outage`,
  `outage_kind`: the reply.
* `delay`: seconds to sleep (asyncio) after the `started` status event — `hang` sleeps an hour.
* `barrier` + `barrier_size`: wait until that many requests of the same barrier group are in flight in this
  process (proves a layer runs in parallel without timing anything); `error` if it is not reached in 20 s.
* `fail`: the handler raises (a failed A2A task).
* `input_required`: the reply asks for confirmation.
* `show_history`: the reply text ends with the `history` turns it was sent.

Every reply's data carries `received` (text, data and history as the agent saw them), so tests can check
what the orchestrator sent, and `seq` (this process's request counter at the time of the reply).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import defaultdict
from typing import Any

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

_barriers: dict[str, int] = defaultdict(int)
_barrier_events: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
_counter = {"seq": 0}


def make_handler(name: str, spec: dict[str, Any]):  # type: ignore[no-untyped-def]
    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        started = time.perf_counter()
        await progress(f"{name} started", stage="started", progress=0.0)
        status = spec.get("status", "ok")
        if spec.get("barrier"):
            group = spec["barrier"]
            _barriers[group] += 1
            if _barriers[group] >= int(spec.get("barrier_size", 2)):
                _barrier_events[group].set()
            try:
                await asyncio.wait_for(_barrier_events[group].wait(), 20)
            except TimeoutError:
                status = "error"
        delay = 3600.0 if spec.get("hang") else float(spec.get("delay", 0))
        if delay:
            await asyncio.sleep(delay)
        await progress(f"{name} working", stage="working", progress=0.5)
        if spec.get("fail"):
            raise RuntimeError(f"{name} exploded on purpose")
        _counter["seq"] += 1
        text = spec.get("text") or f"[{name}] answer to: {request.text}"
        if spec.get("show_history"):
            turns = request.data.get("history") or []
            text += " | history: " + " / ".join(str(t.get("text")) for t in turns if isinstance(t, dict))
        data: dict[str, Any] = {
            "status": status,
            "sources": spec.get("sources", []),
            "received": {"text": request.text, "data": request.data, "history": request.history,
                         "context_id": request.context_id},
            "seq": _counter["seq"],
            "work_ms": (time.perf_counter() - started) * 1000,
        }
        for key in ("max_score", "error", "outage", "outage_kind"):
            if key in spec:
                data[key] = spec[key]
        state = "input_required" if spec.get("input_required") else "completed"
        return AgentReply(text=text, data=data, state=state)  # type: ignore[arg-type]

    return handle


async def main(specs: dict[str, dict[str, Any]]) -> None:
    servers = []
    for name, spec in specs.items():
        sock = bind_socket("127.0.0.1", int(spec["port"]))
        url = base_url("127.0.0.1", sock.getsockname()[1])
        skills = spec.get("skills") or [{"id": name, "description": f"scripted test agent {name}"}]
        card = make_card(name, spec.get("description", f"scripted test agent {name}"), url, skills)
        app = build_agent_app(card, HubAgentExecutor(name, make_handler(name, spec)))
        servers.append(serve_app(app, sock))
    await asyncio.gather(*servers)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--spec", required=True)
    asyncio.run(main(json.loads(parser.parse_args().spec)))
