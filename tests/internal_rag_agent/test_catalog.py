"""The document catalog the RAG agent serves at `GET /catalog`: titles, languages, distinctive key terms, and a
cache that follows the chunk table (upload, rename, delete)."""

from __future__ import annotations

from ai_llm.common.identity import Viewer
from ai_llm.common.store.db import Database
from ai_llm.common.text.analysis import index_terms
from ai_llm.internal_rag_agent.catalog import DocumentCatalog, build_catalog, language_of, title_of


def rows(ref: str, name: str, texts: list[str]) -> list[dict]:  # type: ignore[type-arg]
    return [{"storage_ref": ref, "file_name": name, "chunk_index": i, "content": t, "pages": [i + 1],
             "tokens": index_terms(t)} for i, t in enumerate(texts)]


def test_titles_languages_and_distinctive_key_terms() -> None:
    vial = "[페이지 1] Safe injection practices. Multi-dose vials are dated when opened. Vials vials vial."
    bus = "[페이지 1] I2C bus protocol. Clock stretching lets a slave hold the clock low. Clock clock slave."
    ko = "[페이지 1] 보건의료 빅데이터 플랫폼 시범사업 추진계획. 빅데이터 플랫폼 빅데이터 플랫폼 사업."
    catalog = {e.storage_ref: e for e in build_catalog(rows("a", "cdc.pdf", [vial, vial]) + rows("b", "i2c.pdf", [bus])
                                                       + rows("c", "plan.pdf", [ko]))}
    assert catalog["a"].title == "Safe injection practices." and catalog["a"].language == "en"
    assert catalog["a"].chunks == 2 and catalog["a"].pages == 2
    assert "vial" in catalog["a"].key_terms and "clock" in catalog["b"].key_terms
    assert "vial" not in catalog["b"].key_terms
    assert catalog["c"].language == "ko" and "빅데이터" in catalog["c"].key_terms
    assert language_of("I2C 프로토콜 문서") == "ko" and title_of("x" * 300).endswith("…")


async def test_catalog_follows_the_chunk_table(db: Database) -> None:
    catalog = DocumentCatalog(db)
    before = {e.storage_ref for e in await catalog.entries()}
    await db.execute("UPDATE document_chunks SET updated_at = now()")  # no change in content: same refs
    assert {e.storage_ref for e in await catalog.entries()} == before
    # Without a database of its own (the Supabase adapter) the planner sees no catalog, for any reader.
    assert await DocumentCatalog(None).entries() == []
    assert await DocumentCatalog(None).entries(Viewer(user_id="u-1", teams=("영업",))) == []
