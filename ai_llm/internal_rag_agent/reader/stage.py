"""Reading, the pipeline's third stage: the evidence in the retrieved chunks, the sentences that answer.

The candidate sentences are scored by their words and their similarity to the question (`find_evidence`); when
the words do not answer, sentences in the other language are judged by the cross-lingual model (a second pass
over the chunks found and the other language's chunks nearest the question); with `RAG_READER` the reader
model (`reading.read`), reading the cosines of its fine-tuned question encoder, then chooses the quotes and
decides whether they answer. The answer stage (`answer.py`) comes next.
"""

from __future__ import annotations

import asyncio

from ai_llm.common.degraded import note_degraded
from ai_llm.common.identity import Viewer
from ai_llm.common.settings import Settings
from ai_llm.internal_rag_agent.answer_extraction import (
    CHUNKS_CONSIDERED,
    Evidence,
    candidate_sentences,
    find_evidence,
    other_language,
)
from ai_llm.internal_rag_agent.cross_language import CrossLingualJudge
from ai_llm.internal_rag_agent.rag_search_service import SearchOutcome
from ai_llm.internal_rag_agent.reader.model import load_model
from ai_llm.internal_rag_agent.reader.reading import (
    FOLLOWER_MARGIN,
    MAX_QUOTES,
    REPORT_MARGIN,
    REPORT_QUOTES,
    read,
)
from ai_llm.internal_rag_agent.retrieval import Retriever


class EvidenceReader:
    """The reading stage.

    Args:
        retriever: the retrieval stage (sentence similarities, the other language's chunks and words).
        cross_judge: the cross-lingual model that judges a sentence in the other language.
        settings: hub settings (`rag_min_*` thresholds, `rag_reader`).
    """

    def __init__(self, retriever: Retriever, cross_judge: CrossLingualJudge, settings: Settings) -> None:
        self.retriever = retriever
        self.cross_judge = cross_judge
        self.settings = settings

    async def evidence(self, question: str, outcome: SearchOutcome, viewer: Viewer | None,
                       breadth: str = "answer") -> Evidence:
        """The evidence the search's chunks hold for `question`: the sentences that answer it (`breadth`
        "answer"), or, for a report's retrieval ("report"), what the documents say on it."""
        quotes, margin = (REPORT_QUOTES, REPORT_MARGIN) if breadth == "report" else (MAX_QUOTES, FOLLOWER_MARGIN)
        assert outcome.query_terms is not None and outcome.stats is not None
        reader = load_model() if self.settings.rag_reader else None
        similarity, tuned = await self.retriever.similarities(question, outcome, reader is not None
                                                              and reader.reads_question_encoder)
        if reader is not None and tuned:  # read against the encoder's own "none of them" cosine, as trained
            tuned = {s: v - reader.null_cosine for s, v in tuned.items()}
        evidence = await asyncio.to_thread(find_evidence, question, outcome.query_terms, outcome.stats,
                                           outcome.chunks, quotes, similarity, tuned=tuned)
        if not evidence.unknown and not evidence.lexical(self.settings.rag_min_evidence,
                                                         self.settings.rag_min_question_coverage,
                                                         self.settings.rag_min_question_similarity):
            # The words do not answer: sentences in the other language may, by the cross-lingual model — those
            # of the chunks found and of the other language's chunks nearest the question's vector, which the
            # words of a question in one language cannot rank (`Retriever.other_language_chunks`) — and the
            # question's words count in those sentences through the renderings the same model gives them
            # (`Retriever.translated`).
            chunks = [*outcome.chunks[:CHUNKS_CONSIDERED],
                      *await self.retriever.other_language_chunks(question, outcome, viewer)]
            across = other_language(question, list(dict.fromkeys(candidate_sentences(chunks, len(chunks)))))
            if across:
                try:
                    cross = await asyncio.to_thread(self.cross_judge.similarity, question, across)
                except Exception as exc:  # a missing model: the words alone decide, and the reply says so
                    note_degraded("cross_language", exc)
                else:
                    query, stats = await self.retriever.translated(question, outcome, across, viewer)
                    evidence = await asyncio.to_thread(find_evidence, question, query, stats,
                                                       chunks, quotes, similarity, cross, len(chunks), tuned)
        # The reader chooses the quotes and decides whether they answer, when it has what it reads (the
        # question encoder's cosines, which only the e5 index and its embedding server give).
        if reader is not None and (tuned or not reader.reads_question_encoder):
            evidence = read(evidence, reader, quotes, self.settings.rag_min_cross_similarity, margin)
        return evidence
