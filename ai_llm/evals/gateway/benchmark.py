"""`hub bench gateway`: cache and depth benchmarks of the search gateway, self-contained.

Starts an embedded Postgres (temp dir), the embedding server and the gateway as real processes, builds
the local corpus from HotpotQA, and drives the gateway through MCP (streamable HTTP). The local provider
gets a fixed simulated network delay and a simulated price per call, so cold (provider) and warm (cache)
calls can be compared in one run.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import index_model
from ai_llm.common.settings import get_settings
from ai_llm.common.store.db import migrate, start_embedded_postgres
from ai_llm.evals.harness import module_process
from ai_llm.hub.process import embedding_server
from ai_llm.search_gateway.corpus import read_hotpotqa, wiki_url, write_hotpotqa_corpus
from ai_llm.search_gateway.models import SearchRequest
from ai_llm.search_gateway.providers.local import LocalCorpusProvider
from ai_llm.search_gateway.query import normalize_query

#: Word swaps used to paraphrase questions (meaning-preserving in HotpotQA questions).
_SWAPS = [("film", "movie"), ("movie", "film"), ("located", "situated"), ("founded", "established"),
          ("author", "writer"), ("named", "called"), ("called", "named"), ("singer", "vocalist"),
          ("city", "town"), ("company", "firm"), ("released", "put out"), ("American", "US"),
          ("band", "group"), ("directed", "helmed"), ("starring", "featuring"), ("largest", "biggest")]
_PREFIXES = ["Tell me: ", "", "Question: ", "I wonder, ", ""]


def paraphrase(question: str, index: int) -> str:
    """A deterministic paraphrase: one word swap (when any applies) plus a varying lead-in."""
    text = question.strip()
    for old, new in _SWAPS:
        pattern = re.compile(rf"\b{re.escape(old)}\b")
        if pattern.search(text):
            text = pattern.sub(new, text, count=1)
            break
    prefix = _PREFIXES[index % len(_PREFIXES)]
    if prefix:
        text = prefix + text[0].lower() + text[1:]
    if normalize_query(text) == normalize_query(question):
        text = "Please answer: " + text
    return text


@contextmanager
def gateway_process(name: str, env: Mapping[str, str], log_dir: Path) -> Iterator[str]:
    """A search-gateway process on a free port with `env`; yields its MCP URL, stops it on exit."""
    port = free_port()
    with module_process(name, "ai_llm.search_gateway", ["--port", str(port)], env, log_dir,
                        f"http://127.0.0.1:{port}/healthz", timeout_s=180):
        yield f"http://127.0.0.1:{port}/mcp"


async def mcp_calls(url: str, calls: list[dict[str, Any]]) -> list[tuple[dict[str, Any], float]]:
    """`web_search` with each argument set, in order, over one MCP session: (result, milliseconds) each."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    out = []
    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for args in calls:
                started = time.perf_counter()
                result = await session.call_tool("web_search", args)
                elapsed = (time.perf_counter() - started) * 1000
                if result.isError:
                    raise RuntimeError(f"web_search failed: {result.content}")
                out.append((json.loads(result.content[0].text), elapsed))  # type: ignore[union-attr]
    return out


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


async def depth_recall(rows: list[dict[str, Any]], corpus: Path, depths: tuple[int, ...]) -> dict[str, Any]:
    """Supporting-paragraph recall (and answer-in-results rate) of the local provider per `max_results`."""
    provider = LocalCorpusProvider(corpus)
    out: dict[str, Any] = {}
    for depth in depths:
        recalls, answer_found = [], []
        for row in rows:
            gold = {wiki_url(title) for title, _ in row["supporting_facts"]}
            results = (await provider.search(SearchRequest(query=row["question"], max_results=depth)))[:depth]
            urls = {r.url for r in results}
            recalls.append(len(gold & urls) / len(gold))
            answer = row["answer"].lower()
            answer_found.append(any(answer in (provider.page(u).content.lower()  # type: ignore[union-attr]
                                               if provider.page(u) else "") for u in urls))
        out[str(depth)] = {"supporting_recall": round(_mean(recalls), 4),
                           "answer_in_results": round(_mean([float(a) for a in answer_found]), 4)}
    return out


def run_benchmark(data: Path, delay_ms: float = 800.0, cost_per_call: float = 0.008, paraphrases: int = 50,
                  threshold: float = 0.7, limit: int | None = None, log_dir: Path | None = None) -> dict[str, Any]:
    """Run every gateway benchmark; returns the JSON report (semantic cache with the same-request guard on)."""
    rows = read_hotpotqa(data)[:limit] if limit else read_hotpotqa(data)
    tmp = Path(tempfile.mkdtemp(prefix="hub-bench-gateway-"))
    log_dir = log_dir or tmp / "logs"
    corpus = tmp / "corpus.jsonl"
    pages = write_hotpotqa_corpus(data, corpus)
    config = tmp / "search_config.yaml"
    config.write_text(
        "chain: [local]\n"
        f"providers:\n  local: {{delay_s: {delay_ms / 1000:.4f}, cost_per_call: {cost_per_call}, timeout_s: 30}}\n"
        f"cache: {{enabled: true, semantic: true, semantic_threshold: {threshold}, embed_timeout_s: 60}}\n",
        encoding="utf-8")
    server, pg_url = start_embedded_postgres(tmp / "pg")
    try:
        asyncio.run(migrate(pg_url, *index_model(get_settings())))
        with embedding_server(log_dir=log_dir, timeout_s=180) as embedding_url:
            env = {"DATABASE_URL": pg_url, "EMBEDDING_URL": embedding_url, "LOCAL_CORPUS": str(corpus),
                   "SEARCH_CONFIG": str(config), "DATA_DIR": str(tmp / "data")}
            with gateway_process("search_gateway", env, log_dir) as url:
                questions = [row["question"] for row in rows]
                para_rows = [(i, paraphrase(q, i)) for i, q in enumerate(questions[:paraphrases])]
                # Warm the embedding model once so the first cold call is not a model-load outlier.
                asyncio.run(mcp_calls(url, [{"query": "warm-up query about nothing in particular",
                                             "agent": "bench"}]))
                cold = asyncio.run(mcp_calls(url, [{"query": q, "agent": "bench"} for q in questions]))
                warm = asyncio.run(mcp_calls(url, [{"query": q, "agent": "bench"} for q in questions]))
                para = asyncio.run(mcp_calls(url, [{"query": p, "agent": "bench"} for _, p in para_rows]))
    finally:
        server.cleanup()

    cold_ms = [ms for _, ms in cold]
    warm_ms = [ms for _, ms in warm]
    cold_gw = [out["latency_ms"] for out, _ in cold]
    warm_gw = [out["latency_ms"] for out, _ in warm]
    warm_exact = sum(1 for out, _ in warm if out["cache"] == "exact")
    sem_hits = wrong_hits = 0
    for (i, _), (out, _) in zip(para_rows, para, strict=True):
        if out["cache"] != "miss":
            sem_hits += 1
            cached = out.get("cached_query") or out["query"]
            if normalize_query(cached) != normalize_query(questions[i]):
                wrong_hits += 1
    cold_cost = sum(out["cost_usd"] for out, _ in cold)
    warm_cost = sum(out["cost_usd"] for out, _ in warm)
    n = len(questions)
    depth = asyncio.run(depth_recall(rows, corpus, (2, 6, 10)))
    return {
        "questions": n,
        "corpus_pages": pages,
        "simulated_delay_ms": delay_ms,
        "simulated_cost_per_call_usd": cost_per_call,
        "latency": {
            "cold_mean_ms": round(_mean(cold_ms), 2), "warm_exact_mean_ms": round(_mean(warm_ms), 2),
            "cold_p50_ms": round(statistics.median(cold_ms), 2), "warm_p50_ms": round(statistics.median(warm_ms), 2),
            "warm_vs_cold_reduction": round(1 - _mean(warm_ms) / _mean(cold_ms), 4) if cold_ms else None,
            "published_anchor_reduction": 0.68, "goal_reduction": 0.90,
            # Inside the gateway (envelope latency_ms), i.e. without the MCP transport round trip.
            "gateway_cold_mean_ms": round(_mean(cold_gw), 2), "gateway_warm_mean_ms": round(_mean(warm_gw), 2),
            "gateway_warm_vs_cold_reduction": round(1 - _mean(warm_gw) / _mean(cold_gw), 4) if cold_gw else None,
        },
        "hit_rate": {
            "exact_repeat_hit_rate": round(warm_exact / n, 4),
            "paraphrases": len(para_rows),
            "semantic_threshold": threshold,
            "paraphrase_semantic_hit_rate": round(sem_hits / len(para_rows), 4) if para_rows else None,
            "paraphrase_wrong_hits": wrong_hits,
            "paraphrase_wrong_hit_rate": round(wrong_hits / len(para_rows), 4) if para_rows else None,
            "paraphrase_examples": [{"question": questions[i], "paraphrase": p} for i, p in para_rows[:3]],
        },
        "cost_per_1000_queries_usd": {"cold": round(cold_cost / n * 1000, 4), "warm": round(warm_cost / n * 1000, 4)},
        "depth": depth,
        "depth_gain_points": {
            "2_to_6": round(100 * (depth["6"]["supporting_recall"] - depth["2"]["supporting_recall"]), 2),
            "6_to_10": round(100 * (depth["10"]["supporting_recall"] - depth["6"]["supporting_recall"]), 2),
            "published_anchor_accuracy_points": {"2_to_6": 6.2, "6_to_10": 0.6},
        },
    }
