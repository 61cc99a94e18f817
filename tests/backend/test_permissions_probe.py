"""The permission probe, over the whole offline hub with accounts on (real orchestrator, RAG and file agents,
embedded Postgres): two people who share no team. The first person's private `.txt` holds a unique fact; it
reaches the first person's answer, also asked as a person would ("What is …", naming no document), and never the
second's — not by chat, follow-up, file list, record,
download, passages, conversation id or a report saved from the answer — nor a direct A2A caller holding only
the service token; without a login every
route answers 401. Sharing it with everyone then lets the second person find it."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.store.db import Database
from ai_llm.evals.backend.hub import OfflineHub, upload_and_wait
from backend.accounts import AccountStore
from backend.chat_client import stream_chat
from tests.backend.conftest import TEAM_HUB_TOKEN

FACT_CODE = f"ZEBRA-{uuid.uuid4().hex[:6].upper()}"
QUESTION = "In our internal documents, what is the launch code name of Project Nimbus?"
#: The same question as a person asks it, naming neither the documents nor the file: the probe of the person's own
#: index routes it to the documents.
PLAIN_QUESTION = "What is the launch code name of Project Nimbus?"


async def answer_of(http: httpx.AsyncClient, question: str, conversation: str | None = None) -> dict:
    events = [e async for e in stream_chat(http, question, conversation, language="en")]
    final = events[-2]
    assert final.event in ("answer", "error"), events
    return final.data


async def login(http: httpx.AsyncClient, username: str, password: str) -> None:
    response = await http.post("/api/login", json={"username": username, "password": password})
    assert response.status_code == 200, response.text


async def test_a_private_document_reaches_its_owner_only(team_hub: OfflineHub, db: Database,
                                                         tmp_path: Path) -> None:
    url = team_hub.backend_url
    first, second = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    for name, team in ((first, "alpha"), (second, "beta")):  # the hub's own store (the admin route is tested apart)
        await AccountStore(db).create_user(name, f"{name}-password", [team])
    async with httpx.AsyncClient(base_url=url, timeout=300) as alice, \
            httpx.AsyncClient(base_url=url, timeout=300) as bob, \
            httpx.AsyncClient(base_url=url, timeout=60) as stranger:
        await login(alice, first, f"{first}-password")
        await login(bob, second, f"{second}-password")

        note = tmp_path / "nimbus_plan.txt"
        note.write_text(f"Project Nimbus plan.\nThe launch code name of Project Nimbus is {FACT_CODE}.\n"
                        "The launch is planned for the third quarter.\n", encoding="utf-8")
        record = await upload_and_wait(alice, note)
        assert record["visibility"] == "private" and record["owner_id"]

        mine = await answer_of(alice, QUESTION)
        assert FACT_CODE in mine["text"], mine
        conversation = mine["conversation_id"]
        plain = await answer_of(alice, PLAIN_QUESTION)
        assert FACT_CODE in plain["text"] and plain.get("intent") == "INTERNAL_SEARCH", plain
        # For the other person the probe finds nothing (the chunk is not theirs to read), and neither the web
        # nor the documents they may read hold the code.
        assert FACT_CODE not in str(await answer_of(bob, PLAIN_QUESTION))

        theirs = await answer_of(bob, QUESTION)
        assert FACT_CODE not in str(theirs)
        assert record["id"] not in {f["id"] for f in (await bob.get("/api/files")).json()}
        for path in (f"/api/files/{record['id']}", f"/api/files/{record['id']}/download",
                     f"/api/files/{record['id']}/passages", f"/api/chats/{conversation}"):
            response = await bob.get(path)
            assert response.status_code == 404 and FACT_CODE not in response.text, path
        assert (await bob.delete(f"/api/files/{record['id']}")).status_code == 404
        follow_up = await answer_of(bob, "And what is its code name again?", conversation)
        assert FACT_CODE not in str(follow_up)  # someone else's conversation id carries nothing over

        for method, path in (("GET", "/api/files"), ("GET", f"/api/chats/{conversation}"), ("GET", "/api/me"),
                             ("GET", f"/api/files/{record['id']}/download")):
            assert (await stranger.request(method, path)).status_code == 401, path
        assert (await stranger.post("/api/chat", json={"message": QUESTION})).status_code == 401

        # A report of the private answer is the first person's, private, like the document it quotes.
        saved = await answer_of(alice, "Save this answer as a report", conversation)
        assert saved.get("intent") == "FILE_OPERATION" or "report_writing" in str(saved.get("steps")), saved
        reports = [f for f in (await alice.get("/api/files")).json() if f.get("source_kind") == "report"]
        assert reports and all(f["visibility"] == "private" and f["owner_id"] == record["owner_id"] for f in reports)
        assert not {f["id"] for f in reports} & {f["id"] for f in (await bob.get("/api/files")).json()}
        assert FACT_CODE not in str(await answer_of(bob, QUESTION))

        service = RemoteAgent(team_hub.urls["internal_rag"], token=TEAM_HUB_TOKEN)
        try:
            direct = await service.ask(QUESTION, data={"language": "en"})
        finally:
            await service.aclose()
        assert FACT_CODE not in direct.text and direct.data.get("status") == "no_result"

        shared = await alice.patch(f"/api/files/{record['id']}", json={"visibility": "everyone"})
        assert shared.status_code == 200 and shared.json()["visibility"] == "everyone"
        assert FACT_CODE in (await answer_of(bob, QUESTION))["text"]
        assert (await bob.patch(f"/api/files/{record['id']}", json={"visibility": "private"})).status_code == 403
        assert (await alice.delete(f"/api/files/{record['id']}")).status_code == 204
        for report in reports:
            assert (await alice.delete(f"/api/files/{report['id']}")).status_code == 204
