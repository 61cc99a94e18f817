"""Hybrid retrieval: BM25 over analysed terms, fused with vector search, scored per sentence.

A question is analysed once (`ai_llm.common.text.analysis.analyze_query`): English stems and exact
identifiers, Korean morphemes (Kiwi), with cross-language and similar-meaning alternatives and, for a
follow-up, the earlier turn's terms as weaker ones. Then, concurrently:

* term search: every chunk holding a query term (`term_match_documents`), scored here with BM25 from the
  corpus statistics (`term_statistics`) — Postgres' own rank has no inverse document frequency, and a rare
  exact term ("clock stretching", `0x82`) must outrank common words;
* vector search: the question (and, with an LLM, its variants) embedded as queries in one batched call,
  `match_documents` per vector in one round trip.

Scores are normalised per list (BM25 by the best chunk's, cosines on the model's own band:
`embeddings.rescale_similarity`) and combined (`TERM_WEIGHT`, `VECTOR_WEIGHT`), the chunks deduplicated by
`storage_ref:chunk_index` and cut to the top k. With a multilingual model (the offline default,
multilingual-e5-small, or OpenAI's) a Korean question's vector votes like any other; with the English-only
all-MiniLM-L6-v2 it does not (`RAG_VECTOR_KOREAN` overrides), and the question's English rendering from the
glossary is embedded instead.

Whether the documents answer at all is decided later, per sentence, from evidence (`answer_extraction`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from ai_llm.common.degraded import note_degraded
from ai_llm.common.embeddings import EmbeddingError, Embeddings, is_multilingual, rescale_similarity
from ai_llm.common.identity import Viewer
from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.settings import Settings
from ai_llm.common.text import normalize
from ai_llm.common.text.analysis import QueryTerms, TermStats, analyze, analyze_query, bm25
from ai_llm.common.text.rules import query_variants, rewrite_query
from ai_llm.internal_rag_agent.vector_store import ChunkHit, VectorStore

log = logging.getLogger(__name__)

#: Chunks taken per query term from the term index, and per query vector from the vector index.
PER_TERM = 12
CANDIDATES_PER_LIST = 20
#: Weights of the normalised BM25 and cosine scores in a chunk's score (tuned on the dev split).
TERM_WEIGHT = 0.65
VECTOR_WEIGHT = 0.35
#: Of the `top_k` chunks, how many the model's query variants may fill with chunks the question's own ranking
#: did not keep. The question's ranking is never reordered by a variant: a model adds candidates, it cannot
#: push out the best ones the question found alone.
VARIANT_SLOTS = 3
#: Seconds between two checks for chunks of an older text analysis.
STALE_CHECK_S = 300.0
#: Score factor of the hub's own generated reports: originals rank above a report quoting them.
REPORT_FACTOR = 0.8
#: A follow-up stays on its conversation's document: other documents' chunks rank at this share.
OTHER_DOCUMENT_FACTOR = 0.7


class QueryPlan(BaseModel):
    """Structured output asked from an online LLM for multi-query retrieval."""

    # The bounds go into the schema, so a grammar-constrained server (llama.cpp) cannot generate past them.
    rewrite: str = Field(description="the question as a short keyword query (key nouns, no particles)",
                         json_schema_extra={"maxLength": 200})
    variants: list[str] = Field(description="three differently worded search queries for the same need",
                                json_schema_extra={"maxItems": 3, "items": {"type": "string", "maxLength": 200}})


#: Token budget of the query-variant call (a rewrite and three variants; a small model left unbounded can
#: write variants until its context is full).
QUERY_PLAN_MAX_TOKENS = 300


@dataclass
class RankedChunk:
    """A fused search result."""

    hit: ChunkHit
    term_score: float = 0.0
    vector_score: float = 0.0  # the question's own vector (what the offline search ranks by)
    relevance: float = 0.0
    matched_queries: set[int] = field(default_factory=set)
    variant_score: float = 0.0  # the best score of the model's query variants (see `search`)

    @property
    def key(self) -> str:
        return self.hit.key

    def terms(self) -> list[str]:
        """The chunk's analysed terms (from the index, or analysed now when the search did not return them)."""
        if self.hit.tokens is None:
            self.hit.tokens = " ".join(analyze(self.hit.content))
        return self.hit.tokens.split()


@dataclass
class SearchOutcome:
    """What one search produced."""

    question: str
    queries: list[str]
    chunks: list[RankedChunk]
    max_score: float
    query_terms: QueryTerms | None = None
    stats: TermStats | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    #: The question's own vector when the search embedded it (reused to rank the candidate sentences).
    question_vector: list[float] | None = None

    def to_debug(self) -> dict[str, Any]:
        return {"queries": self.queries, "max_score": self.max_score, "timings_ms": self.timings_ms,
                "chunks": [{"key": c.key, "pages": c.hit.pages, "term": round(c.term_score, 3),
                            "vector": round(c.vector_score, 3), "relevance": round(c.relevance, 3)}
                           for c in self.chunks]}


def english_rendering(query: QueryTerms) -> str:
    """A Korean question's English terms from the glossary (what an English-only embedding model can read)."""
    words: list[str] = []
    for group in query.groups:
        english = [t for t in group.alternatives if t.isascii()]
        if english and group.salient:
            words.append(english[0])
    return " ".join(words)


def rule_queries(question: str) -> list[str]:
    """The rules' rewrite plus up to three rule-based variants (distinct queries, rewrite first)."""
    question = normalize(question)
    return _distinct_queries(rewrite_query(question), [], question)


def _distinct_queries(rewrite: str, variants: Sequence[str], question: str) -> list[str]:
    """The rewrite, then the model's variants, then the rules' variants: up to four distinct queries."""
    queries = [rewrite]
    for candidate in [*variants, *query_variants(question, 3)]:
        if candidate and candidate not in queries:
            queries.append(candidate)
        if len(queries) == 4:
            break
    return queries


class RagSearchService:
    """Hybrid search over a `VectorStore`.

    Args:
        store: the vector store.
        embeddings: the embedding port (one batched call per search).
        llm: the LLM port, for query variants (`make_queries`).
        settings: `rag_top_k`, `rag_vector_korean`, `rag_expand_korean`.
    """

    def __init__(self, store: VectorStore, embeddings: Embeddings, llm: LLM, settings: Settings) -> None:
        self.store = store
        self.embeddings = embeddings
        self.llm = llm
        self.settings = settings
        self._stale_checked_at = -STALE_CHECK_S
        self._stale = 0

    async def _check_analysis_version(self) -> None:
        """Say (log and `degraded`) when stored chunks need `hub reindex` for the current text analysis."""
        check = getattr(self.store, "stale_analysis_chunks", None)
        if check is not None and time.monotonic() - self._stale_checked_at >= STALE_CHECK_S:
            self._stale_checked_at = time.monotonic()
            try:
                self._stale = await check()
            except Exception:  # the check is advice; a search must not fail on it
                self._stale = 0
        if self._stale:
            note_degraded("text_analysis", f"{self._stale} chunks were indexed with an older text analysis: run "
                          "`hub reindex` once to re-analyse them")

    def vectors_count_for(self, question: str) -> bool:
        """Whether the question's own vector may rank chunks (see module docstring)."""
        from ai_llm.common.text import is_korean

        if not is_korean(question):
            return True
        if self.settings.rag_vector_korean is not None:
            return self.settings.rag_vector_korean
        return is_multilingual(self.embeddings.model)

    async def make_queries(self, question: str) -> list[str]:
        """The model's rewrite plus up to three variants (distinct queries, rewrite first), topped up with the
        rules' variants; when the call fails, the rules' queries (`rule_queries`, counted as degraded).

        Raises:
            OfflineUnsupported: no model is configured (the caller decides what offline searches with).
        """
        question = normalize(question)
        try:
            plan = await self.llm.parse(
                [{"role": "system", "content": "You write search queries for a document search engine. "
                  "Keep codes, numbers and names exactly. Give one variant in English and one in Korean "
                  "when the documents may be written in either."},
                 {"role": "user", "content": question}], QueryPlan, purpose="rag_query_variants",
                max_tokens=QUERY_PLAN_MAX_TOKENS)
        except OfflineUnsupported:  # not a failure: the caller's offline path
            raise
        except LLMError as exc:  # fall back to the rules; a search must not fail on variants
            note_degraded("llm_query_variants", exc)
            return rule_queries(question)
        rewrite = normalize(plan.rewrite) or rewrite_query(question)
        return _distinct_queries(rewrite, [normalize(v) for v in plan.variants if normalize(v)], question)

    def _with_variants(self, ranked: list[RankedChunk], top_k: int, query: Any, stats: Any, best_term: float,
                       vector_weight: float) -> list[RankedChunk]:
        """The question's own ranking, whose last `VARIANT_SLOTS` places go to the chunks the variants rank
        best among those it did not keep (each scored as if the variant were the question)."""
        keep = max(top_k - VARIANT_SLOTS, 0)
        head, rest = ranked[:keep], ranked[keep:]

        def as_variant(c: RankedChunk) -> float:
            return ((1 - vector_weight) * c.term_score / best_term
                    + vector_weight * rescale_similarity(self.embeddings.model, max(c.vector_score, c.variant_score)))

        rest.sort(key=lambda c: (as_variant(c), c.relevance), reverse=True)
        return head + rest

    async def search(self, question: str, queries: Sequence[str] | None = None, top_k: int | None = None,
                     context: Sequence[str] = (), document: str | None = None,
                     viewer: Viewer | None = None) -> SearchOutcome:
        """Search with hybrid retrieval; returns scored chunks, best first.

        Args:
            question: the (standalone) question.
            queries: extra query texts for the vector side (LLM variants); default: the question alone.
            top_k: chunks kept (`RAG_TOP_K`).
            context: earlier turns of a follow-up (their terms count, weaker).
            document: the storage ref of the conversation's document (a follow-up's): its chunks rank ahead
                of other documents' (`OTHER_DOCUMENT_FACTOR`).
            viewer: whose documents may be read (the filter runs inside the SQL functions); None reads only
                documents shared with everyone.
        """
        top_k = top_k or self.settings.rag_top_k
        timings: dict[str, float] = {}
        started = time.perf_counter()
        await self._check_analysis_version()
        query = await asyncio.to_thread(analyze_query, question, context=context,
                                        expand_similar=self.settings.rag_expand_korean)
        timings["analyze"] = (time.perf_counter() - started) * 1000
        use_vectors = self.vectors_count_for(question)
        texts = [question, *[q for q in (queries or []) if q != question]] if use_vectors else []
        rendering = english_rendering(query) if query.korean and not use_vectors else ""
        if rendering:
            texts.append(rendering)
        terms = query.all_terms()
        t = time.perf_counter()
        vectors: list[list[float]] = []
        if texts:
            try:
                vectors = await self.embeddings.embed(texts, kind="query")  # one batched call for every query text
            except EmbeddingError as exc:  # the embedding server is down: term search still answers
                note_degraded("embeddings", exc)
        timings["embed"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        vector_lists, term_hits, stats = await asyncio.gather(
            self.store.vector_search_many(vectors, CANDIDATES_PER_LIST, viewer=viewer),
            self.store.term_search(terms, PER_TERM, viewer=viewer),
            self.store.term_stats(terms, viewer=viewer))
        timings["search"] = (time.perf_counter() - t) * 1000
        fused: dict[str, RankedChunk] = {}
        own = texts[:1] == [question]  # the first vector list is the question's own
        for qi, hits in enumerate(vector_lists):
            for hit in hits:
                entry = fused.setdefault(hit.key, RankedChunk(hit))
                if qi == 0 or not own:
                    entry.vector_score = max(entry.vector_score, hit.score)
                else:
                    entry.variant_score = max(entry.variant_score, hit.score)
                entry.matched_queries.add(qi)
                if entry.hit.tokens is None:
                    entry.hit.tokens = hit.tokens
        for hit in term_hits:
            entry = fused.setdefault(hit.key, RankedChunk(hit))
            if entry.hit.tokens is None:
                entry.hit.tokens = hit.tokens
        for entry in fused.values():
            entry.term_score = bm25(query, entry.terms(), stats)
        best_term = max((c.term_score for c in fused.values()), default=0.0) or 1.0
        vector_weight = VECTOR_WEIGHT if vectors else 0.0
        for entry in fused.values():
            entry.relevance = round((1 - vector_weight) * entry.term_score / best_term
                                    + vector_weight * rescale_similarity(self.embeddings.model,
                                                                        entry.vector_score), 4)
            if entry.hit.source_kind == "report":
                entry.relevance = round(entry.relevance * REPORT_FACTOR, 4)
            if document is not None and entry.hit.storage_ref != document:
                entry.relevance = round(entry.relevance * OTHER_DOCUMENT_FACTOR, 4)
        ranked = sorted(fused.values(), key=lambda c: (c.relevance, c.term_score), reverse=True)
        if any(c.variant_score > c.vector_score for c in ranked[top_k - VARIANT_SLOTS:]):
            ranked = self._with_variants(ranked, top_k, query, stats, best_term, vector_weight)
        ranked = ranked[:top_k]
        max_score = max((c.relevance for c in ranked), default=0.0)
        timings["total"] = (time.perf_counter() - started) * 1000
        return SearchOutcome(question, texts or [question], ranked, round(max_score, 4), query, stats, timings,
                             vectors[0] if vectors and texts[0] == question else None)
