"""`hub bench embedding`: texts/s of the embedding server under 1, 8 and 64 concurrent callers, against the
bare, unbatched sentence-transformers model measured in the same run (all-MiniLM-L6-v2: the model with a
sentence-transformers baseline; every server here serves it, whatever `EMBEDDING_MODEL` says).

* Baseline (`bare_torch`): the model loaded in this process, one text per `encode` call, one call at a time
  (what the server did before: a lock around `model.encode`), no HTTP.
* Candidates (`server_<runtime>`): a real embedding-server process per runtime, called through the hub's
  OpenAI adapter, one text per request, so HTTP, JSON and the client SDK are counted on the same cores.

Texts are real queries from `benchmarks/data` and the intent model's training sets (English and Korean, RAG
questions, chat messages, cache pairs), each used once per level, so the query cache never hits during the
throughput runs; a last run replays the 64-caller texts to measure cache hits. Levels are interleaved
(baseline, then each server, per level) so background load drifts into every column alike.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import psutil

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.embedding_server.runtime import MODEL_ID, model_dir
from ai_llm.evals.harness import module_process
from ai_llm.hub.process import Child
from ai_llm.orchestrator_agent.intent_model import TRAINING_DIR

DATA = PROJECT_ROOT / "benchmarks" / "data"
SOURCES = [(DATA / "rag_test.jsonl", "question"), (DATA / "rag_dev.jsonl", "question"),
           (TRAINING_DIR / "intent_test.jsonl", "message"), (TRAINING_DIR / "intent_dev.jsonl", "message"),
           (DATA / "cache_pairs_test.jsonl", "a"), (DATA / "cache_pairs_test.jsonl", "b"),
           (DATA / "cache_pairs_dev.jsonl", "a"), (DATA / "cache_pairs_dev.jsonl", "b"),
           (DATA / "rag_holdout.jsonl", "question"), (TRAINING_DIR / "intent_holdout.jsonl", "message"),
           (TRAINING_DIR / "intent_eval.jsonl", "message"), (DATA / "rag_qa.jsonl", "question")]


def load_texts(count: int) -> list[str]:
    """`count` distinct real queries, interleaved across the sources (deterministic)."""
    columns: list[list[str]] = []
    for path, field in SOURCES:
        if path.is_file():
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            columns.append([str(r[field]) for r in rows if r.get(field)])
    texts: list[str] = []
    seen: set[str] = set()
    for i in range(max((len(c) for c in columns), default=0)):
        for column in columns:
            if i < len(column) and column[i] not in seen:
                seen.add(column[i])
                texts.append(column[i])
    suffix = 0
    base = texts or ["How do I configure the device?"]
    while len(texts) < count:  # more than the data holds: numbered variants
        suffix += 1
        texts.extend(f"{t} ({suffix})" for t in base[: count - len(texts)])
    return texts[:count]


def bare_model() -> Any:
    """The baseline: the shipped model on sentence-transformers with torch's own defaults (as the server
    loaded it before; unlike `TorchEncoder`, OpenMP's wait policy is left alone)."""
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(max(1, len(os.sched_getaffinity(0))))
    return SentenceTransformer(str(model_dir()), device="cpu")


async def drive(call: Callable[[str], Awaitable[Any]], texts: Sequence[str], callers: int) -> float:
    """Texts per second with `callers` concurrent callers, each embedding one text per call."""
    pending = iter(texts)

    async def caller() -> None:
        for text in pending:
            await call(text)

    started = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(callers)))
    return len(texts) / (time.perf_counter() - started)


class Server:
    """One embedding-server process with a given runtime (started by the harness), and the hub's adapter to it."""

    def __init__(self, runtime: str, child: Child, url: str) -> None:
        self.runtime = runtime
        self.child = child
        self.url = url
        self.adapter = OpenAIEmbeddings(self.url + "/v1", MODEL_ID, timeout_s=300)

    @classmethod
    async def start(cls, stack: ExitStack, runtime: str, data_dir: Path, log_dir: Path) -> Server:
        """A server answering its health check (its model may still be loading), stopped when `stack` closes."""
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        process = module_process(
            f"embedding-bench-{runtime}-{port}", "ai_llm.embedding_server", ["--port", str(port)],
            {"EMBEDDING_RUNTIME": runtime, "EMBEDDING_MODEL": MODEL_ID, "DATA_DIR": str(data_dir), "HUB_TOKEN": "",
             "HUB_HOST": "127.0.0.1"},
            log_dir, url + "/healthz", timeout_s=60)
        return cls(runtime, await asyncio.to_thread(stack.enter_context, process), url)

    async def ready(self, timeout_s: float = 600) -> dict[str, Any]:
        """The health report once the model is loaded."""
        deadline = time.monotonic() + timeout_s
        async with httpx.AsyncClient() as client:
            while True:
                health = (await client.get(self.url + "/healthz")).json()
                if health["ready"]:
                    return dict(health)
                if time.monotonic() > deadline:
                    raise RuntimeError(f"embedding server ({self.runtime}) not ready after {timeout_s} s")
                await asyncio.sleep(0.2)

    def rss_mb(self) -> float:
        return round(psutil.Process(self.child.proc.pid).memory_info().rss / 2**20, 1)

    async def health(self) -> dict[str, Any]:
        async with httpx.AsyncClient() as client:
            return dict((await client.get(self.url + "/healthz")).json())

    async def call(self, text: str) -> Any:
        return await self.adapter.embed([text], kind="query")

    async def close(self) -> None:
        await self.adapter.close()


async def run_bench(texts_per_level: int = 256, levels: Sequence[int] = (1, 8, 64),
                    runtimes: Sequence[str] = ("torch", "onnx")) -> dict[str, Any]:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    pool = load_texts(texts_per_level * (len(levels) + 1))
    warmup = pool[-texts_per_level:][:32]
    baseline = bare_model()
    lock = asyncio.Lock()

    async def bare(text: str) -> Any:
        async with lock:  # one encode at a time: torch already uses every core
            return await asyncio.to_thread(baseline.encode, [text], normalize_embeddings=True,
                                           convert_to_numpy=True, show_progress_bar=False)

    log_dir = Path(tempfile.mkdtemp(prefix="hub-bench-embedding-"))
    stack = ExitStack()
    servers: list[Server] = []
    result: dict[str, Any] = {
        "model": MODEL_ID, "cpu_threads": len(os.sched_getaffinity(0)), "texts_per_level": texts_per_level,
        "baseline": "bare sentence-transformers model (torch defaults), in-process, one text per encode call, "
                    "one call at a time (unbatched)",
        "load_average_at_start": round(os.getloadavg()[0], 2), "servers": {}, "levels": {},
    }
    try:
        for runtime in runtimes:
            servers.append(await Server.start(stack, runtime, settings.data_dir, log_dir))
        for server in servers:
            health = await server.ready()
            result["servers"][server.runtime] = {"runtime": health["runtime"], "model_key": health["model_key"],
                                                 "load_seconds": round(health["load_seconds"] or 0, 2),
                                                 "rss_mb_after_load": server.rss_mb()}
            await drive(server.call, warmup, 8)
        await drive(bare, warmup[:8], 1)
        for index, callers in enumerate(levels):
            texts = pool[index * texts_per_level:(index + 1) * texts_per_level]
            row: dict[str, float] = {"bare_torch": round(await drive(bare, texts, callers), 1)}
            for server in servers:
                before = await server.health()
                row[f"server_{server.runtime}"] = round(await drive(server.call, texts, callers), 1)
                after = await server.health()
                batches = after["batches"] - before["batches"]
                row[f"mean_batch_{server.runtime}"] = round((after["texts_encoded"] - before["texts_encoded"])
                                                            / batches, 1) if batches else 0.0
            for server in servers:
                row[f"ratio_server_{server.runtime}"] = round(row[f"server_{server.runtime}"] / row["bare_torch"], 2)
            result["levels"][str(callers)] = row
        top = str(max(levels))
        last = pool[(len(levels) - 1) * texts_per_level:len(levels) * texts_per_level]
        for server in servers:
            hits = await drive(server.call, last, max(levels))
            stats = await server.health()
            result["servers"][server.runtime].update({
                f"cache_hits_{top}_callers_texts_per_s": round(hits, 1),
                f"ratio_cache_hits_{top}": round(hits / result["levels"][top]["bare_torch"], 2),
                "mean_batch": stats["mean_batch"], "largest_batch": stats["largest_batch"],
                "batches": stats["batches"], "merged": stats["merged"], "cache": stats["cache"]})
    finally:
        for server in servers:
            await server.close()
        stack.close()  # stops the server processes
    best = max(result["levels"][top][f"ratio_server_{s.runtime}"] for s in servers)
    result["goal"] = f"server throughput at {top} concurrent callers >= 3x the bare unbatched model"
    result["best_ratio_at_top"] = best
    result["goal_met"] = best >= 3.0
    result["load_average_at_end"] = round(os.getloadavg()[0], 2)  # the ratio drops while other jobs load the cores
    result["log_dir"] = str(log_dir)
    return result


def text_report(result: dict[str, Any]) -> str:
    columns = ["bare_torch"] + [f"server_{r}" for r in result["servers"]]
    lines = [f"{result['model']} on {result['cpu_threads']} CPU threads, {result['texts_per_level']} texts per "
             "level (texts/s; ratio to the bare model)", "callers  " + "  ".join(f"{c:>20}" for c in columns)]
    for callers, row in result["levels"].items():
        cells = [f"{row['bare_torch']:>20.1f}"]
        cells += [f"{row[c]:>11.1f} ({row['ratio_' + c]:>5.2f}x)" for c in columns[1:]]
        lines.append(f"{callers:>7}  " + "  ".join(cells))
    for runtime, info in result["servers"].items():
        extra = {k: v for k, v in info.items() if k not in ("cache",)}
        lines.append(f"{runtime}: {extra}")
    lines.append(f"load average {result['load_average_at_start']} → {result.get('load_average_at_end')}")
    lines.append(f"goal ({result['goal']}): {'met' if result['goal_met'] else 'NOT met'}, "
                 f"best {result['best_ratio_at_top']}x")
    return "\n".join(lines)
