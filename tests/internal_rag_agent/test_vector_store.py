"""The SQL contract on the embedded Postgres (`match_documents`, `term_match_documents`, `term_statistics`) and the Supabase
adapter.

Supabase itself cannot be reached here, so the adapter is tested against a local HTTP server speaking
PostgREST's RPC wire format (`POST /rest/v1/rpc/<function>` with a JSON object of named arguments, `apikey` +
bearer headers, a JSON array of rows or a scalar back); the server runs each call as the same SQL function on
the embedded Postgres, so the adapter and the functions are exercised together.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
import uvicorn
from psycopg import sql
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import OpenAIEmbeddings, cosine
from ai_llm.common.store.db import Database
from ai_llm.common.text.analysis import analyze, index_terms
from ai_llm.internal_rag_agent.vector_store import PgVectorStore, StoredChunk, SupabaseVectorStore
from tests.internal_rag_agent.conftest import unique_ref

SUPABASE_KEY = "test-service-role-key"
RPC_FUNCTIONS = {"match_documents", "term_match_documents", "term_statistics", "replace_document_chunks",
                 "delete_document_chunks", "update_document_meta", "document_content_hash"}

TEXTS = ["Multi-dose vials must be discarded 28 days after opening.",
         "The I2C bus clock runs at 400 kHz in fast mode.",
         "보건의료빅데이터플랫폼시범사업예산은46억원이다."]


async def store_texts(store: Any, embeddings: OpenAIEmbeddings, ref: str, texts: list[str]) -> list[list[float]]:
    vectors = await embeddings.embed(texts)
    chunks = [StoredChunk(ref, i, t, [i + 1], index_terms(t), v, "hash-" + ref, file_name=f"{ref}.pdf",
                          file_url=f"/api/files/{ref}/download") for i, (t, v) in enumerate(zip(texts, vectors,
                                                                                                strict=True))]
    assert await store.replace_document(ref, chunks) == len(texts)
    return vectors


async def _match(db: Database, query: list[float], threshold: float, count: int) -> list[dict[str, Any]]:
    """`match_documents` as the store calls it: HNSW `ef_search` raised to the count in the same transaction
    (with the default of 40 the index yields at most 40 candidates, whatever else the shared test database
    holds)."""
    async with db.connection() as conn:
        await conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(count, 40)),))
        cur = await conn.execute("SELECT * FROM match_documents(%s::vector, %s, %s)", (str(query), threshold, count))
        return list(await cur.fetchall())


async def test_match_documents_sql_function(db: Database, embeddings: OpenAIEmbeddings) -> None:
    ref = unique_ref("sql")
    vectors = await store_texts(PgVectorStore(db), embeddings, ref, TEXTS)
    [query] = await embeddings.embed(["How long can an opened multi-dose vial be kept?"])
    rows = await _match(db, query, -1.0, 1000)
    ours = [r for r in rows if r["storage_ref"] == ref]
    assert [r["chunk_index"] for r in ours][0] == 0
    for row in ours:
        assert row["similarity"] == pytest.approx(cosine(query, vectors[row["chunk_index"]]), abs=1e-4)
        assert row["pages"] == [row["chunk_index"] + 1] and row["file_name"] == f"{ref}.pdf"
    sims = [r["similarity"] for r in rows]
    assert sims == sorted(sims, reverse=True)
    # The threshold drops weaker rows; match_count caps the result.
    cut = (ours[0]["similarity"] + ours[1]["similarity"]) / 2
    above = await _match(db, query, cut, 1000)
    assert (ref, 0) in {(r["storage_ref"], r["chunk_index"]) for r in above}
    assert (ref, ours[1]["chunk_index"]) not in {(r["storage_ref"], r["chunk_index"]) for r in above}
    assert len(await _match(db, query, -1.0, 1)) == 1
    await PgVectorStore(db).delete_document(ref)


async def test_term_functions_find_korean_without_spaces_and_codes(db: Database,
                                                                  embeddings: OpenAIEmbeddings) -> None:
    ref = unique_ref("kw")
    store = PgVectorStore(db)
    await store_texts(store, embeddings, ref, TEXTS)
    hits = [h for h in await store.term_search(analyze("시범사업 예산은 얼마야?"), 50) if h.storage_ref == ref]
    assert hits and {h.chunk_index for h in hits} == {2} and hits[0].tokens == index_terms(TEXTS[2])
    hits = [h for h in await store.term_search(analyze("400 kHz"), 50) if h.storage_ref == ref]
    assert [h.chunk_index for h in hits] == [1]
    assert await store.term_search(analyze("zzqxv nonexistentword"), 10) == []
    stats = await store.term_stats(["시범", "zzqxv"])
    assert stats.df["zzqxv"] == 0 and stats.df["시범"] >= 1 and stats.n >= len(TEXTS) and stats.avgdl > 0
    await store.delete_document(ref)


def postgrest_app(pg_url: str) -> Starlette:
    """A minimal PostgREST: RPC calls only, answered by the embedded Postgres."""

    async def rpc(request: Request) -> JSONResponse:
        fn = request.path_params["fn"]
        if request.headers.get("apikey") != SUPABASE_KEY or \
                request.headers.get("authorization") != f"Bearer {SUPABASE_KEY}":
            return JSONResponse({"message": "Invalid API key"}, status_code=401)
        if fn not in RPC_FUNCTIONS:
            return JSONResponse({"code": "PGRST202", "message": f"Could not find the function public.{fn}"},
                                status_code=404)
        args: dict[str, Any] = await request.json()
        # JSON arrays of strings arrive as text[] (as PostgREST maps them); vectors and records as JSON text.
        values = [v if isinstance(v, list) and all(isinstance(x, str) for x in v)
                  else json.dumps(v) if isinstance(v, list | dict) else v for v in args.values()]
        call = sql.SQL("{}({})").format(sql.Identifier(fn), sql.SQL(", ").join(
            sql.SQL("{} => %s").format(sql.Identifier(name)) for name in args))
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            cur = await conn.execute("SELECT proretset FROM pg_proc WHERE proname = %s", (fn,))
            returns_set = (await cur.fetchone())[0]  # type: ignore[index]
            try:
                if returns_set:
                    cur = await conn.execute(sql.SQL("SELECT coalesce(json_agg(r), '[]') FROM {} r").format(call),
                                             values)
                else:
                    cur = await conn.execute(sql.SQL("SELECT to_json({})").format(call), values)
            except psycopg.Error as exc:
                return JSONResponse({"code": exc.sqlstate, "message": str(exc)}, status_code=400)
            (result,) = await cur.fetchone()  # type: ignore[misc]
        return JSONResponse(result)

    return Starlette(routes=[Route("/rest/v1/rpc/{fn}", rpc, methods=["POST"])])


@pytest.fixture
async def postgrest_url(pg_url: str) -> AsyncIterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(postgrest_app(pg_url), host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 - uvicorn exposes a flag, not an event
        await asyncio.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await task


async def test_supabase_adapter_over_postgrest_rpc(postgrest_url: str, db: Database,
                                                  embeddings: OpenAIEmbeddings) -> None:
    store = SupabaseVectorStore(postgrest_url, SUPABASE_KEY)
    ref = unique_ref("supa")
    try:
        await store_texts(store, embeddings, ref, TEXTS)  # replace_document_chunks RPC
        rows = await db.fetch("SELECT chunk_index, pages, content_hash FROM document_chunks WHERE storage_ref = %s "
                              "ORDER BY chunk_index", (ref,))
        assert [(r["chunk_index"], r["pages"]) for r in rows] == [(0, [1]), (1, [2]), (2, [3])]
        assert await store.content_hash(ref) == "hash-" + ref

        [query] = await embeddings.embed(["I2C fast mode clock frequency"])
        hits = [h for h in await store.vector_search(query, 50) if h.storage_ref == ref]  # match_documents RPC
        assert hits[0].chunk_index == 1 and hits[0].file_url == f"/api/files/{ref}/download"
        pg_hits = [h for h in await PgVectorStore(db).vector_search(query, 50) if h.storage_ref == ref]
        assert [(h.chunk_index, round(h.score, 4)) for h in hits] == [(h.chunk_index, round(h.score, 4))
                                                                      for h in pg_hits]
        kw = [h for h in await store.term_search(analyze("시범사업 예산"), 20) if h.storage_ref == ref]
        assert [h.chunk_index for h in kw] == [2]  # term_match_documents RPC
        stats = await store.term_stats(["시범", "zzqxv"])  # term_statistics RPC
        assert stats.df == {"시범": stats.df["시범"], "zzqxv": 0} and stats.df["시범"] >= 1

        assert await store.update_document(ref, "renamed.pdf", "/new/url") == 3
        assert {r["file_name"] for r in await db.fetch(
            "SELECT file_name FROM document_chunks WHERE storage_ref = %s", (ref,))} == {"renamed.pdf"}
        assert await store.delete_document(ref) == 3
        assert await store.content_hash(ref) is None
    finally:
        await store.close()


async def test_supabase_adapter_reports_rpc_errors(postgrest_url: str, db: Database,
                                                   embeddings: OpenAIEmbeddings) -> None:
    from ai_llm.internal_rag_agent.vector_store import VectorStoreError

    bad_key = SupabaseVectorStore(postgrest_url, "wrong-key")
    with pytest.raises(VectorStoreError, match="match_documents"):
        await bad_key.vector_search([0.0] * 384, 5)
    await bad_key.close()
    # Postgres compares dimensions row by row: with a row of our own, whatever the shared database holds when
    # this test runs, a wrong-dimension query meets one.
    ref = unique_ref("rpc-error")
    await store_texts(PgVectorStore(db), embeddings, ref, TEXTS[:1])
    store = SupabaseVectorStore(postgrest_url, SUPABASE_KEY)
    try:
        with pytest.raises(VectorStoreError, match="match_documents"):
            await store.vector_search([0.1] * 3, 5)  # wrong dimension: the SQL error comes back as an RPC error
    finally:
        await store.close()
        await PgVectorStore(db).delete_document(ref)
