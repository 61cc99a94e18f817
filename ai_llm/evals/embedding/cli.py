"""`hub bench embedding`: the embedding server's throughput against the bare model."""

from __future__ import annotations

from typing import Annotated

import typer

from ai_llm.common.cli_output import emit


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub bench embedding`."""

    @bench_app.command("embedding")
    def bench_embedding(
        texts: Annotated[int, typer.Option(help="distinct texts per concurrency level")] = 256,
        callers: Annotated[list[int] | None, typer.Option(help="concurrent callers (repeatable)")] = None,
        runtime: Annotated[list[str] | None, typer.Option(
            help="server runtimes to measure (repeatable): bf16, onnx, onnx-int8, torch")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """texts/s for 1, 8 and 64 concurrent callers: embedding server (batching, cache, ONNX) vs the bare
        unbatched torch model, in the same run."""
        import asyncio

        from ai_llm.embedding_server.runtime import RUNTIMES
        from ai_llm.evals.embedding.benchmark import run_bench, text_report

        runtimes = runtime or ["torch", "onnx"]
        unknown = [r for r in runtimes if r not in RUNTIMES]
        if unknown:
            typer.echo(f"unknown runtime {unknown}; choose from {', '.join(RUNTIMES)}", err=True)
            raise typer.Exit(2)
        result = asyncio.run(run_bench(texts, tuple(callers or (1, 8, 64)), tuple(runtimes)))
        emit(result, as_json, text_report(result))
