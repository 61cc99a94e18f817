"""`hub reindex`: re-embed (chunks and their lines) and re-analyse every stored chunk with the configured model
and text analysis.

Used after changing `EMBEDDING_PROVIDER`/`EMBEDDING_MODEL` (the database refuses to start with a model other
than the one recorded; its error names this command), and once after an upgrade that changes the text analysis
(`text_analysis.ANALYSIS_VERSION`: the search terms of every chunk are recomputed from its stored text; the RAG
agent reports chunks of an older analysis as `degraded: ["text_analysis"]` until then). Every chunk is embedded first, then one transaction
swaps the vectors in — altering the column and rebuilding the HNSW index when the dimension changes — and the
new model is recorded with `set_embedding_meta`. When the model changed, the search cache is emptied (its query
vectors are the old model's; its column follows a new dimension). Run it while the hub is stopped: with the local embedding
provider and no embedding server answering, it starts one of its own for the run (the configured model).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import psycopg
from pgvector import Vector
from pgvector.psycopg import register_vector_async
from psycopg.rows import dict_row

from ai_llm.common.embeddings import Embeddings, make_embeddings
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import EmbeddingMismatchError, migrate, resolve_database_url, set_embedding_meta
from ai_llm.common.text.analysis import ANALYSIS_VERSION, index_terms
from ai_llm.hub.process import embedding_server
from ai_llm.internal_rag_agent.indexing_service import embed_lines

BATCH = 256
HNSW_INDEX = "document_chunks_embedding_hnsw"


async def _column_dimension(conn: psycopg.AsyncConnection[Any]) -> int:
    cur = await conn.execute("SELECT atttypmod FROM pg_attribute WHERE attrelid = 'document_chunks'::regclass "
                             "AND attname = 'embedding'")
    row = await cur.fetchone()
    return int(row["atttypmod"]) if row else 0  # type: ignore[call-overload]


async def reindex_database(url: str, embeddings: Embeddings,
                           progress: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """Re-embed every chunk in the database at `url` with `embeddings`."""
    say = progress or (lambda _m: None)
    probe = await embeddings.embed(["dimension probe"])
    dimension = len(probe[0])
    model_changed = False
    try:  # a fresh database: create the schema for this model first
        await migrate(url, embeddings.model, dimension)
    except EmbeddingMismatchError:
        model_changed = True  # the expected case: the recorded model differs and we are here to fix it
    async with await psycopg.AsyncConnection.connect(url, row_factory=dict_row) as conn:
        await register_vector_async(conn)
        cur = await conn.execute("SELECT id, content FROM document_chunks ORDER BY id")
        rows = await cur.fetchall()
        old_dimension = await _column_dimension(conn)
        say(f"re-embedding {len(rows)} chunks with {embeddings.model} ({dimension} dims; was {old_dimension})")
        terms = await asyncio.to_thread(lambda: [index_terms(r["content"]) for r in rows])
        vectors: list[list[float]] = []
        lines: list[bytes] = []
        for start in range(0, len(rows), BATCH):
            contents = [r["content"] for r in rows[start:start + BATCH]]
            vectors.extend(await embeddings.embed(contents))
            lines.extend(await embed_lines(embeddings, contents))
            say(f"{min(start + BATCH, len(rows))}/{len(rows)}")
        await conn.commit()
        async with conn.transaction():
            changed = old_dimension != dimension
            if changed:
                await conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
                await conn.execute("ALTER TABLE document_chunks ALTER COLUMN embedding DROP NOT NULL")
                await conn.execute(f"ALTER TABLE document_chunks ALTER COLUMN embedding TYPE vector({dimension}) "
                                   "USING NULL")
            await conn.execute(f"CREATE TEMP TABLE reindex_vectors (id bigint PRIMARY KEY, "
                               f"embedding vector({dimension}), line_vectors bytea) ON COMMIT DROP")
            async with conn.cursor().copy("COPY reindex_vectors (id, embedding, line_vectors) FROM STDIN") as copy:
                for row, vector, packed in zip(rows, vectors, lines, strict=True):
                    await copy.write_row((row["id"], Vector(vector), packed))
            await conn.execute("UPDATE document_chunks c SET embedding = r.embedding, line_vectors = r.line_vectors, "
                               "updated_at = now() FROM reindex_vectors r WHERE c.id = r.id")
            await conn.execute("CREATE TEMP TABLE reindex_terms (id bigint PRIMARY KEY, tokens text) ON COMMIT DROP")
            async with conn.cursor().copy("COPY reindex_terms (id, tokens) FROM STDIN") as copy:
                for row, tokens in zip(rows, terms, strict=True):
                    await copy.write_row((row["id"], tokens))
            await conn.execute("UPDATE document_chunks c SET tokens = r.tokens, analysis_version = %s "
                               "FROM reindex_terms r WHERE c.id = r.id", (ANALYSIS_VERSION,))
            cleared = 0
            if model_changed:  # the search cache's query vectors are the old model's: its entries go
                cur = await conn.execute("DELETE FROM search_cache")
                cleared = cur.rowcount
                if changed:
                    await conn.execute(f"ALTER TABLE search_cache ALTER COLUMN embedding TYPE vector({dimension}) "
                                       "USING NULL")
            if changed:
                await conn.execute("DELETE FROM document_chunks WHERE embedding IS NULL")  # rows added meanwhile
                await conn.execute("ALTER TABLE document_chunks ALTER COLUMN embedding SET NOT NULL")
                await conn.execute(f"CREATE INDEX {HNSW_INDEX} ON document_chunks "
                                   "USING hnsw (embedding vector_cosine_ops)")
    await set_embedding_meta(url, embeddings.model, dimension)
    return {"chunks": len(rows), "embedding_model": embeddings.model, "dimension": dimension,
            "previous_dimension": old_dimension, "index_rebuilt": old_dimension != dimension,
            "search_cache_cleared": cleared}


async def reindex_all(settings: Settings, progress: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """`hub reindex` with the configured database and embedding model."""
    url, server = await asyncio.to_thread(resolve_database_url, settings)
    with ExitStack() as stack:
        if settings.embedding_provider == "local":  # the hub is stopped: serve the model for this run
            base = await asyncio.to_thread(stack.enter_context, embedding_server(
                settings.embedding_base_url, token=settings.hub_token, log_dir=settings.logs_dir,
                env={"EMBEDDING_MODEL": settings.embedding_model_name}))
            settings = settings.model_copy(update={"embedding_url": base})
        embeddings = make_embeddings(settings)
        try:
            return await reindex_database(url, embeddings, progress)
        finally:
            await embeddings.close()
            del server  # the embedded server stops when its last user goes
