"""The chunks in the other language added for the cross-lingual model (`Retriever.other_language_chunks`): the
nearest ones by the question's vector, in the other language only, none the search already weighs, at most
`CROSS_LANGUAGE_CHUNKS`, through the viewer's filter; nothing without a question vector or when the store
fails."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from ai_llm.common.degraded import collect_degraded
from ai_llm.common.identity import Viewer
from ai_llm.internal_rag_agent.rag_search_service import RankedChunk
from ai_llm.internal_rag_agent.retrieval import CROSS_LANGUAGE_CHUNKS, Retriever
from ai_llm.internal_rag_agent.vector_store import ChunkHit

pytestmark = pytest.mark.unit


def hit(ref: str, text: str, score: float) -> ChunkHit:
    return ChunkHit(ref, 0, text, [1], score, file_name=f"{ref}.md")


class Store:
    def __init__(self, hits: list[ChunkHit], fail: bool = False) -> None:
        self.hits, self.fail, self.calls = hits, fail, []

    async def vector_search_many(self, vectors: Sequence[Sequence[float]], k: int,
                                 viewer: Viewer | None = None) -> list[list[ChunkHit]]:
        self.calls.append((len(vectors), k, viewer))
        if self.fail:
            raise RuntimeError("store down")
        return [self.hits[:k]]


async def other(store: Store, question: str, chunks: list[RankedChunk], vector: Any = (0.1, 0.2)) -> list[Any]:
    outcome = SimpleNamespace(question_vector=vector, chunks=chunks)
    return await Retriever.other_language_chunks(SimpleNamespace(store=store), question, outcome,  # type: ignore[arg-type]
                                                 Viewer(user_id="u1", username="kim", teams=("hr",)))


async def test_the_nearest_chunks_in_the_other_language_not_yet_weighed_are_added() -> None:
    found = RankedChunk(hit("ko-0", "이미 찾은 한국어 조문이다.", 0.9), relevance=0.4)
    hits = [hit("en-0", "An English page.", 0.95), found.hit,
            *(hit(f"ko-{n}", f"제{n}조 한국어 조문 {n}번이다.", 0.9 - n / 100) for n in range(1, 6))]
    store = Store(hits)
    added = await other(store, "Who may the minister recommend measures to?", [found])
    assert [c.hit.storage_ref for c in added] == [f"ko-{n}" for n in range(1, CROSS_LANGUAGE_CHUNKS + 1)]
    assert all(c.relevance == 0.4 and c.vector_score == c.hit.score for c in added)
    assert store.calls[0][2] == Viewer(user_id="u1", username="kim", teams=("hr",))  # the person's own filter
    korean_question = await other(Store(hits), "장관은 누구에게 건의하나요?", [])
    assert [c.hit.storage_ref for c in korean_question] == ["en-0"]


async def test_nothing_is_added_without_a_question_vector_or_when_the_store_fails() -> None:
    hits = [hit("ko-1", "한국어 조문이다.", 0.9)]
    assert await other(Store(hits), "An English question?", [], vector=None) == []
    with collect_degraded() as skipped:
        assert await other(Store(hits, fail=True), "An English question?", []) == []
    assert "cross_language" in skipped
