"""What a request cost: the collection per request, a sub-agent's report added once, and the model adapter's
token counts from a local server speaking the OpenAI wire format (reported usage, and a stream without it)."""

from __future__ import annotations

import asyncio
import json
from http.server import BaseHTTPRequestHandler

from ai_llm.common.llm import OpenAIChat
from ai_llm.common.usage import Usage, add_usage, collect_usage, note_llm, note_search
from ai_llm.evals.harness import local_http_server


def test_a_request_collects_its_own_amounts_and_a_sub_agents_report() -> None:
    note_llm(5, 5)  # outside any request: nowhere to count, and no error
    with collect_usage() as usage:
        note_llm(120, 30)
        note_search(0.004, paid=True)
        note_search(0.0, paid=False)
        with collect_usage() as inner:  # an agent served in this process reports in its reply instead
            note_llm(1, 1)
        add_usage(inner.to_dict())
        add_usage({"llm_calls": 2, "llm_prompt_tokens": "lots", "searches": -3, "search_cost_usd": True})
        add_usage("not a report")
    assert usage.to_dict() == {"llm_calls": 4, "llm_prompt_tokens": 121, "llm_completion_tokens": 31,
                               "llm_tokens_estimated": False, "searches": 2, "paid_searches": 1,
                               "search_cost_usd": 0.004}
    assert Usage.from_dict(usage.to_dict()) == usage


class Completions(BaseHTTPRequestHandler):
    """`/v1/chat/completions`: a reply with its usage, or a stream of three pieces without usage."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for piece in ("Hotel ", "costs ", "120."):
                chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                         "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            return
        reply = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_the_model_adapter_counts_reported_tokens_and_estimates_a_stream() -> None:
    with local_http_server(Completions) as url:
        llm = OpenAIChat("m", base_url=f"{url}/v1")

        async def calls() -> tuple[Usage, Usage]:
            with collect_usage() as whole:
                assert await llm.chat([{"role": "user", "content": "hi"}]) == "ok"
            with collect_usage() as streamed:
                pieces = [p async for p in llm.stream([{"role": "user", "content": "hotel?"}])]
                assert "".join(pieces) == "Hotel costs 120."
            return whole, streamed

        whole, streamed = asyncio.run(calls())
    assert (whole.llm_calls, whole.llm_prompt_tokens, whole.llm_completion_tokens) == (1, 42, 7)
    assert not whole.llm_tokens_estimated
    assert (streamed.llm_calls, streamed.llm_completion_tokens, streamed.llm_tokens_estimated) == (1, 3, True)
