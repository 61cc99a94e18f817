"""Embeddings port: one adapter speaking the OpenAI `/v1/embeddings` wire format.

Production uses OpenAI's `text-embedding-3-small`; offline, the hub's own embedding server
(`python -m ai_llm.embedding_server`, port 10016) serves `all-MiniLM-L6-v2` on the same wire format, so
every process uses this one adapter and the model is loaded once for the whole hub.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Protocol

import openai

from ai_llm.common.settings import Settings

#: Known output dimensions, used before the first call (the server is still warming up, say).
KNOWN_DIMENSIONS = {
    "all-MiniLM-L6-v2": 384,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class EmbeddingError(RuntimeError):
    """The embedding backend failed or is unreachable."""


class Embeddings(Protocol):
    """Turns texts into vectors; one call embeds a whole batch."""

    model: str
    dimension: int

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed many texts, preserving order."""
        ...


class OpenAIEmbeddings:
    """Embeddings through any server speaking OpenAI's embeddings API.

    Args:
        base_url: e.g. `https://api.openai.com/v1` or `http://127.0.0.1:10016/v1`.
        model: model id sent in the request.
        api_key: bearer key; the local server accepts the hub token or nothing.
        batch_size: texts per HTTP call; larger inputs are split and sent concurrently.
        timeout_s: per call; the local server may still be loading its model on the first call.
    """

    def __init__(self, base_url: str, model: str, api_key: str | None = None, batch_size: int = 64,
                 timeout_s: float = 120.0, dimension: int | None = None) -> None:
        self.model = model
        self.dimension = dimension or KNOWN_DIMENSIONS.get(model, 0)
        self.batch_size = batch_size
        self.calls = 0
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "local",
                                          timeout=timeout_s, max_retries=2)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        # Empty strings are rejected by OpenAI; a single space embeds to a neutral vector.
        cleaned = [t if t.strip() else " " for t in texts]
        batches = [cleaned[i:i + self.batch_size] for i in range(0, len(cleaned), self.batch_size)]
        results = await asyncio.gather(*(self._embed_batch(b) for b in batches))
        vectors = [v for batch in results for v in batch]
        if vectors and not self.dimension:
            self.dimension = len(vectors[0])
        return vectors

    async def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        self.calls += 1
        try:
            response = await self._client.embeddings.create(model=self.model, input=batch)
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding call to {self._client.base_url} failed: {exc}") from exc
        ordered = sorted(response.data, key=lambda d: d.index)
        return [list(d.embedding) for d in ordered]

    async def close(self) -> None:
        await self._client.close()


def make_embeddings(settings: Settings) -> OpenAIEmbeddings:
    """The embeddings adapter chosen by settings (local embedding server or OpenAI)."""
    if settings.embedding_provider == "openai":
        key = settings.openai_api_key
    else:
        key = settings.hub_token
    return OpenAIEmbeddings(settings.embedding_base_url, settings.embedding_model_name, api_key=key,
                            batch_size=settings.embedding_batch_size)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0
