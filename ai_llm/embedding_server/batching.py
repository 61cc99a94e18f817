"""Dynamic batching and the query-embedding cache of the embedding server.

`DynamicBatcher` gathers the texts of concurrent requests into encode calls run by a few inference workers
(the server runs one single-threaded worker per core: on a shared machine a runtime that splits one batch over
every core used 15–32 % more CPU for the same texts than one thread, its threads waiting for each other): while
the workers are busy the next batch fills up, so a lone request runs at once and 64 concurrent callers share a
few forward passes instead of queueing for 64. Requests of a few texts (queries) go ahead of bulk requests
(indexing), and each caller gets back exactly the rows of its own texts.

`EmbeddingEngine` adds, in front of the batcher, an LRU cache of vectors keyed by (model key, text) — the
model key names the model, its revision and the runtime, so a model change never serves stale vectors —
and merges identical texts asked for concurrently into one computation.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ai_llm.embedding_server.runtime import Encoder


class _Job:
    __slots__ = ("texts", "future", "rows", "remaining")

    def __init__(self, texts: Sequence[str], future: asyncio.Future[np.ndarray]) -> None:
        self.texts = texts
        self.future = future
        self.rows: list[np.ndarray | None] = [None] * len(texts)
        self.remaining = len(texts)


class DynamicBatcher:
    """Runs `encode` on batches of texts gathered from concurrent `embed` calls.

    Args:
        encode: texts → float32 array with one row per text (called from `workers` threads at once).
        max_batch: most texts per encode call.
        workers: encode calls run at the same time (each in its own thread).
        max_wait_s: while busy (a batch ended within `BUSY_WINDOW_S`), how long a batch that is not full may
            wait for more texts; it stops waiting as soon as no text arrived for `LINGER_GAP_S`. A request
            to an idle batcher runs at once, and requests arriving while a batch runs form the next one.
        small_request: requests of at most this many texts are served before larger (bulk) ones.
    """

    BUSY_WINDOW_S = 0.05
    LINGER_GAP_S = 0.001

    def __init__(self, encode: Callable[[list[str]], np.ndarray], max_batch: int = 64, max_wait_s: float = 0.0,
                 small_request: int = 8, workers: int = 1) -> None:
        self.encode = encode
        self.max_batch = max(1, max_batch)
        self.max_wait_s = max(0.0, max_wait_s)
        self.small_request = small_request
        self._interactive: deque[tuple[_Job, int]] = deque()
        self._bulk: deque[tuple[_Job, int]] = deque()
        self._wakeup = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self.workers = max(1, workers)
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="embedding-inference")
        self._running: set[asyncio.Task[None]] = set()
        self.batches = 0
        self.texts = 0
        self.largest_batch = 0
        self.in_flight = 0  # texts of the batches being encoded now
        self._last_end = float("-inf")

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts` (one row each, in order), computed in shared batches."""
        loop = asyncio.get_running_loop()
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._run(), name="embedding-batcher")
        job = _Job(texts, loop.create_future())
        queue = self._interactive if len(texts) <= self.small_request else self._bulk
        queue.extend((job, i) for i in range(len(texts)))
        self._wakeup.set()
        return await job.future

    def pending(self) -> int:
        return len(self._interactive) + len(self._bulk)

    def _take(self) -> list[tuple[_Job, int]]:
        batch: list[tuple[_Job, int]] = []
        for queue in (self._interactive, self._bulk):
            while queue and len(batch) < self.max_batch:
                item = queue.popleft()
                if not item[0].future.done():  # skip texts of cancelled or failed requests
                    batch.append(item)
        return batch

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        free = asyncio.Semaphore(self.workers)
        while True:
            await self._wakeup.wait()
            await free.acquire()
            if self.max_wait_s and loop.time() - self._last_end < self.BUSY_WINDOW_S:
                await self._linger(loop)
            batch = self._take()
            if not batch:
                free.release()
                if not self.pending():
                    self._wakeup.clear()
                continue
            task = loop.create_task(self._encode_batch(loop, batch, free))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _encode_batch(self, loop: asyncio.AbstractEventLoop, batch: list[tuple[_Job, int]],
                            free: asyncio.Semaphore) -> None:
        texts = [job.texts[i] for job, i in batch]
        self.in_flight += len(texts)
        try:
            vectors = await loop.run_in_executor(self._executor, self.encode, texts)
            if len(vectors) != len(texts):
                raise RuntimeError(f"encoder returned {len(vectors)} vectors for {len(texts)} texts")
        except Exception as exc:
            for job, _ in batch:
                if not job.future.done():
                    job.future.set_exception(exc)
            return
        finally:
            self.in_flight -= len(texts)
            self._last_end = loop.time()
            free.release()
        self.batches += 1
        self.texts += len(texts)
        self.largest_batch = max(self.largest_batch, len(texts))
        for row, (job, i) in zip(vectors, batch, strict=True):
            job.rows[i] = row
            job.remaining -= 1
            if job.remaining == 0 and not job.future.done():
                job.future.set_result(np.stack(job.rows))  # type: ignore[arg-type]

    async def _linger(self, loop: asyncio.AbstractEventLoop) -> None:
        """While busy, let a batch fill up: wait as long as texts keep arriving (up to `max_wait_s`)."""
        deadline = loop.time() + self.max_wait_s
        while self.pending() < self.max_batch and loop.time() < deadline:
            before = self.pending()
            await asyncio.sleep(self.LINGER_GAP_S)
            if self.pending() == before:
                return

    async def close(self) -> None:
        for task in [self._worker, *self._running]:
            if task is not None:
                task.cancel()
        for task in [self._worker, *self._running]:
            if task is not None:
                try:
                    await task
                except asyncio.CancelledError:
                    pass
        self._executor.shutdown(wait=False, cancel_futures=True)


class QueryCache:
    """LRU cache of vectors keyed by (model key, text); only texts up to `max_chars` (queries) are kept."""

    def __init__(self, max_entries: int, max_chars: int = 1000) -> None:
        self.max_entries = max(0, max_entries)
        self.max_chars = max_chars
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, model_key: str, text: str) -> np.ndarray | None:
        if not self.max_entries:
            return None
        vector = self._items.get((model_key, text))
        if vector is None:
            self.misses += 1
            return None
        self._items.move_to_end((model_key, text))
        self.hits += 1
        return vector

    def put(self, model_key: str, text: str, vector: np.ndarray) -> None:
        if not self.max_entries or len(text) > self.max_chars:
            return
        self._items[(model_key, text)] = vector
        self._items.move_to_end((model_key, text))
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


class EmbeddingEngine:
    """Cache + in-flight merging + dynamic batching in front of one encoder.

    Args:
        encoder: the runtime (may be set later with `set_encoder`, e.g. once the model has loaded).
        max_batch, max_wait_s, workers: see `DynamicBatcher`.
        cache_size: query-cache entries (0 disables the cache).
    """

    def __init__(self, encoder: Encoder | None = None, *, max_batch: int = 64, max_wait_s: float = 0.0,
                 cache_size: int = 10_000, workers: int = 1) -> None:
        self.encoder = encoder
        self.cache = QueryCache(cache_size)
        self.batcher = DynamicBatcher(self._encode, max_batch=max_batch, max_wait_s=max_wait_s, workers=workers)
        self._inflight: dict[tuple[str, str], asyncio.Future[np.ndarray]] = {}
        self.merged = 0

    @property
    def model_key(self) -> str:
        return self.encoder.model_key if self.encoder is not None else ""

    def set_encoder(self, encoder: Encoder) -> None:
        """Serve with another encoder; cached vectors of a different model key are dropped."""
        if self.encoder is None or encoder.model_key != self.encoder.model_key:
            self.cache.clear()
        self.encoder = encoder

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self.encoder is None:
            raise RuntimeError("no embedding model loaded")
        return self.encoder.encode(texts)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts`, one row each, in order."""
        key = self.model_key
        rows: list[np.ndarray | None] = [None] * len(texts)
        mine: dict[str, list[int]] = {}
        waits: list[tuple[int, asyncio.Future[np.ndarray]]] = []
        for i, text in enumerate(texts):
            cached = self.cache.get(key, text)
            if cached is not None:
                rows[i] = cached
            elif text in mine:
                mine[text].append(i)
            elif (key, text) in self._inflight:
                waits.append((i, self._inflight[(key, text)]))
            else:
                mine[text] = [i]
        if mine:
            await self._compute(key, mine, rows)
        for i, future in waits:
            rows[i] = await self._await_other(future, texts[i])
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)  # type: ignore[arg-type]

    async def _compute(self, key: str, mine: dict[str, list[int]], rows: list[np.ndarray | None]) -> None:
        loop = asyncio.get_running_loop()
        futures = {text: loop.create_future() for text in mine}
        for text, future in futures.items():
            self._inflight[(key, text)] = future
        try:
            vectors = await self.batcher.embed(list(mine))
        except BaseException as exc:
            for future in futures.values():
                if not future.done():
                    future.cancel() if isinstance(exc, asyncio.CancelledError) else future.set_exception(exc)
                    if not future.cancelled():
                        future.exception()  # retrieved: waiters re-raise it, nobody else needs to
            raise
        finally:
            for text in mine:
                self._inflight.pop((key, text), None)
        same_model = key == self.model_key
        for (text, indexes), vector in zip(mine.items(), vectors, strict=True):
            futures[text].set_result(vector)
            if same_model:
                self.cache.put(key, text, vector)
            for i in indexes:
                rows[i] = vector

    async def _await_other(self, future: asyncio.Future[np.ndarray], text: str) -> np.ndarray:
        self.merged += 1
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not future.cancelled() or (task is not None and task.cancelling()):
                raise
        # The request computing it went away: compute it ourselves.
        return (await self.batcher.embed([text]))[0]

    def stats(self) -> dict[str, Any]:
        b = self.batcher
        return {
            "batches": b.batches, "texts_encoded": b.texts, "largest_batch": b.largest_batch,
            "mean_batch": round(b.texts / b.batches, 2) if b.batches else 0.0, "merged": self.merged,
            "cache": {"entries": len(self.cache), "hits": self.cache.hits, "misses": self.cache.misses,
                      "max_entries": self.cache.max_entries},
        }

    async def close(self) -> None:
        await self.batcher.close()
