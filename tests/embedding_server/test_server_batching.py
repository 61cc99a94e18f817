"""The embedding server process under concurrent callers: batching, cache, wire formats."""

from __future__ import annotations

import asyncio
import base64

import httpx
import numpy as np

from ai_llm.common.embeddings import OpenAIEmbeddings, cosine
from tests.conftest import EMBEDDING_MODEL


async def test_64_concurrent_callers_each_get_their_own_vector(embedding_server: str) -> None:
    adapter = OpenAIEmbeddings(embedding_server, EMBEDDING_MODEL)
    texts = [f"question {i}: how is setting number {i} of device model {i % 5} configured?" for i in range(64)]
    texts[7] = "Hand hygiene in outpatient settings: use alcohol-based hand rub."
    texts[40] = "The I2C bus uses a clock line and a data line."
    concurrent = await asyncio.gather(*(adapter.embed([t]) for t in texts))
    one_by_one = [await adapter.embed([t]) for t in texts]
    for (got,), (alone,) in zip(concurrent, one_by_one, strict=True):
        assert cosine(got, alone) > 0.9999
    # Each caller got its own text's vector, not a neighbour's from the same batch.
    assert cosine(concurrent[7][0], concurrent[40][0]) < 0.95
    async with httpx.AsyncClient() as client:
        health = (await client.get(embedding_server.removesuffix("/v1") + "/healthz")).json()
    assert health["ready"] and health["runtime"] in ("bf16", "onnx-int8", "onnx", "torch")  # torch: the fallback
    assert health["model_key"].startswith(f"{EMBEDDING_MODEL}@")
    await adapter.close()


async def test_repeated_query_is_served_from_the_cache(embedding_server: str) -> None:
    adapter = OpenAIEmbeddings(embedding_server, EMBEDDING_MODEL)
    health_url = embedding_server.removesuffix("/v1") + "/healthz"
    text = "What is the default value of PWR_SAVE_TIMEOUT? (cache test)"
    first = await adapter.embed([text])
    async with httpx.AsyncClient() as client:
        hits_before = (await client.get(health_url)).json()["cache"]["hits"]
        second = await adapter.embed([text])
        hits_after = (await client.get(health_url)).json()["cache"]["hits"]
    assert first == second
    assert hits_after == hits_before + 1
    await adapter.close()


async def test_float_and_base64_encodings_carry_the_same_vector(embedding_server: str) -> None:
    async with httpx.AsyncClient(base_url=embedding_server) as client:
        body = {"model": EMBEDDING_MODEL, "input": ["first text", "second text"]}
        floats = (await client.post("/embeddings", json={**body, "encoding_format": "float"})).json()
        packed = (await client.post("/embeddings", json={**body, "encoding_format": "base64"})).json()
        bad = await client.post("/embeddings", json={**body, "encoding_format": "int4"})
    assert bad.status_code == 400
    for f, b in zip(floats["data"], packed["data"], strict=True):
        assert f["index"] == b["index"]
        decoded = np.frombuffer(base64.b64decode(b["embedding"]), dtype="<f4")
        np.testing.assert_allclose(decoded, np.asarray(f["embedding"], dtype=np.float32), rtol=0, atol=1e-7)
