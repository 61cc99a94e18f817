"""Embeddings port: one adapter speaking the OpenAI `/v1/embeddings` wire format.

Production uses OpenAI's `text-embedding-3-small`; offline, the hub's own embedding server
(`python -m ai_llm.embedding_server`, port 10016) serves `multilingual-e5-small` (or `all-MiniLM-L6-v2`) on the
same wire format, so every process uses this one adapter and the model is loaded once for the whole hub.

Every call says what it embeds: `kind="query"` (a question, a search request) or `kind="passage"` (document
text). Models trained with input prefixes get them here (`INPUT_PREFIXES`: the E5 family's `query: ` and
`passage: `), so any server speaking the wire format — the hub's own, TEI, vLLM — sees the text the model
expects; for other models both kinds are sent as they are.
"""

from __future__ import annotations

import asyncio
import base64
import math
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import httpx
import numpy as np

from ai_llm.common.http.pools import pooled_client
from ai_llm.common.settings import Settings

#: Known output dimensions, used before the first call (the server is still warming up, say).
KNOWN_DIMENSIONS = {
    "multilingual-e5-small": 384,
    "intfloat/multilingual-e5-small": 384,
    "all-MiniLM-L6-v2": 384,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


Kind = Literal["query", "passage"]

#: Input prefixes (query, passage) of models trained with them (the E5 model cards).
INPUT_PREFIXES: dict[str, tuple[str, str]] = {
    name: ("query: ", "passage: ")
    for base in ("multilingual-e5-small", "multilingual-e5-base", "multilingual-e5-large", "e5-small-v2",
                 "e5-base-v2", "e5-large-v2")
    for name in (base, f"intfloat/{base}")
}

#: The RAG reader's question encoder: multilingual-e5-small with its top layers fine-tuned to put a question near
#: the sentence that answers it (`docs/models/reader.md`), served beside e5 by the local embedding server. It
#: encodes questions only; they are compared with the base model's stored sentence vectors.
READER_QUESTION_MODEL = "multilingual-e5-small-reader"
INPUT_PREFIXES[READER_QUESTION_MODEL] = ("query: ", "passage: ")

#: Models whose vectors place a Korean question near English text and back (cross-lingual retrieval).
MULTILINGUAL_MODELS = frozenset({"multilingual-e5-small", "intfloat/multilingual-e5-small", "text-embedding-3-small",
                                 "text-embedding-3-large"})


def is_multilingual(model: str) -> bool:
    """Whether `model` embeds Korean and English into one space (`MULTILINGUAL_MODELS`, any multilingual-e5)."""
    return model in MULTILINGUAL_MODELS or "multilingual-e5" in model


#: Cosine similarities of each model rescaled from (floor, ceiling) to [0, 1] where a score is fused: the floor
#: near the median cosine of a question to an unrelated page, the ceiling near the 90th percentile of a question
#: to the page that answers it (measured on the RAG development set). E5's cosines sit in a narrow high band.
SIMILARITY_RANGES: dict[str, tuple[float, float]] = {"multilingual-e5-small": (0.78, 0.90),
                                                     "intfloat/multilingual-e5-small": (0.78, 0.90)}
DEFAULT_SIMILARITY_RANGE = (0.2, 0.8)


def rescale_similarity(model: str, similarity: float) -> float:
    """`similarity` (cosine) of `model` on [0, 1] (`SIMILARITY_RANGES`)."""
    floor, ceiling = SIMILARITY_RANGES.get(model, DEFAULT_SIMILARITY_RANGE)
    return max(0.0, min(1.0, (similarity - floor) / (ceiling - floor)))


def comparable_cosine(model: str, similarity: float) -> float:
    """`model`'s cosine mapped linearly from its band onto the default one (MiniLM's), where the web agent's
    mixes of cosine and word coverage were tuned: the same relation to unrelated and answering text."""
    floor, ceiling = SIMILARITY_RANGES.get(model, DEFAULT_SIMILARITY_RANGE)
    low, high = DEFAULT_SIMILARITY_RANGE
    return low + (similarity - floor) * (high - low) / (ceiling - floor)


def with_prefix(model: str, texts: Sequence[str], kind: Kind) -> list[str]:
    """`texts` as `model` expects them for `kind` (`INPUT_PREFIXES`; unchanged for other models)."""
    prefixes = INPUT_PREFIXES.get(model)
    if prefixes is None:
        return list(texts)
    prefix = prefixes[0] if kind == "query" else prefixes[1]
    return [prefix + t for t in texts]


class EmbeddingError(RuntimeError):
    """The embedding backend failed or is unreachable."""


class Embeddings(Protocol):
    """Turns texts into vectors; one call embeds a whole batch."""

    model: str
    dimension: int

    async def embed(self, texts: Sequence[str], kind: Kind = "passage") -> list[list[float]]:
        """Embed many texts of one kind (`query` or `passage`), preserving order."""
        ...

    async def close(self) -> None:
        """Release the connections."""
        ...


class OpenAIEmbeddings:
    """Embeddings through any server speaking OpenAI's embeddings API.

    A lean client over one kept-alive `httpx` connection pool (the OpenAI SDK cost ~2 ms of CPU per call,
    as much as the embedding server's own work on a cached query). Vectors travel as base64 float32, as the
    SDK asks for them; connection errors, 408/409/429 and 5xx are retried like the SDK does.

    Args:
        base_url: e.g. `https://api.openai.com/v1` or `http://127.0.0.1:10016/v1`.
        model: model id sent in the request.
        api_key: bearer key; the local server accepts the hub token or nothing.
        batch_size: texts per HTTP call; larger inputs are split and sent concurrently.
        timeout_s: per call; the local server may still be loading its model on the first call.
        max_retries: retries of a failed call (transient errors only).
    """

    RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})

    def __init__(self, base_url: str, model: str, api_key: str | None = None, batch_size: int = 64,
                 timeout_s: float = 120.0, dimension: int | None = None, max_retries: int = 2) -> None:
        self.model = model
        self.dimension = dimension or KNOWN_DIMENSIONS.get(model, 0)
        self.batch_size = batch_size
        self._api_key = api_key
        self._timeout_s = timeout_s
        self.max_retries = max_retries
        self.calls = 0
        self.base_url = base_url.rstrip("/")
        # Over several pools (`http_pools`), each with httpx's default limits: httpcore's scan of a pool on every
        # request grows with the square of its connections (a pool of 100 cost ~6 ms per call under 64 callers).
        self._client = pooled_client(timeout=timeout_s, headers={"Authorization": f"Bearer {api_key or 'local'}"})

    async def embed(self, texts: Sequence[str], kind: Kind = "passage") -> list[list[float]]:
        if not texts:
            return []
        # Empty strings are rejected by OpenAI; a single space embeds to a neutral vector.
        cleaned = with_prefix(self.model, [t if t.strip() else " " for t in texts], kind)
        batches = [cleaned[i:i + self.batch_size] for i in range(0, len(cleaned), self.batch_size)]
        results = await asyncio.gather(*(self._embed_batch(b) for b in batches))
        vectors = [v for batch in results for v in batch]
        if vectors and not self.dimension:
            self.dimension = len(vectors[0])
        return vectors

    async def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        self.calls += 1
        url = f"{self.base_url}/embeddings"
        body = {"model": self.model, "input": batch, "encoding_format": "base64"}
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                response = await self._client.post(url, json=body)
            except httpx.TransportError as exc:
                if last:
                    raise EmbeddingError(f"embedding call to {url} failed: {type(exc).__name__}: {exc}") from exc
            else:
                if response.status_code < 400:
                    return _vectors(response, url)
                if last or response.status_code not in self.RETRY_STATUSES:
                    raise EmbeddingError(f"embedding call to {url} failed: HTTP {response.status_code}: "
                                         f"{_error_message(response)}")
            await asyncio.sleep(0.5 * 2 ** attempt)
        raise EmbeddingError(f"embedding call to {url} failed")  # pragma: no cover - the loop returns or raises

    async def served_model(self) -> dict[str, Any]:
        """This client's model's entry in the server's `/models` list (empty when the server does not list it);
        raises `EmbeddingError` when the list cannot be had."""
        url = f"{self.base_url}/models"
        try:
            response = await self._client.get(url)
            response.raise_for_status()
            listed = response.json().get("data") or []
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            raise EmbeddingError(f"model list at {url} unavailable: {exc}") from exc
        return next((dict(m) for m in listed if isinstance(m, dict) and m.get("id") == self.model), {})

    def with_model(self, model: str) -> OpenAIEmbeddings:
        """A client of the same server and key for another model it serves."""
        return OpenAIEmbeddings(self.base_url, model, api_key=self._api_key, batch_size=self.batch_size,
                                timeout_s=self._timeout_s, max_retries=self.max_retries)

    async def close(self) -> None:
        await self._client.aclose()


def _vectors(response: httpx.Response, url: str) -> list[list[float]]:
    try:
        data = sorted(response.json()["data"], key=lambda d: d["index"])
        return [np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4").tolist()
                if isinstance(d["embedding"], str) else [float(x) for x in d["embedding"]] for d in data]
    except (ValueError, KeyError, TypeError) as exc:
        raise EmbeddingError(f"embedding call to {url} returned an unreadable answer: {exc}") from exc


def _error_message(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if error:
            return str(error)
    except ValueError:
        pass
    return response.text[:300]


async def embed_queries_and_passages(embeddings: Embeddings, queries: Sequence[str],
                                     passages: Sequence[str]) -> tuple[list[list[float]], list[list[float]]]:
    """Query vectors and passage vectors, the two calls made concurrently (none for an empty list)."""
    async def none() -> list[list[float]]:
        return []

    q, p = await asyncio.gather(embeddings.embed(queries, kind="query") if queries else none(),
                                embeddings.embed(passages, kind="passage") if passages else none())
    return q, p


def reader_client(embeddings: Embeddings) -> Embeddings | None:
    """The reader's question encoder (`READER_QUESTION_MODEL`) on the same server, when `embeddings` is e5's (the
    reader's question vectors are compared with e5's sentence vectors) and the client can name another model;
    None otherwise."""
    if getattr(embeddings, "model", "").removeprefix("intfloat/") != "multilingual-e5-small":
        return None
    with_model = getattr(embeddings, "with_model", None)
    return with_model(READER_QUESTION_MODEL) if with_model is not None else None


async def reader_null_cosine(reader: Embeddings) -> float | None:
    """The reader's question encoder's learned "none of them" cosine, as its server lists it (`/models`): a
    sentence under it is one the encoder places no nearer the question than nothing. None when not listed."""
    served_model = getattr(reader, "served_model", None)
    if served_model is None:
        return None
    value = (await served_model()).get("null_cosine")
    return float(value) if isinstance(value, int | float) else None


def index_model(settings: Settings) -> tuple[str, int]:
    """The configured embedding model and its dimension, as the index records them (`db.migrate`)."""
    model = settings.embedding_model_name
    return model, KNOWN_DIMENSIONS.get(model, 0)


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
