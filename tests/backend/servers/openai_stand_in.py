"""A scripted model on the OpenAI Chat Completions wire format, for the browser test of streamed answers.

OpenAI cannot be reached from here, and what this test checks is the hub's relay of a model's answer as it is
written (RAG agent → orchestrator → backend SSE → chat page), not a model's words. So this process
(`python -m tests.backend.servers.openai_stand_in --port N`) speaks `POST /v1/chat/completions` as documented,
streaming included (`stream: true`: `chat.completion.chunk` events, then `data: [DONE]`), and answers by the
schema asked for (named in `response_format` or in the JSON-object prompt):

* `IntentPlan`: one `internal_rag` step whose instruction is the request;
* `QueryPlan`: the request as its own rewrite, no variants;
* `GroundedAnswer`: answerable, citing passage [1], whose first sentence is the answer: streamed in pieces
  of a few characters, `PIECE_DELAY_S` apart, so the page shows it growing;
* anything else: HTTP 400 (the hub's callers then take their offline path).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

PIECE_CHARS = 6
PIECE_DELAY_S = 0.08

app = FastAPI()


def _schema_name(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return str((fmt.get("json_schema") or {}).get("name") or "")
    text = " ".join(str(m.get("content") or "") for m in body.get("messages") or [])
    for name in ("GroundedAnswer", "IntentPlan", "QueryPlan"):
        if f'"title": "{name}"' in text:
            return name
    return ""


def _last_user(body: dict[str, Any]) -> str:
    users = [str(m.get("content") or "") for m in body.get("messages") or [] if m.get("role") == "user"]
    return users[-1] if users else ""


def _reply(name: str, body: dict[str, Any]) -> dict[str, Any] | None:
    text = _last_user(body)
    if name == "IntentPlan":
        request = text.removeprefix("Request:").strip()
        return {"intent": "INTERNAL_SEARCH", "steps": [{"agent": "internal_rag", "instruction": request,
                                                        "depends_on": [], "skill": None}]}
    if name == "QueryPlan":
        return {"rewrite": text, "variants": []}
    if name == "GroundedAnswer":
        passage = re.search(r"\[1\] \([^)]*\) (.+?)(?:\n\n\[2\]|\n\nQuestion:)", text, re.S)
        first = re.split(r"(?<=[.!?다])\s", (passage.group(1) if passage else "").strip(), maxsplit=1)[0]
        return {"answerable": bool(first), "answer": f"{first} [1]" if first else "", "cited": [1] if first else []}
    return None


def _chunk(content: str, finish: str | None = None) -> bytes:
    event = {"id": "stand-in", "object": "chat.completion.chunk", "created": 0, "model": "stand-in",
             "choices": [{"index": 0, "delta": {"content": content} if content else {}, "finish_reason": finish}]}
    return f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


@app.get("/v1/models")
async def models() -> dict[str, Any]:
    return {"object": "list", "data": [{"id": "stand-in", "object": "model", "owned_by": "tests"}]}


@app.post("/v1/chat/completions")
async def completions(request: Request) -> Any:
    body = await request.json()
    reply = _reply(_schema_name(body), body)
    if reply is None:
        return JSONResponse({"error": {"message": "this stand-in answers structured output only",
                                       "type": "invalid_request_error"}}, status_code=400)
    content = json.dumps(reply, ensure_ascii=False)
    if not body.get("stream"):
        return {"id": "stand-in", "object": "chat.completion", "created": 0, "model": "stand-in",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(content), PIECE_CHARS):
            yield _chunk(content[start:start + PIECE_CHARS])
            await asyncio.sleep(PIECE_DELAY_S)
        yield _chunk("", "stop")
        yield b"data: [DONE]\n\n"

    return StreamingResponse(pieces(), media_type="text/event-stream")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
