"""Dynamic batching, in-flight merging and the query cache, with a deterministic fake encoder."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Callable

import numpy as np
import pytest

from ai_llm.embedding_server.batching import DynamicBatcher, EmbeddingEngine, QueryCache


def fake_vector(text: str, salt: str = "") -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256((salt + text).encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
    return vector / np.linalg.norm(vector)


class FakeEncoder:
    """Vector = hash of (salt, text); records every batch it is given; can be held or made to fail."""

    runtime = "fake"

    def __init__(self, model_key: str = "fake@1", salt: str = "") -> None:
        self.model_key = model_key
        self.salt = salt
        self.calls: list[list[str]] = []
        self.gate: threading.Event | None = None
        self.fail_next = False

    def encode(self, texts: list[str]) -> np.ndarray:
        if self.gate is not None:
            self.gate.wait(10)
        self.calls.append(list(texts))
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("inference blew up")
        return np.stack([fake_vector(t, self.salt) for t in texts])


async def until(condition: Callable[[], bool]) -> None:
    """Yield to the event loop until `condition` holds (no wall-clock waits)."""
    for _ in range(100_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never held")


async def test_each_concurrent_caller_gets_the_vectors_of_its_own_texts() -> None:
    encoder = FakeEncoder()
    engine = EmbeddingEngine(encoder, max_batch=16, cache_size=0)
    requests = [[f"caller {i} text {j}" for j in range(1 + i % 3)] for i in range(40)]
    results = await asyncio.gather(*(engine.embed(texts) for texts in requests))
    for texts, vectors in zip(requests, results, strict=True):
        assert vectors.shape == (len(texts), 8)
        for text, vector in zip(texts, vectors, strict=True):
            np.testing.assert_array_equal(vector, fake_vector(text))
    # 79 texts from 40 callers went through a few shared batches, none larger than max_batch.
    assert sum(len(c) for c in encoder.calls) == sum(len(t) for t in requests)
    assert len(encoder.calls) < len(requests)
    assert max(len(c) for c in encoder.calls) <= 16
    await engine.close()


async def test_requests_arriving_during_a_batch_form_the_next_batch() -> None:
    encoder = FakeEncoder()
    encoder.gate = threading.Event()
    engine = EmbeddingEngine(encoder, max_batch=64, cache_size=0)
    first = asyncio.create_task(engine.embed(["first"]))
    await until(lambda: engine.batcher.in_flight == 1)  # "first" is inside the held encoder
    rest = [asyncio.create_task(engine.embed([f"later {i}"])) for i in range(10)]
    await until(lambda: engine.batcher.pending() == 10)
    encoder.gate.set()
    assert np.array_equal((await first)[0], fake_vector("first"))
    for i, task in enumerate(rest):
        np.testing.assert_array_equal((await task)[0], fake_vector(f"later {i}"))
    assert encoder.calls == [["first"], [f"later {i}" for i in range(10)]]
    await engine.close()


class PerTextGate(FakeEncoder):
    """Holds a batch that contains a held text until that text is released (others run freely)."""

    def __init__(self) -> None:
        super().__init__()
        self.held: dict[str, threading.Event] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        for text in texts:
            if text in self.held:
                self.held[text].wait(10)
        return super().encode(texts)


async def test_two_workers_encode_two_batches_at_once_and_each_caller_gets_its_own_rows() -> None:
    encoder = PerTextGate()
    encoder.held["slow"] = threading.Event()
    engine = EmbeddingEngine(encoder, max_batch=64, cache_size=0, workers=2)
    slow = asyncio.create_task(engine.embed(["slow"]))
    await until(lambda: engine.batcher.in_flight == 1)  # "slow" holds the first worker
    # With one worker this would wait behind "slow"; the second worker answers it meanwhile.
    fast = await engine.embed(["fast 1", "fast 2"])
    np.testing.assert_array_equal(fast, np.stack([fake_vector("fast 1"), fake_vector("fast 2")]))
    assert not slow.done()
    encoder.held["slow"].set()
    np.testing.assert_array_equal((await slow)[0], fake_vector("slow"))
    assert sorted(map(tuple, encoder.calls)) == [("fast 1", "fast 2"), ("slow",)]
    assert engine.batcher.in_flight == 0
    await engine.close()


async def test_a_single_worker_encodes_one_batch_at_a_time() -> None:
    encoder = PerTextGate()
    encoder.held["slow"] = threading.Event()
    engine = EmbeddingEngine(encoder, max_batch=64, cache_size=0, workers=1)
    slow = asyncio.create_task(engine.embed(["slow"]))
    await until(lambda: engine.batcher.in_flight == 1)
    fast = asyncio.create_task(engine.embed(["fast"]))
    await until(lambda: engine.batcher.pending() == 1)  # queued behind "slow", not encoded
    assert not fast.done() and encoder.calls == []
    encoder.held["slow"].set()
    await asyncio.gather(slow, fast)
    assert encoder.calls == [["slow"], ["fast"]]
    await engine.close()


async def test_queries_go_ahead_of_a_bulk_request() -> None:
    encoder = FakeEncoder()
    batcher = DynamicBatcher(encoder.encode, max_batch=16, small_request=8)
    bulk = asyncio.create_task(batcher.embed([f"chunk {i}" for i in range(100)]))
    query = asyncio.create_task(batcher.embed(["what is the deadline?"]))
    vectors = await query
    np.testing.assert_array_equal(vectors[0], fake_vector("what is the deadline?"))
    assert "what is the deadline?" in encoder.calls[0]
    assert len(await bulk) == 100
    await batcher.close()


async def test_identical_texts_are_computed_once() -> None:
    encoder = FakeEncoder()
    engine = EmbeddingEngine(encoder, cache_size=0)
    results = await asyncio.gather(*(engine.embed(["same question", "same question"]) for _ in range(10)))
    assert sum(len(c) for c in encoder.calls) == 1
    for vectors in results:
        np.testing.assert_array_equal(vectors, np.stack([fake_vector("same question")] * 2))
    await engine.close()


async def test_cache_returns_the_same_vector_without_encoding_again() -> None:
    encoder = FakeEncoder()
    engine = EmbeddingEngine(encoder, cache_size=100)
    first = await engine.embed(["cached query"])
    second = await engine.embed(["cached query"])
    np.testing.assert_array_equal(first, second)
    assert encoder.calls == [["cached query"]]
    assert engine.stats()["cache"]["hits"] == 1
    await engine.close()


async def test_cache_is_invalidated_when_the_model_changes() -> None:
    old = FakeEncoder("all-MiniLM-L6-v2@aaaa/onnx", salt="old")
    engine = EmbeddingEngine(old, cache_size=100)
    before = await engine.embed(["a query"])
    new = FakeEncoder("all-MiniLM-L6-v2@bbbb/onnx", salt="new")
    engine.set_encoder(new)
    after = await engine.embed(["a query"])
    assert new.calls == [["a query"]]
    np.testing.assert_array_equal(after[0], fake_vector("a query", "new"))
    assert not np.array_equal(before, after)
    # Same model key (e.g. the same model reloaded): the cache stays valid.
    engine.set_encoder(FakeEncoder("all-MiniLM-L6-v2@bbbb/onnx", salt="new"))
    np.testing.assert_array_equal(await engine.embed(["a query"]), after)
    await engine.close()


def test_cache_keys_include_the_model_and_evict_least_recently_used() -> None:
    cache = QueryCache(max_entries=2)
    cache.put("m@1", "a", fake_vector("a"))
    assert cache.get("m@2", "a") is None
    cache.put("m@1", "b", fake_vector("b"))
    assert cache.get("m@1", "a") is not None  # a is now the most recent
    cache.put("m@1", "c", fake_vector("c"))
    assert cache.get("m@1", "b") is None and cache.get("m@1", "a") is not None
    cache.put("m@1", "x" * 5000, fake_vector("long"))  # documents are not cached, only queries
    assert cache.get("m@1", "x" * 5000) is None


async def test_a_failing_batch_fails_its_callers_and_the_next_call_works() -> None:
    encoder = FakeEncoder()
    encoder.fail_next = True
    engine = EmbeddingEngine(encoder, cache_size=0)
    results = await asyncio.gather(*(engine.embed([f"t{i}"]) for i in range(5)), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)
    np.testing.assert_array_equal((await engine.embed(["t1"]))[0], fake_vector("t1"))
    await engine.close()


async def test_a_cancelled_caller_does_not_break_the_others() -> None:
    encoder = FakeEncoder()
    encoder.gate = threading.Event()
    engine = EmbeddingEngine(encoder, cache_size=0)
    blocker = asyncio.create_task(engine.embed(["blocker"]))
    await until(lambda: engine.batcher.in_flight == 1)
    owner = asyncio.create_task(engine.embed(["shared"]))
    waiter = asyncio.create_task(engine.embed(["shared", "own"]))
    await until(lambda: engine.batcher.pending() == 2)  # "shared" once (merged), "own"
    owner.cancel()
    encoder.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await owner
    vectors = await waiter
    np.testing.assert_array_equal(vectors, np.stack([fake_vector("shared"), fake_vector("own")]))
    await blocker
    await engine.close()


def test_workers_share_out_the_cores() -> None:
    """EMBEDDING_WORKERS=0 runs one single-threaded worker per core; one worker gets every core."""
    from ai_llm.common.settings import Settings
    from ai_llm.embedding_server.runtime import cpu_cores
    from ai_llm.embedding_server.server import ServerConfig

    per_core = ServerConfig.from_settings(Settings(_env_file=None))  # type: ignore[call-arg]
    assert per_core.workers == cpu_cores() and per_core.threads == 1
    assert ServerConfig(workers=1).threads == cpu_cores()
    two = ServerConfig.from_settings(Settings(_env_file=None, embedding_workers=2))  # type: ignore[call-arg]
    assert two.workers == 2 and two.threads == max(1, cpu_cores() // 2)
