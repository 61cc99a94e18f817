"""The local embedding server (real model, real process) through the OpenAI-wire adapter."""

from __future__ import annotations

import httpx
import pytest

from ai_llm.common.embeddings import (
    EmbeddingError,
    OpenAIEmbeddings,
    comparable_cosine,
    cosine,
    is_multilingual,
    rescale_similarity,
    with_prefix,
)
from ai_llm.embedding_server.server import ServerConfig, create_app
from tests.conftest import EMBEDDING_MODEL


async def test_cosine_ordering_of_related_sentences(embeddings: OpenAIEmbeddings) -> None:
    query, near, far = await embeddings.embed([
        "How do I wash my hands in a clinic?",
        "Hand hygiene in outpatient settings: use alcohol-based hand rub.",
        "The I2C bus uses a clock line and a data line.",
    ])
    assert len(query) == 384 == embeddings.dimension
    assert cosine(query, near) > cosine(query, far) + 0.03  # E5's cosines sit in a narrow band
    assert abs(cosine(query, query) - 1.0) < 1e-5


async def test_batch_is_one_call_and_keeps_order(embeddings: OpenAIEmbeddings) -> None:
    texts = [f"sentence number {i} about topic {i % 3}" for i in range(40)]
    before = embeddings.calls
    vectors = await embeddings.embed(texts)
    assert embeddings.calls - before == 1
    single = await embeddings.embed([texts[17]])
    assert cosine(vectors[17], single[0]) > 0.9999


async def test_large_inputs_are_split_into_batches(embedding_server: str) -> None:
    adapter = OpenAIEmbeddings(embedding_server, EMBEDDING_MODEL, batch_size=8)
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
        assert ok.status_code == 200 and ok.json()["data"][0]["id"] == "multilingual-e5-small"
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


def test_e5_models_get_their_prefixes_and_others_their_text() -> None:
    assert with_prefix("multilingual-e5-small", ["a", "b"], "query") == ["query: a", "query: b"]
    assert with_prefix("intfloat/multilingual-e5-small", ["a"], "passage") == ["passage: a"]
    assert with_prefix("all-MiniLM-L6-v2", ["a"], "query") == ["a"] == with_prefix("text-embedding-3-small", ["a"],
                                                                                       "passage")
    assert is_multilingual("multilingual-e5-small") and not is_multilingual("all-MiniLM-L6-v2")


def test_similarity_is_rescaled_on_each_models_own_band() -> None:
    # E5's unrelated pairs sit near 0.78, MiniLM's near 0.1: the same cosine means different things.
    assert rescale_similarity("multilingual-e5-small", 0.78) == 0.0 < rescale_similarity("all-MiniLM-L6-v2", 0.78)
    assert rescale_similarity("multilingual-e5-small", 0.84) == pytest.approx(0.5)
    assert rescale_similarity("all-MiniLM-L6-v2", 0.1) == 0.0 and rescale_similarity("all-MiniLM-L6-v2", 0.9) == 1.0


async def test_query_and_passage_of_one_text_travel_prefixed(embedding_server: str) -> None:
    """Through the real server: the adapter sends E5's prefixes, so a text embedded as a query and as a passage
    gets two vectors, the query's being the vector of the prefixed text sent as it is (under a model alias the
    prefix table does not know)."""
    e5 = OpenAIEmbeddings(embedding_server, EMBEDDING_MODEL)
    as_is = OpenAIEmbeddings(embedding_server, "sentence-transformers/" + EMBEDDING_MODEL)
    try:
        text = "How long may an opened multi-dose vial be kept?"
        (query,), (passage,) = await e5.embed([text], kind="query"), await e5.embed([text], kind="passage")
        assert cosine(query, passage) < 0.9999
        (sent,) = await as_is.embed([f"query: {text}"])
        assert cosine(query, sent) > 0.9999
    finally:
        await e5.close()
        await as_is.close()


async def test_server_serves_the_configured_model_only() -> None:
    app = create_app(config=ServerConfig(model="all-MiniLM-L6-v2"))  # lifespan not run: refused before the model
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        assert (await client.get("/v1/models")).json()["data"][0]["id"] == "all-MiniLM-L6-v2"
        wrong = await client.post("/v1/embeddings", json={"model": "multilingual-e5-small", "input": "x"})
        assert wrong.status_code == 404 and "use all-MiniLM-L6-v2" in wrong.json()["error"]["message"]


def test_comparable_cosine_puts_each_model_on_minilms_scale() -> None:
    # E5's unrelated floor and answering ceiling land where MiniLM's are; MiniLM's own cosines are unchanged.
    assert comparable_cosine("multilingual-e5-small", 0.78) == pytest.approx(0.2)
    assert comparable_cosine("multilingual-e5-small", 0.90) == pytest.approx(0.8)
    assert comparable_cosine("all-MiniLM-L6-v2", 0.37) == pytest.approx(0.37)


def test_server_config_names_the_offline_model_under_its_aliases() -> None:
    from ai_llm.common.settings import Settings

    def served(name: str) -> str:
        return ServerConfig.from_settings(Settings(embedding_model=name, _env_file=None)).model  # type: ignore[call-arg]

    assert served("intfloat/multilingual-e5-small") == "multilingual-e5-small"
    assert served("sentence-transformers/all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert served("no-such-model") == "multilingual-e5-small"  # said in the log; the client then gets a 404
