"""Indexing on the real embedded Postgres and embedding server: batches with bad documents, skip on the same
content hash, atomic replacement, and a failing write that leaves the previous chunks untouched."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from ai_llm.common.store.db import Database
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.vector_store import PgVectorStore, StoredChunk
from tests.conftest import eval_pdf
from tests.internal_rag_agent.conftest import make_encrypted_pdf, make_image_only_pdf, make_pdf, unique_ref


async def chunk_rows(db: Database, ref: str) -> list[dict]:
    return await db.fetch("SELECT chunk_index, content, pages, content_hash, file_name, file_url "
                          "FROM document_chunks WHERE storage_ref = %s ORDER BY chunk_index", (ref,))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


async def test_batch_with_every_bad_input_indexes_the_good_documents_only(
        rag_agent: RagAgent, db: Database, tmp_path: Path) -> None:
    rag_agent.settings.max_upload_mb = 0.05  # 51 KB: the "oversize" document below is over it
    good_pdf = make_pdf(["Expense claims must be filed within 14 days of travel.",
                         "The approval code for travel is TRV-2291."])
    oversize = tmp_path / "huge.txt"
    oversize.write_bytes(b"big text line\n" * 6000)
    good_path = tmp_path / "notes.md"
    good_path.write_text("# 출장 규정\n출장비 정산은 출장 종료 후 14일 이내에 신청한다.", encoding="utf-8")
    refs = {name: unique_ref(name) for name in
            ("good_pdf", "encrypted", "corrupt", "scan", "empty", "pptx", "oversize", "missing", "good_md")}
    docs = [
        DocumentInput(refs["good_pdf"], "travel.pdf", content_b64=b64(good_pdf)),
        DocumentInput(refs["encrypted"], "locked.pdf", content_b64=b64(make_encrypted_pdf())),
        DocumentInput(refs["corrupt"], "broken.pdf", content_b64=b64(b"%PDF-1.4\n" + b"\x00garbage" * 100)),
        DocumentInput(refs["scan"], "scan.pdf", content_b64=b64(make_image_only_pdf())),
        DocumentInput(refs["empty"], "empty.pdf", content_b64=""),
        DocumentInput(refs["pptx"], "deck.pptx", content_b64=b64(b"PK\x03\x04deck")),
        DocumentInput(refs["oversize"], "huge.txt", path=str(oversize)),
        DocumentInput(refs["missing"], "gone.pdf", path=str(tmp_path / "gone.pdf")),
        DocumentInput(refs["good_md"], "notes.md", path=str(good_path)),
    ]
    results = await rag_agent.indexing.index_many(docs)
    by_ref = {r.storage_ref: r for r in results}
    assert [r.storage_ref for r in results] == [d.storage_ref for d in docs]
    assert by_ref[refs["good_pdf"]].status == "success" and by_ref[refs["good_pdf"]].chunks >= 1
    assert by_ref[refs["good_md"]].status == "success"
    expected_reasons = {"encrypted": "password", "corrupt": "damaged", "scan": "no text was found in the scan",
                        "empty": "empty", "pptx": "damaged", "oversize": "limit", "missing": "not found"}
    # The stable name the file agent chooses its message by (its person's language, not this English reason).
    expected_codes = {"encrypted": "encrypted", "corrupt": "corrupt", "scan": "no_text", "empty": "empty",
                      "pptx": "corrupt", "oversize": "too_large", "missing": "not_found"}
    for name, phrase in expected_reasons.items():
        result = by_ref[refs[name]]
        assert result.status == "error", name
        assert result.reason and phrase in result.reason, (name, result.reason)
        assert result.code == expected_codes[name], (name, result.code)
        assert await chunk_rows(db, refs[name]) == [], f"{name} left rows behind"
    pdf_rows = await chunk_rows(db, refs["good_pdf"])
    # Chunks are whole sentences of one page each; together they cover both pages.
    assert {p for r in pdf_rows for p in r["pages"]} == {1, 2} and all(len(r["pages"]) == 1 for r in pdf_rows)


async def test_same_content_is_skipped_and_changed_content_replaces_atomically(
        rag_agent: RagAgent, db: Database) -> None:
    ref = unique_ref("doc")
    v1 = make_pdf(["Version one says the deadline is March.", "Second page of version one."])
    first = await rag_agent.indexing.index_one(DocumentInput(ref, "plan.pdf", content_b64=b64(v1)))
    assert first.status == "success"
    rows_v1 = await chunk_rows(db, ref)

    again = await rag_agent.indexing.index_one(
        DocumentInput(ref, "plan-renamed.pdf", file_url="/api/files/x/download", content_b64=b64(v1)))
    assert again.status == "skipped"
    rows_again = await chunk_rows(db, ref)
    assert [r["content"] for r in rows_again] == [r["content"] for r in rows_v1]
    assert {r["file_name"] for r in rows_again} == {"plan-renamed.pdf"}  # a rename is still followed

    v2 = make_pdf(["Version two moves the deadline to June."])
    second = await rag_agent.indexing.index_one(DocumentInput(ref, "plan.pdf", content_b64=b64(v2)))
    assert second.status == "success"
    rows_v2 = await chunk_rows(db, ref)
    text = " ".join(r["content"] for r in rows_v2)
    assert "June" in text and "March" not in text
    assert len({r["content_hash"] for r in rows_v2}) == 1 and rows_v2[0]["content_hash"] != rows_v1[0]["content_hash"]
    assert [r["chunk_index"] for r in rows_v2] == list(range(len(rows_v2)))

    # A broken new version is refused and the indexed version stays as it was.
    broken = await rag_agent.indexing.index_one(DocumentInput(ref, "plan.pdf", content_b64=b64(b"%PDF-1.4 junk")))
    assert broken.status == "error"
    assert [r["content"] for r in await chunk_rows(db, ref)] == [r["content"] for r in rows_v2]


async def test_a_write_failing_midway_leaves_the_old_chunks(db: Database) -> None:
    store = PgVectorStore(db)
    ref = unique_ref("atomic")

    def chunk(i: int, dim: int = 384) -> StoredChunk:
        return StoredChunk(ref, i, f"chunk {i}", [1], f"chunk {i}", [0.1] * dim, "h1")

    assert await store.replace_document(ref, [chunk(0), chunk(1)]) == 2
    # The third row has a wrong dimension: the COPY fails after the DELETE and two good rows.
    with pytest.raises(Exception, match="dimension|expected 384"):
        await store.replace_document(ref, [chunk(0), chunk(1), chunk(2, dim=3)])
    rows = await chunk_rows(db, ref)
    assert [r["content"] for r in rows] == ["chunk 0", "chunk 1"]
    assert await store.delete_document(ref) == 2
    assert await chunk_rows(db, ref) == []


async def test_real_pdf_chunks_keep_their_pages(rag_agent: RagAgent, db: Database) -> None:
    path = eval_pdf("ko_mohw_health_bigdata_platform_pilot_plan_2017.pdf")
    ref = unique_ref("ko")
    result = await rag_agent.indexing.index_one(DocumentInput(ref, path.name, path=str(path)))
    assert result.status == "success"
    rows = await chunk_rows(db, ref)
    assert len(rows) == result.chunks
    page4 = [r for r in rows if 4 in r["pages"]]
    assert any("46억" in r["content"] for r in page4)
    tokens = await db.fetchone("SELECT tokens FROM document_chunks WHERE storage_ref = %s AND %s = ANY(pages) "
                               "ORDER BY chunk_index LIMIT 1", (ref, 4))
    assert tokens and "감액" in tokens["tokens"].split()  # Hangul bigrams in the keyword column
    await rag_agent.indexing.delete(ref)


async def test_a_readers_bug_is_reported_without_its_exception_text(
        rag_agent: RagAgent, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected error inside a reader fails that document with a reason a person can read (the traceback
    goes to the log), keeps the document's earlier chunks, and the batch goes on."""
    from ai_llm.internal_rag_agent import indexing_service

    ref, other = unique_ref("bug"), unique_ref("fine")
    first = await rag_agent.indexing.index_one(DocumentInput(ref, "notes.md", content_b64=b64(
        "# 규정\n출장비 정산은 출장 종료 후 14일 이내에 신청한다.".encode())))
    assert first.status == "success"
    before = await chunk_rows(db, ref)

    def broken(data: bytes, name: str, *_: object) -> object:
        if name == "notes.md":
            raise IndexError("string index out of range")
        return real(data, name, *_)

    real = indexing_service.parse_document
    monkeypatch.setattr(indexing_service, "parse_document", broken)
    results = await rag_agent.indexing.index_many([
        DocumentInput(ref, "notes.md", content_b64=b64("# 규정\n바뀐 내용이다.".encode())),
        DocumentInput(other, "other.md", content_b64=b64("# 다른 규정\n회의는 매주 월요일에 한다.".encode())),
    ])
    assert [r.status for r in results] == ["error", "success"]
    assert results[0].reason == indexing_service.UNEXPECTED_REASON and results[0].code == "unexpected"
    assert "IndexError" not in (results[0].reason or "") and "string index" not in (results[0].reason or "")
    assert await chunk_rows(db, ref) == before
