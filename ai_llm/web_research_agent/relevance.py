"""Relevance filtering of search results: never answer from pages that do not match the question."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ai_llm.common.degraded import note_degraded
from ai_llm.common.embeddings import Embeddings, comparable_cosine, cosine, embed_queries_and_passages
from ai_llm.common.text import tokenize
from ai_llm.web_research_agent.search_tools.results import SearchHit


@dataclass
class Filtered:
    """Hits at or above the threshold (best first), the best score seen, and how many were dropped."""

    kept: list[SearchHit]
    max_score: float
    dropped: int


def lexical_score(query: str, text: str) -> float:
    """Share of the query's tokens found in `text` (0–1)."""
    q = set(tokenize(query))
    if not q:
        return 0.0
    return len(q & set(tokenize(text))) / len(q)


async def fill_missing_scores(hits: Sequence[SearchHit], query: str, embeddings: Embeddings | None) -> None:
    """Give a score to hits whose server sent none (some MCP servers do not score).

    The score is the mean of token coverage and the embedding cosine (clamped to 0–1) of the query against
    title + snippet; without embeddings it is token coverage alone.
    """
    missing = [h for h in hits if h.score is None]
    if not missing:
        return
    texts = [f"{h.title}. {h.snippet}" for h in missing]
    sims: list[float] = [0.0] * len(missing)
    if embeddings is not None:
        try:
            asked, vectors = await embed_queries_and_passages(embeddings, [query], texts)
            sims = [max(0.0, min(1.0, comparable_cosine(embeddings.model, cosine(asked[0], v)))) for v in vectors]
        except Exception as exc:  # embeddings down: keyword coverage still gives a usable score
            note_degraded("embeddings", exc)
            embeddings = None
    for hit, text, sim in zip(missing, texts, sims, strict=True):
        lexical = lexical_score(query, text)
        hit.score = round((lexical + sim) / 2 if embeddings is not None else lexical, 4)


def filter_hits(hits: Sequence[SearchHit], threshold: float) -> Filtered:
    """Keep hits whose score is at least `threshold`, best first, one per URL."""
    best = max((h.score or 0.0 for h in hits), default=0.0)
    seen: set[str] = set()
    kept: list[SearchHit] = []
    for hit in sorted(hits, key=lambda h: h.score or 0.0, reverse=True):
        if (hit.score or 0.0) >= threshold and hit.url not in seen:
            seen.add(hit.url)
            kept.append(hit)
    return Filtered(kept=kept, max_score=round(best, 4), dropped=len(hits) - len(kept))
