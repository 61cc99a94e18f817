"""Retrieval, the pipeline's second stage: the chunks that may answer the question, and what weighs them.

The hybrid search (`rag_search_service.py`) ranks the chunks, a follow-up staying on the document its
conversation was about (`Retriever.search`); the reading stage (`reader/stage.py`) then asks for the question's
similarity to each candidate sentence (`Retriever.sentence_similarity`) and, when the words do not answer, for
the other language's chunks nearest the question's vector (`Retriever.other_language_chunks`) and the question's
words rendered in that language (`Retriever.translated`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import numpy as np

from ai_llm.common.degraded import note_degraded
from ai_llm.common.embeddings import (
    EmbeddingError,
    Embeddings,
    embed_queries_and_passages,
    reader_client,
    rescale_similarity,
)
from ai_llm.common.identity import Viewer
from ai_llm.common.text import is_korean
from ai_llm.common.text.analysis import QueryTerms, TermStats
from ai_llm.internal_rag_agent.answer_extraction import CHUNKS_CONSIDERED, candidate_sentences, content_lines
from ai_llm.internal_rag_agent.cross_language import CrossLingualJudge, translated_query
from ai_llm.internal_rag_agent.rag_search_service import RagSearchService, RankedChunk, SearchOutcome
from ai_llm.internal_rag_agent.vector_store import VectorStore, unpack_line_vectors

log = logging.getLogger(__name__)

#: Chunks in the other language than the question's added for the cross-lingual model when the words did not
#: answer (`Retriever.other_language_chunks`), taken from this many nearest the question's vector.
CROSS_LANGUAGE_CHUNKS = 3
CROSS_LANGUAGE_FETCH = 60


class Retriever:
    """The retrieval stage over one store.

    Args:
        store: vector store adapter (the other language's chunks, stored line vectors, term statistics).
        embeddings: embedding port (candidate sentences without a stored line vector).
        search_service: the hybrid search.
        cross_judge: the cross-lingual model that renders the question's words in the other language.
    """

    def __init__(self, store: VectorStore, embeddings: Embeddings, search_service: RagSearchService,
                 cross_judge: CrossLingualJudge) -> None:
        self.store = store
        self.embeddings = embeddings
        self.search_service = search_service
        self.cross_judge = cross_judge
        self._reader_embeddings: Embeddings | None = None

    async def search(self, question: str, queries: list[str], context: list[str],
                     viewer: Viewer | None) -> tuple[SearchOutcome, str | None]:
        """The search's outcome, and the follow-up's conversation document (its chunks rank first): the best
        chunk's document for the earlier turn (`context[0]`), None without a context."""
        document = None
        if context:  # a follow-up stays on the document its conversation was about
            earlier = await self.search_service.search(context[0], top_k=1, viewer=viewer)
            document = earlier.chunks[0].hit.storage_ref if earlier.chunks else None
        outcome = await self.search_service.search(question, queries=queries, context=context, document=document,
                                                   viewer=viewer)
        return outcome, document

    async def other_language_chunks(self, question: str, outcome: SearchOutcome,
                                    viewer: Viewer | None) -> list[RankedChunk]:
        """The `CROSS_LANGUAGE_CHUNKS` chunks in the other language than the question's nearest its vector, that
        the search did not rank among the chunks quoted from. E5's cosine across languages sits below its
        cosine within one (benchmarks/README.md, "Across languages"), so they rarely reach the fused ranking;
        within the other language, the answering chunk ranks high. Each gets the last considered chunk's
        relevance; only the cross-lingual model's judgement of its sentences can make it the answer."""
        if outcome.question_vector is None or CROSS_LANGUAGE_CHUNKS <= 0:
            return []
        try:
            lists = await self.store.vector_search_many([outcome.question_vector], CROSS_LANGUAGE_FETCH,
                                                        viewer=viewer)
        except Exception as exc:  # the store answered the search a moment ago: a failure here only narrows it
            note_degraded("cross_language", exc)
            return []
        korean = is_korean(question)
        considered = outcome.chunks[:CHUNKS_CONSIDERED]
        have = {c.key for c in considered}
        floor = min((c.relevance for c in considered), default=0.0)
        picked: list[RankedChunk] = []
        for hit in lists[0] if lists else []:
            if hit.key in have or is_korean(hit.content) == korean:
                continue
            picked.append(RankedChunk(hit, vector_score=hit.score, relevance=floor))
            if len(picked) == CROSS_LANGUAGE_CHUNKS:
                break
        return picked

    async def translated(self, question: str, outcome: SearchOutcome, across: Sequence[str],
                         viewer: Viewer | None) -> tuple[QueryTerms, TermStats]:
        """The question's terms with the other-language words the cross-lingual model takes for their
        translations (`translated_query`), and the corpus statistics that cover them."""
        query, stats = outcome.query_terms, outcome.stats
        assert query is not None and stats is not None
        try:
            translated, added = await asyncio.to_thread(translated_query, self.cross_judge, question, query, across)
            if not added:
                return query, stats
            extra = await self.store.term_stats(added, viewer=viewer)
        except Exception as exc:  # the words the tables give still count
            note_degraded("cross_language", exc)
            return query, stats
        return translated, TermStats(stats.n, {**extra.df, **stats.df}, stats.avgdl)

    async def sentence_similarity(self, question: str, outcome: SearchOutcome) -> dict[str, float]:
        """The question's similarity to each candidate sentence (cosine rescaled for the model to [0, 1]), for
        questions the embedding model can read (`similarities`)."""
        return (await self.similarities(question, outcome))[0]

    async def similarities(self, question: str, outcome: SearchOutcome, reader: bool = False
                           ) -> tuple[dict[str, float], dict[str, float]]:
        """The question's similarity to each candidate sentence (cosine rescaled for the model to [0, 1]), for
        questions the embedding model can read, and with `reader` the raw cosine of the reader's question
        vector (`READER_QUESTION_MODEL`, served beside e5) to the same sentence vectors (empty when it cannot
        be had: another embedding model, or the server does not serve it).

        The sentences' vectors come from the store (`line_vectors`, computed at indexing); only lines without
        one (chunks indexed before they were stored, the Supabase adapter) go to the embedding server, with the
        question when the search did not embed it."""
        if not self.search_service.vectors_count_for(question):
            return {}, {}
        chunks = outcome.chunks[:CHUNKS_CONSIDERED]
        sentences = list(dict.fromkeys(candidate_sentences(chunks)))
        if not sentences:
            return {}, {}
        known: dict[str, np.ndarray] = {}
        try:
            stored = await self.store.line_vectors([(c.hit.storage_ref, c.hit.chunk_index) for c in chunks])
        except Exception as exc:  # a store without them answers as before, by embedding
            log.warning("stored line vectors unavailable, embedding the sentences: %s", exc)
            stored = {}
        for chunk in chunks:
            data = stored.get((chunk.hit.storage_ref, chunk.hit.chunk_index))
            lines = content_lines(chunk.hit.content)
            matrix = unpack_line_vectors(data, len(lines)) if data else None
            if matrix is not None:
                known.update(zip(lines, matrix, strict=True))
        missing = [s for s in sentences if s not in known]
        # The search's own question vector, when it has one: with every line stored, no call at all.
        asked = [] if outcome.question_vector is not None else [question]
        asked_vectors: list[list[float]] = []
        vectors: list[list[float]] = []
        if asked or missing:
            try:
                asked_vectors, vectors = await embed_queries_and_passages(self.embeddings, asked, missing)
            except EmbeddingError as exc:
                note_degraded("embeddings", exc)
                return {}, {}
        q = np.asarray(outcome.question_vector if outcome.question_vector is not None else asked_vectors[0],
                       dtype=np.float32)
        known.update((s, np.asarray(v, dtype=np.float32)) for s, v in zip(missing, vectors, strict=True))
        usable = [s for s in sentences if known[s].shape[0] == q.shape[0]]
        if not usable:
            return {}, {}
        matrix = np.stack([known[s] for s in usable])
        model = self.embeddings.model
        similarity = {s: rescale_similarity(model, float(v)) for s, v in zip(usable, _cosines(matrix, q), strict=True)}
        tuned: dict[str, float] = {}
        if reader and (client := self._reader_client()) is not None:
            try:
                (reader_vector,) = await client.embed([question], kind="query")
            except EmbeddingError as exc:  # the rules decide then, and the reply says so
                note_degraded("reader", exc)
            else:
                r = np.asarray(reader_vector, dtype=np.float32)
                if r.shape[0] == matrix.shape[1]:
                    tuned = {s: float(v) for s, v in zip(usable, _cosines(matrix, r), strict=True)}
        return similarity, tuned

    def _reader_client(self) -> Embeddings | None:
        """The reader's question encoder at the embedding server, when the index is e5's (`reader_client`)."""
        if self._reader_embeddings is None:
            self._reader_embeddings = reader_client(self.embeddings)
        return self._reader_embeddings


def _cosines(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(q) or 1.0)
    return np.asarray(matrix @ q / np.where(norms > 0, norms, 1.0))
