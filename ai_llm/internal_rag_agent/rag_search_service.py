"""Multi-query hybrid retrieval.

A question becomes a rewrite (key nouns, particles dropped) plus three variants (LLM when configured,
rule-based offline). All four are embedded in **one** batched call; vector searches (`match_documents`) and
keyword searches (`keyword_match_documents`, Hangul bigrams + English words) run concurrently — each kind
in one SQL round trip on pgvector; the ranked lists are fused with reciprocal rank fusion, deduplicated by
`storage_ref:chunk_index` (best score kept) and cut to the top k.

Each chunk also gets a **relevance** in 0–1 used for the no-result decision: the larger of its best cosine
similarity (rescaled) and its keyword coverage (the share of the question's distinct tokens it contains,
weighted by token length).

The offline embedding model (all-MiniLM-L6-v2) is English-only: Korean text embeds to vectors whose
similarities are noise (unrelated Korean sentences score 0.5–0.6). Unless `RAG_VECTOR_KOREAN` says otherwise
(default: on only with OpenAI embeddings), Korean questions are therefore ranked and scored by keyword search
alone — the queries are still embedded in the same batched call, the vector lists just do not vote.
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
from ai_llm.common.embeddings import EmbeddingError, Embeddings
from ai_llm.common.llm import LLM, LocalEngine
from ai_llm.common.settings import Settings
from ai_llm.common.text import content_words, is_korean, normalize, tokenize
from ai_llm.internal_rag_agent.vector_store import ChunkHit, VectorStore

log = logging.getLogger(__name__)

RRF_K = 60
#: Candidates taken from each ranked list before fusion.
CANDIDATES_PER_LIST = 20
#: Cosine similarities are rescaled from [SIM_FLOOR, SIM_CEIL] to [0, 1] (MiniLM: unrelated text ≈ 0.1–0.3).
SIM_FLOOR = 0.2
SIM_CEIL = 0.8


class QueryPlan(BaseModel):
    """Structured output asked from an online LLM for multi-query retrieval."""

    rewrite: str = Field(description="the question as a short keyword query (key nouns, no particles)")
    variants: list[str] = Field(description="three differently worded search queries for the same need")


@dataclass
class RankedChunk:
    """A fused search result."""

    hit: ChunkHit
    rrf: float = 0.0
    vector_score: float = 0.0
    keyword_rank: float = 0.0
    keyword_coverage: float = 0.0
    relevance: float = 0.0
    matched_queries: set[int] = field(default_factory=set)

    @property
    def key(self) -> str:
        return self.hit.key


@dataclass
class SearchOutcome:
    """What one search produced."""

    question: str
    queries: list[str]
    chunks: list[RankedChunk]
    max_score: float
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_debug(self) -> dict[str, Any]:
        return {"queries": self.queries, "max_score": self.max_score, "timings_ms": self.timings_ms,
                "chunks": [{"key": c.key, "pages": c.hit.pages, "rrf": round(c.rrf, 5),
                            "vector": round(c.vector_score, 3), "coverage": round(c.keyword_coverage, 3),
                            "relevance": round(c.relevance, 3)} for c in self.chunks]}


def _token_weights(question: str) -> dict[str, float]:
    """Distinct query tokens with weights: longer English words and digits weigh more than Hangul bigrams."""
    weights: dict[str, float] = {}
    for token in tokenize(" ".join(content_words(question)) or question):
        if token in weights:
            continue
        if any(c.isdigit() for c in token):
            weights[token] = 1.5
        elif token.isascii():
            weights[token] = 1.0 + min(len(token), 10) / 10
        else:
            weights[token] = 1.0
    return weights


def keyword_coverage(question_weights: dict[str, float], content: str) -> float:
    """Weighted share of the question's tokens that occur in `content` (0–1)."""
    total = sum(question_weights.values())
    if not total:
        return 0.0
    present = set(tokenize(content))
    return sum(w for t, w in question_weights.items() if t in present) / total


def rescale_similarity(similarity: float) -> float:
    return max(0.0, min(1.0, (similarity - SIM_FLOOR) / (SIM_CEIL - SIM_FLOOR)))


class RagSearchService:
    """Multi-query hybrid search over a `VectorStore`.

    Args:
        store: the vector store.
        embeddings: the embedding port (one batched call per search).
        llm: `OpenAIChat` for LLM query variants, or the offline `LocalEngine` (rule-based).
        settings: `rag_top_k`.
    """

    def __init__(self, store: VectorStore, embeddings: Embeddings, llm: LLM | LocalEngine,
                 settings: Settings) -> None:
        self.store = store
        self.embeddings = embeddings
        self.llm = llm
        self.settings = settings
        self._rules = llm if isinstance(llm, LocalEngine) else LocalEngine(None)

    def vectors_count_for(self, question: str) -> bool:
        """Whether vector similarity may rank/score this question (see module docstring)."""
        if not is_korean(question):
            return True
        if self.settings.rag_vector_korean is not None:
            return self.settings.rag_vector_korean
        return self.settings.embedding_provider == "openai"

    async def make_queries(self, question: str) -> list[str]:
        """The rewrite plus three variants (four distinct queries, rewrite first)."""
        question = normalize(question)
        rewrite = self._rules.rewrite_query(question)
        variants: list[str] = []
        if getattr(self.llm, "online", False):
            try:
                plan = await self.llm.parse(
                    [{"role": "system", "content": "You write search queries for a document search engine. "
                      "Keep the language of the question; keep codes, numbers and names exactly."},
                     {"role": "user", "content": question}], QueryPlan, purpose="rag_query_variants")
                rewrite = normalize(plan.rewrite) or rewrite
                variants = [normalize(v) for v in plan.variants if normalize(v)]
            except Exception as exc:  # fall back to the rules; a search must not fail on variants
                log.warning("LLM query variants failed, using rules: %s", exc)
        queries = [rewrite]
        for candidate in [*variants, *self._rules.query_variants(question, 3)]:
            if candidate and candidate not in queries:
                queries.append(candidate)
            if len(queries) == 4:
                break
        return queries

    async def search(self, question: str, queries: Sequence[str] | None = None,
                     top_k: int | None = None) -> SearchOutcome:
        """Search with multi-query hybrid retrieval; returns fused chunks, best first."""
        top_k = top_k or self.settings.rag_top_k
        timings: dict[str, float] = {}
        started = time.perf_counter()
        query_list = list(queries) if queries is not None else await self.make_queries(question)
        timings["rewrite"] = (time.perf_counter() - started) * 1000
        t = time.perf_counter()
        try:
            vectors = await self.embeddings.embed(query_list)  # one batched call for every query
        except EmbeddingError as exc:  # the embedding server is down: keyword search still answers
            note_degraded("embeddings", exc)
            vectors = []
        timings["embed"] = (time.perf_counter() - t) * 1000
        token_lists: list[list[str]] = []
        for q in [question, *query_list]:
            tokens = list(dict.fromkeys(tokenize(q)))
            # The keyword query ORs its tokens, so a variant that only reorders words is the same search.
            if tokens and set(tokens) not in [set(t) for t in token_lists]:
                token_lists.append(tokens)
        t = time.perf_counter()
        use_vectors = self.vectors_count_for(question)
        vector_lists, keyword_lists = await asyncio.gather(
            self.store.vector_search_many(vectors if use_vectors else [], CANDIDATES_PER_LIST),
            self.store.keyword_search_many(token_lists, CANDIDATES_PER_LIST))
        timings["search"] = (time.perf_counter() - t) * 1000
        fused: dict[str, RankedChunk] = {}
        for qi, hits in enumerate(vector_lists):
            for rank, hit in enumerate(hits):
                entry = fused.setdefault(hit.key, RankedChunk(hit))
                entry.rrf += 1.0 / (RRF_K + rank + 1)
                entry.vector_score = max(entry.vector_score, hit.score)
                entry.matched_queries.add(qi)
        for hits in keyword_lists:
            for rank, hit in enumerate(hits):
                entry = fused.setdefault(hit.key, RankedChunk(hit))
                entry.rrf += 1.0 / (RRF_K + rank + 1)
                entry.keyword_rank = max(entry.keyword_rank, hit.score)
        weights = _token_weights(question)
        for entry in fused.values():
            entry.keyword_coverage = keyword_coverage(weights, entry.hit.content)
            entry.relevance = max(rescale_similarity(entry.vector_score), entry.keyword_coverage)
        ranked = sorted(fused.values(), key=lambda c: (c.rrf, c.relevance), reverse=True)[:top_k]
        max_score = max((c.relevance for c in ranked), default=0.0)
        timings["total"] = (time.perf_counter() - started) * 1000
        return SearchOutcome(question, query_list, ranked, round(max_score, 4), timings)
