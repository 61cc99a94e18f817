"""`hub bench rag`: speed ratios measured against a baseline in the same run.

1. Indexing throughput of the whole pipeline (read, parse, split, embed the chunks and their lines, one COPY in
   one transaction) vs embedding the same chunks and lines alone — goal ≥ 0.85. The embedding server runs
   without its query cache here, so neither side is served vectors the other computed.
2. Batched insert (one COPY) vs one INSERT per chunk, for `insert_chunks` synthetic chunks.
3. Multi-query search (rewrite + 3 variants, one embedding call, parallel hybrid searches) vs a 1-query
   hybrid search — goal ≤ 1.5×.
4. HNSW vs exact scan over `chunks` synthetic vectors (clustered random vectors inserted with binary COPY):
   speed-up and recall@10 against the exact result — goal recall ≥ 0.95.
5. What the offline embedding model costs (`models`): each offline model served by its own embedding server,
   one after the other, on the same page chunks (passages, chunks/s) and the same distinct questions (one at a
   time, so the query cache never answers: median ms), as ratios to all-MiniLM-L6-v2 measured in the same run.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pgvector import Vector
from psycopg.types.json import Jsonb

from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.common.text import split_sentences, tokenize
from ai_llm.common.text.rules import rewrite_query
from ai_llm.evals.rag.evaluation import document_files, rag_environment
from ai_llm.hub.process import embedding_server
from ai_llm.internal_rag_agent.document_parser import parse_document, split_document
from ai_llm.internal_rag_agent.indexing_service import DocumentInput, embed_lines
from ai_llm.internal_rag_agent.vector_store import (
    CHUNK_COLUMN_TYPES,
    CHUNK_COLUMNS,
    PgVectorStore,
    StoredChunk,
)

DEFAULT_DOC = PROJECT_ROOT.parent / "shared" / "eval-data" / "pdfs" / "lewis2020_rag_paper_arxiv2005.11401.pdf"


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def _chunk_texts(env: Any, paths: list[Path]) -> list[str]:
    """The page chunks the indexing pipeline makes of `paths`, as texts."""
    texts: list[str] = []
    for path in paths:
        parsed = parse_document(path.read_bytes(), path.name)
        texts.extend(c.content for c in split_document(parsed, env.settings.rag_chunk_size,
                                                       env.settings.rag_chunk_overlap))
    return texts


async def bench_indexing(env: Any, paths: list[Path]) -> dict[str, Any]:
    agent = env.agent
    texts = _chunk_texts(env, paths)
    async def embed_alone() -> float:
        started = time.perf_counter()
        await agent.embeddings.embed(texts)
        await embed_lines(agent.embeddings, texts)
        return time.perf_counter() - started

    embed_before = await embed_alone()
    docs = [DocumentInput(storage_ref=f"bench:{p.name}", file_name=p.name, path=str(p)) for p in paths]
    started = time.perf_counter()
    results = await agent.indexing.index_many(docs)
    pipeline_s = time.perf_counter() - started
    # Embedding alone is timed before and after the pipeline: the mean cancels drifting machine load.
    embed_s = (embed_before + await embed_alone()) / 2
    indexed = sum(r.chunks for r in results if r.status == "success")
    return {"documents": [p.name for p in paths], "chunks": indexed,
            "embed_only_chunks_per_s": round(len(texts) / embed_s, 2),
            "pipeline_chunks_per_s": round(indexed / pipeline_s, 2),
            "throughput_ratio": round((indexed / pipeline_s) / (len(texts) / embed_s), 3), "goal": ">= 0.85"}


#: How a value of each binary COPY type (`CHUNK_COLUMN_TYPES`) is passed as a query parameter instead.
_PARAMETER = {"vector": Vector, "jsonb": Jsonb}


def insert_statement() -> tuple[str, Callable[[StoredChunk], tuple[Any, ...]]]:
    """One INSERT of a chunk row, and its parameters for a chunk: both made from the store's own column list
    and types (`CHUNK_COLUMNS`, `CHUNK_COLUMN_TYPES`; every column is the `StoredChunk` field of that name), so
    a column the table gains is in the baseline as soon as the store writes it."""
    sql = (f"INSERT INTO document_chunks ({', '.join(CHUNK_COLUMNS)}) "
           f"VALUES ({', '.join(['%s'] * len(CHUNK_COLUMNS))})")
    adapters = [_PARAMETER.get(kind) for kind in CHUNK_COLUMN_TYPES]

    def parameters(chunk: StoredChunk) -> tuple[Any, ...]:
        values = (getattr(chunk, name) for name in CHUNK_COLUMNS)
        return tuple(adapt(value) if adapt is not None and value is not None else value
                     for adapt, value in zip(adapters, values, strict=True))

    return sql, parameters


async def bench_insert(env: Any, n: int) -> dict[str, Any]:
    """The store's batched write (`replace_document`: one binary COPY in one transaction) vs one INSERT per
    chunk in one transaction, on `n` synthetic chunks; each side's rows are counted before they are deleted."""
    rng = np.random.default_rng(7)
    dim = env.agent.embeddings.dimension or 384
    rows = [StoredChunk(storage_ref="bench:insert", chunk_index=i, content=f"synthetic chunk {i}", pages=[i // 3 + 1],
                        tokens=f"synthetic chunk {i}", embedding=rng.standard_normal(dim).astype(float).tolist(),
                        content_hash="bench") for i in range(n)]
    store = PgVectorStore(env.db)
    sql, parameters = insert_statement()
    batched: list[float] = []
    per_row: list[float] = []
    written: dict[str, int] = {}
    for _ in range(3):  # alternate rounds; the median resists load spikes on a shared machine
        started = time.perf_counter()
        await store.replace_document("bench:insert", rows)
        batched.append(time.perf_counter() - started)
        written["batched"] = await store.delete_document("bench:insert")
        started = time.perf_counter()
        async with env.db.connection() as conn, conn.transaction():
            for c in rows:
                await conn.execute(sql, parameters(c))
        per_row.append(time.perf_counter() - started)
        written["per_row"] = await store.delete_document("bench:insert")
    b, r = statistics.median(batched), statistics.median(per_row)
    return {"chunks": n, "rounds": 3, "rows_written": written, "batched_copy_median_ms": _ms(b),
            "per_row_insert_median_ms": _ms(r), "speedup": round(r / b, 2)}


async def _bench_questions(env: Any, n: int, seed: int) -> list[str]:
    """`n` sentences of the indexed benchmark documents, shuffled by `seed`, asked as questions."""
    rows = await env.db.fetch("SELECT content FROM document_chunks WHERE storage_ref LIKE 'bench:%%.pdf' "
                              "ORDER BY id")
    sentences = [s for r in rows for s in split_sentences(r["content"].replace("\n", " "))
                 if 40 <= len(s) <= 160 and len(tokenize(s)) >= 5]
    random.Random(seed).shuffle(sentences)
    return sentences[:n] or ["retrieval augmented generation"]


async def bench_multi_query(env: Any, n_queries: int) -> dict[str, Any]:
    service = env.agent.search_service
    questions = await _bench_questions(env, n_queries, seed=11)
    await service.search(questions[0])  # warm caches and connections
    multi: list[float] = []
    single: list[float] = []
    stages: dict[str, list[float]] = {}
    for q in questions:  # interleaved so load changes hit both sides alike
        t = time.perf_counter()
        outcome = await service.search(q)
        multi.append(time.perf_counter() - t)
        for key in ("embed", "search"):
            stages.setdefault(f"multi_{key}_ms", []).append(outcome.timings_ms[key])
        t = time.perf_counter()
        outcome = await service.search(q, queries=[rewrite_query(q)])
        single.append(time.perf_counter() - t)
        for key in ("embed", "search"):
            stages.setdefault(f"single_{key}_ms", []).append(outcome.timings_ms[key])
    m, s = statistics.median(multi), statistics.median(single)
    return {"queries": len(questions), "multi_query_median_ms": _ms(m), "single_query_median_ms": _ms(s),
            "median_stage_ms": {k: round(statistics.median(v), 1) for k, v in stages.items()},
            "multi_query_mean_ms": _ms(statistics.fmean(multi)), "single_query_mean_ms": _ms(statistics.fmean(single)),
            "latency_ratio": round(m / s, 3), "goal": "<= 1.5"}


async def bench_hnsw(env: Any, n: int, dim: int, n_queries: int, ef_search: int) -> dict[str, Any]:
    rng = np.random.default_rng(42)
    clusters = max(10, n // 500)
    centers = rng.standard_normal((clusters, dim)).astype(np.float32)
    labels = rng.integers(0, clusters, n)
    # Clustered unit vectors (topics) and queries that are small perturbations (norm ≈ 0.05) of stored ones.
    data = centers[labels] + 0.35 * rng.standard_normal((n, dim)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    pick = rng.choice(n, n_queries, replace=False)
    queries = data[pick] + (0.05 / np.sqrt(dim)) * rng.standard_normal((n_queries, dim)).astype(np.float32)
    async with env.db.connection() as conn:
        await conn.execute("DROP TABLE IF EXISTS bench_vectors")
        await conn.execute(f"CREATE TABLE bench_vectors (id bigint PRIMARY KEY, embedding vector({dim}) NOT NULL)")
        started = time.perf_counter()
        cur = conn.cursor()
        async with cur.copy("COPY bench_vectors (id, embedding) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "vector"])
            for i in range(n):
                await copy.write_row((i, data[i]))
        await conn.commit()
        copy_s = time.perf_counter() - started
        await conn.execute("SET maintenance_work_mem = '1GB'")
        await conn.execute("SET max_parallel_maintenance_workers = 2")
        started = time.perf_counter()
        await conn.execute("CREATE INDEX bench_vectors_hnsw ON bench_vectors USING hnsw (embedding vector_cosine_ops)")
        await conn.commit()
        build_s = time.perf_counter() - started
        await conn.execute("ANALYZE bench_vectors")
        await conn.commit()
        sql = "SELECT id FROM bench_vectors ORDER BY embedding <=> %s LIMIT 10"

        plans: dict[str, str] = {}

        async def run(exact: bool, ef: int = ef_search) -> tuple[list[set[int]], list[float]]:
            found: list[set[int]] = []
            times: list[float] = []
            async with conn.transaction():
                await conn.execute("SET LOCAL enable_indexscan = " + ("off" if exact else "on"))
                await conn.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
                plan = await (await conn.execute("EXPLAIN " + sql, (queries[0],))).fetchall()
                plans["exact" if exact else "hnsw"] = next(
                    (str(r["QUERY PLAN"]).strip().lstrip("-> ").split("  ")[0] for r in plan
                     if "Scan" in str(r["QUERY PLAN"])), "?")
                for q in queries:
                    t = time.perf_counter()
                    # prepare=False: a cached generic plan would ignore the enable_indexscan switch.
                    result = await (await conn.execute(sql, (q,), prepare=False)).fetchall()
                    times.append(time.perf_counter() - t)
                    found.append({int(r["id"]) for r in result})
            return found, times

        approx, hnsw_times = await run(exact=False)
        truth, exact_times = await run(exact=True)

        def recall_of(found: list[set[int]]) -> float:
            return statistics.fmean(len(a & t) / 10 for a, t in zip(found, truth, strict=True))

        sweep: dict[str, dict[str, float]] = {}
        for ef in (40, 200):
            found, times = await run(exact=False, ef=ef)
            sweep[str(ef)] = {"recall_at_10": round(recall_of(found), 4),
                              "median_ms": _ms(statistics.median(times))}
        await conn.execute("DROP TABLE bench_vectors")
    recall = recall_of(approx)
    e, h = statistics.median(exact_times), statistics.median(hnsw_times)
    return {"chunks": n, "dimension": dim, "queries": n_queries, "ef_search": ef_search,
            "copy_seconds": round(copy_s, 2), "index_build_seconds": round(build_s, 2),
            "exact_median_ms": _ms(e), "hnsw_median_ms": _ms(h), "speedup": round(e / h, 2),
            "recall_at_10": round(recall, 4), "ef_search_sweep": sweep, "plans": plans,
            "goal": "recall >= 0.95"}


#: The offline models compared in `bench_models`, the baseline first.
OFFLINE_MODELS = ("all-MiniLM-L6-v2", "multilingual-e5-small")


async def _model_figures(url: str, model: str, token: str | None, texts: list[str],
                         questions: list[str]) -> dict[str, float]:
    adapter = OpenAIEmbeddings(url, model, api_key=token, timeout_s=600)
    try:
        await adapter.embed(texts[:4])  # the model loads on the first request
        started = time.perf_counter()
        await adapter.embed(texts)
        index_s = time.perf_counter() - started
        times = []
        for question in questions:
            started = time.perf_counter()
            await adapter.embed([question], kind="query")
            times.append(time.perf_counter() - started)
    finally:
        await adapter.close()
    return {"chunks_per_s": round(len(texts) / index_s, 2), "query_median_ms": _ms(statistics.median(times))}


async def bench_models(env: Any, paths: list[Path], n_queries: int) -> dict[str, Any]:
    """Indexing throughput and query latency of each offline model, as ratios to MiniLM (see module docstring)."""
    texts = _chunk_texts(env, paths)
    questions = [f"What does section {i} say about setting {i * 7 % 13} of the device?"
                 for i in range(max(n_queries, 5))]
    figures: dict[str, Any] = {}
    for model in OFFLINE_MODELS:
        with embedding_server(token=env.settings.hub_token, env={"EMBEDDING_MODEL": model, "EMBEDDING_CACHE_SIZE": "0"},
                              timeout_s=600) as url:
            figures[model] = await _model_figures(url, model, env.settings.hub_token, texts, questions)
    base = figures[OFFLINE_MODELS[0]]
    for model in OFFLINE_MODELS[1:]:
        figures[model]["indexing_ratio"] = round(figures[model]["chunks_per_s"] / base["chunks_per_s"], 3)
        figures[model]["query_latency_ratio"] = round(figures[model]["query_median_ms"] / base["query_median_ms"], 3)
    return {"chunks": len(texts), "queries": len(questions), "baseline": OFFLINE_MODELS[0], "models": figures}


async def bench_reader(env: Any, n_queries: int) -> dict[str, Any]:
    """Answer latency with and without the reader, on the same index and questions, interleaved: the reader's
    cost is one question vector from its encoder (no cache here) and the scoring of the candidates."""
    from ai_llm.common.a2a.server import AgentRequest
    from ai_llm.internal_rag_agent.agent import RagAgent

    questions = await _bench_questions(env, n_queries, seed=12)
    agent = env.agent
    reading = agent if agent.settings.rag_reader else RagAgent(agent.store, agent.embeddings, agent.llm,
                                                               agent.settings.model_copy(update={"rag_reader": True}))
    rules = RagAgent(agent.store, agent.embeddings, agent.llm, agent.settings.model_copy(update={"rag_reader": False}))
    for warm in (reading, rules):  # the reader's encoder loads on its first call
        await warm.run_state(AgentRequest(text=questions[0], data={"language": "en"}))
    with_reader: list[float] = []
    without: list[float] = []
    read = 0
    for q in questions:
        t = time.perf_counter()
        state = await reading.run_state(AgentRequest(text=q, data={"language": "en"}))
        with_reader.append(time.perf_counter() - t)
        read += state["evidence"].reader_best is not None if state.get("evidence") else 0
        t = time.perf_counter()
        await rules.run_state(AgentRequest(text=q, data={"language": "en"}))
        without.append(time.perf_counter() - t)
    a, b = statistics.median(with_reader), statistics.median(without)
    return {"questions": len(questions), "read_by_the_reader": read, "with_reader_median_ms": _ms(a),
            "rules_only_median_ms": _ms(b), "added_median_ms": _ms(a - b), "latency_ratio": round(a / b, 3),
            "goal": "added <= 300 ms"}


def bench_documents(docs: Path | None) -> list[Path]:
    """Documents for the indexing benchmark: `--docs` (file or folder, every supported format) or the RAG paper
    from the shared eval data."""
    if docs is None:
        return [DEFAULT_DOC] if DEFAULT_DOC.exists() else []
    return document_files(docs)


async def run_rag_bench(base: Settings, docs: Path | None, chunks: int, insert_chunks: int,
                        n_queries: int, compare_models: bool = True) -> dict[str, Any]:
    """The whole `hub bench rag` run in a temporary database."""
    paths = await asyncio.to_thread(bench_documents, docs)
    if not paths:
        raise FileNotFoundError("no document to index: pass --docs (e.g. ../shared/eval-data/pdfs)")
    async with rag_environment(base, embedding_env={"EMBEDDING_CACHE_SIZE": "0"}) as env:
        result: dict[str, Any] = {"embedding_model": env.settings.embedding_model_name}
        result["indexing"] = await bench_indexing(env, paths)
        result["batched_insert"] = await bench_insert(env, insert_chunks)
        result["multi_query"] = await bench_multi_query(env, n_queries)
        result["reader"] = await bench_reader(env, n_queries)
        dim = env.agent.embeddings.dimension or 384
        result["hnsw_vs_exact"] = await bench_hnsw(env, chunks, dim, 50, env.settings.rag_ef_search)
        if compare_models:
            result["models"] = await bench_models(env, paths, n_queries)
    return result

