"""Deep reading: fetch result pages in parallel, split them, keep the chunks closest to the question.

Bounded by a page count and a time budget: pages still loading when the budget runs out, and pages that
fail, are skipped (listed in `DeepRead.skipped`), never waited for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from langchain_text_splitters import RecursiveCharacterTextSplitter

from ai_llm.common.degraded import note_degraded
from ai_llm.common.embeddings import Embeddings, comparable_cosine, cosine, embed_queries_and_passages
from ai_llm.common.text import split_sentences
from ai_llm.web_research_agent.relevance import lexical_score
from ai_llm.web_research_agent.search_tools.results import PageContent, SearchHit

CHUNK_SIZE = 1000
CHUNK_OVERLAP = 100
#: Characters of a chunk (its title first) whose embedding ranks it; the lexical half of the score reads the
#: whole chunk, and the whole chunk is what answers. all-MiniLM-L6-v2 was trained on 128 word pieces (≈ 600
#: characters of English) and a forward pass costs about as much as its length: the first 600 characters cut
#: the embedding server's CPU in a 50-chat burst by 13 % (1.26 → 1.09 CPU-s, back to back). HotpotQA, first
#: 150 questions (where it was chosen) and last 150 with the blind no-answer set: supporting recall, F1 and
#: no-answer accuracy unchanged.
EMBED_CHARS = 600

_splitter = RecursiveCharacterTextSplitter(chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP,
                                           separators=["\n\n", "\n", ". ", "다. ", " ", ""])


@dataclass
class Chunk:
    """A piece of a fetched page with its similarity to the question."""

    text: str
    url: str
    title: str
    published_at: str | None
    index: int
    score: float = 0.0


@dataclass
class DeepRead:
    """Chunks ranked best first, plus what was read and what was skipped (url -> reason)."""

    chunks: list[Chunk]
    pages_read: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def split_text(text: str) -> list[str]:
    """Split page text into ≈1,000-character chunks with 100 characters of overlap."""
    return [c for c in _splitter.split_text(text) if c.strip()]


async def read_pages(hits: Sequence[SearchHit], question: str,
                     fetch: Callable[[Sequence[str], float], Awaitable[dict[str, PageContent]]],
                     embeddings: Embeddings | None, *, max_pages: int = 5, budget_s: float = 8.0,
                     top_k: int = 6, on_read: Callable[[Sequence[SearchHit]], Awaitable[None]] | None = None
                     ) -> DeepRead:
    """Fetch up to `max_pages` pages concurrently within `budget_s`, chunk, rank against the question.

    Args:
        hits: relevant search results, best first.
        question: what the chunks are ranked against.
        fetch: the toolset's `fetch_pages` (urls, budget in seconds -> url -> page; late pages are error pages).
        embeddings: ranks by cosine (mixed with token coverage); None ranks by token coverage only.
        on_read: awaited once with the pages about to be fetched (the status line).
    """
    selected = list(hits)[:max_pages]
    if selected and on_read is not None:
        await on_read(selected)
    result = DeepRead(chunks=[])
    if not selected:
        return result
    pages = await fetch([hit.url for hit in selected], budget_s)
    chunks: list[Chunk] = []
    for hit in selected:  # keep the search order for stable ranking ties
        page = pages.get(hit.url) or PageContent(url=hit.url, error="not fetched")
        if page.error or not page.text.strip():
            result.skipped[hit.url] = page.error or "empty page"
            continue
        result.pages_read.append(hit.url)
        for i, piece in enumerate(split_text(page.text)):
            chunks.append(Chunk(piece, hit.url, page.title or hit.title, page.published_at or hit.published_at, i))
    if not chunks:
        return result
    sims = [0.0] * len(chunks)
    if embeddings is not None:
        try:
            asked, vectors = await embed_queries_and_passages(
                embeddings, [question], [f"{c.title}. {c.text}"[:EMBED_CHARS] for c in chunks])
            sims = [max(0.0, min(1.0, comparable_cosine(embeddings.model, cosine(asked[0], v)))) for v in vectors]
        except Exception as exc:  # embedding server down: token coverage still ranks
            note_degraded("embeddings", exc)
            embeddings = None
    for chunk, sim in zip(chunks, sims, strict=True):
        lexical = lexical_score(question, f"{chunk.title} {chunk.text}")
        chunk.score = round(0.5 * sim + 0.5 * lexical if embeddings is not None else lexical, 4)
    chunks.sort(key=lambda c: c.score, reverse=True)
    result.chunks = chunks[:top_k]
    return result


#: Characters of a sentence the reader embeds (a "sentence" of a page without punctuation can be a paragraph).
SENTENCE_CHARS = 400


async def read_sentences(question: str, texts: Sequence[str], embeddings: Embeddings, reader: Embeddings
                         ) -> dict[str, float]:
    """Each sentence of `texts` (the passages an answer is composed from) with the reader's cosine: the question
    encoded by the RAG reader's question encoder (`reader_client`), the sentences by e5 (`embeddings`), the two
    calls concurrent. Raises what the embedding calls raise."""
    sentences = list(dict.fromkeys(s.strip() for text in texts for s in split_sentences(text) if len(s.strip()) >= 8))
    if not sentences:
        return {}
    (asked,), vectors = await asyncio.gather(reader.embed([question], kind="query"),
                                             embeddings.embed([s[:SENTENCE_CHARS] for s in sentences],
                                                              kind="passage"))
    matrix = np.asarray(vectors, dtype=np.float32)
    q = np.asarray(asked, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(q) or 1.0)
    return dict(zip(sentences, (matrix @ q / np.where(norms > 0, norms, 1.0)).round(4).tolist(), strict=True))
