"""The document catalog: what the index holds, one entry per document, for the orchestrator's planner.

Each entry: `storage_ref`, `file_name`, a `title` (the first sentence of the first chunk, trimmed), `language`
(`ko` when Hangul is a large share of the letters, else `en`), `pages`, `chunks` and about 15 `key_terms`
(analysed terms from the chunks' `tokens` column that are frequent in the document and rare across the
documents: tf·idf). It is computed from `document_chunks` and cached; a cheap signature (chunk count, newest
`updated_at`) tells when the table changed (upload, delete, rename), so the next request recomputes it.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from ai_llm.common.identity import Viewer
from ai_llm.common.store.db import Database
from ai_llm.common.text import is_korean, split_sentences

#: Key terms kept per document.
KEY_TERMS = 15
#: Characters of a title.
TITLE_CHARS = 120
#: A term shorter than this (in characters) is never a key term (particles, single letters, digits).
MIN_TERM_CHARS = 2
#: Above this Hangul share of letters a document is Korean.
KOREAN_SHARE = 0.3

_PAGE_MARKER = re.compile(r"\[페이지\s*\d+\]")
_SPACES = re.compile(r"\s+")


@dataclass
class CatalogEntry:
    """One indexed document as the planner sees it."""

    storage_ref: str
    file_name: str
    title: str
    language: str
    pages: int
    chunks: int
    key_terms: list[str] = field(default_factory=list)
    owner_id: str | None = None
    visibility: str = "everyone"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["owner_id"], out["visibility"]  # who may see it decides the list, it is not shown
        return out


def language_of(text: str) -> str:
    """`ko` when Hangul is at least `KOREAN_SHARE` of the letters, else `en`."""
    return "ko" if is_korean(text, KOREAN_SHARE) else "en"


def title_of(first_chunk: str) -> str:
    """The first sentence of the first chunk, page markers removed, trimmed to `TITLE_CHARS`."""
    text = _SPACES.sub(" ", _PAGE_MARKER.sub(" ", first_chunk)).strip()
    sentences = [s.strip() for s in split_sentences(text) if s.strip()]
    title = sentences[0] if sentences else text
    return title if len(title) <= TITLE_CHARS else title[:TITLE_CHARS].rsplit(" ", 1)[0] + "…"


def key_terms(term_counts: dict[str, Counter[str]], limit: int = KEY_TERMS) -> dict[str, list[str]]:
    """Per document the `limit` terms of highest tf·idf (tf: log-scaled count in the document; idf over the
    documents); ties broken alphabetically so the catalog is deterministic."""
    n = len(term_counts)
    df: Counter[str] = Counter()
    for counts in term_counts.values():
        df.update(counts.keys())
    out: dict[str, list[str]] = {}
    for ref, counts in term_counts.items():
        scored = []
        for term, count in counts.items():
            if len(term) < MIN_TERM_CHARS or term.isdigit() or count < 2:
                continue
            idf = math.log((n + 1) / (df[term] + 0.5))
            scored.append((-(1 + math.log(count)) * idf, term))
        out[ref] = [term for _, term in sorted(scored)[:limit]]
    return out


def build_catalog(rows: list[dict[str, Any]]) -> list[CatalogEntry]:
    """The catalog from chunk rows (`storage_ref`, `file_name`, `chunk_index`, `content`, `pages`, `tokens`)."""
    docs: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        docs.setdefault(row["storage_ref"], []).append(row)
    counts = {ref: Counter(t for r in chunks for t in (r.get("tokens") or "").split()) for ref, chunks in docs.items()}
    terms = key_terms(counts)
    entries = []
    for ref, chunks in sorted(docs.items()):
        chunks.sort(key=lambda r: int(r["chunk_index"]))
        sample = " ".join(str(r["content"]) for r in chunks[:5])
        pages = {int(p) for r in chunks for p in (r.get("pages") or [])}
        entries.append(CatalogEntry(storage_ref=ref, file_name=chunks[0].get("file_name") or ref,
                                    title=title_of(str(chunks[0]["content"])), language=language_of(sample),
                                    pages=max(pages) if pages else 0, chunks=len(chunks), key_terms=terms[ref],
                                    owner_id=chunks[0].get("owner_id"),
                                    visibility=chunks[0].get("visibility") or "everyone"))
    return entries


class DocumentCatalog:
    """The catalog of a Postgres index, cached until `document_chunks` changes.

    Args:
        db: the RAG agent's open database (None, e.g. with Supabase: the catalog is empty).
    """

    def __init__(self, db: Database | None) -> None:
        self.db = db
        self._signature: tuple[Any, ...] | None = None
        self._entries: list[CatalogEntry] = []
        self._lock = asyncio.Lock()

    async def entries(self, viewer: Viewer | None = None) -> list[CatalogEntry]:
        """The documents `viewer` may read (none given: those shared with everyone); the catalog is
        recomputed only when the chunks, their newest `updated_at` or any document's visibility changed."""
        if self.db is None:
            return []
        row = await self.db.fetchone(
            "SELECT count(*) AS n, max(updated_at) AS changed, "
            "md5(coalesce(string_agg(DISTINCT storage_ref || ':' || visibility, ','), '')) AS shared "
            "FROM document_chunks")
        signature = (row or {}).get("n"), (row or {}).get("changed"), (row or {}).get("shared")
        reader = viewer or Viewer.service()
        async with self._lock:
            if signature != self._signature:
                rows = await self.db.fetch("SELECT storage_ref, file_name, chunk_index, content, pages, tokens, "
                                           "owner_id, visibility FROM document_chunks")
                self._entries = await asyncio.to_thread(build_catalog, rows)
                self._signature = signature
            return [e for e in self._entries if reader.may_read(e.owner_id, e.visibility)]


async def probe_chunks(db: Database, forms: list[str], groups: list[int], weights: list[float], viewer: Viewer,
                       limit: int = 3) -> list[dict[str, Any]]:
    """The chunks `viewer` may read that hold the most weight of a question's term groups (no model: the GIN
    index of `fts` finds candidates holding any form; each scores the summed weight of the distinct groups it
    holds). `forms[i]` belongs to group `groups[i]`, worth `weights[i]`. Rows: `storage_ref`, `file_name`,
    `chunk_index`, `matched` (group numbers) and `score`, best first."""
    if not forms:
        return []
    everything, viewer_id, teams = viewer.sql_args()
    return await db.fetch(
        "WITH f AS (SELECT * FROM unnest(%s::text[], %s::int[], %s::float8[]) AS f(form, grp, weight) "
        "           WHERE plainto_tsquery('simple', form)::text <> ''), "
        "q AS (SELECT to_tsquery('simple', string_agg('(' || plainto_tsquery('simple', form)::text || ')', ' | '))"
        "      AS query FROM f) "
        "SELECT c.storage_ref, c.file_name, c.chunk_index, m.matched, m.score "
        "FROM document_chunks c, q, LATERAL ("
        "  SELECT array_agg(DISTINCT g.grp ORDER BY g.grp) AS matched, coalesce(sum(g.weight), 0)::float AS score "
        "  FROM (SELECT DISTINCT f.grp, f.weight FROM f WHERE c.fts @@ plainto_tsquery('simple', f.form)) g) m "
        "WHERE c.fts @@ q.query AND chunk_visible(%s, %s, %s, c.owner_id, c.visibility) "
        "ORDER BY m.score DESC, c.id LIMIT %s",
        (forms, groups, weights, everything, viewer_id, teams, limit))
