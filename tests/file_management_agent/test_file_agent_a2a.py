"""The file agent as a real process over A2A: skills and Korean/English instructions, confirmation of
multi-file deletes through A2A input-required in the same context."""

from __future__ import annotations

import asyncio
import base64
from datetime import UTC, datetime, timedelta

import httpx

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.store.db import Database
from ai_llm.hub.process import Child
from tests.conftest import AgentProcesses
from tests.file_management_agent.conftest import clear_records


async def _wait_all_settled(http: httpx.AsyncClient) -> list[dict]:
    for _ in range(400):
        records = (await http.get("/files")).json()
        if all(r["index_status"] != "indexing" for r in records):
            return records  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError("files still indexing")


async def test_instructions_over_a2a(agent_processes: AgentProcesses, test_rag: Child, db: Database) -> None:
    await clear_records(db)
    files = agent_processes.start("files", "ai_llm.file_management_agent", env={"RAG_AGENT_URL": test_rag.url or ""})
    agent = RemoteAgent(files.url or "", name="file_management")
    async with httpx.AsyncClient(base_url=files.url or "", timeout=60) as http:
        uploads = {
            "주간 보고서.md": b"# weekly report\nsales up",
            "monthly report.txt": b"monthly report body",
            "cdc_outpatient_guide.txt": b"CDC outpatient infection guide",
            "minutes.txt": b"meeting minutes",
        }
        ids = {}
        for name, data in uploads.items():
            ids[name] = (await http.post("/files", params={"name": name}, content=data)).json()["id"]
        # An upload over A2A (content_b64), waiting for the index.
        reply = await agent.ask("upload", data={"skill": "upload", "name": "a2a.txt", "wait": True,
                                                "content_b64": base64.b64encode(b"uploaded over a2a").decode()})
        assert reply.status == "ok" and reply.data["files"][0]["index_status"] == "indexed"
        # The same over a standard A2A file part (raw bytes with a file name).
        part_reply = await agent.ask("upload this", data={"skill": "upload", "wait": True},
                                     files=[("part.txt", b"uploaded as a file part", "text/plain")])
        assert part_reply.status == "ok" and part_reply.data["files"][0]["name"] == "part.txt"
        part_id = part_reply.data["files"][0]["id"]
        assert (await http.get(f"/files/{part_id}/content")).content == b"uploaded as a file part"
        assert (await http.delete(f"/files/{part_id}")).status_code in (200, 204)
        await _wait_all_settled(http)
        now = datetime.now(UTC)
        await db.execute("UPDATE file_records SET uploaded_at = %s WHERE id = %s",
                         (now - timedelta(days=7), ids["주간 보고서.md"]))
        await db.execute("UPDATE file_records SET uploaded_at = %s WHERE id = %s",
                         (now - timedelta(days=14), ids["monthly report.txt"]))

        listed = await agent.ask("지난주에 올린 보고서 목록 보여줘")
        assert listed.status == "ok"
        assert [f["name"] for f in listed.data["files"]] == ["주간 보고서.md"]
        assert "주간 보고서.md" in listed.text
        assert "| 이름 | 크기(바이트) | 올린 시각 | 색인 |" in listed.text  # the columns in the reader's language
        every_report = await agent.ask("list the reports", data={"language": "en"})
        assert {f["name"] for f in every_report.data["files"]} == {"주간 보고서.md", "monthly report.txt"}
        assert "| name | bytes | uploaded | index |" in every_report.text

        read = await agent.ask("'minutes.txt' 내용 보여줘")
        assert read.status == "ok" and "meeting minutes" in read.text
        assert read.data["sources"][0]["file_id"] == ids["minutes.txt"]

        renamed = await agent.ask("rename minutes.txt to 회의록.txt")
        assert renamed.status == "ok" and renamed.data["files"][0]["name"] == "회의록.txt"

        deleted = await agent.ask("delete the CDC guide")
        assert deleted.status == "ok" and [d["id"] for d in deleted.data["deleted"]] == [ids["cdc_outpatient_guide.txt"]]
        assert "청크" not in deleted.text
        assert (await http.get(f"/files/{ids['cdc_outpatient_guide.txt']}")).status_code == 404

        nothing = await agent.ask("delete the zebra handbook")
        assert nothing.status == "no_result" and len((await http.get("/files")).json()) == 4

        # Several files: input-required, then "아니요" cancels and nothing is deleted.
        ask = await agent.ask("보고서 전부 삭제해줘")
        assert ask.state == "input_required" and ask.data["confirmation_required"] is True
        assert {f["name"] for f in ask.data["files"]} == {"주간 보고서.md", "monthly report.txt"}
        cancelled = await agent.ask("아니요", context_id=ask.context_id)
        assert cancelled.data.get("cancelled") is True and len((await http.get("/files")).json()) == 4

        ask = await agent.ask("delete all files", data={"language": "en"})
        assert ask.state == "input_required" and len(ask.data["files"]) == 4
        # A "yes" in another conversation confirms nothing.
        other = await agent.ask("yes")
        assert other.data.get("operation") != "delete" or not other.data.get("deleted")
        assert len((await http.get("/files")).json()) == 4
        confirmed = await agent.ask("네", context_id=ask.context_id)
        assert confirmed.status == "ok" and len(confirmed.data["deleted"]) == 4
        assert (await http.get("/files")).json() == []
        search = await RemoteAgent(test_rag.url or "").ask("report minutes uploaded", data={"skill": "search_documents"})
        assert not {s["file_id"] for s in search.sources} & set(ids.values())

        unknown = await agent.ask("오늘 날씨 어때?")
        assert unknown.status == "needs_clarification"
