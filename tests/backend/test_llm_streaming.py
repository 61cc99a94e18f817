"""A model's answer reaches the person as it is written: RAG agent → orchestrator → backend SSE → chat page.

The hub runs whole (real processes, the session's Postgres) with its model on a scripted server speaking the
OpenAI wire format (`servers/openai_stand_in.py`: OpenAI is unreachable here), which streams its structured
answer in pieces. What is checked is the hub's relay, not the model: several `delta` events, whose text the
final answer starts with, in the backend's SSE and on the page in Chromium.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from ai_llm.evals.backend.hub import OfflineHub
from backend.chat_client import parse_sse

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
FACT = "Visitor badges at the Daejeon research campus are printed on orange card stock every Monday morning."
QUESTION = "In our internal documents, what colour is the card stock of visitor badges at the Daejeon campus?"
PAGE_FACT = "Parking permits at the Gwangju plant are renewed at the security office every March."
PAGE_QUESTION = "In our internal documents, when are parking permits at the Gwangju plant renewed?"


async def _index_fact(hub: OfflineHub, tmp_path: Path, name: str = "visitor_badges.txt", fact: str = FACT) -> None:
    note = tmp_path / name
    note.write_text(f"Site policy\n\n{fact}\nQuestions go to the front desk.\n", encoding="utf-8")
    async with httpx.AsyncClient(base_url=hub.backend_url, timeout=120) as http:
        response = await http.post("/api/files", files={"file": (note.name, note.read_bytes(), "text/plain")})
        response.raise_for_status()
        record = response.json()
        for _ in range(240):
            if record.get("index_status") != "indexing":
                break
            await asyncio.sleep(0.5)
            record = (await http.get(f"/api/files/{record['id']}")).json()
        assert record["index_status"] == "indexed", record


async def test_the_answer_streams_through_the_backend_in_pieces_and_ends_as_streamed(
        llm_hub: OfflineHub, tmp_path: Path) -> None:
    await _index_fact(llm_hub, tmp_path)
    deltas: list[str] = []
    answers: list[dict] = []
    async with httpx.AsyncClient(base_url=llm_hub.backend_url, timeout=180) as http, \
            http.stream("POST", "/api/chat", json={"message": QUESTION, "language": "en"}) as response:
        assert response.status_code == 200
        async for event in parse_sse(response.aiter_lines()):
            if event.event == "delta":
                assert not answers, "a piece arrived after the whole answer"
                deltas.append(event.data["text"])
            elif event.event == "answer":
                answers.append(event.data)
    assert len(answers) == 1, answers
    streamed = "".join(deltas)
    assert len(deltas) >= 3, (deltas, answers)
    # The final answer is what was streamed, then the quoted evidence and the sources.
    assert answers[0]["text"].startswith(streamed), (streamed, answers[0]["text"])
    assert FACT.rstrip(".") in streamed
    assert any(s.get("file_name") == "visitor_badges.txt" for s in answers[0]["sources"])
    # What the answer cost reaches the page with it: the model's calls, and the tokens it wrote.
    usage = answers[0]["usage"]
    assert usage["llm_calls"] >= 1 and usage["llm_completion_tokens"] >= len(deltas), usage


def test_the_chat_page_shows_the_answer_growing(llm_hub: OfflineHub, tmp_path: Path) -> None:
    if not (FRONTEND / "dist" / "index.html").exists():
        pytest.skip("frontend/dist is not built (run `make ui`)")
    node = shutil.which("node")
    assert node and CHROMIUM.exists(), "node and Debian chromium are needed (make ui browser)"
    asyncio.run(_index_fact(llm_hub, tmp_path, "parking_permits.txt", PAGE_FACT))
    artifacts = Path(os.environ.get("E2E_ARTIFACTS_DIR", tmp_path / "e2e-artifacts"))
    env = {**os.environ, "HUB_URL": llm_hub.backend_url, "E2E_QUESTION": PAGE_QUESTION,
           "E2E_EXPECT": PAGE_FACT.rstrip("."),
           "E2E_ARTIFACTS": str(artifacts), "CHROMIUM_PATH": str(CHROMIUM)}
    result = subprocess.run([node, str(FRONTEND / "tests" / "e2e" / "streaming.mjs")], cwd=FRONTEND, env=env,
                            capture_output=True, text=True, timeout=300)
    report = f"{result.stdout}\n{result.stderr}\nartifacts: {artifacts}"
    print(report)
    assert result.returncode == 0, report
    assert "streaming passed" in result.stdout, report
    assert (artifacts / "stream-1-partial.png").exists() and (artifacts / "stream-2-final.png").exists()
