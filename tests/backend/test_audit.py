"""The administrators' audit over the whole offline hub with accounts on (real orchestrator, RAG, web agent
and search gateway, embedded Postgres): each answer with who asked, the question, the documents and pages it
quoted and what it cost; the person sees the same cost beside the answer. Nobody else reads the audit."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx

from ai_llm.common.store.db import Database
from ai_llm.evals.backend.hub import OfflineHub, upload_and_wait
from backend.accounts import AccountStore
from tests.backend.conftest import TEAM_HUB_ADMIN_PASSWORD
from tests.backend.test_permissions_probe import answer_of, login
from tests.conftest import eval_file

SHIFT = f"{uuid.uuid4().hex[:4].upper()}-night"


async def test_the_audit_shows_who_asked_what_was_read_and_what_it_cost(team_hub: OfflineHub, db: Database,
                                                                       tmp_path: Path) -> None:
    eval_file("hotpotqa/dev_distractor_300.jsonl", "the web corpus")  # the team hub's web search reads it
    url = team_hub.backend_url
    person = f"yuna-{uuid.uuid4().hex[:6]}"
    await AccountStore(db).create_user(person, f"{person}-password", ["ops"])
    async with httpx.AsyncClient(base_url=url, timeout=300) as yuna, \
            httpx.AsyncClient(base_url=url, timeout=60) as admin, \
            httpx.AsyncClient(base_url=url, timeout=60) as stranger:
        await login(yuna, person, f"{person}-password")
        await login(admin, "admin", TEAM_HUB_ADMIN_PASSWORD)
        note = tmp_path / "boiler_rota.txt"
        note.write_text(f"Boiler room rota.\nThe boiler room is inspected by the {SHIFT} shift every Tuesday.\n",
                        encoding="utf-8")
        await upload_and_wait(yuna, note)
        documents = await answer_of(yuna, "In our internal documents, which shift inspects the boiler room?")
        assert SHIFT in documents["text"], documents
        web = await answer_of(yuna, "Search the web: which country is the Eiffel Tower in?")
        # Beside each answer: what it cost (a web answer ran searches through the gateway).
        assert web["usage"]["searches"] >= 1, web
        assert documents["usage"]["searches"] == 0 and documents["usage"]["llm_calls"] == 0, documents

        assert (await yuna.get("/api/audit")).status_code == 403
        assert (await stranger.get("/api/audit")).status_code == 401
        audit = (await admin.get("/api/audit", params={"username": person})).json()
        rows = audit["answers"]
        assert [r["question"] for r in rows[:2]] == ["Search the web: which country is the Eiffel Tower in?",
                                                     "In our internal documents, which shift inspects the boiler room?"]
        assert all(r["username"] == person for r in rows)
        assert rows[1]["documents"] == [{"file_name": "boiler_rota.txt", "pages": [1]}], rows[1]
        assert rows[0]["usage"] == web["usage"] and rows[0]["intent"] == web["intent"]
        assert audit["totals"]["searches"] >= web["usage"]["searches"] and audit["totals"]["answers"] == len(rows)
        everyone = (await admin.get("/api/audit")).json()["answers"]
        assert {r["conversation_id"] for r in rows} <= {r["conversation_id"] for r in everyone}
        assert (await admin.get("/api/audit", params={"limit": 0})).status_code == 422
