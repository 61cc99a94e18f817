"""The file agent's HTTP routes in-process (ASGI) against a real RAG-contract agent process and the
embedded Postgres: upload → indexed, content with ranges, limits, bad input, rename, delete, retry."""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.server import free_port
from ai_llm.common.identity import HEADER, issue
from ai_llm.common.messages import message
from ai_llm.common.runtime import HubDeps
from ai_llm.file_management_agent.http_routes import AUDIENCE
from ai_llm.hub.process import Child, stop_child
from tests.conftest import eval_pdf
from tests.file_management_agent.conftest import clear_records, file_agent, first_pages, start_test_rag, until

EXE_BYTES = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 50 + b"PE\x00\x00" + b"\x01" * 400


async def _search(rag: Child, text: str) -> dict:
    return (await RemoteAgent(rag.url or "").ask(text, data={"skill": "search_documents"})).data


def _stored_files(root: Path) -> list[Path]:
    return [p for p in root.iterdir() if p.name != ".incoming"] + list((root / ".incoming").iterdir())


async def test_upload_indexes_in_background_and_serves_the_bytes(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    data = first_pages(eval_pdf("cdc_outpatient_infection_prevention_guide.pdf"), 6)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        response = await agent.upload("감염 예방 가이드.pdf", data)
        assert response.status_code == 201, response.text
        created = response.json()
        assert created["index_status"] == "indexing"  # answered before indexing finished
        assert created["sha256"] == hashlib.sha256(data).hexdigest()
        assert created["download_url"] == f"/api/files/{created['id']}/download"
        record = await agent.wait_indexed(created["id"])
        assert record["index_status"] == "indexed" and record["chunks"] > 0 and record["index_error"] is None
        listed = (await agent.http.get("/files")).json()
        assert [r["id"] for r in listed] == [created["id"]]
        content = await agent.http.get(f"/files/{created['id']}/content")
        assert content.status_code == 200 and content.content == data
        assert content.headers["content-type"] == "application/pdf"
        disposition = content.headers["content-disposition"]
        assert disposition.startswith("attachment;")
        assert f"filename*=UTF-8''{quote('감염 예방 가이드.pdf', safe='')}" in disposition
        disposition.encode("latin-1")  # the header itself stays ASCII-safe
        inline = await agent.http.get(f"/files/{created['id']}/content", params={"disposition": "inline"})
        assert inline.headers["content-disposition"].startswith("inline;")
        found = await _search(test_rag, "outpatient infection")
        assert created["id"] in [s["file_id"] for s in found["sources"]]
        # Re-indexing the same content is skipped by the index, not duplicated.
        assert (await agent.http.post(f"/files/{created['id']}/reindex")).status_code == 202
        again = await agent.wait_indexed(created["id"])
        assert again["index_status"] == "skipped" and again["chunks"] == record["chunks"]


async def test_range_requests(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    data = "".join(f"line {i:04d}\n" for i in range(500)).encode()
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        file_id = (await agent.upload("lines.txt", data)).json()["id"]
        url = f"/files/{file_id}/content"
        part = await agent.http.get(url, headers={"Range": "bytes=10-19"})
        assert part.status_code == 206 and part.content == data[10:20]
        assert part.headers["content-range"] == f"bytes 10-19/{len(data)}"
        assert part.headers["content-length"] == "10" and part.headers["accept-ranges"] == "bytes"
        tail = await agent.http.get(url, headers={"Range": "bytes=-7"})
        assert tail.status_code == 206 and tail.content == data[-7:]
        open_end = await agent.http.get(url, headers={"Range": f"bytes={len(data) - 5}-"})
        assert open_end.content == data[-5:]
        clipped = await agent.http.get(url, headers={"Range": f"bytes=0-{len(data) * 2}"})
        assert clipped.status_code == 206 and clipped.content == data
        beyond = await agent.http.get(url, headers={"Range": f"bytes={len(data)}-"})
        assert beyond.status_code == 416 and beyond.headers["content-range"] == f"bytes */{len(data)}"
        stale = await agent.http.get(url, headers={"Range": "bytes=0-3", "If-Range": '"not-the-etag"'})
        assert stale.status_code == 200 and stale.content == data
        garbage = await agent.http.get(url, headers={"Range": "pages=1-2"})
        assert garbage.status_code == 200 and garbage.content == data
        assert part.headers["content-type"].startswith("text/plain")
        await agent.service.wait_idle()


async def test_size_limit_is_enforced_while_streaming(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url, max_upload_mb=0.01) as agent:
        limit = agent.settings.max_upload_bytes
        sent = 0

        async def body() -> AsyncIterator[bytes]:  # no Content-Length: only counting can stop it
            nonlocal sent
            for _ in range(100):
                sent += 1024
                yield b"a" * 1024

        response = await agent.http.post("/files", params={"name": "big.txt"}, content=body())
        assert response.status_code == 413 and response.json()["error"] == "too_large"
        declared = await agent.upload("big2.txt", b"b" * (limit + 1))
        assert declared.status_code == 413
        ok = await agent.upload("small.txt", b"c" * (limit - 1))
        assert ok.status_code == 201
        names = [r["name"] for r in (await agent.http.get("/files")).json()]
        assert names == ["small.txt"]
        root = agent.settings.files_dir
        assert len(_stored_files(root)) == 1  # nothing of the refused uploads is left, not even a spool
        await agent.service.wait_idle()


async def test_bad_uploads_get_clear_errors_and_leave_nothing(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    pdf = first_pages(eval_pdf("infineon_i2c_protocol_v2.02.pdf"), 4)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        for name in ("../../etc/passwd", "/tmp/x.pdf", "a/b.txt", "bad\x00.txt", "CON.txt", ".env"):
            response = await agent.upload(name, b"hello world")
            assert response.status_code == 400 and response.json()["error"] == "invalid_name", name
        exe = await agent.upload("invoice.pdf", EXE_BYTES)
        assert exe.status_code == 415 and "x-msdownload" in exe.json()["detail"]
        empty = await agent.upload("empty.txt", b"")
        assert empty.status_code == 400 and empty.json()["error"] == "empty_file"
        assert (await agent.http.post("/files", content=b"x")).status_code == 400
        assert (await agent.http.get("/files")).json() == []
        assert _stored_files(agent.settings.files_dir) == []
        disguised = await agent.upload("spec.txt", pdf)
        assert disguised.status_code == 201
        record = disguised.json()
        assert (record["name"], record["content_type"]) == ("spec.pdf", "application/pdf")
        assert record["notices"]
        indexed = await agent.wait_indexed(record["id"])
        assert indexed["index_status"] == "indexed"  # indexed as the PDF it is
        assert (await agent.http.get("/files/not-a-uuid")).status_code == 404
        assert (await agent.http.get("/files/00000000-0000-0000-0000-000000000000/content")).status_code == 404


async def test_duplicates_rename_and_delete_keep_store_and_index_in_step(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        first = (await agent.upload("notes.txt", b"zebra migration notes one")).json()
        second = (await agent.upload("notes.txt", b"zebra migration notes two")).json()
        assert (first["name"], second["name"]) == ("notes.txt", "notes (2).txt")
        for record in (first, second):
            await agent.wait_indexed(record["id"])
        assert (await agent.http.get(f"/files/{first['id']}/content")).content == b"zebra migration notes one"
        assert second["duplicate_of"] == []
        same = (await agent.upload("copy.txt", b"zebra migration notes one")).json()
        assert same["duplicate_of"] == ["notes.txt"]
        await agent.wait_indexed(same["id"])

        renamed = await agent.http.patch(f"/files/{first['id']}", json={"name": "얼룩말 메모"})
        assert renamed.status_code == 200 and renamed.json()["name"] == "얼룩말 메모.txt"
        sources = (await _search(test_rag, "zebra"))["sources"]
        assert {s["file_name"] for s in sources if s["file_id"] == first["id"]} == {"얼룩말 메모.txt"}
        clash = await agent.http.patch(f"/files/{second['id']}", json={"name": "얼룩말 메모.txt"})
        assert clash.json()["name"] == "얼룩말 메모 (2).txt"
        assert (await agent.http.patch(f"/files/{second['id']}", json={"name": "../x.txt"})).status_code == 400
        assert (await agent.http.patch(f"/files/{second['id']}", content=b"not json")).status_code == 400

        deleted = await agent.http.delete(f"/files/{first['id']}")
        assert deleted.status_code == 200 and deleted.json()["deleted_chunks"] >= 1
        assert (await agent.http.get(f"/files/{first['id']}")).status_code == 404
        assert first["id"] not in [s["file_id"] for s in (await _search(test_rag, "zebra"))["sources"]]
        assert second["id"] in [s["file_id"] for s in (await _search(test_rag, "zebra"))["sources"]]
        stored = {p.name for p in _stored_files(agent.settings.files_dir)}
        assert len(stored) == 2 and not any(first["id"].replace("-", "") in n for n in stored)


async def test_indexing_waits_for_an_unreachable_rag_agent_and_finishes_when_it_is_back(
        deps: HubDeps, tmp_path: Path) -> None:
    await clear_records(deps.db)
    port = free_port()
    rag_url = f"http://127.0.0.1:{port}"
    async with file_agent(deps, rag_agent_url=rag_url) as agent:
        agent.service.retry_s = agent.service.retry_max_s = 0.2
        agent.service.max_attempts = 2  # tries while the agent is down must not use these up
        created = (await agent.upload("retry.md", b"# Retry\nquokka population survey")).json()
        record = await until(agent, created["id"], lambda r: r["index_error"] is not None)
        # Not a final error: the person reads why it waits, in words from the catalog, not the exception.
        assert record["index_status"] == "indexing"
        assert record["index_error"] == message("files.index_waiting", agent.settings.ui_language)
        await asyncio.sleep(1.5)  # several waits of 0.2 s: the agent is asked, the document is not sent again
        record = (await agent.http.get(f"/files/{created['id']}")).json()
        assert record["index_status"] == "indexing" and agent.service.index_runs == 1
        # A waiting file can still be renamed; the index is told nothing it does not hold.
        assert (await agent.http.patch(f"/files/{created['id']}", json={"name": "quokka.md"})).status_code == 200
        rag = start_test_rag(tmp_path / "logs", port)
        try:
            # Nobody re-uploads or asks for a re-index: the agent answers again and the file is indexed.
            record = await until(agent, created["id"], lambda r: r["index_status"] != "indexing")
            assert record["index_status"] == "indexed" and record["index_error"] is None and record["chunks"] > 0
            found = (await _search(rag, "quokka"))["sources"]
            assert [s["file_name"] for s in found] == ["quokka.md"]
        finally:
            stop_child(rag)
        # With the index down, deleting an indexed file is refused: the store and index never disagree.
        refused = await agent.http.delete(f"/files/{created['id']}")
        assert refused.status_code == 502 and refused.json()["error"] == "index_unavailable"
        assert (await agent.http.get(f"/files/{created['id']}")).status_code == 200
        assert (await agent.http.get(f"/files/{created['id']}/content")).status_code == 200


async def test_symlinked_object_is_not_served(deps: HubDeps, test_rag: Child, tmp_path: Path) -> None:
    await clear_records(deps.db)
    secret = tmp_path / "secret.txt"
    secret.write_text("root password")
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        created = (await agent.upload("plain.txt", b"harmless text here")).json()
        await agent.wait_indexed(created["id"])
        stored = next(p for p in agent.settings.files_dir.iterdir() if p.name != ".incoming")
        stored.unlink()
        os.symlink(secret, stored)  # someone swaps the object for a link outside the root
        response = await agent.http.get(f"/files/{created['id']}/content")
        assert response.status_code == 500 and b"root password" not in response.content
        assert "symbolic link" in response.json()["detail"]


async def test_routes_require_the_hub_token(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    token = "t" * 24
    async with file_agent(deps, rag_agent_url=test_rag.url, hub_token=token) as agent:
        assert (await agent.http.get("/files")).status_code == 200
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=agent.app),
                                     base_url="http://files.test") as anonymous:
            assert (await anonymous.get("/files")).status_code == 401
            assert (await anonymous.post("/files", params={"name": "a.txt"}, content=b"abc")).status_code == 401
        assert (await agent.http.get("/files")).json() == []


@pytest.fixture(autouse=True)
def _no_leftover_env() -> None:
    assert "HUB_TOKEN" not in os.environ


async def test_concurrent_uploads_of_one_name_never_overwrite(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        bodies = [f"version {i} of the plan".encode() for i in range(5)]
        responses = await asyncio.gather(*(agent.upload("plan.txt", body) for body in bodies))
        records = [r.json() for r in responses]
        assert all(r.status_code == 201 for r in responses)
        assert sorted(r["name"] for r in records) == ["plan (2).txt", "plan (3).txt", "plan (4).txt",
                                                      "plan (5).txt", "plan.txt"]
        for record, body in zip(records, bodies, strict=True):
            assert (await agent.http.get(f"/files/{record['id']}/content")).content == body
        await agent.service.wait_idle()


async def test_a_restart_resumes_interrupted_indexing_and_clears_spools(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        created = (await agent.upload("resume.txt", b"interrupted walrus indexing")).json()
        await agent.wait_indexed(created["id"])
        root = agent.settings.files_dir
    # As if the process had stopped mid-indexing and mid-upload.
    assert deps.db is not None
    await deps.db.execute("UPDATE file_records SET index_status = 'indexing', chunks = 0 WHERE id = %s",
                          (created["id"],))
    (root / ".incoming" / "cut-off.part").write_bytes(b"half an upload")
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        assert list((root / ".incoming").iterdir()) == []
        record = await agent.wait_indexed(created["id"])
        assert record["index_status"] in ("indexed", "skipped") and record["chunks"] > 0


async def test_reports_are_tagged_and_indexed_only_when_added(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        upload = (await agent.upload("vial notes.md", b"# Vials\nopened multi-dose vials tagged upload")).json()
        report = (await agent.http.post("/files", params={"name": "vial report.md", "source_kind": "report"},
                                        content=b"# Report\nopened multi-dose vials tagged report")).json()
        assert upload["source_kind"] == "upload" and report["source_kind"] == "report"
        await agent.wait_indexed(upload["id"])
        listed = {r["id"]: r["source_kind"] for r in (await agent.http.get("/files")).json()}
        assert listed == {upload["id"]: "upload", report["id"]: "report"}
        # A report is its person's file, not a source of answers: not indexed until they add it.
        kept_out = (await agent.http.get(f"/files/{report['id']}")).json()
        assert kept_out["index_status"] == "not_indexed" and kept_out["index_error"] is None
        found = {s["file_id"] for s in (await _search(test_rag, "multi-dose vials"))["sources"]}
        assert upload["id"] in found and report["id"] not in found
        added = await agent.http.post(f"/files/{report['id']}/index")
        assert added.status_code == 202 and added.json()["index_status"] == "indexing"
        assert (await agent.wait_indexed(report["id"]))["index_status"] == "indexed"
        again = await agent.http.post(f"/files/{report['id']}/index")
        assert again.status_code == 409 and again.json()["error"] == "already_indexed"
        # Added, the tag travelled with the `index_document` call (`documents[].source_kind`).
        found = {s["file_id"]: s["source_kind"] for s in (await _search(test_rag, "multi-dose vials"))["sources"]}
        assert found[upload["id"]] == "upload" and found[report["id"]] == "report"
        refused = await agent.http.post("/files", params={"name": "x.md", "source_kind": "secret"}, content=b"x")
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_source_kind"


def _docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


async def test_a_record_holds_a_second_format_served_renamed_and_deleted_with_it(
        deps: HubDeps, test_rag: Child) -> None:
    """A report's DOCX is an alternate format of its Markdown record: one record in the list, its bytes served
    with `?format=docx` under the record's name, following a rename, gone with a delete; only bytes of that
    format are taken, once; a person who may not change the record may not add to it."""
    await clear_records(deps.db)
    token = "formats-test-token"
    async with file_agent(deps, rag_agent_url=test_rag.url, hub_token=token) as agent:
        alice = {HEADER: issue(token, AUDIENCE, "u-alice", "alice") or ""}
        bob = {HEADER: issue(token, AUDIENCE, "u-bob", "bob") or ""}
        report = (await agent.http.post("/files", params={"name": "여비 보고서.md", "source_kind": "report"},
                                        content=b"# Travel\nper diem", headers=alice)).json()
        assert report["visibility"] == "private" and report["alternates"] == []
        body = _docx("per diem table")
        url = f"/files/{report['id']}/formats/docx"
        assert (await agent.http.put(url, content=body, headers=bob)).status_code == 404  # not theirs to see
        wrong = await agent.http.put(url, content=b"plain text, not a Word file", headers=alice)
        assert wrong.status_code == 415 and wrong.json()["error"] == "bad_format"
        added = await agent.http.put(url, content=body, headers=alice)
        assert added.status_code == 201, added.text
        [alternate] = added.json()["alternates"]
        assert alternate["name"] == "여비 보고서.docx" and alternate["size"] == len(body)
        assert alternate["download_url"] == f"/api/files/{report['id']}/download?format=docx"
        assert (await agent.http.put(url, content=body, headers=alice)).json()["error"] == "format_exists"
        listed = (await agent.http.get("/files", headers=alice)).json()
        assert [r["id"] for r in listed] == [report["id"]]
        served = await agent.http.get(f"/files/{report['id']}/content", params={"format": "docx"}, headers=alice)
        assert served.status_code == 200 and served.content == body
        assert served.headers["content-type"].endswith("wordprocessingml.document")
        assert quote("여비 보고서.docx", safe="") in served.headers["content-disposition"]
        part = await agent.http.get(f"/files/{report['id']}/content", params={"format": "docx"},
                                    headers={**alice, "Range": "bytes=0-3"})
        assert part.status_code == 206 and part.content == body[:4]
        own = await agent.http.get(f"/files/{report['id']}/content", headers=alice)
        assert own.content == b"# Travel\nper diem"  # the record's own bytes: the Markdown
        missing = await agent.http.get(f"/files/{report['id']}/content", params={"format": "pdf"}, headers=alice)
        assert missing.status_code == 404 and missing.json()["error"] == "format_not_found"
        hidden = await agent.http.get(f"/files/{report['id']}/content", params={"format": "docx"}, headers=bob)
        assert hidden.status_code == 404
        renamed = (await agent.http.patch(f"/files/{report['id']}", json={"name": "출장 보고서.md"},
                                          headers=alice)).json()
        assert renamed["alternates"][0]["name"] == "출장 보고서.docx"
        root = agent.settings.files_dir
        assert len([p for p in root.iterdir() if p.name != ".incoming"]) == 2
        assert (await agent.http.delete(f"/files/{report['id']}", headers=alice)).status_code == 200
        assert [p for p in root.iterdir() if p.name != ".incoming"] == []
