"""`hub reindex` on its own embedded Postgres (the session database must keep its 384-dim schema): same model
re-embeds in place; a model with another dimension alters the column, rebuilds the HNSW index and records the
new model, after which the database opens again without the mismatch error."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import OpenAIEmbeddings, cosine
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database, EmbeddingMismatchError, migrate, start_embedded_postgres
from ai_llm.common.text import tokenize
from ai_llm.common.text.analysis import index_terms
from ai_llm.internal_rag_agent.answer_extraction import content_lines
from ai_llm.internal_rag_agent.reindex import HNSW_INDEX, reindex_all, reindex_database
from ai_llm.internal_rag_agent.vector_store import PgVectorStore, StoredChunk, unpack_line_vectors
from tests.conftest import EMBEDDING_DIM, EMBEDDING_MODEL

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

class TruncatedEmbeddings:
    """The real model's vectors cut to `dimension` values, under another model name: a second model with a
    different dimension for the purpose of this test (only one model is served here)."""

    def __init__(self, inner: OpenAIEmbeddings, dimension: int) -> None:
        self.inner = inner
        self.dimension = dimension
        self.model = f"{inner.model}-first{dimension}"

    async def embed(self, texts: Sequence[str], kind: str = "passage") -> list[list[float]]:
        return [v[: self.dimension] for v in await self.inner.embed(texts, kind=kind)]  # type: ignore[arg-type]


async def _line_dimensions(db: Database) -> list[int | None]:
    """The dimension of each chunk's stored line vectors (one line per chunk here), None when absent."""
    rows = await db.fetch("SELECT content, line_vectors FROM document_chunks ORDER BY chunk_index")
    matrices = [unpack_line_vectors(bytes(r["line_vectors"]), len(content_lines(r["content"])))
                if r["line_vectors"] is not None else None for r in rows]
    return [m.shape[1] if m is not None else None for m in matrices]


@pytest.fixture
def own_pg(tmp_path: Path) -> Iterator[str]:
    server, url = start_embedded_postgres(tmp_path / "pg")
    yield url
    server.cleanup()


async def test_reindex_same_and_new_dimension(own_pg: str, embeddings: OpenAIEmbeddings) -> None:
    await migrate(own_pg, EMBEDDING_MODEL, EMBEDDING_DIM)
    texts = ["Hand hygiene uses alcohol-based hand rub.", "The I2C address byte holds seven bits."]
    async with Database(own_pg) as db:
        vectors = await embeddings.embed(texts)
        await PgVectorStore(db).replace_document("doc", [
            # zero vectors, and the search terms of the analysis before Kiwi (bigrams, version "1")
            StoredChunk("doc", i, t, [i + 1], " ".join(tokenize(t)), [x * 0 for x in v], "h", analysis_version="1")
            for i, (t, v) in enumerate(zip(texts, vectors, strict=True))])
        assert await PgVectorStore(db).stale_analysis_chunks() == 2
        assert await _line_dimensions(db) == [None, None]

        same = await reindex_database(own_pg, embeddings)
        # The search terms were recomputed with the current analysis (stems, exact identifiers).
        assert await PgVectorStore(db).stale_analysis_chunks() == 0
        terms = [r["tokens"] for r in await db.fetch("SELECT tokens FROM document_chunks ORDER BY chunk_index")]
        assert terms == [index_terms(t) for t in texts] and "hygien" in terms[0].split()
        assert same == {"chunks": 2, "embedding_model": EMBEDDING_MODEL, "dimension": EMBEDDING_DIM,
                        "previous_dimension": EMBEDDING_DIM, "index_rebuilt": False, "search_cache_cleared": 0}
        rows = await db.fetch("SELECT chunk_index, embedding FROM document_chunks ORDER BY chunk_index")
        assert [round(float(rows[i]["embedding"].to_numpy()[0]), 5) for i in range(2)] == \
            [round(vectors[i][0], 5) for i in range(2)]  # the zero vectors were replaced by real ones
        assert await _line_dimensions(db) == [EMBEDDING_DIM, EMBEDDING_DIM]  # stored without, now computed

        small = TruncatedEmbeddings(embeddings, 128)
        with pytest.raises(EmbeddingMismatchError, match="hub reindex"):
            await migrate(own_pg, small.model, 128)
        changed = await reindex_database(own_pg, small)  # type: ignore[arg-type]
        assert changed["dimension"] == 128 and changed["previous_dimension"] == EMBEDDING_DIM
        assert changed["index_rebuilt"] is True
        assert await _line_dimensions(db) == [128, 128]  # the lines follow the new model too
        await migrate(own_pg, small.model, 128)  # no mismatch any more
        meta = {r["key"]: r["value"] for r in await db.fetch("SELECT key, value FROM hub_meta")}
        assert meta["embedding_model"] == small.model and meta["embedding_dim"] == "128"
        index = await db.fetchone("SELECT indexdef FROM pg_indexes WHERE indexname = %s", (HNSW_INDEX,))
        assert index and "hnsw" in index["indexdef"]
        [query] = await small.embed(["What does the address byte contain?"])
        hits = await PgVectorStore(db).vector_search(query, 2)
        assert [h.chunk_index for h in hits] == [1, 0]


async def test_a_model_of_the_same_dimension_is_refused_until_reindexed(own_pg: str,
                                                                        embeddings: OpenAIEmbeddings) -> None:
    """The model id, not only the dimension, guards the index: an index made with all-MiniLM-L6-v2 (384) is
    refused by multilingual-e5-small (384) until `hub reindex` re-embeds it, and then opens."""
    await migrate(own_pg, "all-MiniLM-L6-v2", 384)
    async with Database(own_pg) as db:
        await PgVectorStore(db).replace_document("doc", [
            StoredChunk("doc", 0, "The I2C address byte holds seven bits.", [1], "i2c address byte", [0.0] * 384, "h")])
        await db.execute("INSERT INTO search_cache (partition, provider, kind, params_key, query_norm, query, "
                         "embedding, response, expires_at) VALUES ('p', 'local', 'web', '', 'q', 'q', %s, '{}', "
                         "now() + interval '1 day')", (str([0.1] * 384),))
        with pytest.raises(EmbeddingMismatchError, match="indexed with all-MiniLM-L6-v2.*hub reindex"):
            await migrate(own_pg, EMBEDDING_MODEL, EMBEDDING_DIM)
        moved = await reindex_database(own_pg, embeddings)
        assert moved["embedding_model"] == EMBEDDING_MODEL and moved["index_rebuilt"] is False
        # The cached searches carried the old model's query vectors: they are gone.
        assert moved["search_cache_cleared"] == 1 and await db.fetch("SELECT query FROM search_cache") == []
        await migrate(own_pg, EMBEDDING_MODEL, EMBEDDING_DIM)  # no mismatch any more
        [stored] = [r["embedding"].to_numpy() for r in await db.fetch("SELECT embedding FROM document_chunks")]
        [expected] = await embeddings.embed(["The I2C address byte holds seven bits."], kind="passage")
        assert cosine(list(stored), expected) > 0.999  # the new model's passage vector, not the zeros


async def test_reindex_with_the_hub_stopped_serves_the_model_itself(own_pg: str, tmp_path: Path) -> None:
    """`hub reindex` is run while the hub is stopped: no embedding server answers, so it starts its own."""
    await migrate(own_pg, "all-MiniLM-L6-v2", 384)
    async with Database(own_pg) as db:
        await PgVectorStore(db).replace_document("doc", [
            StoredChunk("doc", 0, "The I2C address byte holds seven bits.", [1], "i2c address byte", [0.0] * 384, "h")])
    nobody = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens here
    settings = Settings(database_url=own_pg, embedding_url=nobody, data_dir=tmp_path / "data",
                        _env_file=None)  # type: ignore[call-arg]
    result = await reindex_all(settings)
    assert result["chunks"] == 1 and result["embedding_model"] == EMBEDDING_MODEL
    await migrate(own_pg, EMBEDDING_MODEL, EMBEDDING_DIM)  # the index moved to the configured model
