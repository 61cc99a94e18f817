"""The local embedding server (real model, real process) through the OpenAI-wire adapter."""

from __future__ import annotations

import httpx
import pytest

from ai_llm.common.embeddings import EmbeddingError, OpenAIEmbeddings, cosine
from ai_llm.embedding_server.server import create_app


async def test_cosine_ordering_of_related_sentences(embeddings: OpenAIEmbeddings) -> None:
    query, near, far = await embeddings.embed([
        "How do I wash my hands in a clinic?",
        "Hand hygiene in outpatient settings: use alcohol-based hand rub.",
        "The I2C bus uses a clock line and a data line.",
    ])
    assert len(query) == 384 == embeddings.dimension
    assert cosine(query, near) > cosine(query, far) + 0.1
    assert abs(cosine(query, query) - 1.0) < 1e-5


async def test_batch_is_one_call_and_keeps_order(embeddings: OpenAIEmbeddings) -> None:
    texts = [f"sentence number {i} about topic {i % 3}" for i in range(40)]
    before = embeddings.calls
    vectors = await embeddings.embed(texts)
    assert embeddings.calls - before == 1
    single = await embeddings.embed([texts[17]])
    assert cosine(vectors[17], single[0]) > 0.9999


async def test_large_inputs_are_split_into_batches(embedding_server: str) -> None:
    adapter = OpenAIEmbeddings(embedding_server, "all-MiniLM-L6-v2", batch_size=8)
    vectors = await adapter.embed([f"text {i}" for i in range(20)])
    assert len(vectors) == 20 and adapter.calls == 3


async def test_unknown_model_is_a_clear_error(embedding_server: str) -> None:
    adapter = OpenAIEmbeddings(embedding_server, "no-such-model")
    with pytest.raises(EmbeddingError, match="no-such-model"):
        await adapter.embed(["x"])


async def test_server_requires_the_token_when_configured() -> None:
    app = create_app(token="s" * 16)  # lifespan not run: the model is not needed for auth checks
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        assert (await client.get("/v1/models")).status_code == 401
        ok = await client.get("/v1/models", headers={"Authorization": "Bearer " + "s" * 16})
        assert ok.status_code == 200 and ok.json()["data"][0]["id"] == "all-MiniLM-L6-v2"
        bad = await client.post("/v1/embeddings", json={"input": []},
                                headers={"Authorization": "Bearer " + "s" * 16})
        assert bad.status_code == 400


async def test_server_refuses_foreign_hosts_and_cross_site_posts() -> None:
    app = create_app(allowed_hosts=["embed.example.com:10016"])  # lifespan not run: refused before the model
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        for path in ("/healthz", "/v1/models"):
            assert (await client.get(path, headers={"Host": "evil.example.com"})).status_code == 421
        assert (await client.get("/v1/models", headers={"Host": "embed.example.com:10016"})).status_code == 200
        cross = await client.post("/v1/embeddings", json={"input": "x"}, headers={"Origin": "http://evil.example.com"})
        assert cross.status_code == 403 and "refused" in cross.json()["detail"]
