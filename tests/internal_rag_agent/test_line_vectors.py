"""Line vectors stored at indexing time (real Postgres, real embedding server): every chunk keeps the vector of
each of its lines, the agent weighs candidate sentences with them instead of sending the sentences to the
embedding server, and chunks without them (indexed before the column existed) are embedded as before with the
same similarities."""

from __future__ import annotations

import base64
from collections.abc import Sequence

import numpy as np

from ai_llm.common.embeddings import OpenAIEmbeddings, cosine
from ai_llm.common.store.db import Database
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.answer_extraction import candidate_sentences, content_lines
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.vector_store import pack_line_vectors, unpack_line_vectors
from tests.internal_rag_agent.conftest import make_pdf, unique_ref

PAGES = ["Glacier survey handbook\nThe survey team measures the Vatnaj ridge glacier every April.\n"
         "Each stake is read to the nearest centimetre with a steel tape.\nStakes lost to crevasses are replaced.",
         "Ablation season\nThe Vatnaj ridge glacier lost 1.8 metres of ice at the lower stakes in 2019.\n"
         "Snow pits are dug at three elevations to weigh the winter snow."]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class CountingEmbeddings:
    """The real embedding client, recording every text it is asked to embed."""

    def __init__(self, inner: OpenAIEmbeddings) -> None:
        self.inner = inner
        self.model = inner.model
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str], kind: str = "passage") -> list[list[float]]:
        self.texts.extend(texts)
        return await self.inner.embed(texts)


def test_packing_round_trips_and_refuses_a_count_that_does_not_fit() -> None:
    vectors = [[0.25, -0.5, 1.0], [0.0, 0.125, -2.0]]
    unpacked = unpack_line_vectors(pack_line_vectors(vectors), 2)
    assert unpacked is not None and unpacked.shape == (2, 3) and unpacked.dtype == np.float32
    assert np.allclose(unpacked, vectors)
    assert unpack_line_vectors(pack_line_vectors(vectors), 4) is None  # 6 values are not 4 rows
    assert unpack_line_vectors(pack_line_vectors(vectors), 0) is None


async def test_indexing_stores_each_lines_vector(rag_agent: RagAgent, db: Database,
                                                 embeddings: OpenAIEmbeddings) -> None:
    ref = unique_ref("lines")
    result = await rag_agent.indexing.index_one(DocumentInput(ref, "glacier.pdf", content_b64=_b64(make_pdf(PAGES))))
    assert result.status == "success"
    rows = await db.fetch("SELECT content, line_vectors FROM document_chunks WHERE storage_ref = %s "
                          "ORDER BY chunk_index", (ref,))
    assert rows and all(r["line_vectors"] is not None for r in rows)
    for row in rows:
        lines = content_lines(row["content"])
        matrix = unpack_line_vectors(bytes(row["line_vectors"]), len(lines))
        assert matrix is not None and matrix.shape == (len(lines), 384)
        fresh = await embeddings.embed(lines)
        assert all(cosine(stored, now) > 0.99 for stored, now in zip(matrix.tolist(), fresh, strict=True))
    await rag_agent.indexing.delete(ref)


async def test_sentence_similarity_reads_stored_vectors_and_embeds_only_what_lacks_them(
        rag_agent: RagAgent, db: Database, embeddings: OpenAIEmbeddings) -> None:
    ref = unique_ref("lines")
    await rag_agent.indexing.index_one(DocumentInput(ref, "glacier.pdf", content_b64=_b64(make_pdf(PAGES))))
    counting = CountingEmbeddings(embeddings)
    rag_agent.retriever.embeddings = counting  # type: ignore[assignment]
    question = "How much ice did the Vatnaj ridge glacier lose at the lower stakes?"
    outcome = await rag_agent.search_service.search(question)
    ours = candidate_sentences([c for c in outcome.chunks if c.hit.storage_ref == ref])
    assert any("1.8 metres" in s for s in ours)

    with_stored = await rag_agent.retriever.sentence_similarity(question, outcome)
    assert not set(ours) & set(counting.texts)  # read, not embedded
    # The search embedded the question already: its vector is reused, not asked for a second time.
    assert outcome.question_vector is not None and question not in counting.texts

    await db.execute("UPDATE document_chunks SET line_vectors = NULL WHERE storage_ref = %s", (ref,))
    counting.texts.clear()
    embedded = await rag_agent.retriever.sentence_similarity(question, outcome)
    assert set(ours) <= set(counting.texts)  # no stored vectors: the sentences go to the embedding server
    assert set(with_stored) == set(embedded)
    assert all(abs(with_stored[s] - embedded[s]) < 0.01 for s in ours)
    best = max(ours, key=lambda s: with_stored[s])
    assert "1.8 metres" in best
    await rag_agent.indexing.delete(ref)
