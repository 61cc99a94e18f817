"""Shared search cache in the hub's Postgres: exact layer (normalised query + parameters) and semantic
layer (query-embedding cosine ≥ threshold), both within a provider partition and identical parameters.
The semantic layer returns the nearest few candidates; the gateway serves one only when
`query_match.same_request` says the cached query asks the same thing.

Lookups try the chain's partitions in chain order, so a cached answer of the primary provider is preferred;
stores go to the partition of the provider that answered (one row per partition: providers never overwrite
each other). TTL: per provider, short for news / `time_range=day`, long otherwise. A lookup may also name,
per partition, the oldest entry it accepts (`max_age_s`: a workload whose TTL class is `fresh` does not take
an entry another workload cached for longer).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from ai_llm.common.store.db import ASYNC_COMMIT, Database
from ai_llm.search_gateway.models import SearchRequest

log = logging.getLogger(__name__)

#: Lookup condition: the entry is no older than its partition's `max_age_s` (`ages`, in `parts` order).
_AGE = (" AND created_at > now() - make_interval(secs => (%(ages)s::int[])[array_position(%(parts)s, partition)])")


@dataclass
class CacheHit:
    partition: str
    provider: str
    query: str  # the query that was cached (differs from the asked one on a semantic hit)
    response: dict[str, Any]
    similarity: float = 1.0
    query_norm: str = ""


class SearchCache:
    """Exact + semantic cache over `search_cache` (migration 0003)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get_exact(self, partitions: list[str], request: SearchRequest, query_norm: str,
                        max_age_s: list[int] | None = None) -> CacheHit | None:
        """Read-only lookup (the hit counter is bumped later by `count_hit`, off the response path);
        `max_age_s`: per partition (same order), the oldest entry accepted."""
        if not partitions:
            return None
        row = await self.db.fetchone(
            "SELECT partition, provider, query, query_norm, response FROM search_cache"
            " WHERE partition = ANY(%(parts)s) AND kind = %(kind)s AND params_key = %(params)s"
            f" AND query_norm = %(norm)s AND expires_at > now(){_AGE if max_age_s else ''}"
            " ORDER BY array_position(%(parts)s, partition) LIMIT 1",
            {"parts": partitions, "kind": request.kind, "params": request.params_key(), "norm": query_norm,
             "ages": max_age_s})
        if row is None:
            return None
        return CacheHit(row["partition"], row["provider"], row["query"], row["response"],
                        query_norm=row["query_norm"])

    async def count_hit(self, hit: CacheHit, request: SearchRequest) -> None:
        await self.db.execute(
            f"UPDATE search_cache SET hits = hits + 1 FROM {ASYNC_COMMIT} WHERE partition = %s AND kind = %s"
            " AND params_key = %s AND query_norm = %s", (hit.partition, request.kind, request.params_key(),
                                                        hit.query_norm))

    async def get_semantic(self, partitions: list[str], request: SearchRequest, embedding: list[float],
                           threshold: float, limit: int = 5, max_age_s: list[int] | None = None) -> list[CacheHit]:
        """The `limit` cached queries nearest to `embedding` with cosine ≥ `threshold`, nearest first.

        Candidates only: whether one may be served is the caller's decision (`query_match.same_request`).
        """
        if not partitions:
            return []
        rows = await self.db.fetch(
            "SELECT partition, provider, query, query_norm, response, 1 - (embedding <=> %(emb)s::vector) AS sim"
            " FROM search_cache WHERE partition = ANY(%(parts)s) AND kind = %(kind)s"
            f" AND params_key = %(params)s AND expires_at > now() AND embedding IS NOT NULL{_AGE if max_age_s else ''}"
            " ORDER BY embedding <=> %(emb)s::vector LIMIT %(limit)s",
            {"emb": _vector(embedding), "parts": partitions, "kind": request.kind,
             "params": request.params_key(), "limit": max(1, limit), "ages": max_age_s})
        return [CacheHit(row["partition"], row["provider"], row["query"], row["response"], float(row["sim"]),
                         query_norm=row["query_norm"]) for row in rows if float(row["sim"]) >= threshold]

    async def put(self, partition: str, provider: str, request: SearchRequest, query_norm: str,
                  embedding: list[float] | None, response: dict[str, Any], ttl_s: int) -> None:
        # A lost cache row after a crash costs one provider call: no need to wait for the WAL flush.
        await self.db.execute(
            "INSERT INTO search_cache (partition, provider, kind, params_key, query_norm, query, embedding,"
            " response, expires_at) SELECT %s, %s, %s, %s, %s, %s, %s::vector, %s::jsonb,"
            f" now() + make_interval(secs => %s) FROM {ASYNC_COMMIT}"
            " ON CONFLICT (partition, kind, params_key, query_norm) DO UPDATE SET query = EXCLUDED.query,"
            " embedding = EXCLUDED.embedding, response = EXCLUDED.response, created_at = now(),"
            " expires_at = EXCLUDED.expires_at, hits = 0",
            (partition, provider, request.kind, request.params_key(), query_norm, request.query,
             _vector(embedding) if embedding else None, json.dumps(response, ensure_ascii=False), ttl_s))

    async def purge_expired(self) -> int:
        rows = await self.db.fetch("WITH gone AS (DELETE FROM search_cache WHERE expires_at <= now() RETURNING 1) "
                                   "SELECT count(*) AS n FROM gone")
        return int(rows[0]["n"])


def _vector(values: list[float]) -> str:
    return "[" + ",".join(f"{v:.7g}" for v in values) + "]"
