"""Vector-store port and its adapters: Postgres + pgvector (embedded or `DATABASE_URL`) and Supabase (RPC).

Both adapters use the same SQL schema and functions (`ai_llm/common/store/migrations/0002_documents.sql`,
`0006_terms.sql`): `match_documents` for vector search, `term_match_documents` and `term_statistics` for term
search (BM25) over the analysed `tokens` column. The pgvector adapter writes with one `COPY` inside one transaction; the Supabase adapter calls
`replace_document_chunks`, a SQL function (one transaction per call), because PostgREST cannot span requests.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import psycopg
from pgvector import Vector
from psycopg.types.json import Jsonb

from ai_llm.common.identity import Viewer
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.common.text.analysis import ANALYSIS_VERSION, TermStats

CHUNK_COLUMNS = ("storage_ref", "chunk_index", "file_name", "file_id", "file_url", "content", "pages", "tokens",
                 "embedding", "content_hash", "analysis_version", "source_kind", "line_vectors", "location",
                 "owner_id", "visibility")
#: Postgres types of CHUNK_COLUMNS for binary COPY (text COPY would format every float in Python: 6x slower).
CHUNK_COLUMN_TYPES = ["text", "int4", "text", "text", "text", "text", "int4[]", "text", "vector", "text", "text",
                      "text", "bytea", "jsonb", "text", "text"]
#: How stored line vectors are packed (`pack_line_vectors`): float16 keeps cosine within ±0.001.
LINE_VECTOR_DTYPE = np.float16


class VectorStoreError(RuntimeError):
    """The vector store failed (connection, SQL, RPC)."""


@dataclass
class StoredChunk:
    """A chunk as written to the store."""

    storage_ref: str
    chunk_index: int
    content: str
    pages: list[int]
    tokens: str
    embedding: list[float]
    content_hash: str
    file_name: str = ""
    file_id: str | None = None
    file_url: str | None = None
    analysis_version: str = ANALYSIS_VERSION
    source_kind: str = "upload"  # "report" for the hub's own generated reports
    line_vectors: bytes | None = None  # `pack_line_vectors` of the chunk's lines (`content_lines`), or None
    location: dict[str, Any] | None = None  # where the chunk is (`formats.structure` location), or None
    owner_id: str | None = None  # the document's owner (a user id), None for documents nobody owns
    visibility: str = "everyone"  # private | team:<name> | everyone (ai_llm/common/identity.py)


def pack_line_vectors(vectors: Sequence[Sequence[float]]) -> bytes:
    """The vectors of a chunk's lines as stored in `line_vectors`."""
    return np.asarray(vectors, dtype=LINE_VECTOR_DTYPE).tobytes()


def unpack_line_vectors(data: bytes, lines: int) -> np.ndarray | None:
    """`pack_line_vectors` read back as a (lines, dimension) float32 array; None when it does not hold
    `lines` vectors (the chunk's text or the splitting of lines changed since)."""
    flat = np.frombuffer(data, dtype=LINE_VECTOR_DTYPE)
    if not lines or flat.size % lines:
        return None
    return flat.reshape(lines, -1).astype(np.float32)


@dataclass
class ChunkHit:
    """A chunk found by a search; `score` is cosine similarity (vector) or ts_rank (keyword)."""

    storage_ref: str
    chunk_index: int
    content: str
    pages: list[int]
    score: float
    file_name: str = ""
    file_id: str | None = None
    file_url: str | None = None
    tokens: str | None = None  # the chunk's analysed terms when the search returned them
    source_kind: str = "upload"
    location: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.storage_ref}:{self.chunk_index}"

    @classmethod
    def from_row(cls, row: dict[str, Any], score_key: str) -> ChunkHit:
        return cls(storage_ref=row["storage_ref"], chunk_index=int(row["chunk_index"]), content=row["content"],
                   pages=[int(p) for p in (row.get("pages") or [])], score=float(row[score_key]),
                   file_name=row.get("file_name") or "", file_id=row.get("file_id"), file_url=row.get("file_url"),
                   tokens=row.get("tokens"), source_kind=row.get("source_kind") or "upload",
                   location=_location(row.get("location")))


def _location(value: Any) -> dict[str, Any] | None:
    if isinstance(value, str):  # PostgREST may hand jsonb back as text
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) and value else None


class VectorStore(Protocol):
    """What the indexing and search services need from a store."""

    async def content_hash(self, storage_ref: str) -> str | None:
        """Hash of the content indexed under `storage_ref`, or None."""
        ...

    async def replace_document(self, storage_ref: str, chunks: Sequence[StoredChunk]) -> int:
        """Atomically replace every chunk of `storage_ref` with `chunks`; returns rows written."""
        ...

    async def delete_document(self, storage_ref: str) -> int:
        ...

    async def update_document(self, storage_ref: str, file_name: str | None, file_url: str | None) -> int:
        ...

    async def vector_search(self, embedding: Sequence[float], k: int, threshold: float = -1.0,
                            viewer: Viewer | None = None) -> list[ChunkHit]:
        """Nearest chunks the viewer may read (no viewer: only documents shared with everyone)."""
        ...

    async def vector_search_many(self, embeddings: Sequence[Sequence[float]], k: int,
                                 viewer: Viewer | None = None) -> list[list[ChunkHit]]:
        """One ranked list per query vector (multi-query retrieval)."""
        ...

    async def term_search(self, terms: Sequence[str], per_term: int, viewer: Viewer | None = None) -> list[ChunkHit]:
        """Chunks holding any of `terms` (at most `per_term` per term), with their `tokens`, unscored."""
        ...

    async def term_stats(self, terms: Sequence[str], viewer: Viewer | None = None) -> TermStats:
        """Chunk count, mean length and each term's document frequency (BM25 statistics)."""
        ...

    async def line_vectors(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
        """The stored `line_vectors` of the chunks `(storage_ref, chunk_index)` that have them."""
        ...

    async def set_visibility(self, storage_ref: str, visibility: str) -> int:
        """Change who may read a document's chunks; returns chunks changed."""
        ...


class PgVectorStore:
    """Postgres + pgvector through the hub's async pool.

    Args:
        db: an open `Database` (migrated).
        ef_search: HNSW `ef_search` set for each vector search.
    """

    def __init__(self, db: Database, ef_search: int = 100) -> None:
        self.db = db
        self.ef_search = ef_search

    async def content_hash(self, storage_ref: str) -> str | None:
        row = await self.db.fetchone("SELECT document_content_hash(%s) AS h", (storage_ref,))
        return row["h"] if row else None

    async def replace_document(self, storage_ref: str, chunks: Sequence[StoredChunk]) -> int:
        async def write(conn: psycopg.AsyncConnection[Any]) -> None:
            # Serialise writers of the same document so concurrent re-uploads cannot interleave.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (storage_ref,))
            await conn.execute("DELETE FROM document_chunks WHERE storage_ref = %s", (storage_ref,))
            cur = conn.cursor()
            async with cur.copy(f"COPY document_chunks ({', '.join(CHUNK_COLUMNS)}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(CHUNK_COLUMN_TYPES)
                for c in chunks:
                    await copy.write_row((storage_ref, c.chunk_index, c.file_name, c.file_id, c.file_url,
                                          c.content, c.pages, c.tokens, np.asarray(c.embedding, dtype=np.float32),
                                          c.content_hash, c.analysis_version, c.source_kind, c.line_vectors,
                                          Jsonb(c.location) if c.location else None, c.owner_id, c.visibility))

        await self.db.run(write, transaction=True)
        return len(chunks)

    async def delete_document(self, storage_ref: str) -> int:
        row = await self.db.fetchone("SELECT delete_document_chunks(%s) AS n", (storage_ref,))
        return int(row["n"]) if row else 0

    async def update_document(self, storage_ref: str, file_name: str | None, file_url: str | None) -> int:
        row = await self.db.fetchone("SELECT update_document_meta(%s, %s, %s) AS n",
                                     (storage_ref, file_name, file_url))
        return int(row["n"]) if row else 0

    async def _search(self, query: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        """Rows of one search statement under this store's HNSW `ef_search` (set for its transaction only)."""
        async def rows(conn: psycopg.AsyncConnection[Any]) -> list[dict[str, Any]]:
            await conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(self.ef_search),))
            cur = await conn.execute(query, params)
            return list(await cur.fetchall())

        return await self.db.run(rows, transaction=True)

    async def vector_search(self, embedding: Sequence[float], k: int, threshold: float = -1.0,
                            viewer: Viewer | None = None) -> list[ChunkHit]:
        rows = await self._search("SELECT * FROM match_documents(%s, %s, %s, %s, %s, %s)",
                                  (Vector(list(embedding)), threshold, k, *_viewer(viewer)))
        return [ChunkHit.from_row(row, "similarity") for row in rows]  # type: ignore[arg-type]

    async def vector_search_many(self, embeddings: Sequence[Sequence[float]], k: int,
                                 viewer: Viewer | None = None) -> list[list[ChunkHit]]:
        """Every query vector in one SQL round trip (`match_documents` per vector through LATERAL)."""
        if not embeddings:
            return []
        rows = await self._search(
            "SELECT q.i, m.*, c.tokens FROM unnest(%s::vector[]) WITH ORDINALITY AS q(v, i), "
            "LATERAL match_documents(q.v, -1, %s, %s, %s, %s) m JOIN document_chunks c ON c.id = m.id "
            "ORDER BY q.i, m.similarity DESC",
            ([Vector(list(e)) for e in embeddings], k, *_viewer(viewer)))
        lists: list[list[ChunkHit]] = [[] for _ in embeddings]
        for row in rows:
            lists[int(row["i"]) - 1].append(ChunkHit.from_row(row, "similarity"))  # type: ignore[call-overload,arg-type]
        return lists

    async def stale_analysis_chunks(self) -> int:
        """Chunks whose search terms come from an older text analysis (`hub reindex` recomputes them)."""
        row = await self.db.fetchone("SELECT count(*) AS n FROM document_chunks WHERE analysis_version <> %s",
                                     (ANALYSIS_VERSION,))
        return int(row["n"]) if row else 0

    async def term_search(self, terms: Sequence[str], per_term: int, viewer: Viewer | None = None) -> list[ChunkHit]:
        if not terms:
            return []
        rows = await self.db.fetch("SELECT * FROM term_match_documents(%s, %s, %s, %s, %s)",
                                   (list(terms), per_term, *_viewer(viewer)))
        return [ChunkHit.from_row(row, "rank") for row in rows]

    async def term_stats(self, terms: Sequence[str], viewer: Viewer | None = None) -> TermStats:
        return _term_stats(await self.db.fetch("SELECT * FROM term_statistics(%s, %s, %s, %s)",
                                               (list(terms), *_viewer(viewer))))

    async def set_visibility(self, storage_ref: str, visibility: str) -> int:
        row = await self.db.fetchone("SELECT set_document_visibility(%s, %s) AS n", (storage_ref, visibility))
        return int(row["n"]) if row else 0

    async def line_vectors(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
        if not keys:
            return {}
        rows = await self.db.fetch(
            "SELECT c.storage_ref, c.chunk_index, c.line_vectors FROM document_chunks c "
            "JOIN unnest(%s::text[], %s::int[]) AS k(storage_ref, chunk_index) USING (storage_ref, chunk_index) "
            "WHERE c.line_vectors IS NOT NULL", ([k[0] for k in keys], [k[1] for k in keys]))
        return {(r["storage_ref"], int(r["chunk_index"])): bytes(r["line_vectors"]) for r in rows}


def _viewer(viewer: Viewer | None) -> tuple[bool, str | None, list[str]]:
    """The viewer arguments of the search functions; no viewer reads only what is shared with everyone."""
    return (viewer or Viewer.service()).sql_args()


def _viewer_params(viewer: Viewer | None) -> dict[str, Any]:
    every, user, teams = _viewer(viewer)
    return {"p_all": every, "p_viewer": user, "p_teams": teams}


def _term_stats(rows: Sequence[dict[str, Any]]) -> TermStats:
    if not rows:
        return TermStats(n=0, df={})
    return TermStats(n=int(rows[0]["n"]), df={r["term"]: int(r["df"]) for r in rows},
                     avgdl=float(rows[0]["avgdl"]) or 1.0)


class SupabaseVectorStore:
    """Supabase (PostgREST) through the `supabase` client; every operation is an RPC of the shared schema.

    Args:
        url: `SUPABASE_URL`.
        key: `SUPABASE_KEY` (service-role key for writes).
    """

    def __init__(self, url: str, key: str) -> None:
        self.url = url
        self.key = key
        self._client: Any = None

    async def _rpc(self, fn: str, params: dict[str, Any]) -> Any:
        from postgrest.exceptions import APIError
        from supabase import acreate_client

        if self._client is None:
            self._client = await acreate_client(self.url, self.key)
        try:
            response = await self._client.rpc(fn, params).execute()
        except APIError as exc:
            raise VectorStoreError(f"Supabase RPC {fn} failed: {exc.message or exc}") from exc
        except Exception as exc:  # network errors from httpx and the like
            raise VectorStoreError(f"Supabase RPC {fn} failed: {exc}") from exc
        return response.data

    async def content_hash(self, storage_ref: str) -> str | None:
        data = await self._rpc("document_content_hash", {"p_storage_ref": storage_ref})
        return data if isinstance(data, str) else None

    async def replace_document(self, storage_ref: str, chunks: Sequence[StoredChunk]) -> int:
        rows = [{"chunk_index": c.chunk_index, "file_name": c.file_name, "file_id": c.file_id,
                 "file_url": c.file_url, "content": c.content, "pages": c.pages, "tokens": c.tokens,
                 "embedding": json.dumps(c.embedding), "content_hash": c.content_hash,
                 "analysis_version": c.analysis_version, "source_kind": c.source_kind,
                 "location": c.location, "owner_id": c.owner_id, "visibility": c.visibility} for c in chunks]
        data = await self._rpc("replace_document_chunks", {"p_storage_ref": storage_ref, "p_chunks": rows})
        return int(data or 0)

    async def delete_document(self, storage_ref: str) -> int:
        return int(await self._rpc("delete_document_chunks", {"p_storage_ref": storage_ref}) or 0)

    async def update_document(self, storage_ref: str, file_name: str | None, file_url: str | None) -> int:
        return int(await self._rpc("update_document_meta", {"p_storage_ref": storage_ref,
                                                            "p_file_name": file_name,
                                                            "p_file_url": file_url}) or 0)

    async def vector_search(self, embedding: Sequence[float], k: int, threshold: float = -1.0,
                            viewer: Viewer | None = None) -> list[ChunkHit]:
        rows = await self._rpc("match_documents", {"query_embedding": list(embedding), "match_threshold": threshold,
                                                   "match_count": k, **_viewer_params(viewer)})
        return [ChunkHit.from_row(row, "similarity") for row in rows or []]

    async def vector_search_many(self, embeddings: Sequence[Sequence[float]], k: int,
                                 viewer: Viewer | None = None) -> list[list[ChunkHit]]:
        """One `match_documents` RPC per vector, sent concurrently (PostgREST has no batch RPC)."""
        return list(await asyncio.gather(*(self.vector_search(e, k, viewer=viewer) for e in embeddings)))

    async def term_search(self, terms: Sequence[str], per_term: int, viewer: Viewer | None = None) -> list[ChunkHit]:
        if not terms:
            return []
        rows = await self._rpc("term_match_documents", {"p_terms": list(terms), "per_term": per_term,
                                                        **_viewer_params(viewer)})
        return [ChunkHit.from_row(row, "rank") for row in rows or []]

    async def term_stats(self, terms: Sequence[str], viewer: Viewer | None = None) -> TermStats:
        if not terms:
            return TermStats(n=0, df={})
        return _term_stats(await self._rpc("term_statistics", {"p_terms": list(terms), **_viewer_params(viewer)})
                           or [])

    async def set_visibility(self, storage_ref: str, visibility: str) -> int:
        return int(await self._rpc("set_document_visibility", {"p_storage_ref": storage_ref,
                                                               "p_visibility": visibility}) or 0)

    async def line_vectors(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
        """None stored through PostgREST (the RPC schema has no column for them): the agent embeds the lines."""
        return {}

    async def close(self) -> None:
        if self._client is not None:
            await self._client.postgrest.aclose()
            self._client = None


def make_vector_store(settings: Settings, db: Database | None) -> VectorStore:
    """Supabase when `SUPABASE_URL` is set, else pgvector on the hub database."""
    if settings.supabase_url and settings.supabase_key:
        return SupabaseVectorStore(settings.supabase_url, settings.supabase_key)
    if db is None:
        raise VectorStoreError("no database: open the hub database before building the pgvector store")
    return PgVectorStore(db, ef_search=settings.rag_ef_search)
