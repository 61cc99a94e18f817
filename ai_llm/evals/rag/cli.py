"""`hub eval rag` and `hub bench rag`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from ai_llm.common.cli_output import emit
from ai_llm.common.settings import get_settings


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub eval rag`, `hub eval build-sets` and `hub bench rag`."""
    from ai_llm.evals.sets.cli import register as register_sets

    register_sets(app, eval_app, bench_app, search_app)

    @eval_app.command("rag")
    def eval_rag(
        docs: Annotated[Path, typer.Option(
            help="folder of documents to index (e.g. ../shared/eval-data/pdfs); a set's folder or its missing "
                 "docs/ folder (benchmarks/data/formats_dev/docs) is rendered into the cache first")],
        qa: Annotated[Path, typer.Option(help="QA JSONL: {id, file, question, answer, pages}")],
        details: Annotated[bool, typer.Option(help="include per-question rows")] = False,
        korean_analysis: Annotated[str, typer.Option(
            help="comma-separated Korean analyses to compare in one run: kiwi, bigrams")] = "kiwi",
        llm_url: Annotated[str | None, typer.Option(
            help="also ask every question with this OpenAI-compatible model (e.g. http://127.0.0.1:10020/v1); "
                 "its figures go under `llm`, beside the offline ones")] = None,
        llm_model: Annotated[str | None, typer.Option(help="the model id at --llm-url (default LLM_MODEL)")] = None,
        limit: Annotated[int, typer.Option(help="ask only this many questions, spread evenly over the set (every "
                                                "k-th, so its kinds stay mixed; 0: all)")] = 0,
        compare_rules: Annotated[bool, typer.Option(
            help="also answer every question with the word rules deciding instead of the reader (same index; "
                 "figures under `rules`)")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Index the documents into a temporary database and score page recall, evidence and no-answer handling
        (offline, and with --llm-url also with that model on the same index)."""
        from ai_llm.evals.rag.evaluation import run_rag_eval
        from ai_llm.evals.sets import SetError, resolve_docs

        try:
            docs = resolve_docs(docs)
        except SetError as exc:
            typer.echo(f"cannot render the set's documents: {exc}", err=True)
            raise typer.Exit(2) from exc
        if not docs.is_dir() or not qa.is_file():
            typer.echo(f"need an existing --docs folder and --qa file (got {docs}, {qa})", err=True)
            raise typer.Exit(2)
        modes = [m.strip() for m in korean_analysis.split(",") if m.strip()]
        result = asyncio.run(run_rag_eval(get_settings(), docs, qa, details, modes, llm_url, llm_model, limit,
                                          compare_rules))
        emit(result, as_json, None if as_json else "\n".join(f"{k}: {v}" for k, v in result.items() if k != "items"))

    @bench_app.command("rag")
    def bench_rag(
        docs: Annotated[Path | None, typer.Option(help="PDFs for the indexing benchmark (default: the shared "
                                                       "eval PDFs when present)")] = None,
        chunks: Annotated[int, typer.Option(help="synthetic chunks for HNSW vs exact scan")] = 100_000,
        insert_chunks: Annotated[int, typer.Option(help="chunks for batched vs per-row insert")] = 1000,
        queries: Annotated[int, typer.Option(help="queries per latency measurement")] = 20,
        compare_models: Annotated[bool, typer.Option(
            help="also measure each offline embedding model against all-MiniLM-L6-v2")] = True,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Indexing throughput, batched insert, multi-query latency, HNSW vs exact scan, the offline embedding
        models against MiniLM (ratios, one run)."""
        from ai_llm.evals.rag.benchmark import run_rag_bench

        result = asyncio.run(run_rag_bench(get_settings(), docs, chunks, insert_chunks, queries, compare_models))
        emit(result, as_json, None if as_json else "\n".join(f"{k}: {v}" for k, v in result.items()))
